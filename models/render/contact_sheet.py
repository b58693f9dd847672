"""The contact sheet of the synthetic table: rendered scenes and die crops above real
photographs and die crops from ../shared/datasets/rune55-dice, so anyone can see the gap.

Run (after scripts/setup-render and `tablesight synth scenes --out DIR`):
    .venv-render/bin/python models/render/contact_sheet.py --rendered DIR \
        --real ../shared/datasets/rune55-dice/test --out models/contact-sheet.png
"""

import argparse
import json
import random
from pathlib import Path

from PIL import Image, ImageDraw

CELL = (320, 240)
CROP = 80


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rendered", type=Path, required=True)
    parser.add_argument("--real", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)

    scenes = sorted(args.rendered.glob("scene-*.jpg"))[:4]
    photos = sorted((args.real / "images").glob("*.jpg"))
    rng.shuffle(photos)
    photos = photos[:4]

    rendered_crops = []
    for scene in sorted(args.rendered.glob("scene-*.jpg")):
        labels = json.loads(scene.with_suffix(".json").read_text())
        image = Image.open(scene).convert("RGB")
        for die in labels["dice"]:
            if die["visible"] > 0.9 and die["box_px"][2] - die["box_px"][0] > 14:
                rendered_crops.append(crop(image, die["box_px"]))
    rng.shuffle(rendered_crops)
    real_crops = []
    for photo in photos * 3:
        image = Image.open(photo).convert("RGB")
        label = args.real / "labels" / (photo.stem + ".txt")
        for line in label.read_text().splitlines()[:2]:
            _, cx, cy, w, h = (float(v) for v in line.split())
            W, H = image.size
            real_crops.append(crop(image, [(cx - w / 2) * W, (cy - h / 2) * H, (cx + w / 2) * W, (cy + h / 2) * H]))
    crops_per_row = 4 * CELL[0] // CROP
    sheet = Image.new("RGB", (4 * CELL[0], 2 * CELL[1] + 2 * CROP + 60), (30, 30, 30))
    draw = ImageDraw.Draw(sheet)
    for i, scene in enumerate(scenes):
        sheet.paste(Image.open(scene).convert("RGB").resize(CELL), (i * CELL[0], 20))
    for i, photo in enumerate(photos):
        sheet.paste(Image.open(photo).convert("RGB").resize(CELL), (i * CELL[0], CELL[1] + 40))
    y = 2 * CELL[1] + 40
    for i, image in enumerate(rendered_crops[: crops_per_row // 2] + real_crops[: crops_per_row // 2]):
        sheet.paste(image, (i * CROP, y + 20))
    draw.text((4, 4), "rendered scenes (tablesight synth scenes)", fill=(255, 255, 255))
    draw.text((4, CELL[1] + 24), "real photographs (rune55-dice, CC BY 4.0, Roboflow Universe)", fill=(255, 255, 255))
    draw.text((4, y + 4), "die crops: rendered (left half) | real (right half)", fill=(255, 255, 255))
    sheet.save(args.out, optimize=True)
    print(f"{args.out}: {len(scenes)} rendered scenes, {len(photos)} photographs, die crops")


def crop(image: Image.Image, box) -> Image.Image:
    left, top, right, bottom = box
    side = max(right - left, bottom - top) * 1.3
    cx, cy = (left + right) / 2, (top + bottom) / 2
    return image.crop((int(cx - side / 2), int(cy - side / 2), int(cx + side / 2), int(cy + side / 2))).resize((CROP, CROP))


if __name__ == "__main__":
    main()
