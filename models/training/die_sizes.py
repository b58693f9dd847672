"""How large the dice are in the pictures: the 10th, 50th and 90th percentile of a die box's
longer side, in pixels, and the share in each band of BANDS_PX, for each folder given.

A folder of rendered scenes (`tablesight synth scenes`) is told apart into the game's dice
and the dice of other games; a real set (`images/` and `labels/`, YOLO boxes read by
`yolo.read_boxes`) counts every labelled die.

Run:
    .venv-train/bin/python models/training/die_sizes.py data/synth10/train data/real/val/byler-d6
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from PIL import Image

from yolo import read_boxes


# The bands counted apart: the reader sees a die about 27 px wide (40 px at 1.5 times its box).
BANDS_PX = [0, 30, 45, 60, 1000]


def longer_side(box) -> float:
    x0, y0, x1, y1 = box
    return max(x1 - x0, y1 - y0)


def rendered(folder: Path) -> dict[str, list[float]]:
    sides = {"game dice": [], "dice of other games": []}
    for path in sorted(folder.glob("scene-*.json")):
        scene = json.loads(path.read_text())
        sides["game dice"] += [longer_side(d["box_px"]) for d in scene["dice"]]
        sides["dice of other games"] += [longer_side(d["box_px"]) for d in scene["other_dice"]]
    return sides


def real(folder: Path) -> dict[str, list[float]]:
    sides = []
    for labels in sorted((folder / "labels").glob("*.txt")):
        with Image.open(next((folder / "images").glob(f"{labels.stem}.*"))) as picture:
            width, height = picture.size
        sides += [max(w, h) for _, _, _, w, h in read_boxes(labels, width, height)]
    return {"dice": sides}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", type=Path, nargs="+")
    args = parser.parse_args()
    for folder in args.folders:
        counted = real(folder) if (folder / "labels").is_dir() else rendered(folder)
        for what, sides in counted.items():
            if not sides:
                print(f"{folder} {what}: none")
                continue
            low, mid, high = np.percentile(sides, [10, 50, 90])
            bands = np.histogram(sides, BANDS_PX)[0] / len(sides)
            shares = ", ".join(f"{a}-{b} px {100 * share:.0f} %" for a, b, share in zip(BANDS_PX, BANDS_PX[1:], bands))
            print(f"{folder} {what}: {len(sides)}, longer side {low:.0f} / {mid:.0f} / {high:.0f} px (10th / 50th / 90th percentile); {shares}")


if __name__ == "__main__":
    main()
