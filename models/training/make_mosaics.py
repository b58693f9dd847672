"""Large photos of dice small in the frame, made from a labelled YOLO set's photos.

A phone's 4032x3024 photo of a table seen from afar holds dice of 40-80 px, sharp at full
resolution but a few pixels once the frame is shrunk for the finder. None of the real sets
has such photos (their photos are 416-640 px), so this script tiles a set's photos, at
their own pixels, into a grid: each mosaic of N x N photos is N times the size of one, its
dice as sharp as in the photos and N times smaller against the frame. The labels are
carried over (YOLO, class k = value k + 1), so `tablesight eval` measures the mosaics as it
measures the photos.

    .venv-train/bin/python models/training/make_mosaics.py data/real/val/byler-d6 data/mosaic/val/byler-d6-4x4 --grid 4
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
    parser.add_argument("--grid", type=int, default=4, help="photos a side")
    parser.add_argument("--seed", type=int, default=0, help="the order of the photos")
    args = parser.parse_args()

    photos = sorted((args.source / "images").iterdir())
    random.Random(args.seed).shuffle(photos)
    (args.out / "images").mkdir(parents=True, exist_ok=True)
    (args.out / "labels").mkdir(parents=True, exist_ok=True)
    per = args.grid * args.grid
    for index in range(len(photos) // per):
        group = photos[index * per : (index + 1) * per]
        images = [ImageOps.exif_transpose(Image.open(p)).convert("RGB") for p in group]
        cell_w = max(i.width for i in images)
        cell_h = max(i.height for i in images)
        mosaic = Image.new("RGB", (cell_w * args.grid, cell_h * args.grid), (128, 128, 128))
        lines = []
        for k, (path, image) in enumerate(zip(group, images)):
            x0, y0 = (k % args.grid) * cell_w, (k // args.grid) * cell_h
            mosaic.paste(image, (x0, y0))
            label = args.source / "labels" / (path.stem + ".txt")
            for cls, cx, cy, w, h in read_boxes(label, image.width, image.height):
                lines.append(box_line(cls, x0 + cx, y0 + cy, w, h, mosaic.width, mosaic.height))
        name = f"mosaic-{index:04d}"
        mosaic.save(args.out / "images" / f"{name}.jpg", quality=95)
        (args.out / "labels" / f"{name}.txt").write_text("\n".join(lines) + "\n")
    print(f"{len(photos) // per} mosaics of {per} photos in {args.out}")


if __name__ == "__main__":
    main()
