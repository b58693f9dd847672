"""What the training scripts share with each other and with the Rust reader (vision/src/reader.rs).

Change a constant here and the Rust side must change with it: the ONNX files carry the
shapes, and `tablesight detect` checks them when it loads a model.
"""

from __future__ import annotations

import io
import math

import numpy as np
import torch
from PIL import Image
from torch import nn

# The finder sees the whole frame shrunk so that its longer side is FINDER_LONG_PX (sides
# rounded to multiples of FINDER_STRIDE_MULTIPLE), and answers on a grid FINDER_STRIDE times
# coarser than its input.
FINDER_LONG_PX = 512
FINDER_STRIDE = 4
FINDER_STRIDE_MULTIPLE = 32
FINDER_CLASSES = ("die", "meeple")

# The reader sees a square crop around each found item: READER_CONTEXT times the longer side
# of its box, from the full-resolution frame, resampled to READER_PX x READER_PX.
READER_PX = 40
READER_CONTEXT = 1.5
# Crops are stored wider and larger than the reader's so training can vary context and scale.
CONTEXT_STORED = 2.0
CROP_STORED_PX = 80

KINDS = ("die", "meeple", "nothing")
VALUES = (1, 2, 3, 4, 5, 6)
DIE_COLORS = ("pink", "purple", "yellow", "blue", "other")
PLAYERS = ("blue", "green", "red", "yellow")
RANKS = ("apprentice", "master")
# The reader's one output row: logits of each head, in this order.
HEADS = (("kind", KINDS), ("value", VALUES), ("color", DIE_COLORS), ("player", PLAYERS), ("rank", RANKS))
READER_OUTPUTS = sum(len(labels) for _, labels in HEADS)


def open_crops(path) -> dict[str, np.ndarray]:
    """The arrays of a crops.npz (prepare_real.py, prepare_synth.py), or of one packed by
    pack_crops.py, whose JPEG sheets are decoded, cut into their crops and each resized back
    to CROP_STORED_PX."""
    data = dict(np.load(path))
    if "crop_sheets" in data:
        blob, offsets = data.pop("crop_sheets"), data.pop("sheet_offsets")
        px, side, count = (int(v) for v in data.pop("sheet_tile"))
        crops = []
        for a, b in zip(offsets[:-1], offsets[1:]):
            sheet = Image.open(io.BytesIO(blob[a:b].tobytes())).convert("RGB")
            for i in range(min(side * side, count - len(crops))):
                x, y = (i % side) * px, (i // side) * px
                tile = sheet.crop((x, y, x + px, y + px)).resize((CROP_STORED_PX,) * 2, Image.BILINEAR)
                crops.append(np.asarray(tile, dtype=np.uint8))
        data["crops"] = np.stack(crops)
    return data


def crop_square(image: Image.Image, box, context: float, size: int) -> "np.ndarray":  # noqa: F821
    """The square of `context` times the box's longer side around its centre, black outside
    the image, resampled to size x size (antialiased bilinear). Same rule as the Rust reader."""
    import numpy as np

    x0, y0, x1, y1 = box
    side = max(x1 - x0, y1 - y0, 1.0) * context
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    left, top = int(round(cx - side / 2)), int(round(cy - side / 2))
    right, bottom = left + max(int(round(side)), 1), top + max(int(round(side)), 1)
    region = image.crop((left, top, right, bottom))
    return np.asarray(region.resize((size, size), Image.BILINEAR), dtype=np.uint8)


def conv(c_in: int, c_out: int, stride: int = 1, kernel: int = 3) -> nn.Sequential:
    """Dense convolution, batch norm (folded away at export), ReLU: what tract runs fastest."""
    return nn.Sequential(
        nn.Conv2d(c_in, c_out, kernel, stride, kernel // 2, bias=False),
        nn.BatchNorm2d(c_out),
        nn.ReLU(inplace=True),
    )


class Reader(nn.Module):
    """Crop -> logits of every head (KINDS, VALUES, DIE_COLORS, PLAYERS, RANKS) in one row."""

    def __init__(self, width: int = 16, stem_stride: int = 1, step_at: int = 1):
        """`stem_stride` 2: the first pair (the stem) halves the side, its convolution
        `step_at` (1 or 2) stepping by two, and the last max-pool goes, so that the pairs
        run at 20, 10, 5 and 5 px rather than 40, 20, 10 and 5 (the first convolution at 40
        px when `step_at` is 2): about a third of the work. The first convolution sees
        every pixel either way."""
        super().__init__()
        self.stem_stride, self.step_at = stem_stride, step_at
        w = width
        strides = [stem_stride if step_at == 1 else 1, stem_stride if step_at == 2 else 1]
        last_pool = [nn.MaxPool2d(2)] if stem_stride == 1 else []
        self.features = nn.Sequential(
            conv(3, w, stride=strides[0]),
            conv(w, w, stride=strides[1]),
            nn.MaxPool2d(2),
            conv(w, 2 * w),
            conv(2 * w, 2 * w),
            nn.MaxPool2d(2),
            conv(2 * w, 3 * w),
            conv(3 * w, 3 * w),
            *last_pool,
            conv(3 * w, 4 * w),
            conv(4 * w, 4 * w),
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(4 * w, 64), nn.ReLU(inplace=True), nn.Linear(64, READER_OUTPUTS))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.pool(self.features(x)))


class Finder(nn.Module):
    """Frame -> per cell of a stride-4 grid: a heat per class (sigmoid), log box size in
    input pixels (2), centre offset within the cell in cells (2). CenterNet-style, dense
    convolutions and ReLU only, with a small top-down path for context.

    `mix_stride` is where the top-down path's 3x3 mixing convolution runs: 4 (the shipped
    finder) or 8 (run 9: a quarter of that convolution's work, which is a third of the
    finder's time in tract; the stride-4 features then join through their 1x1 lateral only,
    and it found fewer dice). Both have the same convolutions in the same order, so either
    starts from the other's weights."""

    def __init__(self, mix_stride: int = 4):
        super().__init__()
        if mix_stride not in (4, 8):
            raise ValueError(f"mix_stride must be 4 or 8, not {mix_stride}")
        self.mix_stride = mix_stride
        self.c2 = conv(3, 16, 2)
        self.c4 = conv(16, 32, 2)
        self.c8 = nn.Sequential(conv(32, 48, 2), conv(48, 48))
        self.c16 = nn.Sequential(conv(48, 64, 2), conv(64, 64))
        self.c32 = nn.Sequential(conv(64, 96, 2), conv(96, 96))
        self.l32 = conv(96, 32, kernel=1)
        self.l16 = conv(64, 32, kernel=1)
        self.l8 = conv(48, 32, kernel=1)
        self.l4 = conv(32, 32, kernel=1)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.mix = conv(32, 32)
        self.out = nn.Conv2d(32, len(FINDER_CLASSES) + 4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        c4 = self.c4(self.c2(x))
        c8 = self.c8(c4)
        c16 = self.c16(c8)
        c32 = self.c32(c16)
        p = self.l32(c32)
        p = self.l16(c16) + self.up(p)
        p = self.l8(c8) + self.up(p)
        lateral = self.l4(c4)
        if self.mix_stride == 8:
            return self.out(lateral + self.up(self.mix(p)))
        return self.out(self.mix(lateral + self.up(p)))


def forward(model: nn.Module, x: torch.Tensor, bf16: bool) -> torch.Tensor:
    """The model's float32 output for `x`; with `bf16`, computed under bfloat16 autocast on
    channels-last tensors (the model turned channels-last once, before training)."""
    if not bf16:
        return model(x)
    with torch.autocast(x.device.type, dtype=torch.bfloat16):
        return model(x.contiguous(memory_format=torch.channels_last)).float()


def fold_batch_norms(module: nn.Module) -> nn.Module:
    """Folds each Conv2d + BatchNorm2d pair into one Conv2d with bias, in place."""
    for name, child in module.named_children():
        if isinstance(child, nn.Sequential):
            layers = list(child)
            folded = []
            i = 0
            while i < len(layers):
                layer = layers[i]
                if isinstance(layer, nn.Conv2d) and i + 1 < len(layers) and isinstance(layers[i + 1], nn.BatchNorm2d):
                    folded.append(fold(layer, layers[i + 1]))
                    i += 2
                else:
                    folded.append(fold_batch_norms(layer))
                    i += 1
            setattr(module, name, nn.Sequential(*folded))
        else:
            fold_batch_norms(child)
    return module


@torch.no_grad()
def init_from_onnx(model: nn.Module, path, x: torch.Tensor) -> None:
    """The weights of an exported model (batch norms folded into its convolutions) put back
    into `model`, so that a shipped model trains on. The ONNX convolutions are matched to the
    model's in the order it runs them; each gets its folded weights, and the batch norm after
    it the mean and spread of that convolution's output on the inputs `x`, so that it hands on
    what the folded convolution gave (plus its bias) and still learns in training. Linear
    layers are copied by name."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    weights = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in graph.initializer}
    folded = [(weights[n.input[1]], weights[n.input[2]]) for n in graph.node if n.op_type == "Conv"]
    batch_norm_after = {}
    for module in model.modules():
        if isinstance(module, nn.Sequential):
            layers = list(module)
            for a, b in zip(layers, layers[1:]):
                if isinstance(a, nn.Conv2d) and isinstance(b, nn.BatchNorm2d):
                    batch_norm_after[a] = b
    order: list[nn.Conv2d] = []
    hooks = [m.register_forward_pre_hook(lambda m, _: order.append(m)) for m in model.modules() if isinstance(m, nn.Conv2d)]
    model.eval()
    model(x[:1])
    for hook in hooks:
        hook.remove()
    if len(order) != len(folded):
        raise SystemExit(f"{path}: {len(folded)} convolutions, the model has {len(order)}")
    bias_of = {}
    for conv_layer, (weight, bias) in zip(order, folded):
        if weight.shape != conv_layer.weight.shape:
            raise SystemExit(f"{path}: a convolution of shape {tuple(weight.shape)}, expected {tuple(conv_layer.weight.shape)}")
        conv_layer.weight.copy_(weight)
        if conv_layer in batch_norm_after:
            bias_of[batch_norm_after[conv_layer]] = bias
        else:
            conv_layer.bias.copy_(bias)

    def fit(bn: nn.BatchNorm2d, inputs) -> None:
        z = inputs[0]
        mean, var = z.mean(dim=(0, 2, 3)), z.var(dim=(0, 2, 3), unbiased=False)
        bn.running_mean.copy_(mean)
        bn.running_var.copy_(var)
        bn.weight.copy_(torch.sqrt(var + bn.eps))
        bn.bias.copy_(mean + bias_of[bn])

    hooks = [bn.register_forward_pre_hook(fit) for bn in bias_of]
    model(x)
    for hook in hooks:
        hook.remove()
    for name, module in model.named_modules():
        if isinstance(module, nn.Linear):
            module.weight.copy_(weights[f"{name}.weight"])
            module.bias.copy_(weights[f"{name}.bias"])
    model.train()


def fold(conv_layer: nn.Conv2d, bn: nn.BatchNorm2d) -> nn.Conv2d:
    scale = bn.weight / torch.sqrt(bn.running_var + bn.eps)
    fused = nn.Conv2d(
        conv_layer.in_channels,
        conv_layer.out_channels,
        conv_layer.kernel_size,
        conv_layer.stride,
        conv_layer.padding,
        bias=True,
    )
    with torch.no_grad():
        fused.weight.copy_(conv_layer.weight * scale[:, None, None, None])
        bias = conv_layer.bias if conv_layer.bias is not None else torch.zeros_like(bn.running_mean)
        fused.bias.copy_((bias - bn.running_mean) * scale + bn.bias)
    return fused


def onnx_reader_design(path) -> tuple[int, int, int]:
    """The `Reader` arguments of an exported reader: its width (the output channels of its
    first convolution), its stem's stride and which of the stem's convolutions steps."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    weights = {i.name: i for i in graph.initializer}
    stem = [n for n in graph.node if n.op_type == "Conv"][:2]
    strides = [next((a.ints[0] for a in n.attribute if a.name == "strides"), 1) for n in stem]
    stem_stride = max(strides)
    step_at = strides.index(stem_stride) + 1 if stem_stride > 1 else 1
    return int(numpy_helper.to_array(weights[stem[0].input[1]]).shape[0]), int(stem_stride), step_at


@torch.no_grad()
def widened(small: Reader, width: int, rng: np.random.Generator, noise: float = 1e-3) -> Reader:
    """A wider reader that computes what `small` computes (Net2WiderNet, Chen et al. 2016):
    each new channel copies a random channel of the narrow layer (its convolution, batch norm
    and all), and the layer after it divides what it takes from a channel by the number of
    its copies. A little noise breaks the copies' symmetry so that they learn apart. A
    reader trained on from this keeps everything the narrow one learnt and gains capacity."""
    big = Reader(width, small.stem_stride, small.step_at)
    small_convs = [m for m in small.features if isinstance(m, nn.Sequential)]
    big_convs = [m for m in big.features if isinstance(m, nn.Sequential)]
    # For the input channels of the layer at hand: the narrow channel each copies, and the
    # share of that channel each copy hands on (one over its number of copies).
    taken_from, share = None, None
    for s, b in zip(small_convs, big_convs):
        (s_conv, s_bn), (b_conv, b_bn) = s[:2], b[:2]
        c_small, c_big = s_conv.out_channels, b_conv.out_channels
        source = np.concatenate([np.arange(c_small), rng.integers(0, c_small, c_big - c_small)])
        weight = s_conv.weight[torch.from_numpy(source)]
        if taken_from is not None:
            weight = weight[:, taken_from] * share[None, :, None, None]
        b_conv.weight.copy_(weight * (1 + noise * torch.randn_like(weight)))
        for name in ("weight", "bias", "running_mean", "running_var"):
            getattr(b_bn, name).copy_(getattr(s_bn, name)[torch.from_numpy(source)])
        taken_from = torch.from_numpy(source)
        share = torch.from_numpy(1.0 / np.bincount(source)[source]).float()
    s_fc, b_fc = small.head[1], big.head[1]
    b_fc.weight.copy_(s_fc.weight[:, taken_from] * share[None, :])
    b_fc.bias.copy_(s_fc.bias)
    big.head[3].load_state_dict(small.head[3].state_dict())
    return big


def jpeg_roundtrip(pixels: np.ndarray, quality: int, subsampling: int = -1) -> np.ndarray:
    """An RGB uint8 picture JPEG-compressed and decoded again, as a camera's file is (PIL's
    `subsampling`: 0 = 4:4:4, 1 = 4:2:2, 2 = 4:2:0, -1 its default)."""
    encoded = io.BytesIO()
    Image.fromarray(pixels).save(encoded, "JPEG", quality=quality, subsampling=subsampling)
    return np.asarray(Image.open(encoded).convert("RGB"))


def set_one_cycle(optimiser: torch.optim.Optimizer, progress: float, peak: float) -> None:
    """The one-cycle schedule of torch's OneCycleLR (its defaults: 30 % warm-up from peak / 25
    by a cosine, then a cosine down to peak / 25e4, Adam's beta1 cycled 0.95 -> 0.85 -> 0.95)
    at `progress` (0..1) of the run, so that a run can be timed by the clock."""
    low, high = 0.85, 0.95
    if progress < 0.3:
        t, lr_from, lr_to, beta_from, beta_to = progress / 0.3, peak / 25, peak, high, low
    else:
        t, lr_from, lr_to, beta_from, beta_to = (progress - 0.3) / 0.7, peak, peak / 25e4, low, high
    cosine = (1 + math.cos(math.pi * t)) / 2
    for group in optimiser.param_groups:
        group["lr"] = lr_to + (lr_from - lr_to) * cosine
        group["betas"] = (beta_to + (beta_from - beta_to) * cosine, group["betas"][1])
