//! Whole games as webcam video: a random legal game from the rules engine, played out frame by
//! frame at a real frame rate, with hands carrying dice and meeples, dice tumbling in the roll
//! area, pauses, and now and then a staged illegal placement that the player takes back.
//! Beside the frames: the labels of every frame, the true action log with the frames each
//! action spans, and the game record.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::time::Instant;

use calibration::TablePoint;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rules::{Action, Die, DieValue, GameSetup, GameState, PlayerColor, TileCatalogue};
use serde::{Deserialize, Serialize};

use crate::clutter::Hand;
use crate::dataset::{scene_of, write_error};
use crate::error::SynthError;
use crate::layout::{Place, PlacedDie, PlacedMeeple, TableLayout, lay_out, scatter, zone};
use crate::optics::AutoExposure;
use crate::scene::{Scene, Shot, Studio, Truth};

/// What game to render, and how.
#[derive(Clone, Debug)]
pub struct GameRequest {
    pub seed: u64,
    pub players: Vec<PlayerColor>,
    /// Stop after this many actions of the game (the whole game when `None`).
    pub max_actions: Option<usize>,
    pub size: (usize, usize),
    pub fps: u32,
    /// The share of placements that a player first puts somewhere illegal.
    pub illegal_share: f64,
    /// The share of placements before which a player, thinking, rests a hand over a die on
    /// the table for a few seconds, hiding it and what stands near it. 0 leaves every other
    /// frame of the game as it is without rests.
    pub rest_share: f64,
}

/// How long a hand rests over the table before a placement (`GameRequest::rest_share`),
/// in seconds.
const REST_SECONDS: std::ops::Range<f64> = 1.5..4.0;
/// A resting hand is never quite still: its wrist wanders this far (mm) from frame to frame.
const REST_TREMOR_MM: f64 = 1.5;

/// One entry of the true action log.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LoggedAction {
    pub first_frame: usize,
    pub last_frame: usize,
    pub action: Action,
    /// False for a staged illegal placement (taken back; not in the game record).
    pub legal: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub violation: Option<String>,
}

impl LoggedAction {
    fn legal(action: &Action, first_frame: usize, last_frame: usize) -> Self {
        Self {
            first_frame,
            last_frame,
            action: action.clone(),
            legal: true,
            violation: None,
        }
    }
}

/// The file `game.json` of a rendered game.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GameSummary {
    pub format: String,
    pub version: u32,
    pub seed: u64,
    pub fps: u32,
    pub width: usize,
    pub height: usize,
    pub frames: usize,
    pub actions: usize,
    pub illegal: usize,
    pub seconds: f64,
    pub shot: Shot,
    pub log: Vec<LoggedAction>,
}

struct Film<'a> {
    studio: &'a Studio,
    dir: &'a Path,
    base: Scene,
    labels: BufWriter<File>,
    exposure: AutoExposure,
    rng: ChaCha8Rng,
    frames: usize,
}

impl Film<'_> {
    /// Writes `count` frames of `table` with `hands`, blurred by `motion` pixels.
    fn shoot(
        &mut self,
        table: &TableLayout,
        truth: &Truth,
        hands: &[Hand],
        motion: f32,
        count: usize,
    ) -> Result<(), SynthError> {
        for _ in 0..count {
            let mut scene = self.base.clone();
            scene.table = table.clone();
            scene.truth = truth.clone();
            scene.clutter.hands = hands.to_vec();
            scene.look.motion = [motion, self.rng.random_range(0.0..std::f32::consts::PI)];
            let frame = self
                .studio
                .render(&scene, &mut self.exposure, &mut self.rng)?;
            let path = self.dir.join(format!("frame-{:05}.jpg", self.frames));
            std::fs::write(&path, &frame.jpeg).map_err(|e| write_error(&path, &e))?;
            let line = serde_json::to_string(&frame.labels)
                .map_err(|e| SynthError::Encode(e.to_string()))?;
            writeln!(self.labels, "{line}").map_err(|e| write_error(self.dir, &e))?;
            self.frames += 1;
        }
        Ok(())
    }

    /// A hand that stays over `table` for `count` frames, trembling a little
    /// ([`REST_TREMOR_MM`]), as a player's thinking hand does.
    fn rest(
        &mut self,
        table: &TableLayout,
        truth: &Truth,
        hand: &Hand,
        count: usize,
    ) -> Result<(), SynthError> {
        for _ in 0..count {
            let mut resting = hand.clone();
            resting.wrist.0 += self.rng.random_range(-REST_TREMOR_MM..REST_TREMOR_MM);
            resting.wrist.1 += self.rng.random_range(-REST_TREMOR_MM..REST_TREMOR_MM);
            self.shoot(table, truth, &[resting], 0.0, 1)?;
        }
        Ok(())
    }

    /// A hand moving from off the table to `target` over `count` frames (or back).
    fn reach(
        &mut self,
        table: &TableLayout,
        truth: &Truth,
        hand: &Hand,
        count: usize,
        inward: bool,
    ) -> Result<(), SynthError> {
        for i in 0..count {
            let mut t = (i + 1) as f64 / count as f64;
            if !inward {
                t = 1.0 - t;
            }
            let ease = t * t * (3.0 - 2.0 * t);
            let mut moving = hand.clone();
            let away = (
                hand.wrist.0 + (hand.shoulder.0 - hand.wrist.0) * 0.85,
                hand.wrist.1 + (hand.shoulder.1 - hand.wrist.1) * 0.85,
            );
            moving.wrist = (
                away.0 + (hand.wrist.0 - away.0) * ease,
                away.1 + (hand.wrist.1 - away.1) * ease,
            );
            let hands = [moving];
            self.shoot(
                table,
                truth,
                &hands,
                2.5 * (1.0 - (2.0 * t - 1.0).abs()) as f32 + 0.5,
                1,
            )?;
        }
        Ok(())
    }
}

/// Renders a random legal game into `dir`: `frame-NNNNN.jpg`, `labels.jsonl` (one frame's
/// labels a line), `game.json` ([`GameSummary`] with the action log) and `record.json`.
pub fn render_game(
    studio: &Studio,
    request: &GameRequest,
    dir: &Path,
) -> Result<GameSummary, SynthError> {
    std::fs::create_dir_all(dir).map_err(|e| write_error(dir, &e))?;
    let started = Instant::now();
    let mut rng = ChaCha8Rng::seed_from_u64(request.seed);
    // Rests draw from their own stream, so that a game rendered without them is the same
    // game, frame for frame, as before they existed.
    let mut rest_rng = ChaCha8Rng::seed_from_u64(request.seed ^ 0x5E57);
    let catalogue = TileCatalogue::arkhanos();
    let setup = GameSetup::random(&request.players, &catalogue, &mut rng);
    let (mut record, _) = rules::random_game(setup.clone(), &catalogue, &mut rng)
        .map_err(|e| SynthError::Game(e.to_string()))?;
    if let Some(limit) = request.max_actions {
        record.actions.truncate(limit);
    }
    let mut state = setup
        .start(&catalogue)
        .map_err(|e| SynthError::Game(e.to_string()))?;
    // A camera that watches a whole game is set up for it: above the table, the mat filling
    // the picture.
    let shot = Shot::referee(&studio.mat, request.size.0, request.size.1, &mut rng);
    let mut base = scene_of(studio, &state, request.seed, shot, &mut rng);
    // The game's own dice, with pips on every face, and no dice of other games about.
    base.emblem_sixes = false;
    base.clutter.stray_dice.clear();
    base.clutter.hands.clear();
    base.look.motion = [0.0, 0.0];
    let labels_path = dir.join("labels.jsonl");
    let labels = File::create(&labels_path).map_err(|e| write_error(&labels_path, &e))?;
    let mut film = Film {
        studio,
        dir,
        base,
        labels: BufWriter::new(labels),
        exposure: AutoExposure::video(),
        rng: ChaCha8Rng::seed_from_u64(request.seed ^ 0xF11),
        frames: 0,
    };
    let fps = f64::from(request.fps.max(1));
    let frames_for = |seconds: f64| ((seconds * fps).round() as usize).max(1);
    let mut log = Vec::new();
    let mut roll_spots: Vec<PlacedDie> = Vec::new();
    let size_mm = studio.mat.size_mm;

    let table_of =
        |state: &GameState, roll_spots: &[PlacedDie]| -> Result<TableLayout, SynthError> {
            let mut table = lay_out(state, &studio.mat, request.seed)?;
            pin_roll(&mut table, roll_spots);
            Ok(table)
        };
    film.shoot(
        &table_of(&state, &roll_spots)?,
        &Truth::of(&state),
        &[],
        0.0,
        frames_for(1.0),
    )?;

    for action in &record.actions {
        let before = table_of(&state, &roll_spots)?;
        let truth_before = Truth::of(&state);
        let next = state
            .clone()
            .play(action)
            .map_err(|e| SynthError::Game(e.violation.to_string()))?;
        let mut after = lay_out(&next, &studio.mat, request.seed)?;
        match action {
            Action::Roll { dice } => {
                let first = film.frames;
                let area = zone(&studio.mat, "roll-area")?;
                let center = ((area[0] + area[2]) / 2.0, (area[1] + area[3]) / 2.0);
                let mut hand = Hand::reaching(center, size_mm, &mut rng);
                hand.holding = dice.first().copied();
                film.reach(&before, &truth_before, &hand, frames_for(0.5), true)?;
                // The dice tumble: new places and faces every frame, blurred.
                hand.holding = None;
                for i in 0..frames_for(0.6) {
                    let mut tumbling = before.clone();
                    for (spot, die) in scatter(&mut rng, area, dice.len()).into_iter().zip(dice) {
                        let value = DieValue::ALL[rng.random_range(0..6)];
                        tumbling.dice.push(PlacedDie {
                            die: Die::new(die.color, value),
                            at: TablePoint::on_mat(spot.0, spot.1),
                            place: Place::RollArea,
                        });
                    }
                    let hands: Vec<Hand> = if i < 2 {
                        vec![hand.clone()]
                    } else {
                        Vec::new()
                    };
                    film.shoot(
                        &tumbling,
                        &truth_before,
                        &hands,
                        rng.random_range(4.0..9.0),
                        1,
                    )?;
                }
                roll_spots = after
                    .dice
                    .iter()
                    .filter(|d| d.place == Place::RollArea)
                    .copied()
                    .collect();
                after = table_of(&next, &roll_spots)?;
                let truth_after = Truth::of(&next);
                film.shoot(&after, &truth_after, &[], 0.0, frames_for(0.8))?;
                log.push(LoggedAction::legal(action, first, film.frames - 1));
            }
            Action::Place {
                player,
                die,
                rank,
                tower,
                pillar,
            } => {
                if request.rest_share > 0.0
                    && rest_rng.random_bool(request.rest_share.min(1.0))
                    && !before.dice.is_empty()
                {
                    let over = before.dice[rest_rng.random_range(0..before.dice.len())].at;
                    let hand = Hand::reaching((over.x_mm, over.y_mm), size_mm, &mut rest_rng);
                    let seconds = rest_rng.random_range(REST_SECONDS);
                    film.reach(&before, &truth_before, &hand, frames_for(0.5), true)?;
                    film.rest(&before, &truth_before, &hand, frames_for(seconds))?;
                    film.reach(&before, &truth_before, &hand, frames_for(0.4), false)?;
                }
                let first = film.frames;
                let mut in_hand = before.clone();
                if let Some(i) = in_hand
                    .dice
                    .iter()
                    .position(|d| d.place == Place::RollArea && d.die == *die)
                {
                    in_hand.dice.remove(i);
                }
                if rng.random_bool(request.illegal_share.clamp(0.0, 1.0))
                    && let Some((illegal, violation)) =
                        state.refused_elsewhere(action).choose(&mut rng).cloned()
                    && let Action::Place {
                        tower: bad_tower,
                        pillar: bad_pillar,
                        ..
                    } = illegal
                {
                    {
                        let at = in_hand
                            .pillar_point(bad_tower, bad_pillar.index())
                            .ok_or_else(|| SynthError::Layout("a tower without floors".into()))?;
                        let mut staged = in_hand.clone();
                        let place = Place::Tower {
                            tower: bad_tower,
                            level: state.tower(bad_tower).level,
                            pillar: bad_pillar.number(),
                            buried: false,
                        };
                        staged.dice.push(PlacedDie {
                            die: *die,
                            at,
                            place,
                        });
                        staged.meeples.push(PlacedMeeple {
                            meeple: rules::Meeple {
                                player: *player,
                                rank: *rank,
                            },
                            at: at.at_height(at.height_mm + crate::layout::DIE_MM),
                            place,
                        });
                        let mut hand = Hand::reaching((at.x_mm, at.y_mm), size_mm, &mut rng);
                        hand.holding = Some(*die);
                        film.reach(&in_hand, &truth_before, &hand, frames_for(0.5), true)?;
                        hand.holding = None;
                        film.reach(&staged, &truth_before, &hand, frames_for(0.4), false)?;
                        film.shoot(&staged, &truth_before, &[], 0.0, frames_for(1.2))?;
                        hand.holding = Some(*die);
                        film.reach(&in_hand, &truth_before, &hand, frames_for(0.4), true)?;
                        log.push(LoggedAction {
                            first_frame: first,
                            last_frame: film.frames - 1,
                            action: illegal.clone(),
                            legal: false,
                            violation: Some(violation.to_string()),
                        });
                    }
                }
                let first_legal = film.frames;
                let target = after
                    .pillar_point(*tower, pillar.index())
                    .or_else(|| before.pillar_point(*tower, pillar.index()))
                    .map_or((size_mm[0] / 2.0, size_mm[1] / 2.0), |p| (p.x_mm, p.y_mm));
                let mut hand = Hand::reaching(target, size_mm, &mut rng);
                hand.holding = Some(*die);
                film.reach(&in_hand, &truth_before, &hand, frames_for(0.6), true)?;
                hand.holding = None;
                pin_roll(&mut after, &roll_spots);
                let truth_after = Truth::of(&next);
                film.shoot(
                    &after,
                    &truth_after,
                    std::slice::from_ref(&hand),
                    0.5,
                    frames_for(0.2),
                )?;
                film.reach(&after, &truth_after, &hand, frames_for(0.4), false)?;
                film.shoot(&after, &truth_after, &[], 0.0, frames_for(0.6))?;
                log.push(LoggedAction::legal(action, first_legal, film.frames - 1));
            }
            _ => {
                let first = film.frames;
                pin_roll(&mut after, &roll_spots);
                let truth_after = Truth::of(&next);
                if let Some(target) = changed_at(&before, &after) {
                    let hand = Hand::reaching(target, size_mm, &mut rng);
                    film.reach(&before, &truth_before, &hand, frames_for(0.4), true)?;
                    film.reach(&after, &truth_after, &hand, frames_for(0.4), false)?;
                }
                film.shoot(&after, &truth_after, &[], 0.0, frames_for(0.3))?;
                log.push(LoggedAction::legal(action, first, film.frames - 1));
            }
        }
        state = next;
    }
    film.labels
        .flush()
        .map_err(|e| write_error(&labels_path, &e))?;
    let summary = GameSummary {
        format: "tablesight-rendered-game".into(),
        version: 1,
        seed: request.seed,
        fps: request.fps,
        width: request.size.0,
        height: request.size.1,
        frames: film.frames,
        actions: record.actions.len(),
        illegal: log.iter().filter(|a| !a.legal).count(),
        seconds: started.elapsed().as_secs_f64(),
        shot,
        log,
    };
    let write_json = |name: &str, json: String| {
        let path = dir.join(name);
        std::fs::write(&path, json + "\n").map_err(|e| write_error(&path, &e))
    };
    write_json("record.json", record.to_json())?;
    write_json(
        "game.json",
        serde_json::to_string_pretty(&summary).map_err(|e| SynthError::Encode(e.to_string()))?,
    )?;
    Ok(summary)
}

/// Keeps dice of the roll where they landed while others are taken away.
fn pin_roll(table: &mut TableLayout, spots: &[PlacedDie]) {
    let mut free: Vec<&PlacedDie> = spots.iter().collect();
    for placed in table.dice.iter_mut().filter(|d| d.place == Place::RollArea) {
        if let Some(i) = free.iter().position(|s| s.die == placed.die) {
            placed.at = free.remove(i).at;
        }
    }
}

/// Where the table changed between two layouts (the first piece that moved, came or went).
fn changed_at(before: &TableLayout, after: &TableLayout) -> Option<(f64, f64)> {
    let key = |p: TablePoint| {
        (
            (p.x_mm * 10.0) as i64,
            (p.y_mm * 10.0) as i64,
            (p.height_mm * 10.0) as i64,
        )
    };
    let meeples_before: Vec<_> = before
        .meeples
        .iter()
        .map(|m| (m.meeple, key(m.at)))
        .collect();
    let meeples_after: Vec<_> = after
        .meeples
        .iter()
        .map(|m| (m.meeple, key(m.at)))
        .collect();
    let moved = after
        .meeples
        .iter()
        .find(|m| !meeples_before.contains(&(m.meeple, key(m.at))))
        .or_else(|| {
            before
                .meeples
                .iter()
                .find(|m| !meeples_after.contains(&(m.meeple, key(m.at))))
        })
        .map(|m| (m.at.x_mm, m.at.y_mm));
    moved.or_else(|| {
        let dice_before: Vec<_> = before.dice.iter().map(|d| (d.die, key(d.at))).collect();
        after
            .dice
            .iter()
            .find(|d| !dice_before.contains(&(d.die, key(d.at))))
            .map(|d| (d.at.x_mm, d.at.y_mm))
    })
}
