"""Contact sheets to look at: what the reader misses, and what the augmentation makes of crops.

Run:
    tablesight eval data/real/val/byler-d6 --models DIR --misses misses.jsonl
    .venv-train/bin/python models/training/sheets.py misses misses.jsonl --out misses.png
    .venv-train/bin/python models/training/sheets.py augmented --hue-share 1 --out hue.png

`misses` cuts each miss of `tablesight eval --misses` out of its picture (its box and a third
around it), labelled "index: truth>reading". `augmented` draws 48 real validation crops as
`train_reader.augment` gives them without recolouring (the upper rows) and with the shares
asked for (the lower rows, the same crops, cuts and light).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

CELL = 96
COLUMNS = 8
# The recolourings of `train_reader.recoloured`, each asked for with --NAME-share.
SHARES = ("polarity", "swirl", "mix", "tint", "hue")


def sheet(cells: list[Image.Image]) -> Image.Image:
    out = Image.new("RGB", (COLUMNS * CELL, -(-len(cells) // COLUMNS) * CELL))
    for i, cell in enumerate(cells):
        out.paste(cell.resize((CELL, CELL), Image.NEAREST), ((i % COLUMNS) * CELL, (i // COLUMNS) * CELL))
    return out


def misses(path: Path) -> list[Image.Image]:
    cells = []
    for i, line in enumerate(path.read_text().splitlines()):
        miss = json.loads(line)
        x0, y0, x1, y1 = miss["box"]
        w, h = x1 - x0, y1 - y0
        with Image.open(miss["picture"]) as picture:
            cell = picture.convert("RGB").crop((int(x0 - w / 3), int(y0 - h / 3), int(x1 + w / 3), int(y1 + h / 3)))
        cell = cell.resize((CELL, CELL))
        ImageDraw.Draw(cell).text((2, 2), f"{i}: {miss['truth']}>{miss['read']}", fill=(255, 255, 0))
        cells.append(cell)
    return cells


def augmented(real: Path, shares: dict[str, float], seed: int) -> list[Image.Image]:
    from train_reader import augment, load_real

    crops = load_real([real], "val")
    pick = np.random.default_rng(seed).choice(len(crops["crops"]), 4 * COLUMNS, replace=False)
    batch = {k: v[pick] for k, v in crops.items()}
    plain, _ = augment(dict(batch), np.random.default_rng(seed), small_share=0.0)
    recoloured, _ = augment(dict(batch), np.random.default_rng(seed), small_share=0.0, **shares)
    pixels = (np.concatenate([plain, recoloured]).transpose(0, 2, 3, 1) * 255).round().astype(np.uint8)
    return [Image.fromarray(p) for p in pixels]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    kinds = parser.add_subparsers(dest="kind", required=True)
    miss = kinds.add_parser("misses", help="the misses of `tablesight eval --misses`")
    miss.add_argument("misses", type=Path)
    aug = kinds.add_parser("augmented", help="real validation crops, augmented")
    aug.add_argument("--real", type=Path, default=Path("data/pack/real.npz"))
    aug.add_argument("--seed", type=int, default=1)
    for share in SHARES:
        aug.add_argument(f"--{share}-share", type=float, default=0.0)
    for sub in (miss, aug):
        sub.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    if args.kind == "misses":
        cells = misses(args.misses)
    else:
        shares = {f"{s}_share": getattr(args, f"{s}_share") for s in SHARES}
        cells = augmented(args.real, shares, args.seed)
    sheet(cells).save(args.out)
    print(f"wrote {args.out}: {len(cells)} crops")


if __name__ == "__main__":
    main()
