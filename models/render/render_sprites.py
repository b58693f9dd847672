"""Renders the sprites of the synthetic table with Mitsuba 3: translucent dice and meeples.

Each sprite is one object on the ground, seen from far away (almost orthographic) from a
random direction (elevation 28-90 degrees, any azimuth), lit by a lamp of random size, height
and bearing and a sky of random strength. Dice vary as real dice do: clear, frosted, marbled
(swirls of cloudy plastic inside) and milky translucent plastic; edge radii of 1.0 to 3.4 mm;
white or off-white pips (dark or coloured in a share of them, as other sets in the game's
colours have), painted on or engraved; some sets with an emblem for the six (read as 6); some
dice resting tilted (against another die, on a meeple's foot). Besides the game's four colours,
"other" dice of other games: translucent in other colours (smoky greys among them) with white,
dark or coloured pips, and opaque, light with dark pips, saturated with dark pips, dark with
light or coloured pips, or marbled (two colours swirled, or a colour and the pips' paint).
Meeples stand or lie on their back. Every view is rendered three times:
on a black ground, on a white ground, and the white ground alone. From those the script keeps
two images per sprite, so that the Rust compositor can put the object on any background:

    foreground F = render on black / white level          (light the object sends out)
    transmission T = (render on white - render on black) / white ground alone

and a pixel over background B is then F + T * B, channel by channel: a translucent die tints
and lets through the mat below it, and the lamp's soft shadow falls where T < 1.

Output (one call writes all of it, reproducibly from --seed):
    <out>/dice.png, <out>/meeples.png   atlases, one cell per sprite: F above T, sRGB
    <out>/sprites.json                  what each cell shows, its anchor, scale and die box

Run: scripts/setup-render, then
    .venv-render/bin/python models/render/render_sprites.py --out synth/sprites
(the defaults make 520 sprites at 128 px and 64 samples; a translucent die takes 3-10 s on one core).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

import mitsuba as mi

mi.set_variant("llvm_ad_rgb")

DIE_MM = 16.0
CORNER_RADII_MM = (1.0, 1.8, 2.6, 3.4)
PIP_RADIUS_MM = (1.3, 1.8)
PIP_OFFSET_MM = (3.9, 4.6)
# Seen across, a sprite shows this many millimetres of the ground at the object.
VIEW_MM = 34.0

# Linear-RGB tints of the four dice (transmittance per interface) and the meeple paints.
DIE_TINTS = {
    "pink": (0.98, 0.42, 0.68),
    "purple": (0.58, 0.32, 0.92),
    "yellow": (1.0, 0.86, 0.22),
    "blue": (0.26, 0.52, 1.0),
}
# Dice of other games: translucent tints (linear RGB) and opaque bodies with their pips.
# Smoky greys among them (sprites v4): real sets in smoke with red or gold pips are common.
OTHER_TINTS = [
    (0.95, 0.2, 0.15),
    (0.3, 0.9, 0.35),
    (1.0, 0.55, 0.12),
    (0.2, 0.85, 0.85),
    (0.9, 0.9, 0.92),
    (0.4, 0.4, 0.42),
    (0.2, 0.2, 0.22),
    (0.65, 0.95, 0.2),
]
# The first six are light with dark pips, the most common dice of all (the real datasets'
# white dice with black pips among them); the rest dark with light pips, then (v4) saturated
# with dark pips and black with coloured pips.
OTHER_OPAQUE = [
    ((0.8, 0.8, 0.78), (0.02, 0.02, 0.02)),
    ((0.85, 0.84, 0.8), (0.03, 0.03, 0.03)),
    ((0.7, 0.7, 0.7), (0.02, 0.02, 0.025)),
    ((0.85, 0.75, 0.5), (0.02, 0.02, 0.02)),
    ((0.82, 0.8, 0.62), (0.25, 0.03, 0.02)),
    ((0.75, 0.62, 0.68), (0.02, 0.02, 0.06)),
    ((0.02, 0.02, 0.025), (0.85, 0.85, 0.85)),
    ((0.55, 0.03, 0.03), (0.85, 0.85, 0.8)),
    ((0.03, 0.12, 0.45), (0.85, 0.85, 0.8)),
    ((0.05, 0.3, 0.08), (0.85, 0.85, 0.8)),
    ((0.6, 0.35, 0.02), (0.85, 0.85, 0.8)),
    ((0.02, 0.25, 0.25), (0.85, 0.8, 0.55)),
    # Sprites v4: saturated bodies with dark pips (none in the game's four colours, which an
    # opaque die would teach to call "other"), and black bodies with coloured pips.
    ((0.85, 0.35, 0.02), (0.02, 0.02, 0.02)),
    ((0.62, 0.04, 0.03), (0.02, 0.02, 0.02)),
    ((0.3, 0.65, 0.15), (0.02, 0.02, 0.02)),
    ((0.05, 0.55, 0.5), (0.02, 0.02, 0.02)),
    ((0.5, 0.75, 0.1), (0.02, 0.02, 0.05)),
    ((0.9, 0.5, 0.3), (0.02, 0.02, 0.02)),
    ((0.02, 0.02, 0.025), (0.9, 0.7, 0.05)),
    ((0.02, 0.02, 0.025), (0.9, 0.3, 0.25)),
]
# Sprites v5: opaque marbled dice, two colours swirled through the plastic, with pips of a
# third (the leave-out reader's misses on byler-d6: black and grey, black and blue with red
# pips, teal and green with yellow pips, brown and tan, yellow and orange with black pips).
OTHER_MARBLED = [
    ((0.02, 0.02, 0.025), (0.3, 0.3, 0.3), (0.6, 0.03, 0.02)),
    ((0.02, 0.02, 0.03), (0.05, 0.2, 0.6), (0.6, 0.03, 0.02)),
    ((0.03, 0.03, 0.03), (0.35, 0.02, 0.02), (0.85, 0.85, 0.8)),
    ((0.02, 0.3, 0.28), (0.1, 0.45, 0.08), (0.9, 0.7, 0.05)),
    ((0.25, 0.12, 0.04), (0.6, 0.42, 0.2), (0.02, 0.02, 0.02)),
    ((0.25, 0.12, 0.04), (0.55, 0.45, 0.35), (0.85, 0.85, 0.8)),
    ((0.9, 0.75, 0.05), (0.85, 0.25, 0.02), (0.02, 0.02, 0.02)),
    ((0.06, 0.02, 0.1), (0.02, 0.02, 0.02), (0.9, 0.7, 0.05)),
    ((0.1, 0.3, 0.75), (0.85, 0.85, 0.85), (0.6, 0.03, 0.02)),
    ((0.7, 0.05, 0.05), (0.85, 0.85, 0.8), (0.02, 0.02, 0.02)),
]
PIP_PAINTS = {"white": (0.85, 0.85, 0.85), "off-white": (0.8, 0.74, 0.58)}
# Pips of translucent dice of other games: a third white or off-white, a third dark (black,
# navy, dark red), a third coloured (red, gold, green, blue; sprites v4).
DARK_PIPS = [(0.02, 0.02, 0.02), (0.02, 0.03, 0.12), (0.2, 0.02, 0.02)]
COLOURED_PIPS = [(0.7, 0.03, 0.02), (0.9, 0.7, 0.05), (0.02, 0.3, 0.05), (0.05, 0.15, 0.6)]
# Sprites v6: dice in the game's colours from other sets (blue marbled with red pips, yellow
# with black ones): a share of them takes dark or coloured pips, none of the body's own hue.
GAME_PAINTED_SHARE = 0.3
NEAR_PIPS = {
    "pink": [(0.7, 0.03, 0.02), (0.2, 0.02, 0.02)],
    "purple": [(0.02, 0.03, 0.12), (0.05, 0.15, 0.6)],
    "yellow": [(0.9, 0.7, 0.05)],
    "blue": [(0.02, 0.03, 0.12), (0.05, 0.15, 0.6)],
}
# Sprites v6: a third of marbled dice swirl in their pips' paint (smoke with red swirls and
# red pips, black and red with red pips), so that a streak of the pips' colour is not a pip.
SWIRL_IN_PIPS_SHARE = 1 / 3
# Plastic of translucent dice, with their weights: clear, frosted (rough surface), marbled
# (swirls of cloudy plastic inside), milky (evenly cloudy).
MATERIALS = {"clear": 0.4, "frosted": 0.2, "marbled": 0.25, "milky": 0.15}
MEEPLE_PAINTS = {
    "blue": (0.04, 0.12, 0.55),
    "green": (0.05, 0.36, 0.09),
    "red": (0.62, 0.04, 0.03),
    "yellow": (0.85, 0.62, 0.05),
}

# Face values of the die: +z 1, -z 6, +x 2, -x 5, +y 3, -y 4 (opposite faces sum to seven).
FACES = {
    1: np.array([0, 0, 1.0]),
    6: np.array([0, 0, -1.0]),
    2: np.array([1.0, 0, 0]),
    5: np.array([-1.0, 0, 0]),
    3: np.array([0, 1.0, 0]),
    4: np.array([0, -1.0, 0]),
}
PIPS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
}


def write_ply(path: Path, vertices: np.ndarray, faces: np.ndarray) -> None:
    """A binary little-endian PLY mesh."""
    header = (
        "ply\nformat binary_little_endian 1.0\n"
        f"element vertex {len(vertices)}\nproperty float x\nproperty float y\nproperty float z\n"
        f"element face {len(faces)}\nproperty list uchar int vertex_indices\nend_header\n"
    )
    with open(path, "wb") as f:
        f.write(header.encode())
        f.write(vertices.astype("<f4").tobytes())
        rows = np.zeros(len(faces), dtype=[("n", "u1"), ("i", "<i4", 3)])
        rows["n"] = 3
        rows["i"] = faces
        f.write(rows.tobytes())


def rounded_cube(size: float, radius: float, steps: int = 16) -> tuple[np.ndarray, np.ndarray]:
    """A cube with rounded edges and corners, centred on the origin, as triangles."""
    half = size / 2
    inner = half - radius
    vertices, faces = [], []
    grid = np.linspace(-1, 1, steps + 1)
    for axis in range(3):
        for sign in (-1.0, 1.0):
            base = len(vertices)
            for a in grid:
                for b in grid:
                    p = np.zeros(3)
                    p[axis] = sign
                    p[(axis + 1) % 3] = a
                    p[(axis + 2) % 3] = b
                    p = p * half
                    core = np.clip(p, -inner, inner)
                    offset = p - core
                    vertices.append(core + radius * offset / np.linalg.norm(offset))
            n = steps + 1
            for i in range(steps):
                for j in range(steps):
                    v0, v1 = base + i * n + j, base + (i + 1) * n + j
                    v2, v3 = v1 + 1, v0 + 1
                    tri = [(v0, v1, v2), (v0, v2, v3)]
                    if sign < 0:
                        tri = [(a, c, b) for a, b, c in tri]
                    faces.extend(tri)
    return np.array(vertices), np.array(faces)


def extrude(outline: np.ndarray, centre: np.ndarray, depth: float) -> tuple[np.ndarray, np.ndarray]:
    """A prism from a polygon that is star-shaped about `centre`, in the x-z plane, y from
    -depth/2 to +depth/2."""
    n = len(outline)
    vertices = []
    for y in (-depth / 2, depth / 2):
        vertices.append([centre[0], y, centre[1]])
        vertices.extend([[x, y, z] for x, z in outline])
    vertices = np.array(vertices)
    back, front = 0, n + 1
    faces = []
    for i in range(n):
        j = (i + 1) % n
        faces.append((front, front + 1 + i, front + 1 + j))
        faces.append((back, back + 1 + j, back + 1 + i))
        a, b = back + 1 + i, back + 1 + j
        c, d = front + 1 + j, front + 1 + i
        faces.extend([(a, b, c), (a, c, d)])
    return vertices, np.array(faces)


def meeple_outline(height: float) -> np.ndarray:
    """The classic meeple silhouette, feet on z = 0, counter-clockwise."""
    s = height / 16.0
    points = [
        (-8.0, 0.0), (-4.2, 0.0), (0.0, 4.2), (4.2, 0.0), (8.0, 0.0), (5.0, 6.5), (8.3, 8.8),
        (8.0, 10.2), (3.4, 10.6),
    ]
    head = [(3.4 * math.cos(t), 13.0 + 3.0 * math.sin(t)) for t in np.linspace(-0.25, math.pi + 0.25, 12)]
    left = [(-x, z) for x, z in reversed(points[5:9])]
    outline = points[:5] + points[5:9] + head[1:-1] + left
    return np.array([(x * s, z * s) for x, z in outline])[::-1]


def star_outline(radius: float) -> np.ndarray:
    points = []
    for k in range(10):
        r = radius if k % 2 == 0 else radius * 0.42
        t = math.pi / 2 + k * math.pi / 5
        points.append((r * math.cos(t), r * math.sin(t)))
    return np.array(points)[::-1]


def rotation_to_top(value: int, yaw: float) -> np.ndarray:
    """The rotation that turns face `value` up, then turns the die by `yaw` about the vertical."""
    up = FACES[value]
    target = np.array([0, 0, 1.0])
    axis = np.cross(up, target)
    if np.linalg.norm(axis) < 1e-9:
        r = np.eye(3) if up[2] > 0 else np.diag([1.0, -1.0, -1.0])
    else:
        axis = axis / np.linalg.norm(axis)
        angle = math.acos(np.clip(np.dot(up, target), -1, 1))
        k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
        r = np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * k @ k
    c, s = math.cos(yaw), math.sin(yaw)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]]) @ r


def matrix4(rotation: np.ndarray, translation) -> mi.ScalarTransform4f:
    m = np.eye(4)
    m[:3, :3] = rotation
    m[:3, 3] = translation
    return mi.ScalarTransform4f(m.tolist())


def blur(image: np.ndarray, radius: int) -> np.ndarray:
    """A box blur of an H x W x C image, the edges repeated."""
    for axis in (0, 1):
        padded = np.concatenate(
            [np.repeat(image.take([0], axis), radius + 1, axis), image, np.repeat(image.take([-1], axis), radius, axis)], axis
        )
        sums = np.cumsum(padded, axis)
        n = image.shape[axis]
        image = (sums.take(range(2 * radius + 1, 2 * radius + 1 + n), axis) - sums.take(range(0, n), axis)) / (2 * radius + 1)
    return image


def flat_polygon(outline: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A flat fan of triangles from a polygon star-shaped about the origin, in the x-y plane."""
    vertices = np.vstack([[0.0, 0.0, 0.0], np.column_stack([outline, np.zeros(len(outline))])])
    n = len(outline)
    faces = np.array([(0, 1 + i, 1 + (i + 1) % n) for i in range(n)])
    return vertices, faces


def tilt_rotation(axis_deg: float, angle_deg: float) -> np.ndarray:
    """A turn by `angle_deg` about the horizontal axis at bearing `axis_deg`."""
    a = math.radians(axis_deg)
    axis = np.array([math.cos(a), math.sin(a), 0.0])
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    t = math.radians(angle_deg)
    return np.eye(3) + math.sin(t) * k + (1 - math.cos(t)) * k @ k


def swirl_grid(rng: np.random.Generator, n: int = 24) -> np.ndarray:
    """Density of marbled plastic in the die's cube: thin sheets of cloudy plastic, folded."""
    x, y, z = np.meshgrid(*(np.linspace(0, 1, n),) * 3, indexing="ij")
    warp = sum(
        rng.uniform(0.2, 0.5) * np.sin(2 * math.pi * (f * (a * x + b * y + c * z)) + rng.uniform(0, 2 * math.pi))
        for f, (a, b, c) in ((rng.uniform(0.8, 2.0), rng.normal(size=3)) for _ in range(3))
    )
    direction = rng.normal(size=3)
    direction /= np.linalg.norm(direction)
    bands = np.sin(2 * math.pi * (rng.uniform(1.5, 3.5) * (direction[0] * x + direction[1] * y + direction[2] * z) + warp))
    density = np.clip((bands - rng.uniform(0.2, 0.6)) * 2.5, 0.0, 1.0) ** 2
    return density.transpose(2, 1, 0)[..., None].astype(np.float32)  # z, y, x, channel


class Sprites:
    def __init__(self, size_px: int, spp: int, tmp: Path):
        self.size = size_px
        self.spp = spp
        self.tmp = tmp
        self.cube_vertices = {}
        for radius in CORNER_RADII_MM:
            v, f = rounded_cube(DIE_MM, radius)
            write_ply(tmp / f"die-{radius}.ply", v, f)
            self.cube_vertices[radius] = v
        for rank, height in (("apprentice", 16.0), ("master", 20.0)):
            outline = meeple_outline(height)
            v, f = extrude(outline, np.array([0.0, height * 0.45]), 8.0)
            write_ply(tmp / f"meeple-{rank}.ply", v, f)
        v, f = extrude(star_outline(3.6), np.array([0.0, 0.0]), 8.6)
        write_ply(tmp / "star.ply", v, f)
        v, f = flat_polygon(star_outline(5.6)[:, ::-1] * [1, -1])
        write_ply(tmp / "emblem.ply", v, f)

    def camera(self, elevation_deg: float, distance: float, fov: float, look_at_z: float):
        e = math.radians(elevation_deg)
        origin = [0.0, -distance * math.cos(e), distance * math.sin(e) + look_at_z]
        up = [0, 0, 1] if elevation_deg < 89 else [0, 1, 0]
        return origin, {
            "type": "perspective",
            "fov": fov,
            "fov_axis": "x",
            "to_world": mi.ScalarTransform4f().look_at(origin=origin, target=[0, 0, look_at_z], up=up),
            "film": {
                "type": "hdrfilm",
                "width": self.size,
                "height": self.size,
                "rfilter": {"type": "gaussian"},
                "pixel_format": "rgb",
            },
            "sampler": {"type": "independent", "sample_count": self.spp},
        }

    @staticmethod
    def light(rng: np.random.Generator) -> dict:
        """A lamp of random size, height and bearing, and a sky of random strength. The lamp
        stays high enough (60 degrees and up) for the shadow to end inside the sprite."""
        bearing, height = rng.uniform(0, 2 * math.pi), math.radians(rng.uniform(60, 88))
        half_side = rng.uniform(120, 400)
        position = 900 * np.array([math.cos(bearing) * math.cos(height), math.sin(bearing) * math.cos(height), math.sin(height)])
        radiance = 6.0 * (240 / half_side) ** 2 * rng.uniform(0.7, 1.3)
        return {
            "sky": {"type": "constant", "radiance": {"type": "rgb", "value": rng.uniform(0.12, 0.38)}},
            "lamp": {
                "type": "rectangle",
                "to_world": mi.ScalarTransform4f().look_at(origin=position.tolist(), target=[0, 0, 0], up=[0, 0, 1]).scale(half_side),
                "emitter": {"type": "area", "radiance": {"type": "rgb", "value": radiance}},
            },
        }

    def scene(self, camera: dict, light: dict, ground: float, objects: dict) -> dict:
        scene = {
            "type": "scene",
            "integrator": self.integrator(objects),
            "sensor": camera,
            "ground": {
                "type": "rectangle",
                "to_world": mi.ScalarTransform4f().scale(400),
                "bsdf": {"type": "diffuse", "reflectance": {"type": "rgb", "value": ground}},
            },
        }
        scene.update(light)
        scene.update(objects)
        return scene

    @staticmethod
    def integrator(objects: dict) -> dict:
        """Path tracing; with volumes inside a die, fewer bounces (light scattered many times
        inside cloudy plastic adds a glow that converges slowly and costs the most)."""
        if any("interior" in o for o in objects.values()):
            return {"type": "volpath", "max_depth": 7}
        return {"type": "path", "max_depth": 12}

    def render(self, camera: dict, light: dict, objects: dict) -> tuple[np.ndarray, np.ndarray]:
        """F and T of one view (float, linear RGB)."""
        images = []
        # The ground alone only gives the white level: few samples do.
        spp = self.spp
        for ground, objs, spp in ((0.0, objects, spp), (1.0, objects, spp), (1.0, {}, 8)):
            scene = mi.load_dict(self.scene(camera, light, ground, objs))
            images.append(np.array(mi.render(scene, spp=spp), dtype=np.float64)[..., :3])
        black, white, alone = images
        # The bare ground is lit smoothly: its blur is its light without the render's noise.
        alone = blur(alone, 9)
        white_level = float(np.median(alone))
        foreground = black / white_level
        transmission = np.clip((white - black) / np.maximum(alone, 1e-4), 0.0, 1.0)
        # Whatever shadow reaches the sprite's border fades out before it, never cut.
        ramp = np.clip(np.minimum(np.arange(self.size), np.arange(self.size)[::-1]) / 8.0, 0.0, 1.0)
        edge = np.minimum(ramp[:, None], ramp[None, :])[..., None]
        return foreground, 1.0 - (1.0 - transmission) * edge

    def die_objects(self, look: dict, rotation: np.ndarray, centre: np.ndarray, rng: np.random.Generator) -> dict:
        """A die of `look` (body, pips), turned by `rotation` about its centre at `centre`."""
        to_world = matrix4(rotation, centre)
        grid_to_world = to_world @ mi.ScalarTransform4f().translate([-DIE_MM / 2] * 3).scale(DIE_MM)
        if look["body"] == "opaque":
            alpha = float(rng.uniform(0.1, 0.3))
            bsdf = {"type": "roughplastic", "alpha": alpha, "diffuse_reflectance": {"type": "rgb", "value": list(look["color"])}}
            if "veins" in look:
                # Marbled: folded sheets of the second colour through the plastic.
                veins = {"type": "roughplastic", "alpha": alpha, "diffuse_reflectance": {"type": "rgb", "value": list(look["veins"])}}
                grid = mi.VolumeGrid(swirl_grid(rng) ** look["vein_power"])
                share = {"type": "volume", "volume": {"type": "gridvolume", "grid": grid, "to_world": grid_to_world}}
                bsdf = {"type": "blendbsdf", "weight": share, "bsdf_0": bsdf, "bsdf_1": veins}
        else:
            bsdf = {
                "type": "roughdielectric",
                "int_ior": 1.49,
                "alpha": float(rng.uniform(0.15, 0.35) if look["body"] == "frosted" else rng.uniform(0.01, 0.06)),
                "specular_transmittance": {"type": "rgb", "value": list(look["color"])},
            }
        die = {"type": "ply", "filename": str(self.tmp / f"die-{look['corner_mm']}.ply"), "to_world": to_world, "bsdf": bsdf}
        if look["body"] in ("marbled", "milky"):
            cloud = list(look["cloud"])
            if look["body"] == "marbled":
                sigma_t = {"type": "gridvolume", "grid": mi.VolumeGrid(swirl_grid(rng)), "to_world": grid_to_world}
                scale = float(rng.uniform(0.15, 0.45))
            else:
                sigma_t, scale = 1.0, float(rng.uniform(0.03, 0.12))
            die["interior"] = {
                "type": "heterogeneous" if look["body"] == "marbled" else "homogeneous",
                "albedo": {"type": "rgb", "value": cloud},
                "sigma_t": sigma_t,
                "scale": scale,
            }
        objects = {"die": die}
        half = DIE_MM / 2
        pip_bsdf = {"type": "diffuse", "reflectance": {"type": "rgb", "value": list(look["pips"])}}
        # Engraved pips are paint in hollows: a little smaller, in the dark rim of the hollow.
        radius = look["pip_mm"] * (0.88 if look["engraved"] else 1.0)
        rim_bsdf = {"type": "diffuse", "reflectance": {"type": "rgb", "value": [0.15 * c for c in look["pips"]]}}
        for face, normal in FACES.items():
            # Two axes across the face, then the pips in the die's own frame.
            a = np.roll(np.abs(normal), 1)
            b = np.cross(normal, a)
            n = rotation @ normal
            z = n / np.linalg.norm(n)
            x = np.cross([0.3, 0.5, 0.81], z)
            x /= np.linalg.norm(x)
            y = np.cross(z, x)
            if face == 6 and look["emblem"]:
                # The emblem lies square on the face: its axes are the face's own.
                frame = np.column_stack([rotation @ a, rotation @ b, z])
                objects["emblem"] = {
                    "type": "ply",
                    "filename": str(self.tmp / "emblem.ply"),
                    "to_world": matrix4(frame, rotation @ (normal * (half + 0.04)) + centre),
                    "bsdf": {"type": "twosided", "bsdf": pip_bsdf},
                }
                continue
            for k, (i, j) in enumerate(PIPS[face]):
                across = (a * i + b * j) * look["pip_offset_mm"]
                frame = np.column_stack([x * radius, y * radius, z])
                at = rotation @ (normal * (half + 0.04) + across) + centre
                objects[f"pip-{face}-{k}"] = {"type": "disk", "to_world": matrix4(frame, at), "bsdf": pip_bsdf}
                if look["engraved"]:
                    ring = np.column_stack([x * radius * 1.25, y * radius * 1.25, z])
                    at = rotation @ (normal * (half + 0.02) + across) + centre
                    objects[f"rim-{face}-{k}"] = {"type": "disk", "to_world": matrix4(ring, at), "bsdf": rim_bsdf}
        return objects

    def meeple_objects(self, paint, rank: str, yaw: float, lying: bool) -> dict:
        c, s = math.cos(yaw), math.sin(yaw)
        rotation = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])
        offset = np.zeros(3)
        if lying:
            # On its back: height along +y, the 8 mm thickness up; centred where it lies.
            height = 16.0 if rank == "apprentice" else 20.0
            rotation = rotation @ np.array([[1.0, 0, 0], [0, 0, -1.0], [0, 1.0, 0]])
            offset = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]]) @ np.array([0.0, height / 2, 4.0])
        objects = {
            "meeple": {
                "type": "ply",
                "filename": str(self.tmp / f"meeple-{rank}.ply"),
                "to_world": matrix4(rotation, offset),
                "bsdf": {
                    "type": "roughplastic",
                    "alpha": 0.35,
                    "diffuse_reflectance": {"type": "rgb", "value": list(paint)},
                },
            }
        }
        if rank == "master":
            objects["star"] = {
                "type": "ply",
                "filename": str(self.tmp / "star.ply"),
                "to_world": matrix4(rotation, rotation @ np.array([0, 0, 20.0 * 0.52]) + offset),
                "bsdf": {"type": "diffuse", "reflectance": {"type": "rgb", "value": [0.9, 0.8, 0.45]}},
            }
        return objects


KINDS = ("dice", "other", "meeples")
# The kinds each atlas holds.
ATLAS_KINDS = {"dice": {"dice", "other"}, "meeples": {"meeples"}}


def kind_of(atlas: str, color: str) -> str:
    """The kind of a sprite of `atlas` and `color`, as --kinds names it."""
    return "other" if atlas == "dice" and color == "other" else atlas


def die_look(color: str, rng: np.random.Generator) -> dict:
    """How one die looks: its plastic, edges and pips. Game dice are translucent; "other" dice
    are translucent in other colours or opaque."""
    look = {
        "corner_mm": float(rng.choice(CORNER_RADII_MM)),
        "pip_mm": float(rng.uniform(*PIP_RADIUS_MM)),
        "pip_offset_mm": float(rng.uniform(*PIP_OFFSET_MM)),
        "engraved": bool(rng.random() < 0.4),
        "emblem": bool(rng.random() < 0.25),
    }
    pip_name = "white" if rng.random() < 0.6 else "off-white"
    look["pips"] = PIP_PAINTS[pip_name]
    if color == "other" and rng.random() < 0.5:
        if rng.random() < 0.4:
            body, veins, pips = OTHER_MARBLED[rng.integers(len(OTHER_MARBLED))]
            look["veins"] = pips if rng.random() < SWIRL_IN_PIPS_SHARE else veins
            look["vein_power"] = float(rng.uniform(0.3, 1.0))
        else:
            body, pips = OTHER_OPAQUE[rng.integers(len(OTHER_OPAQUE))]
        look.update(body="opaque", color=body, pips=pips, engraved=False)
        return look
    look["body"] = str(rng.choice(list(MATERIALS), p=list(MATERIALS.values())))
    if color != "other":
        look["color"] = DIE_TINTS[color]
        if rng.random() < GAME_PAINTED_SHARE:
            paints = [c for c in DARK_PIPS + COLOURED_PIPS if c not in NEAR_PIPS[color]]
            look["pips"] = paints[rng.integers(len(paints))]
    else:
        look["color"] = OTHER_TINTS[rng.integers(len(OTHER_TINTS))]
        paints = float(rng.random())
        if paints < 1 / 3:
            look["pips"] = DARK_PIPS[rng.integers(len(DARK_PIPS))]
        elif paints < 2 / 3:
            look["pips"] = COLOURED_PIPS[rng.integers(len(COLOURED_PIPS))]
    # Cloudy plastic, paler than the body; in a third of the marbled dice of other games, the
    # pips' paint (in the game's colours it would change the die's colour).
    swirl_in_pips = color == "other" and look["body"] == "marbled" and rng.random() < SWIRL_IN_PIPS_SHARE
    look["cloud"] = look["pips"] if swirl_in_pips else tuple(0.5 + 0.5 * c for c in look["color"])
    return look


def project(origin, target, up, fov_deg: float, size: int, point) -> tuple[float, float]:
    """The pixel (x right, y down) where Mitsuba's look-at perspective camera sees `point`."""
    forward = np.subtract(target, origin)
    forward = forward / np.linalg.norm(forward)
    left = np.cross(up, forward)
    left /= np.linalg.norm(left)
    true_up = np.cross(forward, left)
    d = np.subtract(point, origin)
    x, y, z = -np.dot(d, left), -np.dot(d, true_up), np.dot(d, forward)
    focal = size / 2 / math.tan(math.radians(fov_deg) / 2)
    return size / 2 + focal * x / z, size / 2 + focal * y / z


def to_srgb8(linear: np.ndarray) -> np.ndarray:
    x = np.clip(linear, 0.0, 1.0)
    srgb = np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(x, 1 / 2.4) - 0.055)
    return np.round(srgb * 255).astype(np.uint8)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--size", type=int, default=128, help="sprite side in pixels")
    parser.add_argument("--spp", type=int, default=64, help="samples per pixel")
    parser.add_argument("--views", type=int, default=10, help="views of each colour and value of the game's dice")
    parser.add_argument("--other-views", type=int, default=32, help="views of each value of other dice")
    parser.add_argument("--meeple-views", type=int, default=8, help="views of each meeple standing")
    parser.add_argument("--lying-views", type=int, default=3, help="views of each meeple lying")
    parser.add_argument("--tilted", type=float, default=0.25, help="share of dice resting tilted")
    parser.add_argument("--only", type=int, help="render N sprites drawn at random only (to try settings)")
    parser.add_argument(
        "--kinds",
        default=",".join(KINDS),
        help="render these only (the game's dice, other dice, meeples), keeping the other kinds'"
        " sprites already in --out; the random draws are those of a whole run, so parts rendered"
        " apart by one version of this script make the same sprites as a whole run of it",
    )
    parser.add_argument("--seed", type=int, default=2)
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    distance = 600.0
    fov = math.degrees(2 * math.atan(VIEW_MM / 2 / distance))  # near-orthographic
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.time()
    index = {"format": "tablesight-sprites", "version": 2, "size_px": args.size, "dice": [], "meeples": []}
    kinds = args.kinds.split(",")
    if not set(kinds) <= set(KINDS):
        parser.error(f"--kinds: choose among {', '.join(KINDS)}")
    kept = json.loads((args.out / "sprites.json").read_text()) if set(kinds) != set(KINDS) else None
    if kept is not None and kept["size_px"] != args.size:
        parser.error(f"--size {args.size}: the sprites kept in {args.out} are of {kept['size_px']} px")
    # The atlases written anew: those holding a kind rendered.
    written = {atlas for atlas, held in ATLAS_KINDS.items() if held & set(kinds)}
    cells = {atlas: [] for atlas in ATLAS_KINDS}
    for atlas in ATLAS_KINDS.keys() - written:
        index[atlas] = kept[atlas]
    for atlas in written & kept.keys() if kept is not None else ():
        # The kept sprites of an atlas written anew come first, cut from the atlas there.
        image = np.asarray(Image.open(args.out / f"{atlas}.png").convert("RGB"))
        for entry in kept[atlas]:
            if kind_of(atlas, entry["color"]) in kinds:
                continue
            r, c = divmod(entry["cell"], kept["columns"])
            cells[atlas].append(image[r * 2 * args.size:(r + 1) * 2 * args.size, c * args.size:(c + 1) * args.size])
            index[atlas].append({**entry, "cell": len(cells[atlas]) - 1})
    elevation = lambda: float(rng.uniform(28.0, 90.0))  # noqa: E731
    with tempfile.TemporaryDirectory() as tmp:
        sprites = Sprites(args.size, args.spp, Path(tmp))
        jobs = []
        for color in [*DIE_TINTS, "other"]:
            for value in range(1, 7):
                for _ in range(args.views if color != "other" else args.other_views):
                    jobs.append(("dice", color, value, elevation(), rng.uniform(0, 2 * math.pi), False))
        for color in MEEPLE_PAINTS:
            for rank in ("apprentice", "master"):
                for lying in [False] * args.meeple_views + [True] * args.lying_views:
                    jobs.append(("meeples", color, rank, elevation(), rng.uniform(0, 2 * math.pi), lying))
        if args.only:
            jobs = [jobs[i] for i in rng.choice(len(jobs), args.only, replace=False)]
        for n, (kind, color, what, elevation_deg, yaw, lying) in enumerate(jobs):
            light = sprites.light(rng)
            entry = {"color": color, "elevation_deg": round(elevation_deg, 2), "yaw_deg": round(math.degrees(yaw), 2)}
            if kind == "dice":
                look = die_look(color, rng)
                rotation = rotation_to_top(what, yaw)
                tilt = 0.0
                if rng.random() < args.tilted:
                    tilt = float(rng.uniform(6.0, 28.0))
                    rotation = tilt_rotation(rng.uniform(0, 360), tilt) @ rotation
                # Resting on its lowest point.
                centre = np.array([0.0, 0.0, -float((sprites.cube_vertices[look["corner_mm"]] @ rotation.T)[:, 2].min())])
                look_z = float(centre[2])
                objects = sprites.die_objects(look, rotation, centre, rng)
                entry.update(
                    value=what,
                    body=look["body"],
                    opaque=look["body"] == "opaque",
                    corner_mm=look["corner_mm"],
                    pips="engraved" if look["engraved"] else "painted",
                    emblem=look["emblem"] and what == 6,
                    tilt_deg=round(tilt, 1),
                )
            else:
                look_z = 4.0 if lying else 9.0
                objects = sprites.meeple_objects(MEEPLE_PAINTS[color], what, yaw, lying)
                entry.update(rank=what, pose="lying" if lying else "standing")
            if kind_of(kind, color) not in kinds:
                continue
            origin, camera = sprites.camera(elevation_deg, distance, fov, look_z)
            foreground, transmission = sprites.render(camera, light, objects)
            up = [0, 0, 1] if elevation_deg < 89 else [0, 1, 0]
            target = [0, 0, look_z]
            anchor = project(origin, target, up, fov, args.size, [0, 0, 0])
            step = project(origin, target, up, fov, args.size, [1, 0, 0])
            entry["anchor_px"] = [round(anchor[0], 3), round(anchor[1], 3)]
            entry["px_per_mm"] = round(math.dist(anchor, step), 5)
            if kind == "dice":
                corners = [
                    project(origin, target, up, fov, args.size, rotation @ np.array([sx, sy, sz]) * DIE_MM / 2 + centre)
                    for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)
                ]
                xs, ys = [c[0] for c in corners], [c[1] for c in corners]
                entry["box_px"] = [round(min(xs), 2), round(min(ys), 2), round(max(xs), 2), round(max(ys), 2)]
                # The face that shows the value, corner by corner, for checks of what it shows.
                normal = FACES[what]
                a = np.roll(np.abs(normal), 1)
                b = np.cross(normal, a)
                top = [
                    project(origin, target, up, fov, args.size, rotation @ ((normal + a * i + b * j) * DIE_MM / 2) + centre)
                    for i, j in ((-1, -1), (1, -1), (1, 1), (-1, 1))
                ]
                entry["top_face_px"] = [[round(x, 2), round(y, 2)] for x, y in top]
                entry["pip_rgb"] = [round(c, 3) for c in look["pips"]]
            entry["cell"] = len(cells[kind])
            index[kind].append(entry)
            cells[kind].append(np.concatenate([to_srgb8(foreground), to_srgb8(transmission)], axis=0))
            if n % 20 == 0:
                print(f"{n + 1}/{len(jobs)} sprites, {time.time() - started:.0f} s", flush=True)
        for kind, images in cells.items():
            if kind not in written or not images:
                continue
            columns = 16
            rows = math.ceil(len(images) / columns)
            atlas = np.zeros((rows * 2 * args.size, columns * args.size, 3), dtype=np.uint8)
            for i, image in enumerate(images):
                r, c = divmod(i, columns)
                atlas[r * 2 * args.size:(r + 1) * 2 * args.size, c * args.size:(c + 1) * args.size] = image
            Image.fromarray(atlas).save(args.out / f"{kind}.png", optimize=True)
        index["columns"] = 16
        index["seconds"] = round(time.time() - started + (kept["seconds"] if kept else 0.0), 1)
        # Parts rendered apart make the same sprites as a whole run of the same script: each
        # part says which version of the script it was.
        version = subprocess.run(
            ["git", "describe", "--always", "--dirty"], capture_output=True, text=True, cwd=Path(__file__).parent
        ).stdout.strip()
        command = f"models/render/render_sprites.py (at {version or 'an unknown commit'}) " + " ".join(
            f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items() if k != "out" and v is not None
        )
        index["command"] = command if kept is None else f"{kept['command']}; then {command}"
        (args.out / "sprites.json").write_text(json.dumps(index, indent=1) + "\n")
    print(f"{len(jobs)} sprites in {time.time() - started:.0f} s -> {args.out}")


if __name__ == "__main__":
    main()
