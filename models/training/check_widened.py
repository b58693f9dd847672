"""Checks `widened` (training/common.py): an exported reader, widened without noise, must give
the logits the exported file gives in onnxruntime.

Run: .venv-train/bin/python models/training/check_widened.py --model models/reader.onnx --width 24
Prints the largest difference of the narrow and the widened model's logits from onnxruntime's.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import onnxruntime as ort
import torch

from common import Reader, init_from_onnx, onnx_reader_design, widened
from train_reader import augment, load_real


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=Path("models/reader.onnx"))
    parser.add_argument("--real", type=Path, default=Path("data/real/crops.npz"))
    parser.add_argument("--width", type=int, default=24)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    real = load_real([args.real], "val")
    pick = rng.choice(len(real["crops"]), 256, replace=False)
    x, _ = augment({k: v[pick] for k, v in real.items()}, rng)
    narrow = Reader(*onnx_reader_design(args.model))
    init_from_onnx(narrow, args.model, x)
    wide = widened(narrow, args.width, rng, noise=0.0)
    session = ort.InferenceSession(str(args.model), providers=["CPUExecutionProvider"])
    expected = session.run(None, {session.get_inputs()[0].name: x.numpy()})[0]
    with torch.no_grad():
        for name, model in (("narrow", narrow), (f"widened to {args.width}", wide)):
            difference = np.abs(model.eval()(x).numpy() - expected).max()
            print(f"{name}: largest logit difference from onnxruntime {difference:.2e}")
            if difference > 1e-3:
                raise SystemExit(f"{name} does not compute what {args.model} computes")


if __name__ == "__main__":
    main()
