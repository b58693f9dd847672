"""Packs crops.npz files small enough to travel to a training machine: the crops are saved as
JPEG sheets of SHEET_SIDE x SHEET_SIDE tiles of --px pixels each (quality --quality, 4:4:4)
instead of raw CROP_STORED_PX pixels, and a
share of the crops can be dropped: of one real dataset (rune55-dice holds Roboflow's
augmented copies of each photo, near-identical crops) or of a split; and a file can be
split into parts (--part), each carried by a call of its own.

`train_reader.py` reads a packed file as it reads the original (`open_crops` in common.py:
each sheet decoded, cut into its crops and each resized back to CROP_STORED_PX). With --px a
multiple of 8, every 8x8 block of a sheet lies inside one crop, so a crop decodes as it would
from a JPEG of its own, without the few hundred bytes of headers each such file carries (the
packs of the thirty-third session were one file a crop; check_sheets.py: half the size).
What packing costs is a re-encoding and the detail above --px: the reader sees a crop at
READER_PX, from a box 1/1.5 of it, so a 64 px crop of 2 box sides holds its box at 32 px,
more than the reader's 27.

Run (the packs of models/training/device_runs.sh; each call of the device tool carries at
most 64 MiB with the repository):
    P="--px 64 --quality 80"
    .venv-train/bin/python models/training/pack_crops.py data/real/crops.npz data/pack/real.npz $P --splits train val --keep rune55-dice=0.3
    .venv-train/bin/python models/training/pack_crops.py data/synth4/val/crops.npz data/pack/synth4-val.npz $P
    .venv-train/bin/python models/training/pack_crops.py data/synth4/train/crops.npz data/pack2/synth4-train.npz $P
    .venv-train/bin/python models/training/pack_crops.py data/synth4/train-b/crops.npz data/pack/synth4-train-b-0.npz $P --part 0/2
    .venv-train/bin/python models/training/pack_crops.py data/synth4/train-b/crops.npz data/pack2/synth4-train-b-1.npz $P --part 1/2
The packs of `device_runs.sh wide` (a thirty-third session; the repository had grown to 40
MiB, so the crops are 56 px and travel in three calls):
    P="--px 56 --quality 80"
    .venv-train/bin/python models/training/pack_crops.py data/real/crops.npz data/pack/real.npz $P --splits train val --keep rune55-dice=0.3
    .venv-train/bin/python models/training/pack_crops.py data/synth8/val/crops.npz data/pack/synth8-val.npz $P
    .venv-train/bin/python models/training/pack_crops.py data/synth8/train-b/crops.npz data/pack/synth8-train-b.npz $P
    .venv-train/bin/python models/training/pack_crops.py data/synth8/train/crops.npz data/pack2/synth8-train.npz $P
    .venv-train/bin/python models/training/pack_crops.py data/synth9/train/crops.npz data/pack2/synth9-train-0.npz $P --part 0/2
    .venv-train/bin/python models/training/pack_crops.py data/synth9/train/crops.npz data/pack3/synth9-train-1.npz $P --part 1/2
(Those were one JPEG a crop; packed as sheets now, the same commands make smaller files.) The
packs of `device_runs.sh sheets` (a thirty-eighth session: every crop, in two calls):
    P="--px 56 --quality 80"
    .venv-train/bin/python models/training/pack_crops.py data/real/crops.npz data/pack/real.npz $P --splits train val
    for n in val train train-b; do .venv-train/bin/python models/training/pack_crops.py data/synth8/$n/crops.npz data/pack2/synth8-$n.npz $P; done
    .venv-train/bin/python models/training/pack_crops.py data/synth9/train/crops.npz data/pack2/synth9-train.npz $P
"""

from __future__ import annotations

import argparse
import io
import math
from pathlib import Path

import numpy as np
from PIL import Image

# Tiles on a side of one JPEG sheet: 64 x 64 tiles of 56 px make a 3,584 px square.
SHEET_SIDE = 64


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
    parser.add_argument("--part", metavar="I/N", help="keep every Nth crop from the Ith (0..N-1): a file in N packs")
    parser.add_argument("--splits", nargs="+", help="keep only the crops of these splits (real crops; training reads train and val)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    data = np.load(args.source)
    n = len(data["crops"])
    keep = np.ones(n, dtype=bool)
    rng = np.random.default_rng(args.seed)
    if args.part:
        i, parts = map(int, args.part.split("/"))
        keep &= np.arange(n) % parts == i
    if args.splits:
        keep &= np.isin(data["splits"], args.splits)
    for rule in args.keep:
        source, share = rule.split("=")
        drop = (data["sources"] == source) & (data["splits"] != "test") & (rng.random(n) >= float(share))
        keep &= ~drop
    if args.px % 8:
        raise SystemExit("--px: a multiple of 8, so that no JPEG block spans two crops")
    crops = data["crops"][keep]
    encoded, offsets = [], [0]
    per_sheet = SHEET_SIDE * SHEET_SIDE
    for first in range(0, len(crops), per_sheet):
        tiles = [Image.fromarray(c).resize((args.px, args.px), Image.BILINEAR) for c in crops[first : first + per_sheet]]
        rows = math.ceil(len(tiles) / SHEET_SIDE)
        sheet = Image.new("RGB", (SHEET_SIDE * args.px, rows * args.px))
        for i, tile in enumerate(tiles):
            sheet.paste(tile, ((i % SHEET_SIDE) * args.px, (i // SHEET_SIDE) * args.px))
        buffer = io.BytesIO()
        sheet.save(buffer, "JPEG", quality=args.quality, subsampling=0)
        encoded.append(np.frombuffer(buffer.getvalue(), dtype=np.uint8))
        offsets.append(offsets[-1] + len(encoded[-1]))
    rest = {k: data[k][keep] if len(data[k]) == n else data[k] for k in data.files if k != "crops"}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(
        args.out,
        crop_sheets=np.concatenate(encoded),
        sheet_offsets=np.array(offsets, dtype=np.int64),
        sheet_tile=np.array([args.px, SHEET_SIDE, len(crops)], dtype=np.int64),
        **rest,
    )
    print(f"{args.source}: {int(keep.sum())} of {n} crops -> {args.out} ({args.out.stat().st_size / 2**20:.1f} MiB)")


if __name__ == "__main__":
    main()
