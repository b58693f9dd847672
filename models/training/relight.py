"""Copies a labelled folder with its pictures relit: a warm lamp, a cool one, or dim light
with sensor noise. The labels are copied as they are. Measures how much the reader depends on
the light of its training pictures: a club's table is lit by whatever lamp the room has, and
a cheap webcam in dim light turns up its gain.

Works on rendered scenes (`scene-*.jpg` with their `.json`) and on the real photos' YOLO
folders (`images/`, `labels/`).

Run: .venv-train/bin/python models/training/relight.py data/synth8/val data/synth8/val-warm --light warm
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import numpy as np
from PIL import Image

# Each light: the gain of each channel (red, green, blue), the gain of all, the noise's
# standard deviation in 8-bit steps, and the JPEG quality it is saved at.
LIGHTS = {
    # The light as it was, only saved again: the control for the others.
    "same": ((1.0, 1.0, 1.0), 1.0, 0.0, 92),
    # A tungsten bulb (about 2,700 K) on a camera balanced for daylight.
    "warm": ((1.0, 0.8, 0.5), 1.0, 0.0, 92),
    # Daylight from a window on a camera balanced for a warm lamp.
    "cool": ((0.82, 0.95, 1.12), 1.0, 0.0, 92),
    # Under half the light, the sensor's gain turned up: noise, and a webcam's harsher JPEG.
    "dim": ((1.0, 1.0, 1.0), 0.45, 6.0, 80),
}


def relight(source: Path, target: Path, light: str, rng: np.random.Generator) -> None:
    gains, exposure, noise, quality = LIGHTS[light]
    with Image.open(source) as image:
        pixels = np.asarray(image.convert("RGB"), dtype=np.float32)
    pixels = pixels * np.array(gains, dtype=np.float32) * exposure
    if noise > 0:
        pixels = pixels + rng.normal(0.0, noise, pixels.shape)
    Image.fromarray(np.clip(pixels, 0, 255).round().astype(np.uint8)).save(target, quality=quality)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("target", type=Path)
    parser.add_argument("--light", choices=sorted(LIGHTS), required=True)
    parser.add_argument("--seed", type=int, default=0, help="the noise's seed")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    count = 0
    if (args.source / "images").is_dir():
        (args.target / "images").mkdir(parents=True, exist_ok=True)
        shutil.copytree(args.source / "labels", args.target / "labels", dirs_exist_ok=True)
        for path in sorted((args.source / "images").iterdir()):
            relight(path, (args.target / "images" / path.name).with_suffix(".jpg"), args.light, rng)
            count += 1
    else:
        args.target.mkdir(parents=True, exist_ok=True)
        for path in sorted(args.source.glob("scene-*.jpg")):
            relight(path, args.target / path.name, args.light, rng)
            shutil.copy(path.with_suffix(".json"), args.target / path.with_suffix(".json").name)
            count += 1
    print(f"{count} pictures of {args.source} relit ({args.light}) in {args.target}")


if __name__ == "__main__":
    main()
