"""How well the reader reads the dice on tower pillars, which a meeple standing on them
mostly covers, in a rendered game: each still frame's readings (`tablesight referee DIR
--save-readings FILE`) against the game's true labels (`DIR/labels.jsonl`), die by die on
the same pillar, split by whether the reading was sure.

Run: .venv-train/bin/python models/training/covered_dice.py DIR FILE
"""

from __future__ import annotations

import argparse
import collections
import json
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", type=Path, help="a rendered game's folder (labels.jsonl)")
    parser.add_argument("readings", type=Path, help="the readings saved by `referee --save-readings`")
    args = parser.parse_args()
    labels = [json.loads(line) for line in (args.game / "labels.jsonl").read_text().splitlines()]
    readings = [json.loads(line) for line in args.readings.read_text().splitlines()]
    counts: collections.Counter = collections.Counter()
    for truth, read in zip(labels, readings):
        if truth["hands"]:
            continue
        on_pillars = {}
        for die in truth["dice"]:
            place = die.get("place") or {}
            if place.get("zone") == "tower" and not place.get("buried"):
                on_pillars[(place["tower"], place["level"], place["pillar"])] = die["die"]
        for die in read["dice"]:
            place = die.get("place") or {}
            if place.get("zone") != "tower" or place.get("buried"):
                continue
            true_die = on_pillars.get((place["tower"], place["level"], place["pillar"]))
            if true_die is None:
                continue
            sure = "unsure" if die["uncertain"] else "sure"
            counts[(sure, "colour", die["die"]["color"] == true_die["color"])] += 1
            counts[(sure, "value", die["die"]["value"] == true_die["value"])] += 1
    for sure in ("sure", "unsure"):
        for what in ("colour", "value"):
            right, wrong = counts[(sure, what, True)], counts[(sure, what, False)]
            if right + wrong:
                print(f"{sure:6} readings, {what:6} right: {right} of {right + wrong}")


if __name__ == "__main__":
    main()
