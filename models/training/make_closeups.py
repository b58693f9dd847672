"""Close photos of dice, large in the frame, made from a labelled YOLO set's photos.

A phone held over a roll takes dice of a third or half of the frame. None of the real sets
has such photos (their dice are 2-15 % of the frame), and the finder, which sees every
frame shrunk to 512 px, learnt dice of 6-200 of its pixels. This script cuts a square
around one die of each photo (two at most, chosen at random), so that the die's longer
side is `--fraction` of the square, and enlarges the square to `--size` px. The dice at
least 90 % inside the square keep their labels (YOLO, class k = value k + 1), so
`tablesight eval` measures the close photos as it measures the photos. Dice cut by the
square's edge carry no label: a reading there counts as a false item.

    .venv-train/bin/python models/training/make_closeups.py data/real/val/byler-d6 data/closeup/val/byler-d6-40 --fraction 0.4
"""

import argparse
import random
from pathlib import Path

from PIL import Image, ImageOps

from yolo import box_line, read_boxes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("source", type=Path, help="a YOLO set: images/ and labels/")
    parser.add_argument("out", type=Path)
    parser.add_argument("--fraction", type=float, default=0.4, help="the die's side / the photo's")
    parser.add_argument("--size", type=int, default=640, help="the close photo's side")
    parser.add_argument("--per-photo", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    (args.out / "images").mkdir(parents=True, exist_ok=True)
    (args.out / "labels").mkdir(parents=True, exist_ok=True)
    made = 0
    for path in sorted((args.source / "images").iterdir()):
        image = ImageOps.exif_transpose(Image.open(path)).convert("RGB")
        dice = read_boxes(args.source / "labels" / (path.stem + ".txt"), image.width, image.height)
        for k, (_, cx, cy, w, h) in enumerate(rng.sample(dice, min(args.per_photo, len(dice)))):
            side = max(w, h) / args.fraction
            if side > min(image.width, image.height):
                continue
            # The die anywhere in the middle half of the square, the square inside the photo.
            x0 = min(max(0.0, cx - side / 2 + rng.uniform(-0.15, 0.15) * side), image.width - side)
            y0 = min(max(0.0, cy - side / 2 + rng.uniform(-0.15, 0.15) * side), image.height - side)
            square = (round(x0), round(y0), round(x0 + side), round(y0 + side))
            close = image.crop(square).resize((args.size, args.size), Image.BICUBIC)
            lines = []
            for cls, dx, dy, dw, dh in dice:
                inside_w = min(dx + dw / 2, x0 + side) - max(dx - dw / 2, x0)
                inside_h = min(dy + dh / 2, y0 + side) - max(dy - dh / 2, y0)
                if max(inside_w, 0) * max(inside_h, 0) >= 0.9 * dw * dh:
                    lines.append(box_line(cls, dx - x0, dy - y0, dw, dh, side, side))
            name = f"{path.stem}-{k}"
            close.save(args.out / "images" / f"{name}.jpg", quality=92)
            (args.out / "labels" / f"{name}.txt").write_text("\n".join(lines) + "\n")
            made += 1
    print(f"{made} close photos in {args.out}")


if __name__ == "__main__":
    main()
