//! One way to get frames, whatever gives them: a live camera, a list of image files, or a
//! folder of frames (a game rendered by `tablesight synth game`, or one recorded by
//! `tablesight record` and replayed with its own timestamps). Each frame comes with its
//! number and its time since the start, as RGB.

use std::fmt;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use image::RgbImage;
use serde::{Deserialize, Serialize};

use crate::capture::{
    CameraControls, CameraStatus, CaptureEvent, CaptureStats, LiveCapture, ModeRequest,
    WatchSettings, start_camera,
};
use crate::error::VisionError;
use crate::frame::read_rgb;

/// A frame ready for the reader.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// The camera's frame number (a gap is a frame dropped for a newer one), or the frame's
    /// number in its folder or list.
    pub number: u64,
    /// Time since the start of the capture or the recording.
    pub timestamp: Duration,
    /// When the source got it: the camera's capture thread took it from the driver, or a
    /// recording handed it over. Its age when the reading is done is the latency from capture
    /// to reading.
    pub arrived: Instant,
    pub image: RgbImage,
}

/// What a source hands over next.
#[derive(Debug)]
pub enum SourceEvent {
    Frame(Frame),
    /// The camera's status changed (live sources only).
    Status(CameraStatus),
    /// A frame that could not be read or decoded; the source goes on with the next.
    Skipped(VisionError),
    /// Nothing within the wait (a camera between frames, or a replay keeping its pace).
    Waiting,
    /// A recording has no more frames; a camera never ends.
    End,
}

/// Frames from a camera, files or a folder, all the same to the consumer.
pub trait FrameSource: Send {
    /// What the source is, in words.
    fn describe(&self) -> String;

    /// The next event, waiting at most `wait`.
    fn next_event(&mut self, wait: Duration) -> SourceEvent;

    /// The next frame, skipping status changes and unreadable frames; `None` at the end of a
    /// recording. A camera that is lost keeps it waiting until it comes back.
    fn next_frame(&mut self) -> Option<Frame> {
        loop {
            match self.next_event(Duration::from_secs(1)) {
                SourceEvent::Frame(frame) => return Some(frame),
                SourceEvent::End => return None,
                SourceEvent::Status(_) | SourceEvent::Skipped(_) | SourceEvent::Waiting => {}
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The camera
// ---------------------------------------------------------------------------------------------

/// A live capture as a frame source: frames decoded on the consumer's thread (only those it
/// takes), status changes passed on.
pub struct CameraSource {
    capture: LiveCapture,
    label: String,
}

impl CameraSource {
    /// Opens camera `index` (as `tablesight cameras` numbers them) in the mode `request`
    /// picks, with `controls`; refuses at once a camera or mode that is not there.
    pub fn open(
        index: u32,
        request: &ModeRequest,
        controls: CameraControls,
        settings: WatchSettings,
    ) -> Result<Self, VisionError> {
        let (capture, info) = start_camera(index, request, controls, settings)?;
        Ok(Self {
            capture,
            label: format!("camera {index}: {}", info.name),
        })
    }

    /// Any capture (a test double's, for one) as a source.
    pub fn new(capture: LiveCapture, label: impl Into<String>) -> Self {
        Self {
            capture,
            label: label.into(),
        }
    }

    /// The capture behind it: its status, device and counters.
    pub fn capture(&self) -> &LiveCapture {
        &self.capture
    }

    /// The capture's counters.
    pub fn stats(&self) -> CaptureStats {
        self.capture.stats()
    }
}

impl FrameSource for CameraSource {
    fn describe(&self) -> String {
        match self.capture.device().and_then(|d| d.mode) {
            Some(mode) => format!("{} ({mode})", self.label),
            None => self.label.clone(),
        }
    }

    fn next_event(&mut self, wait: Duration) -> SourceEvent {
        match self.capture.next_event(wait) {
            None => SourceEvent::Waiting,
            Some(CaptureEvent::Status(status)) => SourceEvent::Status(status),
            Some(CaptureEvent::Frame(frame)) => match frame.raw.decode() {
                Ok(image) => SourceEvent::Frame(Frame {
                    number: frame.number,
                    timestamp: frame.timestamp,
                    arrived: frame.arrived,
                    image,
                }),
                Err(error) => SourceEvent::Skipped(error),
            },
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Recorded frames
// ---------------------------------------------------------------------------------------------

/// The index of a folder written by `tablesight record`: JSON Lines, a header then one line
/// per frame, appended as frames are written (a recording cut short keeps what it wrote).
pub const RECORDING_INDEX: &str = "frames.jsonl";

/// The `format` of a recording's header.
pub const RECORDING_FORMAT: &str = "tablesight-recording";

/// The first line of [`RECORDING_INDEX`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordingHeader {
    /// [`RECORDING_FORMAT`].
    pub format: String,
    /// 1.
    pub version: u32,
    /// The camera's name.
    pub camera: String,
    /// The mode it was recorded in.
    pub mode: Option<crate::capture::CameraMode>,
}

impl RecordingHeader {
    /// The header of a recording from `camera` in `mode`.
    pub fn new(camera: impl Into<String>, mode: Option<crate::capture::CameraMode>) -> Self {
        Self {
            format: RECORDING_FORMAT.to_owned(),
            version: 1,
            camera: camera.into(),
            mode,
        }
    }
}

/// One line of [`RECORDING_INDEX`] after the header.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedFrame {
    /// The camera's frame number.
    pub number: u64,
    /// The file, relative to the folder.
    pub file: String,
    /// Time since the capture started.
    pub timestamp_ms: f64,
}

impl RecordedFrame {
    /// The index line of a frame written as [`recorded_file_name`]`(number)`.
    pub fn new(number: u64, timestamp: Duration) -> Self {
        Self {
            number,
            file: recorded_file_name(number),
            timestamp_ms: timestamp.as_secs_f64() * 1000.0,
        }
    }
}

/// `frame-NNNNN.jpg`, as `tablesight synth game` names its frames too.
pub fn recorded_file_name(number: u64) -> String {
    format!("frame-{number:05}.jpg")
}

/// How fast recorded frames are handed over.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Pace {
    /// At their timestamps, as the camera gave them (the first at once). A consumer that
    /// falls behind gets every frame all the same, late.
    #[default]
    Recorded,
    /// At their timestamps, as a live camera hands them over: a consumer that falls behind
    /// gets the newest frame due, the older ones are dropped (as the capture's mailbox drops
    /// them), so the replay is as late as a camera would be, never later.
    Live,
    /// As fast as the consumer takes them; the timestamps stay the recorded ones.
    Fastest,
}

/// Sleeps until `due` when it comes within `wait` and says true; else sleeps `wait` and says
/// false (the frame is not due yet: the source answers `Waiting`). Paces replayed frames.
pub fn wait_until(due: Instant, wait: Duration) -> bool {
    let now = Instant::now();
    if due > now {
        if due - now > wait {
            std::thread::sleep(wait);
            return false;
        }
        std::thread::sleep(due - now);
    }
    true
}

/// Frames of a folder of rendered games without `game.json`.
pub const DEFAULT_FPS: f64 = 15.0;

#[derive(Clone, Debug)]
struct Entry {
    number: u64,
    timestamp: Duration,
    path: PathBuf,
}

/// Frames read from image files: a list, or a folder (see [`FrameFiles::folder`]).
#[derive(Debug)]
pub struct FrameFiles {
    label: String,
    entries: Vec<Entry>,
    next: usize,
    pace: Pace,
    /// When the first frame was handed over.
    clock: Option<Instant>,
    skipped: usize,
    dropped: usize,
}

fn frames_error(path: &Path, reason: impl fmt::Display) -> VisionError {
    VisionError::Frames {
        path: path.to_owned(),
        reason: reason.to_string(),
    }
}

/// The frame rates of a recording: a frame a minute to a thousand a second, what a camera or
/// a time-lapse gives.
pub const FRAME_RATES: std::ops::RangeInclusive<f64> = 1.0 / 60.0..=1000.0;

fn checked_fps(path: &Path, fps: f64) -> Result<f64, VisionError> {
    if FRAME_RATES.contains(&fps) {
        Ok(fps)
    } else {
        Err(frames_error(path, format!("{fps} is not a frame rate")))
    }
}

impl FrameFiles {
    /// Image files in the given order, numbered from 0, `fps` frames a second.
    pub fn files(paths: Vec<PathBuf>, fps: f64, pace: Pace) -> Result<Self, VisionError> {
        let first = paths.first().cloned().unwrap_or_default();
        if paths.is_empty() {
            return Err(frames_error(&first, "the list of files is empty"));
        }
        let fps = checked_fps(&first, fps)?;
        let entries = paths
            .into_iter()
            .enumerate()
            .map(|(i, path)| Entry {
                number: i as u64,
                timestamp: Duration::from_secs_f64(i as f64 / fps),
                path,
            })
            .collect::<Vec<_>>();
        Ok(Self {
            label: format!("{} image files at {fps} fps", entries.len()),
            entries,
            next: 0,
            pace,
            clock: None,
            skipped: 0,
            dropped: 0,
        })
    }

    /// The frames of a folder: those its [`RECORDING_INDEX`] lists (`tablesight record`),
    /// with their recorded numbers and times; else its `frame-NNNNN.jpg` (or `.png`) files
    /// (`tablesight synth game`), frame NNNNN at NNNNN / `fps`, `fps` being the one given,
    /// else the `fps` of the folder's `game.json`, else [`DEFAULT_FPS`].
    pub fn folder(dir: &Path, fps: Option<f64>, pace: Pace) -> Result<Self, VisionError> {
        if !dir.is_dir() {
            return Err(frames_error(dir, "not a folder"));
        }
        let index = dir.join(RECORDING_INDEX);
        let (entries, label) = if index.is_file() {
            let (header, entries) = read_recording(dir, &index)?;
            let mode = header.mode.map(|m| format!(", {m}")).unwrap_or_default();
            let label = format!(
                "{}: {} frames recorded from {}{mode}",
                dir.display(),
                entries.len(),
                header.camera
            );
            (entries, label)
        } else {
            let fps = checked_fps(dir, folder_fps(dir, fps))?;
            let entries = numbered_frames(dir, fps)?;
            let label = format!("{}: {} frames at {fps} fps", dir.display(), entries.len());
            (entries, label)
        };
        if entries.is_empty() {
            return Err(frames_error(
                dir,
                format!(
                    "no frames: neither a {RECORDING_INDEX} (tablesight record) that lists any \
                     nor frame-NNNNN.jpg files (tablesight synth game)"
                ),
            ));
        }
        Ok(Self {
            label,
            entries,
            next: 0,
            pace,
            clock: None,
            skipped: 0,
            dropped: 0,
        })
    }

    /// Frames in all.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Never true: an empty list or folder is refused.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Frames that could not be read so far.
    pub fn skipped(&self) -> usize {
        self.skipped
    }

    /// Frames passed over for a newer one so far ([`Pace::Live`] only).
    pub fn dropped(&self) -> usize {
        self.dropped
    }
}

impl FrameSource for FrameFiles {
    fn describe(&self) -> String {
        self.label.clone()
    }

    fn next_event(&mut self, wait: Duration) -> SourceEvent {
        if self.next >= self.entries.len() {
            return SourceEvent::End;
        }
        let mut arrived = None;
        if self.pace != Pace::Fastest {
            let first = self.entries[0].timestamp;
            let start = *self.clock.get_or_insert_with(Instant::now);
            let due = |entry: &Entry| start + entry.timestamp.saturating_sub(first);
            if self.pace == Pace::Live {
                let now = Instant::now();
                while self
                    .entries
                    .get(self.next + 1)
                    .is_some_and(|later| due(later) <= now)
                {
                    self.next += 1;
                    self.dropped += 1;
                }
            }
            let due = due(&self.entries[self.next]);
            if !wait_until(due, wait) {
                return SourceEvent::Waiting;
            }
            // A camera's frame arrives when it is due; at the recorded pace a late consumer
            // plays the recording slower (every frame), each frame arriving when taken.
            if self.pace == Pace::Live {
                arrived = Some(due);
            }
        }
        let arrived = arrived.unwrap_or_else(Instant::now);
        let entry = &self.entries[self.next];
        self.next += 1;
        match read_rgb(&entry.path) {
            Ok(image) => SourceEvent::Frame(Frame {
                number: entry.number,
                timestamp: entry.timestamp,
                arrived,
                image,
            }),
            Err(error) => {
                self.skipped += 1;
                SourceEvent::Skipped(error)
            }
        }
    }
}

/// The frame rate of a folder of frames without an index: `fps` when given, else the `fps`
/// of the folder's `game.json` (a rendered game's), else [`DEFAULT_FPS`].
pub fn folder_fps(dir: &Path, fps: Option<f64>) -> f64 {
    fps.or_else(|| game_fps(dir)).unwrap_or(DEFAULT_FPS)
}

/// The `fps` of a rendered game's `game.json`, if it has one.
fn game_fps(dir: &Path) -> Option<f64> {
    let text = std::fs::read_to_string(dir.join("game.json")).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    value["fps"]
        .as_f64()
        .filter(|fps| FRAME_RATES.contains(fps))
}

/// `frame-NNNNN.jpg|jpeg|png` in the order of their numbers.
fn numbered_frames(dir: &Path, fps: f64) -> Result<Vec<Entry>, VisionError> {
    let listing = std::fs::read_dir(dir).map_err(|e| frames_error(dir, e))?;
    let mut entries = Vec::new();
    for item in listing {
        let path = item.map_err(|e| frames_error(dir, e))?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let Some((stem, extension)) = name.rsplit_once('.') else {
            continue;
        };
        if !["jpg", "jpeg", "png"].contains(&extension.to_ascii_lowercase().as_str()) {
            continue;
        }
        let Some(number) = stem
            .strip_prefix("frame-")
            .and_then(|n| n.parse::<u64>().ok())
        else {
            continue;
        };
        let timestamp = Duration::try_from_secs_f64(number as f64 / fps).map_err(|_| {
            frames_error(
                dir,
                format!("frame {number} at {fps} fps is too late a time"),
            )
        })?;
        entries.push(Entry {
            number,
            timestamp,
            path,
        });
    }
    entries.sort_by_key(|e| e.number);
    Ok(entries)
}

/// Reads a recording's index: its header, then its frames, each after the one before in
/// number and time; a last line cut short (a recording killed while writing it) is left
/// out, any other bad line is an error.
fn read_recording(dir: &Path, index: &Path) -> Result<(RecordingHeader, Vec<Entry>), VisionError> {
    let file = std::fs::File::open(index).map_err(|e| frames_error(index, e))?;
    let lines = std::io::BufReader::new(file)
        .lines()
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| frames_error(index, e))?;
    let mut lines = lines
        .iter()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty());
    let Some((_, first)) = lines.next() else {
        return Err(frames_error(index, "the index is empty"));
    };
    let header: RecordingHeader = serde_json::from_str(first)
        .map_err(|e| frames_error(index, format!("line 1 is not a recording header: {e}")))?;
    if header.format != RECORDING_FORMAT || header.version != 1 {
        return Err(frames_error(
            index,
            format!(
                "a {} version {} index; this version reads {RECORDING_FORMAT} version 1",
                header.format, header.version
            ),
        ));
    }
    let lines: Vec<_> = lines.collect();
    let mut entries = Vec::with_capacity(lines.len());
    for (k, (i, line)) in lines.iter().enumerate() {
        let frame: RecordedFrame = match serde_json::from_str(line) {
            Ok(frame) => frame,
            Err(_) if k + 1 == lines.len() => break,
            Err(e) => return Err(frames_error(index, format!("line {}: {e}", i + 1))),
        };
        let Some(timestamp) = (frame.timestamp_ms >= 0.0)
            .then(|| Duration::try_from_secs_f64(frame.timestamp_ms / 1000.0).ok())
            .flatten()
        else {
            return Err(frames_error(
                index,
                format!("line {}: {} is not a time", i + 1, frame.timestamp_ms),
            ));
        };
        // A camera numbers its frames and times them as they come: an index out of that
        // order was written by hand or mixed up, and would be refereed out of order.
        if let Some(before) = entries
            .last()
            .filter(|before: &&Entry| frame.number <= before.number || timestamp < before.timestamp)
        {
            return Err(frames_error(
                index,
                format!(
                    "line {}: frame {} at {:.1} ms does not come after frame {} at {:.1} ms",
                    i + 1,
                    frame.number,
                    frame.timestamp_ms,
                    before.number,
                    before.timestamp.as_secs_f64() * 1000.0
                ),
            ));
        }
        let file = Path::new(&frame.file);
        if file.is_absolute() || file.components().count() != 1 {
            return Err(frames_error(
                index,
                format!("line {}: {} is not a file of the folder", i + 1, frame.file),
            ));
        }
        entries.push(Entry {
            number: frame.number,
            timestamp,
            path: dir.join(file),
        });
    }
    Ok((header, entries))
}
