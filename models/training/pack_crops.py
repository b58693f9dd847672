"""Packs crops.npz files small enough to travel to a training machine: each crop is saved as
a JPEG of --px pixels (quality --quality, 4:4:4) instead of raw CROP_STORED_PX pixels, and a
share of a real dataset's training crops can be dropped (rune55-dice holds Roboflow's
augmented copies of each photo, near-identical crops).

`train_reader.py` reads a packed file as it reads the original (`load_crops` in common.py:
each crop decoded and resized back to CROP_STORED_PX); what packing costs is a re-encoding
at high quality and the detail above --px, which the reader, at READER_PX, never sees.

Run: .venv-train/bin/python models/training/pack_crops.py data/real/crops.npz data/pack/real.npz --keep rune55-dice=0.4
"""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import numpy as np
from PIL import Image


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--px", type=int, default=64)
    parser.add_argument("--quality", type=int, default=90)
    parser.add_argument(
        "--keep",
        nargs="*",
        default=[],
        metavar="SOURCE=SHARE",
        help="keep this share of a real dataset's training and validation crops (never test crops: they are for final figures)",
    )
    parser.add_argument("--splits", nargs="+", help="keep only the crops of these splits (real crops; training reads train and val)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    data = np.load(args.source)
    n = len(data["crops"])
    keep = np.ones(n, dtype=bool)
    rng = np.random.default_rng(args.seed)
    if args.splits:
        keep &= np.isin(data["splits"], args.splits)
    for rule in args.keep:
        source, share = rule.split("=")
        drop = (data["sources"] == source) & (data["splits"] != "test") & (rng.random(n) >= float(share))
        keep &= ~drop
    encoded, offsets = [], [0]
    for crop in data["crops"][keep]:
        buffer = io.BytesIO()
        Image.fromarray(crop).resize((args.px, args.px), Image.BILINEAR).save(buffer, "JPEG", quality=args.quality, subsampling=0)
        encoded.append(np.frombuffer(buffer.getvalue(), dtype=np.uint8))
        offsets.append(offsets[-1] + len(encoded[-1]))
    rest = {k: data[k][keep] if len(data[k]) == n else data[k] for k in data.files if k != "crops"}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(args.out, crops_jpeg=np.concatenate(encoded), crops_offsets=np.array(offsets, dtype=np.int64), **rest)
    print(f"{args.source}: {int(keep.sum())} of {n} crops -> {args.out} ({args.out.stat().st_size / 2**20:.1f} MiB)")


if __name__ == "__main__":
    main()
