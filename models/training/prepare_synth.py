"""Crops of rendered scenes (`tablesight synth scenes`) for the reader.

Each rendered scene is a JPEG with its labels beside it. This cuts, from the full-resolution
frame, one crop per die and per meeple (same rule as prepare_real.py: CONTEXT_STORED times
the longer box side, CROP_STORED_PX square) and two crops of places with nothing, with every
label the reader learns: kind, value, colour, player, rank. A label that the pixels cannot
show is -1 (not learnt): the value of a die that a meeple stands on (its top face is hidden
however much of the die shows) or that is less than 80 % visible (a hand or a floor covers
it), the colour of a die less than 40 % visible. Items less than 25 % visible are left out.
Each crop also keeps its view's tilt: the angle in degrees between the table's normal and
the ray from the item to the camera (0 straight from above; nothing crops 0), for the reader
to keep oblique dice upright (`train_reader.py --upright-tilt`).

Run: .venv-train/bin/python models/training/prepare_synth.py data/synth/train
Writes DIR/crops.npz.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np
from PIL import Image

from common import CONTEXT_STORED, CROP_STORED_PX, DIE_COLORS, KINDS, PLAYERS, RANKS, crop_square

MIN_VISIBLE = 0.25
VALUE_VISIBLE = 0.8
COLOR_VISIBLE = 0.4


def camera_centre(labels: dict) -> np.ndarray:
    """The camera's centre in the table's frame (mm; the mat's normal is -z, heights are
    negative z): -R^T t of the scene's `camera_from_table` (a unit quaternion i, j, k, w)."""
    pose = labels["camera"]["camera_from_table"]
    x, y, z, w = pose["rotation"]
    rotation = np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])
    return -rotation.T @ np.array(pose["translation"])


def tilt(item: dict, camera: np.ndarray) -> float:
    """Degrees between the table's normal and the ray from the item to the camera."""
    at = item.get("table_mm")
    if at is None:
        return 0.0
    ray = camera - np.array([at["x_mm"], at["y_mm"], -at["height_mm"]])
    return math.degrees(math.acos(min(1.0, abs(ray[2]) / max(np.linalg.norm(ray), 1e-9))))


def meeple_stands_on(die: dict, labels: dict) -> bool:
    """Whether a meeple stands on the die, as `synth::Labels::meeple_stands_on` says: a die on
    a tower's pillar shares its place with the meeple placed on its top face."""
    place = die["place"]
    return place["zone"] == "tower" and any(m["place"] == place for m in labels["meeples"])


def items(labels: dict):
    """(box, kind, value, colour, player, rank, tilt) of every labelled item, -1 where not
    shown."""
    camera = camera_centre(labels)
    for die in labels["dice"]:
        visible = die["visible"]
        if visible < MIN_VISIBLE:
            continue
        shown = visible >= VALUE_VISIBLE and not meeple_stands_on(die, labels)
        value = die["die"]["value"] - 1 if shown else -1
        color = DIE_COLORS.index(die["die"]["color"]) if visible >= COLOR_VISIBLE else -1
        yield die["box_px"], KINDS.index("die"), value, color, -1, -1, tilt(die, camera)
    for die in labels.get("other_dice", []):
        visible = die["visible"]
        if visible < MIN_VISIBLE:
            continue
        value = die["value"] - 1 if visible >= VALUE_VISIBLE else -1
        color = DIE_COLORS.index("other") if visible >= COLOR_VISIBLE else -1
        yield die["box_px"], KINDS.index("die"), value, color, -1, -1, tilt(die, camera)
    for meeple in labels["meeples"]:
        if meeple["visible"] < MIN_VISIBLE:
            continue
        player = PLAYERS.index(meeple["meeple"]["player"])
        rank = RANKS.index(meeple["meeple"]["rank"])
        yield meeple["box_px"], KINDS.index("meeple"), -1, -1, player, rank, tilt(meeple, camera)


def nothing_boxes(labels: dict, width: int, height: int, rng, count: int):
    boxes = [d["box_px"] for d in labels["dice"] + labels.get("other_dice", [])] + [m["box_px"] for m in labels["meeples"]]
    sides = [max(b[2] - b[0], b[3] - b[1]) for b in boxes] or [30.0]
    found = []
    for _ in range(count * 20):
        side = min(float(rng.choice(sides)) * rng.uniform(0.7, 1.5), 0.9 * min(width, height))
        cx, cy = rng.uniform(side / 2, width - side / 2), rng.uniform(side / 2, height - side / 2)
        if all(
            max(abs(cx - (b[0] + b[2]) / 2), abs(cy - (b[1] + b[3]) / 2)) > 0.9 * max(s, side)
            for b, s in zip(boxes, sides)
        ):
            found.append((cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2))
            if len(found) == count:
                break
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=Path, help="a folder written by `tablesight synth scenes`")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    crops, labels_out, scene_ids, tilts = [], [], [], []
    for scene_index, label_path in enumerate(sorted(args.dir.glob("scene-*.json"))):
        labels = json.loads(label_path.read_text())
        image = Image.open(label_path.with_suffix(".jpg")).convert("RGB")
        for box, kind, value, color, player, rank, view_tilt in items(labels):
            crops.append(crop_square(image, box, CONTEXT_STORED, CROP_STORED_PX))
            labels_out.append((kind, value, color, player, rank))
            scene_ids.append(scene_index)
            tilts.append(view_tilt)
        for box in nothing_boxes(labels, image.width, image.height, rng, count=2):
            crops.append(crop_square(image, box, CONTEXT_STORED, CROP_STORED_PX))
            labels_out.append((KINDS.index("nothing"), -1, -1, -1, -1))
            scene_ids.append(scene_index)
            tilts.append(0.0)
    table = np.array(labels_out, dtype=np.int8)
    np.savez(
        args.dir / "crops.npz",
        crops=np.stack(crops),
        kind=table[:, 0],
        value=table[:, 1],
        color=table[:, 2],
        player=table[:, 3],
        rank=table[:, 4],
        scenes=np.array(scene_ids, dtype=np.int32),
        tilt=np.array(tilts, dtype=np.float32),
    )
    counts = np.bincount(table[:, 0], minlength=len(KINDS))
    print(f"{len(crops)} crops from {scene_index + 1} scenes: " + ", ".join(f"{k} {n}" for k, n in zip(KINDS, counts)))


if __name__ == "__main__":
    main()
