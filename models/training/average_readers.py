"""Readers trained on from one start, their weights averaged (a "model soup", Wortsman et
al. 2022) and exported: runs that share their starting weights lie in one basin, and the
average of two recipes often reads as the better of them where they agree and in between
where they differ.

Run: .venv-train/bin/python models/training/average_readers.py data/runs/r27/reader.pt data/runs/r28/reader.pt --out data/runs/r29/reader.onnx
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import torch

from common import Reader
from train_reader import export


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("weights", type=Path, nargs="+", help="the runs' reader.pt, all of one width")
    parser.add_argument("--width", type=int, default=16)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    states = [torch.load(path, map_location="cpu") for path in args.weights]
    averaged = {
        name: (sum(s[name].double() for s in states) / len(states)).to(tensor.dtype)
        if tensor.is_floating_point()
        else tensor
        for name, tensor in states[0].items()
    }
    model = Reader(args.width)
    model.load_state_dict(averaged)
    model.eval()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(averaged, args.out.with_suffix(".pt"))
    export(model, args.out)
    # What was averaged, with each run's own record (its arguments and validation figures).
    records = []
    for path in args.weights:
        record = path.with_name("reader-train.json")
        records.append({"weights": str(path), "run": json.loads(record.read_text()) if record.exists() else None})
    args.out.with_name("reader-train.json").write_text(json.dumps({"averaged": records}, indent=1))
    print(f"{len(states)} readers averaged -> {args.out}")


if __name__ == "__main__":
    main()
