"""How the whole reader (`tablesight detect`) names the colours of byler-d6's real dice, against
the dataset's own colour estimate (`colour_estimate_unreviewed.csv`, nobody reviewed it) in
the reader's classes (prepare_real.BYLER_COLOURS: blue, purple, pink and yellow bodies are
that game colour, the rest "other"). None of these dice are the game's own, so this is a rough
check of how the colour classes carry over to real dice, not a figure against a target.

Run: .venv-train/bin/python models/training/real_colours.py data/real/val/byler-d6 [--models DIR]
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess
from pathlib import Path

from prepare_real import BYLER_COLOURS, load_csv

DATASET = Path("../shared/datasets/byler-d6")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="a split's byler-d6 folder (images/, labels/)")
    parser.add_argument("--models", type=Path)
    parser.add_argument("--bin", type=Path, default=Path("target/debug/tablesight"))
    args = parser.parse_args()
    estimate = {
        (row["image"], int(row["box_index"])): row["colour_estimate"]
        for row in load_csv(DATASET / "colour_estimate_unreviewed.csv")
    }
    # (estimate, class) -> what the reader said, "?" for an uncertain reading.
    table: dict[tuple[str, str], collections.Counter] = collections.defaultdict(collections.Counter)
    for image in sorted((args.folder / "images").glob("*.jpg")):
        command = [str(args.bin), "detect", str(image), "--json"]
        if args.models:
            command += ["--models", str(args.models)]
        found = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
        side = 640.0  # byler-d6's photos are 640x640
        lines = (args.folder / "labels" / f"{image.stem}.txt").read_text().splitlines()
        for index, line in enumerate(lines):
            _, cx, cy, w, h = (float(v) * side for v in line.split())
            reach = max(w, h) / 2
            said = "missed"
            for die in found["dice"]:
                x0, y0, x1, y1 = die["box"]
                if ((x0 + x1) / 2 - cx) ** 2 + ((y0 + y1) / 2 - cy) ** 2 < reach**2:
                    said = die["color"] + ("?" if die.get("uncertain") else "")
            name = estimate.get((image.stem, index), "?")
            table[(name, BYLER_COLOURS.get(name, "other"))][said] += 1
    right = total = 0
    for (name, truth), said in sorted(table.items(), key=lambda kv: (kv[0][1], -sum(kv[1].values()))):
        count = sum(said.values())
        hits = said[truth] + said[truth + "?"]
        right, total = right + hits, total + count
        print(f"{name:14} -> {truth:7} {hits:4} of {count:4} right: {dict(said.most_common())}")
    print(f"colour class right: {right} of {total} ({100 * right / max(total, 1):.1f} %)")


if __name__ == "__main__":
    main()
