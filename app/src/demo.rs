//! The demo: one fixed game of the synthetic table, played through the same reader and
//! referee as a camera. Rendering runs at 1-4 frames a second here, so the game is rendered
//! ahead in the background into a cache folder the first time, and played as its frames
//! appear ("rendering the demo: N frames ready"); later runs play the cached folder at once.
//!
//! The game: seed 3, Red and Green, 40 actions, 1280x720 at 15 fps (831 frames). A floor is
//! completed and scored by 12 s (frame 178) and a placement the rules refuse is staged at
//! 12 s (frames 179-216).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use rules::{GameRecord, GameSetup, PlayerColor, TileCatalogue};
use vision::{Frame, FrameFiles, FrameSource, Pace, SourceEvent};

/// The demo game's seed: chosen for an illegal placement and a completed floor early.
pub const DEMO_SEED: u64 = 3;
/// The demo game's players, in seating order.
pub const DEMO_PLAYERS: [PlayerColor; 2] = [PlayerColor::Red, PlayerColor::Green];
/// Actions of the demo game.
pub const DEMO_ACTIONS: usize = 40;
/// The demo's frame size, as a 720p webcam's.
pub const DEMO_SIZE: (usize, usize) = (1280, 720);
/// The demo's frames a second.
pub const DEMO_FPS: u32 = 15;

/// The folder of the demo game in a cache folder: one per renderer version, so that a demo
/// rendered by an older Tablesight is rendered again.
pub fn demo_dir(cache: &Path) -> PathBuf {
    cache.join(format!("demo-{DEMO_SEED}-r{}", synth::RENDERER_VERSION))
}

/// What `synth::render_game` is asked for.
pub fn demo_request() -> synth::GameRequest {
    synth::GameRequest {
        seed: DEMO_SEED,
        players: DEMO_PLAYERS.to_vec(),
        max_actions: Some(DEMO_ACTIONS),
        size: DEMO_SIZE,
        fps: DEMO_FPS,
        illegal_share: 0.25,
        rest_share: 0.0,
    }
}

/// The set-up of the demo game before its `record.json` is written: the renderer draws it
/// first from the seed's random generator (`synth::render_game`); checked against the
/// record when the rendering ends.
pub fn demo_setup() -> GameSetup {
    GameSetup::random(
        &DEMO_PLAYERS,
        &TileCatalogue::arkhanos(),
        &mut rules::rng_from_seed(DEMO_SEED),
    )
}

/// Whether a folder holds a whole rendered game (`game.json` is written last).
pub fn is_complete(dir: &Path) -> bool {
    dir.join("game.json").is_file() && dir.join("record.json").is_file()
}

/// The demo, ready to be watched.
pub struct Demo {
    /// The game's set-up (the referee and the mirrored table start from it).
    pub setup: GameSetup,
    pub source: Box<dyn FrameSource>,
}

/// The demo of the cache folder `cache`: the cached game, or a rendering started now (or
/// the one already running) whose frames are played as they appear.
pub fn open_demo(cache: &Path) -> Result<Demo, String> {
    let dir = demo_dir(cache);
    if is_complete(&dir) {
        let text = std::fs::read_to_string(dir.join("record.json"))
            .map_err(|e| format!("cannot read the demo game in {}: {e}", dir.display()))?;
        let record = GameRecord::from_json(&text)
            .map_err(|e| format!("the demo game in {} is damaged: {e}", dir.display()))?;
        let frames = FrameFiles::folder(&dir, None, Pace::Recorded)
            .map_err(|e| format!("the demo game in {} is damaged: {e}", dir.display()))?;
        return Ok(Demo {
            setup: record.setup,
            source: Box::new(Renamed {
                label: format!("the demo game ({} frames)", frames.len()),
                inner: frames,
            }),
        });
    }
    let progress = rendering(&dir)?;
    Ok(Demo {
        setup: demo_setup(),
        source: Box::new(DemoFrames {
            dir,
            progress,
            next: 0,
            ready: 0,
            clock: None,
        }),
    })
}

/// A source under another name.
struct Renamed<S> {
    label: String,
    inner: S,
}

impl<S: FrameSource> FrameSource for Renamed<S> {
    fn describe(&self) -> String {
        self.label.clone()
    }

    fn next_event(&mut self, wait: Duration) -> SourceEvent {
        self.inner.next_event(wait)
    }
}

/// How the background rendering goes.
#[derive(Debug, Default)]
pub struct RenderProgress {
    done: AtomicBool,
    error: Mutex<Option<String>>,
}

impl RenderProgress {
    fn finish(&self, error: Option<String>) {
        *self.error.lock().unwrap_or_else(PoisonError::into_inner) = error;
        self.done.store(true, Ordering::Release);
    }

    fn is_done(&self) -> bool {
        self.done.load(Ordering::Acquire)
    }

    fn error(&self) -> Option<String> {
        self.error
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// A rendering's folder and progress.
type Rendering = (PathBuf, Arc<RenderProgress>);

/// The rendering of the demo under way in this process, if any (one at a time: a second
/// demo opened meanwhile plays the same frames).
fn current() -> &'static Mutex<Option<Rendering>> {
    static CURRENT: OnceLock<Mutex<Option<Rendering>>> = OnceLock::new();
    CURRENT.get_or_init(|| Mutex::new(None))
}

/// Starts rendering the demo into `dir` on a thread of its own (a folder left half-written
/// by an earlier run is rendered again), or joins the rendering already running there.
fn rendering(dir: &Path) -> Result<Arc<RenderProgress>, String> {
    let mut current = current().lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((running, progress)) = current.as_ref()
        && running == dir
        && (!progress.is_done() || progress.error().is_none())
    {
        return Ok(Arc::clone(progress));
    }
    if dir.exists() {
        std::fs::remove_dir_all(dir)
            .map_err(|e| format!("cannot clear the demo folder {}: {e}", dir.display()))?;
    }
    // The demo of an older renderer is of no more use (about 100 MB); failing to remove it
    // costs only disk space, so it is said and the demo goes on.
    if let Some(cache) = dir.parent() {
        let older = (1..synth::RENDERER_VERSION).map(|r| format!("demo-{DEMO_SEED}-r{r}"));
        for old in older
            .chain([format!("demo-{DEMO_SEED}")])
            .map(|name| cache.join(name))
        {
            match std::fs::remove_dir_all(&old) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    eprintln!("cannot remove the older demo {}: {e}", old.display());
                }
                _ => {}
            }
        }
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("cannot make the demo folder {}: {e}", dir.display()))?;
    let progress = Arc::new(RenderProgress::default());
    let thread_progress = Arc::clone(&progress);
    let thread_dir = dir.to_owned();
    std::thread::Builder::new()
        .name("tablesight-demo-render".to_owned())
        .spawn(move || {
            let outcome = synth::Studio::new()
                .and_then(|studio| synth::render_game(&studio, &demo_request(), &thread_dir))
                .map_err(|e| format!("the demo could not be rendered: {e}"))
                .and_then(|_| check_setup(&thread_dir));
            thread_progress.finish(outcome.err());
        })
        .map_err(|e| format!("cannot start rendering the demo: {e}"))?;
    *current = Some((dir.to_owned(), Arc::clone(&progress)));
    Ok(progress)
}

/// The rendered record's set-up is the one the referee was given.
fn check_setup(dir: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(dir.join("record.json"))
        .map_err(|e| format!("the demo's record cannot be read: {e}"))?;
    let record = GameRecord::from_json(&text).map_err(|e| format!("the demo's record: {e}"))?;
    if record.setup != demo_setup() {
        return Err(
            "the renderer drew another set-up than the demo expects; start the demo again"
                .to_owned(),
        );
    }
    Ok(())
}

/// The frames of a demo being rendered: frame N is handed over once frame N + 1 exists (or
/// the rendering has ended), at most at the recorded pace.
struct DemoFrames {
    dir: PathBuf,
    progress: Arc<RenderProgress>,
    next: u64,
    /// Frames known to be whole.
    ready: u64,
    clock: Option<Instant>,
}

impl DemoFrames {
    fn path(&self, number: u64) -> PathBuf {
        self.dir.join(vision::source::recorded_file_name(number))
    }

    /// Counts the frames written whole so far.
    fn update_ready(&mut self) {
        while self.path(self.ready + 1).is_file() {
            self.ready += 1;
        }
        if self.progress.is_done() && self.path(self.ready).is_file() {
            self.ready += 1;
        }
    }
}

impl FrameSource for DemoFrames {
    fn describe(&self) -> String {
        match (self.progress.is_done(), self.progress.error()) {
            (_, Some(error)) => error,
            (true, None) => format!("the demo game ({} frames)", self.ready),
            (false, None) => format!("rendering the demo: {} frames ready", self.ready),
        }
    }

    fn next_event(&mut self, wait: Duration) -> SourceEvent {
        self.update_ready();
        if self.next >= self.ready {
            if self.progress.is_done() {
                return SourceEvent::End;
            }
            std::thread::sleep(wait.min(Duration::from_millis(100)));
            return SourceEvent::Waiting;
        }
        let timestamp = Duration::from_secs_f64(self.next as f64 / f64::from(DEMO_FPS));
        let start = *self.clock.get_or_insert_with(Instant::now);
        if !vision::source::wait_until(start + timestamp, wait) {
            return SourceEvent::Waiting;
        }
        let number = self.next;
        self.next += 1;
        match vision::read_rgb(&self.path(number)) {
            Ok(image) => SourceEvent::Frame(Frame {
                number,
                timestamp,
                arrived: Instant::now(),
                image,
            }),
            Err(error) => SourceEvent::Skipped(error),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn fixture_game() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/synth/game")
    }

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("tablesight-demo-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_cached_demo_plays_its_folder_with_its_setup() {
        let cache = scratch("cached");
        let dir = demo_dir(&cache);
        std::fs::create_dir_all(&dir).unwrap();
        for entry in std::fs::read_dir(fixture_game()).unwrap() {
            let path = entry.unwrap().path();
            std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
        }
        let record = GameRecord::from_json(
            &std::fs::read_to_string(fixture_game().join("record.json")).unwrap(),
        )
        .unwrap();
        let mut demo = open_demo(&cache).unwrap();
        assert_eq!(demo.setup, record.setup);
        assert!(demo.source.describe().starts_with("the demo game ("));
        let frame = demo.source.next_frame().unwrap();
        assert_eq!(frame.number, 0);
        std::fs::remove_dir_all(&cache).unwrap();
    }

    #[test]
    fn frames_being_rendered_are_handed_over_once_whole() {
        let dir = scratch("growing");
        let image = image::RgbImage::from_pixel(8, 6, image::Rgb([1, 2, 3]));
        let progress = Arc::new(RenderProgress::default());
        let mut frames = DemoFrames {
            dir: dir.clone(),
            progress: Arc::clone(&progress),
            next: 0,
            ready: 0,
            clock: None,
        };
        let write = |n: u64| image.save(dir.join(format!("frame-{n:05}.jpg"))).unwrap();
        assert!(matches!(
            frames.next_event(Duration::from_millis(1)),
            SourceEvent::Waiting
        ));
        write(0);
        // Frame 0 may still be being written: not yet.
        assert!(matches!(
            frames.next_event(Duration::from_millis(1)),
            SourceEvent::Waiting
        ));
        write(1);
        let SourceEvent::Frame(frame) = frames.next_event(Duration::from_millis(500)) else {
            panic!("frame 0 is whole once frame 1 exists");
        };
        assert_eq!(frames.describe(), "rendering the demo: 1 frames ready");
        assert_eq!(frame.number, 0);
        progress.finish(None);
        let mut numbers = Vec::new();
        loop {
            match frames.next_event(Duration::from_millis(500)) {
                SourceEvent::Frame(frame) => numbers.push(frame.number),
                SourceEvent::End => break,
                _ => {}
            }
        }
        assert_eq!(
            numbers,
            [1],
            "the last frame is whole once the rendering has ended"
        );
        assert_eq!(frames.describe(), "the demo game (2 frames)");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_demo_setup_is_the_seeds_first_draw() {
        let setup = demo_setup();
        assert_eq!(setup.players, DEMO_PLAYERS);
        assert_eq!(setup, demo_setup());
    }
}
