"""Checks pack_crops.py's JPEG sheets against one JPEG a crop (the packs before the
thirty-eighth session), on the real training and validation crops: the size one JPEG a crop
would take, and how far the sheets' decoded crops are from such a crop's.

Run, after the packs of pack_crops.py's docstring:
    .venv-train/bin/python models/training/check_sheets.py data/real/crops.npz data/pack/real.npz --px 56 --quality 80
"""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import numpy as np
from PIL import Image

from common import CROP_STORED_PX, open_crops


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="prepare_real.py's crops.npz")
    parser.add_argument("pack", type=Path, help="its pack by pack_crops.py --splits train val")
    parser.add_argument("--px", type=int, default=56)
    parser.add_argument("--quality", type=int, default=80)
    parser.add_argument("--count", type=int, default=1000, help="crops sized, and compared (a third of them)")
    args = parser.parse_args()

    data = np.load(args.source)
    crops = data["crops"][np.isin(data["splits"], ["train", "val"])]

    def alone(crop: np.ndarray) -> bytes:
        buffer = io.BytesIO()
        Image.fromarray(crop).resize((args.px, args.px), Image.BILINEAR).save(buffer, "JPEG", quality=args.quality, subsampling=0)
        return buffer.getvalue()

    size = np.mean([len(alone(c)) for c in crops[: args.count]])
    print(f"one JPEG a crop: {size:.0f} bytes a crop, {size * len(crops) / 2**20:.1f} MiB for {len(crops)} crops")
    compared = args.count // 3
    sheets = open_crops(args.pack)["crops"][:compared].astype(int)
    single = np.stack(
        [
            np.asarray(Image.open(io.BytesIO(alone(c))).convert("RGB").resize((CROP_STORED_PX,) * 2, Image.BILINEAR))
            for c in crops[:compared]
        ]
    ).astype(int)
    print(f"sheets against one JPEG a crop, {compared} crops: mean absolute difference {np.abs(single - sheets).mean():.3f}")


if __name__ == "__main__":
    main()
