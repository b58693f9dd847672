//! `tablesight referee FRAMES --setup FILE [--calibration FILE] [--journal FILE] [--json]
//! [--oracle]`: referees a recorded game headless, frame by frame, and prints the confirmed
//! actions, the flags, the desyncs and the prestige.
//!
//! FRAMES is a folder of frames (`frame-NNNNN.jpg`, as `tablesight synth game` writes them).
//! Each frame goes through the reader and the calibration (a saved one, or the mat's
//! markers fitted in the first frames that show enough of them), exactly as a camera's
//! frames do, and the readings are voted over the last frames before the referee sees
//! them. `--save-readings FILE` writes each frame's reading (the referee's observation,
//! before the vote) as a line of JSON; FRAMES may be such a file instead of a folder, to
//! referee the same readings again without the reader (seconds instead of minutes, for
//! work on the referee; the reader placed pieces at the floors of the game it followed
//! then, so a referee that follows another game may be given other places). With `--oracle` the referee reads each frame's true labels (`labels.jsonl`: the
//! dice and meeples with their places, and the hands in view) instead: the referee alone,
//! without the reader's errors. It never reads the labels' `truth` nor `game.json` (the
//! answer). `--setup` takes a game record and uses only its set-up. `--answers RECORD`
//! stands for players who answer the referee's questions (what a die of the roll read unsure
//! shows, the rank of a meeple placed unsure, which of several moves was made) from the
//! game's true record, to measure what answering does.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use referee::{
    JournalWriter, Observation, Place, Referee, RefereeEvent, RefereeSettings, SeenDie, SeenMeeple,
    SettleRule, Zone, meeple_put, with_rank,
};
use rules::{Action, Die, GameRecord, GameSetup, PillarIndex, Rank};
use serde::Deserialize;
use serde_json::json;

use crate::calibration_cli::{camera_for, layout};
use crate::cli::{Outcome, catalogue};
use crate::observe::TableReader;
use crate::reader_cli::dice_reader;
use std::time::Duration;
use vision::{
    CameraControls, CameraSource, FrameFiles, FrameSource, ModeRequest, Pace, SourceEvent,
    WatchSettings,
};

/// Where the frames come from.
pub enum Source<'a> {
    /// A folder of frames: `frame-NNNNN.jpg` of a rendered game, or a recording.
    Frames(&'a Path),
    /// A live camera, by its number in `tablesight cameras`.
    Camera(u32),
}

pub struct RefereeOptions<'a> {
    pub source: Source<'a>,
    /// A recording's frames as fast as they can be read, or at their own pace (`watch`).
    pub pace: Pace,
    pub setup: &'a Path,
    pub journal: Option<&'a Path>,
    pub tiles: Option<&'a Path>,
    pub json: bool,
    pub oracle: bool,
    /// A saved calibration for the reader path (else the mat's markers in the frames).
    pub calibration: Option<&'a Path>,
    /// Other models than the shipped ones (`finder.onnx`, `reader.onnx` or both).
    pub models: Option<&'a Path>,
    /// Frames a second of a folder of frames without an index (default: its `game.json`'s,
    /// else [`vision::DEFAULT_FPS`]).
    pub fps: Option<f64>,
    /// Frames in a row a reading must hold, with no hand over the table, to count as settled.
    pub settle_frames: u32,
    /// Frames each reading is voted with (the reader path; the oracle is never voted).
    pub vote_frames: u32,
    /// Where to write each frame's reading, a line of JSON per frame.
    pub save_readings: Option<&'a Path>,
    /// Stop after this long (a camera never ends by itself).
    pub limit: Option<Duration>,
    /// A game record (the true one of a rendered game) from which the players answer the
    /// referee's questions (a die of the roll, a meeple's rank) as soon as it asks, and
    /// which of several moves was made once that question has stood for 2 s.
    pub answers: Option<&'a Path>,
}

/// Only the set-up of a game record: its actions are never read.
#[derive(Deserialize)]
struct SetupOnly {
    setup: GameSetup,
}

/// What the oracle takes from one line of `labels.jsonl`. The labels' `truth` (the game
/// state the frame shows) is not a field here: serde skips it unread.
#[derive(Deserialize)]
struct OracleFrame {
    dice: Vec<synth::DieLabel>,
    meeples: Vec<synth::MeepleLabel>,
    hands: usize,
}

/// A synthetic label's place in the referee's words.
fn place_of(place: synth::Place) -> Result<Place> {
    Ok(match place {
        synth::Place::Tower {
            tower,
            level,
            pillar,
            buried,
        } => Place::Tower {
            tower,
            level,
            pillar: PillarIndex::try_from(pillar).map_err(anyhow::Error::msg)?,
            buried,
        },
        synth::Place::RollArea => Place::RollArea,
        synth::Place::ManaPool => Place::ManaPool,
        synth::Place::Spellbook { player, spell } => Place::Spellbook { player, spell },
        synth::Place::Reserve { player } => Place::Reserve { player },
        synth::Place::InHand => Place::Elsewhere,
    })
}

/// One frame of the oracle: every labelled die and meeple (a label is the truth: certain),
/// and the whole table covered while a hand is in view.
fn observation_of(frame: u64, fps: f64, labels: &OracleFrame) -> Result<Observation> {
    let mut observation = Observation {
        frame,
        time_s: frame as f64 / fps,
        ..Observation::default()
    };
    for label in &labels.dice {
        observation.dice.push(SeenDie {
            die: label.die,
            place: place_of(label.place)?,
            confidence: 1.0,
            uncertain: false,
            value_probabilities: None,
            color_probabilities: None,
        });
    }
    for label in &labels.meeples {
        observation.meeples.push(SeenMeeple {
            meeple: label.meeple,
            place: place_of(label.place)?,
            confidence: 1.0,
            uncertain: false,
        });
    }
    if labels.hands > 0 {
        observation.covered.push(Zone::Table);
    }
    Ok(observation)
}

/// The notes file beside a journal.
pub fn notes_path(journal: &Path) -> PathBuf {
    let mut name = journal.as_os_str().to_owned();
    name.push(".referee.json");
    PathBuf::from(name)
}

/// Writes `text` to `path` durably: to a file beside it, flushed to the disk, renamed over
/// `path`, the folder flushed too. A crash leaves the old file or the new one, never half.
fn write_durably(path: &Path, text: &str) -> Result<()> {
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    let partial = PathBuf::from(partial);
    let mut file =
        File::create(&partial).with_context(|| format!("cannot write {}", partial.display()))?;
    file.write_all(text.as_bytes())?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&partial, path)
        .with_context(|| format!("cannot replace {}", path.display()))?;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    if let Ok(dir) = File::open(dir.unwrap_or(Path::new("."))) {
        // Not every system can flush a folder; the rename is done either way.
        let _ = dir.sync_all();
    }
    Ok(())
}

struct Journal<'a> {
    path: &'a Path,
    writer: JournalWriter,
}

impl Journal<'_> {
    fn write(&mut self, referee: &Referee) -> Result<()> {
        let files = self.writer.next(referee.journal_notes(), referee.record());
        write_durably(&notes_path(self.path), &files.notes_json)?;
        if let Some(record) = files.record_json {
            write_durably(self.path, &record)?;
        }
        Ok(())
    }
}

/// Where each frame's observation comes from.
enum Eyes {
    /// The true labels, a line of `labels.jsonl` per frame.
    Oracle {
        path: PathBuf,
        lines: std::io::Lines<BufReader<File>>,
    },
    /// Readings saved by `--save-readings`, an observation per line.
    Saved {
        path: PathBuf,
        lines: std::iter::Peekable<std::io::Lines<BufReader<File>>>,
    },
    /// The frames' pixels (a camera, a recording, a rendered game), through the reader and
    /// the calibration.
    Reader {
        source: Box<dyn FrameSource>,
        layout: calibration::MatLayout,
        /// The saved calibration, if given.
        saved: Option<PathBuf>,
        models: Option<PathBuf>,
        /// The referee's vote window, which the reads of a still table fill.
        vote_frames: u32,
        /// Made at the first frame whose camera is known, with that frame's size.
        table: Option<(Box<TableReader>, (u32, u32))>,
        timing: Box<Timing>,
    },
}

/// How long the reader path took, frame by frame.
#[derive(Debug, Default)]
struct Timing {
    /// Reading a frame: the reader, the places, the observation.
    reading_ms: Vec<f64>,
    /// From the frame's arrival (`Frame::arrived`: the camera's capture thread, a live-paced
    /// recording's due time) to its reading done: queue, decoding and reading.
    latency_ms: Vec<f64>,
    /// The last frame number taken: a gap is frames passed over for a newer one.
    last_number: Option<u64>,
    passed_over: u64,
    /// CPU seconds of the process when the first frame was taken.
    cpu_start: Option<f64>,
    started: Option<Instant>,
}

impl Timing {
    fn taken(&mut self, number: u64) {
        if let Some(last) = self.last_number {
            self.passed_over += number.saturating_sub(last + 1);
        }
        self.last_number = Some(number);
        if self.started.is_none() {
            self.started = Some(Instant::now());
            self.cpu_start = crate::capture_cli::cpu_seconds();
        }
    }

    /// The figures in words, `None` before any frame was read.
    fn summary(&self) -> Option<String> {
        let median_and_tail = |values: &[f64]| {
            let mut sorted = values.to_vec();
            sorted.sort_by(f64::total_cmp);
            let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize];
            (at(0.5), at(0.95))
        };
        if self.reading_ms.is_empty() {
            return None;
        }
        let (reading, reading_95) = median_and_tail(&self.reading_ms);
        let (latency, latency_95) = median_and_tail(&self.latency_ms);
        let taken = self.reading_ms.len() as u64;
        let mut text = format!(
            "reading a frame: median {reading:.1} ms, 95th percentile {reading_95:.1} ms; \
             from the frame's arrival to its reading: median {latency:.1} ms, 95th percentile {latency_95:.1} ms; \
             {taken} frames read, {} passed over for a newer one",
            self.passed_over
        );
        let seconds = self.started.map(|t| t.elapsed().as_secs_f64());
        if let (Some(start), Some(end), Some(seconds)) =
            (self.cpu_start, crate::capture_cli::cpu_seconds(), seconds)
        {
            text += &format!(
                "; {:.1} frames read a second, CPU {:.0} % of one core",
                taken as f64 / seconds.max(1e-9),
                (end - start) / seconds.max(1e-9) * 100.0
            );
        }
        Some(text)
    }
}

impl Eyes {
    /// `fps`: the recording's frame rate, as [`recording_fps`] resolves it.
    fn open(options: &RefereeOptions<'_>, fps: f64) -> Result<Self> {
        let source: Box<dyn FrameSource> = match &options.source {
            Source::Frames(dir) if options.oracle => {
                let path = dir.join("labels.jsonl");
                if !path.is_file() {
                    bail!(
                        "{} has no labels.jsonl: --oracle needs a folder written by `tablesight synth game`",
                        dir.display()
                    );
                }
                let file =
                    File::open(&path).with_context(|| format!("cannot read {}", path.display()))?;
                return Ok(Self::Oracle {
                    path,
                    lines: BufReader::new(file).lines(),
                });
            }
            Source::Frames(file) if file.is_file() => {
                if options.oracle {
                    bail!(
                        "--oracle reads the labels of a rendered game's folder, not a file of readings"
                    );
                }
                let lines =
                    File::open(file).with_context(|| format!("cannot read {}", file.display()))?;
                eprintln!("referee the readings of {}", file.display());
                return Ok(Self::Saved {
                    path: file.to_path_buf(),
                    lines: BufReader::new(lines).lines().peekable(),
                });
            }
            Source::Frames(dir) => Box::new(FrameFiles::folder(dir, Some(fps), options.pace)?),
            Source::Camera(index) => {
                if options.oracle {
                    bail!("--oracle reads the labels of a rendered game, not a camera");
                }
                Box::new(CameraSource::open(
                    *index,
                    &ModeRequest::default(),
                    CameraControls::locked(),
                    WatchSettings::default(),
                )?)
            }
        };
        eprintln!("watching {}", source.describe());
        Ok(Self::Reader {
            source,
            layout: layout(None)?,
            saved: options.calibration.map(Path::to_path_buf),
            models: options.models.map(Path::to_path_buf),
            vote_frames: options.vote_frames,
            table: None,
            timing: Box::default(),
        })
    }

    /// The observation of the next frame, `None` after the last; `skip` reads nothing (a
    /// frame before the journal's resume point).
    fn next(
        &mut self,
        frame: u64,
        fps: f64,
        state: &rules::GameState,
        skip: bool,
    ) -> Result<Option<Observation>> {
        match self {
            Self::Oracle { path, lines } => {
                let Some(line) = lines.next() else {
                    return Ok(None);
                };
                let line = line.with_context(|| format!("cannot read {}", path.display()))?;
                if skip || line.trim().is_empty() {
                    return Ok(Some(Observation::default()));
                }
                let labels: OracleFrame = serde_json::from_str(&line)
                    .with_context(|| format!("{} line {}", path.display(), frame + 1))?;
                observation_of(frame, fps, &labels).map(Some)
            }
            Self::Saved { path, lines } => {
                let Some(line) = lines.next() else {
                    return Ok(None);
                };
                let line = line.with_context(|| format!("cannot read {}", path.display()))?;
                let observation: Observation = match serde_json::from_str(&line) {
                    Ok(observation) => observation,
                    // The last line of a referee stopped while it wrote: the readings end
                    // before it, as a recording's index does.
                    Err(e) if lines.peek().is_none() && e.is_eof() => {
                        eprintln!(
                            "{} line {}: cut short, the readings end before it",
                            path.display(),
                            frame + 1
                        );
                        return Ok(None);
                    }
                    Err(e) => {
                        return Err(e)
                            .with_context(|| format!("{} line {}", path.display(), frame + 1));
                    }
                };
                if observation.frame != frame {
                    bail!(
                        "{} line {} is the reading of frame {}: a file of readings has every frame in order",
                        path.display(),
                        frame + 1,
                        observation.frame
                    );
                }
                Ok(Some(observation))
            }
            Self::Reader {
                source,
                layout,
                saved,
                models,
                vote_frames,
                table,
                timing,
            } => {
                let taken = loop {
                    match source.next_event(Duration::from_secs(1)) {
                        SourceEvent::Frame(f) => break f,
                        SourceEvent::End => return Ok(None),
                        SourceEvent::Status(status) => eprintln!("camera: {status}"),
                        // A frame that cannot be read is a frame where nothing is seen: the
                        // vote and the settling carry the table over it.
                        SourceEvent::Skipped(error) => eprintln!("frame skipped: {error}"),
                        SourceEvent::Waiting => {}
                    }
                };
                timing.taken(taken.number);
                let image = taken.image;
                // `frame` is the frame's number in the order read, so that a journal resumes
                // at the same frame of a recording; its time is the source's, as the live
                // view takes it (a camera's frames passed over for newer ones still count).
                let time_s = taken.timestamp.as_secs_f64();
                let hidden = Observation {
                    frame,
                    time_s,
                    covered: vec![Zone::Table],
                    ..Observation::default()
                };
                if skip {
                    return Ok(Some(hidden));
                }
                if table.is_none() {
                    let gray =
                        vision::gray_from_image(&image::DynamicImage::ImageRgb8(image.clone()));
                    let Some(camera) = camera_for(layout, &gray, saved.as_deref())? else {
                        // Until the mat's markers are seen, nothing is refereed.
                        if frame.is_multiple_of(30) {
                            eprintln!(
                                "frame {frame}: too few of the mat's markers to calibrate; give a saved calibration with --calibration"
                            );
                        }
                        return Ok(Some(hidden));
                    };
                    eprintln!("calibrated from frame {frame}");
                    let reader = TableReader::new(
                        dice_reader(models.as_deref())?,
                        camera,
                        layout.clone(),
                        *vote_frames,
                    );
                    *table = Some((Box::new(reader), image.dimensions()));
                }
                let Some((table, size)) = table else {
                    return Ok(Some(hidden));
                };
                if image.dimensions() != *size {
                    // The calibration places nothing right in a frame of another size: the
                    // table goes unseen over it, as under a hand.
                    eprintln!(
                        "frame {frame} is {}x{} where the calibrated frames are {}x{}: not read",
                        image.width(),
                        image.height(),
                        size.0,
                        size.1
                    );
                    return Ok(Some(hidden));
                }
                let reading = Instant::now();
                let (_, observation) = table.observe(&image, state, frame, time_s)?;
                timing
                    .reading_ms
                    .push(reading.elapsed().as_secs_f64() * 1000.0);
                timing
                    .latency_ms
                    .push(taken.arrived.elapsed().as_secs_f64() * 1000.0);
                Ok(Some(observation))
            }
        }
    }
}

/// `--fps`: one of [`vision::FRAME_RATES`], as a recording's folder takes.
pub fn parse_fps(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(fps) if vision::FRAME_RATES.contains(&fps) => Ok(fps),
        _ => Err(format!(
            "{text} is not a frame rate (a frame a minute, 0.0167, to 1000 a second)"
        )),
    }
}

/// Frames a second of a folder of frames without an index, of a rendered game's labels
/// (`--oracle`) and of the answers' delay: [`vision::folder_fps`] for a folder.
fn recording_fps(source: &Source<'_>, fps: Option<f64>) -> f64 {
    match source {
        Source::Frames(dir) => vision::folder_fps(dir, fps),
        Source::Camera(_) => fps.unwrap_or(vision::DEFAULT_FPS),
    }
}

pub fn referee(out: &mut impl Write, options: &RefereeOptions<'_>) -> Result<Outcome> {
    let fps = recording_fps(&options.source, options.fps);
    let mut eyes = Eyes::open(options, fps)?;
    let catalogue = catalogue(options.tiles)?;
    let text = std::fs::read_to_string(options.setup)
        .with_context(|| format!("cannot read {}", options.setup.display()))?;
    let setup = serde_json::from_str::<SetupOnly>(&text)
        .with_context(|| {
            format!(
                "{} is not a game record with a set-up",
                options.setup.display()
            )
        })?
        .setup;
    let settings = RefereeSettings {
        // The reader misreads a die now and then; the labels never do.
        vote_frames: if options.oracle {
            1
        } else {
            options.vote_frames
        },
        settle: SettleRule {
            frames: options.settle_frames,
            ..SettleRule::default()
        },
        ..RefereeSettings::default()
    };
    let (mut referee, mut journal) = open(options, &setup, &catalogue, settings)?;
    let resume_from = referee.resume_after().map_or(0, |f| f + 1);
    if resume_from > 0 {
        eprintln!(
            "resuming from frame {resume_from}: {} actions confirmed",
            referee.record().actions.len()
        );
    }
    let mut readings = match options.save_readings {
        Some(path) => Some(std::io::BufWriter::new(
            File::create(path).with_context(|| format!("cannot write {}", path.display()))?,
        )),
        None => None,
    };
    let truth = match options.answers {
        Some(path) => Some(
            GameRecord::from_json(
                &std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read {}", path.display()))?,
            )
            .with_context(|| format!("{} is not a game record", path.display()))?,
        ),
        None => None,
    };
    // Answers from another game's record would answer with that game's dice and meeples.
    if let (Some(path), Some(truth)) = (options.answers, &truth)
        && truth.setup != setup
    {
        bail!(
            "{} is the record of another game: its set-up is not that of {}",
            path.display(),
            options.setup.display()
        );
    }
    // The questions answered, and how many of the answers put a die right.
    let mut asked = BTreeSet::new();
    let mut put_right = 0;
    // The same for the ranks of meeples put (placements, bonus meeples).
    let mut named = BTreeSet::new();
    let mut renamed = 0;
    // The frame since which the referee has asked which of several moves was made, and
    // how many times the players answered.
    let mut undecided_since = None;
    let mut chosen = 0;
    let started = Instant::now();
    let mut frames = 0u64;
    loop {
        if options
            .limit
            .is_some_and(|limit| started.elapsed() >= limit)
        {
            break;
        }
        let frame = frames;
        let skip = frame < resume_from;
        let Some(observation) = eyes.next(frame, fps, referee.state(), skip)? else {
            break;
        };
        frames += 1;
        if let Some(readings) = &mut readings {
            serde_json::to_writer(&mut *readings, &observation)?;
            writeln!(readings)?;
        }
        if skip {
            continue;
        }
        let mut events = referee.observe(&observation);
        if let Some(truth) = &truth {
            for (was, is) in answers(&referee, truth) {
                // Asked once: an answer the rules refuse is not given again.
                if !asked.insert((referee.record().actions.len(), was)) {
                    continue;
                }
                match referee.put_right(was, is, frame) {
                    Ok(answered) => {
                        put_right += usize::from(is != was);
                        events.extend(answered);
                    }
                    Err(error) => eprintln!("frame {frame}: the players' answer refused: {error}"),
                }
            }
            for (index, rank) in rank_answers(&referee, truth) {
                if !named.insert(index) {
                    continue;
                }
                let recorded = meeple_put(&referee.record().actions[index]).map(|m| m.rank);
                match referee.name_rank(index, rank, frame) {
                    Ok(answered) => {
                        renamed += usize::from(recorded != Some(rank));
                        events.extend(answered);
                    }
                    Err(error) => eprintln!("frame {frame}: the players' answer refused: {error}"),
                }
            }
            // Which of several moves: a question that takes a while to read, answered once
            // it has stood for ANSWER_MOVE_AFTER_S (what the next tables decide sooner is
            // never answered).
            if referee.undecided().len() < 2 {
                undecided_since = None;
            } else {
                let since = *undecided_since.get_or_insert(frame);
                if (frame - since) as f64 >= ANSWER_MOVE_AFTER_S * fps {
                    undecided_since = None;
                    if let Some(actions) = true_move(&referee, truth) {
                        match referee.play(&actions, frame) {
                            Ok(answered) => {
                                chosen += 1;
                                events.extend(answered);
                            }
                            Err(error) => {
                                eprintln!("frame {frame}: the players' answer refused: {error}");
                            }
                        }
                    }
                }
            }
        }
        if events.is_empty() {
            continue;
        }
        if let Some(journal) = &mut journal {
            journal.write(&referee)?;
        }
        if !options.json {
            for event in &events {
                write_event(out, &referee, event)?;
            }
        }
    }
    if let Some(mut readings) = readings {
        readings.flush()?;
    }
    if frames == 0 {
        bail!(
            "{} gave no frame to referee",
            match options.source {
                Source::Frames(path) => path.display().to_string(),
                Source::Camera(index) => format!("camera {index}"),
            }
        );
    }
    let seconds = started.elapsed().as_secs_f64();
    let state = referee.state();
    let prestige: BTreeMap<_, _> = state
        .players()
        .iter()
        .map(|p| (p.color, p.prestige))
        .collect();
    if options.json {
        let output = json!({
            "frames": frames,
            "actions": referee.record().actions,
            "overridden": referee.record().overridden,
            "confirmed_at": referee.confirmed_at(),
            "flags": referee.flags(),
            "desyncs": referee.desyncs(),
            "notes": referee.notes(),
            "undecided": referee.undecided(),
            "unsure_in_roll": referee.unsure_in_roll(),
            "unseen_in_roll": referee.unseen_in_roll(),
            "unsure_ranks": referee.unsure_ranks(),
            "over": state.is_over(),
            "prestige": prestige,
            "final_score": state.final_score(),
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&output)?)?;
    } else {
        writeln!(
            out,
            "{frames} frames: {} actions confirmed, {} illegal moves flagged, {} desyncs; {}; prestige: {}",
            referee.record().actions.len(),
            referee.flags().len(),
            referee.desyncs().len(),
            if state.is_over() {
                "the game is over".to_owned()
            } else {
                format!("round {} of {}", state.round(), state.rounds())
            },
            prestige
                .iter()
                .map(|(p, n)| format!("{p} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        )?;
    }
    if truth.is_some() {
        eprintln!(
            "the players' answers: {} about dice of the roll read unsure ({put_right} of them another die than read), {} about the ranks of meeples placed ({renamed} of them the other rank), {chosen} about which of several moves was made",
            asked.len(),
            named.len()
        );
    }
    let refereed = frames.saturating_sub(resume_from);
    eprintln!(
        "{refereed} frames refereed in {seconds:.2} s ({:.0} frames a second)",
        refereed as f64 / seconds.max(1e-9)
    );
    if let Eyes::Reader { timing, .. } = &eyes
        && let Some(summary) = timing.summary()
    {
        eprintln!("{summary}");
    }
    Ok(Outcome::Ok)
}

/// What the players who know `truth` answer to the referee's questions: each die of the
/// round's roll read unsure, with the die it is. The round's true roll is the one of
/// `truth` at the same count of rolls; a die read right is answered as read, one read
/// wrong with the die of its colour that the recorded roll lacks, when only one does, else
/// with the one lacking die of a colour that no die read wrong has.
fn answers(referee: &Referee, truth: &GameRecord) -> Vec<(Die, Die)> {
    let rolls = |actions: &[Action]| -> Vec<Vec<Die>> {
        (actions.iter())
            .filter_map(|a| match a {
                Action::Roll { dice } => Some(dice.clone()),
                _ => None,
            })
            .collect()
    };
    let recorded = rolls(&referee.record().actions);
    let (Some(roll), Some(true_roll)) = (
        recorded.last(),
        rolls(&truth.actions)
            .get(recorded.len().wrapping_sub(1))
            .cloned(),
    ) else {
        return Vec::new();
    };
    // The true dice the recorded roll lacks, and the recorded ones the truth lacks.
    let mut lacking = true_roll;
    let mut extra = Vec::new();
    for die in roll {
        match lacking.iter().position(|d| d == die) {
            Some(at) => drop(lacking.remove(at)),
            None => extra.push(*die),
        }
    }
    (referee.unsure_in_roll().iter())
        .filter_map(|was| {
            if !extra.contains(was) {
                return Some((*was, *was));
            }
            let of_color = |color| lacking.iter().filter(move |d: &&Die| d.color == color);
            match of_color(was.color).collect::<Vec<_>>()[..] {
                [is] => Some((*was, *is)),
                // Read (or guessed, for a die no table showed) in another colour: the
                // players name its colour too when one lacking die is of a colour that no
                // wrong die has.
                [] => match (lacking.iter())
                    .filter(|d| !extra.iter().any(|e| e.color == d.color))
                    .collect::<Vec<_>>()[..]
                {
                    [is] => Some((*was, *is)),
                    _ => None,
                },
                _ => None,
            }
        })
        .collect()
}

/// How long the referee's question of which of several moves was made stands before the
/// players who know the truth answer it (seconds of the recording).
const ANSWER_MOVE_AFTER_S: f64 = 2.0;

/// What the players who know `truth` answer when the referee asks which of several moves
/// was made: the explanation with which the true record goes on, if one does (a roll's
/// dice in any order).
fn true_move(referee: &Referee, truth: &GameRecord) -> Option<Vec<Action>> {
    let ahead = truth.actions.get(referee.record().actions.len()..)?;
    let sorted = |dice: &[Die]| {
        let mut dice = dice.to_vec();
        dice.sort_unstable();
        dice
    };
    let same = |a: &Action, b: &Action| match (a, b) {
        (Action::Roll { dice: x }, Action::Roll { dice: y }) => sorted(x) == sorted(y),
        _ => a == b,
    };
    (referee.undecided().into_iter())
        .find(|actions| {
            actions.len() <= ahead.len() && actions.iter().zip(ahead).all(|(a, b)| same(a, b))
        })
        .map(<[Action]>::to_vec)
}

/// What the players who know `truth` answer about the meeples whose rank the referee asks:
/// the rank of the true action at the same place of the record, when it is the same move
/// but for the rank.
fn rank_answers(referee: &Referee, truth: &GameRecord) -> Vec<(usize, Rank)> {
    let recorded = &referee.record().actions;
    (referee.unsure_ranks().into_iter())
        .filter_map(|index| {
            let (got, want) = (recorded.get(index)?, truth.actions.get(index)?);
            let rank = meeple_put(want)?.rank;
            (with_rank(got, rank) == *want).then_some((index, rank))
        })
        .collect()
}

/// A new referee (and journal), or the one the journal left.
fn open<'a>(
    options: &RefereeOptions<'a>,
    setup: &GameSetup,
    catalogue: &rules::TileCatalogue,
    settings: RefereeSettings,
) -> Result<(Referee, Option<Journal<'a>>)> {
    let Some(path) = options.journal else {
        return Ok((Referee::new(setup, catalogue, settings)?, None));
    };
    if path.exists() {
        let record = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let notes_path = notes_path(path);
        let notes = std::fs::read_to_string(&notes_path).with_context(|| {
            format!(
                "cannot read {}, the referee's notes beside the journal",
                notes_path.display()
            )
        })?;
        let referee = Referee::from_journal(&record, Some(&notes), catalogue, settings)
            .with_context(|| format!("cannot resume from {}", path.display()))?;
        if referee.record().setup != setup.resolved(catalogue) {
            bail!(
                "{} is the journal of another game (its set-up differs from {})",
                path.display(),
                options.setup.display()
            );
        }
        let writer = JournalWriter::new(Some(referee.journal_notes()));
        return Ok((referee, Some(Journal { path, writer })));
    }
    let referee = Referee::new(setup, catalogue, settings)?;
    let mut journal = Journal {
        path,
        writer: JournalWriter::new(None),
    };
    journal.write(&referee)?;
    Ok((referee, Some(journal)))
}

fn write_event(out: &mut impl Write, referee: &Referee, event: &RefereeEvent) -> Result<()> {
    match event {
        RefereeEvent::Confirmed {
            frame,
            index,
            action,
        } => writeln!(out, "[frame {frame}] {index}: {action}")?,
        RefereeEvent::TakenBack {
            frame,
            index,
            action,
        } => writeln!(out, "[frame {frame}] taken back: {index}: {action}")?,
        RefereeEvent::Flagged(i) => {
            if let Some(flag) = referee.flags().get(*i) {
                writeln!(out, "[frame {}] ILLEGAL: {}", flag.frame, flag.violation)?;
                writeln!(out, "    rule: {}", flag.rule)?;
            }
        }
        RefereeEvent::FlagCleared(i) => {
            if let Some(flag) = referee.flags().get(*i) {
                writeln!(
                    out,
                    "[frame {}] flag cleared ({})",
                    flag.cleared.unwrap_or(flag.frame),
                    match flag.outcome {
                        Some(referee::FlagOutcome::PutBack) => "the table was put back",
                        Some(referee::FlagOutcome::Played) => "legal moves followed",
                        Some(referee::FlagOutcome::Overridden) => "allowed by the players",
                        Some(referee::FlagOutcome::Replaced) => "another illegal move",
                        Some(referee::FlagOutcome::Unexplained) | None => "the table changed",
                    }
                )?;
            }
        }
        RefereeEvent::Desynced(i) => {
            if let Some(desync) = referee.desyncs().get(*i) {
                writeln!(
                    out,
                    "[frame {}] DESYNC: no legal move explains the table; waiting for it to be put back",
                    desync.frame
                )?;
                for difference in &desync.differences {
                    writeln!(out, "    {difference}")?;
                }
                if !desync.closest.is_empty() {
                    writeln!(out, "    closest legal moves:")?;
                    for action in &desync.closest {
                        writeln!(out, "      {action}")?;
                    }
                }
            }
        }
        RefereeEvent::Resynced(i) => {
            if let Some(desync) = referee.desyncs().get(*i) {
                writeln!(
                    out,
                    "[frame {}] the table and the game agree again",
                    desync.resolved.unwrap_or(desync.frame)
                )?;
            }
        }
        RefereeEvent::Noted(i) => {
            if let Some(note) = referee.notes().get(*i) {
                writeln!(out, "[frame {}] note: {}", note.frame, note.text)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rendered_games_own_frame_rate_times_its_labels_unless_one_is_given() {
        let dir = std::env::temp_dir().join(format!("tablesight-fps-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let source = Source::Frames(&dir);
        assert_eq!(recording_fps(&source, None), vision::DEFAULT_FPS);
        std::fs::write(dir.join("game.json"), r#"{"fps": 30}"#).unwrap();
        assert_eq!(recording_fps(&source, None), 30.0);
        assert_eq!(recording_fps(&source, Some(12.0)), 12.0);
        assert_eq!(recording_fps(&Source::Camera(0), None), vision::DEFAULT_FPS);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_frame_rate_is_one_a_recording_can_have() {
        assert_eq!(parse_fps("30"), Ok(30.0));
        for bad in ["0", "-15", "1e-300", "NaN", "inf", "fast"] {
            let error = parse_fps(bad).unwrap_err();
            assert!(error.contains("is not a frame rate"), "{bad}: {error}");
        }
    }
}
