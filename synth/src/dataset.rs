//! Random scenes, and folders of them for training: `scene-00000.jpg` with
//! `scene-00000.json` beside it, each reproducible from the set's seed and its number.

use std::path::Path;
use std::time::Instant;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rules::{GameSetup, GameState, PlayerColor, TileCatalogue, random_game};
use serde::Serialize;

use crate::clutter::{Clutter, Tray};
use crate::error::SynthError;
use crate::layout::{lay_out, zone};
use crate::linear::srgb;
use crate::optics::{AutoExposure, Look};
use crate::scene::{Frame, Scene, Shot, Studio, Truth};
use crate::surface::TableSurface;

/// Share of the training scenes with 1-4 more dice of other games about.
const EXTRA_STRAY_SHARE: f64 = 0.5;
/// Share of the scenes taken from close by (a phone photo, a webcam held near the table).
const CLOSE_SHARE: f64 = 0.35;
/// The share of dataset scenes with no mat on the table (dice on wood, cloth, a game box).
const BARE_SHARE: f64 = 0.15;
/// The share of dataset scenes whose roll area lies in a dice tray.
const TRAY_SHARE: f64 = 0.2;

/// A random moment of a random legal game of 2 to 4 players, on a random table, seen by a
/// random webcam over the mat, or from close by over a tower or the roll area.
pub fn random_scene(
    studio: &Studio,
    seed: u64,
    width: usize,
    height: usize,
) -> Result<Scene, SynthError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let state = random_state(&mut rng)?;
    let mut close_target = None;
    let shot = if rng.random_bool(CLOSE_SHARE) {
        let zones = zones_of(studio, &TOWER_ZONES, &["roll-area"]);
        let [l, t, r, b] = zones[rng.random_range(0..zones.len())];
        let target = (
            (l + r) / 2.0 + rng.random_range(-30.0..30.0),
            (t + b) / 2.0 + rng.random_range(-30.0..30.0),
        );
        close_target = Some(target);
        Shot::close(target, width, height, &mut rng)
    } else {
        Shot::random(&studio.mat, width, height, &mut rng)
    };
    let mut scene = scene_of(studio, &state, seed, shot, &mut rng);
    if rng.random_bool(BARE_SHARE) {
        scene.mat = false;
        if rng.random_bool(0.4) {
            scene.surface = TableSurface::printed(&mut rng);
        }
    }
    if rng.random_bool(TRAY_SHARE) {
        let roll = zone(&studio.mat, "roll-area")?;
        scene.clutter.tray = Some(Tray::around(roll, &mut rng));
    }
    // More dice of other games than a rendered game's table has (none): the reader learns
    // dice of every look from them. Drawn last, so that games (which share `scene_of`)
    // keep their random draws.
    if rng.random_bool(EXTRA_STRAY_SHARE) {
        let count = rng.random_range(1..5);
        let [w, h] = studio.mat.size_mm;
        let table = [-50.0, -50.0, w + 50.0, h + 50.0];
        let keep_clear = zones_of(studio, &TOWER_ZONES, &KEEP_CLEAR_TOO);
        scene
            .clutter
            .scatter_stray_dice(count, table, &keep_clear, &mut rng);
    }
    // Close shots look at a tower or the roll area, where no clutter lies: without these,
    // dice of other games are only ever seen far off and small, never as large and sharp as
    // a photograph shows them. Here they may land in the roll area, never on a tower.
    if let Some((x, y)) = close_target {
        let count = rng.random_range(1..4);
        let around = [x - 90.0, y - 90.0, x + 90.0, y + 90.0];
        let towers = zones_of(studio, &TOWER_ZONES, &[]);
        scene
            .clutter
            .scatter_stray_dice(count, around, &towers, &mut rng);
    }
    Ok(scene)
}

/// The mat's zones named in `names` and `more` (left, top, right, bottom, millimetres).
fn zones_of(studio: &Studio, names: &[&str], more: &[&str]) -> Vec<[f64; 4]> {
    names
        .iter()
        .chain(more)
        .filter_map(|name| zone(&studio.mat, name).ok())
        .collect()
}

/// The mat's zones of the four towers.
const TOWER_ZONES: [&str; 4] = ["tower-a", "tower-b", "tower-c", "tower-central"];
/// The zones that clutter keeps away from besides the towers.
const KEEP_CLEAR_TOO: [&str; 2] = ["roll-area", "mana-pool"];

/// A scene of `state` with a random look and clutter.
pub fn scene_of(
    studio: &Studio,
    state: &GameState,
    seed: u64,
    shot: Shot,
    rng: &mut impl Rng,
) -> Scene {
    let table = lay_out(state, &studio.mat, seed);
    let keep_clear = zones_of(studio, &TOWER_ZONES, &KEEP_CLEAR_TOO);
    let paper_level = rng.random_range(205..250);
    Scene {
        shot,
        look: Look::random(rng),
        surface: TableSurface::random(rng),
        mat: true,
        paper: srgb(
            paper_level,
            paper_level - rng.random_range(0..12),
            paper_level - rng.random_range(0..25),
        ),
        table: table.unwrap_or_default(),
        clutter: Clutter::random(studio.mat.size_mm, &keep_clear, rng),
        emblem_sixes: rng.random_bool(0.25),
        truth: Truth::of(state),
        seed,
    }
}

/// The state after a random number of actions of a random legal game.
fn random_state(rng: &mut ChaCha8Rng) -> Result<GameState, SynthError> {
    let mut players = PlayerColor::ALL.to_vec();
    players.shuffle(rng);
    players.truncate(rng.random_range(2..=4));
    let catalogue = TileCatalogue::arkhanos();
    let setup = GameSetup::random(&players, &catalogue, rng);
    let (record, _) =
        random_game(setup.clone(), &catalogue, rng).map_err(|e| SynthError::Game(e.to_string()))?;
    let stop = rng.random_range(0..=record.actions.len());
    let mut state = setup
        .start(&catalogue)
        .map_err(|e| SynthError::Game(e.to_string()))?;
    for action in &record.actions[..stop] {
        state = state
            .play(action)
            .map_err(|e| SynthError::Game(e.violation.to_string()))?;
    }
    Ok(state)
}

/// What a call of [`write_scenes`] made, and how fast.
#[derive(Clone, Debug, Serialize)]
pub struct DatasetSummary {
    pub scenes: usize,
    pub dice: usize,
    pub meeples: usize,
    pub seconds: f64,
    pub scenes_per_minute: f64,
    pub threads: usize,
}

/// The seed of scene `index` of a set made from `seed`.
pub fn scene_seed(seed: u64, index: usize) -> u64 {
    seed.wrapping_mul(1_000_003).wrapping_add(index as u64)
}

/// Renders scenes `0..count` of the set `seed` into `dir`, on `threads` threads.
pub fn write_scenes(
    studio: &Studio,
    dir: &Path,
    seed: u64,
    count: usize,
    (width, height): (usize, usize),
    threads: usize,
) -> Result<DatasetSummary, SynthError> {
    std::fs::create_dir_all(dir).map_err(|e| write_error(dir, &e))?;
    let started = Instant::now();
    let threads = threads.clamp(1, count.max(1));
    let results: Vec<Result<(usize, usize), SynthError>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || -> Result<(usize, usize), SynthError> {
                    let (mut dice, mut meeples) = (0, 0);
                    for index in (t..count).step_by(threads) {
                        let seed = scene_seed(seed, index);
                        let scene = random_scene(studio, seed, width, height)?;
                        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x0F71C5);
                        let frame = studio.render(&scene, &mut AutoExposure::still(), &mut rng)?;
                        dice += frame.labels.dice.len();
                        meeples += frame.labels.meeples.len();
                        write_frame(dir, &format!("scene-{index:05}"), &frame)?;
                    }
                    Ok((dice, meeples))
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| {
                w.join()
                    .unwrap_or_else(|_| Err(SynthError::Game("a render thread panicked".into())))
            })
            .collect()
    });
    let (mut dice, mut meeples) = (0, 0);
    for result in results {
        let (d, m) = result?;
        dice += d;
        meeples += m;
    }
    let seconds = started.elapsed().as_secs_f64();
    Ok(DatasetSummary {
        scenes: count,
        dice,
        meeples,
        seconds,
        scenes_per_minute: count as f64 / seconds.max(1e-9) * 60.0,
        threads,
    })
}

/// Writes `<stem>.jpg` and `<stem>.json`.
pub fn write_frame(dir: &Path, stem: &str, frame: &Frame) -> Result<(), SynthError> {
    let image = dir.join(format!("{stem}.jpg"));
    std::fs::write(&image, &frame.jpeg).map_err(|e| write_error(&image, &e))?;
    let labels = dir.join(format!("{stem}.json"));
    let json = serde_json::to_string_pretty(&frame.labels)
        .map_err(|e| SynthError::Encode(e.to_string()))?;
    std::fs::write(&labels, json + "\n").map_err(|e| write_error(&labels, &e))
}

pub fn write_error(path: &Path, error: &std::io::Error) -> SynthError {
    SynthError::Write {
        path: path.to_path_buf(),
        reason: error.to_string(),
    }
}
