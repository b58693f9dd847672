//! The dice and meeples as a physically based renderer drew them (`models/render/
//! render_sprites.py`, Mitsuba 3): per sprite a foreground `F` and a transmission `T`, so that
//! over any background `B` the object looks like `F + T * B`, channel by channel. A translucent
//! die tints what lies below it, and the lamp's soft contact shadow is where `T` falls below 1.
//!
//! Each sprite keeps a pyramid of halved copies (box filtered in linear light), and the canvas
//! samples the copy nearest its scale: a 128 px sprite drawn as a 25 px die is filtered, not
//! picked pixel by pixel.

use image::ImageFormat;
use rand::Rng;
use rules::{DieColor, DieValue, PlayerColor, Rank};
use serde::Deserialize;

use crate::error::SynthError;
use crate::linear::{Rgb, srgb_to_linear};

const INDEX_JSON: &str = include_str!("../sprites/sprites.json");
const DICE_PNG: &[u8] = include_bytes!("../sprites/dice.png");
const MEEPLES_PNG: &[u8] = include_bytes!("../sprites/meeples.png");

/// Where a sprite sits in its atlas, and what it shows.
#[derive(Clone, Debug, Deserialize)]
struct Entry {
    color: String,
    elevation_deg: f64,
    anchor_px: [f64; 2],
    px_per_mm: f64,
    cell: usize,
    #[serde(default)]
    value: Option<u8>,
    #[serde(default)]
    box_px: Option<[f64; 4]>,
    #[serde(default)]
    rank: Option<String>,
    /// "standing" or "lying", for meeples.
    #[serde(default)]
    pose: Option<String>,
    /// The plastic of a die: clear, frosted, marbled, milky or opaque.
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    tilt_deg: f64,
    /// Whether the six shows an emblem, not pips.
    #[serde(default)]
    emblem: bool,
    /// The corners of the face that shows the value.
    #[serde(default)]
    top_face_px: Option<[[f64; 2]; 4]>,
    /// The linear colour of the pips' paint.
    #[serde(default)]
    pip_rgb: Option<[f32; 3]>,
}

#[derive(Debug, Deserialize)]
struct Index {
    format: String,
    version: u32,
    size_px: usize,
    columns: usize,
    dice: Vec<Entry>,
    meeples: Vec<Entry>,
}

/// One rendered object, ready to composite.
#[derive(Clone, Debug)]
pub struct Sprite {
    pub size: usize,
    /// Linear-RGB foreground, row by row.
    pub foreground: Vec<Rgb>,
    /// Linear-RGB transmission, row by row.
    pub transmission: Vec<Rgb>,
    /// The halved copies: sides size/2, size/4, ... down to 8 px.
    pub smaller: Vec<Level>,
    /// The pixel where the object touches the ground.
    pub anchor_px: [f64; 2],
    /// Pixels per millimetre on the ground at the anchor.
    pub px_per_mm: f64,
    /// The die's box (left, top, right, bottom) in sprite pixels; for meeples, the object's box.
    pub box_px: [f64; 4],
    pub elevation_deg: f64,
    /// Per pixel, whether it shows the object itself (not its shadow, not the ground).
    pub mask: Vec<bool>,
    /// How a die was rendered (none for meeples).
    pub die: Option<DieLook>,
}

/// How a die sprite was rendered, for checks of what it shows.
#[derive(Clone, Debug)]
pub struct DieLook {
    pub value: u8,
    /// Clear, frosted, marbled, milky or opaque.
    pub body: String,
    pub tilt_deg: f64,
    /// Whether the face up is a six drawn as an emblem.
    pub emblem: bool,
    /// The corners of the face up, in sprite pixels.
    pub top_face_px: [[f64; 2]; 4],
    pub pip_rgb: Rgb,
}

/// A sprite shrunk by a power of two.
#[derive(Clone, Debug)]
pub struct Level {
    pub size: usize,
    pub foreground: Vec<Rgb>,
    pub transmission: Vec<Rgb>,
}

impl Level {
    /// Half the side, each pixel the mean of four.
    fn halved(size: usize, foreground: &[Rgb], transmission: &[Rgb]) -> Self {
        let half = size / 2;
        let shrink = |pixels: &[Rgb]| -> Vec<Rgb> {
            (0..half * half)
                .map(|i| {
                    let (x, y) = (2 * (i % half), 2 * (i / half));
                    let at = |dx: usize, dy: usize| pixels[(y + dy) * size + x + dx];
                    (at(0, 0) + at(1, 0) + at(0, 1) + at(1, 1)) * 0.25
                })
                .collect()
        };
        Self {
            size: half,
            foreground: shrink(foreground),
            transmission: shrink(transmission),
        }
    }
}

impl Sprite {
    pub fn is_object(&self, index: usize) -> bool {
        self.mask[index]
    }

    /// The copy to sample when the sprite is drawn at `scale` canvas pixels per sprite pixel,
    /// and the scale from sprite pixels to that copy's pixels.
    pub fn level(&self, scale: f64) -> (usize, &[Rgb], &[Rgb], f64) {
        let mut best = (self.size, &self.foreground[..], &self.transmission[..], 1.0);
        let mut shrink = 1.0;
        for level in &self.smaller {
            shrink *= 0.5;
            if scale > shrink * 1.0001 {
                break;
            }
            best = (level.size, &level.foreground, &level.transmission, shrink);
        }
        best
    }
}

/// Whether a die sprite's pixel shows the die: light off its surface or pips, light
/// through it (tinted), inside the box of its corners (a translucent die's shadow is
/// coloured too, and lies outside).
fn die_mask(
    foreground: &[Rgb],
    transmission: &[Rgb],
    size: usize,
    [l, t, r, b]: [f64; 4],
) -> Vec<bool> {
    (0..size * size)
        .map(|i| {
            let (x, y) = ((i % size) as f64 + 0.5, (i / size) as f64 + 0.5);
            let (f, tr) = (foreground[i], transmission[i]);
            let seen = f.sum() > 0.08 || tr.min() < 0.45 || tr.max() - tr.min() > 0.15;
            seen && x >= l - 0.5 && x <= r + 0.5 && y >= t - 0.5 && y <= b + 0.5
        })
        .collect()
}

/// Whether a meeple sprite's pixel shows the meeple: painted wood sends light back, while
/// its shadow on the black ground does not.
fn meeple_mask(foreground: &[Rgb]) -> Vec<bool> {
    foreground.iter().map(|f| f.sum() > 0.06).collect()
}

/// Every sprite, grouped by what it shows.
pub struct SpriteSheet {
    /// Per die colour and value (index `color * 6 + value - 1`).
    dice: Vec<Vec<Sprite>>,
    /// Dice of other games, per value (index `value - 1`).
    other_dice: Vec<Vec<Sprite>>,
    /// Per player colour and rank (index `color * 2 + rank`), standing.
    meeples: Vec<Vec<Sprite>>,
    /// The same, lying on their backs.
    lying: Vec<Vec<Sprite>>,
}

impl SpriteSheet {
    /// The sprites committed with the crate.
    pub fn embedded() -> Result<Self, SynthError> {
        Self::from_parts(INDEX_JSON, DICE_PNG, MEEPLES_PNG)
    }

    /// The sprites of a folder that `render_sprites.py` wrote (`sprites.json`, `dice.png`,
    /// `meeples.png`): a set tried before it replaces the committed one.
    pub fn from_dir(dir: &std::path::Path) -> Result<Self, SynthError> {
        let named = |name: &str, e: &dyn std::fmt::Display| {
            SynthError::Sprites(format!("{}: {e}", dir.join(name).display()))
        };
        let read = |name: &str| std::fs::read(dir.join(name)).map_err(|e| named(name, &e));
        let index = std::fs::read_to_string(dir.join("sprites.json"))
            .map_err(|e| named("sprites.json", &e))?;
        Self::from_parts(&index, &read("dice.png")?, &read("meeples.png")?).map_err(|e| match e {
            SynthError::Sprites(reason) => {
                SynthError::Sprites(format!("{}: {reason}", dir.display()))
            }
            other => other,
        })
    }

    fn from_parts(index: &str, dice_png: &[u8], meeples_png: &[u8]) -> Result<Self, SynthError> {
        let index: Index =
            serde_json::from_str(index).map_err(|e| SynthError::Sprites(e.to_string()))?;
        if index.format != "tablesight-sprites" || index.version != 2 {
            return Err(SynthError::Sprites(format!(
                "expected tablesight-sprites version 2, found {} version {}",
                index.format, index.version
            )));
        }
        let dice_atlas = decode(dice_png)?;
        let meeple_atlas = decode(meeples_png)?;
        let mut dice = vec![Vec::new(); 24];
        let mut other_dice = vec![Vec::new(); 6];
        for entry in &index.dice {
            let value = entry
                .value
                .and_then(DieValue::new)
                .ok_or_else(|| SynthError::Sprites("a die sprite without a value".into()))?;
            let sprite = cut(&dice_atlas, &index, entry)?;
            let value = usize::from(value.get()) - 1;
            if entry.color == "other" {
                other_dice[value].push(sprite);
            } else {
                dice[die_color(&entry.color)?.index() * 6 + value].push(sprite);
            }
        }
        let mut meeples = vec![Vec::new(); 8];
        let mut lying = vec![Vec::new(); 8];
        for entry in &index.meeples {
            let player = player_color(&entry.color)?;
            let rank = match entry.rank.as_deref() {
                Some("apprentice") => Rank::Apprentice,
                Some("master") => Rank::Master,
                other => {
                    return Err(SynthError::Sprites(format!(
                        "unknown meeple rank {other:?}"
                    )));
                }
            };
            let sprite = cut(&meeple_atlas, &index, entry)?;
            let group = match entry.pose.as_deref() {
                None | Some("standing") => &mut meeples,
                Some("lying") => &mut lying,
                Some(other) => {
                    return Err(SynthError::Sprites(format!("unknown meeple pose {other}")));
                }
            };
            group[player as usize * 2 + rank as usize].push(sprite);
        }
        let groups = [&dice, &other_dice, &meeples, &lying];
        if groups.into_iter().flatten().any(Vec::is_empty) {
            return Err(SynthError::Sprites(
                "some die or meeple has no sprite: render them again".into(),
            ));
        }
        Ok(Self {
            dice,
            other_dice,
            meeples,
            lying,
        })
    }

    /// A sprite of the die seen from close to `elevation_deg` above the table; a six drawn
    /// as an emblem if the set's sixes are (`emblem_sixes`), as pips if not.
    pub fn die(
        &self,
        color: DieColor,
        value: DieValue,
        emblem_sixes: bool,
        elevation_deg: f64,
        rng: &mut impl Rng,
    ) -> &Sprite {
        let group = &self.dice[color.index() * 6 + usize::from(value.get()) - 1];
        let matching: Vec<&Sprite> = group
            .iter()
            .filter(|s| {
                value.get() != 6 || s.die.as_ref().is_some_and(|d| d.emblem == emblem_sixes)
            })
            .collect();
        if matching.is_empty() {
            return nearest(group.iter(), elevation_deg, rng);
        }
        nearest(matching.into_iter(), elevation_deg, rng)
    }

    /// A sprite of a die of another game showing `value`, seen from close to `elevation_deg`.
    pub fn other_die(&self, value: DieValue, elevation_deg: f64, rng: &mut impl Rng) -> &Sprite {
        nearest(
            self.other_dice[usize::from(value.get()) - 1].iter(),
            elevation_deg,
            rng,
        )
    }

    /// A sprite of the meeple, standing or lying, seen from close to `elevation_deg`.
    pub fn meeple(
        &self,
        player: PlayerColor,
        rank: Rank,
        lying: bool,
        elevation_deg: f64,
        rng: &mut impl Rng,
    ) -> &Sprite {
        let groups = if lying { &self.lying } else { &self.meeples };
        nearest(
            groups[player as usize * 2 + rank as usize].iter(),
            elevation_deg,
            rng,
        )
    }
}

/// Sprites rendered within this many degrees of the elevation asked for look alike.
const ELEVATION_SLACK_DEG: f64 = 8.0;

/// A random sprite among those rendered close to `elevation_deg`: within the slack, or at
/// the nearest elevation there is.
fn nearest<'a>(
    group: impl Iterator<Item = &'a Sprite> + Clone,
    elevation_deg: f64,
    rng: &mut impl Rng,
) -> &'a Sprite {
    let off = |s: &Sprite| (s.elevation_deg - elevation_deg).abs();
    let best = group.clone().map(off).fold(f64::INFINITY, f64::min);
    let slack = best.max(ELEVATION_SLACK_DEG) + 1e-9;
    let candidates: Vec<&Sprite> = group.filter(|s| off(s) <= slack).collect();
    // Every group holds sprites (checked on loading), so the nearest is among them.
    candidates[rng.random_range(0..candidates.len())]
}

fn decode(png: &[u8]) -> Result<image::RgbImage, SynthError> {
    image::load_from_memory_with_format(png, ImageFormat::Png)
        .map(|i| i.to_rgb8())
        .map_err(|e| SynthError::Sprites(format!("atlas: {e}")))
}

fn cut(atlas: &image::RgbImage, index: &Index, entry: &Entry) -> Result<Sprite, SynthError> {
    let size = index.size_px;
    let (row, column) = (entry.cell / index.columns, entry.cell % index.columns);
    let (left, top) = (column * size, row * 2 * size);
    let fits = |x: usize, y: usize| x <= atlas.width() as usize && y <= atlas.height() as usize;
    if !fits(left + size, top + 2 * size) {
        return Err(SynthError::Sprites(format!(
            "cell {} lies outside the atlas",
            entry.cell
        )));
    }
    let read = |y0: usize| -> Vec<Rgb> {
        let mut pixels = Vec::with_capacity(size * size);
        for y in 0..size {
            for x in 0..size {
                let p = atlas.get_pixel((left + x) as u32, (y0 + y) as u32).0;
                pixels.push(Rgb::new(
                    srgb_to_linear(p[0]),
                    srgb_to_linear(p[1]),
                    srgb_to_linear(p[2]),
                ));
            }
        }
        pixels
    };
    let foreground = read(top);
    let transmission = read(top + size);
    let mask = match entry.box_px {
        Some(box_px) => die_mask(&foreground, &transmission, size, box_px),
        None => meeple_mask(&foreground),
    };
    let box_px = entry.box_px.unwrap_or_else(|| mask_box(&mask, size));
    let mut smaller: Vec<Level> = Vec::new();
    while smaller.last().map_or(size, |l| l.size) >= 16 {
        let level = match smaller.last() {
            Some(l) => Level::halved(l.size, &l.foreground, &l.transmission),
            None => Level::halved(size, &foreground, &transmission),
        };
        smaller.push(level);
    }
    Ok(Sprite {
        size,
        foreground,
        transmission,
        smaller,
        anchor_px: entry.anchor_px,
        px_per_mm: entry.px_per_mm,
        box_px,
        elevation_deg: entry.elevation_deg,
        mask,
        die: die_look(entry),
    })
}

fn die_look(entry: &Entry) -> Option<DieLook> {
    Some(DieLook {
        value: entry.value?,
        body: entry.body.clone()?,
        tilt_deg: entry.tilt_deg,
        emblem: entry.emblem,
        top_face_px: entry.top_face_px?,
        pip_rgb: entry.pip_rgb.map(|[r, g, b]| Rgb::new(r, g, b))?,
    })
}

/// The box of the pixels that show the object.
fn mask_box(mask: &[bool], size: usize) -> [f64; 4] {
    let mut bounds = [
        f64::INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NEG_INFINITY,
    ];
    for y in 0..size {
        for x in 0..size {
            if mask[y * size + x] {
                bounds[0] = bounds[0].min(x as f64);
                bounds[1] = bounds[1].min(y as f64);
                bounds[2] = bounds[2].max(x as f64 + 1.0);
                bounds[3] = bounds[3].max(y as f64 + 1.0);
            }
        }
    }
    bounds
}

fn die_color(name: &str) -> Result<DieColor, SynthError> {
    DieColor::ALL
        .into_iter()
        .find(|c| c.name() == name)
        .ok_or_else(|| SynthError::Sprites(format!("unknown die colour {name}")))
}

fn player_color(name: &str) -> Result<PlayerColor, SynthError> {
    PlayerColor::ALL
        .into_iter()
        .find(|c| c.name().eq_ignore_ascii_case(name))
        .ok_or_else(|| SynthError::Sprites(format!("unknown meeple colour {name}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_of_sprites_loads_as_the_committed_ones_do_and_a_missing_file_is_named() {
        let dir = std::env::temp_dir().join(format!("tablesight-sprites-{}", std::process::id()));
        std::fs::remove_dir_all(&dir).ok();
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("sprites.json"), INDEX_JSON).unwrap();
        std::fs::write(dir.join("dice.png"), DICE_PNG).unwrap();
        let missing = SpriteSheet::from_dir(&dir).err().unwrap().to_string();
        assert!(missing.contains("meeples.png"), "{missing}");
        std::fs::write(dir.join("meeples.png"), MEEPLES_PNG).unwrap();
        let sheet = SpriteSheet::from_dir(&dir).unwrap();
        let embedded = SpriteSheet::embedded().unwrap();
        let count = |groups: &[Vec<Sprite>]| groups.iter().map(Vec::len).sum::<usize>();
        assert_eq!(count(&sheet.dice), count(&embedded.dice));
        assert_eq!(count(&sheet.other_dice), count(&embedded.other_dice));
        assert_eq!(count(&sheet.meeples), count(&embedded.meeples));
        assert_eq!(count(&sheet.lying), count(&embedded.lying));
        // The pixels too: the folder's atlases, each where it belongs.
        let pixels = |groups: &[Vec<Sprite>]| groups[0][0].foreground.clone();
        assert_eq!(pixels(&sheet.dice), pixels(&embedded.dice));
        assert_eq!(pixels(&sheet.meeples), pixels(&embedded.meeples));
        std::fs::write(dir.join("sprites.json"), "{").unwrap();
        let bad = SpriteSheet::from_dir(&dir).err().unwrap().to_string();
        assert!(bad.contains(&dir.display().to_string()), "{bad}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn every_die_and_meeple_is_seen_from_low_and_high() {
        let sheet = SpriteSheet::embedded().unwrap();
        let groups = [&sheet.dice, &sheet.other_dice, &sheet.meeples];
        for group in groups.into_iter().flatten() {
            let low = group.iter().any(|s| s.elevation_deg < 55.0);
            let high = group.iter().any(|s| s.elevation_deg >= 55.0);
            assert!(low && high, "{} sprites", group.len());
        }
    }

    /// The die drawn over a grey table, 64 pixels across its box: the pixels of the face up,
    /// away from its edges, in luminance.
    fn face_up_at_64_px(sprite: &Sprite, look: &DieLook) -> Vec<Option<f32>> {
        const SIDE: usize = 64;
        let [l, t, r, b] = sprite.box_px;
        let step = (r - l).max(b - t) / SIDE as f64;
        let centre = look
            .top_face_px
            .iter()
            .fold([0.0, 0.0], |c, p| [c[0] + p[0] / 4.0, c[1] + p[1] / 4.0]);
        // The face shrunk by a tenth towards its centre (its rounded edge catches glare).
        let face = look.top_face_px.map(|p| {
            (
                centre[0] + (p[0] - centre[0]) * 0.9,
                centre[1] + (p[1] - centre[1]) * 0.9,
            )
        });
        let level = sprite.level(1.0);
        (0..SIDE * SIDE)
            .map(|i| {
                let x = l + ((i % SIDE) as f64 + 0.5) * step;
                let y = t + ((i / SIDE) as f64 + 0.5) * step;
                if !crate::surface::inside_convex(&face, x, y) {
                    return None;
                }
                let (f, tr, _) = crate::canvas::sample(sprite, level, x - 0.5, y - 0.5)?;
                Some((f + tr * Rgb::gray(0.3)).luminance())
            })
            .collect()
    }

    /// How many pips a simple blob counter sees on the face up: the luminance smoothed over
    /// 3x3 pixels (the render's noise), pixels past halfway from the face's median to its
    /// extreme on the pips' side, eroded by a pixel, in
    /// 4-connected blobs of at least a third of the smallest pip and no longer than 1.6 of
    /// the largest (a streak of glare is not a pip); an emblem is one blob of any length.
    fn pips_seen(sprite: &Sprite, look: &DieLook) -> usize {
        let raw = face_up_at_64_px(sprite, look);
        let face: Vec<Option<f32>> = (0..raw.len())
            .map(|i| {
                raw[i]?;
                let (x, y) = ((i % 64) as i64, (i / 64) as i64);
                let near: Vec<f32> = (-1..=1)
                    .flat_map(|dy| (-1..=1).map(move |dx| (x + dx, y + dy)))
                    .filter(|&(x, y)| (0..64).contains(&x) && (0..64).contains(&y))
                    .filter_map(|(x, y)| raw[(y * 64 + x) as usize])
                    .collect();
                Some(near.iter().sum::<f32>() / near.len() as f32)
            })
            .collect();
        // The face's median is its plastic (pips cover at most a third of it); a pip lies
        // past halfway from it to the face's extreme on the pips' side.
        let mut levels: Vec<f32> = face.iter().flatten().copied().collect();
        levels.sort_by(f32::total_cmp);
        let at = |q: f64| levels[((levels.len() - 1) as f64 * q) as usize];
        let bright_pips = look.pip_rgb.luminance() > 0.3;
        let median = at(0.5);
        let threshold = (median + if bright_pips { at(0.99) } else { at(0.01) }) / 2.0;
        let past: Vec<bool> = face
            .iter()
            .map(|v| v.is_some_and(|v| (v > threshold) == bright_pips))
            .collect();
        // Eroded by a pixel: thin streaks of glare along an edge vanish, pips stay.
        let is_pip: Vec<bool> = (0..past.len())
            .map(|i| {
                let (x, y) = (i % 64, i / 64);
                past[i]
                    && x > 0
                    && x < 63
                    && y > 0
                    && y < 63
                    && [i - 1, i + 1, i - 64, i + 64].iter().all(|&j| past[j])
            })
            .collect();
        // The smallest pip: 1.3 mm across... in radius, engraved ones 0.88 of it.
        let px_per_mm = sprite.px_per_mm * 64.0
            / (sprite.box_px[2] - sprite.box_px[0]).max(sprite.box_px[3] - sprite.box_px[1]);
        let smallest = std::f64::consts::PI * (1.3 * 0.88 * px_per_mm - 1.0).powi(2);
        let longest = 1.6 * 2.0 * 1.8 * px_per_mm;
        let mut seen = vec![false; is_pip.len()];
        let mut blobs = 0;
        for start in 0..is_pip.len() {
            if !is_pip[start] || seen[start] {
                continue;
            }
            let (mut stack, mut area) = (vec![start], 0);
            let mut bounds = [usize::MAX, usize::MAX, 0, 0];
            seen[start] = true;
            while let Some(i) = stack.pop() {
                area += 1;
                let (x, y) = (i % 64, i / 64);
                bounds = [
                    bounds[0].min(x),
                    bounds[1].min(y),
                    bounds[2].max(x),
                    bounds[3].max(y),
                ];
                let around = [
                    (x > 0).then(|| i - 1),
                    (x < 63).then(|| i + 1),
                    (y > 0).then(|| i - 64),
                    (y < 63).then(|| i + 64),
                ];
                for j in around.into_iter().flatten() {
                    if is_pip[j] && !seen[j] {
                        seen[j] = true;
                        stack.push(j);
                    }
                }
            }
            let length = (bounds[2] - bounds[0]).max(bounds[3] - bounds[1]) + 1;
            if area as f64 >= smallest / 3.0 && (look.emblem || length as f64 <= longest) {
                blobs += 1;
            }
        }
        blobs
    }

    /// The value labelled is the pips rendered: a blob counter at 64 px agrees on the dice seen
    /// from 70 degrees and up (all six values, every plastic). Glare on clear plastic can join
    /// a pip or outshine a dim one, where a person still counts right: the counter may miss
    /// on at most one of the game's dice in thirty, and one die of other games in fifteen
    /// (more tints, a near-white one among them, where white pips are faint; 32 of them are
    /// seen from above). A face mapping gone wrong misses on most. Translucent dice
    /// with dark pips are left out: the far faces' pips show through as dark as the near ones
    /// (as on real clear dice), which a person tells apart by their blur and a threshold
    /// cannot.
    #[test]
    fn a_blob_counter_sees_the_value_on_dice_seen_from_above() {
        let sheet = SpriteSheet::embedded().unwrap();
        let mut checked = std::collections::BTreeSet::new();
        for (dice, one_miss_in) in [(&sheet.dice, 30), (&sheet.other_dice, 15)] {
            let mut count = 0;
            let mut wrong = Vec::new();
            for sprite in dice.iter().flatten() {
                let look = sprite.die.as_ref().expect("die sprites say how they look");
                let see_through_pips = look.body != "opaque" && look.pip_rgb.luminance() < 0.3;
                if sprite.elevation_deg < 70.0 || look.tilt_deg > 0.0 || see_through_pips {
                    continue;
                }
                let expected = if look.emblem {
                    1
                } else {
                    usize::from(look.value)
                };
                let seen = pips_seen(sprite, look);
                if seen != expected {
                    wrong.push(format!("{} {} seen as {seen}", look.value, look.body));
                }
                checked.insert((look.value, look.body.clone()));
                count += 1;
            }
            assert!(count >= 30, "only {count} dice seen from above");
            assert!(
                wrong.len() * one_miss_in <= count,
                "{} of {count}: {wrong:?}",
                wrong.len()
            );
        }
        let bodies: std::collections::BTreeSet<&str> =
            checked.iter().map(|c| c.1.as_str()).collect();
        assert_eq!(bodies.len(), 5, "{bodies:?}");
        let values: std::collections::BTreeSet<u8> = checked.iter().map(|c| c.0).collect();
        assert_eq!(values.len(), 6, "{checked:?}");
    }

    #[test]
    fn a_smaller_copy_keeps_the_light() {
        let sheet = SpriteSheet::embedded().unwrap();
        let sprite = &sheet.dice[0][0];
        let mean =
            |pixels: &[Rgb]| pixels.iter().map(|p| p.sum()).sum::<f32>() / pixels.len() as f32;
        for level in &sprite.smaller {
            assert!((mean(&level.foreground) - mean(&sprite.foreground)).abs() < 1e-3);
        }
        assert_eq!(sprite.level(1.0).0, sprite.size);
        assert_eq!(sprite.level(0.3).0, sprite.size / 2);
        assert_eq!(sprite.level(0.2).0, sprite.size / 4);
    }

    #[test]
    fn a_die_covers_a_good_part_of_its_box() {
        let sheet = SpriteSheet::embedded().unwrap();
        for sprite in sheet.dice.iter().flatten() {
            let [l, t, r, b] = sprite.box_px;
            let area = (r - l) * (b - t);
            let object = sprite.mask.iter().filter(|&&m| m).count() as f64;
            assert!(area > 400.0, "a die box of {area} px");
            // Rounded edges and corners leave the box's corners empty.
            assert!(
                object > 0.45 * area && object <= area + 4.0 * (r - l + b - t),
                "{object} of {area}"
            );
        }
    }
}
