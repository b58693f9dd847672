"""Times the ONNX models of `models/` (or `--models DIR`) in onnxruntime on one thread, for
comparison with tract (`cargo bench -p tablesight-vision --bench reader`): the finder at
512x288 (a 1280x720 frame) and 512x384 (a 4032x3024 photo), the reader on a batch of 16 crops.

Run: .venv-train/bin/python models/training/time_onnxruntime.py [--models DIR]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort

from common import READER_PX


def median_ms(session: ort.InferenceSession, feed: dict, runs: int = 50) -> float:
    for _ in range(5):
        session.run(None, feed)
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        session.run(None, feed)
        times.append((time.perf_counter() - started) * 1000)
    return float(np.median(times))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=Path("models"), help="the folder of finder.onnx and reader.onnx")
    args = parser.parse_args()
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    rng = np.random.default_rng(0)
    finder = ort.InferenceSession(str(args.models / "finder.onnx"), options, providers=["CPUExecutionProvider"])
    for height, width in ((288, 512), (384, 512)):
        frame = rng.random((1, 3, height, width), dtype=np.float32)
        print(f"onnxruntime finder {width}x{height}: {median_ms(finder, {'frame': frame}):.2f} ms (median, 1 thread)")
    reader = ort.InferenceSession(str(args.models / "reader.onnx"), options, providers=["CPUExecutionProvider"])
    crops = rng.random((16, 3, READER_PX, READER_PX), dtype=np.float32)
    print(f"onnxruntime reader 16 crops: {median_ms(reader, {'crops': crops}):.2f} ms (median, 1 thread)")


if __name__ == "__main__":
    main()
