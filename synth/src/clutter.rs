//! What else lies on a real table: hands and arms reaching in, playing cards, cups, dice of
//! other games, a dice tray.

use calibration::TablePoint;
use rand::Rng;
use rules::{Die, DieValue};

use crate::canvas::{Canvas, NOBODY};
use crate::linear::{Rgb, srgb};
use crate::scene::bounds;
use crate::sprites::SpriteSheet;
use crate::surface::{fractal, hue, inside_convex, segment_distance};

/// Where the lamp's shadows fall: millimetres of offset per millimetre of height.
const SHADOW_SLOPE: (f64, f64) = (0.05, -0.09);
/// An id that marks pixels covered by a hand (nothing is labelled under it).
const HAND: u32 = u32::MAX;

/// A segment (from, to) swept by a radius, in mm.
type Capsule = ((f64, f64), (f64, f64), f64);

/// An arm reaching over the table from `shoulder` (off the mat) to the hand at `wrist`.
#[derive(Clone, Debug)]
pub struct Hand {
    pub shoulder: (f64, f64),
    pub wrist: (f64, f64),
    pub height_mm: f64,
    pub skin: Rgb,
    pub sleeve: Rgb,
    /// How far the fingers are spread, 0 (closed) to 1.
    pub spread: f64,
    /// A die held between the fingers.
    pub holding: Option<Die>,
}

#[derive(Clone, Debug)]
pub struct Card {
    pub corners: Vec<(f64, f64)>,
    pub hue: f64,
    pub pattern: u32,
}

#[derive(Clone, Debug)]
pub struct Cup {
    pub center: (f64, f64),
    pub radius_mm: f64,
    pub height_mm: f64,
    pub color: Rgb,
}

/// A die of another game left lying about (its sprite is one of the "other" dice).
#[derive(Clone, Debug)]
pub struct StrayDie {
    pub center: (f64, f64),
    pub value: DieValue,
}

/// A dice tray lined with felt around the roll area, its low rim seen from above.
#[derive(Clone, Debug)]
pub struct Tray {
    /// The lining's left, top, right, bottom in mat millimetres.
    pub inside: [f64; 4],
    pub rim_mm: f64,
    pub lining: Rgb,
    pub rim: Rgb,
}

#[derive(Clone, Debug, Default)]
pub struct Clutter {
    pub hands: Vec<Hand>,
    pub cards: Vec<Card>,
    pub cups: Vec<Cup>,
    pub stray_dice: Vec<StrayDie>,
    pub tray: Option<Tray>,
}

impl Hand {
    /// A hand that reaches from outside the mat (`size_mm`) towards `target`.
    pub fn reaching(target: (f64, f64), size_mm: [f64; 2], rng: &mut impl Rng) -> Self {
        let [w, h] = size_mm;
        let side = rng.random_range(0..4);
        let along = rng.random_range(0.15..0.85);
        let shoulder = match side {
            0 => (w * along, h + 220.0),
            1 => (w * along, -220.0),
            2 => (-220.0, h * along),
            _ => (w + 220.0, h * along),
        };
        let tones = [
            srgb(241, 194, 167),
            srgb(224, 172, 138),
            srgb(198, 134, 96),
            srgb(160, 102, 70),
            srgb(110, 70, 48),
            srgb(80, 52, 38),
        ];
        let toward = unit((target.0 - shoulder.0, target.1 - shoulder.1));
        Self {
            shoulder,
            wrist: (target.0 - toward.0 * 55.0, target.1 - toward.1 * 55.0),
            height_mm: rng.random_range(45.0..140.0),
            skin: tones[rng.random_range(0..tones.len())],
            sleeve: hue(rng.random_range(0.0..1.0)).mix(Rgb::gray(0.3), rng.random_range(0.3..0.9)),
            spread: rng.random_range(0.0..1.0),
            holding: None,
        }
    }

    /// Capsules (from, to, radius) that make up the arm and hand; the first is the sleeve.
    fn capsules(&self) -> Vec<Capsule> {
        let dir = unit((
            self.wrist.0 - self.shoulder.0,
            self.wrist.1 - self.shoulder.1,
        ));
        let side = (-dir.1, dir.0);
        let at = |forward: f64, across: f64| {
            (
                self.wrist.0 + dir.0 * forward + side.0 * across,
                self.wrist.1 + dir.1 * forward + side.1 * across,
            )
        };
        let elbow = at(-230.0, 0.0);
        let mut parts = vec![(self.shoulder, elbow, 42.0), (elbow, self.wrist, 30.0)];
        parts.push((at(8.0, 0.0), at(42.0, 0.0), 36.0));
        for (k, offset) in [-24.0, -8.0, 8.0, 22.0].into_iter().enumerate() {
            let fan = (k as f64 - 1.5) * 10.0 * self.spread;
            let length = [62.0, 72.0, 70.0, 56.0][k];
            parts.push((at(60.0, offset * 0.9), at(60.0 + length, offset + fan), 8.5));
        }
        parts.push((at(20.0, -36.0), at(55.0, -58.0 - 12.0 * self.spread), 10.0));
        parts
    }

    /// Signed distance (mm, negative inside) to the hand, and whether the closest part is the
    /// sleeve.
    fn distance(&self, parts: &[Capsule], x: f64, y: f64) -> (f64, bool) {
        let mut best = (f64::INFINITY, false);
        for (i, &(a, b, r)) in parts.iter().enumerate() {
            let d = segment_distance(a, b, x, y) - r;
            if d < best.0 {
                best = (d, i == 0);
            }
        }
        best
    }

    fn reach_bounds(parts: &[Capsule], shift: (f64, f64)) -> [f64; 4] {
        let points: Vec<(f64, f64)> = parts
            .iter()
            .flat_map(|&(a, b, _)| [a, b])
            .map(|(x, y)| (x + shift.0, y + shift.1))
            .collect();
        bounds(&points, 45.0)
    }
}

impl Tray {
    /// A tray a little larger than `zone` (mat millimetres), felt of a random colour in a rim
    /// of wood, leather or plastic.
    pub fn around(zone: [f64; 4], rng: &mut impl Rng) -> Self {
        let margin = rng.random_range(8.0..30.0);
        let rims = [
            srgb(120, 78, 45),
            srgb(70, 42, 28),
            srgb(30, 30, 32),
            srgb(150, 110, 70),
        ];
        Self {
            inside: [
                zone[0] - margin,
                zone[1] - margin,
                zone[2] + margin,
                zone[3] + margin,
            ],
            rim_mm: rng.random_range(8.0..20.0),
            lining: hue(rng.random_range(0.0..1.0))
                .mix(Rgb::gray(0.15), rng.random_range(0.3..0.9))
                .scale(rng.random_range(0.3..1.0)),
            rim: rims[rng.random_range(0..rims.len())],
        }
    }

    fn draw(&self, canvas: &mut Canvas) {
        let [l, t, r, b] = self.inside;
        let w = self.rim_mm;
        canvas.draw_flat(0.2, [l - w, t - w, r + w, b + w], NOBODY, |x, y| {
            // Distance inside the lining's edge (negative on the rim).
            let depth = (x - l).min(r - x).min(y - t).min(b - y);
            if depth < -w {
                return None;
            }
            if depth < 0.0 {
                // The rim's top catches the light towards its outer edge.
                let lit = 0.8 + 0.35 * (-depth / w) as f32;
                return Some((self.rim.scale(lit), 1.0));
            }
            let felt = 0.85 + fractal(x / 2.5, y / 2.5, 17) * 0.3;
            // The rim's inner wall shades the lining near it.
            let shade = 0.55 + 0.45 * (depth / 12.0).clamp(0.0, 1.0) as f32;
            Some((self.lining.scale(felt * shade), 1.0))
        });
    }
}

impl Cup {
    pub fn draw(&self, canvas: &mut Canvas) {
        let (cx, cy) = self.center;
        let r = self.radius_mm;
        let area = [cx - r, cy - r, cx + r, cy + r];
        let slices = (self.height_mm / 3.0).ceil() as usize;
        for s in 0..=slices {
            let h = self.height_mm * s as f64 / slices as f64;
            let top = s == slices;
            canvas.draw_flat(h, area, NOBODY, |x, y| {
                let (dx, dy) = (x - cx, y - cy);
                let d = (dx * dx + dy * dy).sqrt();
                if d > r {
                    return None;
                }
                let light = 0.55 + 0.45 * ((dy.atan2(dx) + 2.2).cos() * 0.5 + 0.5) as f32;
                let color = if top && d < r - 4.0 {
                    self.color.scale(0.35 + 0.2 * (d / r) as f32)
                } else {
                    self.color.scale(light)
                };
                Some((color, 1.0))
            });
        }
    }
}

/// Whether (`x`, `y`) lies `margin` mm or more outside every zone of `keep_clear`.
fn clear_of(keep_clear: &[[f64; 4]], x: f64, y: f64, margin: f64) -> bool {
    keep_clear
        .iter()
        .all(|z| x < z[0] - margin || x > z[2] + margin || y < z[1] - margin || y > z[3] + margin)
}

impl Clutter {
    /// A few cards and maybe a cup around the mat, away from the towers.
    pub fn random(size_mm: [f64; 2], keep_clear: &[[f64; 4]], rng: &mut impl Rng) -> Self {
        let [w, h] = size_mm;
        let clear = |x: f64, y: f64, margin: f64| clear_of(keep_clear, x, y, margin);
        let mut clutter = Clutter::default();
        for _ in 0..rng.random_range(0..4) {
            let (x, y) = (
                rng.random_range(-60.0..w + 60.0),
                rng.random_range(-60.0..h + 60.0),
            );
            if !clear(x, y, 50.0) {
                continue;
            }
            let angle: f64 = rng.random_range(0.0..std::f64::consts::PI);
            let (s, c) = angle.sin_cos();
            let corners = [(-31.5, -44.0), (31.5, -44.0), (31.5, 44.0), (-31.5, 44.0)]
                .map(|(u, v)| (x + u * c - v * s, y + u * s + v * c))
                .to_vec();
            clutter.cards.push(Card {
                corners,
                hue: rng.random_range(0.0..1.0),
                pattern: rng.random(),
            });
        }
        if rng.random_bool(0.4) {
            let (x, y) = match rng.random_range(0..4) {
                0 => (rng.random_range(0.0..w), -70.0),
                1 => (rng.random_range(0.0..w), h + 70.0),
                2 => (-70.0, rng.random_range(0.0..h)),
                _ => (w + 70.0, rng.random_range(0.0..h)),
            };
            clutter.cups.push(Cup {
                center: (x, y),
                radius_mm: rng.random_range(36.0..46.0),
                height_mm: rng.random_range(80.0..110.0),
                color: hue(rng.random_range(0.0..1.0))
                    .mix(Rgb::gray(0.8), rng.random_range(0.2..1.0)),
            });
        }
        for _ in 0..rng.random_range(0..3) {
            let target = (
                rng.random_range(40.0..w - 40.0),
                rng.random_range(40.0..h - 40.0),
            );
            clutter.hands.push(Hand::reaching(target, size_mm, rng));
        }
        if rng.random_bool(0.5) {
            let count = rng.random_range(1..4);
            let [w, h] = size_mm;
            let table = [-50.0, -50.0, w + 50.0, h + 50.0];
            clutter.scatter_stray_dice(count, table, keep_clear, rng);
        }
        clutter
    }

    /// Up to `count` dice of other games dropped in `area` (left, top, right, bottom, mat
    /// millimetres), away from `keep_clear`.
    pub(crate) fn scatter_stray_dice(
        &mut self,
        count: usize,
        area: [f64; 4],
        keep_clear: &[[f64; 4]],
        rng: &mut impl Rng,
    ) {
        let [left, top, right, bottom] = area;
        for _ in 0..count {
            let (x, y) = (rng.random_range(left..right), rng.random_range(top..bottom));
            let value = DieValue::ALL[rng.random_range(0..6)];
            if clear_of(keep_clear, x, y, 20.0) {
                self.stray_dice.push(StrayDie {
                    center: (x, y),
                    value,
                });
            }
        }
    }

    /// The tray and cards, lying on the mat or the table.
    pub fn draw_flat(&self, canvas: &mut Canvas) {
        if let Some(tray) = &self.tray {
            tray.draw(canvas);
        }
        for card in &self.cards {
            let face = hue(card.hue).mix(Rgb::gray(0.5), 0.4);
            canvas.draw_flat(0.4, bounds(&card.corners, 1.0), NOBODY, |x, y| {
                if !inside_convex(&card.corners, x, y) {
                    return None;
                }
                let rim = (0..4)
                    .map(|i| segment_distance(card.corners[i], card.corners[(i + 1) % 4], x, y))
                    .fold(f64::INFINITY, f64::min);
                if rim < 3.5 {
                    return Some((Rgb::gray(0.8), 1.0));
                }
                let art = fractal(x / 7.0, y / 7.0, card.pattern);
                Some((face.scale(0.5 + art), 1.0))
            });
        }
    }

    /// The soft shadows of hands and cups on the table.
    pub fn draw_shadows(&self, canvas: &mut Canvas) {
        for hand in &self.hands {
            let shift = (
                hand.height_mm * SHADOW_SLOPE.0,
                hand.height_mm * SHADOW_SLOPE.1,
            );
            let parts = hand.capsules();
            let softness = 4.0 + hand.height_mm * 0.12;
            canvas.darken(Hand::reach_bounds(&parts, shift), |x, y| {
                let (d, _) = hand.distance(&parts, x - shift.0, y - shift.1);
                (0.45 * (0.5 - d / softness).clamp(0.0, 1.0)) as f32
            });
        }
        for cup in &self.cups {
            let shift = (
                cup.height_mm * SHADOW_SLOPE.0,
                cup.height_mm * SHADOW_SLOPE.1,
            );
            let (cx, cy) = (cup.center.0 + shift.0 / 2.0, cup.center.1 + shift.1 / 2.0);
            let r = cup.radius_mm + 10.0;
            canvas.darken([cx - r, cy - r, cx + r, cy + r], |x, y| {
                let d = ((x - cx).powi(2) + (y - cy).powi(2)).sqrt() - cup.radius_mm;
                (0.4 * (0.5 - d / 8.0).clamp(0.0, 1.0)) as f32
            });
        }
    }

    /// Hands and arms, above everything else, with whatever they hold.
    pub fn draw_hands(
        &self,
        canvas: &mut Canvas,
        sprites: &SpriteSheet,
        emblem_sixes: bool,
        rng: &mut impl Rng,
    ) {
        let mut hands: Vec<&Hand> = self.hands.iter().collect();
        hands.sort_by(|a, b| a.height_mm.total_cmp(&b.height_mm));
        for hand in hands {
            let parts = hand.capsules();
            if let Some(die) = hand.holding {
                let tip = parts[4].1;
                let at = TablePoint::on_mat(tip.0, tip.1).at_height(hand.height_mm - 12.0);
                let elevation = canvas.elevation_deg(at);
                let sprite = sprites.die(die.color, die.value, emblem_sixes, elevation, rng);
                canvas.draw_sprite(sprite, at, NOBODY);
            }
            canvas.draw_flat(
                hand.height_mm,
                Hand::reach_bounds(&parts, (0.0, 0.0)),
                HAND,
                |x, y| {
                    let (d, sleeve) = hand.distance(&parts, x, y);
                    if d > 1.0 {
                        return None;
                    }
                    let alpha = (0.5 - d).clamp(0.0, 1.0) as f32;
                    let round = (0.72 + 0.28 * (-d / 10.0).clamp(0.0, 1.0)) as f32;
                    let base = if sleeve { hand.sleeve } else { hand.skin };
                    Some((base.scale(round), alpha))
                },
            );
        }
    }
}

fn unit((x, y): (f64, f64)) -> (f64, f64) {
    let n = (x * x + y * y).sqrt().max(1e-9);
    (x / n, y / n)
}
