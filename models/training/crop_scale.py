"""How the reader reads the rendered game's dice cut at other squares than the finder's box.

For every scene of a rendered set (`tablesight synth scenes`), runs `tablesight detect
--json` (the finder's boxes, without the scene's camera), matches its dice to the labelled
dice counted by `tablesight eval` (at least 90 % visible, no meeple on them), and reads each
matched die of the game's colours once through onnxruntime, cut:
- at the finder's box (what a camera's frame reads);
- at the finder's centre with the labelled side, and at the labelled centre with the
  finder's side (which of the two loses dice);
- at the labelled box;
- at the finder's centre with K times the side of the 16 mm die projected where it stands
  (the scene's camera and the die's labelled base, the cube square to the mat and turned an
  eighth of a turn, averaged: `TableGeometry::die_crop_box`'s rule, from the true place).
Prints the share of values read right for each, and for the finder's box by how its side
compares with the labelled one.

Run: .venv-train/bin/python models/training/crop_scale.py data/synth4/val
(with `cargo build -p tablesight` first; the validation renders only: choose nothing on a
test set).
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

import numpy as np
import onnxruntime as ort
from PIL import Image

from common import DIE_COLORS, HEADS, READER_CONTEXT, READER_PX, crop_square

DIE_MM = 16.0
VALUE_COLUMNS = slice(3, 3 + len(HEADS[1][1]))


def centre(box) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def side(box) -> float:
    return max(box[2] - box[0], box[3] - box[1])


def square(c, s) -> list[float]:
    return [c[0] - s / 2, c[1] - s / 2, c[0] + s / 2, c[1] + s / 2]


def rotation(q) -> np.ndarray:
    """The rotation matrix of a unit quaternion stored as nalgebra writes it: [i, j, k, w]."""
    x, y, z, w = q
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


def project(camera, point) -> tuple[float, float]:
    """The pixel of a table point (x, y, height in mm), as `calibration::Camera::project`."""
    pose, k = camera["camera_from_table"], camera["intrinsics"]
    p = rotation(pose["rotation"]) @ np.array([point[0], point[1], -point[2]]) + np.array(pose["translation"])
    x, y = p[0] / p[2], p[1] / p[2]
    r2 = x * x + y * y
    d = 1 + k["k1"] * r2 + k["k2"] * r2 * r2
    return k["fx_px"] * x * d + k["cx_px"], k["fy_px"] * y * d + k["cy_px"]


def die_side(camera, base) -> float:
    """The mean side of the projected die standing on `base`, square and an eighth turned."""
    sides = []
    for turn in (0.0, np.pi / 4):
        c, s = np.cos(turn), np.sin(turn)
        points = np.array(
            [
                project(camera, (base[0] + (c * a - s * b) * DIE_MM / 2, base[1] + (s * a + c * b) * DIE_MM / 2, base[2] + up))
                for a in (-1, 1)
                for b in (-1, 1)
                for up in (0.0, DIE_MM)
            ]
        )
        sides.append(max(np.ptp(points[:, 0]), np.ptp(points[:, 1])))
    return float(np.mean(sides))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenes", type=Path, help="a folder of scene-*.jpg and scene-*.json")
    parser.add_argument("--model", type=Path, default=Path("models/reader.onnx"))
    parser.add_argument("--bin", type=Path, default=Path("target/debug/tablesight"))
    parser.add_argument("--shares", type=float, nargs="+", default=[0.8, 0.9, 1.0, 1.1])
    args = parser.parse_args()
    session = ort.InferenceSession(str(args.model))
    name = session.get_inputs()[0].name

    def value(image: Image.Image, box) -> int:
        crop = crop_square(image, box, READER_CONTEXT, READER_PX).astype(np.float32) / 255
        logits = session.run(None, {name: crop.transpose(2, 0, 1)[None]})[0][0]
        return int(logits[VALUE_COLUMNS].argmax()) + 1

    right: dict[str, int] = {}
    bands = [(0.0, 0.75), (0.75, 0.85), (0.85, 0.95), (0.95, 1.05), (1.05, 1.15), (1.15, 9.0)]
    by_band = {band: [0, 0] for band in bands}
    count = 0
    for labels_path in sorted(args.scenes.glob("scene-*.json")):
        labels = json.loads(labels_path.read_text())
        picture = labels_path.with_suffix(".jpg")
        found = json.loads(subprocess.run([str(args.bin), "detect", str(picture), "--json"], capture_output=True, text=True, check=True).stdout)
        image = Image.open(picture).convert("RGB")
        meeple_places = [json.dumps(m["place"], sort_keys=True) for m in labels["meeples"]]
        taken = set()
        for die in labels["dice"]:
            on_tower = die["place"].get("zone") == "tower"
            if die["visible"] < 0.9 or (on_tower and json.dumps(die["place"], sort_keys=True) in meeple_places):
                continue
            if die["die"]["color"] not in DIE_COLORS:
                continue
            truth, label = die["die"]["value"], die["box_px"]
            near = [
                (i, np.hypot(*np.subtract(centre(d["box"]), centre(label))))
                for i, d in enumerate(found["dice"])
                if i not in taken
            ]
            near = [(i, dist) for i, dist in near if dist <= side(label) / 2]
            if not near:
                continue
            i = min(near, key=lambda n: n[1])[0]
            taken.add(i)
            box = found["dice"][i]["box"]
            base = (die["table_mm"]["x_mm"], die["table_mm"]["y_mm"], die["table_mm"]["height_mm"])
            projected = die_side(labels["camera"], base)
            cuts = {
                "the finder's box": box,
                "the finder's centre, the labelled side": square(centre(box), side(label)),
                "the labelled centre, the finder's side": square(centre(label), side(box)),
                "the labelled box": label,
            }
            for share in args.shares:
                cuts[f"the finder's centre, {share} of the projected die's side"] = square(centre(box), share * projected)
            count += 1
            for what, cut in cuts.items():
                right[what] = right.get(what, 0) + (value(image, cut) == truth)
            ratio = side(box) / side(label)
            band = next(b for b in bands if b[0] <= ratio < b[1])
            by_band[band][0] += 1
            by_band[band][1] += value(image, box) == truth
    print(f"{args.scenes}: {count} dice of the game found, their value read right in one view when cut at")
    for what, n in right.items():
        print(f"  {what}: {100 * n / count:.1f} %")
    print("the finder's box, by its side against the labelled side:")
    for (low, high), (n, r) in by_band.items():
        if n:
            print(f"  {low:.2f}-{high:.2f}: {n} dice, {100 * r / n:.1f} % read right")


if __name__ == "__main__":
    main()
