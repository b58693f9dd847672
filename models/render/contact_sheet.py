"""The contact sheet of the realism gap: die crops of rendered scenes beside die crops of real
photographs, cut by the same rule at the same scale (the crops.npz files of
models/training/prepare_synth.py and prepare_real.py), so anyone can see what still differs.

One row per source, the value written under each crop (a rendered die's colour too):
rendered game dice, rendered dice of other games, rendered meeples, then each real dataset
(its validation split). Rows are drawn at random with --seed, nothing chosen by hand.

Run (after prepare_real.py and prepare_synth.py):
    .venv-train/bin/python models/render/contact_sheet.py --rendered data/synth/train/crops.npz \
        --real data/real/crops.npz --out models/contact-sheet.png
"""

import argparse
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

COLUMNS = 16
CROP = 80
LABEL = 14
TITLE = 18
DIE_COLORS = ("pink", "purple", "yellow", "blue", "other")
PLAYERS = ("blue", "green", "red", "yellow")
RANKS = ("apprentice", "master")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rendered", type=Path, required=True, help="crops.npz of rendered scenes")
    parser.add_argument("--real", type=Path, required=True, help="crops.npz of the real datasets")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)

    rows = []
    rendered = np.load(args.rendered)
    die, meeple = rendered["kind"] == 0, rendered["kind"] == 1
    other = rendered["color"] == DIE_COLORS.index("other")
    shown = rendered["value"] >= 0

    def die_label(i: int) -> str:
        color = rendered["color"][i]
        return f"{rendered['value'][i] + 1} {DIE_COLORS[color] if color >= 0 else '?'}"

    rows.append(("rendered dice of the game", pick(rng, die & shown & ~other), rendered["crops"], die_label))
    rows.append(("rendered dice of other games", pick(rng, die & shown & other), rendered["crops"], die_label))
    rows.append((
        "rendered meeples",
        pick(rng, meeple),
        rendered["crops"],
        lambda i: f"{PLAYERS[rendered['player'][i]]} {RANKS[rendered['rank'][i]][0]}",
    ))
    real = np.load(args.real)
    for source in sorted(set(real["sources"].tolist())):
        keep = (real["sources"] == source) & (real["splits"] == "val") & (real["values"] > 0)
        rows.append((f"real: {source} (validation split)", pick(rng, keep), real["crops"], lambda i: str(real["values"][i])))

    height = len(rows) * (TITLE + CROP + LABEL)
    sheet = Image.new("RGB", (COLUMNS * CROP, height), (30, 30, 30))
    draw = ImageDraw.Draw(sheet)
    y = 0
    for title, picked, crops, label in rows:
        draw.text((4, y + 3), title, fill=(255, 255, 255))
        for k, i in enumerate(picked):
            sheet.paste(Image.fromarray(crops[i]).resize((CROP, CROP)), (k * CROP, y + TITLE))
            draw.text((k * CROP + 3, y + TITLE + CROP + 1), label(i), fill=(200, 200, 200))
        y += TITLE + CROP + LABEL
    sheet.save(args.out, optimize=True)
    print(f"{args.out}: {len(rows)} rows of {COLUMNS} crops")


def pick(rng: np.random.Generator, keep: np.ndarray) -> np.ndarray:
    where = np.flatnonzero(keep)
    return rng.choice(where, min(COLUMNS, len(where)), replace=False) if len(where) else where


if __name__ == "__main__":
    main()
