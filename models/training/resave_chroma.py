"""Saves a folder of rendered scenes again as a camera's JPEG would store them: the same
quantisation tables (the same quality), chroma subsampled (4:2:0 by default). The labels
(`*.json`) are copied as they are. Measures how much the reader depends on full colour
resolution, which webcams' MJPEG (4:2:2, 4:2:0) and phones' photos (4:2:0) do not have.

Run: .venv-train/bin/python models/training/resave_chroma.py data/synth2/val data/synth2/val-420
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from PIL import Image

SUBSAMPLING = {"4:4:4": 0, "4:2:2": 1, "4:2:0": 2}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("target", type=Path)
    parser.add_argument("--subsampling", choices=sorted(SUBSAMPLING), default="4:2:0")
    args = parser.parse_args()
    args.target.mkdir(parents=True, exist_ok=True)
    count = 0
    for path in sorted(args.source.glob("*.jpg")):
        with Image.open(path) as image:
            tables = image.quantization
            image.convert("RGB").save(
                args.target / path.name, "JPEG", qtables=tables, subsampling=SUBSAMPLING[args.subsampling]
            )
        count += 1
    for path in sorted(args.source.glob("*.json")):
        shutil.copy(path, args.target / path.name)
    print(f"{count} pictures saved again in {args.subsampling} to {args.target}")


if __name__ == "__main__":
    main()
