//! One rendered scene: a table (a game state laid out on the mat), the clutter around it, a
//! camera and a look (light and webcam), drawn and labelled.

use std::sync::{Arc, Mutex, PoisonError};

use calibration::nalgebra::Point3;
use calibration::{Camera, Intrinsics, MatArtwork, MatLayout, TablePoint};
use rand::Rng;
use rules::{Die, GameState, PlayerColor, TableSnapshot, TowerId};
use serde::{Deserialize, Serialize};

use crate::canvas::{Canvas, NOBODY};
use crate::clutter::Clutter;
use crate::error::SynthError;
use crate::layout::{Board, DIE_MM, FloorTile, Place, TILE_MM, TableLayout};
use crate::linear::{Rgb, srgb};
use crate::optics::{AutoExposure, LensMap, Look, develop};
use crate::sprites::SpriteSheet;
use crate::surface::{PrintedMat, TableSurface, hue, inside_convex, pips, segment_distance};

/// The frame size and the camera.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Shot {
    pub width: usize,
    pub height: usize,
    pub camera: Camera,
}

impl Shot {
    /// A webcam somewhere around the table, aimed at the mat: from straight above to 35
    /// degrees, from any side, 55 to 80 degrees wide, with its own lens distortion.
    pub fn random(mat: &MatLayout, width: usize, height: usize, rng: &mut impl Rng) -> Self {
        let (fov, intrinsics) = webcam_lens(width, height, rng);
        let [w, h] = mat.size_mm;
        let target = Point3::new(
            w / 2.0 + rng.random_range(-50.0..50.0),
            h / 2.0 + rng.random_range(-40.0..40.0),
            0.0,
        );
        let elevation = rng.random_range(35.0_f64..90.0).to_radians();
        let azimuth = rng.random_range(0.0..std::f64::consts::TAU);
        // Far enough for the mat's long side to fill most of the narrower field.
        let half_fov = (fov.to_radians() / 2.0) * (height as f64 / width as f64).min(1.0);
        let distance = w * rng.random_range(0.45..0.62) / half_fov.tan();
        Self::from_eye(
            width, height, intrinsics, target, distance, elevation, azimuth,
        )
    }

    /// A close look at `target` (table millimetres), as a phone photo or a webcam held near
    /// the table takes it: from 35 to 90 degrees up, from any side, 110 to 700 mm of the
    /// table across the picture (evenly on a log scale), so that dice are 29 to 190 pixels
    /// wide at 1280x720. Up to 380 mm only, no rendered die's box was 45 to 60 px wide at
    /// 1280x720, where a third of byler-d6's are (`models/training/die_sizes.py`).
    pub fn close(target: (f64, f64), width: usize, height: usize, rng: &mut impl Rng) -> Self {
        let (fov, intrinsics) = webcam_lens(width, height, rng);
        let target = Point3::new(target.0, target.1, 0.0);
        let elevation = rng.random_range(35.0_f64..90.0).to_radians();
        let azimuth = rng.random_range(0.0..std::f64::consts::TAU);
        let across_mm = rng.random_range(110.0_f64.ln()..700.0_f64.ln()).exp();
        let distance = across_mm / 2.0 / (fov.to_radians() / 2.0).tan();
        Self::from_eye(
            width, height, intrinsics, target, distance, elevation, azimuth,
        )
    }

    /// A webcam set up to referee a game, as the calibration's advice has it: over the
    /// near long side of the mat, 55 to 80 degrees above it, framing the mat's long side
    /// across the picture's width with a little margin, so that dice are as large as the
    /// camera can show them.
    pub fn referee(mat: &MatLayout, width: usize, height: usize, rng: &mut impl Rng) -> Self {
        let (fov, intrinsics) = webcam_lens(width, height, rng);
        let [w, h] = mat.size_mm;
        let target = Point3::new(
            w / 2.0 + rng.random_range(-15.0..15.0),
            h / 2.0 + rng.random_range(-15.0..15.0),
            0.0,
        );
        let elevation = rng.random_range(55.0_f64..80.0).to_radians();
        let azimuth = rng.random_range(80.0_f64..100.0).to_radians();
        let margin = rng.random_range(0.02..0.06);
        // From close, step back until the whole mat is in the picture with the margin.
        let mut distance = w * 0.5 / (fov.to_radians() / 2.0).tan();
        loop {
            let shot = Self::from_eye(
                width, height, intrinsics, target, distance, elevation, azimuth,
            );
            let inside = |(x, y): (f64, f64)| {
                shot.camera
                    .project(TablePoint::on_mat(x, y))
                    .is_some_and(|p| {
                        (margin..1.0 - margin).contains(&(p.x / width as f64))
                            && (margin..1.0 - margin).contains(&(p.y / height as f64))
                    })
            };
            let framed = [(0.0, 0.0), (w, 0.0), (0.0, h), (w, h)]
                .into_iter()
                .all(inside);
            if framed || distance > 5.0 * w {
                return shot;
            }
            distance *= 1.04;
        }
    }

    fn from_eye(
        width: usize,
        height: usize,
        intrinsics: Intrinsics,
        target: Point3<f64>,
        distance: f64,
        elevation: f64,
        azimuth: f64,
    ) -> Self {
        let eye = Point3::new(
            target.x + distance * elevation.cos() * azimuth.cos(),
            target.y + distance * elevation.cos() * azimuth.sin(),
            -distance * elevation.sin(),
        );
        Self {
            width,
            height,
            camera: Camera::looking_at(intrinsics, eye, target),
        }
    }
}

/// A webcam's lens: its horizontal field of view (55 to 80 degrees) and intrinsics, with a
/// slightly off centre and its own distortion; a distortion drawn too strong for the field
/// of view, one that would fold back inside the picture (`Intrinsics::inverts_over`; a
/// tenth of the wide lenses drawn), is weakened until it does not: a real lens shows its
/// whole picture, where the folded model smeared scraps of it over the corners.
fn webcam_lens(width: usize, height: usize, rng: &mut impl Rng) -> (f64, Intrinsics) {
    let fov = rng.random_range(55.0..80.0);
    let mut intrinsics = Intrinsics::from_field_of_view(width as u32, height as u32, fov);
    intrinsics.cx_px += rng.random_range(-0.02..0.02) * width as f64;
    intrinsics.cy_px += rng.random_range(-0.02..0.02) * height as f64;
    intrinsics.fy_px *= rng.random_range(0.99..1.01);
    intrinsics.k1 = rng.random_range(-0.28..0.03);
    intrinsics.k2 = rng.random_range(-0.02..0.08);
    while !intrinsics.inverts_over(width as u32, height as u32) {
        intrinsics.k1 *= 0.9;
        intrinsics.k2 *= 0.9;
    }
    (fov, intrinsics)
}

/// Everything that makes one picture.
#[derive(Clone, Debug)]
pub struct Scene {
    pub shot: Shot,
    pub look: Look,
    pub surface: TableSurface,
    /// Whether the printed mat lies on the table: photos of dice are taken without it too.
    pub mat: bool,
    pub paper: Rgb,
    pub table: TableLayout,
    pub clutter: Clutter,
    /// Whether the dice set draws its six as an emblem, as some board games' dice do.
    pub emblem_sixes: bool,
    /// The players' colours, the snapshot and the roll of the state drawn.
    pub truth: Truth,
    /// Seeds the textures and the choice of sprites.
    pub seed: u64,
}

/// The state of the game that a scene shows.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Truth {
    pub players: Vec<PlayerColor>,
    pub snapshot: TableSnapshot,
    pub roll: Vec<Die>,
}

impl Truth {
    pub fn of(state: &GameState) -> Self {
        Self {
            players: state.players().iter().map(|p| p.color).collect(),
            snapshot: state.table().to_snapshot(),
            roll: state.roll().to_vec(),
        }
    }
}

/// A die as the frame shows it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct DieLabel {
    pub die: Die,
    /// Left, top, right, bottom in frame pixels (the lens distortion applied).
    pub box_px: [f64; 4],
    /// The centre of the face it lies on, in table millimetres.
    pub table_mm: TablePoint,
    pub place: Place,
    /// The share of its pixels that nothing covers and that lie in the frame.
    pub visible: f64,
}

/// A meeple as the frame shows it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct MeepleLabel {
    pub meeple: rules::Meeple,
    pub box_px: [f64; 4],
    pub table_mm: TablePoint,
    pub place: Place,
    pub visible: f64,
}

/// A die of another game as the frame shows it (its colour is "other").
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct OtherDieLabel {
    pub value: rules::DieValue,
    pub box_px: [f64; 4],
    pub table_mm: TablePoint,
    pub visible: f64,
}

/// The labels of one frame.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Labels {
    pub format: String,
    pub version: u32,
    pub width: usize,
    pub height: usize,
    pub camera: Camera,
    pub dice: Vec<DieLabel>,
    pub meeples: Vec<MeepleLabel>,
    /// Dice of other games lying about.
    #[serde(default)]
    pub other_dice: Vec<OtherDieLabel>,
    /// Hands in view (each covers part of the table).
    pub hands: usize,
    pub truth: Truth,
}

impl Labels {
    /// Whether a meeple stands on `die`: placed with it on a tower's pillar, the meeple
    /// stands on the die's top face, so no camera sees the value (its colour still shows).
    /// A pillar holds one die and one meeple at most, so sharing a tower place is standing
    /// on it. `models/training/prepare_synth.py` asks the same of the labels.
    pub fn meeple_stands_on(&self, die: &DieLabel) -> bool {
        matches!(die.place, Place::Tower { .. })
            && self.meeples.iter().any(|m| m.place == die.place)
    }
}

/// A frame: the JPEG file's bytes and its labels.
pub struct Frame {
    pub jpeg: Vec<u8>,
    pub labels: Labels,
}

/// What the renderer needs besides the scene: sprites, the mat and its artwork; and the
/// lens map of the last camera, which a game's frames share.
pub struct Studio {
    pub sprites: SpriteSheet,
    pub mat: MatLayout,
    pub artwork: MatArtwork,
    lens: Mutex<Option<Arc<LensMap>>>,
}

impl Studio {
    /// The studio with the committed sprites.
    pub fn new() -> Result<Self, SynthError> {
        Self::with_sprites(SpriteSheet::embedded()?)
    }

    /// The studio with another sprite set (`SpriteSheet::from_dir`).
    pub fn with_sprites(sprites: SpriteSheet) -> Result<Self, SynthError> {
        let mat = MatLayout::a2();
        let artwork = MatArtwork::new(&mat).map_err(|e| SynthError::Layout(e.to_string()))?;
        Ok(Self {
            sprites,
            mat,
            artwork,
            lens: Mutex::new(None),
        })
    }

    /// The lens map of `camera` at `width` x `height`: the last one when it fits, else a new
    /// one (worked out outside the lock: scenes rendered in parallel each have a camera of
    /// their own), kept for the next picture.
    fn lens(&self, camera: &Camera, width: usize, height: usize) -> Arc<LensMap> {
        let last = || self.lens.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(map) = last().as_ref()
            && map.fits(&camera.intrinsics, width, height)
        {
            return Arc::clone(map);
        }
        let map = Arc::new(LensMap::new(&camera.intrinsics, width, height));
        *last() = Some(Arc::clone(&map));
        map
    }

    /// Draws `scene` and labels it; `exposure` carries auto-exposure from frame to frame.
    pub fn render(
        &self,
        scene: &Scene,
        exposure: &mut AutoExposure,
        rng: &mut impl Rng,
    ) -> Result<Frame, SynthError> {
        let Shot {
            width,
            height,
            camera,
        } = scene.shot;
        let mut canvas = Canvas::new(&camera, width, height);
        let seed = (scene.seed & 0xFFFF_FFFF) as u32;
        let printed = PrintedMat {
            artwork: &self.artwork,
            size_mm: self.mat.size_mm,
            paper: scene.paper,
        };
        let surface = scene.surface;
        canvas.fill_table(
            |x, y| {
                scene
                    .mat
                    .then(|| printed.color(x, y, seed))
                    .flatten()
                    .unwrap_or_else(|| surface.color(x, y, seed))
            },
            Rgb::gray(0.2),
        );
        for board in &scene.table.boards {
            draw_board(&mut canvas, board);
        }
        scene.clutter.draw_flat(&mut canvas);
        for floor in &scene.table.floors {
            let shift = floor.top_mm * 0.08;
            canvas.darken(bounds(&floor.corners, 6.0 + shift), |x, y| {
                let inside = inside_convex(&floor.corners, x - shift, y - shift);
                if inside { 0.28 } else { 0.0 }
            });
        }
        scene.clutter.draw_shadows(&mut canvas);

        // Things that stand up, far to near; a tower is one group, drawn floor by floor.
        let mut groups: Vec<(f64, Vec<Item>)> = Vec::new();
        let depth = |p: TablePoint| (camera.camera_from_table * p.to_3d()).z;
        let mut towers: Vec<(TowerId, Vec<Item>)> = Vec::new();
        let mut tower_anchor = Vec::new();
        for (i, floor) in scene.table.floors.iter().enumerate() {
            let entry = match towers.iter_mut().position(|(t, _)| *t == floor.tower) {
                Some(k) => k,
                None => {
                    towers.push((floor.tower, Vec::new()));
                    tower_anchor.push(TablePoint::on_mat(floor.center.0, floor.center.1));
                    towers.len() - 1
                }
            };
            towers[entry].1.push(Item::Floor(i));
            let mut on_floor: Vec<(f64, Item)> = Vec::new();
            for (d, die) in scene.table.dice.iter().enumerate() {
                if matches!(die.place, Place::Tower { tower, level, .. } if tower == floor.tower && level == floor.level)
                {
                    on_floor.push((depth(die.at), Item::Die(d)));
                }
            }
            for (m, meeple) in scene.table.meeples.iter().enumerate() {
                if matches!(meeple.place, Place::Tower { tower, level, .. } if tower == floor.tower && level == floor.level)
                {
                    on_floor.push((depth(meeple.at) - 1e-3, Item::Meeple(m)));
                }
            }
            on_floor.sort_by(|a, b| b.0.total_cmp(&a.0));
            towers[entry]
                .1
                .extend(on_floor.into_iter().map(|(_, item)| item));
        }
        for ((_, items), anchor) in towers.into_iter().zip(tower_anchor) {
            groups.push((depth(anchor.at_height(DIE_MM)), items));
        }
        for (d, die) in scene.table.dice.iter().enumerate() {
            if !matches!(die.place, Place::Tower { .. }) {
                groups.push((depth(die.at), vec![Item::Die(d)]));
            }
        }
        for (m, meeple) in scene.table.meeples.iter().enumerate() {
            if !matches!(meeple.place, Place::Tower { .. }) {
                groups.push((depth(meeple.at), vec![Item::Meeple(m)]));
            }
        }
        for (s, stray) in scene.clutter.stray_dice.iter().enumerate() {
            let at = TablePoint::on_mat(stray.center.0, stray.center.1);
            groups.push((depth(at), vec![Item::Stray(s)]));
        }
        for (c, cup) in scene.clutter.cups.iter().enumerate() {
            groups.push((
                depth(TablePoint::on_mat(cup.center.0, cup.center.1)),
                vec![Item::Cup(c)],
            ));
        }
        groups.sort_by(|a, b| b.0.total_cmp(&a.0));

        let mut drawn_dice = vec![None; scene.table.dice.len()];
        let mut drawn_meeples = vec![None; scene.table.meeples.len()];
        let mut drawn_strays = vec![None; scene.clutter.stray_dice.len()];
        for item in groups.into_iter().flat_map(|(_, items)| items) {
            match item {
                Item::Floor(i) => draw_floor(&mut canvas, &scene.table.floors[i]),
                Item::Die(d) => {
                    let placed = &scene.table.dice[d];
                    let elevation = canvas.elevation_deg(placed.at);
                    let sprite = self.sprites.die(
                        placed.die.color,
                        placed.die.value,
                        scene.emblem_sixes,
                        elevation,
                        &mut piece_rng(scene.seed, placed.at),
                    );
                    drawn_dice[d] = canvas.draw_sprite(sprite, placed.at, die_id(d));
                }
                Item::Meeple(m) => {
                    let placed = &scene.table.meeples[m];
                    let elevation = canvas.elevation_deg(placed.at);
                    let rng = &mut piece_rng(scene.seed, placed.at);
                    // Half the meeples in a reserve lie where they were dropped.
                    let lying =
                        matches!(placed.place, Place::Reserve { .. }) && rng.random_bool(0.5);
                    let sprite = self.sprites.meeple(
                        placed.meeple.player,
                        placed.meeple.rank,
                        lying,
                        elevation,
                        rng,
                    );
                    drawn_meeples[m] = canvas.draw_sprite(sprite, placed.at, meeple_id(m));
                }
                Item::Stray(s) => {
                    let stray = &scene.clutter.stray_dice[s];
                    let at = TablePoint::on_mat(stray.center.0, stray.center.1);
                    let elevation = canvas.elevation_deg(at);
                    let rng = &mut piece_rng(scene.seed, at);
                    let sprite = self.sprites.other_die(stray.value, elevation, rng);
                    drawn_strays[s] = canvas.draw_sprite(sprite, at, stray_id(s));
                }
                Item::Cup(c) => scene.clutter.cups[c].draw(&mut canvas),
            }
        }
        scene.clutter.draw_hands(
            &mut canvas,
            &self.sprites,
            scene.emblem_sixes,
            &mut piece_rng(scene.seed, TablePoint::on_mat(0.0, 0.0)),
        );

        let frame_box = |canvas: &Canvas, drawn: &crate::canvas::Drawn, id: u32| {
            let [l, t, r, b] = drawn.box_px;
            let corners = [
                (l, t),
                (r, t),
                (l, b),
                (r, b),
                ((l + r) / 2.0, t),
                ((l + r) / 2.0, b),
                (l, (t + b) / 2.0),
                (r, (t + b) / 2.0),
            ]
            .map(|(x, y)| canvas.to_frame(&camera, calibration::nalgebra::Point2::new(x, y)));
            let mut bx = [
                f64::INFINITY,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NEG_INFINITY,
            ];
            for p in corners {
                bx = [
                    bx[0].min(p.x),
                    bx[1].min(p.y),
                    bx[2].max(p.x),
                    bx[3].max(p.y),
                ];
            }
            let area = (bx[2] - bx[0]) * (bx[3] - bx[1]);
            let clipped = [
                bx[0].max(0.0),
                bx[1].max(0.0),
                bx[2].min(width as f64),
                bx[3].min(height as f64),
            ];
            let inside = ((clipped[2] - clipped[0]).max(0.0) * (clipped[3] - clipped[1]).max(0.0))
                / area.max(1e-9);
            let shown = canvas.pixels_of(id) as f64 / drawn.object_px.max(1) as f64;
            (clipped, (shown * inside).clamp(0.0, 1.0))
        };
        // Each drawn piece still in view: its index, box and visible share.
        let in_view = |drawn: &[Option<crate::canvas::Drawn>], id: fn(usize) -> u32| {
            drawn
                .iter()
                .enumerate()
                .filter_map(|(i, d)| {
                    let (box_px, visible) = frame_box(&canvas, d.as_ref()?, id(i));
                    (visible > 0.0).then_some((i, box_px, visible))
                })
                .collect::<Vec<_>>()
        };
        let dice = in_view(&drawn_dice, die_id)
            .into_iter()
            .map(|(d, box_px, visible)| {
                let placed = &scene.table.dice[d];
                DieLabel {
                    die: placed.die,
                    box_px,
                    table_mm: placed.at,
                    place: placed.place,
                    visible,
                }
            })
            .collect();
        let meeples = in_view(&drawn_meeples, meeple_id)
            .into_iter()
            .map(|(m, box_px, visible)| {
                let placed = &scene.table.meeples[m];
                MeepleLabel {
                    meeple: placed.meeple,
                    box_px,
                    table_mm: placed.at,
                    place: placed.place,
                    visible,
                }
            })
            .collect();
        let other_dice = in_view(&drawn_strays, stray_id)
            .into_iter()
            .map(|(s, box_px, visible)| {
                let stray = &scene.clutter.stray_dice[s];
                OtherDieLabel {
                    value: stray.value,
                    box_px,
                    table_mm: TablePoint::on_mat(stray.center.0, stray.center.1),
                    visible,
                }
            })
            .collect();
        let lens = self.lens(&camera, width, height);
        let jpeg = develop(&canvas, &lens, &scene.look, exposure, rng)?;
        Ok(Frame {
            jpeg,
            labels: Labels {
                format: "tablesight-scene".into(),
                version: 1,
                width,
                height,
                camera,
                dice,
                meeples,
                other_dice,
                hands: scene.clutter.hands.len(),
                truth: scene.truth.clone(),
            },
        })
    }
}

/// The generator that picks a piece's sprite: the same piece in the same place looks the
/// same in every frame.
fn piece_rng(seed: u64, at: TablePoint) -> rand_chacha::ChaCha8Rng {
    let key = |v: f64| (v * 4.0).round() as i64 as u64;
    crate::layout::rng_for(seed, &[key(at.x_mm), key(at.y_mm), key(at.height_mm)])
}

#[derive(Clone, Copy, Debug)]
enum Item {
    Floor(usize),
    Die(usize),
    Meeple(usize),
    Stray(usize),
    Cup(usize),
}

fn die_id(index: usize) -> u32 {
    1 + index as u32
}

fn meeple_id(index: usize) -> u32 {
    0x10000 + index as u32
}

fn stray_id(index: usize) -> u32 {
    0x20000 + index as u32
}

/// The bounds of a polygon, grown by `margin` mm.
pub fn bounds(corners: &[(f64, f64)], margin: f64) -> [f64; 4] {
    corners.iter().fold(
        [
            f64::INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NEG_INFINITY,
        ],
        |b, &(x, y)| {
            [
                b[0].min(x - margin),
                b[1].min(y - margin),
                b[2].max(x + margin),
                b[3].max(y + margin),
            ]
        },
    )
}

fn draw_floor(canvas: &mut Canvas, floor: &FloorTile) {
    let b = bounds(&floor.corners, 1.0);
    let edge = srgb(70, 62, 58);
    canvas.draw_flat(floor.top_mm - TILE_MM, b, NOBODY, |x, y| {
        inside_convex(&floor.corners, x, y).then_some((edge, 1.0))
    });
    canvas.draw_flat(floor.top_mm - TILE_MM / 2.0, b, NOBODY, |x, y| {
        inside_convex(&floor.corners, x, y).then_some((edge.scale(1.3), 1.0))
    });
    let stone = hue(f64::from(floor.art % 17) / 17.0).mix(srgb(150, 140, 128), 0.75);
    let central = floor.tower == TowerId::Central;
    canvas.draw_flat(floor.top_mm, b, NOBODY, |x, y| {
        if !inside_convex(&floor.corners, x, y) {
            return None;
        }
        let n = floor.corners.len();
        let rim = (0..n)
            .map(|i| segment_distance(floor.corners[i], floor.corners[(i + 1) % n], x, y))
            .fold(f64::INFINITY, f64::min);
        if rim < 2.0 {
            return Some((srgb(60, 48, 40), 1.0));
        }
        let (dx, dy) = (x - floor.center.0, y - floor.center.1);
        let r = (dx * dx + dy * dy).sqrt();
        for &(px, py) in &floor.pillars {
            let d = ((x - px).powi(2) + (y - py).powi(2)).sqrt();
            if d < 11.0 {
                let ring = if d > 9.5 { 0.35 } else { 1.05 };
                return Some((stone.scale(ring as f32), 1.0));
            }
        }
        if r < 11.0 {
            let color = if central {
                hue(dy.atan2(dx) / std::f64::consts::TAU)
            } else {
                hue(f64::from(floor.art % 4) / 4.0 + 0.9).scale(0.8)
            };
            return Some((color.mix(Rgb::WHITE, 0.2), 1.0));
        }
        let texture = 0.85 + crate::surface::fractal(x / 9.0, y / 9.0, floor.art) * 0.3;
        Some((stone.scale(texture), 1.0))
    });
}

fn draw_board(canvas: &mut Canvas, board: &Board) {
    let [w, h] = board.size_mm;
    let (cx, cy) = board.center;
    let border = player_paint(board.player);
    let parchment = srgb(216, 198, 152);
    canvas.draw_flat(
        1.0,
        [cx - w / 2.0, cy - h / 2.0, cx + w / 2.0, cy + h / 2.0],
        NOBODY,
        |x, y| {
            let (dx, dy) = ((x - cx).abs(), (y - cy).abs());
            if dx > w / 2.0 || dy > h / 2.0 {
                return None;
            }
            if dx > w / 2.0 - 3.0 || dy > h / 2.0 - 3.0 {
                return Some((border, 1.0));
            }
            for (i, &(sx, sy)) in board.slots.iter().enumerate() {
                let (ex, ey) = (x - sx, y - sy);
                let d = (ex * ex + ey * ey).sqrt();
                if d < 8.0 {
                    let pip = pips(i as u8 + 1).iter().any(|&(px, py)| {
                        ((ex - px * 3.6).powi(2) + (ey - py * 3.6).powi(2)).sqrt() < 1.3
                    });
                    let color = if pip {
                        srgb(40, 30, 25)
                    } else if d > 7.0 {
                        srgb(90, 70, 50)
                    } else {
                        srgb(236, 226, 200)
                    };
                    return Some((color, 1.0));
                }
            }
            let texture = 0.92 + crate::surface::fractal(x / 12.0, y / 12.0, 5) * 0.12;
            Some((parchment.scale(texture), 1.0))
        },
    );
}

/// The paint of a player's pieces, as a flat colour.
pub fn player_paint(player: PlayerColor) -> Rgb {
    match player {
        PlayerColor::Blue => srgb(30, 70, 170),
        PlayerColor::Green => srgb(40, 130, 60),
        PlayerColor::Red => srgb(180, 35, 30),
        PlayerColor::Yellow => srgb(230, 185, 30),
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    #[test]
    fn a_close_shot_shows_a_die_29_to_190_px_wide_at_720p() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut from_farther = 0;
        for _ in 0..200 {
            let shot = Shot::close((300.0, 200.0), 1280, 720, &mut rng);
            let at = |dx: f64| {
                shot.camera
                    .project(TablePoint::on_mat(300.0 + dx, 200.0))
                    .unwrap()
            };
            // A 16 mm die's width across the middle of the picture, whichever way it turns.
            let (left, right) = (at(-DIE_MM / 2.0), at(DIE_MM / 2.0));
            let (up, down) = (
                shot.camera
                    .project(TablePoint::on_mat(300.0, 200.0 - DIE_MM / 2.0))
                    .unwrap(),
                shot.camera
                    .project(TablePoint::on_mat(300.0, 200.0 + DIE_MM / 2.0))
                    .unwrap(),
            );
            let width = (right - left).norm().max((down - up).norm());
            assert!((25.0..200.0).contains(&width), "a die {width:.0} px wide");
            from_farther += usize::from(width < 45.0);
        }
        // Boxes of dice seen this size are as large as most of the real photographs' dice.
        assert!(
            from_farther >= 20,
            "{from_farther} of 200 dice under 45 px wide"
        );
    }
}
