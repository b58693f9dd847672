"""Packs the finder's training pictures into one file small enough to travel to a training
machine that has neither the datasets nor the renders: each picture as `train_finder.py`
caches it (at most CACHE_LONG_PX long, its boxes in those pixels), saved as a JPEG, and a
share of them kept (rune55-dice holds Roboflow's augmented copies of each photo; the
rendered scenes are many). `train_finder.py --packed FILE...` trains on them.

Run (the packs of models/training/device_finder_runs.sh; each call of the device tool
carries at most 64 MiB with the repository, which is 31 MiB):
    S="--synth data/synth4/train data/synth4/train-b --quality 80"
    .venv-train/bin/python models/training/pack_pictures.py data/pack3/finder.npz $S --keep rune55-dice=0.2 --synth-share 0.15
    .venv-train/bin/python models/training/pack_pictures.py data/pack4/finder.npz $S --keep rune55-dice=0.15 --synth-share 0.3 --seed 1
(1,485 real and 249 rendered pictures, 28.2 MiB; 1,204 and 430, 28.0 MiB.)
"""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import numpy as np
from PIL import Image

from train_finder import load, real_pictures, synth_pictures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--real", type=Path, default=Path("data/real/detection.json"))
    parser.add_argument("--keep", nargs="*", default=[], metavar="SOURCE=SHARE", help="keep this share of a real dataset's training photos")
    parser.add_argument("--synth", type=Path, nargs="*", default=[])
    parser.add_argument("--synth-share", type=float, default=1.0, help="keep this share of the rendered scenes")
    parser.add_argument("--quality", type=int, default=85)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    shares = {source: float(share) for source, share in (rule.split("=") for rule in args.keep)}

    chosen = []
    for picture in real_pictures(args.real, "train"):
        if rng.random() < shares.get(picture["source"], 1.0):
            chosen.append((picture, True))
    for folder in args.synth:
        chosen += [(p, False) for p in synth_pictures(folder) if rng.random() < args.synth_share]

    encoded, offsets, real = [], [0], []
    items, item_picture, ignored, ignored_picture = [], [], [], []
    for i, (picture, is_real) in enumerate(chosen):
        cached = load(picture)
        buffer = io.BytesIO()
        Image.fromarray(cached["pixels"]).save(buffer, "JPEG", quality=args.quality)
        encoded.append(np.frombuffer(buffer.getvalue(), dtype=np.uint8))
        offsets.append(offsets[-1] + len(encoded[-1]))
        real.append(is_real)
        items.append(cached["items"])
        item_picture += [i] * len(cached["items"])
        ignored.append(cached["ignored"])
        ignored_picture += [i] * len(cached["ignored"])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(
        args.out,
        jpeg=np.concatenate(encoded),
        offsets=np.array(offsets, dtype=np.int64),
        real=np.array(real),
        items=np.concatenate(items).astype(np.float32),
        item_picture=np.array(item_picture, dtype=np.int32),
        ignored=np.concatenate(ignored).astype(np.float32),
        ignored_picture=np.array(ignored_picture, dtype=np.int32),
    )
    print(f"{sum(real)} real and {len(real) - sum(real)} rendered pictures -> {args.out} ({args.out.stat().st_size / 2**20:.1f} MiB)")


if __name__ == "__main__":
    main()
