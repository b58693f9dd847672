"""How well the finder's boxes fit the labelled items of a rendered set, as a camera reads them.

Each scene (`tablesight synth scenes`) is shrunk to the finder's input as the camera path
shrinks a 1280x720 frame (512x288, bilinear) and run through onnxruntime; the peaks are
decoded as `vision/src/reader.rs` decodes them (heat at least 0.3, the highest of its 3x3
cells; the box from that cell's size and offset). Each labelled die and meeple at least 90 %
visible is matched to the nearest peak of its class whose centre is within half its side.
Prints, per class: items found; the found side over the labelled side (median, 10th and
90th percentiles; side = the square root of width times height) and the mean absolute log of
that ratio; the centre's distance from the labelled one in labelled sides; each split by
whether the peak is the cell that holds the labelled centre (the only cell whose size and
offset `train_finder.py` teaches) or another.

Run: .venv-train/bin/python models/training/finder_boxes.py data/synth4/val [--model models/finder.onnx]
(validation renders only: choose nothing on a test set).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import onnxruntime as ort
from PIL import Image

from common import FINDER_CLASSES, FINDER_STRIDE

INPUT = (512, 288)
THRESHOLD = 0.3
VISIBLE = 0.9


def peaks(grid: np.ndarray, scale: tuple[float, float]) -> list[tuple[int, np.ndarray, tuple[int, int]]]:
    """(class, box in frame pixels, peak cell) of every peak, as the Rust decoder finds them."""
    heat = 1 / (1 + np.exp(-grid[: len(FINDER_CLASSES)]))
    rows, cols = heat.shape[1:]
    found = []
    for k in range(len(FINDER_CLASSES)):
        padded = np.pad(heat[k], 1, constant_values=-1)
        around = np.max([padded[1 + dr : 1 + dr + rows, 1 + dc : 1 + dc + cols] for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)], axis=0)
        for r, c in zip(*np.nonzero((heat[k] >= THRESHOLD) & (heat[k] >= around))):
            cx = (c + grid[4, r, c]) * FINDER_STRIDE * scale[0]
            cy = (r + grid[5, r, c]) * FINDER_STRIDE * scale[1]
            w = np.exp(grid[2, r, c]) * 16 * scale[0]
            h = np.exp(grid[3, r, c]) * 16 * scale[1]
            found.append((k, np.array([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2]), (int(r), int(c))))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenes", type=Path)
    parser.add_argument("--model", type=Path, default=Path("models/finder.onnx"))
    args = parser.parse_args()
    session = ort.InferenceSession(str(args.model), providers=["CPUExecutionProvider"])
    rows = {k: [] for k in range(len(FINDER_CLASSES))}
    labelled = {k: 0 for k in rows}
    for label_path in sorted(args.scenes.glob("scene-*.json")):
        labels = json.loads(label_path.read_text())
        image = Image.open(label_path.with_suffix(".jpg")).convert("RGB")
        scale = (image.width / INPUT[0], image.height / INPUT[1])
        x = np.asarray(image.resize(INPUT, Image.BILINEAR), dtype=np.float32).transpose(2, 0, 1)[None] / 255
        found = peaks(session.run(None, {"frame": x})[0][0], scale)
        for k, key in ((0, "dice"), (1, "meeples")):
            for item in labels.get(key, []):
                if item["visible"] < VISIBLE:
                    continue
                labelled[k] += 1
                box = np.array(item["box_px"], dtype=float)
                centre = (box[:2] + box[2:]) / 2
                side = np.sqrt((box[2] - box[0]) * (box[3] - box[1]))
                near = [(np.linalg.norm((b[:2] + b[2:]) / 2 - centre), b, cell) for kk, b, cell in found if kk == k]
                near = [n for n in near if n[0] < side / 2]
                if not near:
                    continue
                distance, b, cell = min(near, key=lambda n: n[0])
                own = (int(centre[1] / (FINDER_STRIDE * scale[1])), int(centre[0] / (FINDER_STRIDE * scale[0])))
                ratio = np.sqrt((b[2] - b[0]) * (b[3] - b[1])) / side
                rows[k].append((ratio, distance / side, cell == own))
    for k, name in enumerate(FINDER_CLASSES):
        data = np.array(rows[k], dtype=float).reshape(-1, 3)
        print(f"{name}s: {len(data)} of {labelled[k]} found")
        for title, pick in (("all", np.ones(len(data), bool)), ("peak on the labelled centre's cell", data[:, 2] == 1), ("peak on another cell", data[:, 2] == 0)):
            part = data[pick]
            if len(part) == 0:
                continue
            ratio, off = part[:, 0], part[:, 1]
            p10, p50, p90 = np.percentile(ratio, [10, 50, 90])
            print(
                f"  {title}: {len(part)}; side ratio median {p50:.2f} (10th {p10:.2f}, 90th {p90:.2f}),"
                f" mean |log| {np.mean(np.abs(np.log(ratio))):.3f}; centre off {np.median(off):.3f} of a side (90th {np.percentile(off, 90):.3f})"
            )


if __name__ == "__main__":
    main()
