"""A reader's value accuracy on labelled crops, per source, and a sheet of the crops it reads wrong.

Runs an exported reader (ONNX, through onnxruntime) on the crops of prepare_real.py (one
split) and, optionally, of prepare_synth.py, at the reader's own context, as the Rust reader
cuts them from a box. Prints the value accuracy per source, the confusion, and writes a
sheet of the worst crops (truth / reading / probability) to look at.

`--turns 4` also reads each crop turned by 90, 180 and 270 degrees and averages the four
probabilities (a die's value does not depend on how it lies): the figure says whether the
reader should do the same. Several `--model`s are read as one, their probabilities
averaged (an ensemble).

Run: .venv-train/bin/python models/training/diagnose_reader.py --split val --sheet /tmp/worst.png
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import onnxruntime as ort
import torch
from PIL import Image, ImageDraw

from common import DIE_COLORS, HEADS, READER_CONTEXT, open_crops
from train_reader import head, load_real, load_synth, to_input

# A value read with a lower probability is reported unsure (`vision::ReaderSettings::sure_value`).
SURE_VALUE = 0.8


def read(session: ort.InferenceSession, crops: np.ndarray, turns: int) -> np.ndarray:
    """Mean softmax of every head over `turns` views (two a half turn apart, four a quarter
    turn apart, as the Rust reader turns them), one row per crop."""
    rows = []
    for start in range(0, len(crops), 512):
        part = crops[start : start + 512]
        m = len(part)
        x = to_input(part, torch.full((m,), READER_CONTEXT), torch.zeros(m, 2), torch.zeros(m))
        total = None
        for k in range(turns):
            turned = torch.rot90(x, k * (4 // turns), dims=(2, 3)).contiguous().numpy()
            logits = torch.from_numpy(session.run(None, {session.get_inputs()[0].name: turned})[0])
            probs = torch.cat([head(logits, name).softmax(1) for name, _ in HEADS], 1)
            total = probs if total is None else total + probs
        rows.append(total / turns)
    return torch.cat(rows).numpy()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, nargs="+", default=[Path("models/reader.onnx")])
    parser.add_argument("--real", type=Path, default=Path("data/real/crops.npz"))
    parser.add_argument("--synth", type=Path, help="crops.npz of rendered scenes (val)")
    parser.add_argument(
        "--split",
        default="val",
        choices=("train", "val", "test"),
        help="test only for a final figure (such as the realism gap), never to choose anything",
    )
    parser.add_argument("--turns", type=int, default=1, choices=(1, 2, 4))
    parser.add_argument("--sheet", type=Path, help="PNG of the worst value readings")
    parser.add_argument("--only", help="read only this source (a real dataset's name, or 'rendered')")
    args = parser.parse_args()
    sessions = [ort.InferenceSession(str(m), providers=["CPUExecutionProvider"]) for m in args.model]

    sets = []
    real = load_real([args.real], args.split)
    stored = open_crops(args.real)
    sources = stored["sources"][stored["splits"] == args.split]
    for source in sorted(set(sources)):
        keep = (sources == source) & (real["value"] >= 0)
        sets.append((source, real["crops"][keep], real["value"][keep]))
    if args.synth:
        # The game's dice and the dice of other games apart: the renders' looks differ most there.
        synth = load_synth(args.synth)
        other = synth["color"] == DIE_COLORS.index("other")
        for name, part in (("rendered, game's dice", ~other), ("rendered, other dice", other)):
            keep = part & (synth["value"] >= 0)
            sets.append((name, synth["crops"][keep], synth["value"][keep]))

    if args.only:
        sets = [s for s in sets if s[0].startswith(args.only)]
    worst = []
    for name, crops, truth in sets:
        if len(truth) == 0:
            print(f"{name:22} no dice")
            continue
        probs = sum(read(session, crops, args.turns) for session in sessions) / len(sessions)
        value = head(torch.from_numpy(probs), "value").numpy()
        guess = value.argmax(1)
        right = guess == truth
        confusion = np.zeros((6, 6), dtype=int)
        np.add.at(confusion, (truth, guess), 1)
        unsure = value[np.arange(len(guess)), guess] < SURE_VALUE
        print(
            f"{name:22} {len(truth):6} dice  value right {right.mean() * 100:5.1f} %"
            f"  ({(~right & unsure).sum()} of the {(~right).sum()} misread unsure)"
        )
        for v in range(6):
            print(f"    {v + 1}: " + " ".join(f"{c:5d}" for c in confusion[v]))
        for i in np.nonzero(~right)[0]:
            worst.append((float(value[i, truth[i]]), crops[i], int(truth[i]) + 1, int(guess[i]) + 1, float(value[i, guess[i]])))
    if args.sheet:
        worst.sort(key=lambda w: w[0])
        tiles = worst[:240]
        columns, size = 20, 80
        sheet = Image.new("RGB", (columns * size, ((len(tiles) + columns - 1) // columns) * (size + 12)), "white")
        draw = ImageDraw.Draw(sheet)
        for k, (_, crop, truth, guess, p) in enumerate(tiles):
            x, y = (k % columns) * size, (k // columns) * (size + 12)
            sheet.paste(Image.fromarray(crop), (x, y))
            draw.text((x + 2, y + size), f"{truth}->{guess} {p:.2f}", fill="black")
        sheet.save(args.sheet)
        print(f"wrote {args.sheet} ({len(tiles)} of {len(worst)} wrong)")


if __name__ == "__main__":
    main()
