"""Trains the finder: where the dice and meeples are in a frame shrunk to FINDER_LONG_PX.

CenterNet-style: per cell of a stride-4 grid a heat per class (focal loss on Gaussian
peaks), the box's log size and the centre's offset in the cell (L1 at the peaks). Data: the
real photos of prepare_real.py's train split (dice only; no meeples in them) and rendered
scenes (`tablesight synth scenes`, dice of the game and of other games and meeples at least
40 % visible; items less visible are neither taught as present nor as absent).

Training crops are FINDER_CROP_PX squares of the picture rescaled around the inference scale
(--scales, 0.55x to 1.6x), so that dice from 6 to 200 px in the finder's input are seen. With
--close-share, that share of the crops is a close look instead: one item of the picture
(at least CLOSE_SOURCE_PX long in the cached picture) enlarged to a side drawn from
--close-sides, as a phone held over a die shows it, so that its pips are not taken for dice.

Run: .venv-train/bin/python models/training/train_finder.py --steps 4000 --seed 1
Writes models/finder.onnx (input 1 x 3 x H x W, RGB in 0..1, H and W multiples of 32) and
models/finder-train.json. `pack_pictures.py` packs the cached pictures into one file that a
training machine without the datasets reads (--packed).
"""

from __future__ import annotations

import argparse
import io
import json
import math
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image, ImageOps

from common import (
    FINDER_CLASSES,
    FINDER_LONG_PX,
    FINDER_STRIDE,
    Finder,
    fold_batch_norms,
    forward,
    init_from_onnx,
    jpeg_roundtrip,
    set_one_cycle,
)

FINDER_CROP_PX = 256
CACHE_LONG_PX = 640
# A close look enlarges an item of at least this many cached pixels, at most this many times:
# a smaller one enlarged further is a blur that no camera gives.
CLOSE_SOURCE_PX = 16
CLOSE_MAX_ENLARGEMENT = 5.0
# A close look's item side, finder pixels; the other crops' scale, times the inference scale.
CLOSE_SIDES = (64.0, 224.0)
SCALES = (0.55, 1.6)
PRESENT_VISIBLE = 0.4
IGNORED_VISIBLE = 0.1


def real_pictures(detection: Path, split: str) -> list[dict]:
    photos = [p for p in json.loads(detection.read_text()) if p["split"] == split]
    return [
        {"path": p["path"], "source": p["source"], "items": [(0, *b[1:]) for b in p["boxes"]], "ignored": []}
        for p in photos
        if p["boxes"]
    ]


def synth_pictures(folder: Path) -> list[dict]:
    pictures = []
    for label_path in sorted(folder.glob("scene-*.json")):
        labels = json.loads(label_path.read_text())
        items, ignored = [], []
        # The dice of other games are dice too: left out, they would teach the finder that a
        # die unlike the game's is background.
        for kind, key in ((0, "dice"), (0, "other_dice"), (1, "meeples")):
            for item in labels.get(key, []):
                if item["visible"] >= PRESENT_VISIBLE:
                    items.append((kind, *item["box_px"]))
                elif item["visible"] >= IGNORED_VISIBLE:
                    ignored.append(item["box_px"])
        pictures.append({"path": str(label_path.with_suffix(".jpg")), "items": items, "ignored": ignored})
    return pictures


def load(picture: dict) -> dict:
    """The picture at most CACHE_LONG_PX long, with its boxes in those pixels."""
    image = ImageOps.exif_transpose(Image.open(picture["path"])).convert("RGB")
    scale = min(1.0, CACHE_LONG_PX / max(image.size))
    if scale < 1.0:
        image = image.resize((round(image.width * scale), round(image.height * scale)), Image.BILINEAR)
    return {
        "pixels": np.asarray(image),
        "scale_to_input": FINDER_LONG_PX / max(image.size),
        "items": np.array([[k, *(np.array(b) * scale)] for k, *b in picture["items"]], dtype=np.float32).reshape(-1, 5),
        "ignored": np.array(picture["ignored"], dtype=np.float32).reshape(-1, 4) * scale,
    }


def close_look(picture: dict, rng: np.random.Generator, crop: int, sides: tuple[float, float]):
    """The scale and crop corner of a close look at one item of the picture, or None when
    it has none large enough: the item enlarged to a side drawn log-uniformly from `sides`
    (finder pixels; at most CLOSE_MAX_ENLARGEMENT times its cached side) and placed at random
    in the crop, whole when it fits."""
    items = picture["items"]
    if len(items) == 0:
        return None
    longest = np.maximum(items[:, 3] - items[:, 1], items[:, 4] - items[:, 2])
    large = np.flatnonzero(longest >= CLOSE_SOURCE_PX)
    if len(large) == 0:
        return None
    i = large[rng.integers(len(large))]
    side = math.exp(rng.uniform(math.log(sides[0]), math.log(sides[1])))
    scale = min(side / longest[i], CLOSE_MAX_ENLARGEMENT)
    _, x0, y0, x1, y1 = items[i] * np.array([1, scale, scale, scale, scale])
    slack_x, slack_y = crop - (x1 - x0), crop - (y1 - y0)
    left = x0 - (rng.uniform(0, slack_x) if slack_x > 0 else rng.uniform(slack_x, 0))
    top = y0 - (rng.uniform(0, slack_y) if slack_y > 0 else rng.uniform(slack_y, 0))
    return scale, int(round(left)), int(round(top))


def sample(
    picture: dict,
    rng: np.random.Generator,
    crop: int,
    jpeg: float = 0.0,
    close: float = 0.0,
    close_sides=CLOSE_SIDES,
    scales=SCALES,
):
    """A random crop at a random scale with its targets on the stride-4 grid, or with
    probability `close` a close look at one item (`close_look`); with probability `jpeg` the
    crop is JPEG-compressed (quality 30-95) as a webcam's MJPEG or a shared photo is."""
    pixels = picture["pixels"]
    height, width = pixels.shape[:2]
    look = close_look(picture, rng, crop, close_sides) if close > 0 and rng.random() < close else None
    if look:
        scale, left, top = look
    else:
        scale = picture["scale_to_input"] * math.exp(rng.uniform(math.log(scales[0]), math.log(scales[1])))
    new_w, new_h = max(1, round(width * scale)), max(1, round(height * scale))
    canvas = np.full((crop, crop, 3), rng.integers(0, 256), dtype=np.uint8)
    if look:
        # Only the part in the crop is enlarged: the whole picture five times over would be
        # most of the step's time.
        x0, y0 = max(left, 0), max(top, 0)
        x1, y1 = min(left + crop, new_w), min(top + crop, new_h)
        box = (x0 / scale, y0 / scale, min(x1 / scale, width), min(y1 / scale, height))
        region = np.asarray(Image.fromarray(pixels).resize((max(x1 - x0, 1), max(y1 - y0, 1)), Image.BILINEAR, box=box))
        region = region[: max(y1 - y0, 0), : max(x1 - x0, 0)]
    else:
        image = Image.fromarray(pixels).resize((new_w, new_h), Image.BILINEAR)
        left = rng.integers(min(0, new_w - crop), max(0, new_w - crop) + 1)
        top = rng.integers(min(0, new_h - crop), max(0, new_h - crop) + 1)
        region = np.asarray(image)[max(top, 0) : top + crop, max(left, 0) : left + crop]
    canvas[max(-top, 0) : max(-top, 0) + region.shape[0], max(-left, 0) : max(-left, 0) + region.shape[1]] = region
    if jpeg > 0 and rng.random() < jpeg:
        canvas = jpeg_roundtrip(canvas, int(rng.integers(30, 96)))

    grid = crop // FINDER_STRIDE
    heat = np.zeros((len(FINDER_CLASSES), grid, grid), dtype=np.float32)
    weight = np.ones((grid, grid), dtype=np.float32)
    size = np.zeros((2, grid, grid), dtype=np.float32)
    offset = np.zeros((2, grid, grid), dtype=np.float32)
    centres = np.zeros((grid, grid), dtype=np.float32)
    ys, xs = np.mgrid[0:grid, 0:grid].astype(np.float32)
    for x0, y0, x1, y1 in picture["ignored"] * scale - np.array([left, top, left, top]):
        c0, r0 = int(max(x0 / FINDER_STRIDE, 0)), int(max(y0 / FINDER_STRIDE, 0))
        c1, r1 = int(min(math.ceil(x1 / FINDER_STRIDE), grid)), int(min(math.ceil(y1 / FINDER_STRIDE), grid))
        weight[r0:r1, c0:c1] = 0.0
    for kind, x0, y0, x1, y1 in picture["items"]:
        x0, x1 = x0 * scale - left, x1 * scale - left
        y0, y1 = y0 * scale - top, y1 * scale - top
        cx, cy = (x0 + x1) / 2 / FINDER_STRIDE, (y0 + y1) / 2 / FINDER_STRIDE
        if not (0 <= cx < grid and 0 <= cy < grid):
            continue
        w, h = x1 - x0, y1 - y0
        sigma = max(0.5, min(w, h) / FINDER_STRIDE / 6)
        peak = np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * sigma**2))
        heat[int(kind)] = np.maximum(heat[int(kind)], peak)
        col, row = int(cx), int(cy)
        heat[int(kind), row, col] = 1.0
        size[:, row, col] = (math.log(max(w, 1) / 16), math.log(max(h, 1) / 16))
        offset[:, row, col] = (cx - col, cy - row)
        centres[row, col] = 1.0
    return canvas, heat, weight, size, offset, centres


def batch_of(pictures: list[dict], rng: np.random.Generator, count: int, crop: int, jpeg: float = 0.0, close: float = 0.0, close_sides=CLOSE_SIDES, scales=SCALES):
    parts = [sample(pictures[rng.integers(len(pictures))], rng, crop, jpeg, close, close_sides, scales) for _ in range(count)]
    images, heat, weight, size, offset, centres = (np.stack(p) for p in zip(*parts))
    x = torch.from_numpy(images).permute(0, 3, 1, 2).float() / 255.0
    # Light and colour jitter, noise: the same photo under other lamps and sensors.
    x = x * torch.from_numpy(rng.uniform(0.6, 1.35, (count, 1, 1, 1))).float()
    x = x * torch.from_numpy(rng.uniform(0.85, 1.15, (count, 3, 1, 1))).float()
    x = x + torch.randn_like(x) * torch.from_numpy(rng.uniform(0, 0.03, (count, 1, 1, 1))).float()
    targets = [torch.from_numpy(a) for a in (heat, weight, size, offset, centres)]
    return x.clamp(0, 1), targets


def loss_of(output: torch.Tensor, targets) -> torch.Tensor:
    heat, weight, size, offset, centres = targets
    classes = len(FINDER_CLASSES)
    p = torch.sigmoid(output[:, :classes]).clamp(1e-4, 1 - 1e-4)
    positive = heat.eq(1.0).float()
    negative = (1 - positive) * weight[:, None]
    focal = -(positive * (1 - p) ** 2 * torch.log(p) + negative * (1 - heat) ** 4 * p**2 * torch.log(1 - p)).sum()
    count = positive.sum().clamp(min=1.0)
    mask = centres[:, None]
    box = (F.l1_loss(output[:, classes : classes + 2] * mask, size * mask, reduction="sum")
           + F.l1_loss(output[:, classes + 2 : classes + 4] * mask, offset * mask, reduction="sum"))
    return focal / count + 0.5 * box / count


def distill_loss_of(output: torch.Tensor, teacher: torch.Tensor) -> torch.Tensor:
    """How far the model's grid is from a teacher finder's on the same crops: the teacher's
    heat as soft targets (binary cross-entropy per class and cell, over the teacher's total
    heat), its box sizes and offsets (L1, weighted by the teacher's heat there)."""
    classes = len(FINDER_CLASSES)
    soft = torch.sigmoid(teacher[:, :classes])
    heat = F.binary_cross_entropy_with_logits(output[:, :classes], soft, reduction="sum")
    where = soft.amax(1, keepdim=True)
    box = ((output[:, classes:] - teacher[:, classes:]).abs() * where).sum()
    return heat / soft.sum().clamp(min=1.0) + 0.5 * box / where.sum().clamp(min=1.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real", type=Path, default=Path("data/real/detection.json"))
    parser.add_argument("--synth", type=Path, nargs="+", default=[Path("data/synth/train")])
    parser.add_argument("--steps", type=int, default=4000)
    parser.add_argument("--batch", type=int, default=24)
    parser.add_argument("--lr", type=float, default=4e-3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--init", type=Path, help="start from an exported finder (.onnx) or an earlier run's .pt")
    parser.add_argument("--jpeg", type=float, default=0.0, help="share of training crops JPEG-compressed (quality 30-95)")
    parser.add_argument(
        "--bf16",
        action="store_true",
        help="bfloat16 autocast and channels-last tensors (faster on a CPU with AVX-512 BF16; weights stay float32)",
    )
    parser.add_argument(
        "--mix-stride",
        type=int,
        choices=(4, 8),
        default=4,
        help="where the top-down path's 3x3 mixing convolution runs (8: run 9, cheaper, found fewer dice); "
        "give the --init model's own",
    )
    parser.add_argument(
        "--teacher",
        type=Path,
        help="an exported finder (.onnx, its top-down mix at stride 4) whose grid the model learns too, "
        "crop by crop (distillation: a cheaper --mix-stride 8 finder taught by the shipped one)",
    )
    parser.add_argument("--distill", type=float, default=1.0, help="the weight of the teacher's loss beside the labels' (with --teacher)")
    parser.add_argument("--close-share", type=float, default=0.0, help="share of training crops that are a close look at one item")
    parser.add_argument("--close-sides", type=float, nargs=2, default=CLOSE_SIDES, metavar=("MIN", "MAX"), help="a close look's item side, finder pixels")
    parser.add_argument("--scales", type=float, nargs=2, default=SCALES, metavar=("MIN", "MAX"), help="a crop's scale, times the inference scale")
    parser.add_argument("--packed", type=Path, nargs="+", help="train on pictures packed by pack_pictures.py instead of --real and --synth")
    parser.add_argument("--device", default="cpu", help="where the model trains (cpu, cuda); the crops are cut on the CPU")
    parser.add_argument("--workers", type=int, default=0, help="processes that cut batches while the model trains")
    parser.add_argument("--minutes", type=float, help="end the run after this many minutes (the schedule follows the clock) if --steps are not done by then")
    parser.add_argument("--out", type=Path, default=Path("models/finder.onnx"))
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)

    started = time.time()
    if args.packed:
        pictures = [p for path in args.packed for p in unpack(path)]
        real = [p for p in pictures if p["real"]]
        synth = [p for p in pictures if not p["real"]]
    else:
        real = [load(p) for p in real_pictures(args.real, "train")]
        synth = [load(p) for folder in args.synth for p in synth_pictures(folder)]
    print(f"{len(real)} real and {len(synth)} rendered pictures loaded in {time.time() - started:.0f} s", flush=True)

    model = Finder(args.mix_stride)
    if args.init and args.init.suffix == ".onnx":
        init_from_onnx(model, args.init, batch_of(synth + real, rng, 32, FINDER_CROP_PX)[0])
    elif args.init:
        model.load_state_dict(torch.load(args.init))
    else:
        with torch.no_grad():
            model.out.bias[: len(FINDER_CLASSES)].fill_(-4.0)
    teacher = None
    if args.teacher:
        teacher = Finder(4)
        init_from_onnx(teacher, args.teacher, batch_of(synth + real, rng, 32, FINDER_CROP_PX)[0])
        teacher = fold_batch_norms(teacher).eval().to(args.device)
        for parameter in teacher.parameters():
            parameter.requires_grad_(False)
    model = model.to(args.device)
    if args.bf16:
        model = model.to(memory_format=torch.channels_last)
    optimiser = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    history = []
    running = 0.0
    started = time.time()
    for step, (x, targets) in enumerate(batches(real, synth, args, rng), start=1):
        # How far the run is: by steps, or by the clock when --minutes ends it sooner.
        progress = (step - 1) / args.steps
        if args.minutes:
            progress = max(progress, (time.time() - started) / (60 * args.minutes))
        last = progress >= 1 - 1 / args.steps
        set_one_cycle(optimiser, min(progress, 1.0), args.lr)
        x = x.to(args.device, non_blocking=True)
        targets = [t.to(args.device, non_blocking=True) for t in targets]
        output = forward(model, x, args.bf16)
        loss = loss_of(output, targets)
        if teacher is not None:
            with torch.no_grad():
                taught = teacher(x)
            loss = loss + args.distill * distill_loss_of(output, taught)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        running += float(loss.detach())
        if step % 100 == 0:
            entry = {"step": step, "loss": running / 100, "minutes": round((time.time() - started) / 60, 1)}
            history.append(entry)
            print(json.dumps(entry), flush=True)
            running = 0.0
        if step % 1000 == 0 or last:
            export(model, args.out)
        if last:
            break

    model = model.cpu()
    torch.save(model.state_dict(), args.out.with_suffix(".pt"))
    args.out.with_name(args.out.stem + "-train.json").write_text(
        json.dumps({"args": {k: str(v) for k, v in vars(args).items()}, "history": history}, indent=1)
    )
    print(f"wrote {args.out}")


class Batches(torch.utils.data.IterableDataset):
    """Training batches cut by a worker process, each from its own seed."""

    def __init__(self, real: list[dict], synth: list[dict], args: argparse.Namespace):
        self.real, self.synth, self.args = real, synth, args

    def __iter__(self):
        worker = torch.utils.data.get_worker_info()
        rng = np.random.default_rng([self.args.seed, worker.id if worker else 0])
        return draw_batches(self.real, self.synth, self.args, rng)


def draw_batches(real: list[dict], synth: list[dict], args: argparse.Namespace, rng: np.random.Generator):
    """Half of each batch real, half rendered."""
    half = args.batch // 2
    while True:
        x1, t1 = batch_of(real, rng, half, FINDER_CROP_PX, args.jpeg, args.close_share, args.close_sides, args.scales)
        x2, t2 = batch_of(synth, rng, args.batch - half, FINDER_CROP_PX, args.jpeg, args.close_share, args.close_sides, args.scales)
        yield torch.cat([x1, x2]), [torch.cat([a, b]) for a, b in zip(t1, t2)]


def batches(real: list[dict], synth: list[dict], args: argparse.Namespace, rng: np.random.Generator):
    """The training batches: drawn here from `rng` without --workers, else by that many
    worker processes while the model trains (a GPU outruns one process's cropping)."""
    if args.workers == 0:
        return draw_batches(real, synth, args, rng)
    loader = torch.utils.data.DataLoader(
        Batches(real, synth, args), batch_size=None, num_workers=args.workers, pin_memory=args.device != "cpu", prefetch_factor=4
    )
    return iter(loader)


def unpack(path: Path) -> list[dict]:
    """The pictures of a file written by pack_pictures.py, as `load` gives them."""
    # Each array read out of the file once (an npz reads an array again at each access).
    data = dict(np.load(path))
    blob, offsets = data["jpeg"], data["offsets"]
    pictures = []
    for i in range(len(offsets) - 1):
        image = Image.open(io.BytesIO(blob[offsets[i] : offsets[i + 1]].tobytes())).convert("RGB")
        items = data["items"][data["item_picture"] == i]
        ignored = data["ignored"][data["ignored_picture"] == i]
        pictures.append(
            {
                "pixels": np.asarray(image),
                "scale_to_input": FINDER_LONG_PX / max(image.size),
                "items": items.astype(np.float32).reshape(-1, 5),
                "ignored": ignored.astype(np.float32).reshape(-1, 4),
                "real": bool(data["real"][i]),
            }
        )
    return pictures


def export(model: torch.nn.Module, path: Path) -> None:
    import copy

    folded = fold_batch_norms(copy.deepcopy(model).cpu()).eval()
    torch.onnx.export(
        folded,
        torch.rand(1, 3, 288, 512),
        str(path),
        input_names=["frame"],
        output_names=["grid"],
        dynamic_axes={"frame": {2: "height", 3: "width"}, "grid": {2: "rows", 3: "cols"}},
        opset_version=17,
        dynamo=False,
    )


if __name__ == "__main__":
    main()
