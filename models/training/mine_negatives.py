"""The finder's false items on training pictures, cut as the reader's "nothing" (hard negatives).

The "nothing" crops of prepare_real.py and prepare_synth.py are random places the size of
the picture's items; what the finder puts in on photos is smaller and stranger: a speck on
a tray read as a one, a scratch, a pip-like knot in wood. `tablesight eval SET --json
--false-items FILE` writes every reading that matches no labelled item; this cuts those
that are surely no item as prepare_real.py and prepare_synth.py cut theirs, and writes them
in the form of their crops.npz, for `train_reader.py --real data/real/crops.npz OUT` (photos)
or `--synth ... OUT` (rendered scenes).

Kept: a false item whose centre lies more than NEAR box sides from every labelled item's
centre (not a second box on a die, its side face, or an item too hidden to count). On
photos, whose labels miss a die now and then, it must also be smaller than SPECK times the
photo's median labelled die, or be read unsure with a confidence under UNSURE: a reading of
a die's size that is fairly sure, away from every label, may be a die nobody labelled (a
die held in a hand, one at the photo's edge). Rendered scenes label every item, so there
each is kept.

Run (about 22 minutes on one thread for the photos, the training splits only; 3 for the scenes):
    for s in byler-d6 matteop65-d6-webcam rune55-dice; do
        target/debug/tablesight eval data/real/train/$s --json --false-items data/mined/real-$s.jsonl > data/mined/real-$s.json
    done
    target/debug/tablesight eval data/synth4/train-b --live --json --false-items data/mined/synth-train-b.jsonl > data/mined/synth-train-b.json
    .venv-train/bin/python models/training/mine_negatives.py real data/mined/real-*.jsonl --out data/mined/real-negatives.npz
    target/debug/tablesight eval data/synth4/train --live --json --false-items data/mined/synth-train.jsonl > data/mined/synth-train.json
    .venv-train/bin/python models/training/mine_negatives.py synth data/mined/synth-train*.jsonl --out data/mined/synth-negatives.npz
    # packed to travel to a GPU (device_runs.sh mined):
    .venv-train/bin/python models/training/pack_crops.py data/mined/real-negatives.npz data/pack5/real-negatives.npz --px 64 --quality 80
    .venv-train/bin/python models/training/pack_crops.py data/mined/synth-negatives.npz data/pack5/synth-negatives.npz --px 64 --quality 80
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps

from common import CONTEXT_STORED, CROP_STORED_PX, KINDS, crop_square

NEAR = 1.0
SPECK = 0.6
UNSURE = 0.5


def centre_side(box) -> tuple[float, float, float]:
    x0, y0, x1, y1 = box
    return (x0 + x1) / 2, (y0 + y1) / 2, max(x1 - x0, y1 - y0, 1.0)


def away(box, labelled: list) -> bool:
    """Whether `box`'s centre lies more than NEAR sides (the larger of the two boxes') from
    every labelled box's centre."""
    cx, cy, side = centre_side(box)
    for other in labelled:
        ox, oy, other_side = centre_side(other)
        if max(abs(cx - ox), abs(cy - oy)) <= NEAR * max(side, other_side):
            return False
    return True


def false_items(paths: list[Path]) -> dict[str, list[dict]]:
    """The false items of `eval --false-items` files, by picture."""
    by_picture: dict[str, list[dict]] = defaultdict(list)
    for path in paths:
        for line in path.read_text().splitlines():
            if line.strip():
                item = json.loads(line)
                by_picture[item["picture"]].append(item)
    return by_picture


def mine_real(paths: list[Path], detection: Path) -> dict[str, np.ndarray]:
    photos = json.loads(detection.read_text())
    group_index = {g: i for i, g in enumerate(sorted({p["group"] for p in photos}))}
    by_name = {(p["source"], Path(p["path"]).name): p for p in photos}
    crops, sources, groups = [], [], []
    seen = kept = 0
    for picture, items in sorted(false_items(paths).items()):
        link = Path(picture)
        photo = by_name[(link.parent.parent.name, link.name)]
        if photo["split"] != "train":
            raise SystemExit(f"{picture} is a {photo['split']} photo: mine the training split only")
        labelled = [b[1:] for b in photo["boxes"]]
        median = float(np.median([centre_side(b)[2] for b in labelled])) if labelled else 0.0
        image = ImageOps.exif_transpose(Image.open(photo["path"])).convert("RGB")
        for item in items:
            seen += 1
            speck = centre_side(item["box"])[2] < SPECK * median
            doubtful = item["uncertain"] and item["confidence"] < UNSURE
            if away(item["box"], labelled) and (doubtful or speck):
                crops.append(crop_square(image, item["box"], CONTEXT_STORED, CROP_STORED_PX))
                sources.append(photo["source"])
                groups.append(group_index[photo["group"]])
                kept += 1
    print(f"{kept} of {seen} false items kept")
    n = len(crops)
    return {
        "crops": np.stack(crops),
        "values": np.zeros(n, dtype=np.int8),
        "colours": np.full(n, -1, dtype=np.int8),
        "splits": np.array(["train"] * n),
        "sources": np.array(sources),
        "groups": np.array(groups, dtype=np.int32),
    }


def mine_synth(paths: list[Path]) -> dict[str, np.ndarray]:
    crops = []
    seen = 0
    for picture, items in sorted(false_items(paths).items()):
        labels = json.loads(Path(picture).with_suffix(".json").read_text())
        labelled = [d["box_px"] for d in labels["dice"] + labels.get("other_dice", [])]
        labelled += [m["box_px"] for m in labels["meeples"]]
        image = Image.open(picture).convert("RGB")
        for item in items:
            seen += 1
            if away(item["box"], labelled):
                crops.append(crop_square(image, item["box"], CONTEXT_STORED, CROP_STORED_PX))
    print(f"{len(crops)} of {seen} false items kept")
    n = len(crops)
    return {
        "crops": np.stack(crops),
        "kind": np.full(n, KINDS.index("nothing"), dtype=np.int8),
        **{k: np.full(n, -1, dtype=np.int8) for k in ("value", "color", "player", "rank")},
        "tilt": np.zeros(n, dtype=np.float32),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["real", "synth"])
    parser.add_argument("false_items", type=Path, nargs="+", help="files of `tablesight eval --false-items`")
    parser.add_argument("--detection", type=Path, default=Path("data/real/detection.json"))
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    arrays = mine_real(args.false_items, args.detection) if args.what == "real" else mine_synth(args.false_items)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(args.out, **arrays)
    print(f"-> {args.out}")


if __name__ == "__main__":
    main()
