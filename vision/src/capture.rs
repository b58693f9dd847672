//! Live frames from a webcam: the cameras and what they offer, a camera opened in a chosen
//! mode, its frames read on a thread of their own and handed over through a mailbox where
//! the newest frame wins, and a supervisor that watches the stream (nokhwa's own threaded
//! camera ignores frame errors), says within a second when it stalls, is unplugged or is
//! busy, and opens it again.
//!
//! ```text
//! DeviceOpener::open --(worker thread)--> FrameDevice::next_frame --RawImage--> Mailbox (newest wins)
//!        ^ again after a loss                    | watched by the supervisor thread: Starting,
//!        +----------------------------------------+ Live, Stalled, Lost, Reconnecting
//! LiveCapture::next_event (the consumer's thread) --> CaptureEvent::{Frame(RawFrame), Status}
//! RawImage::decode: MJPEG by zune-jpeg (through image), YUYV/NV12 by our own conversion
//! ```
//!
//! The supervision is generic over [`DeviceOpener`], so the tests drive the same code with a
//! camera that stops, fails and comes back on purpose; [`CameraOpener`] is the real one.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use image::{DynamicImage, RgbImage};
use serde::{Deserialize, Serialize};

use crate::error::VisionError;

// ---------------------------------------------------------------------------------------------
// Raw frames and their decoding
// ---------------------------------------------------------------------------------------------

/// How a camera encodes its frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum PixelFormat {
    /// Motion JPEG: every frame a JPEG picture (what most webcams send at 720p and above).
    #[serde(rename = "MJPEG")]
    Mjpeg,
    /// YUV 4:2:2, two bytes a pixel: Y0 U Y1 V.
    #[serde(rename = "YUYV")]
    Yuyv,
    /// YUV 4:2:0: a plane of Y, then a half-size plane of interleaved U and V.
    #[serde(rename = "NV12")]
    Nv12,
    /// One byte of grey a pixel.
    #[serde(rename = "GRAY")]
    Gray,
    /// Three bytes a pixel, red first.
    #[serde(rename = "RGB")]
    Rgb,
}

impl PixelFormat {
    /// The name cameras and v4l2 tools use.
    pub fn name(self) -> &'static str {
        match self {
            Self::Mjpeg => "MJPEG",
            Self::Yuyv => "YUYV",
            Self::Nv12 => "NV12",
            Self::Gray => "GRAY",
            Self::Rgb => "RGB",
        }
    }
}

impl fmt::Display for PixelFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One frame's bytes as the camera sent them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawImage {
    pub format: PixelFormat,
    /// The size the camera announced; an MJPEG frame's own header has the last word.
    pub width: u32,
    pub height: u32,
    pub data: Vec<u8>,
}

impl RawImage {
    /// The frame as RGB: MJPEG through zune-jpeg, the YUV formats by integer BT.601.
    pub fn decode(&self) -> Result<RgbImage, VisionError> {
        match self.format {
            PixelFormat::Mjpeg => decode_mjpeg(&self.data),
            PixelFormat::Yuyv => yuyv_to_rgb(&self.data, self.width, self.height),
            PixelFormat::Nv12 => nv12_to_rgb(&self.data, self.width, self.height),
            PixelFormat::Gray => {
                let pixels = self.width as usize * self.height as usize;
                let data = self.data.get(..pixels).ok_or_else(|| {
                    short_frame(
                        self.format,
                        self.data.len(),
                        pixels,
                        self.width,
                        self.height,
                    )
                })?;
                let rgb = data.iter().flat_map(|&g| [g, g, g]).collect();
                rgb_image(self.format, self.width, self.height, rgb)
            }
            PixelFormat::Rgb => {
                let bytes = self.width as usize * self.height as usize * 3;
                let data = self.data.get(..bytes).ok_or_else(|| {
                    short_frame(self.format, self.data.len(), bytes, self.width, self.height)
                })?;
                rgb_image(self.format, self.width, self.height, data.to_vec())
            }
        }
    }
}

/// A frame of a live capture: its number (counted from 0 over every frame the camera
/// delivered, so a gap is a frame dropped for a newer one) and when it arrived.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawFrame {
    pub number: u64,
    /// Since the capture started.
    pub timestamp: Duration,
    /// When the capture thread took it from the driver: its age is the capture's latency.
    pub arrived: Instant,
    pub raw: RawImage,
}

/// Decodes one MJPEG frame (a JPEG picture; the Huffman tables that webcams leave out are
/// filled in by the decoder) to RGB.
pub fn decode_mjpeg(bytes: &[u8]) -> Result<RgbImage, VisionError> {
    let error = |reason: String| VisionError::Decode {
        format: PixelFormat::Mjpeg.name().to_owned(),
        reason,
    };
    let decoder = image::codecs::jpeg::JpegDecoder::new(std::io::Cursor::new(bytes))
        .map_err(|e| error(e.to_string()))?;
    let image = DynamicImage::from_decoder(decoder).map_err(|e| error(e.to_string()))?;
    Ok(image.into_rgb8())
}

fn short_frame(
    format: PixelFormat,
    got: usize,
    needed: usize,
    width: u32,
    height: u32,
) -> VisionError {
    VisionError::Decode {
        format: format.name().to_owned(),
        reason: format!("{got} bytes where a {width}x{height} frame needs {needed}"),
    }
}

fn rgb_image(
    format: PixelFormat,
    width: u32,
    height: u32,
    rgb: Vec<u8>,
) -> Result<RgbImage, VisionError> {
    RgbImage::from_raw(width, height, rgb).ok_or_else(|| VisionError::Decode {
        format: format.name().to_owned(),
        reason: format!("{width}x{height} is not a frame size"),
    })
}

/// The chroma terms of BT.601 studio range to RGB (integer arithmetic, as libyuv), with
/// the rounding: `d` is `u - 128`, `e` is `v - 128`.
#[inline]
fn chroma_terms(d: i32, e: i32) -> [i32; 3] {
    [409 * e + 128, -100 * d - 208 * e + 128, 516 * d + 128]
}

/// One channel: `luma` is `298 * (y - 16)`. After the shift every value lies within
/// -171..=534, exact as an i16, whose clamp plain x86-64 (SSE2) does in one instruction.
#[inline]
fn channel(luma: i32, term: i32) -> u8 {
    (((luma + term) >> 8) as i16).clamp(0, 255) as u8
}

#[inline]
fn yuv_pixel(y: u8, terms: [i32; 3]) -> [u8; 3] {
    let luma = 298 * (i32::from(y) - 16);
    terms.map(|term| channel(luma, term))
}

/// Converts YUYV (4:2:2, rows of `width * 2` bytes) to RGB.
pub fn yuyv_to_rgb(data: &[u8], width: u32, height: u32) -> Result<RgbImage, VisionError> {
    let needed = width as usize * height as usize * 2;
    let data = match data.get(..needed) {
        Some(data) if width.is_multiple_of(2) => data,
        _ => {
            return Err(short_frame(
                PixelFormat::Yuyv,
                data.len(),
                needed,
                width,
                height,
            ));
        }
    };
    let mut rgb = vec![0; width as usize * height as usize * 3];
    for (yuyv, out) in data.chunks_exact(4).zip(rgb.chunks_exact_mut(6)) {
        let [y0, u, y1, v] = [yuyv[0], yuyv[1], yuyv[2], yuyv[3]];
        let terms = chroma_terms(i32::from(u) - 128, i32::from(v) - 128);
        let ([r0, g0, b0], [r1, g1, b1]) = (yuv_pixel(y0, terms), yuv_pixel(y1, terms));
        out.copy_from_slice(&[r0, g0, b0, r1, g1, b1]);
    }
    rgb_image(PixelFormat::Yuyv, width, height, rgb)
}

/// Converts NV12 (a Y plane, then interleaved U and V at half size) to RGB.
pub fn nv12_to_rgb(data: &[u8], width: u32, height: u32) -> Result<RgbImage, VisionError> {
    let (w, h) = (width as usize, height as usize);
    let needed = w * h + w.div_ceil(2) * 2 * h.div_ceil(2);
    if data.len() < needed || !w.is_multiple_of(2) {
        return Err(short_frame(
            PixelFormat::Nv12,
            data.len(),
            needed,
            width,
            height,
        ));
    }
    let (luma, chroma) = data.split_at(w * h);
    let mut rgb = vec![0; w * h * 3];
    for (y, row) in rgb.chunks_exact_mut(w * 3).enumerate() {
        let uv_row = &chroma[(y / 2) * w..(y / 2) * w + w];
        let luma_row = &luma[y * w..y * w + w];
        let pairs = luma_row.chunks_exact(2).zip(uv_row.chunks_exact(2));
        for ((pair, uv), out) in pairs.zip(row.chunks_exact_mut(6)) {
            let terms = chroma_terms(i32::from(uv[0]) - 128, i32::from(uv[1]) - 128);
            let ([r0, g0, b0], [r1, g1, b1]) =
                (yuv_pixel(pair[0], terms), yuv_pixel(pair[1], terms));
            out.copy_from_slice(&[r0, g0, b0, r1, g1, b1]);
        }
    }
    rgb_image(PixelFormat::Nv12, width, height, rgb)
}

/// The bytes to store for a frame: a camera's MJPEG frame as it came, anything else encoded
/// as JPEG (quality 90). What `tablesight record` writes.
pub fn jpeg_bytes(raw: &RawImage) -> Result<Cow<'_, [u8]>, VisionError> {
    if raw.format == PixelFormat::Mjpeg {
        return Ok(Cow::Borrowed(&raw.data));
    }
    let rgb = raw.decode()?;
    let mut bytes = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, 90)
        .encode_image(&rgb)
        .map_err(|e| VisionError::Decode {
            format: raw.format.name().to_owned(),
            reason: format!("cannot encode it as JPEG: {e}"),
        })?;
    Ok(Cow::Owned(bytes))
}

// ---------------------------------------------------------------------------------------------
// The mailbox
// ---------------------------------------------------------------------------------------------

/// A one-place mailbox between a producer and one consumer where the newest item wins: an
/// item not yet taken when the next one comes is dropped (and counted), so a slow consumer
/// always gets the latest frame and stale ones never pile up.
#[derive(Debug)]
pub struct Mailbox<T> {
    slot: Mutex<Slot<T>>,
    ready: Condvar,
}

#[derive(Debug)]
struct Slot<T> {
    item: Option<T>,
    posted: u64,
    dropped: u64,
    wakes: u64,
    closed: bool,
}

/// What a wait on the mailbox ended with.
enum Taken<T> {
    Item(T),
    Woken,
    TimedOut,
}

impl<T> Default for Mailbox<T> {
    fn default() -> Self {
        Self {
            slot: Mutex::new(Slot {
                item: None,
                posted: 0,
                dropped: 0,
                wakes: 0,
                closed: false,
            }),
            ready: Condvar::new(),
        }
    }
}

impl<T> Mailbox<T> {
    /// An empty mailbox.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, Slot<T>> {
        self.slot.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Leaves `item` for the consumer; returns true when it replaced one not yet taken.
    /// After [`close`](Self::close) the item is thrown away.
    pub fn post(&self, item: T) -> bool {
        let mut slot = self.lock();
        if slot.closed {
            return false;
        }
        slot.posted += 1;
        let replaced = slot.item.replace(item).is_some();
        if replaced {
            slot.dropped += 1;
        }
        drop(slot);
        self.ready.notify_all();
        replaced
    }

    /// Takes the item waiting, if any, without waiting.
    pub fn try_take(&self) -> Option<T> {
        self.lock().item.take()
    }

    /// Takes the newest item, waiting at most `wait` for one.
    pub fn take(&self, wait: Duration) -> Option<T> {
        let deadline = Instant::now() + wait;
        loop {
            match self.take_until(deadline, self.wakes()) {
                Taken::Item(item) => return Some(item),
                Taken::TimedOut => return None,
                Taken::Woken if self.lock().closed => return None,
                // Woken for something else than an item: wait on.
                Taken::Woken => {}
            }
        }
    }

    /// Waits for an item until `deadline`, or until someone calls [`wake`](Self::wake) after
    /// the wake count was `seen` (a wake comes first: whatever it announces is older than
    /// the item).
    fn take_until(&self, deadline: Instant, seen: u64) -> Taken<T> {
        let mut slot = self.lock();
        loop {
            if slot.wakes != seen || slot.closed {
                return Taken::Woken;
            }
            if let Some(item) = slot.item.take() {
                return Taken::Item(item);
            }
            let now = Instant::now();
            if now >= deadline {
                return Taken::TimedOut;
            }
            slot = self
                .ready
                .wait_timeout(slot, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Wakes a consumer waiting in [`take`](Self::take) without an item (it waits on).
    fn wake(&self) {
        self.lock().wakes += 1;
        self.ready.notify_all();
    }

    fn wakes(&self) -> u64 {
        self.lock().wakes
    }

    /// Refuses further items and wakes the consumer.
    pub fn close(&self) {
        let mut slot = self.lock();
        slot.closed = true;
        slot.item = None;
        drop(slot);
        self.ready.notify_all();
    }

    /// Items posted so far.
    pub fn posted(&self) -> u64 {
        self.lock().posted
    }

    /// Items replaced by a newer one before they were taken.
    pub fn dropped(&self) -> u64 {
        self.lock().dropped
    }
}

// ---------------------------------------------------------------------------------------------
// Devices, status, supervision
// ---------------------------------------------------------------------------------------------

/// What the camera is doing, as the supervisor sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CameraStatus {
    /// Opening the camera for the first time, or waiting for its first frame.
    Starting,
    /// Frames are arriving.
    Live,
    /// The camera is open but no frame came for a while (`WatchSettings::stall_after`);
    /// `since` is when the last one came (or the camera opened), from the capture's start.
    Stalled { since: Duration },
    /// The camera failed (unplugged, busy, errors, or it stopped answering); the capture
    /// tries to open it again every `WatchSettings::retry_every`.
    Lost { reason: String },
    /// Opening the camera again after a stall or a loss, and waiting for its first frame.
    Reconnecting,
}

impl CameraStatus {
    /// True while frames arrive.
    pub fn is_live(&self) -> bool {
        matches!(self, Self::Live)
    }
}

impl fmt::Display for CameraStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Starting => write!(f, "starting"),
            Self::Live => write!(f, "live"),
            Self::Stalled { since } => write!(
                f,
                "stalled: no frame since {:.1} s into the capture",
                since.as_secs_f64()
            ),
            Self::Lost { reason } => write!(f, "lost: {reason}; retrying"),
            Self::Reconnecting => write!(f, "reconnecting"),
        }
    }
}

/// Why a device could not be opened or read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DeviceError {
    /// Not connected (unplugged, or never there).
    #[error("the camera is not connected (unplugged?): {0}")]
    Gone(String),
    /// Taken by another program.
    #[error("the camera is busy (another program is using it?): {0}")]
    Busy(String),
    /// Anything else; a frame that fails may be followed by good ones.
    #[error("{0}")]
    Failed(String),
}

/// An opened camera (or a stand-in) that yields raw frames.
pub trait FrameDevice {
    /// Blocks until the next frame. It may block for ever: the supervisor notices by time,
    /// leaves the thread behind and opens the camera again.
    fn next_frame(&mut self) -> Result<RawImage, DeviceError>;
}

/// Something that opens a camera: the real one ([`CameraOpener`]) or a test double. It is
/// called again (from a new thread) after every loss, so it must find the camera again.
pub trait DeviceOpener: Send + Sync + 'static {
    /// What `open` opens.
    type Device: FrameDevice;
    /// Opens the device, ready to stream; the device lives on the calling thread.
    fn open(&self) -> Result<(Self::Device, DeviceInfo), DeviceError>;
}

/// What was opened.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DeviceInfo {
    /// The camera's name ("HD Webcam C525").
    pub name: String,
    /// Where it is ("/dev/video0"), when known.
    pub place: String,
    /// The mode it streams in, when known.
    pub mode: Option<CameraMode>,
    /// What was done with exposure, focus and white balance, one line each.
    pub controls: Vec<String>,
}

/// How a capture watches its camera. The defaults say a stall within 0.6 s.
#[derive(Clone, Debug)]
pub struct WatchSettings {
    /// No frame for this long: `Stalled`.
    pub stall_after: Duration,
    /// No frame for this long (a stalled stream, or a frame call that does not return):
    /// the camera is opened again; a thread stuck in the driver is left behind.
    pub reopen_after: Duration,
    /// An open that does not return for this long is left behind the same way.
    pub open_timeout: Duration,
    /// Pause between two attempts to open a lost camera.
    pub retry_every: Duration,
    /// How often the supervisor looks.
    pub check_every: Duration,
    /// Failed frames in a row before the camera is opened again.
    pub errors_before_reopen: u32,
    /// Capture threads at most, those left stuck in the driver included: with that many
    /// alive the capture waits for one to return before it opens the camera again.
    pub max_threads: usize,
    /// How long dropping the capture waits for its thread to close the camera.
    pub shutdown_wait: Duration,
}

impl Default for WatchSettings {
    fn default() -> Self {
        Self {
            stall_after: Duration::from_millis(500),
            reopen_after: Duration::from_secs(2),
            open_timeout: Duration::from_secs(5),
            retry_every: Duration::from_millis(500),
            check_every: Duration::from_millis(50),
            errors_before_reopen: 10,
            max_threads: 3,
            shutdown_wait: Duration::from_millis(500),
        }
    }
}

/// What [`LiveCapture::next_event`] hands over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CaptureEvent {
    /// The newest frame (older ones not taken in time were dropped).
    Frame(RawFrame),
    /// The camera's status changed; every change is reported, in order.
    Status(CameraStatus),
}

/// Counters of a capture.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CaptureStats {
    /// Frames the camera delivered.
    pub frames: u64,
    /// Frames replaced by a newer one before the consumer took them.
    pub dropped: u64,
    /// Times the camera was opened again after a loss or a stall.
    pub reconnects: u64,
    /// Threads left behind in a driver call that did not return.
    pub abandoned_threads: u64,
}

/// What a worker thread is waiting on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Call {
    Open,
    Frame,
}

/// Status changes kept for the consumer, at most.
const STATUS_QUEUE: usize = 64;

struct State {
    stopping: bool,
    /// Bumped when a worker is left behind; a worker of an older generation only exits.
    generation: u64,
    /// Whether the worker of the current generation runs.
    current_alive: bool,
    workers_alive: usize,
    status: CameraStatus,
    changes: VecDeque<CameraStatus>,
    device: Option<DeviceInfo>,
    ever_opened: bool,
    opened_at: Option<Instant>,
    last_frame_at: Option<Instant>,
    call: Option<(Call, Instant)>,
    frames: u64,
    reconnects: u64,
    abandoned: u64,
}

impl State {
    fn set_status(&mut self, status: CameraStatus) -> bool {
        if self.status == status {
            return false;
        }
        self.status = status.clone();
        if self.changes.len() == STATUS_QUEUE {
            self.changes.pop_front();
        }
        self.changes.push_back(status);
        true
    }
}

struct Shared {
    settings: WatchSettings,
    started: Instant,
    frames: Mailbox<RawFrame>,
    state: Mutex<State>,
    changed: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `change` on the state of a current worker; false (and nothing done) when the
    /// worker is of an old generation or the capture stops.
    fn update(&self, generation: u64, change: impl FnOnce(&mut State) -> bool) -> bool {
        let mut state = self.lock();
        if state.stopping || state.generation != generation {
            return false;
        }
        let status_changed = change(&mut state);
        drop(state);
        self.changed.notify_all();
        if status_changed {
            self.frames.wake();
        }
        true
    }

    fn begin(&self, generation: u64, call: Call) -> bool {
        self.update(generation, |state| {
            state.call = Some((call, Instant::now()));
            if call == Call::Open
                && matches!(
                    state.status,
                    CameraStatus::Live | CameraStatus::Stalled { .. }
                )
            {
                return state.set_status(CameraStatus::Reconnecting);
            }
            false
        })
    }

    fn end_call(&self, generation: u64) -> bool {
        self.update(generation, |state| {
            state.call = None;
            false
        })
    }

    fn opened(&self, generation: u64, info: DeviceInfo) -> bool {
        self.update(generation, |state| {
            state.call = None;
            state.opened_at = Some(Instant::now());
            state.device = Some(info);
            if state.ever_opened {
                state.reconnects += 1;
            }
            state.ever_opened = true;
            match state.status {
                CameraStatus::Lost { .. } | CameraStatus::Stalled { .. } | CameraStatus::Live => {
                    state.set_status(CameraStatus::Reconnecting)
                }
                CameraStatus::Starting | CameraStatus::Reconnecting => false,
            }
        })
    }

    fn lost(&self, generation: u64, reason: String) -> bool {
        self.update(generation, |state| {
            state.call = None;
            state.opened_at = None;
            state.set_status(CameraStatus::Lost { reason })
        })
    }

    fn deliver(&self, generation: u64, raw: RawImage) -> bool {
        let mut frame = None;
        let current = self.update(generation, |state| {
            let now = Instant::now();
            state.call = None;
            state.last_frame_at = Some(now);
            frame = Some(RawFrame {
                number: state.frames,
                timestamp: now.saturating_duration_since(self.started),
                arrived: now,
                raw,
            });
            state.frames += 1;
            state.set_status(CameraStatus::Live)
        });
        if let Some(frame) = frame {
            self.frames.post(frame);
        }
        current
    }

    /// Waits `pause` unless the capture stops or leaves this worker behind meanwhile.
    fn pause(&self, generation: u64, pause: Duration) -> bool {
        let deadline = Instant::now() + pause;
        let mut state = self.lock();
        loop {
            if state.stopping || state.generation != generation {
                return false;
            }
            let now = Instant::now();
            if now >= deadline {
                return true;
            }
            state = self
                .changed
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

/// Counts a worker thread out when it ends, however it ends.
struct WorkerGuard {
    shared: Arc<Shared>,
    generation: u64,
}

impl Drop for WorkerGuard {
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        state.workers_alive = state.workers_alive.saturating_sub(1);
        if state.generation == self.generation {
            state.current_alive = false;
        }
        drop(state);
        self.shared.changed.notify_all();
    }
}

/// Runs `call`, turning a panic in a driver or a test double into an error message.
fn guarded<T>(call: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(call)).map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_owned())
    })
}

fn work<O: DeviceOpener>(shared: Arc<Shared>, opener: Arc<O>, generation: u64) {
    let _guard = WorkerGuard {
        shared: Arc::clone(&shared),
        generation,
    };
    let settings = shared.settings.clone();
    let mut first = true;
    loop {
        if !first && !shared.pause(generation, settings.retry_every) {
            return;
        }
        first = false;
        if !shared.begin(generation, Call::Open) {
            return;
        }
        let (mut device, info) = match guarded(|| opener.open()) {
            Ok(Ok(opened)) => opened,
            Ok(Err(error)) => {
                if shared.lost(generation, error.to_string()) {
                    continue;
                }
                return;
            }
            Err(panic) => {
                if shared.lost(
                    generation,
                    format!("the camera panicked while opening: {panic}"),
                ) {
                    continue;
                }
                return;
            }
        };
        if !shared.opened(generation, info) {
            return;
        }
        let mut failed_in_row = 0;
        loop {
            if !shared.begin(generation, Call::Frame) {
                return;
            }
            let reason = match guarded(|| device.next_frame()) {
                Ok(Ok(raw)) => {
                    failed_in_row = 0;
                    if shared.deliver(generation, raw) {
                        continue;
                    }
                    return;
                }
                Ok(Err(DeviceError::Failed(reason))) => {
                    failed_in_row += 1;
                    if failed_in_row < settings.errors_before_reopen {
                        if shared.end_call(generation) {
                            continue;
                        }
                        return;
                    }
                    format!("{failed_in_row} frames in a row failed, the last with: {reason}")
                }
                Ok(Err(error)) => error.to_string(),
                Err(panic) => format!("the camera panicked: {panic}"),
            };
            if !shared.lost(generation, reason) {
                return;
            }
            break;
        }
        // The device is dropped (closed) here, before the next attempt opens it again.
    }
}

fn supervise<O: DeviceOpener>(shared: Arc<Shared>, opener: Arc<O>) {
    let settings = shared.settings.clone();
    let mut state = shared.lock();
    loop {
        if state.stopping {
            return;
        }
        let mut status_changed = false;
        if !state.current_alive {
            if state.workers_alive < settings.max_threads.max(1) {
                let generation = state.generation;
                let spawned = thread::Builder::new()
                    .name(format!("camera-capture-{generation}"))
                    .spawn({
                        let shared = Arc::clone(&shared);
                        let opener = Arc::clone(&opener);
                        move || work(shared, opener, generation)
                    });
                match spawned {
                    Ok(_detached) => {
                        state.current_alive = true;
                        state.workers_alive += 1;
                    }
                    Err(error) => {
                        status_changed |= state.set_status(CameraStatus::Lost {
                            reason: format!("cannot start a capture thread: {error}"),
                        });
                    }
                }
            } else {
                let stuck = state.workers_alive;
                status_changed |= state.set_status(CameraStatus::Lost {
                    reason: format!(
                        "the camera stopped answering and {stuck} capture threads are still \
                         waiting for its driver"
                    ),
                });
            }
        }
        let now = Instant::now();
        if let Some(opened_at) = state.opened_at {
            let progress = state.last_frame_at.map_or(opened_at, |t| t.max(opened_at));
            let quiet = now.saturating_duration_since(progress);
            if quiet >= settings.stall_after
                && !matches!(
                    state.status,
                    CameraStatus::Stalled { .. } | CameraStatus::Lost { .. }
                )
            {
                status_changed |= state.set_status(CameraStatus::Stalled {
                    since: progress.saturating_duration_since(shared.started),
                });
            }
            if quiet >= settings.reopen_after && state.current_alive {
                // A stream that stopped: leave this worker (it may never return from the
                // driver) and open the camera again from a new one.
                state.generation += 1;
                state.current_alive = false;
                state.opened_at = None;
                state.call = None;
                state.abandoned += 1;
                status_changed |= state.set_status(CameraStatus::Reconnecting);
            }
        }
        if let Some((Call::Open, since)) = state.call
            && now.saturating_duration_since(since) >= settings.open_timeout
            && state.current_alive
        {
            state.generation += 1;
            state.current_alive = false;
            state.call = None;
            state.abandoned += 1;
            status_changed |= state.set_status(CameraStatus::Lost {
                reason: format!(
                    "opening the camera did not return within {:.1} s",
                    settings.open_timeout.as_secs_f64()
                ),
            });
        }
        if status_changed {
            drop(state);
            shared.frames.wake();
            shared.changed.notify_all();
            state = shared.lock();
            continue;
        }
        state = shared
            .changed
            .wait_timeout(state, settings.check_every)
            .unwrap_or_else(PoisonError::into_inner)
            .0;
    }
}

/// A camera (or a stand-in) captured on a thread of its own and watched by a supervisor.
/// Dropping it stops both; a thread stuck in the driver is left to end on its own.
pub struct LiveCapture {
    shared: Arc<Shared>,
    supervisor: Option<thread::JoinHandle<()>>,
}

impl fmt::Debug for LiveCapture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LiveCapture")
            .field("status", &self.status())
            .field("stats", &self.stats())
            .finish()
    }
}

impl LiveCapture {
    /// Starts capturing from what `opener` opens; the status starts as `Starting`.
    pub fn start<O: DeviceOpener>(opener: O, settings: WatchSettings) -> Result<Self, VisionError> {
        let shared = Arc::new(Shared {
            settings,
            started: Instant::now(),
            frames: Mailbox::new(),
            state: Mutex::new(State {
                stopping: false,
                generation: 0,
                current_alive: false,
                workers_alive: 0,
                status: CameraStatus::Starting,
                changes: VecDeque::new(),
                device: None,
                ever_opened: false,
                opened_at: None,
                last_frame_at: None,
                call: None,
                frames: 0,
                reconnects: 0,
                abandoned: 0,
            }),
            changed: Condvar::new(),
        });
        let opener = Arc::new(opener);
        let supervisor = thread::Builder::new()
            .name("camera-supervisor".to_owned())
            .spawn({
                let shared = Arc::clone(&shared);
                move || supervise(shared, opener)
            })
            .map_err(|error| VisionError::Camera {
                camera: "capture".to_owned(),
                reason: format!("cannot start the capture thread: {error}"),
            })?;
        Ok(Self {
            shared,
            supervisor: Some(supervisor),
        })
    }

    /// The next status change or, when there is none, the newest frame; waits at most
    /// `wait` and returns `None` when nothing came.
    pub fn next_event(&mut self, wait: Duration) -> Option<CaptureEvent> {
        let deadline = Instant::now() + wait;
        loop {
            let wakes = self.shared.frames.wakes();
            if let Some(status) = self.shared.lock().changes.pop_front() {
                return Some(CaptureEvent::Status(status));
            }
            match self.shared.frames.take_until(deadline, wakes) {
                Taken::Item(frame) => return Some(CaptureEvent::Frame(frame)),
                Taken::TimedOut => return None,
                Taken::Woken => {}
            }
        }
    }

    /// The status now.
    pub fn status(&self) -> CameraStatus {
        self.shared.lock().status.clone()
    }

    /// The camera opened last (kept while it is lost).
    pub fn device(&self) -> Option<DeviceInfo> {
        self.shared.lock().device.clone()
    }

    /// Frames delivered and dropped, reconnections, threads left behind.
    pub fn stats(&self) -> CaptureStats {
        let dropped = self.shared.frames.dropped();
        let state = self.shared.lock();
        CaptureStats {
            frames: state.frames,
            dropped,
            reconnects: state.reconnects,
            abandoned_threads: state.abandoned,
        }
    }
}

impl Drop for LiveCapture {
    fn drop(&mut self) {
        self.shared.lock().stopping = true;
        self.shared.changed.notify_all();
        self.shared.frames.close();
        if let Some(supervisor) = self.supervisor.take() {
            // The supervisor never calls the device, so it ends at once; a panic in it has
            // already been reported by the panic hook.
            let _ended = supervisor.join();
        }
        // Give the worker a moment to close the camera, so that it can be opened again at
        // once; one stuck in the driver is left behind.
        let deadline = Instant::now() + self.shared.settings.shutdown_wait;
        let mut state = self.shared.lock();
        while state.workers_alive > 0 {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            state = self
                .shared
                .changed
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Cameras: nokhwa (V4L2 on Linux)
// ---------------------------------------------------------------------------------------------

/// A way a camera can stream: pixel format, size, frame rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CameraMode {
    pub format: PixelFormat,
    pub width: u32,
    pub height: u32,
    pub fps: u32,
}

impl fmt::Display for CameraMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}x{} at {} fps",
            self.format, self.width, self.height, self.fps
        )
    }
}

/// A camera as the system lists it, with what it offers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CameraInfo {
    /// The number to open it by (`/dev/videoN` on Linux).
    pub index: u32,
    pub name: String,
    /// Where the system has it.
    pub description: String,
    /// Every mode it offers: by format, then size (largest first), then frame rate.
    pub modes: Vec<CameraMode>,
    /// Why its modes could not be read (busy, no permission), when they could not.
    pub problem: Option<String>,
}

impl CameraInfo {
    /// The mode [`choose_mode`] picks with no wishes.
    pub fn default_mode(&self) -> Option<CameraMode> {
        choose_mode(&self.modes, &ModeRequest::default())
    }
}

/// What is wanted of a camera's mode; what is left `None` is chosen by [`choose_mode`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModeRequest {
    pub format: Option<PixelFormat>,
    /// Width and height.
    pub resolution: Option<(u32, u32)>,
    pub fps: Option<u32>,
}

impl fmt::Display for ModeRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut words = Vec::new();
        if let Some(format) = self.format {
            words.push(format.to_string());
        }
        if let Some((width, height)) = self.resolution {
            words.push(format!("{width}x{height}"));
        }
        if let Some(fps) = self.fps {
            words.push(format!("at {fps} fps"));
        }
        if words.is_empty() {
            words.push("video mode".to_owned());
        }
        f.write_str(&words.join(" "))
    }
}

/// The mode to open among `modes`: only those that match `request`; among them the ones at
/// 15 to 30 fps first (then faster, then slower), 1920x1080 before 1280x720 before other sizes
/// (the largest up to 1080p first), MJPEG before YUYV (a USB 2 link carries YUYV at 1080p
/// only at a few frames a second), and 30 fps before 15.
pub fn choose_mode(modes: &[CameraMode], request: &ModeRequest) -> Option<CameraMode> {
    modes
        .iter()
        .filter(|m| {
            request.format.is_none_or(|f| f == m.format)
                && request
                    .resolution
                    .is_none_or(|size| size == (m.width, m.height))
                && request.fps.is_none_or(|fps| fps == m.fps)
        })
        .min_by_key(|m| mode_preference(m))
        .copied()
}

fn mode_preference(mode: &CameraMode) -> (u8, u8, (bool, u64), u8, u32) {
    let band = match mode.fps {
        15..=30 => 0,
        31.. => 1,
        _ => 2,
    };
    let size = match (mode.width, mode.height) {
        (1920, 1080) => 0,
        (1280, 720) => 1,
        _ => 2,
    };
    let area = u64::from(mode.width) * u64::from(mode.height);
    let area_key = if area <= 1920 * 1080 {
        (false, u64::MAX - area)
    } else {
        (true, area)
    };
    let format = match mode.format {
        PixelFormat::Mjpeg => 0,
        PixelFormat::Yuyv => 1,
        PixelFormat::Nv12 => 2,
        PixelFormat::Rgb => 3,
        PixelFormat::Gray => 4,
    };
    let fps = if band == 1 {
        mode.fps
    } else {
        u32::MAX - mode.fps
    };
    (band, size, area_key, format, fps)
}

/// What to do with one of the camera's automatic controls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ControlSetting {
    /// Leave it as the camera has it.
    #[default]
    Leave,
    /// Let the camera adjust it.
    Auto,
    /// Turn the automatic adjustment off at the value it has now.
    Lock,
    /// Turn the automatic adjustment off at this value (the camera's own units).
    Manual(i64),
}

/// Exposure, focus and white balance, set where the camera allows (best effort: what was
/// done is reported in [`DeviceInfo::controls`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CameraControls {
    pub exposure: ControlSetting,
    pub focus: ControlSetting,
    pub white_balance: ControlSetting,
}

impl CameraControls {
    /// Exposure, focus and white balance locked: the table's light and the reader's colours
    /// stay put while hands come and go.
    pub fn locked() -> Self {
        Self {
            exposure: ControlSetting::Lock,
            focus: ControlSetting::Lock,
            white_balance: ControlSetting::Lock,
        }
    }
}

/// Which listed camera to open again: the one with the name (the same index first, since two
/// cameras of a model share their name), else, when `allow_other`, the first other one.
pub fn pick_camera(
    listed: &[(u32, String)],
    name: &str,
    index: u32,
    allow_other: bool,
) -> Option<u32> {
    listed
        .iter()
        .filter(|(_, n)| n == name)
        .min_by_key(|(i, _)| *i != index)
        .or_else(|| listed.first().filter(|_| allow_other))
        .map(|(i, _)| *i)
}

/// Sorts a nokhwa error into what the supervisor does with it.
fn device_error(error: impl fmt::Display) -> DeviceError {
    let text = error.to_string();
    let lower = text.to_lowercase();
    if lower.contains("busy") || lower.contains("os error 16") {
        DeviceError::Busy(text)
    } else if lower.contains("no such device")
        || lower.contains("no such file")
        || lower.contains("os error 19")
        || lower.contains("os error 2)")
    {
        DeviceError::Gone(text)
    } else {
        DeviceError::Failed(text)
    }
}

fn listing_error(error: impl fmt::Display) -> VisionError {
    VisionError::Camera {
        camera: "list".to_owned(),
        reason: error.to_string(),
    }
}

/// Lists the cameras (an empty list when there are none) with the modes each offers. A
/// camera whose modes cannot be read (busy, no permission) is listed with its problem.
pub fn list_cameras() -> Result<Vec<CameraInfo>, VisionError> {
    let listed = guarded(|| nokhwa::query(nokhwa::utils::ApiBackend::Auto))
        .map_err(listing_error)?
        .map_err(listing_error)?;
    let mut cameras = Vec::new();
    for camera in listed {
        let Ok(index) = camera.index().as_index() else {
            continue;
        };
        let (modes, problem) = match guarded(|| probe_modes(index)) {
            Ok(Ok(modes)) if modes.is_empty() => (
                modes,
                Some(
                    "it offers no video mode this program can decode (a metadata node?)".to_owned(),
                ),
            ),
            Ok(Ok(modes)) => (modes, None),
            Ok(Err(error)) => (Vec::new(), Some(device_error(error).to_string())),
            Err(panic) => (Vec::new(), Some(format!("the camera panicked: {panic}"))),
        };
        cameras.push(CameraInfo {
            index,
            name: camera.human_name(),
            description: camera.description().to_owned(),
            modes,
            problem,
        });
    }
    cameras.sort_by_key(|c| c.index);
    Ok(cameras)
}

/// The formats we decode, as nokhwa names them.
const DECODABLE: &[nokhwa::utils::FrameFormat] = &[
    nokhwa::utils::FrameFormat::MJPEG,
    nokhwa::utils::FrameFormat::YUYV,
    nokhwa::utils::FrameFormat::NV12,
    nokhwa::utils::FrameFormat::GRAY,
    nokhwa::utils::FrameFormat::RAWRGB,
];

/// Opens camera `index` in its first decodable format (V4L2 sets it; a camera streaming to
/// another program refuses, busy).
fn open_camera(index: u32) -> Result<nokhwa::Camera, nokhwa::NokhwaError> {
    nokhwa::Camera::new(
        nokhwa::utils::CameraIndex::Index(index),
        nokhwa::utils::RequestedFormat::with_formats(
            nokhwa::utils::RequestedFormatType::None,
            DECODABLE,
        ),
    )
}

fn probe_modes(index: u32) -> Result<Vec<CameraMode>, nokhwa::NokhwaError> {
    let mut camera = open_camera(index)?;
    camera_modes(&mut camera)
}

fn pixel_format(format: nokhwa::utils::FrameFormat) -> Option<PixelFormat> {
    use nokhwa::utils::FrameFormat;
    match format {
        FrameFormat::MJPEG => Some(PixelFormat::Mjpeg),
        FrameFormat::YUYV => Some(PixelFormat::Yuyv),
        FrameFormat::NV12 => Some(PixelFormat::Nv12),
        FrameFormat::GRAY => Some(PixelFormat::Gray),
        FrameFormat::RAWRGB => Some(PixelFormat::Rgb),
        FrameFormat::RAWBGR => None,
    }
}

fn frame_format(format: PixelFormat) -> nokhwa::utils::FrameFormat {
    use nokhwa::utils::FrameFormat;
    match format {
        PixelFormat::Mjpeg => FrameFormat::MJPEG,
        PixelFormat::Yuyv => FrameFormat::YUYV,
        PixelFormat::Nv12 => FrameFormat::NV12,
        PixelFormat::Gray => FrameFormat::GRAY,
        PixelFormat::Rgb => FrameFormat::RAWRGB,
    }
}

fn camera_modes(camera: &mut nokhwa::Camera) -> Result<Vec<CameraMode>, nokhwa::NokhwaError> {
    let mut modes: Vec<CameraMode> = camera
        .compatible_camera_formats()?
        .into_iter()
        .filter_map(|f| {
            Some(CameraMode {
                format: pixel_format(f.format())?,
                width: f.width(),
                height: f.height(),
                fps: f.frame_rate(),
            })
        })
        .collect();
    modes.sort_by_key(|m| {
        (
            m.format,
            std::cmp::Reverse(u64::from(m.width) * u64::from(m.height)),
            m.width,
            std::cmp::Reverse(m.fps),
        )
    });
    modes.dedup();
    Ok(modes)
}

/// The length of the JPEG picture at the start of `data`: up to its end-of-image marker,
/// found by walking the segments and the entropy-coded data (a V4L2 buffer is larger than
/// the frame and holds older frames' bytes, end markers included, after it).
pub fn jpeg_length(data: &[u8]) -> Option<usize> {
    if data.get(..2)? != [0xFF, 0xD8] {
        return None;
    }
    let mut i = 2;
    loop {
        while *data.get(i)? == 0xFF && *data.get(i + 1)? == 0xFF {
            i += 1; // fill bytes before a marker
        }
        if *data.get(i)? != 0xFF {
            return None;
        }
        let marker = *data.get(i + 1)?;
        match marker {
            0xD9 => return Some(i + 2),
            0x01 | 0xD0..=0xD7 => {
                i += 2;
                continue;
            }
            _ => {}
        }
        let length = usize::from(u16::from_be_bytes([*data.get(i + 2)?, *data.get(i + 3)?]));
        i += 2 + length;
        if marker == 0xDA {
            // Entropy-coded data runs to the next marker that is neither a stuffed 0xFF00
            // nor a restart marker.
            loop {
                let at = i + data.get(i..)?.iter().position(|&b| b == 0xFF)?;
                match *data.get(at + 1)? {
                    0x00 | 0xD0..=0xD7 => i = at + 2,
                    0xFF => i = at + 1,
                    _ => {
                        i = at;
                        break;
                    }
                }
            }
        }
    }
}

/// A camera opened by nokhwa, streaming.
pub struct CameraDevice {
    /// Always there; taken out only to be dropped where a panic is caught (nokhwa's `Drop`
    /// unwraps the result of stopping the stream).
    camera: Option<nokhwa::Camera>,
    mode: CameraMode,
}

impl FrameDevice for CameraDevice {
    fn next_frame(&mut self) -> Result<RawImage, DeviceError> {
        let Some(camera) = self.camera.as_mut() else {
            return Err(DeviceError::Gone("the camera was closed".to_owned()));
        };
        let data = camera.frame_raw().map_err(device_error)?;
        let (w, h) = (self.mode.width as usize, self.mode.height as usize);
        // nokhwa hands over the whole V4L2 buffer: keep the frame.
        let length = match self.mode.format {
            PixelFormat::Mjpeg => jpeg_length(&data).unwrap_or(data.len()),
            PixelFormat::Yuyv => w * h * 2,
            PixelFormat::Nv12 => w * h + w.div_ceil(2) * 2 * h.div_ceil(2),
            PixelFormat::Gray => w * h,
            PixelFormat::Rgb => w * h * 3,
        };
        Ok(RawImage {
            format: self.mode.format,
            width: self.mode.width,
            height: self.mode.height,
            data: data[..length.min(data.len())].to_vec(),
        })
    }
}

impl Drop for CameraDevice {
    fn drop(&mut self) {
        if let Some(camera) = self.camera.take() {
            // Closing is all we need; an unplugged camera may fail to stop its stream.
            let _closed = guarded(move || drop(camera));
        }
    }
}

/// Opens a camera by its index and, after a loss, finds it again by name (else, when
/// allowed, another camera): the real [`DeviceOpener`].
pub struct CameraOpener {
    index: u32,
    name: String,
    request: ModeRequest,
    controls: CameraControls,
    /// Open another camera when the one named is not connected.
    pub allow_other: bool,
}

impl CameraOpener {
    /// The camera listed at `index` under `name`.
    pub fn new(
        index: u32,
        name: impl Into<String>,
        request: ModeRequest,
        controls: CameraControls,
    ) -> Self {
        Self {
            index,
            name: name.into(),
            request,
            controls,
            allow_other: true,
        }
    }
}

impl DeviceOpener for CameraOpener {
    type Device = CameraDevice;

    fn open(&self) -> Result<(CameraDevice, DeviceInfo), DeviceError> {
        let listed: Vec<(u32, String, String)> = nokhwa::query(nokhwa::utils::ApiBackend::Auto)
            .map_err(device_error)?
            .into_iter()
            .filter_map(|c| {
                let index = c.index().as_index().ok()?;
                Some((index, c.human_name(), c.description().to_owned()))
            })
            .collect();
        let names: Vec<(u32, String)> = listed.iter().map(|(i, n, _)| (*i, n.clone())).collect();
        let Some(index) = pick_camera(&names, &self.name, self.index, self.allow_other) else {
            return Err(DeviceError::Gone(format!(
                "no camera named {} is connected",
                self.name
            )));
        };
        let (device, mut info) = open_device(index, &self.request, self.controls)?;
        if let Some((_, _, description)) = listed.iter().find(|(i, _, _)| *i == index) {
            info.place.clone_from(description);
        }
        Ok((device, info))
    }
}

fn open_device(
    index: u32,
    request: &ModeRequest,
    controls: CameraControls,
) -> Result<(CameraDevice, DeviceInfo), DeviceError> {
    let mut camera = open_camera(index).map_err(device_error)?;
    let modes = camera_modes(&mut camera).map_err(device_error)?;
    let Some(mode) = choose_mode(&modes, request) else {
        return Err(DeviceError::Failed(format!(
            "camera {index} offers no {request}"
        )));
    };
    let format = nokhwa::utils::CameraFormat::new(
        nokhwa::utils::Resolution::new(mode.width, mode.height),
        frame_format(mode.format),
        mode.fps,
    );
    camera
        .set_camera_requset(nokhwa::utils::RequestedFormat::with_formats(
            nokhwa::utils::RequestedFormatType::Exact(format),
            DECODABLE,
        ))
        .map_err(device_error)?;
    let controls = apply_controls(&mut camera, controls);
    camera.open_stream().map_err(device_error)?;
    let actual = camera.camera_format();
    let mode = CameraMode {
        format: pixel_format(actual.format()).unwrap_or(mode.format),
        width: actual.width(),
        height: actual.height(),
        fps: actual.frame_rate(),
    };
    let info = DeviceInfo {
        name: camera.info().human_name(),
        place: format!("camera {index}"),
        mode: Some(mode),
        controls,
    };
    let device = CameraDevice {
        camera: Some(camera),
        mode,
    };
    Ok((device, info))
}

/// V4L2 controls (`linux/v4l2-controls.h`) that nokhwa lists by number: the automatic
/// modes, and the absolute exposure and focus UVC webcams have (nokhwa's own `Exposure` and
/// `Focus` are other, rarer controls, tried after them).
const V4L2_CID_AUTO_WHITE_BALANCE: u32 = 0x0098_090c;
const V4L2_CID_EXPOSURE_AUTO: u32 = 0x009a_0901;
const V4L2_CID_EXPOSURE_ABSOLUTE: u32 = 0x009a_0902;
const V4L2_CID_FOCUS_ABSOLUTE: u32 = 0x009a_090a;
const V4L2_CID_FOCUS_AUTO: u32 = 0x009a_090c;
/// `V4L2_CID_EXPOSURE_AUTO`'s menu: manual, and aperture priority (the automatic mode UVC
/// webcams offer).
const V4L2_EXPOSURE_MANUAL: i64 = 1;
const V4L2_EXPOSURE_APERTURE_PRIORITY: i64 = 3;

/// One of the controls to set.
struct ControlJob {
    name: &'static str,
    setting: ControlSetting,
    /// The control of the value, the first the camera has.
    values: [nokhwa::utils::KnownCameraControl; 2],
    /// The control of the automatic mode.
    auto: nokhwa::utils::KnownCameraControl,
    /// The automatic mode is a menu (exposure), not a switch.
    menu: bool,
}

/// Sets exposure, focus and white balance as far as the camera allows; one line each of
/// what was done.
fn apply_controls(camera: &mut nokhwa::Camera, wanted: CameraControls) -> Vec<String> {
    use nokhwa::utils::{ControlValueSetter, KnownCameraControl};
    let other = |id: u32| KnownCameraControl::Other(u128::from(id));
    let jobs = [
        ControlJob {
            name: "exposure",
            setting: wanted.exposure,
            values: [
                other(V4L2_CID_EXPOSURE_ABSOLUTE),
                KnownCameraControl::Exposure,
            ],
            auto: other(V4L2_CID_EXPOSURE_AUTO),
            menu: true,
        },
        ControlJob {
            name: "focus",
            setting: wanted.focus,
            values: [other(V4L2_CID_FOCUS_ABSOLUTE), KnownCameraControl::Focus],
            auto: other(V4L2_CID_FOCUS_AUTO),
            menu: false,
        },
        ControlJob {
            name: "white balance",
            setting: wanted.white_balance,
            values: [KnownCameraControl::WhiteBalance; 2],
            auto: other(V4L2_CID_AUTO_WHITE_BALANCE),
            menu: false,
        },
    ];
    if jobs.iter().all(|job| job.setting == ControlSetting::Leave) {
        return Vec::new();
    }
    let available = match camera.supported_camera_controls() {
        Ok(controls) => controls,
        Err(error) => return vec![format!("controls: cannot be read ({error})")],
    };
    let mut notes = Vec::new();
    for job in jobs {
        let name = job.name;
        let auto_value = |on: bool| match (job.menu, on) {
            (true, true) => ControlValueSetter::Integer(V4L2_EXPOSURE_APERTURE_PRIORITY),
            (true, false) => ControlValueSetter::Integer(V4L2_EXPOSURE_MANUAL),
            (false, on) => ControlValueSetter::Boolean(on),
        };
        let has_auto = available.contains(&job.auto);
        let value_control = job.values.into_iter().find(|c| available.contains(c));
        let done = match (job.setting, value_control) {
            (ControlSetting::Leave, _) => continue,
            (ControlSetting::Auto, _) if !has_auto => {
                notes.push(format!("{name}: this camera has no automatic {name}"));
                continue;
            }
            (ControlSetting::Auto, _) => camera
                .set_camera_control(job.auto, auto_value(true))
                .map(|()| "automatic".to_owned()),
            (ControlSetting::Lock | ControlSetting::Manual(_), None) => {
                notes.push(format!("{name}: this camera does not offer it"));
                continue;
            }
            (setting @ (ControlSetting::Lock | ControlSetting::Manual(_)), Some(control)) => {
                let value = match setting {
                    ControlSetting::Manual(value) => Ok(value),
                    _ => camera
                        .camera_control(control)
                        .and_then(|c| match c.value() {
                            ControlValueSetter::Integer(value) => Ok(value),
                            other => Err(nokhwa::NokhwaError::GeneralError(format!(
                                "its value {other} is not a number"
                            ))),
                        }),
                };
                value.and_then(|value| {
                    // Automatic mode off first: a camera refuses a value while it is on.
                    if has_auto {
                        camera.set_camera_control(job.auto, auto_value(false))?;
                    }
                    camera.set_camera_control(control, ControlValueSetter::Integer(value))?;
                    Ok(if setting == ControlSetting::Lock {
                        format!("locked at {value}")
                    } else {
                        format!("set to {value}")
                    })
                })
            }
        };
        notes.push(match done {
            Ok(done) => format!("{name}: {done}"),
            Err(error) => format!("{name}: not set ({error})"),
        });
    }
    notes
}

/// Opens camera `index` as listed by [`list_cameras`], in the mode [`choose_mode`] picks for
/// `request`, watched with `settings`. A camera or mode that is not there is refused at once;
/// a busy camera is not: the capture reports it `Lost` and keeps trying.
pub fn start_camera(
    index: u32,
    request: &ModeRequest,
    controls: CameraControls,
    settings: WatchSettings,
) -> Result<(LiveCapture, CameraInfo), VisionError> {
    let cameras = list_cameras()?;
    let Some(info) = cameras.iter().find(|c| c.index == index) else {
        let available = if cameras.is_empty() {
            "no camera is connected".to_owned()
        } else {
            let names: Vec<String> = cameras
                .iter()
                .map(|c| format!("{} ({})", c.index, c.name))
                .collect();
            format!("the cameras are {}", names.join(", "))
        };
        return Err(VisionError::NoSuchCamera {
            wanted: index.to_string(),
            available,
        });
    };
    if !info.modes.is_empty() && choose_mode(&info.modes, request).is_none() {
        let offered: Vec<String> = info.modes.iter().map(ToString::to_string).collect();
        return Err(VisionError::NoSuchMode {
            camera: format!("{index} ({})", info.name),
            wanted: request.to_string(),
            offered: offered.join(", "),
        });
    }
    let opener = CameraOpener::new(index, info.name.clone(), request.clone(), controls);
    Ok((LiveCapture::start(opener, settings)?, info.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(format: PixelFormat, width: u32, height: u32, fps: u32) -> CameraMode {
        CameraMode {
            format,
            width,
            height,
            fps,
        }
    }

    #[test]
    fn the_default_mode_is_sharp_mjpeg_at_a_usable_rate() {
        use PixelFormat::{Mjpeg, Yuyv};
        let c525 = [
            mode(Yuyv, 640, 480, 30),
            mode(Yuyv, 1280, 720, 10),
            mode(Yuyv, 1920, 1080, 5),
            mode(Mjpeg, 640, 480, 30),
            mode(Mjpeg, 1280, 720, 30),
            mode(Mjpeg, 1920, 1080, 15),
            mode(Mjpeg, 1920, 1080, 30),
            mode(Mjpeg, 3840, 2160, 30),
        ];
        let request = ModeRequest::default();
        assert_eq!(
            choose_mode(&c525, &request),
            Some(mode(Mjpeg, 1920, 1080, 30))
        );
        let no_1080_mjpeg = &c525[..5];
        assert_eq!(
            choose_mode(no_1080_mjpeg, &request),
            Some(mode(Mjpeg, 1280, 720, 30))
        );
        // YUYV at 5 fps loses to MJPEG at 30 of a smaller size.
        let yuyv_only = &c525[..3];
        assert_eq!(
            choose_mode(yuyv_only, &request),
            Some(mode(Yuyv, 640, 480, 30))
        );
        let wanted = ModeRequest {
            resolution: Some((1280, 720)),
            format: Some(Yuyv),
            fps: None,
        };
        assert_eq!(choose_mode(&c525, &wanted), Some(mode(Yuyv, 1280, 720, 10)));
        let missing = ModeRequest {
            resolution: Some((800, 600)),
            ..ModeRequest::default()
        };
        assert_eq!(choose_mode(&c525, &missing), None);
        assert_eq!(missing.to_string(), "800x600");
    }

    #[test]
    fn a_camera_comes_back_by_name_else_another() {
        let listed = vec![
            (0, "Integrated".to_owned()),
            (2, "C525".to_owned()),
            (4, "C525".to_owned()),
        ];
        assert_eq!(pick_camera(&listed, "C525", 4, false), Some(4));
        assert_eq!(pick_camera(&listed, "C525", 6, false), Some(2));
        assert_eq!(pick_camera(&listed, "Brio", 2, false), None);
        assert_eq!(pick_camera(&listed, "Brio", 2, true), Some(0));
        assert_eq!(pick_camera(&[], "Brio", 2, true), None);
    }

    #[test]
    fn driver_errors_are_sorted_into_gone_busy_and_failed() {
        assert!(matches!(
            device_error("Could not open device 0: Device or resource busy (os error 16)"),
            DeviceError::Busy(_)
        ));
        assert!(matches!(
            device_error("Read frame error: No such device (os error 19)"),
            DeviceError::Gone(_)
        ));
        assert!(matches!(
            device_error("Read frame error: Input/output error (os error 5)"),
            DeviceError::Failed(_)
        ));
    }

    #[test]
    fn yuyv_grey_and_colours_convert_as_bt601() {
        // Black (16), white (235), then a pure red pixel pair (Y 81, U 90, V 240).
        let data = [16, 128, 235, 128, 81, 90, 81, 240];
        let rgb = yuyv_to_rgb(&data, 4, 1).unwrap();
        assert_eq!(rgb.get_pixel(0, 0).0, [0, 0, 0]);
        assert_eq!(rgb.get_pixel(1, 0).0, [255, 255, 255]);
        let red = rgb.get_pixel(2, 0).0;
        assert!(red[0] > 250 && red[1] < 5 && red[2] < 5, "{red:?}");
        let error = yuyv_to_rgb(&data[..6], 4, 1).unwrap_err().to_string();
        assert!(
            error.contains("6 bytes where a 4x1 frame needs 8"),
            "{error}"
        );
    }

    #[test]
    fn yuyv_agrees_with_the_bt601_formula_within_one_level() {
        for y in (0..=255u8).step_by(5) {
            for u in (0..=255u8).step_by(15) {
                for v in (0..=255u8).step_by(15) {
                    let rgb = yuyv_to_rgb(&[y, u, y, v], 2, 1).unwrap();
                    let (c, d, e) = (
                        f64::from(y) - 16.0,
                        f64::from(u) - 128.0,
                        f64::from(v) - 128.0,
                    );
                    let expected = [
                        1.164 * c + 1.596 * e,
                        1.164 * c - 0.391 * d - 0.813 * e,
                        1.164 * c + 2.018 * d,
                    ];
                    for (got, want) in rgb.get_pixel(1, 0).0.iter().zip(expected) {
                        let want = want.clamp(0.0, 255.0);
                        assert!(
                            (f64::from(*got) - want).abs() <= 1.0,
                            "{y} {u} {v}: {got} {want}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn nv12_matches_yuyv_on_flat_colour() {
        let (w, h) = (4u32, 2u32);
        let mut nv12 = vec![81u8; (w * h) as usize];
        nv12.extend([90, 240].repeat((w / 2 * h / 2) as usize));
        let rgb = nv12_to_rgb(&nv12, w, h).unwrap();
        let yuyv = yuyv_to_rgb(&[81, 90, 81, 240].repeat((w / 2 * h) as usize), w, h).unwrap();
        assert_eq!(rgb, yuyv);
    }

    #[test]
    fn a_jpeg_is_cut_at_its_end_in_a_larger_buffer() {
        let image = RgbImage::from_fn(16, 16, |x, y| image::Rgb([x as u8 * 16, y as u8 * 16, 255]));
        let mut jpeg = Vec::new();
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 90)
            .encode_image(&image)
            .unwrap();
        let length = jpeg.len();
        let mut buffer = jpeg.clone();
        buffer.extend([0xFF, 0xD9, 0x12, 0xFF, 0xD8, 0xFF, 0xD9, 0, 0]);
        assert_eq!(jpeg_length(&buffer), Some(length));
        assert_eq!(jpeg_length(&jpeg[..length - 10]), None);
        assert_eq!(jpeg_length(b"not a jpeg"), None);
    }

    #[test]
    fn the_default_watch_says_a_stall_within_a_second() {
        let settings = WatchSettings::default();
        assert!(settings.stall_after + settings.check_every < Duration::from_secs(1));
    }
}
