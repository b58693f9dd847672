//! The live feed: frames from a camera, a recording or the demo, read and refereed on a
//! worker thread of its own. The window never waits for it: the worker publishes a
//! [`LiveSnapshot`] (the newest wins) that the window reads each frame, and takes
//! [`LiveRequest`]s (an override, actions the user played) through a channel.
//!
//! ```text
//! FrameSource --Frame--> (calibrate: a saved calibration, else the mat's markers in the first
//!   frames that show enough) --> TableReader::observe --Observation--> Referee::observe
//!   --> LiveSnapshot { frame as ColorImage, Reading, status, referee's record, flags, desyncs }
//! ```
//!
//! Until a calibration is found the frames are still read (boxes, no places) but not
//! refereed. The same path as `tablesight referee` (`referee_cli.rs`), frame by frame.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use calibration::{MatLayout, MatPlace, TrackStatus};
use egui::{Color32, ColorImage, Pos2, Rect, Vec2};
use image::RgbImage;
use referee::{Desync, Flag, Referee, RefereeEvent, RefereeSettings, RollDieOdds, Zone};
use rules::{Action, Die, GameRecord, PillarIndex, Rank, TileCatalogue, TowerId};
use vision::{CameraStatus, DiceReader, Frame, FrameSource, Reading, SourceEvent};

use crate::observe::TableReader;

/// How long the worker waits for the source before it looks at its requests again.
const POLL: Duration = Duration::from_millis(100);
/// Frames tried for markers before the status says none were found (tries go on, sparser).
const MARKER_TRIES: u32 = 30;
/// After [`MARKER_TRIES`], one frame in this many is tried for markers.
const MARKER_EVERY: u64 = 10;
/// Referee events kept in the snapshot, the newest last.
const EVENTS_KEPT: usize = 40;
/// How long dropping a feed waits for its worker before leaving it to end on its own.
const STOP_WAIT: Duration = Duration::from_secs(2);

/// What the live feed needs besides its frames.
#[derive(Clone, Debug)]
pub struct LiveOptions {
    /// The game on the table: the referee goes on from its last action.
    pub record: GameRecord,
    pub catalogue: TileCatalogue,
    /// A saved calibration (`tablesight calibrate --save`); else the mat's markers.
    pub calibration: Option<PathBuf>,
    /// Other reader models than the shipped ones (a folder with finder.onnx, reader.onnx or
    /// both; the shipped one for a file it lacks).
    pub models: Option<PathBuf>,
    pub referee: RefereeSettings,
    /// The reader's thresholds: each crop read once, as frames come many a second.
    pub reader: vision::ReaderSettings,
}

impl LiveOptions {
    /// The options of a camera's reader: readings voted over 5 frames, the rest default.
    pub fn new(record: GameRecord, catalogue: TileCatalogue) -> Self {
        Self {
            record,
            catalogue,
            calibration: None,
            models: None,
            referee: Self::default_referee(),
            reader: vision::ReaderSettings::live(),
        }
    }

    /// The referee's settings for a camera's reader: readings voted over 5 frames, the rest
    /// default.
    pub fn default_referee() -> RefereeSettings {
        RefereeSettings {
            vote_frames: 5,
            ..RefereeSettings::default()
        }
    }
}

/// What the window asks of the referee.
#[derive(Clone, Debug, PartialEq)]
pub enum LiveRequest {
    /// The players allow the flagged move against a dice restriction.
    Override,
    /// The user played these actions by hand (a correction, or what the table did not show).
    Play(Vec<Action>),
    /// The players say what a die of the roll read unsure is (`is` equal to `was`: as read).
    PutRight { was: Die, is: Die },
    /// The players say of which rank the meeple put by the action at `index` of the record
    /// (a placement, a bonus meeple) was.
    NameRank { index: usize, rank: Rank },
}

/// Where the feed is.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum FeedPhase {
    /// Loading the reader's models.
    #[default]
    Starting,
    Running,
    /// The recording has no more frames; the referee still answers requests.
    Ended,
    /// Stopped by the window.
    Stopped,
    /// The feed cannot go on (no reader, a set-up the referee refuses).
    Failed(String),
}

/// Where the calibration is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CalibrationStatus {
    /// No frame yet.
    #[default]
    Waiting,
    /// Looking for the mat's markers; `frames` tried so far.
    Searching { frames: u32 },
    /// The first frames showed too few markers; still looking now and then.
    NoMarkers { frames: u32 },
    /// Calibrated: from the saved file, or from the markers of frame `frame`.
    Calibrated { saved: bool, frame: u64 },
}

impl std::fmt::Display for CalibrationStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Waiting => write!(f, "waiting for a frame"),
            Self::Searching { frames } => {
                write!(
                    f,
                    "calibrating: looking for the mat's markers ({frames} frames)"
                )
            }
            Self::NoMarkers { frames } => write!(
                f,
                "no markers found in {frames} frames: readings without places, not refereed"
            ),
            Self::Calibrated { saved: true, .. } => write!(f, "calibrated (saved calibration)"),
            Self::Calibrated { frame, .. } => write!(f, "calibrated from frame {frame}"),
        }
    }
}

/// The newest frame read.
#[derive(Clone, Debug)]
pub struct LiveFrame {
    pub number: u64,
    pub time_s: f64,
    /// The frame, converted for the window on the worker.
    pub image: Arc<ColorImage>,
    /// What the reader saw in it, with places once calibrated.
    pub reading: Reading,
    /// Where a die on each top-floor pillar shows in the frame, once calibrated (to light
    /// the legal pillars in teach mode).
    pub pillars_px: Vec<(TowerId, PillarIndex, [f32; 2])>,
    /// The zones under a hand in this frame, in its pixels: the referee waits for the hand
    /// to leave them (shaded on the image).
    pub covered_px: Vec<vision::BoxPx>,
}

/// What the referee says, as the window shows it.
#[derive(Clone, Debug, Default)]
pub struct RefereeView {
    /// Counts changes of the record (confirmed or taken-back actions, overrides): the
    /// window mirrors the record when it changes.
    pub version: u64,
    pub record: Option<GameRecord>,
    pub flags: Vec<Flag>,
    pub desyncs: Vec<Desync>,
    pub active_flag: Option<Flag>,
    pub active_desync: Option<Desync>,
    /// The moves that each explain the table, when the referee cannot yet tell which was
    /// played (a meeple whose rank was not seen, a Change spell whose direction the die
    /// shows later): the user may say, else the tables to come decide.
    pub undecided: Vec<Vec<Action>>,
    /// The dice of the round's roll read unsure that nothing has shown since, each with
    /// the reader's probability of each value and colour while it lay in the roll area:
    /// the players may say what each is, else what follows may.
    pub unsure_in_roll: Vec<(Die, RollDieOdds)>,
    /// Those of them that no table showed: the record holds the rules' likeliest guess.
    pub unseen_in_roll: Vec<Die>,
    /// The placements and bonus meeples of the round confirmed without a sure reading of
    /// their meeple's rank (their index in the record, and the action as recorded): the
    /// players may say.
    pub unsure_ranks: Vec<(usize, Action)>,
    /// The last events in words, the newest last.
    pub events: Vec<String>,
    pub over: bool,
}

/// Everything the window shows of the feed, published by the worker after each change.
#[derive(Clone, Debug, Default)]
pub struct LiveSnapshot {
    /// The source in words (for the demo: how many frames are rendered).
    pub source: String,
    pub phase: FeedPhase,
    /// The camera's status (live cameras only).
    pub camera: Option<CameraStatus>,
    pub calibration: CalibrationStatus,
    /// What the last search for the mat's markers found, once calibrated: the camera
    /// followed, markers covered, or a camera that moved being tracked again.
    pub tracking: Option<String>,
    /// The zones a hand is over in the last frame read ("a hand over tower C, Green's
    /// spellbook"): nothing settles there until it has gone.
    pub hand: Option<String>,
    pub frame: Option<LiveFrame>,
    /// Frames read so far.
    pub frames_read: u64,
    /// Frames read a second (smoothed).
    pub fps: f32,
    /// Time to read one frame (smoothed).
    pub reading_ms: f32,
    /// From the frame's arrival (the camera's capture thread) to its reading done: how far
    /// the picture shown is behind the table (smoothed).
    pub latency_ms: f32,
    /// The last thing that went wrong without stopping the feed (an unreadable frame).
    pub problem: Option<String>,
    pub referee: RefereeView,
}

impl LiveSnapshot {
    /// One line: the source, the camera, the calibration, frames a second, reading time.
    pub fn status_line(&self) -> String {
        let mut parts = vec![self.source.clone()];
        match &self.phase {
            FeedPhase::Starting => parts.push("loading the reader".to_owned()),
            FeedPhase::Running => {}
            FeedPhase::Ended => parts.push("the recording has ended".to_owned()),
            FeedPhase::Stopped => parts.push("stopped".to_owned()),
            FeedPhase::Failed(why) => parts.push(format!("failed: {why}")),
        }
        if let Some(camera) = &self.camera {
            parts.push(format!("camera {camera}"));
        }
        if self.phase != FeedPhase::Starting {
            parts.push(self.calibration.to_string());
        }
        if let Some(tracking) = &self.tracking {
            parts.push(tracking.clone());
        }
        if let Some(hand) = &self.hand {
            parts.push(hand.clone());
        }
        if self.frames_read > 0 {
            parts.push(format!(
                "{:.1} fps, reading {:.0} ms, {:.0} ms behind",
                self.fps, self.reading_ms, self.latency_ms
            ));
        }
        parts.join(" · ")
    }
}

/// The zones a hand covers, in words; `None` when none is, or when the table is covered
/// because the camera is in doubt (the tracking says so).
fn hand_words(covered: &[Zone], tracking: Option<&TrackStatus>) -> Option<String> {
    if covered.is_empty() || matches!(tracking, Some(TrackStatus::Moved { .. })) {
        return None;
    }
    let zones: Vec<String> = covered
        .iter()
        .filter(|zone| !matches!(zone, Zone::Reserve { .. }))
        .map(ToString::to_string)
        .collect();
    Some(format!("a hand over {}", zones.join(", ")))
}

/// One reading as drawn over the image: its box in image pixels and its words.
#[derive(Clone, Debug, PartialEq)]
pub struct OverlayItem {
    /// "die" or "meeple".
    pub kind: &'static str,
    /// `[x_min, y_min, x_max, y_max]` in pixels of the frame.
    pub box_px: [f32; 4],
    /// "yellow 3 92 % #4", "red master 88 % #7", with "?" when uncertain; the number is
    /// the item's, kept while it does not move (`vision::ItemId`).
    pub label: String,
    /// What is written over the image beside the box (the colour is the box's): "3 92%",
    /// "M 88%", "A 41% ?".
    pub tag: String,
    pub color: Color32,
    pub uncertain: bool,
    /// The tower pillar it stands on, when the calibration put it on one.
    pub pillar: Option<(TowerId, PillarIndex)>,
}

impl OverlayItem {
    /// Whether `flag` concerns the pillar this item stands on: the flagged move is drawn
    /// where it happened.
    pub fn flagged_by(&self, flag: &Flag) -> bool {
        self.pillar.is_some() && self.pillar == flag.tower.zip(flag.pillar)
    }
}

/// The tower pillar of a place of the mat.
fn pillar_of(place: Option<&MatPlace>) -> Option<(TowerId, PillarIndex)> {
    match crate::observe::game_place(place, &[]) {
        referee::Place::Tower { tower, pillar, .. } => Some((tower, pillar)),
        _ => None,
    }
}

/// The readings of a frame as overlay items: dice first, then meeples.
pub fn overlay_items(reading: &Reading) -> Vec<OverlayItem> {
    let percent = |p: f32| (p * 100.0).round().clamp(0.0, 100.0) as u32;
    let mark = |uncertain: bool| if uncertain { " ?" } else { "" };
    let dice = reading.dice.iter().map(|die| OverlayItem {
        kind: "die",
        box_px: die.box_px,
        tag: format!(
            "{} {}%{}",
            die.value,
            percent(die.confidence),
            mark(die.uncertain)
        ),
        label: format!(
            "{} {} {} %{} #{}",
            die.color.name(),
            die.value,
            percent(die.confidence),
            mark(die.uncertain),
            die.id
        ),
        color: die_overlay_color(die.color),
        uncertain: die.uncertain,
        pillar: pillar_of(die.place.as_ref()),
    });
    let meeples = reading.meeples.iter().map(|meeple| OverlayItem {
        kind: "meeple",
        box_px: meeple.box_px,
        tag: format!(
            "{} {}%{}",
            match meeple.rank {
                vision::MeepleRank::Apprentice => "A",
                vision::MeepleRank::Master => "M",
            },
            percent(meeple.confidence),
            mark(meeple.uncertain)
        ),
        label: format!(
            "{} {} {} %{} #{}",
            meeple.player.name(),
            match meeple.rank {
                vision::MeepleRank::Apprentice => "apprentice",
                vision::MeepleRank::Master => "master",
            },
            percent(meeple.confidence),
            mark(meeple.uncertain),
            meeple.id
        ),
        color: crate::paint::player_color(match meeple.player {
            vision::MeepleColor::Blue => rules::PlayerColor::Blue,
            vision::MeepleColor::Green => rules::PlayerColor::Green,
            vision::MeepleColor::Red => rules::PlayerColor::Red,
            vision::MeepleColor::Yellow => rules::PlayerColor::Yellow,
        }),
        uncertain: meeple.uncertain,
        pillar: pillar_of(meeple.place.as_ref()),
    });
    dice.chain(meeples).collect()
}

fn die_overlay_color(color: vision::DieColor) -> Color32 {
    use rules::DieColor as D;
    let color = match color {
        vision::DieColor::Pink => D::Pink,
        vision::DieColor::Purple => D::Purple,
        vision::DieColor::Yellow => D::Yellow,
        vision::DieColor::Blue => D::Blue,
        vision::DieColor::Other => return Color32::from_gray(200),
    };
    crate::paint::die_color(color)
}

/// The largest rectangle of the image's aspect that fits `area`, centred in it.
pub fn fit_image(image_size: Vec2, area: Rect) -> Rect {
    if image_size.x <= 0.0 || image_size.y <= 0.0 {
        return Rect::from_center_size(area.center(), Vec2::ZERO);
    }
    let scale = (area.width() / image_size.x).min(area.height() / image_size.y);
    Rect::from_center_size(area.center(), image_size * scale.max(0.0))
}

/// A box in pixels of an image of `image_size` shown in `shown`, in screen points.
pub fn screen_rect(box_px: [f32; 4], image_size: Vec2, shown: Rect) -> Rect {
    let scale = Vec2::new(
        shown.width() / image_size.x.max(1.0),
        shown.height() / image_size.y.max(1.0),
    );
    let point = |x: f32, y: f32| Pos2::new(shown.min.x + x * scale.x, shown.min.y + y * scale.y);
    Rect::from_two_pos(point(box_px[0], box_px[1]), point(box_px[2], box_px[3]))
}

/// A referee event in words, as `tablesight referee` prints it (without the frame).
fn event_words(referee: &Referee, event: &RefereeEvent) -> Option<String> {
    Some(match event {
        RefereeEvent::Confirmed { frame, action, .. } => format!("[{frame}] {action}"),
        RefereeEvent::TakenBack { frame, action, .. } => format!("[{frame}] taken back: {action}"),
        RefereeEvent::Flagged(i) => {
            let flag = referee.flags().get(*i)?;
            format!("[{}] ILLEGAL: {}", flag.frame, flag.violation)
        }
        RefereeEvent::FlagCleared(i) => {
            let flag = referee.flags().get(*i)?;
            format!("[{}] flag cleared", flag.cleared.unwrap_or(flag.frame))
        }
        RefereeEvent::Desynced(i) => {
            let desync = referee.desyncs().get(*i)?;
            format!(
                "[{}] DESYNC: {}",
                desync.frame,
                desync.differences.join("; ")
            )
        }
        RefereeEvent::Resynced(i) => {
            let desync = referee.desyncs().get(*i)?;
            format!(
                "[{}] the table and the game agree again",
                desync.resolved.unwrap_or(desync.frame)
            )
        }
        RefereeEvent::Noted(i) => {
            let note = referee.notes().get(*i)?;
            format!("[{}] note: {}", note.frame, note.text)
        }
    })
}

/// The referee's view after `events` (added to the kept ones).
fn referee_view(referee: &Referee, previous: &RefereeView, events: &[RefereeEvent]) -> RefereeView {
    let changed = events.iter().any(|e| {
        matches!(
            e,
            RefereeEvent::Confirmed { .. } | RefereeEvent::TakenBack { .. }
        )
    });
    let mut words: VecDeque<String> = previous.events.iter().cloned().collect();
    words.extend(events.iter().filter_map(|e| event_words(referee, e)));
    while words.len() > EVENTS_KEPT {
        words.pop_front();
    }
    RefereeView {
        version: previous.version + u64::from(changed),
        record: Some(referee.record().clone()),
        flags: referee.flags().to_vec(),
        desyncs: referee.desyncs().to_vec(),
        active_flag: referee.active_flag().cloned(),
        active_desync: referee.active_desync().cloned(),
        undecided: undecided(referee),
        unsure_in_roll: unsure_in_roll(referee),
        unseen_in_roll: referee.unseen_in_roll(),
        unsure_ranks: unsure_ranks(referee),
        events: words.into(),
        over: referee.state().is_over(),
    }
}

/// The actions whose meeple's rank the players may name, with their index in the record.
fn unsure_ranks(referee: &Referee) -> Vec<(usize, Action)> {
    (referee.unsure_ranks().iter())
        .filter_map(|&i| Some((i, referee.record().actions.get(i)?.clone())))
        .collect()
}

/// The referee's undecided explanations, when there are several to choose from.
fn undecided(referee: &Referee) -> Vec<Vec<Action>> {
    let undecided = referee.undecided();
    if undecided.len() < 2 {
        return Vec::new();
    }
    undecided.into_iter().map(<[Action]>::to_vec).collect()
}

/// The referee's unsure dice of the roll, each with the reader's probabilities.
fn unsure_in_roll(referee: &Referee) -> Vec<(Die, RollDieOdds)> {
    (referee.unsure_in_roll().iter())
        .map(|&die| (die, referee.roll_odds(die)))
        .collect()
}

/// The frame as the window shows it.
pub fn color_image(image: &RgbImage) -> ColorImage {
    ColorImage::from_rgb(
        [image.width() as usize, image.height() as usize],
        image.as_raw(),
    )
}

/// A referee for the game of `options`: from its set-up, or going on after its actions.
fn start_referee(options: &LiveOptions) -> Result<Referee, referee::RefereeError> {
    let record = &options.record;
    if record.actions.is_empty() {
        Referee::new(&record.setup, &options.catalogue, options.referee)
    } else {
        Referee::from_journal(&record.to_json(), None, &options.catalogue, options.referee)
    }
}

/// What the worker and the window share.
struct Shared {
    stop: AtomicBool,
    snapshot: Mutex<Arc<LiveSnapshot>>,
}

/// A running live feed. Dropping it stops the worker (waiting at most 2 s for it).
pub struct LiveFeed {
    shared: Arc<Shared>,
    requests: Sender<LiveRequest>,
    done: Receiver<()>,
    worker: Option<JoinHandle<()>>,
}

impl LiveFeed {
    /// Starts reading and refereeing `source` on a worker thread; `repaint` is asked for a
    /// new frame of the window after each change.
    pub fn start(
        source: Box<dyn FrameSource>,
        options: LiveOptions,
        repaint: Option<egui::Context>,
    ) -> Self {
        let shared = Arc::new(Shared {
            stop: AtomicBool::new(false),
            snapshot: Mutex::new(Arc::new(LiveSnapshot {
                source: source.describe(),
                ..LiveSnapshot::default()
            })),
        });
        let (requests, requests_rx) = std::sync::mpsc::channel();
        let (done_tx, done) = std::sync::mpsc::channel();
        let worker_shared = Arc::clone(&shared);
        let spawned = std::thread::Builder::new()
            .name("tablesight-live".to_owned())
            .spawn(move || {
                let mut worker = Worker {
                    shared: worker_shared,
                    repaint,
                    snapshot: LiveSnapshot::default(),
                    last_frame_at: None,
                    last_frame: 0,
                };
                worker.run(source, &options, &requests_rx);
                // The window may be gone already: nobody to tell.
                let _ = done_tx.send(());
            });
        let worker = match spawned {
            Ok(handle) => Some(handle),
            Err(error) => {
                let snapshot = LiveSnapshot {
                    phase: FeedPhase::Failed(format!("no worker thread: {error}")),
                    ..LiveSnapshot::default()
                };
                *shared
                    .snapshot
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner) = Arc::new(snapshot);
                None
            }
        };
        Self {
            shared,
            requests,
            done,
            worker,
        }
    }

    /// The newest snapshot (cheap: shared, not copied).
    pub fn snapshot(&self) -> Arc<LiveSnapshot> {
        Arc::clone(
            &self
                .shared
                .snapshot
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    /// Passes a request to the referee (answered in a later snapshot).
    pub fn request(&self, request: LiveRequest) {
        // A worker that has ended takes no requests; its snapshot says why.
        let _ = self.requests.send(request);
    }

    /// Whether the worker thread has ended.
    pub fn is_finished(&self) -> bool {
        self.worker.as_ref().is_none_or(JoinHandle::is_finished)
    }

    /// Stops the worker: it ends after the frame it is reading. Waits at most 2 s; a
    /// worker still busy then (a camera that does not answer) ends on its own.
    pub fn stop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        let Some(worker) = self.worker.take() else {
            return;
        };
        match self.done.recv_timeout(STOP_WAIT) {
            Ok(()) | Err(RecvTimeoutError::Disconnected) => {
                // It has finished (or panicked): joining returns at once.
                let _ = worker.join();
            }
            Err(RecvTimeoutError::Timeout) => {}
        }
    }
}

impl Drop for LiveFeed {
    fn drop(&mut self) {
        self.stop();
    }
}

/// What the reader looks through: the bare reader until a calibration is found.
enum Eyes {
    Bare(Box<DiceReader>),
    Table(Box<TableReader>),
}

struct Worker {
    shared: Arc<Shared>,
    repaint: Option<egui::Context>,
    snapshot: LiveSnapshot,
    last_frame_at: Option<Instant>,
    /// The number of the last frame read (the frame of a request's answer).
    last_frame: u64,
}

impl Worker {
    fn publish(&self) {
        *self
            .shared
            .snapshot
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Arc::new(self.snapshot.clone());
        if let Some(ctx) = &self.repaint {
            ctx.request_repaint();
        }
    }

    fn stopping(&self) -> bool {
        self.shared.stop.load(Ordering::Acquire)
    }

    fn fail(&mut self, why: String) {
        self.snapshot.phase = FeedPhase::Failed(why);
        self.publish();
    }

    fn run(
        &mut self,
        mut source: Box<dyn FrameSource>,
        options: &LiveOptions,
        requests: &Receiver<LiveRequest>,
    ) {
        self.snapshot.source = source.describe();
        self.publish();
        let layout = match crate::calibration_cli::layout(None) {
            Ok(layout) => layout,
            Err(error) => return self.fail(format!("{error:#}")),
        };
        let mut reader = match crate::reader_cli::dice_reader(options.models.as_deref()) {
            Ok(reader) => reader,
            Err(error) => return self.fail(format!("the reader could not be loaded: {error:#}")),
        };
        // Frames come many a second: each crop read once, also before the mat is found.
        reader.settings = options.reader;
        let vote_frames = options.referee.vote_frames;
        let mut referee = match start_referee(options) {
            Ok(referee) => referee,
            Err(error) => return self.fail(format!("the referee refuses the game: {error}")),
        };
        self.snapshot.referee = referee_view(&referee, &RefereeView::default(), &[]);
        if self.stopping() {
            return self.end_stopped();
        }
        self.snapshot.phase = FeedPhase::Running;
        self.publish();
        let mut eyes = Some(Eyes::Bare(Box::new(reader)));
        let mut saved = options.calibration.clone();
        let mut tried = 0u32;
        loop {
            if self.stopping() {
                return self.end_stopped();
            }
            for request in requests.try_iter() {
                self.answer(&mut referee, request);
            }
            if self.snapshot.phase == FeedPhase::Ended {
                // Nothing more to read: only requests, until stopped.
                match requests.recv_timeout(POLL) {
                    Ok(request) => self.answer(&mut referee, request),
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => return,
                }
                continue;
            }
            let event = source.next_event(POLL);
            let described = source.describe();
            let renamed = described != self.snapshot.source;
            self.snapshot.source = described;
            match event {
                SourceEvent::Frame(frame) => {
                    let time_s = frame.timestamp.as_secs_f64();
                    if matches!(eyes, Some(Eyes::Bare(_))) {
                        self.calibrate(
                            &mut eyes,
                            &layout,
                            &mut saved,
                            &mut tried,
                            vote_frames,
                            &frame,
                        );
                    }
                    let Some(current) = eyes.as_mut() else {
                        return self.fail("the reader was lost".to_owned());
                    };
                    self.read(current, &mut referee, &frame, time_s);
                    self.publish();
                }
                SourceEvent::Status(status) => {
                    self.snapshot.camera = Some(status);
                    self.publish();
                }
                SourceEvent::Skipped(error) => {
                    self.snapshot.problem = Some(format!("a frame was skipped: {error}"));
                    self.publish();
                }
                SourceEvent::Waiting => {
                    if renamed {
                        self.publish();
                    }
                }
                SourceEvent::End => {
                    self.snapshot.phase = FeedPhase::Ended;
                    self.publish();
                }
            }
        }
    }

    fn end_stopped(&mut self) {
        self.snapshot.phase = FeedPhase::Stopped;
        self.publish();
    }

    /// Looks for a calibration in `frame`: the saved one, else the mat's markers (every
    /// frame at first, then one in [`MARKER_EVERY`]).
    fn calibrate(
        &mut self,
        eyes: &mut Option<Eyes>,
        layout: &MatLayout,
        saved: &mut Option<PathBuf>,
        tried: &mut u32,
        vote_frames: u32,
        frame: &vision::Frame,
    ) {
        if *tried >= MARKER_TRIES && saved.is_none() && !frame.number.is_multiple_of(MARKER_EVERY) {
            return;
        }
        let gray = vision::gray_from_image(&image::DynamicImage::ImageRgb8(frame.image.clone()));
        let found = match crate::calibration_cli::camera_for(layout, &gray, saved.as_deref()) {
            Ok(found) => found,
            Err(error) => {
                // A saved calibration that does not fit: say so, and look for markers.
                self.snapshot.problem = Some(format!("{error:#}; looking for markers instead"));
                *saved = None;
                return;
            }
        };
        let Some(camera) = found else {
            *tried += 1;
            self.snapshot.calibration = if *tried >= MARKER_TRIES {
                CalibrationStatus::NoMarkers { frames: *tried }
            } else {
                CalibrationStatus::Searching { frames: *tried }
            };
            return;
        };
        if let Some(Eyes::Bare(reader)) = eyes.take() {
            *eyes = Some(Eyes::Table(Box::new(TableReader::new(
                *reader,
                camera,
                layout.clone(),
                vote_frames,
            ))));
        }
        self.snapshot.calibration = CalibrationStatus::Calibrated {
            saved: saved.is_some(),
            frame: frame.number,
        };
    }

    /// Reads a frame (and referees it once calibrated).
    fn read(&mut self, eyes: &mut Eyes, referee: &mut Referee, frame: &Frame, time_s: f64) {
        let (image, number) = (&frame.image, frame.number);
        let started = Instant::now();
        let (mut pillars_px, mut covered_px) = (Vec::new(), Vec::new());
        let (reading, events) = match eyes {
            Eyes::Bare(reader) => match reader.read(image, None) {
                Ok(reading) => (reading, Vec::new()),
                Err(error) => {
                    self.snapshot.problem = Some(format!("frame {number} not read: {error}"));
                    return;
                }
            },
            Eyes::Table(table) => match table.observe(image, referee.state(), number, time_s) {
                Ok((reading, observation)) => {
                    self.snapshot.tracking = table.tracking().map(ToString::to_string);
                    self.snapshot.hand = hand_words(&observation.covered, table.tracking());
                    let seats: Vec<_> = referee.state().players().iter().map(|p| p.color).collect();
                    covered_px = table.zone_boxes_px(&observation.covered, &seats);
                    let events = referee.observe(&observation);
                    pillars_px = table.pillar_points();
                    (reading, events)
                }
                Err(error) => {
                    self.snapshot.problem = Some(format!("frame {number} not read: {error}"));
                    return;
                }
            },
        };
        let reading_ms = started.elapsed().as_secs_f32() * 1000.0;
        let now = Instant::now();
        let smooth =
            |old: f32, new: f32, first: bool| if first { new } else { old * 0.8 + new * 0.2 };
        let first = self.snapshot.frames_read == 0;
        self.snapshot.reading_ms = smooth(self.snapshot.reading_ms, reading_ms, first);
        let latency_ms = frame.arrived.elapsed().as_secs_f32() * 1000.0;
        self.snapshot.latency_ms = smooth(self.snapshot.latency_ms, latency_ms, first);
        if let Some(last) = self.last_frame_at {
            let interval = now.duration_since(last).as_secs_f32().max(1e-3);
            let second = self.snapshot.frames_read == 1;
            self.snapshot.fps = smooth(self.snapshot.fps, 1.0 / interval, second);
        }
        self.last_frame_at = Some(now);
        self.last_frame = number;
        self.snapshot.frames_read += 1;
        self.snapshot.frame = Some(LiveFrame {
            number,
            time_s,
            image: Arc::new(color_image(image)),
            reading,
            pillars_px,
            covered_px,
        });
        if !events.is_empty()
            || self.snapshot.referee.record.is_none()
            || self.snapshot.referee.undecided != undecided(referee)
            || self.snapshot.referee.unsure_in_roll != unsure_in_roll(referee)
            // The indices suffice: a record rewritten there comes with events.
            || (self.snapshot.referee.unsure_ranks.iter().map(|(i, _)| *i))
                .ne(referee.unsure_ranks())
        {
            self.snapshot.referee = referee_view(referee, &self.snapshot.referee, &events);
        }
    }

    fn answer(&mut self, referee: &mut Referee, request: LiveRequest) {
        let answered = match &request {
            LiveRequest::Override => referee.override_flag(self.last_frame),
            LiveRequest::Play(actions) => referee.play(actions, self.last_frame),
            LiveRequest::PutRight { was, is } => referee.put_right(*was, *is, self.last_frame),
            LiveRequest::NameRank { index, rank } => {
                referee.name_rank(*index, *rank, self.last_frame)
            }
        };
        match answered {
            Ok(events) => {
                let mut view = referee_view(referee, &self.snapshot.referee, &events);
                // A request always changes the record the window mirrors.
                view.version = view.version.max(self.snapshot.referee.version + 1);
                self.snapshot.referee = view;
            }
            Err(error) => self.snapshot.problem = Some(format!("the referee refused: {error}")),
        }
        self.publish();
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use rules::GameSetup;
    use vision::{DieReading, MeepleReading};

    #[test]
    fn the_status_line_names_the_zones_under_a_hand() {
        let green = rules::PlayerColor::Green;
        let covered = [
            Zone::Tower { tower: TowerId::C },
            Zone::Spellbook { player: green },
            Zone::Reserve { player: green },
        ];
        let snapshot = LiveSnapshot {
            hand: hand_words(&covered, None),
            ..LiveSnapshot::default()
        };
        assert!(
            snapshot
                .status_line()
                .contains("a hand over tower C, Green's spellbook"),
            "{}",
            snapshot.status_line()
        );
        assert_eq!(hand_words(&[], None), None);
    }

    fn reading() -> Reading {
        Reading {
            width: 1280,
            height: 720,
            dice: vec![DieReading {
                id: 1,
                color: vision::DieColor::Yellow,
                value: 3,
                box_px: [100.0, 200.0, 140.0, 240.0],
                confidence: 0.923,
                value_confidence: 0.95,
                color_confidence: 0.97,
                value_probabilities: [0.0; 6],
                color_probabilities: [0.0; 5],
                uncertain: false,
                place: Some(MatPlace::Tower {
                    tower: "tower-b".into(),
                    level: 2,
                    pillar: 3,
                }),
            }],
            meeples: vec![MeepleReading {
                id: 2,
                player: vision::MeepleColor::Red,
                rank: vision::MeepleRank::Master,
                box_px: [300.0, 100.0, 330.0, 150.0],
                confidence: 0.41,
                uncertain: true,
                place: None,
            }],
        }
    }

    #[test]
    fn every_reading_becomes_an_overlay_item_with_its_words() {
        let items = overlay_items(&reading());
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].label, "yellow 3 92 % #1");
        assert_eq!(items[0].kind, "die");
        assert_eq!(items[0].tag, "3 92%");
        assert_eq!(items[1].tag, "M 41% ?");
        assert!(!items[0].uncertain);
        assert_eq!(
            items[0].color,
            crate::paint::die_color(rules::DieColor::Yellow)
        );
        assert_eq!(items[1].label, "red master 41 % ? #2");
        assert!(items[1].uncertain);
        assert_eq!(items[1].box_px, [300.0, 100.0, 330.0, 150.0]);
        assert_eq!(items[0].pillar, Some((TowerId::B, PillarIndex::Third)));
        assert_eq!(items[1].pillar, None);
    }

    #[test]
    fn a_flag_marks_the_items_on_its_pillar() {
        let items = overlay_items(&reading());
        let flag = |place: serde_json::Value| -> Flag {
            let mut flag = serde_json::json!({
                "frame": 7,
                "violation": "the die has no meeple beside it",
                "rule": "a die is placed with a meeple",
                "can_override": false,
            });
            flag.as_object_mut()
                .unwrap()
                .extend(place.as_object().unwrap().clone());
            serde_json::from_value(flag).unwrap()
        };
        let at = |tower: TowerId, pillar: PillarIndex| {
            flag(serde_json::json!({ "tower": tower, "pillar": pillar }))
        };
        assert!(items[0].flagged_by(&at(TowerId::B, PillarIndex::Third)));
        assert!(!items[0].flagged_by(&at(TowerId::B, PillarIndex::First)));
        assert!(!items[0].flagged_by(&at(TowerId::C, PillarIndex::Third)));
        assert!(!items[0].flagged_by(&flag(serde_json::json!({}))));
        // The meeple stands on no pillar.
        assert!(!items[1].flagged_by(&at(TowerId::B, PillarIndex::Third)));
    }

    #[test]
    fn the_image_is_letterboxed_and_boxes_follow_it() {
        let area = Rect::from_min_size(Pos2::new(10.0, 20.0), Vec2::new(640.0, 480.0));
        let shown = fit_image(Vec2::new(1280.0, 720.0), area);
        assert_eq!(shown.width(), 640.0);
        assert_eq!(shown.height(), 360.0);
        assert_eq!(shown.center(), area.center());
        assert_eq!(shown.min, Pos2::new(10.0, 80.0));
        let on_screen = screen_rect(
            [100.0, 200.0, 140.0, 240.0],
            Vec2::new(1280.0, 720.0),
            shown,
        );
        assert_eq!(on_screen.min, Pos2::new(60.0, 180.0));
        assert_eq!(on_screen.max, Pos2::new(80.0, 200.0));
        // A tall area: the image fills its width.
        let tall = fit_image(
            Vec2::new(1280.0, 720.0),
            Rect::from_min_size(Pos2::ZERO, Vec2::new(320.0, 900.0)),
        );
        assert_eq!(tall.size(), Vec2::new(320.0, 180.0));
        // An empty image takes no room.
        assert_eq!(fit_image(Vec2::ZERO, area).size(), Vec2::ZERO);
    }

    #[test]
    fn the_status_line_says_source_calibration_and_speed() {
        let mut snapshot = LiveSnapshot {
            source: "demo".to_owned(),
            ..LiveSnapshot::default()
        };
        assert_eq!(snapshot.status_line(), "demo · loading the reader");
        snapshot.phase = FeedPhase::Running;
        snapshot.calibration = CalibrationStatus::Searching { frames: 3 };
        snapshot.camera = Some(CameraStatus::Live);
        snapshot.frames_read = 12;
        snapshot.fps = 6.04;
        snapshot.reading_ms = 151.2;
        snapshot.latency_ms = 190.7;
        assert_eq!(
            snapshot.status_line(),
            "demo · camera live · calibrating: looking for the mat's markers (3 frames) · 6.0 fps, reading 151 ms, 191 ms behind"
        );
        snapshot.phase = FeedPhase::Ended;
        snapshot.camera = None;
        snapshot.calibration = CalibrationStatus::Calibrated {
            saved: false,
            frame: 0,
        };
        assert!(snapshot.status_line().contains("the recording has ended"));
        assert!(snapshot.status_line().contains("calibrated from frame 0"));
    }

    #[test]
    fn the_referee_view_counts_record_changes_and_keeps_the_last_events() {
        let catalogue = TileCatalogue::arkhanos();
        let setup = GameSetup::random(
            &[rules::PlayerColor::Red, rules::PlayerColor::Green],
            &catalogue,
            &mut rules::rng_from_seed(1),
        );
        let mut referee = Referee::new(&setup, &catalogue, RefereeSettings::default()).unwrap();
        let empty = referee_view(&referee, &RefereeView::default(), &[]);
        assert_eq!(empty.version, 0);
        assert_eq!(empty.record.as_ref().unwrap().actions.len(), 0);
        let roll = Action::from_notation("roll pink1 pink2 pink3 pink4 pink5").unwrap();
        let events = referee.play(std::slice::from_ref(&roll), 4).unwrap();
        let view = referee_view(&referee, &empty, &events);
        assert_eq!(view.version, 1);
        assert_eq!(view.record.unwrap().actions, [roll]);
        assert!(view.events.iter().any(|e| e.starts_with("[4] roll")));
    }

    #[test]
    fn a_frame_becomes_a_color_image_of_its_size() {
        let image = RgbImage::from_pixel(4, 3, image::Rgb([10, 20, 30]));
        let color = color_image(&image);
        assert_eq!(color.size, [4, 3]);
        assert_eq!(color.pixels[5], Color32::from_rgb(10, 20, 30));
    }
}
