//! Frames from every source through the same path: folders and lists of files (the rendered
//! game and reader fixtures), a recording written and replayed, the newest-frame mailbox, and
//! the camera supervisor driven by a stand-in camera that stops, fails, is unplugged, is busy
//! and comes back (the same supervisor code a real camera runs under). The real camera test
//! runs where `/dev/video*` exists and says it was skipped elsewhere.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a test fails loudly on bad fixtures

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

use vision::source::{RECORDING_INDEX, recorded_file_name};
use vision::{
    CameraControls, CameraSource, CameraStatus, CaptureEvent, DeviceError, DeviceInfo,
    DeviceOpener, FrameDevice, FrameFiles, FrameSource, LiveCapture, Mailbox, ModeRequest, Pace,
    PixelFormat, RawImage, RecordedFrame, RecordingHeader, SourceEvent, WatchSettings, jpeg_bytes,
    list_cameras,
};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures")
}

/// An empty scratch folder of this test run.
fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("tablesight-capture-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

// ---------------------------------------------------------------------------------------------
// The stand-in camera
// ---------------------------------------------------------------------------------------------

/// What the stand-in camera does, as the test sets it.
#[derive(Clone, Debug, PartialEq)]
enum Behaviour {
    /// A frame every 5 ms.
    Deliver,
    /// `next_frame` does not return (until the behaviour changes).
    Hang,
    /// Frames fail with this error; opening works.
    FailFrames(String),
    /// Not connected: frames and opening fail with `Gone`.
    Unplugged,
    /// Taken by another program: opening fails with `Busy`.
    Busy,
    /// `next_frame` panics.
    Panic,
    /// This many frames as fast as they are asked for, then nothing.
    Burst(u64),
}

struct World {
    state: Mutex<(Behaviour, u32, u64)>,
    changed: Condvar,
}

impl World {
    fn new(behaviour: Behaviour) -> Arc<Self> {
        Arc::new(Self {
            state: Mutex::new((behaviour, 0, 0)),
            changed: Condvar::new(),
        })
    }

    fn set(&self, behaviour: Behaviour) {
        self.state.lock().unwrap().0 = behaviour;
        self.changed.notify_all();
    }

    fn opens(&self) -> u32 {
        self.state.lock().unwrap().1
    }
}

/// A small MJPEG frame (a JPEG picture).
fn mjpeg() -> &'static [u8] {
    static JPEG: OnceLock<Vec<u8>> = OnceLock::new();
    JPEG.get_or_init(|| {
        let image =
            image::RgbImage::from_fn(32, 24, |x, y| image::Rgb([x as u8 * 8, y as u8 * 10, 128]));
        let mut bytes = Vec::new();
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, 90)
            .encode_image(&image)
            .unwrap();
        bytes
    })
}

fn raw_frame() -> RawImage {
    RawImage {
        format: PixelFormat::Mjpeg,
        width: 32,
        height: 24,
        data: mjpeg().to_vec(),
    }
}

struct FakeOpener(Arc<World>);

struct FakeCamera(Arc<World>);

impl DeviceOpener for FakeOpener {
    type Device = FakeCamera;

    fn open(&self) -> Result<(FakeCamera, DeviceInfo), DeviceError> {
        let mut state = self.0.state.lock().unwrap();
        state.1 += 1;
        match state.0 {
            Behaviour::Unplugged => Err(DeviceError::Gone("no /dev/video0".to_owned())),
            Behaviour::Busy => Err(DeviceError::Busy(
                "Device or resource busy (os error 16)".to_owned(),
            )),
            _ => Ok((
                FakeCamera(Arc::clone(&self.0)),
                DeviceInfo {
                    name: "stand-in".to_owned(),
                    ..DeviceInfo::default()
                },
            )),
        }
    }
}

impl FrameDevice for FakeCamera {
    fn next_frame(&mut self) -> Result<RawImage, DeviceError> {
        let mut state = self.0.state.lock().unwrap();
        loop {
            match state.0.clone() {
                Behaviour::Deliver => {
                    drop(state);
                    std::thread::sleep(Duration::from_millis(5));
                    return Ok(raw_frame());
                }
                Behaviour::FailFrames(why) => {
                    drop(state);
                    std::thread::sleep(Duration::from_millis(2));
                    return Err(DeviceError::Failed(why));
                }
                Behaviour::Unplugged => {
                    return Err(DeviceError::Gone("No such device (os error 19)".to_owned()));
                }
                Behaviour::Panic => {
                    drop(state);
                    panic!("the stand-in camera broke");
                }
                Behaviour::Burst(n) if state.2 < n => {
                    state.2 += 1;
                    return Ok(raw_frame());
                }
                Behaviour::Hang | Behaviour::Busy | Behaviour::Burst(_) => {
                    state = self.0.changed.wait(state).unwrap();
                }
            }
        }
    }
}

/// Short times, so that the tests are quick; the stall still within a second.
fn quick() -> WatchSettings {
    WatchSettings {
        stall_after: Duration::from_millis(300),
        reopen_after: Duration::from_millis(800),
        open_timeout: Duration::from_secs(1),
        retry_every: Duration::from_millis(50),
        check_every: Duration::from_millis(20),
        errors_before_reopen: 5,
        max_threads: 3,
        shutdown_wait: Duration::from_millis(300),
    }
}

/// Reads the capture's events until a status `want` accepts; the time it took and every
/// status seen on the way.
fn wait_for(
    capture: &mut LiveCapture,
    within: Duration,
    want: impl Fn(&CameraStatus) -> bool,
) -> (Duration, Vec<CameraStatus>) {
    let start = Instant::now();
    let mut seen = Vec::new();
    while start.elapsed() < within {
        if let Some(CaptureEvent::Status(status)) = capture.next_event(Duration::from_millis(20)) {
            seen.push(status.clone());
            if want(&status) {
                return (start.elapsed(), seen);
            }
        }
    }
    panic!(
        "no such status within {within:?}: saw {seen:?}, now {:?}",
        capture.status()
    );
}

fn live(capture: &mut LiveCapture) {
    wait_for(capture, Duration::from_secs(2), CameraStatus::is_live);
}

// ---------------------------------------------------------------------------------------------
// Faults
// ---------------------------------------------------------------------------------------------

#[test]
fn a_camera_that_stops_delivering_is_stalled_within_a_second_then_reopened() {
    let world = World::new(Behaviour::Deliver);
    // The default stall time, the one a user gets; a shorter reopen to keep the test quick.
    let settings = WatchSettings {
        reopen_after: Duration::from_millis(900),
        retry_every: Duration::from_millis(50),
        ..WatchSettings::default()
    };
    let mut capture = LiveCapture::start(FakeOpener(Arc::clone(&world)), settings).unwrap();
    live(&mut capture);
    world.set(Behaviour::Hang);
    let (took, _) = wait_for(&mut capture, Duration::from_secs(2), |s| {
        matches!(s, CameraStatus::Stalled { .. })
    });
    assert!(took < Duration::from_secs(1), "stalled after {took:?}");
    let (_, seen) = wait_for(&mut capture, Duration::from_secs(3), |s| {
        *s == CameraStatus::Reconnecting
    });
    assert_eq!(seen, [CameraStatus::Reconnecting]);
    world.set(Behaviour::Deliver);
    live(&mut capture);
    let stats = capture.stats();
    assert!(stats.reconnects >= 1, "{stats:?}");
    assert!(stats.abandoned_threads >= 1, "{stats:?}");
    assert!(world.opens() >= 2);
}

#[test]
fn failing_frames_lose_the_camera_and_it_comes_back() {
    let world = World::new(Behaviour::Deliver);
    let mut capture = LiveCapture::start(FakeOpener(Arc::clone(&world)), quick()).unwrap();
    live(&mut capture);
    world.set(Behaviour::FailFrames(
        "Input/output error (os error 5)".to_owned(),
    ));
    let (took, seen) = wait_for(&mut capture, Duration::from_secs(2), |s| {
        matches!(s, CameraStatus::Lost { .. })
    });
    assert!(took < Duration::from_secs(1), "lost after {took:?}");
    let CameraStatus::Lost { reason } = seen.last().unwrap() else {
        unreachable!()
    };
    assert!(
        reason.contains("5 frames in a row failed") && reason.contains("Input/output error"),
        "{reason}"
    );
    assert!(
        seen.last()
            .unwrap()
            .to_string()
            .starts_with("lost: 5 frames in a row failed")
    );
    world.set(Behaviour::Deliver);
    let (_, seen) = wait_for(&mut capture, Duration::from_secs(2), CameraStatus::is_live);
    assert!(
        seen.ends_with(&[CameraStatus::Reconnecting, CameraStatus::Live]),
        "{seen:?}"
    );
}

#[test]
fn an_unplugged_camera_is_lost_at_once_and_found_again() {
    let world = World::new(Behaviour::Deliver);
    let mut capture = LiveCapture::start(FakeOpener(Arc::clone(&world)), quick()).unwrap();
    live(&mut capture);
    let opens = world.opens();
    world.set(Behaviour::Unplugged);
    let (took, seen) = wait_for(&mut capture, Duration::from_secs(2), |s| {
        matches!(s, CameraStatus::Lost { .. })
    });
    assert!(took < Duration::from_secs(1), "lost after {took:?}");
    assert!(
        seen.last()
            .unwrap()
            .to_string()
            .contains("not connected (unplugged?)")
    );
    // It keeps trying while unplugged, quietly: the status stays `Lost`.
    let start = Instant::now();
    while world.opens() < opens + 3 {
        assert!(start.elapsed() < Duration::from_secs(2), "no retries");
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(matches!(capture.status(), CameraStatus::Lost { .. }));
    world.set(Behaviour::Deliver);
    let (_, seen) = wait_for(&mut capture, Duration::from_secs(2), CameraStatus::is_live);
    assert!(
        seen.ends_with(&[CameraStatus::Reconnecting, CameraStatus::Live]),
        "{seen:?}"
    );
    assert_eq!(capture.stats().reconnects, 1);
    assert_eq!(capture.device().unwrap().name, "stand-in");
}

#[test]
fn a_busy_camera_says_so_and_opens_once_freed() {
    let world = World::new(Behaviour::Busy);
    let mut capture = LiveCapture::start(FakeOpener(Arc::clone(&world)), quick()).unwrap();
    let (took, seen) = wait_for(&mut capture, Duration::from_secs(2), |s| {
        matches!(s, CameraStatus::Lost { .. })
    });
    assert!(took < Duration::from_secs(1), "{took:?}");
    assert!(
        seen[0]
            .to_string()
            .contains("busy (another program is using it?)"),
        "{seen:?}"
    );
    world.set(Behaviour::Deliver);
    live(&mut capture);
}

#[test]
fn a_panicking_camera_is_a_status_not_a_crash() {
    let world = World::new(Behaviour::Deliver);
    let mut capture = LiveCapture::start(FakeOpener(Arc::clone(&world)), quick()).unwrap();
    live(&mut capture);
    world.set(Behaviour::Panic);
    let (_, seen) = wait_for(&mut capture, Duration::from_secs(2), |s| {
        matches!(s, CameraStatus::Lost { .. })
    });
    assert!(
        seen.last()
            .unwrap()
            .to_string()
            .contains("the camera panicked: the stand-in camera broke"),
        "{seen:?}"
    );
    world.set(Behaviour::Deliver);
    live(&mut capture);
}

#[test]
fn a_camera_stuck_in_its_driver_does_not_hold_up_the_end() {
    let world = World::new(Behaviour::Deliver);
    let mut capture = LiveCapture::start(FakeOpener(Arc::clone(&world)), quick()).unwrap();
    live(&mut capture);
    world.set(Behaviour::Hang);
    wait_for(&mut capture, Duration::from_secs(2), |s| {
        matches!(s, CameraStatus::Stalled { .. })
    });
    let start = Instant::now();
    drop(capture);
    let took = start.elapsed();
    assert!(took < Duration::from_secs(1), "dropping took {took:?}");
    // Let the stuck thread end (it finds the capture gone and leaves).
    world.set(Behaviour::Unplugged);
}

#[test]
fn stale_frames_are_dropped_for_the_newest() {
    let world = World::new(Behaviour::Burst(40));
    let mut capture = LiveCapture::start(FakeOpener(Arc::clone(&world)), quick()).unwrap();
    let start = Instant::now();
    while capture.stats().frames < 40 {
        assert!(
            start.elapsed() < Duration::from_secs(2),
            "{:?}",
            capture.stats()
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    let mut frames = Vec::new();
    while let Some(event) = capture.next_event(Duration::from_millis(50)) {
        if let CaptureEvent::Frame(frame) = event {
            frames.push(frame.number);
        }
    }
    assert_eq!(frames, [39]);
    assert_eq!(capture.stats().dropped, 39);
    world.set(Behaviour::Unplugged);
}

#[test]
fn the_mailbox_keeps_only_the_newest_item() {
    let mailbox = Mailbox::new();
    assert!(!mailbox.post(1));
    assert!(mailbox.post(2));
    assert!(mailbox.post(3));
    assert_eq!(mailbox.take(Duration::ZERO), Some(3));
    assert_eq!((mailbox.posted(), mailbox.dropped()), (3, 2));
    let start = Instant::now();
    assert_eq!(mailbox.take(Duration::from_millis(30)), None);
    assert!(start.elapsed() >= Duration::from_millis(30));
    let mailbox = Arc::new(mailbox);
    let poster = std::thread::spawn({
        let mailbox = Arc::clone(&mailbox);
        move || {
            std::thread::sleep(Duration::from_millis(20));
            mailbox.post(4);
        }
    });
    assert_eq!(mailbox.take(Duration::from_secs(5)), Some(4));
    poster.join().unwrap();
    mailbox.close();
    assert!(!mailbox.post(5));
    assert_eq!(mailbox.try_take(), None);
}

#[test]
fn a_live_capture_is_a_frame_source_of_decoded_frames() {
    let world = World::new(Behaviour::Deliver);
    let capture = LiveCapture::start(FakeOpener(Arc::clone(&world)), quick()).unwrap();
    let mut source = CameraSource::new(capture, "stand-in camera");
    let mut statuses = Vec::new();
    let frame = loop {
        match source.next_event(Duration::from_secs(2)) {
            SourceEvent::Frame(frame) => break frame,
            SourceEvent::Status(status) => statuses.push(status),
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(statuses, [CameraStatus::Live]);
    assert_eq!(frame.image.dimensions(), (32, 24));
    let next = source.next_frame().unwrap();
    assert!(next.number > frame.number && next.timestamp > frame.timestamp);
    assert_eq!(source.describe(), "stand-in camera");
}

// ---------------------------------------------------------------------------------------------
// Files and folders
// ---------------------------------------------------------------------------------------------

fn game_frames() -> Vec<PathBuf> {
    let mut frames: Vec<PathBuf> = std::fs::read_dir(fixtures().join("synth/game"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("frame-")
        })
        .collect();
    frames.sort();
    frames
}

#[test]
fn a_rendered_game_replays_every_frame_in_order_at_its_rate() {
    let mut source =
        FrameFiles::folder(&fixtures().join("synth/game"), None, Pace::Fastest).unwrap();
    let expected = game_frames().len();
    assert_eq!(source.len(), expected);
    assert!(
        source
            .describe()
            .contains(&format!("{expected} frames at 15 fps")),
        "{}",
        source.describe()
    );
    let mut count = 0;
    while let Some(frame) = source.next_frame() {
        assert_eq!(frame.number, count);
        // game.json says 15 fps.
        assert_eq!(
            frame.timestamp,
            Duration::from_secs_f64(count as f64 / 15.0)
        );
        assert_eq!(frame.image.dimensions(), (320, 240));
        count += 1;
    }
    assert_eq!(count as usize, expected);
    assert!(matches!(
        source.next_event(Duration::ZERO),
        SourceEvent::End
    ));
}

#[test]
fn the_recorded_pace_keeps_the_frame_rate() {
    let files = game_frames().into_iter().take(4).collect();
    let mut source = FrameFiles::files(files, 20.0, Pace::Recorded).unwrap();
    let first = source.next_frame().unwrap();
    let start = Instant::now();
    assert_eq!(first.timestamp, Duration::ZERO);
    // The next frame is due in 50 ms: a shorter wait comes back empty-handed.
    assert!(matches!(
        source.next_event(Duration::from_millis(1)),
        SourceEvent::Waiting
    ));
    let mut last = first;
    while let Some(frame) = source.next_frame() {
        last = frame;
    }
    assert_eq!(last.number, 3);
    assert_eq!(last.timestamp, Duration::from_millis(150));
    assert!(
        start.elapsed() >= Duration::from_millis(145),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn the_live_pace_passes_over_frames_a_slow_reader_missed() {
    let files: Vec<_> = game_frames().into_iter().take(10).collect();
    // 100 fps: frame n is due n * 10 ms after the first.
    let mut source = FrameFiles::files(files, 100.0, Pace::Live).unwrap();
    let first = source.next_frame().unwrap();
    assert_eq!(first.number, 0);
    // A reader that takes 60 ms: frames 1 to 5 at least are due meanwhile; it gets the
    // newest, as it would from a camera, and the frame arrived just now.
    std::thread::sleep(Duration::from_millis(60));
    let second = source.next_frame().unwrap();
    assert!(second.number >= 6, "frame {}", second.number);
    assert!(second.arrived.elapsed() < Duration::from_millis(50));
    let mut taken = 2;
    let mut last = second.number;
    while let Some(frame) = source.next_frame() {
        assert!(frame.number > last);
        last = frame.number;
        taken += 1;
    }
    assert_eq!(last, 9, "the last frame is never passed over");
    assert_eq!(taken + source.dropped(), 10);
    assert!(source.dropped() >= 5);
}

#[test]
fn a_corrupt_frame_in_a_folder_is_reported_and_skipped() {
    let dir = scratch("corrupt");
    let frames = game_frames();
    std::fs::copy(&frames[0], dir.join("frame-00000.jpg")).unwrap();
    std::fs::write(dir.join("frame-00001.jpg"), b"\xff\xd8\xff\xe0 not a jpeg").unwrap();
    std::fs::copy(&frames[2], dir.join("frame-00002.jpg")).unwrap();
    std::fs::write(dir.join("notes.txt"), "not a frame").unwrap();
    let mut source = FrameFiles::folder(&dir, Some(30.0), Pace::Fastest).unwrap();
    let mut seen = Vec::new();
    loop {
        match source.next_event(Duration::ZERO) {
            SourceEvent::Frame(frame) => seen.push(format!("frame {}", frame.number)),
            SourceEvent::Skipped(error) => {
                let error = error.to_string();
                assert!(error.starts_with("cannot read the image"), "{error}");
                assert!(error.contains("frame-00001.jpg"), "{error}");
                seen.push("skipped".to_owned());
            }
            SourceEvent::End => break,
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(seen, ["frame 0", "skipped", "frame 2"]);
    assert_eq!(source.skipped(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_list_of_photos_is_a_source_and_a_missing_one_is_skipped() {
    let reader = fixtures().join("reader");
    let files = vec![
        reader.join("scene-720p-0.jpg"),
        reader.join("no-such-photo.jpg"),
        reader.join("scene-720p-1.jpg"),
    ];
    let mut source = FrameFiles::files(files, 1.0, Pace::Fastest).unwrap();
    let SourceEvent::Frame(first) = source.next_event(Duration::ZERO) else {
        panic!("no first frame")
    };
    assert_eq!(first.image.dimensions(), (1280, 720));
    let SourceEvent::Skipped(error) = source.next_event(Duration::ZERO) else {
        panic!("the missing photo was not skipped")
    };
    assert!(error.to_string().contains("no-such-photo.jpg"), "{error}");
    let third = source.next_frame().unwrap();
    assert_eq!((third.number, third.timestamp), (2, Duration::from_secs(2)));
    assert!(source.next_frame().is_none());
}

#[test]
fn folders_without_frames_and_bad_rates_are_clear_errors() {
    let dir = scratch("empty");
    let error = FrameFiles::folder(&dir, None, Pace::Fastest)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("no frames: neither a frames.jsonl"),
        "{error}"
    );
    let error = FrameFiles::folder(&dir.join("missing"), None, Pace::Fastest)
        .unwrap_err()
        .to_string();
    assert!(error.ends_with("not a folder"), "{error}");
    let error = FrameFiles::files(game_frames(), 0.0, Pace::Fastest)
        .unwrap_err()
        .to_string();
    assert!(error.contains("0 is not a frame rate"), "{error}");
    std::fs::write(
        dir.join(RECORDING_INDEX),
        "{\"format\":\"something-else\"}\n",
    )
    .unwrap();
    let error = FrameFiles::folder(&dir, None, Pace::Fastest)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("line 1 is not a recording header"),
        "{error}"
    );
    let error = FrameFiles::files(game_frames(), 1e-300, Pace::Fastest)
        .unwrap_err()
        .to_string();
    assert!(error.contains("is not a frame rate"), "{error}");
    // A time past what a clock can hold is an error, not a panic.
    let header = serde_json::to_string(&RecordingHeader::new("stand-in", None)).unwrap();
    let mut late = serde_json::to_value(RecordedFrame::new(0, Duration::ZERO)).unwrap();
    late["timestamp_ms"] = serde_json::json!(1e300);
    std::fs::write(
        dir.join(RECORDING_INDEX),
        format!("{header}\n{late}\n{late}\n"),
    )
    .unwrap();
    let error = FrameFiles::folder(&dir, None, Pace::Fastest)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("line 2: 1") && error.ends_with("is not a time"),
        "{error}"
    );
    // Frames out of order, in number or in time, are an error naming the line.
    let line = |number: u64, ms: u64| {
        serde_json::to_string(&RecordedFrame::new(number, Duration::from_millis(ms))).unwrap()
    };
    for (second, third) in [(line(2, 66), line(2, 133)), (line(2, 66), line(3, 33))] {
        std::fs::write(
            dir.join(RECORDING_INDEX),
            format!("{header}\n{}\n{second}\n{third}\n", line(1, 33)),
        )
        .unwrap();
        let error = FrameFiles::folder(&dir, None, Pace::Fastest)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("line 4: frame")
                && error.contains("does not come after frame 2 at 66.0 ms"),
            "{error}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Writes a frame and its index line as `tablesight record` does.
fn write_recorded(
    dir: &Path,
    index: &mut std::fs::File,
    number: u64,
    timestamp: Duration,
    raw: &RawImage,
) {
    std::fs::write(
        dir.join(recorded_file_name(number)),
        jpeg_bytes(raw).unwrap(),
    )
    .unwrap();
    let line = serde_json::to_string(&RecordedFrame::new(number, timestamp)).unwrap();
    writeln!(index, "{line}").unwrap();
}

#[test]
fn a_recording_replays_with_its_numbers_times_and_pixels() {
    let dir = scratch("recording");
    let world = World::new(Behaviour::Deliver);
    let mut capture = LiveCapture::start(FakeOpener(Arc::clone(&world)), quick()).unwrap();
    let mut index = std::fs::File::create(dir.join(RECORDING_INDEX)).unwrap();
    let header = RecordingHeader::new("stand-in", None);
    writeln!(index, "{}", serde_json::to_string(&header).unwrap()).unwrap();
    let mut recorded = Vec::new();
    while recorded.len() < 5 {
        if let Some(CaptureEvent::Frame(frame)) = capture.next_event(Duration::from_secs(2)) {
            write_recorded(&dir, &mut index, frame.number, frame.timestamp, &frame.raw);
            recorded.push(frame);
        }
    }
    drop(capture);
    // A YUYV frame is stored as JPEG.
    let yuyv = RawImage {
        format: PixelFormat::Yuyv,
        width: 16,
        height: 8,
        data: [120, 100, 120, 150].repeat(64),
    };
    let last = recorded.last().unwrap();
    write_recorded(
        &dir,
        &mut index,
        last.number + 3,
        last.timestamp + Duration::from_millis(100),
        &yuyv,
    );
    // A recording killed while writing its index leaves half a line.
    write!(index, "{{\"number\": 99, \"fi").unwrap();
    drop(index);

    let mut source = FrameFiles::folder(&dir, None, Pace::Fastest).unwrap();
    assert_eq!(source.len(), 6);
    assert!(
        source
            .describe()
            .contains("6 frames recorded from stand-in"),
        "{}",
        source.describe()
    );
    for frame in &recorded {
        let replayed = source.next_frame().unwrap();
        assert_eq!(replayed.number, frame.number);
        let gap = replayed.timestamp.abs_diff(frame.timestamp);
        assert!(gap < Duration::from_micros(1), "{gap:?}");
        // MJPEG was written as it came: the same picture, bit for bit.
        assert_eq!(replayed.image, frame.raw.decode().unwrap());
    }
    assert_eq!(
        std::fs::read(dir.join(recorded_file_name(recorded[0].number))).unwrap(),
        mjpeg()
    );
    let replayed = source.next_frame().unwrap();
    assert_eq!(replayed.number, last.number + 3);
    let expected = yuyv.decode().unwrap();
    for (a, b) in replayed.image.pixels().zip(expected.pixels()) {
        for channel in 0..3 {
            assert!(a[channel].abs_diff(b[channel]) < 8, "{a:?} {b:?}");
        }
    }
    assert!(source.next_frame().is_none());
    std::fs::remove_dir_all(&dir).unwrap();
    world.set(Behaviour::Unplugged);
}

// ---------------------------------------------------------------------------------------------
// A real camera
// ---------------------------------------------------------------------------------------------

#[test]
fn a_real_camera_when_one_is_connected() {
    let devices: Vec<PathBuf> = std::fs::read_dir("/dev")
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("video"))
                })
                .collect()
        })
        .unwrap_or_default();
    if devices.is_empty() {
        println!("skipped: no /dev/video* on this machine (no camera, no v4l2loopback)");
        return;
    }
    let cameras = list_cameras().unwrap();
    println!("cameras: {cameras:#?}");
    let Some(camera) = cameras.iter().find(|c| !c.modes.is_empty()) else {
        println!("skipped: {devices:?} exist but none offers a video mode");
        return;
    };
    let mut source = CameraSource::open(
        camera.index,
        &ModeRequest::default(),
        CameraControls::default(),
        WatchSettings::default(),
    )
    .unwrap();
    let start = Instant::now();
    let mode = camera.default_mode().unwrap();
    loop {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "no frame from {}",
            source.describe()
        );
        match source.next_event(Duration::from_secs(1)) {
            SourceEvent::Frame(frame) => {
                assert_eq!(frame.image.dimensions(), (mode.width, mode.height));
                println!("{}: a frame after {:?}", source.describe(), start.elapsed());
                break;
            }
            SourceEvent::Status(status) => println!("{status}"),
            other => println!("{other:?}"),
        }
    }
}
