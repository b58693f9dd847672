"""Quantizes a reader to 8-bit integers (onnxruntime's static quantization), to measure what
that buys in tract and in onnxruntime: writes OUT/reader.onnx with the finder copied beside
it, so that `tablesight eval SET --models OUT` and `time_onnxruntime.py --models OUT` read it.

Weights are quantized per channel (int8), activations per tensor (uint8), their ranges
calibrated on training crops only (real and rendered, drawn at random; never validation or
test crops). `--format qoperator` writes QLinearConv nodes (the convolutions and max-pools
quantized; tract implements neither QLinearGlobalAveragePool nor QGemm, so the pool and the
fully connected layers stay in floats); `--format qdq` writes QuantizeLinear and
DequantizeLinear pairs around float operators instead.

Run: .venv-train/bin/python models/training/quantize_reader.py --models models --out DIR
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import numpy as np
import onnx
import torch
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

from common import READER_CONTEXT, open_crops
from train_reader import to_input


class Crops(CalibrationDataReader):
    def __init__(self, inputs: list[np.ndarray]):
        self.inputs = iter(inputs)

    def get_next(self) -> dict | None:
        crop = next(self.inputs, None)
        return None if crop is None else {"crops": crop}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=Path("models"), help="the folder of finder.onnx and reader.onnx")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--real", type=Path, default=Path("data/real/crops.npz"))
    parser.add_argument("--synth", type=Path, default=Path("data/synth8/train/crops.npz"))
    parser.add_argument("--crops", type=int, default=300, help="calibration crops drawn from each of --real and --synth")
    parser.add_argument("--format", choices=("qoperator", "qdq"), default="qoperator")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    inputs = []
    for path in (args.real, args.synth):
        data = open_crops(path)
        train = np.flatnonzero(data["splits"] == "train") if "splits" in data else np.arange(len(data["crops"]))
        crops = data["crops"][rng.choice(train, args.crops, replace=False)]
        n = len(crops)
        x = to_input(crops, torch.full((n,), READER_CONTEXT), torch.zeros(n, 2), torch.zeros(n)).numpy()
        inputs += [crop[None] for crop in x]
    args.out.mkdir(parents=True, exist_ok=True)
    reader = args.out / "reader.onnx"
    quantize_static(
        str(args.models / "reader.onnx"),
        str(reader),
        Crops(inputs),
        quant_format=QuantFormat.QOperator if args.format == "qoperator" else QuantFormat.QDQ,
        op_types_to_quantize=["Conv", "MaxPool"],
        per_channel=True,
        activation_type=QuantType.QUInt8,
        weight_type=QuantType.QInt8,
    )
    # The calibration's shapes (a batch of one) would pin the batch that tract sets itself.
    model = onnx.load(reader)
    del model.graph.value_info[:]
    onnx.save(model, reader)
    shutil.copy(args.models / "finder.onnx", args.out / "finder.onnx")
    print(f"{reader}: {reader.stat().st_size / 1e6:.2f} MB, {len(inputs)} calibration crops")


if __name__ == "__main__":
    main()
