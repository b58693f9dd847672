//! The dice and meeples as a physically based renderer drew them (`models/render/
//! render_sprites.py`, Mitsuba 3): per sprite a foreground `F` and a transmission `T`, so that
//! over any background `B` the object looks like `F + T * B`, channel by channel. A translucent
//! die tints what lies below it, and the lamp's soft contact shadow is where `T` falls below 1.

use image::ImageFormat;
use rand::Rng;
use rand::seq::IndexedRandom;
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
    /// The pixel where the object touches the ground.
    pub anchor_px: [f64; 2],
    /// Pixels per millimetre on the ground at the anchor.
    pub px_per_mm: f64,
    /// The die's box (left, top, right, bottom) in sprite pixels; for meeples, the object's box.
    pub box_px: [f64; 4],
    pub elevation_deg: f64,
    /// Per pixel, whether it shows the object itself (not its shadow, not the ground).
    pub mask: Vec<bool>,
}

impl Sprite {
    pub fn is_object(&self, index: usize) -> bool {
        self.mask[index]
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
    /// Per player colour and rank (index `color * 2 + rank`).
    meeples: Vec<Vec<Sprite>>,
}

impl SpriteSheet {
    /// The sprites committed with the crate.
    pub fn embedded() -> Result<Self, SynthError> {
        Self::from_parts(INDEX_JSON, DICE_PNG, MEEPLES_PNG)
    }

    fn from_parts(index: &str, dice_png: &[u8], meeples_png: &[u8]) -> Result<Self, SynthError> {
        let index: Index =
            serde_json::from_str(index).map_err(|e| SynthError::Sprites(e.to_string()))?;
        if index.format != "tablesight-sprites" || index.version != 1 {
            return Err(SynthError::Sprites(format!(
                "expected tablesight-sprites version 1, found {} version {}",
                index.format, index.version
            )));
        }
        let dice_atlas = decode(dice_png)?;
        let meeple_atlas = decode(meeples_png)?;
        let mut dice = vec![Vec::new(); 24];
        for entry in &index.dice {
            let color = die_color(&entry.color)?;
            let value = entry
                .value
                .and_then(DieValue::new)
                .ok_or_else(|| SynthError::Sprites("a die sprite without a value".into()))?;
            let sprite = cut(&dice_atlas, &index, entry)?;
            dice[color.index() * 6 + usize::from(value.get()) - 1].push(sprite);
        }
        let mut meeples = vec![Vec::new(); 8];
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
            meeples[player as usize * 2 + rank as usize].push(sprite);
        }
        if dice.iter().chain(&meeples).any(Vec::is_empty) {
            return Err(SynthError::Sprites(
                "some die or meeple has no sprite: render them again".into(),
            ));
        }
        Ok(Self { dice, meeples })
    }

    /// A sprite of the die seen from close to `elevation_deg` above the table.
    pub fn die(
        &self,
        color: DieColor,
        value: DieValue,
        elevation_deg: f64,
        rng: &mut impl Rng,
    ) -> &Sprite {
        let group = &self.dice[color.index() * 6 + usize::from(value.get()) - 1];
        nearest(group, elevation_deg, rng)
    }

    /// A sprite of the meeple seen from close to `elevation_deg` above the table.
    pub fn meeple(
        &self,
        player: PlayerColor,
        rank: Rank,
        elevation_deg: f64,
        rng: &mut impl Rng,
    ) -> &Sprite {
        nearest(
            &self.meeples[player as usize * 2 + rank as usize],
            elevation_deg,
            rng,
        )
    }
}

/// A random sprite among those rendered at the elevation nearest to `elevation_deg`.
fn nearest<'a>(group: &'a [Sprite], elevation_deg: f64, rng: &mut impl Rng) -> &'a Sprite {
    let best = group
        .iter()
        .map(|s| (s.elevation_deg - elevation_deg).abs())
        .fold(f64::INFINITY, f64::min);
    let candidates: Vec<&Sprite> = group
        .iter()
        .filter(|s| (s.elevation_deg - elevation_deg).abs() <= best + 1e-9)
        .collect();
    candidates.choose(rng).copied().unwrap_or(&group[0])
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
    Ok(Sprite {
        size,
        foreground,
        transmission,
        anchor_px: entry.anchor_px,
        px_per_mm: entry.px_per_mm,
        box_px,
        elevation_deg: entry.elevation_deg,
        mask,
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
    fn every_die_and_meeple_has_sprites_from_each_elevation() {
        let sheet = SpriteSheet::embedded().unwrap();
        for group in sheet.dice.iter().chain(&sheet.meeples) {
            let mut elevations: Vec<i64> = group
                .iter()
                .map(|s| s.elevation_deg.round() as i64)
                .collect();
            elevations.dedup();
            assert!(elevations.len() >= 3, "{elevations:?}");
        }
    }

    #[test]
    fn a_die_covers_a_good_part_of_its_box() {
        let sheet = SpriteSheet::embedded().unwrap();
        for sprite in sheet.dice.iter().flatten() {
            let [l, t, r, b] = sprite.box_px;
            let area = (r - l) * (b - t);
            let object = sprite.mask.iter().filter(|&&m| m).count() as f64;
            assert!(area > 400.0, "a die box of {area} px");
            assert!(
                object > 0.6 * area && object <= area + 4.0 * (r - l + b - t),
                "{object} of {area}"
            );
        }
    }
}
