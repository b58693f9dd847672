"""Trains the crop reader: what a found item is (die, meeple, nothing), a die's value and
colour, a meeple's player and rank, from a READER_PX square crop of full-resolution pixels.

Data: crops.npz of prepare_real.py (real dice, their grouped train split; values, "other"
colour for grey dice) and of prepare_synth.py (rendered dice and meeples; every label).
Real dice of the val split and rendered val scenes choose the weights kept; the test split is never read here.

Augmentation is where generalisation to unseen dice comes from: context and centre jitter
(the finder's boxes are not exact), any rotation, blur down to 12 px dice, noise,
brightness and contrast, JPEG compression with the chroma subsampling of cameras, and hue rotation of real dice (their value must not depend on their
colour). Rendered dice turned to a hue far from the four game colours, or to grey, become
"other" dice.

`--teacher` distils a wider reader into this one: the model learns the teacher's softened
readings of each batch beside the labels (`distill_loss`).

Run: .venv-train/bin/python models/training/train_reader.py --steps 1500 --seed 1
Writes models/reader.onnx (batch size free, 3 x READER_PX x READER_PX, RGB in 0..1) and
models/reader-train.json (the run's arguments and the validation figures along the way).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from common import (
    CONTEXT_STORED,
    CROP_STORED_PX,
    DIE_COLORS,
    HEADS,
    KINDS,
    READER_CONTEXT,
    READER_PX,
    Reader,
    fold_batch_norms,
    forward,
    init_from_onnx,
    jpeg_roundtrip,
    onnx_reader_design,
    open_crops,
    set_one_cycle,
    widened,
)

# Hues (degrees) of the game's dice in the rendered sprites, and hues that no game die has.
GAME_HUES = {"pink": 330.0, "purple": 280.0, "yellow": 55.0, "blue": 220.0}
OTHER_HUES = (5.0, 25.0, 120.0, 160.0)
IGNORE = -1


def load_real(
    paths: list[Path],
    split: str,
    source_weights: dict[str, float] | None = None,
    colours: bool = False,
    leave_out: list[str] | None = None,
) -> dict[str, np.ndarray]:
    """The real crops of one split, from one or more crops.npz files (prepare_real.py's,
    and the hard negatives of mine_negatives.py); `source_weights` weighs how often each dataset's crops
    are drawn (1 where unnamed); with `colours`, byler-d6's dice carry the colour classes
    prepare_real.py gave them (from the dataset's unreviewed estimate). `leave_out` drops
    every group that holds a photo of the datasets named (their copies in other datasets
    share their group)."""
    files = [open_crops(path) for path in paths]
    data = {k: np.concatenate([f[k] for f in files]) for k in ("crops", "values", "colours", "splits", "sources", "groups")}
    keep = data["splits"] == split
    if leave_out:
        unknown = sorted(set(leave_out) - set(np.unique(data["sources"]).tolist()))
        if unknown:
            raise SystemExit(f"--leave-out: no dataset {', '.join(unknown)} in {', '.join(map(str, paths))}")
        left_out = np.unique(data["groups"][np.isin(data["sources"], leave_out)])
        keep &= ~np.isin(data["groups"], left_out)
    crops = data["crops"][keep]
    values = data["values"][keep].astype(np.int64)
    n = len(crops)
    kind = np.where(values > 0, KINDS.index("die"), KINDS.index("nothing"))
    # Grey dice (rune55-dice, matteop65-d6-webcam are mostly white, grey or black) are
    # "other"; coloured real dice have no colour label (byler-d6's colours are unreviewed).
    centre = crops[:, 25:55, 25:55].astype(np.float32)
    saturation = (centre.max(axis=3) - centre.min(axis=3)).mean(axis=(1, 2)) / 255.0
    color = np.where((values > 0) & (saturation < 0.12), DIE_COLORS.index("other"), IGNORE)
    # Colour labels that a hue rotation would make wrong (a grey die stays "other").
    hue_bound = np.zeros(n, dtype=bool)
    if colours and "colours" in data:
        labelled = data["colours"][keep].astype(np.int64)
        hue_bound = (values > 0) & (labelled >= 0) & (saturation >= 0.12)
        color = np.where(hue_bound, labelled, color)
    return {
        "crops": crops,
        "kind": kind,
        "value": np.where(values > 0, values - 1, IGNORE),
        "color": color,
        "player": np.full(n, IGNORE),
        "rank": np.full(n, IGNORE),
        "real": np.ones(n, dtype=bool),
        "hue_bound": hue_bound,
        # Unknown: real photos are mostly taken from above, and their dice turn freely.
        "tilt": np.zeros(n, dtype=np.float32),
        "draw": np.array([(source_weights or {}).get(str(s), 1.0) for s in data["sources"][keep]], dtype=np.float64),
    }


def load_synth(path: Path) -> dict[str, np.ndarray]:
    data = open_crops(path)
    n = len(data["crops"])
    return {
        "crops": data["crops"],
        **{k: data[k].astype(np.int64) for k in ("kind", "value", "color", "player", "rank")},
        "real": np.zeros(n, dtype=bool),
        "hue_bound": np.zeros(n, dtype=bool),
        # Crops made before prepare_synth.py kept the view's tilt count as seen from above.
        "tilt": data["tilt"] if "tilt" in data else np.zeros(n, dtype=np.float32),
        "draw": np.ones(n),
    }


def concat(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def hue_matrix(degrees: torch.Tensor) -> torch.Tensor:
    """RGB -> RGB rotation about the grey axis by `degrees` (one 3x3 matrix per sample)."""
    a = torch.deg2rad(degrees)
    c, s = torch.cos(a), torch.sin(a)
    k = 1.0 / 3.0
    r = math.sqrt(k)
    m = torch.empty(len(a), 3, 3)
    m[:, 0, 0] = c + (1 - c) * k
    m[:, 0, 1] = k * (1 - c) - r * s
    m[:, 0, 2] = k * (1 - c) + r * s
    m[:, 1, 0] = k * (1 - c) + r * s
    m[:, 1, 1] = c + k * (1 - c)
    m[:, 1, 2] = k * (1 - c) - r * s
    m[:, 2, 0] = k * (1 - c) - r * s
    m[:, 2, 1] = k * (1 - c) + r * s
    m[:, 2, 2] = c + k * (1 - c)
    return m


def to_input(crops_u8: np.ndarray, context: torch.Tensor, shift: torch.Tensor, angle: torch.Tensor) -> torch.Tensor:
    """Stored crops -> READER_PX crops of `context` box sides, shifted and turned."""
    x = torch.from_numpy(crops_u8).permute(0, 3, 1, 2).float() / 255.0
    scale = context / CONTEXT_STORED
    cos, sin = torch.cos(angle) * scale, torch.sin(angle) * scale
    theta = torch.stack(
        [torch.stack([cos, -sin, shift[:, 0]], 1), torch.stack([sin, cos, shift[:, 1]], 1)], 1
    )
    # Antialias first: the sub-crop is resampled from about CROP_STORED_PX * scale pixels.
    source_px = int(CROP_STORED_PX * float(scale.mean()))
    if source_px > READER_PX * 1.3:
        x = F.interpolate(x, size=(int(CROP_STORED_PX * READER_PX * 1.2 / source_px),) * 2, mode="bilinear", antialias=True, align_corners=False)
    grid = F.affine_grid(theta, (len(x), 3, READER_PX, READER_PX), align_corners=False)
    return F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False)


def finder_like(n: int, rng: np.random.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Crop context (in labelled box sides) and centre shift (in box sides) as the finder's
    boxes give them. On the byler-d6 validation photos (`tablesight detect --json` against the
    labels) its boxes are 0.86 of the labelled side on the median (0.66 at the 10th
    percentile, 1.15 at the 90th) and their centres 0.09 of a side off (0.19 at the 90th):
    the reader must read tight and off-centre crops, not only labelled ones."""
    ratio = np.clip(np.exp(rng.normal(math.log(0.86), 0.22, n)), 0.55, 1.33)
    context = torch.from_numpy(READER_CONTEXT * ratio).float()
    shift = torch.from_numpy(np.clip(rng.normal(0.0, 0.09, (n, 2)), -0.3, 0.3)).float()
    return context, shift


def augment(
    batch: dict[str, np.ndarray],
    rng: np.random.Generator,
    small_share: float = 0.35,
    small_sizes=(16, 22, 30),
    jpeg_share: float = 0.0,
    upright_tilt: float | None = None,
    polarity_share: float = 0.0,
    swirl_share: float = 0.0,
    mix_share: float = 0.0,
    tint_share: float = 0.0,
    hue_share: float = 0.0,
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """The crops of `batch` as the reader learns them, and their labels. Dice turn freely,
    except, with `upright_tilt`, rendered dice seen more than that many degrees off the
    vertical: those stay upright as meeples do, since the side faces an oblique camera shows
    lie below the top face in the frame and a turned crop loses which face is on top.

    `polarity_share`, `swirl_share`, `mix_share`, `tint_share` and `hue_share` recolour that
    share of the crops that are not meeples (see `recoloured`)."""
    n = len(batch["crops"])
    labels = {k: torch.from_numpy(batch[k].copy()) for k in ("kind", "value", "color", "player", "rank")}
    # Half cut as the finder cuts, half around the labelled box (drawn in this order, the
    # order run 6 was trained with).
    context, shift = finder_like(n, rng)
    exact = rng.random(n) < 0.5
    context[exact] = torch.from_numpy(rng.uniform(1.2, 1.9, int(exact.sum()))).float()
    shift[exact] = torch.from_numpy(rng.uniform(-0.12, 0.12, (int(exact.sum()), 2))).float()
    is_meeple = labels["kind"] == KINDS.index("meeple")
    angle = torch.from_numpy(rng.uniform(-math.pi, math.pi, n)).float()
    upright = is_meeple
    if upright_tilt is not None:
        upright = upright | torch.from_numpy(~batch["real"] & (batch["tilt"] > upright_tilt))
    angle[upright] *= 0.15  # meeples (and oblique dice) stand upright in the frame, give or take
    x = to_input(batch["crops"], context, shift, angle)

    # Colour: real dice get any hue (those whose colour label the hue sets, half the time, and
    # then lose the label); some rendered game dice become "other" dice.
    hue = torch.zeros(n)
    real = torch.from_numpy(batch["real"])
    hue[real] = torch.from_numpy(rng.uniform(0, 360, int(real.sum()))).float()
    hue_bound = torch.from_numpy(batch["hue_bound"])
    turned = hue_bound & torch.from_numpy(rng.random(n) < 0.5)
    hue[hue_bound & ~turned] = 0.0
    labels["color"][turned] = IGNORE
    is_die = labels["kind"] == KINDS.index("die")
    game_color = is_die & ~real & (labels["color"] >= 0) & (labels["color"] < DIE_COLORS.index("other"))
    turn = game_color & torch.from_numpy(rng.random(n) < 0.2)
    for i in torch.nonzero(turn).flatten().tolist():
        source = GAME_HUES[DIE_COLORS[labels["color"][i]]]
        hue[i] = float(rng.choice(OTHER_HUES)) - source
        labels["color"][i] = DIE_COLORS.index("other")
    x = torch.einsum("nij,njhw->nihw", hue_matrix(hue), x)
    grey = game_color & ~turn & torch.from_numpy(rng.random(n) < 0.05)
    x[grey] = x[grey].mean(dim=1, keepdim=True).expand(-1, 3, -1, -1)
    labels["color"][grey] = DIE_COLORS.index("other")
    # Any colour jitter small enough to keep pink pink.
    x = x * torch.from_numpy(rng.uniform(0.9, 1.1, (n, 3, 1, 1))).float()
    if polarity_share > 0 or swirl_share > 0 or mix_share > 0 or tint_share > 0 or hue_share > 0:
        x = recoloured(x, labels, real, rng, polarity_share, swirl_share, mix_share, tint_share, hue_share)

    # Light, blur (small or soft dice), noise.
    x = x * torch.from_numpy(rng.uniform(0.6, 1.4, (n, 1, 1, 1))).float()
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    x = (x - mean) * torch.from_numpy(rng.uniform(0.7, 1.3, (n, 1, 1, 1))).float() + mean
    small = rng.random(n) < small_share
    which = rng.integers(0, len(small_sizes), n)
    for i, size in enumerate(small_sizes):
        pick = torch.from_numpy(small & (which == i))
        if pick.any():
            down = F.interpolate(x[pick], size=(size, size), mode="bilinear", antialias=True, align_corners=False)
            x[pick] = F.interpolate(down, size=(READER_PX, READER_PX), mode="bilinear", align_corners=False)
    x = x + torch.randn_like(x) * torch.from_numpy(rng.uniform(0, 0.04, (n, 1, 1, 1))).float()
    flip = torch.from_numpy(rng.random(n) < 0.5) & ~is_meeple
    x[flip] = x[flip].flip(3)
    x = x.clamp(0, 1)
    if jpeg_share > 0:
        x = jpeg_compressed(x, rng.random(n) < jpeg_share, rng)
    return x, labels


def recoloured(
    x: torch.Tensor,
    labels: dict[str, torch.Tensor],
    real: torch.Tensor,
    rng: np.random.Generator,
    polarity_share: float,
    swirl_share: float,
    mix_share: float = 0.0,
    tint_share: float = 0.0,
    hue_share: float = 0.0,
) -> torch.Tensor:
    """Looks no set has, for the dice nobody here has seen (a reader trained without
    byler-d6 misread its dark dice with red pips, opaque yellow dice with black pips and teal
    and gold swirled dice): the value of a die does not depend on whether its pips are
    lighter or darker than its body, nor on the colours swirled through it.

    - Polarity (`polarity_share`): the crop's negative, light pips on a dark body becoming
      dark pips on a light one and the other way round.
    - Swirl (`swirl_share`): the crop times a smooth random colour field (a 3x3 grid of
      log-normal gains per channel, spread 0.35, upsampled bicubically), two or three
      colours running through one body as in marbled dice, and uneven light.
    - Channel mix (`mix_share`): one grey picture of the crop's channels weighed by random
      signed weights, stretched to 0..1: pips that differ from the body in hue more than in
      brightness (red pips on a dark red or blue body) become light or dark ones.
    - Tint (`tint_share`): the other way round, a duotone: the crop's grey mapped from a dark
      colour to a light or saturated one (either way round), so that pips lighter than the
      body become red pips on a black body, yellow pips on a dark teal one, black pips on a
      gold one: pips that differ from the body more in hue than in brightness, as the
      dice a reader trained without byler-d6 misread (the thirty-fourth session).
    - Hue (`hue_share`): the crop's grey, stretched to 0..1, mapped from one colour to
      another of about the same brightness, their hues 90-180 degrees apart: pips that
      differ from the body in hue alone, as the dark blue dice with dark red pips that the
      leave-out reader still misread after the tint (the forty-seventh session: 12 of its 22
      misses on byler-d6's validation photos).

    All five touch dice and crops of nothing alike (else a recoloured look would mean "die"),
    never meeples (their colour is their player) nor the game's rendered dice, whose look
    the reader knows (recoloured too, in runs 23 and 23b, they were read 2-3 points worse);
    a recoloured die loses its colour label."""
    n = len(x)
    game_die = ~real & (labels["color"] >= 0) & (labels["color"] < DIE_COLORS.index("other"))
    recolourable = (labels["kind"] != KINDS.index("meeple")) & ~game_die
    inverted = recolourable & torch.from_numpy(rng.random(n) < polarity_share)
    x = torch.where(inverted[:, None, None, None], 1.0 - x, x)
    swirled = recolourable & torch.from_numpy(rng.random(n) < swirl_share)
    if swirled.any():
        m = int(swirled.sum())
        gains = torch.from_numpy(rng.normal(0.0, 0.35, (m, 3, 3, 3))).float()
        field = F.interpolate(gains, size=x.shape[-2:], mode="bicubic", align_corners=True).exp()
        x[swirled] = (x[swirled] * field).clamp(0, 1)
    mixed = recolourable & torch.from_numpy(rng.random(n) < mix_share)
    if mixed.any():
        m = int(mixed.sum())
        weights = torch.from_numpy(rng.uniform(-1.0, 1.0, (m, 3, 1, 1))).float()
        x[mixed] = stretched((x[mixed] * weights).sum(dim=1, keepdim=True)).expand(-1, 3, -1, -1)

    def drawn_when_asked(share: float) -> torch.Tensor:
        """The recolourable crops drawn at `share`, drawing nothing from `rng` at 0 (so
        that the runs before the tint and the hue draw what they drew)."""
        if share == 0:
            return torch.zeros(n, dtype=torch.bool)
        return recolourable & torch.from_numpy(rng.random(n) < share)

    tinted = drawn_when_asked(tint_share)
    if tinted.any():
        m = int(tinted.sum())
        grey = x[tinted].mean(dim=1, keepdim=True)
        dark = rng.uniform(0.0, 0.25, (m, 3))
        light = rng.uniform(0.0, 1.0, (m, 3))
        # More saturated than uniform channels (a pure red as often as a pastel), its
        # brightest channel 0.6-1.
        light -= light.min(axis=1, keepdims=True) * rng.uniform(0.0, 1.0, (m, 1))
        light *= rng.uniform(0.6, 1.0, (m, 1)) / light.max(axis=1, keepdims=True).clip(min=1e-3)
        swap = rng.random(m) < 0.5
        dark[swap], light[swap] = light[swap], dark[swap]
        low = torch.from_numpy(dark).float()[:, :, None, None]
        high = torch.from_numpy(light).float()[:, :, None, None]
        x[tinted] = low + (high - low) * grey
    hued = drawn_when_asked(hue_share)
    if hued.any():
        m = int(hued.sum())
        grey = stretched(x[hued].mean(dim=1, keepdim=True))
        first = torch.from_numpy(saturated_colours(m, rng)).float()
        turn = torch.from_numpy(rng.uniform(90.0, 180.0, m) * rng.choice([-1.0, 1.0], m)).float()
        second = torch.einsum("nij,nj->ni", hue_matrix(turn), first).clamp(min=0.0)
        # Both to one brightness (the second within a fifth of the first), dark or light.
        target = torch.from_numpy(rng.uniform(0.1, 0.6, (m, 1))).float()
        ratio = torch.from_numpy(rng.uniform(0.8, 1.25, (m, 1))).float()
        first = (first * target / luma(first)).clamp(0, 1)
        second = (second * target * ratio / luma(second)).clamp(0, 1)
        low, high = first[:, :, None, None], second[:, :, None, None]
        x[hued] = low + (high - low) * grey
    labels["color"][inverted | swirled | mixed | tinted | hued] = IGNORE
    return x


def stretched(grey: torch.Tensor) -> torch.Tensor:
    """Each grey picture of a batch stretched to 0..1."""
    low = grey.amin(dim=(2, 3), keepdim=True)
    return (grey - low) / (grey.amax(dim=(2, 3), keepdim=True) - low).clamp(min=1e-3)


def saturated_colours(m: int, rng: np.random.Generator) -> np.ndarray:
    """`m` random RGB colours, mostly saturated, their brightest channel 1."""
    colour = rng.uniform(0.0, 1.0, (m, 3))
    colour -= colour.min(axis=1, keepdims=True) * rng.uniform(0.5, 1.0, (m, 1))
    return colour / colour.max(axis=1, keepdims=True).clip(min=1e-3)


def luma(colour: torch.Tensor) -> torch.Tensor:
    """Rec. 709 brightness of RGB rows, never under 0.02 (so that it can divide)."""
    return (colour @ torch.tensor([0.2126, 0.7152, 0.0722]))[:, None].clamp(min=0.02)


# Chroma subsampling of the JPEG a camera writes, and how often each is drawn: webcams send
# MJPEG in 4:2:2 or 4:2:0, phones save 4:2:0; the rendered scenes are saved in 4:4:4, so
# without this the reader learns the game's colours only from unsubsampled chroma (PIL's
# `subsampling`: 0 = 4:4:4, 1 = 4:2:2, 2 = 4:2:0).
JPEG_SUBSAMPLING = (2, 1, 0)
JPEG_SUBSAMPLING_SHARE = (0.5, 0.35, 0.15)


def jpeg_compressed(x: torch.Tensor, pick: np.ndarray, rng: np.random.Generator) -> torch.Tensor:
    """The crops of `x` where `pick` is set, JPEG-compressed as a camera does (quality 30-95,
    chroma subsampled as JPEG_SUBSAMPLING): the blue and purple of a small die bleed into
    each other when chroma is halved (the rendered validation scenes saved again in 4:2:0 at
    their own quality by resave_chroma.py: 71.5 -> 67.4 % of dice read right by reader run 11,
    sure readings right 99.3 -> 94.1 %)."""
    out = x.clone()
    pixels = (x.permute(0, 2, 3, 1).numpy() * 255.0 + 0.5).astype(np.uint8)
    for i in np.flatnonzero(pick):
        subsampling = int(rng.choice(JPEG_SUBSAMPLING, p=JPEG_SUBSAMPLING_SHARE))
        decoded = jpeg_roundtrip(pixels[i], int(rng.integers(30, 96)), subsampling)
        out[i] = torch.from_numpy(decoded.astype(np.float32) / 255.0).permute(2, 0, 1)
    return out


def losses(logits: torch.Tensor, labels: dict[str, torch.Tensor], unsure_covered: bool = False) -> torch.Tensor:
    """The heads' cross-entropies; with `unsure_covered`, a die whose value its pixels do not
    show (a rendered die less visible than prepare_synth.py's VALUE_VISIBLE: a meeple on it, a hand)
    learns even odds for every value, so that the reader says it is unsure rather than
    guessing surely: the referee then takes the value from the die's earlier readings."""
    total = logits.new_zeros(())
    start = 0
    for name, classes in HEADS:
        part = logits[:, start : start + len(classes)]
        start += len(classes)
        target = labels[name]
        if (target >= 0).any():
            total = total + F.cross_entropy(part, target, ignore_index=IGNORE, label_smoothing=0.05)
        if name == "value" and unsure_covered:
            covered = (target == IGNORE) & (labels["kind"] == KINDS.index("die"))
            if covered.any():
                total = total - F.log_softmax(part[covered], dim=1).mean()
    return total


# Soft targets of a teacher are taken at this temperature (Hinton et al., 2015).
DISTILL_TEMPERATURE = 2.0


def distill_loss(logits: torch.Tensor, teacher: torch.Tensor, labels: dict[str, torch.Tensor]) -> torch.Tensor:
    """How far the model's heads are from a teacher reader's on the same crops: the
    Kullback-Leibler divergence of their softened probabilities, head by head, over the
    crops a head is for (what kind: every crop; value and colour: dice; player and rank:
    meeples), times the temperature squared so that it weighs as the labels' loss does."""
    t = DISTILL_TEMPERATURE
    kind = labels["kind"]
    rows = {
        "kind": torch.ones_like(kind, dtype=torch.bool),
        "value": kind == KINDS.index("die"),
        "color": kind == KINDS.index("die"),
        "player": kind == KINDS.index("meeple"),
        "rank": kind == KINDS.index("meeple"),
    }
    total = logits.new_zeros(())
    for name, _ in HEADS:
        keep = rows[name]
        if keep.any():
            student = F.log_softmax(head(logits, name)[keep] / t, dim=1)
            target = F.softmax(head(teacher, name)[keep] / t, dim=1)
            total = total + F.kl_div(student, target, reduction="batchmean") * t * t
    return total


def head(logits: torch.Tensor, name: str) -> torch.Tensor:
    start = 0
    for head_name, classes in HEADS:
        if head_name == name:
            return logits[:, start : start + len(classes)]
        start += len(classes)
    raise KeyError(name)


@torch.no_grad()
def evaluate(model: torch.nn.Module, data: dict[str, np.ndarray], finder: bool = False) -> dict[str, float]:
    """Accuracy of each head on the items that have its label, at the reader's own context
    around the labelled box, or (`finder`) at boxes off as the finder's are (the same draw
    each time)."""
    model.eval()
    n = len(data["crops"])
    context, shift = finder_like(n, np.random.default_rng(0)) if finder else (torch.full((n,), READER_CONTEXT), torch.zeros(n, 2))
    outs = []
    for start in range(0, n, 512):
        part = slice(start, start + 512)
        crops = data["crops"][part]
        x = to_input(crops, context[part], shift[part], torch.zeros(len(crops)))
        outs.append(model(x.to(next(model.parameters()).device)).cpu())
    logits = torch.cat(outs)
    figures = {}
    for name, _ in HEADS:
        target = torch.from_numpy(data[name])
        keep = target >= 0
        if keep.any():
            figures[name] = float((head(logits, name)[keep].argmax(1) == target[keep]).float().mean())
    model.train()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--real",
        type=Path,
        nargs="+",
        default=[Path("data/real/crops.npz")],
        help="prepare_real.py's crops, and mine_negatives.py's hard negatives of the same photos if wanted",
    )
    parser.add_argument("--synth", type=Path, nargs="+", default=[Path("data/synth/train/crops.npz")])
    parser.add_argument("--synth-val", type=Path, default=Path("data/synth/val/crops.npz"))
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--eval-every", type=int, default=150)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--width", type=int, default=16)
    parser.add_argument(
        "--stem-stride",
        type=int,
        choices=(1, 2),
        default=1,
        help="2: the first pair halves the side and the last max-pool goes (`Reader`): a third of the work",
    )
    parser.add_argument(
        "--step-at", type=int, choices=(1, 2), default=1, help="with --stem-stride 2: which convolution of the first pair steps by two"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--real-share", type=float, default=0.5, help="share of real crops in each batch")
    parser.add_argument(
        "--source-weight",
        nargs="*",
        default=[],
        metavar="SOURCE=W",
        help="draw a real dataset's crops W times as often as the others (e.g. byler-d6=4)",
    )
    parser.add_argument("--small-share", type=float, default=0.35, help="share of crops shrunk and blown up again (small dice)")
    parser.add_argument("--small-sizes", type=int, nargs="+", default=[16, 22, 30], help="the sides (px) they are shrunk to")
    parser.add_argument(
        "--jpeg-share", type=float, default=0.0, help="share of crops JPEG-compressed as a camera does (chroma subsampled)"
    )
    parser.add_argument(
        "--real-colours", action="store_true", help="byler-d6's dice carry their (estimated) colour classes"
    )
    parser.add_argument(
        "--upright-tilt",
        type=float,
        metavar="DEG",
        help="rendered dice seen more than DEG degrees off the vertical are only turned a little (they keep which face is on top)",
    )
    parser.add_argument(
        "--unsure-covered",
        action="store_true",
        help="rendered dice whose value does not show (a meeple on them, a hand or a floor over them) learn even odds for every value (unsure, not a guess)",
    )
    parser.add_argument(
        "--leave-out",
        nargs="+",
        default=[],
        metavar="SOURCE",
        help="train without these real datasets and their copies in others (dice nobody here has seen)",
    )
    parser.add_argument("--real-only", action="store_true", help="train on real crops alone")
    parser.add_argument("--synth-only", action="store_true", help="train on rendered crops alone (the realism gap)")
    parser.add_argument(
        "--init",
        type=Path,
        help="start from the weights of an earlier run (its .pt, or an exported .onnx, widened to --width if narrower)",
    )
    parser.add_argument(
        "--bf16",
        action="store_true",
        help="bfloat16 autocast and channels-last tensors (faster on a CPU with AVX-512 BF16; weights stay float32)",
    )
    parser.add_argument(
        "--polarity-share", type=float, default=0.0, help="share of dice (and crops of nothing) turned to their negative"
    )
    parser.add_argument(
        "--swirl-share", type=float, default=0.0, help="share of dice (and crops of nothing) times a smooth random colour field"
    )
    parser.add_argument(
        "--mix-share", type=float, default=0.0, help="share of dice (and crops of nothing) turned to a grey of randomly weighed channels"
    )
    parser.add_argument(
        "--tint-share", type=float, default=0.0, help="share of dice (and crops of nothing) turned to a duotone of two random colours"
    )
    parser.add_argument(
        "--hue-share",
        type=float,
        default=0.0,
        help="share of dice (and crops of nothing) turned to a duotone of two colours of one brightness and different hues",
    )
    parser.add_argument(
        "--teacher",
        type=Path,
        help="a wider reader (an exported .onnx) whose readings the model learns as well as the labels (distillation)",
    )
    parser.add_argument("--distill", type=float, default=1.0, help="the weight of the teacher's loss beside the labels' (with --teacher)")
    parser.add_argument("--device", default="cpu", help="where the model trains (cpu, cuda); the augmentation runs on the CPU")
    parser.add_argument(
        "--minutes", type=float, help="end the run after this many minutes (the schedule follows the clock) if --steps are not done by then"
    )
    parser.add_argument("--workers", type=int, default=0, help="processes that augment batches while the model trains")
    parser.add_argument("--out", type=Path, default=Path("models/reader.onnx"))
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)

    source_weights = {k: float(v) for k, v in (w.split("=") for w in args.source_weight)}
    parts = []
    if not args.synth_only:
        parts.append(load_real(args.real, "train", source_weights, args.real_colours, args.leave_out))
    if not args.real_only:
        parts += [load_synth(p) for p in args.synth]
    train = concat(parts)
    # A dataset left out does not choose the weights either.
    val_real = load_real(args.real, "val", colours=args.real_colours, leave_out=args.leave_out)
    val_synth = load_synth(args.synth_val) if args.synth_val.exists() else None
    # Each batch holds --real-share real crops, whatever the counts.
    share = args.real_share
    draw = train["draw"]
    weights = np.where(
        train["real"], share * draw / max(draw[train["real"]].sum(), 1), (1 - share) * draw / max(draw[~train["real"]].sum(), 1)
    )
    if args.real_only or args.synth_only:
        weights = draw.copy()
    weights /= weights.sum()
    print(f"train: {len(train['crops'])} crops ({int(train['real'].sum())} real), {args.steps} steps of {args.batch}")

    model = Reader(args.width, args.stem_stride, args.step_at)
    if args.init and args.init.suffix == ".onnx":
        sample = rng.choice(len(train["crops"]), 512, replace=False)
        narrow, *stem = onnx_reader_design(args.init)
        if narrow > args.width:
            raise SystemExit(f"{args.init} is {narrow} wide, wider than --width {args.width}")
        if stem != [args.stem_stride, args.step_at]:
            raise SystemExit(f"{args.init}'s stem is not that of --stem-stride {args.stem_stride} --step-at {args.step_at}")
        model = Reader(narrow, *stem)
        init_from_onnx(model, args.init, augment({k: v[sample] for k, v in train.items()}, rng)[0])
        if narrow < args.width:
            model = widened(model, args.width, rng)
    elif args.init:
        model.load_state_dict(torch.load(args.init, map_location="cpu"))
    model = model.to(args.device)
    if args.bf16:
        model = model.to(memory_format=torch.channels_last)
    teacher = None
    if args.teacher:
        # Crops for its batch norms, which hand on its convolutions' outputs whatever they
        # are, drawn apart (numpy's and torch's generators) so that the batches are those of
        # a run without a teacher.
        teacher = Reader(*onnx_reader_design(args.teacher))
        apart = np.random.default_rng(args.seed)
        sample = apart.choice(len(train["crops"]), 512, replace=False)
        with torch.random.fork_rng(devices=[]):
            init_from_onnx(teacher, args.teacher, augment({k: v[sample] for k, v in train.items()}, apart)[0])
        teacher = teacher.to(args.device).eval()
        if args.bf16:
            teacher = teacher.to(memory_format=torch.channels_last)
    optimiser = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    history, best = [], -1.0
    started, total, since_eval = time.time(), 0.0, 0
    for step, (x, labels) in enumerate(batches(train, weights, args, rng), start=1):
        # How far the run is: by steps, or by the clock when --minutes ends it sooner.
        progress = (step - 1) / args.steps
        if args.minutes:
            progress = max(progress, (time.time() - started) / (60 * args.minutes))
        last = progress >= 1 - 1 / args.steps or step == args.steps
        set_one_cycle(optimiser, min(progress, 1.0), args.lr)
        x = x.to(args.device, non_blocking=True)
        labels = {k: v.to(args.device, non_blocking=True) for k, v in labels.items()}
        logits = forward(model, x, args.bf16)
        loss = losses(logits, labels, args.unsure_covered)
        if teacher is not None:
            with torch.no_grad():
                taught = forward(teacher, x, args.bf16)
            loss = loss + args.distill * distill_loss(logits, taught, labels)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        total += float(loss.detach())
        since_eval += 1
        if step % args.eval_every and not last:
            continue
        figures = {"step": step, "loss": total / since_eval, "real_val": evaluate(model, val_real)}
        figures["real_val_finder"] = evaluate(model, val_real, finder=True)
        if val_synth is not None:
            figures["synth_val"] = evaluate(model, val_synth)
            figures["synth_val_finder"] = evaluate(model, val_synth, finder=True)
        figures["minutes"] = round((time.time() - started) / 60, 1)
        total, since_eval = 0.0, 0
        history.append(figures)
        print(json.dumps(figures), flush=True)
        # Trained on rendered crops alone, the real validation crops are the measure of the
        # realism gap, so they must not choose the weights.
        chosen_on = ("synth_val", "synth_val_finder") if args.synth_only else ("real_val_finder", "synth_val", "synth_val_finder")
        score = sum(sum(figures.get(k, {}).values()) for k in chosen_on)
        if score >= best:
            # Written at once, so a run stopped early still leaves its best weights.
            best = score
            save(model.state_dict(), args)
        args.out.with_name(args.out.stem + "-train.json").write_text(
            json.dumps({"args": {k: str(v) for k, v in vars(args).items()}, "history": history}, indent=1)
        )
        if last:
            break

    print(f"wrote {args.out}")


class Batches(torch.utils.data.IterableDataset):
    """Augmented training batches without end, drawn by a worker process with a generator
    of its own (seeded by the run's seed and the worker's number)."""

    def __init__(self, train: dict[str, np.ndarray], weights: np.ndarray, args: argparse.Namespace):
        self.train, self.weights, self.args = train, weights, args

    def __iter__(self):
        torch.set_num_threads(1)
        worker = torch.utils.data.get_worker_info()
        rng = np.random.default_rng([self.args.seed, worker.id if worker else 0])
        return draw_batches(self.train, self.weights, self.args, rng)


def draw_batches(train: dict[str, np.ndarray], weights: np.ndarray, args: argparse.Namespace, rng: np.random.Generator):
    while True:
        pick = rng.choice(len(weights), args.batch, p=weights)
        yield augment(
            {k: v[pick] for k, v in train.items()},
            rng,
            args.small_share,
            tuple(args.small_sizes),
            args.jpeg_share,
            args.upright_tilt,
            args.polarity_share,
            args.swirl_share,
            args.mix_share,
            args.tint_share,
            args.hue_share,
        )


def batches(train: dict[str, np.ndarray], weights: np.ndarray, args: argparse.Namespace, rng: np.random.Generator):
    """The training batches: drawn here from `rng` without --workers (as every run before
    them), else by that many worker processes while the model trains (a GPU outruns one
    process's augmentation)."""
    if args.workers == 0:
        return draw_batches(train, weights, args, rng)
    loader = torch.utils.data.DataLoader(
        Batches(train, weights, args), batch_size=None, num_workers=args.workers, pin_memory=args.device != "cpu", prefetch_factor=4
    )
    return iter(loader)


def save(state: dict[str, torch.Tensor], args: argparse.Namespace) -> None:
    """The weights (.pt) and the exported model (.onnx)."""
    state = {k: v.detach().cpu() for k, v in state.items()}
    torch.save(state, args.out.with_suffix(".pt"))
    model = Reader(args.width, args.stem_stride, args.step_at)
    model.load_state_dict(state)
    model.eval()
    export(model, args.out)


def export(model: torch.nn.Module, path: Path) -> None:
    model = fold_batch_norms(model)
    dummy = torch.rand(4, 3, READER_PX, READER_PX)
    torch.onnx.export(
        model,
        dummy,
        str(path),
        input_names=["crops"],
        output_names=["logits"],
        dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )


if __name__ == "__main__":
    main()
