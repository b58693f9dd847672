//! `tablesight cameras` (the cameras and what each offers) and `tablesight record` (a
//! camera's frames saved for replay and for test fixtures: `frame-NNNNN.jpg` and the index
//! `frames.jsonl`, read back by `vision::FrameFiles::folder`).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::json;
use vision::source::{RECORDING_INDEX, recorded_file_name};
use vision::{
    CameraControls, CameraInfo, CaptureEvent, LiveCapture, ModeRequest, PixelFormat, RecordedFrame,
    RecordingHeader, WatchSettings,
};

use crate::cli::Outcome;

/// `WIDTHxHEIGHT`, for `--resolution`.
pub fn parse_resolution(text: &str) -> Result<(u32, u32), String> {
    let parsed = text
        .split_once(['x', 'X'])
        .and_then(|(w, h)| Some((w.trim().parse().ok()?, h.trim().parse().ok()?)));
    match parsed {
        Some((w, h)) if w > 0 && h > 0 => Ok((w, h)),
        _ => Err(format!("{text} is not WIDTHxHEIGHT (e.g. 1280x720)")),
    }
}

/// `tablesight cameras [--json]`: every camera with its modes, and the one `record` opens.
pub fn cameras(out: &mut impl Write, as_json: bool) -> Result<Outcome> {
    let cameras = vision::list_cameras()?;
    if as_json {
        let list = cameras
            .iter()
            .map(|camera| {
                let mut value = serde_json::to_value(camera)?;
                value["default_mode"] = json!(camera.default_mode());
                Ok(value)
            })
            .collect::<Result<Vec<_>>>()?;
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&json!({ "cameras": list }))?
        )?;
        if cameras.is_empty() {
            eprintln!("no camera found");
        }
        return Ok(Outcome::Ok);
    }
    if cameras.is_empty() {
        writeln!(out, "no camera found")?;
        return Ok(Outcome::Ok);
    }
    for camera in &cameras {
        write_camera(out, camera)?;
    }
    Ok(Outcome::Ok)
}

/// A frame size (width, height) with the frame rates a camera offers at it.
type SizeRates = ((u32, u32), Vec<u32>);

fn write_camera(out: &mut impl Write, camera: &CameraInfo) -> Result<()> {
    writeln!(
        out,
        "camera {}: {} ({})",
        camera.index, camera.name, camera.description
    )?;
    if let Some(problem) = &camera.problem {
        writeln!(out, "  {problem}")?;
    }
    // Frame rates grouped by format and size, sizes largest first as listed.
    let mut sizes: BTreeMap<PixelFormat, Vec<SizeRates>> = BTreeMap::new();
    for mode in &camera.modes {
        let list = sizes.entry(mode.format).or_default();
        match list.last_mut() {
            Some((size, rates)) if *size == (mode.width, mode.height) => rates.push(mode.fps),
            _ => list.push(((mode.width, mode.height), vec![mode.fps])),
        }
    }
    for (format, list) in &sizes {
        for (i, ((width, height), rates)) in list.iter().enumerate() {
            let label = if i == 0 { format.name() } else { "" };
            let rates: Vec<String> = rates.iter().map(ToString::to_string).collect();
            writeln!(
                out,
                "  {label:<6}{width}x{height} at {} fps",
                rates.join(", ")
            )?;
        }
    }
    if let Some(mode) = camera.default_mode() {
        writeln!(out, "  record opens {mode} unless told otherwise")?;
    }
    Ok(())
}

/// What `tablesight record` was asked for.
pub struct RecordOptions<'a> {
    /// The camera's number as `tablesight cameras` lists it.
    pub camera: u32,
    pub out: &'a Path,
    /// Stop after this long (else when interrupted; the index is written frame by frame).
    pub seconds: Option<f64>,
    pub resolution: Option<(u32, u32)>,
    pub format: Option<PixelFormat>,
    pub fps: Option<u32>,
    /// Lock exposure, focus and white balance where the camera allows.
    pub lock: bool,
}

/// The limit of `--seconds`, refused unless positive.
pub fn seconds_limit(seconds: Option<f64>) -> Result<Option<Duration>> {
    match seconds {
        Some(s) if s > 0.0 => match Duration::try_from_secs_f64(s) {
            Ok(limit) => Ok(Some(limit)),
            Err(_) => bail!("--seconds {s}: too long a time"),
        },
        Some(s) => bail!("--seconds {s}: give a positive number of seconds"),
        None => Ok(None),
    }
}

/// `tablesight record --camera N --out DIR [--seconds S] [--resolution WxH]`.
pub fn record(out: &mut impl Write, options: &RecordOptions<'_>) -> Result<Outcome> {
    let limit = seconds_limit(options.seconds)?;
    let request = ModeRequest {
        format: options.format,
        resolution: options.resolution,
        fps: options.fps,
    };
    let controls = if options.lock {
        CameraControls::locked()
    } else {
        CameraControls::default()
    };
    let (mut capture, info) =
        vision::start_camera(options.camera, &request, controls, WatchSettings::default())?;
    prepare_folder(options.out)?;
    let until = match limit {
        Some(limit) => format!("for {:.1} s", limit.as_secs_f64()),
        None => "until interrupted (Ctrl-C)".to_owned(),
    };
    writeln!(
        out,
        "recording camera {}: {} into {} {until}",
        info.index,
        info.name,
        options.out.display()
    )?;
    let summary = write_recording(out, &mut capture, options.out, &info.name, limit)?;
    if summary.frames == 0 {
        eprintln!(
            "camera {} gave no frame in {:.1} s; it is {}",
            info.index,
            summary.seconds,
            capture.status()
        );
        return Ok(Outcome::Invalid);
    }
    Ok(Outcome::Ok)
}

/// Creates the folder, refusing one that already holds a recording (a camera's frames
/// cannot be had again).
pub(crate) fn prepare_folder(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    if dir.join(RECORDING_INDEX).exists() {
        bail!(
            "{} already holds a recording ({RECORDING_INDEX}); choose another folder",
            dir.display()
        );
    }
    Ok(())
}

/// What a recording came to.
#[derive(Debug)]
pub struct RecordSummary {
    pub frames: u64,
    pub seconds: f64,
}

/// CPU time of this process so far (Linux: user and system time of `/proc/self/stat`, in
/// ticks of 1/100 s).
pub fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i)?.parse::<f64>().ok();
    Some((ticks(11)? + ticks(12)?) / 100.0)
}

/// Writes the frames of `capture` into `dir` (created, without a recording) until `limit`
/// or for ever: each frame as `frame-NNNNN.jpg` (a camera's MJPEG bytes as they came,
/// anything else encoded as JPEG) and a line of the index, flushed at once; status changes
/// are printed as they come, and the figures at the end.
pub fn write_recording(
    out: &mut impl Write,
    capture: &mut LiveCapture,
    dir: &Path,
    camera: &str,
    limit: Option<Duration>,
) -> Result<RecordSummary> {
    let index_path = dir.join(RECORDING_INDEX);
    let mut index: Option<File> = None;
    let started = Instant::now();
    let cpu_start = cpu_seconds();
    let mut frames = 0u64;
    let mut ages_ms = Vec::new();
    loop {
        let left = limit.map(|limit| limit.saturating_sub(started.elapsed()));
        if left == Some(Duration::ZERO) {
            break;
        }
        let wait = left.map_or(Duration::from_millis(200), |left| {
            left.min(Duration::from_millis(200))
        });
        match capture.next_event(wait) {
            None => {}
            Some(CaptureEvent::Status(status)) => {
                writeln!(
                    out,
                    "{:7.1} s  camera {status}",
                    started.elapsed().as_secs_f64()
                )?;
            }
            Some(CaptureEvent::Frame(frame)) => {
                ages_ms.push(frame.arrived.elapsed().as_secs_f64() * 1000.0);
                if index.is_none() {
                    let mut file = File::create_new(&index_path)
                        .with_context(|| format!("cannot create {}", index_path.display()))?;
                    let device = capture.device();
                    let header = RecordingHeader::new(
                        device.as_ref().map_or(camera, |d| d.name.as_str()),
                        device.as_ref().and_then(|d| d.mode),
                    );
                    writeln!(file, "{}", serde_json::to_string(&header)?)?;
                    index = Some(file);
                }
                let Some(index) = index.as_mut() else {
                    continue;
                };
                let bytes = match vision::jpeg_bytes(&frame.raw) {
                    Ok(bytes) => bytes,
                    Err(error) => {
                        writeln!(out, "frame {} left out: {error}", frame.number)?;
                        continue;
                    }
                };
                let path = dir.join(recorded_file_name(frame.number));
                std::fs::write(&path, &bytes)
                    .with_context(|| format!("cannot write {}", path.display()))?;
                let line =
                    serde_json::to_string(&RecordedFrame::new(frame.number, frame.timestamp))?;
                writeln!(index, "{line}")
                    .and_then(|()| index.flush())
                    .with_context(|| format!("cannot write {}", index_path.display()))?;
                frames += 1;
            }
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    let stats = capture.stats();
    writeln!(
        out,
        "{frames} frames in {seconds:.1} s ({:.1} fps) written to {}",
        frames as f64 / seconds.max(1e-9),
        dir.display()
    )?;
    writeln!(
        out,
        "camera: {} frames, {} dropped for a newer one (writing was slower), {} reconnections",
        stats.frames, stats.dropped, stats.reconnects
    )?;
    if !ages_ms.is_empty() {
        ages_ms.sort_by(f64::total_cmp);
        writeln!(
            out,
            "capture to writer: median {:.1} ms, worst {:.1} ms (from the frame's arrival)",
            ages_ms[ages_ms.len() / 2],
            ages_ms[ages_ms.len() - 1]
        )?;
    }
    if let (Some(start), Some(end)) = (cpu_start, cpu_seconds()) {
        writeln!(
            out,
            "CPU: {:.0} % of one core (capture and writing)",
            (end - start) / seconds.max(1e-9) * 100.0
        )?;
    }
    Ok(RecordSummary { frames, seconds })
}

#[cfg(test)]
mod tests {
    use super::*;
    use vision::{
        DeviceError, DeviceInfo, DeviceOpener, FrameDevice, FrameFiles, FrameSource, Pace, RawImage,
    };

    /// A camera that gives a small YUYV frame every 10 ms.
    struct Steady;

    impl FrameDevice for Steady {
        fn next_frame(&mut self) -> Result<RawImage, DeviceError> {
            std::thread::sleep(Duration::from_millis(10));
            Ok(RawImage {
                format: PixelFormat::Yuyv,
                width: 8,
                height: 4,
                data: [90, 110, 90, 140].repeat(16),
            })
        }
    }

    impl DeviceOpener for Steady {
        type Device = Steady;

        fn open(&self) -> Result<(Steady, DeviceInfo), DeviceError> {
            Ok((
                Steady,
                DeviceInfo {
                    name: "steady".to_owned(),
                    ..DeviceInfo::default()
                },
            ))
        }
    }

    #[test]
    fn a_recording_is_read_back_by_the_folder_source() {
        let dir = std::env::temp_dir().join(format!("tablesight-record-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        prepare_folder(&dir).unwrap();
        let mut capture = LiveCapture::start(Steady, WatchSettings::default()).unwrap();
        let mut printed = Vec::new();
        let summary = write_recording(
            &mut printed,
            &mut capture,
            &dir,
            "steady",
            Some(Duration::from_millis(300)),
        )
        .unwrap();
        let printed = String::from_utf8(printed).unwrap();
        assert!(summary.frames >= 5, "{printed}");
        assert!(printed.contains("camera live"), "{printed}");
        assert!(
            printed.contains(&format!("{} frames in", summary.frames)),
            "{printed}"
        );
        let error = prepare_folder(&dir).unwrap_err().to_string();
        assert!(error.contains("already holds a recording"), "{error}");

        let mut source = FrameFiles::folder(&dir, None, Pace::Fastest).unwrap();
        assert_eq!(source.len() as u64, summary.frames);
        assert!(source.describe().contains("recorded from steady"));
        let mut last = None;
        while let Some(frame) = source.next_frame() {
            assert_eq!(frame.image.dimensions(), (8, 4));
            if let Some((number, timestamp)) = last {
                assert!(frame.number > number && frame.timestamp > timestamp);
            }
            last = Some((frame.number, frame.timestamp));
        }
        assert_eq!(source.skipped(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn resolutions_are_width_x_height() {
        assert_eq!(parse_resolution("1280x720"), Ok((1280, 720)));
        assert_eq!(parse_resolution("1920X1080"), Ok((1920, 1080)));
        assert!(
            parse_resolution("720p")
                .unwrap_err()
                .contains("WIDTHxHEIGHT")
        );
        assert!(parse_resolution("0x720").is_err());
    }
}
