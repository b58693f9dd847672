"""Grouped splits and crops of the real dice photographs in ../shared/datasets.

The datasets' own splits leak (near-identical shots on both sides, and rune55-dice holds
copies of byler-d6's photos), so this script makes its own grouped split:

- byler-d6: the README's blocks (train b02 b03 b05 b06 b07 b09, val b01 b10, test b04 b08 b11).
- matteop65-d6-webcam: the README's suggested split (series runs kept whole).
- rune55-dice: photos are grouped by their source stem (the name before the export hash,
  which Roboflow keeps for augmented copies of one photo), by near-identical content
  (256-bit difference hash within 20 bits, union-find), and any photo whose stem is a
  byler-d6 photo joins that photo's block and split. Each remaining group goes to
  test / val / train (15 / 10 / 75 %) by a hash of its smallest member's name, so the
  split does not depend on the order of files.

Outputs, under --out (default data/real):
- detection.json: every photo with its split, group, source and boxes (value, x0, y0, x1, y1
  in pixels of the photo).
- SPLIT/SOURCE/ for each split (train, val, test) and dataset: an images/ folder of links
  to the photos and a labels/ folder (YOLO, class k = value k + 1; matteop65's pip boxes
  grown to the die), the form `tablesight eval` reads.
- crops.npz: one square crop per die, CONTEXT_STORED times the longer box side around the
  box centre, resampled to CROP_STORED_PX (antialiased bilinear, as the Rust reader does),
  with value (0 for a crop of no die), split, source and group index, and a colour class for
  byler-d6's dice (see BYLER_COLOURS; -1 elsewhere); and per photo two crops of places
  without a die (sized like its dice), for the reader's "nothing".

Run: .venv-train/bin/python models/training/prepare_real.py
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps

from common import CONTEXT_STORED, CROP_STORED_PX, DIE_COLORS, crop_square

SPLIT_SHARES = (("test", 0.15), ("val", 0.10), ("train", 0.75))

# byler-d6's colour estimate of each die (`colour_estimate_unreviewed.csv`, from hue,
# saturation and brightness in the box; nobody reviewed it) as the reader's colour classes: a
# blue, purple, pink or yellow body is that game colour, whatever the set (navy, marbled,
# smoky dice); red, green, black, white, brown, grey, orange and teal dice are "other". Dark
# purple dice estimated black or dark red are "other" here: the labels are noisy, a start.
BYLER_COLOURS = {"blue": "blue", "purple": "purple", "pink/magenta": "pink", "yellow": "yellow"}


def read_yolo(path: Path, width: int, height: int) -> list[list[float]]:
    """The boxes of a YOLO label file as [value, x0, y0, x1, y1] in pixels (class k is value
    k + 1). Not built on `yolo.read_boxes`: its corners, from centres already in pixels,
    differ in the last bits and move 739 of data/real's crops by a pixel (tried 2026-12-02)."""
    boxes = []
    if not path.exists():
        return boxes
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) != 5:
            continue
        k, cx, cy, w, h = int(parts[0]), *map(float, parts[1:])
        boxes.append(
            [
                k + 1,
                (cx - w / 2) * width,
                (cy - h / 2) * height,
                (cx + w / 2) * width,
                (cy + h / 2) * height,
            ]
        )
    return boxes


def dhash_bits(image: Image.Image, side: int = 16) -> np.ndarray:
    """Difference hash: whether each pixel of a side x side grey thumbnail is darker than
    its right neighbour."""
    small = np.asarray(image.convert("L").resize((side + 1, side), Image.BILINEAR), dtype=np.int16)
    return (small[:, 1:] > small[:, :-1]).flatten()


class UnionFind:
    def __init__(self, n: int):
        self.parent = list(range(n))

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def split_by_hash(name: str) -> str:
    fraction = int(hashlib.sha1(name.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    edge = 0.0
    for split, share in SPLIT_SHARES:
        edge += share
        if fraction < edge:
            return split
    return "train"


def load_csv(path: Path) -> list[dict[str, str]]:
    lines = path.read_text().splitlines()
    header = lines[0].split(",")
    return [dict(zip(header, line.split(","))) for line in lines[1:] if line]


def byler(root: Path) -> list[dict]:
    rows = load_csv(root / "splits.csv")
    photos = []
    for row in rows:
        path = root / "images" / f"{row['image']}.jpg"
        photos.append(
            {
                "source": "byler-d6",
                "path": str(path),
                "stem": row["image"],
                "group": f"byler/{row['block']}",
                "split": row["suggested_split"],
            }
        )
    return photos


def matteop65(root: Path) -> list[dict]:
    rows = load_csv(root / "splits.csv")
    return [
        {
            "source": "matteop65-d6-webcam",
            "path": str(root / "images" / f"{row['image']}.jpg"),
            "stem": row["image"],
            "group": f"matteop65/{row['block']}",
            "split": row["suggested_split"],
        }
        for row in rows
    ]


def rune55(root: Path, byler_photos: list[dict]) -> list[dict]:
    paths = sorted(root.glob("*/images/*.jpg"))
    stems = [p.stem.rsplit("_", 1)[0] for p in paths]
    bits = np.array([dhash_bits(Image.open(p)) for p in paths])
    uf = UnionFind(len(paths))
    first_of_stem: dict[str, int] = {}
    for i, stem in enumerate(stems):
        # "i" is a generic stem shared by unrelated photos: only content groups those.
        if stem == "i":
            continue
        if stem in first_of_stem:
            uf.union(first_of_stem[stem], i)
        else:
            first_of_stem[stem] = i
    for i in range(len(paths)):
        distance = np.count_nonzero(bits[i + 1 :] != bits[i], axis=1)
        for j in np.nonzero(distance <= 20)[0]:
            uf.union(i, i + 1 + int(j))
    byler_by_stem = {p["stem"]: p for p in byler_photos}
    members: dict[int, list[int]] = {}
    for i in range(len(paths)):
        members.setdefault(uf.find(i), []).append(i)
    photos = []
    for root_index, group in members.items():
        linked = [byler_by_stem[stems[i]] for i in group if stems[i] in byler_by_stem]
        if linked:
            # A copy of a byler-d6 photo follows that photo (its block and split).
            group_name, split = linked[0]["group"], linked[0]["split"]
        else:
            smallest = min(paths[i].name for i in group)
            group_name, split = f"rune55/{smallest}", split_by_hash(smallest)
        for i in group:
            photos.append(
                {
                    "source": "rune55-dice",
                    "path": str(paths[i]),
                    "stem": stems[i],
                    "group": group_name,
                    "split": split,
                }
            )
    return photos


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=Path, default=Path("../shared/datasets"))
    parser.add_argument("--out", type=Path, default=Path("data/real"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    byler_photos = byler(args.datasets / "byler-d6")
    photos = (
        byler_photos
        + matteop65(args.datasets / "matteop65-d6-webcam")
        + rune55(args.datasets / "rune55-dice", byler_photos)
    )
    groups = sorted({p["group"] for p in photos})
    group_index = {g: i for i, g in enumerate(groups)}

    byler_colours = {
        (row["image"], int(row["box_index"])): DIE_COLORS.index(BYLER_COLOURS.get(row["colour_estimate"], "other"))
        for row in load_csv(args.datasets / "byler-d6" / "colour_estimate_unreviewed.csv")
    }
    crops, values, colours, splits, sources, group_ids = [], [], [], [], [], []
    rng = np.random.default_rng(0)
    for photo in photos:
        path = Path(photo["path"])
        image = ImageOps.exif_transpose(Image.open(path)).convert("RGB")
        width, height = image.size
        labels = path.parent.parent / "labels" / f"{path.stem}.txt"
        boxes = read_yolo(labels, width, height)
        if photo["source"] == "matteop65-d6-webcam":
            # Later boxes of this set hold only the pips: grow each to the die (about 44 px).
            boxes = [grow_to(b, 44.0) for b in boxes]
        photo["width"], photo["height"] = width, height
        photo["boxes"] = [[int(b[0])] + [round(v, 2) for v in b[1:]] for b in boxes]
        for index, (value, x0, y0, x1, y1) in enumerate(boxes):
            crops.append(crop_square(image, (x0, y0, x1, y1), CONTEXT_STORED, CROP_STORED_PX))
            values.append(value)
            if photo["source"] == "byler-d6":
                colours.append(byler_colours.get((photo["stem"], index), -1))
            else:
                colours.append(-1)
            splits.append(photo["split"])
            sources.append(photo["source"])
            group_ids.append(group_index[photo["group"]])
        for box in background_boxes(boxes, width, height, rng, count=2):
            crops.append(crop_square(image, box, CONTEXT_STORED, CROP_STORED_PX))
            values.append(0)
            colours.append(-1)
            splits.append(photo["split"])
            sources.append(photo["source"])
            group_ids.append(group_index[photo["group"]])

    (args.out / "detection.json").write_text(json.dumps(photos))
    write_yolo_splits(photos, args.out)
    np.savez(
        args.out / "crops.npz",
        crops=np.stack(crops),
        values=np.array(values, dtype=np.int8),
        colours=np.array(colours, dtype=np.int8),
        splits=np.array(splits),
        sources=np.array(sources),
        groups=np.array(group_ids, dtype=np.int32),
    )
    summary: dict[tuple[str, str], list[int]] = {}
    for photo in photos:
        entry = summary.setdefault((photo["source"], photo["split"]), [0, 0])
        entry[0] += 1
        entry[1] += len(photo["boxes"])
    for (source, split), (n_photos, n_dice) in sorted(summary.items()):
        print(f"{source:22} {split:5} {n_photos:5} photos {n_dice:6} dice")
    print(f"{len(groups)} groups, {len(crops)} crops -> {args.out}")


def write_yolo_splits(photos: list[dict], out: Path) -> None:
    """Each split of each source as images/ (links) and labels/ (YOLO text)."""
    for photo in photos:
        folder = out / photo["split"] / photo["source"]
        (folder / "images").mkdir(parents=True, exist_ok=True)
        (folder / "labels").mkdir(parents=True, exist_ok=True)
        path = Path(photo["path"]).resolve()
        link = folder / "images" / path.name
        link.unlink(missing_ok=True)
        link.symlink_to(path)
        w, h = photo["width"], photo["height"]
        lines = [
            f"{v - 1} {(x0 + x1) / 2 / w:.6f} {(y0 + y1) / 2 / h:.6f} {(x1 - x0) / w:.6f} {(y1 - y0) / h:.6f}"
            for v, x0, y0, x1, y1 in photo["boxes"]
        ]
        (folder / "labels" / f"{path.stem}.txt").write_text("".join(line + "\n" for line in lines))


def background_boxes(boxes, width, height, rng, count):
    """Up to `count` boxes the size of the photo's dice whose centres are more than 1.5
    die sides from every die's centre."""
    if not boxes:
        return []
    sides = [max(b[3] - b[1], b[4] - b[2]) for b in boxes]
    found = []
    for _ in range(count * 20):
        side = float(rng.choice(sides)) * rng.uniform(0.7, 1.4)
        cx, cy = rng.uniform(side / 2, width - side / 2), rng.uniform(side / 2, height - side / 2)
        if all(
            max(abs(cx - (b[1] + b[3]) / 2), abs(cy - (b[2] + b[4]) / 2)) > 1.5 * max(s, side)
            for b, s in zip(boxes, sides)
        ):
            found.append((cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2))
            if len(found) == count:
                break
    return found


def grow_to(box: list[float], side_px: float) -> list[float]:
    value, x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    half_w = max(x1 - x0, side_px) / 2
    half_h = max(y1 - y0, side_px) / 2
    return [value, cx - half_w, cy - half_h, cx + half_w, cy + half_h]


if __name__ == "__main__":
    main()
