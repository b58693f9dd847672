//! The Tablesight app: the egui window (scorekeeper, referee and teacher) and the headless
//! subcommands. The only crate that knows the rules, vision and calibration together, and the
//! only one that reads and writes files.

pub mod app;
pub mod calibration_cli;
pub mod calibration_wizard;
pub mod camera_setup;
pub mod capture_cli;
pub mod cli;
pub mod demo;
mod files;
mod game;
pub mod live;
pub mod live_view;
mod log;
mod menu;
pub mod new_game;
pub mod observe;
mod paint;
mod players;
pub mod reader_cli;
pub mod referee_cli;
mod scores;
pub mod session;
pub mod synth_cli;
mod table;
mod tiles_editor;
mod turn;

pub use app::{Settings, TablesightApp};

/// The name under which eframe keeps settings and the autosaved game.
pub const APP_ID: &str = "Tablesight";

/// Why the window could not open.
#[derive(Debug)]
pub enum WindowError {
    /// No X11 or Wayland display: a server, a container, an SSH session.
    NoDisplay,
    Eframe(eframe::Error),
}

/// Whether a camera is attached: a video device on Linux (listing the cameras' modes would
/// open each one; this only looks).
fn camera_attached() -> bool {
    std::fs::read_dir("/dev").is_ok_and(|entries| {
        entries
            .filter_map(Result::ok)
            .any(|e| e.file_name().to_string_lossy().starts_with("video"))
    })
}

/// Opens the Tablesight window and runs it until it is closed; `demo` opens it on the demo
/// game, watched through the camera's path.
pub fn run_window(demo: bool) -> Result<(), WindowError> {
    let has_display = ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()));
    if !has_display {
        return Err(WindowError::NoDisplay);
    }
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("Tablesight")
            // The demo shows the camera beside the mirrored table: it needs more room.
            .with_inner_size(if demo {
                [1720.0, 960.0]
            } else {
                [1360.0, 860.0]
            })
            .with_min_inner_size([1100.0, 700.0]),
        ..Default::default()
    };
    eframe::run_native(
        APP_ID,
        options,
        Box::new(|cc| {
            let settings: Settings = cc
                .storage
                .and_then(|s| eframe::get_value(s, eframe::APP_KEY))
                .unwrap_or_default();
            let seed = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            let autosave = eframe::storage_dir(APP_ID).map(|dir| dir.join("autosave-game.json"));
            let mut app = TablesightApp::new(settings, seed, autosave);
            app.demo_cache = eframe::storage_dir(APP_ID);
            app.camera_attached = camera_attached();
            // Opens on the camera when one is attached; without one, the first run plays
            // the demo (later runs offer it on the start screen).
            let first_run =
                !app.settings.demo_shown && matches!(app.screen, app::Screen::NewGame(_));
            if demo || (!app.camera_attached && first_run) {
                app.command(app::Command::StartDemo);
            } else if app.camera_attached {
                app.command(app::Command::OpenCameraSetup);
            }
            Ok(Box::new(app))
        }),
    )
    .map_err(WindowError::Eframe)
}
