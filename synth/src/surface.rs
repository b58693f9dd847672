//! What flat things look like: the table under the mat (or a game box's printed lid), the
//! printed mat, the tower floor tiles, the spellbook boards and playing cards. Colours are linear reflectances.

use calibration::MatArtwork;
use rand::Rng;

use crate::linear::{Rgb, srgb, srgb_to_linear};

/// Smooth value noise in 0..1 with a period of one unit, from an integer seed.
pub fn noise(x: f64, y: f64, seed: u32) -> f32 {
    let (xi, yi) = (x.floor(), y.floor());
    let (fx, fy) = ((x - xi) as f32, (y - yi) as f32);
    let (sx, sy) = (fx * fx * (3.0 - 2.0 * fx), fy * fy * (3.0 - 2.0 * fy));
    let corner = |dx: i64, dy: i64| lattice(xi as i64 + dx, yi as i64 + dy, seed);
    let top = corner(0, 0) + (corner(1, 0) - corner(0, 0)) * sx;
    let bottom = corner(0, 1) + (corner(1, 1) - corner(0, 1)) * sx;
    top + (bottom - top) * sy
}

/// Three octaves of value noise, in 0..1.
pub fn fractal(x: f64, y: f64, seed: u32) -> f32 {
    (noise(x, y, seed) * 0.57
        + noise(x * 2.1, y * 2.1, seed + 1) * 0.29
        + noise(x * 4.3, y * 4.3, seed + 2) * 0.14)
        .clamp(0.0, 1.0)
}

fn lattice(x: i64, y: i64, seed: u32) -> f32 {
    // SplitMix64 finaliser over the lattice point: uniform and cheap.
    let mut h = (x as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (y as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
        ^ u64::from(seed).wrapping_mul(0x1656_67B1_9E37_79F9);
    h = (h ^ (h >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    h ^= h >> 31;
    (h >> 40) as f32 / (1u64 << 24) as f32
}

/// The table the mat lies on.
#[derive(Clone, Copy, Debug)]
pub enum TableSurface {
    Wood {
        light: Rgb,
        dark: Rgb,
        grain_mm: f64,
        angle: f64,
    },
    Cloth {
        color: Rgb,
        weave_mm: f64,
    },
    Laminate {
        color: Rgb,
    },
    Felt {
        color: Rgb,
    },
    /// Printed cardboard: the lid of a game box or another game's board, shapes of two
    /// colours far larger than a piece, soft-edged, with fine print.
    Printed {
        base: Rgb,
        accent: Rgb,
        shape_mm: f64,
    },
}

impl TableSurface {
    pub fn random<R: Rng>(rng: &mut R) -> Self {
        let tint = |rng: &mut R, base: [u8; 3], spread: i16| {
            let c = base
                .map(|b| (i16::from(b) + rng.random_range(-spread..=spread)).clamp(0, 255) as u8);
            srgb(c[0], c[1], c[2])
        };
        match rng.random_range(0..4) {
            0 => {
                let light = tint(rng, [176, 128, 84], 30);
                TableSurface::Wood {
                    light,
                    dark: light.scale(rng.random_range(0.45..0.7)),
                    grain_mm: rng.random_range(3.0..9.0),
                    angle: rng.random_range(0.0..std::f64::consts::PI),
                }
            }
            1 => TableSurface::Cloth {
                color: hue(rng.random_range(0.0..1.0))
                    .mix(Rgb::gray(0.25), rng.random_range(0.4..0.85)),
                weave_mm: rng.random_range(0.8..2.0),
            },
            2 => TableSurface::Laminate {
                color: tint(rng, [215, 210, 200], 35),
            },
            _ => TableSurface::Felt {
                color: tint(rng, [40, 90, 60], 30),
            },
        }
    }

    /// A game box's lid or another game's board to put dice on.
    pub fn printed(rng: &mut impl Rng) -> Self {
        let base = hue(rng.random_range(0.0..1.0)).mix(Rgb::gray(0.5), rng.random_range(0.2..0.8));
        TableSurface::Printed {
            base: base.scale(rng.random_range(0.3..1.0)),
            accent: hue(rng.random_range(0.0..1.0)).mix(Rgb::gray(0.9), rng.random_range(0.0..0.7)),
            shape_mm: rng.random_range(90.0..250.0),
        }
    }

    pub fn color(&self, x: f64, y: f64, seed: u32) -> Rgb {
        match *self {
            TableSurface::Wood {
                light,
                dark,
                grain_mm,
                angle,
            } => {
                let (s, c) = angle.sin_cos();
                let (along, across) = (x * c + y * s, -x * s + y * c);
                let warp = fractal(along / 200.0, across / 60.0, seed) as f64 * 6.0;
                let rings = ((across / grain_mm + warp).sin() * 0.5 + 0.5) as f32;
                let fine = noise(along / 40.0, across / 0.8, seed + 7);
                dark.mix(light, (rings * 0.7 + fine * 0.3).clamp(0.0, 1.0))
            }
            TableSurface::Cloth { color, weave_mm } => {
                let weave = ((x / weave_mm).sin() * (y / weave_mm).sin()) as f32 * 0.06;
                let blotch = fractal(x / 80.0, y / 80.0, seed) * 0.15;
                color.scale(0.9 + weave + blotch)
            }
            TableSurface::Laminate { color } => color.scale(
                0.94 + noise(x / 1.5, y / 1.5, seed) * 0.08
                    + fractal(x / 150.0, y / 150.0, seed) * 0.06,
            ),
            TableSurface::Felt { color } => {
                color.scale(0.85 + fractal(x / 3.0, y / 3.0, seed) * 0.3)
            }
            TableSurface::Printed {
                base,
                accent,
                shape_mm,
            } => {
                let shapes = fractal(x / shape_mm, y / shape_mm, seed);
                let edge = ((shapes - 0.5) * 5.0).clamp(-0.5, 0.5) + 0.5;
                let print = noise(x / 0.9, y / 0.9, seed + 5) * 0.1;
                base.mix(accent, edge).scale(0.9 + print)
            }
        }
    }
}

/// The printed mat: the artwork's grey levels on paper of a random tint, with a little
/// texture.
pub struct PrintedMat<'a> {
    pub artwork: &'a MatArtwork,
    pub size_mm: [f64; 2],
    pub paper: Rgb,
}

impl PrintedMat<'_> {
    /// The reflectance at a point, or `None` off the mat.
    pub fn color(&self, x: f64, y: f64, seed: u32) -> Option<Rgb> {
        if !(0.0..self.size_mm[0]).contains(&x) || !(0.0..self.size_mm[1]).contains(&y) {
            return None;
        }
        let ink = srgb_to_linear(self.artwork.gray_at(x, y)) / srgb_to_linear(232);
        let grain = 0.97 + noise(x / 0.7, y / 0.7, seed + 11) * 0.05;
        Some(self.paper.scale(ink.clamp(0.0, 1.0) * grain))
    }
}

/// A convex polygon given by its corners, in order.
pub fn inside_convex(corners: &[(f64, f64)], x: f64, y: f64) -> bool {
    let n = corners.len();
    let mut sign = 0.0;
    for i in 0..n {
        let (ax, ay) = corners[i];
        let (bx, by) = corners[(i + 1) % n];
        let cross = (bx - ax) * (y - ay) - (by - ay) * (x - ax);
        if cross.abs() < 1e-12 {
            continue;
        }
        if sign == 0.0 {
            sign = cross.signum();
        } else if cross.signum() != sign {
            return false;
        }
    }
    true
}

/// Distance from a point to the segment a-b.
pub fn segment_distance((ax, ay): (f64, f64), (bx, by): (f64, f64), x: f64, y: f64) -> f64 {
    let (dx, dy) = (bx - ax, by - ay);
    let length2 = dx * dx + dy * dy;
    let t = if length2 > 0.0 {
        (((x - ax) * dx + (y - ay) * dy) / length2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    ((x - ax - t * dx).powi(2) + (y - ay - t * dy).powi(2)).sqrt()
}

/// Pip positions of a face value on a unit square (-1..1), as on a die.
pub fn pips(value: u8) -> &'static [(f64, f64)] {
    match value {
        1 => &[(0.0, 0.0)],
        2 => &[(-1.0, -1.0), (1.0, 1.0)],
        3 => &[(-1.0, -1.0), (0.0, 0.0), (1.0, 1.0)],
        4 => &[(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)],
        5 => &[
            (-1.0, -1.0),
            (1.0, -1.0),
            (0.0, 0.0),
            (-1.0, 1.0),
            (1.0, 1.0),
        ],
        _ => &[
            (-1.0, -1.0),
            (-1.0, 0.0),
            (-1.0, 1.0),
            (1.0, -1.0),
            (1.0, 0.0),
            (1.0, 1.0),
        ],
    }
}

/// A hue from 0..1 as a saturated linear colour.
pub fn hue(h: f64) -> Rgb {
    let h6 = (h.rem_euclid(1.0) * 6.0) as f32;
    let channel = |offset: f32| {
        let d = ((h6 - offset).rem_euclid(6.0) - 3.0).abs();
        (d - 1.0).clamp(0.0, 1.0)
    };
    Rgb::new(channel(0.0), channel(4.0), channel(2.0))
}
