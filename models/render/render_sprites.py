"""Renders the sprites of the synthetic table with Mitsuba 3: translucent dice and meeples.

Each sprite is one object on the ground, seen from far away (almost orthographic) at a given
elevation, lit by a large overhead lamp and a dim sky. Every view is rendered three times:
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
"""

from __future__ import annotations

import argparse
import json
import math
import os
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

import mitsuba as mi

mi.set_variant("llvm_ad_rgb")

DIE_MM = 16.0
DIE_CORNER_MM = 2.2
PIP_RADIUS_MM = 1.55
PIP_OFFSET_MM = 4.3

# Linear-RGB tints of the four dice (transmittance per interface) and the meeple paints.
DIE_TINTS = {
    "pink": (0.98, 0.42, 0.68),
    "purple": (0.58, 0.32, 0.92),
    "yellow": (1.0, 0.86, 0.22),
    "blue": (0.26, 0.52, 1.0),
}
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


class Sprites:
    def __init__(self, size_px: int, spp: int, tmp: Path):
        self.size = size_px
        self.spp = spp
        self.tmp = tmp
        v, f = rounded_cube(DIE_MM, DIE_CORNER_MM)
        write_ply(tmp / "die.ply", v, f)
        for rank, height in (("apprentice", 16.0), ("master", 20.0)):
            outline = meeple_outline(height)
            v, f = extrude(outline, np.array([0.0, height * 0.45]), 8.0)
            write_ply(tmp / f"meeple-{rank}.ply", v, f)
        v, f = extrude(star_outline(3.6), np.array([0.0, 0.0]), 8.6)
        write_ply(tmp / "star.ply", v, f)

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

    def scene(self, camera: dict, ground: float, objects: dict) -> dict:
        scene = {
            "type": "scene",
            "integrator": {"type": "path", "max_depth": 12},
            "sensor": camera,
            "sky": {"type": "constant", "radiance": {"type": "rgb", "value": 0.25}},
            "lamp": {
                "type": "rectangle",
                "to_world": mi.ScalarTransform4f().translate([40, -70, 900]).scale(240),
                "emitter": {"type": "area", "radiance": {"type": "rgb", "value": 6.0}},
            },
            "ground": {
                "type": "rectangle",
                "to_world": mi.ScalarTransform4f().scale(400),
                "bsdf": {"type": "diffuse", "reflectance": {"type": "rgb", "value": ground}},
            },
        }
        scene.update(objects)
        return scene

    def render(self, camera: dict, objects: dict) -> tuple[np.ndarray, np.ndarray]:
        """F and T of one view (float, linear RGB)."""
        images = []
        for ground, objs in ((0.0, objects), (1.0, objects), (1.0, {})):
            scene = mi.load_dict(self.scene(camera, ground, objs))
            images.append(np.array(mi.render(scene, spp=self.spp), dtype=np.float64)[..., :3])
        black, white, alone = images
        white_level = float(np.median(alone))
        foreground = black / white_level
        transmission = (white - black) / np.maximum(alone, 1e-4)
        return foreground, np.clip(transmission, 0.0, 1.0)

    def die_objects(self, tint, value: int, yaw: float) -> dict:
        rotation = rotation_to_top(value, yaw)
        centre = np.array([0, 0, DIE_MM / 2])
        objects = {
            "die": {
                "type": "ply",
                "filename": str(self.tmp / "die.ply"),
                "to_world": matrix4(rotation, centre),
                "bsdf": {
                    "type": "roughdielectric",
                    "int_ior": 1.49,
                    "alpha": 0.04,
                    "specular_transmittance": {"type": "rgb", "value": list(tint)},
                },
            }
        }
        half = DIE_MM / 2
        for face, normal in FACES.items():
            # Two axes across the face, then the pips in the die's own frame.
            a = np.roll(np.abs(normal), 1)
            b = np.cross(normal, a)
            for k, (i, j) in enumerate(PIPS[face]):
                local = normal * (half + 0.04) + (a * i + b * j) * PIP_OFFSET_MM
                n = rotation @ normal
                p = rotation @ local + centre
                z = n / np.linalg.norm(n)
                x = np.cross([0.3, 0.5, 0.81], z)
                x /= np.linalg.norm(x)
                y = np.cross(z, x)
                frame = np.column_stack([x * PIP_RADIUS_MM, y * PIP_RADIUS_MM, z])
                objects[f"pip-{face}-{k}"] = {
                    "type": "disk",
                    "to_world": matrix4(frame, p),
                    "bsdf": {"type": "diffuse", "reflectance": {"type": "rgb", "value": 0.85}},
                }
        return objects

    def meeple_objects(self, paint, rank: str, yaw: float) -> dict:
        c, s = math.cos(yaw), math.sin(yaw)
        rotation = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])
        objects = {
            "meeple": {
                "type": "ply",
                "filename": str(self.tmp / f"meeple-{rank}.ply"),
                "to_world": matrix4(rotation, [0, 0, 0]),
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
                "to_world": matrix4(rotation, [0, 0, 20.0 * 0.52]),
                "bsdf": {"type": "diffuse", "reflectance": {"type": "rgb", "value": [0.9, 0.8, 0.45]}},
            }
        return objects


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
    parser.add_argument("--size", type=int, default=96, help="sprite side in pixels")
    parser.add_argument("--spp", type=int, default=96, help="samples per pixel")
    parser.add_argument("--elevations", default="90,62,40", help="camera elevations in degrees")
    parser.add_argument("--yaws", type=int, default=4, help="rotations of each die or meeple")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    elevations = [float(e) for e in args.elevations.split(",")]
    distance, fov = 600.0, 3.6  # about 38 mm across at the die: near-orthographic
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.time()
    index = {"format": "tablesight-sprites", "version": 1, "size_px": args.size, "dice": [], "meeples": []}
    with tempfile.TemporaryDirectory() as tmp:
        sprites = Sprites(args.size, args.spp, Path(tmp))
        jobs = []
        for color, tint in DIE_TINTS.items():
            for value in range(1, 7):
                for elevation in elevations:
                    for _ in range(args.yaws):
                        jobs.append(("dice", color, value, elevation, rng.uniform(0, 2 * math.pi), tint))
        for color, paint in MEEPLE_PAINTS.items():
            for rank in ("apprentice", "master"):
                for elevation in elevations:
                    for _ in range(args.yaws):
                        jobs.append(("meeples", color, rank, elevation, rng.uniform(0, 2 * math.pi), paint))
        cells = {"dice": [], "meeples": []}
        for n, (kind, color, what, elevation, yaw, shade) in enumerate(jobs):
            look_z = DIE_MM / 2 if kind == "dice" else 9.0
            origin, camera = sprites.camera(elevation, distance, fov, look_z)
            if kind == "dice":
                objects = sprites.die_objects(shade, what, yaw)
            else:
                objects = sprites.meeple_objects(shade, what, yaw)
            foreground, transmission = sprites.render(camera, objects)
            up = [0, 0, 1] if elevation < 89 else [0, 1, 0]
            target = [0, 0, look_z]
            anchor = project(origin, target, up, fov, args.size, [0, 0, 0])
            step = project(origin, target, up, fov, args.size, [1, 0, 0])
            entry = {
                "color": color,
                "elevation_deg": elevation,
                "yaw_deg": round(math.degrees(yaw), 2),
                "anchor_px": [round(anchor[0], 3), round(anchor[1], 3)],
                "px_per_mm": round(math.dist(anchor, step), 5),
            }
            if kind == "dice":
                rotation = rotation_to_top(what, yaw)
                corners = [
                    project(origin, target, up, fov, args.size, rotation @ np.array([sx, sy, sz]) * DIE_MM / 2 + [0, 0, DIE_MM / 2])
                    for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)
                ]
                xs, ys = [c[0] for c in corners], [c[1] for c in corners]
                entry["value"] = what
                entry["box_px"] = [round(min(xs), 2), round(min(ys), 2), round(max(xs), 2), round(max(ys), 2)]
                top = project(origin, target, up, fov, args.size, [0, 0, DIE_MM])
                entry["top_px"] = [round(top[0], 3), round(top[1], 3)]
            else:
                entry["rank"] = what
                height = 16.0 if what == "apprentice" else 20.0
                top = project(origin, target, up, fov, args.size, [0, 0, height])
                entry["top_px"] = [round(top[0], 3), round(top[1], 3)]
            entry["cell"] = len(cells[kind])
            index[kind].append(entry)
            cells[kind].append(np.concatenate([to_srgb8(foreground), to_srgb8(transmission)], axis=0))
            if n % 24 == 0:
                print(f"{n + 1}/{len(jobs)} sprites, {time.time() - started:.0f} s", flush=True)
        for kind, images in cells.items():
            columns = 16
            rows = math.ceil(len(images) / columns)
            atlas = np.zeros((rows * 2 * args.size, columns * args.size, 3), dtype=np.uint8)
            for i, image in enumerate(images):
                r, c = divmod(i, columns)
                atlas[r * 2 * args.size:(r + 1) * 2 * args.size, c * args.size:(c + 1) * args.size] = image
            Image.fromarray(atlas).save(args.out / f"{kind}.png", optimize=True)
        index["columns"] = 16
        index["seconds"] = round(time.time() - started, 1)
        index["command"] = "models/render/render_sprites.py " + " ".join(
            f"--{k} {v}" for k, v in vars(args).items() if k != "out"
        )
        (args.out / "sprites.json").write_text(json.dumps(index, indent=1) + "\n")
    print(f"{len(jobs)} sprites in {time.time() - started:.0f} s -> {args.out}")


if __name__ == "__main__":
    main()
