//! The camera set-up window: the cameras attached, each with the modes it offers; the one to
//! watch and its mode, a saved calibration (else the mat's markers), and the referee's
//! settings. What is chosen persists between runs ([`CameraSettings`]).

use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, TryRecvError};

use egui::{Context, RichText};
use serde::{Deserialize, Serialize};
use vision::{CameraInfo, CameraMode};

use crate::app::{Command, TablesightApp};

/// What persists of the camera set-up.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CameraSettings {
    /// The camera last watched, by name: its number may change when it is plugged again.
    pub camera: Option<String>,
    /// The mode last chosen for it.
    pub mode: Option<CameraMode>,
    /// A saved calibration (`tablesight calibrate --save`); none: the mat's markers.
    pub calibration: Option<PathBuf>,
    /// Lock exposure, focus and white balance where the camera allows, when it opens.
    pub lock_controls: bool,
    /// Frames in a row a reading must hold, with no hand over the table, to be settled.
    pub settle_frames: u32,
    /// Frames each reading is voted with.
    pub vote_frames: u32,
    /// The reader's probability of a die's value under which the reading is uncertain.
    pub sure_value: f32,
}

impl Default for CameraSettings {
    fn default() -> Self {
        let referee = crate::live::LiveOptions::default_referee();
        Self {
            camera: None,
            mode: None,
            calibration: None,
            lock_controls: true,
            settle_frames: referee.settle.frames,
            vote_frames: referee.vote_frames,
            sure_value: vision::ReaderSettings::live().sure_value,
        }
    }
}

/// The cameras, being listed on a thread of their own (listing opens each camera).
enum Listing {
    Looking(Receiver<Result<Vec<CameraInfo>, String>>),
    Listed(Result<Vec<CameraInfo>, String>),
}

/// The window's state while it is open.
pub struct CameraSetup {
    listing: Listing,
    /// The chosen camera's number and mode.
    chosen: Option<(u32, CameraMode)>,
    /// The calibration file as typed.
    calibration: String,
    /// Why the last try to open a camera failed.
    pub problem: Option<String>,
}

impl CameraSetup {
    /// Opens the window and starts listing the cameras.
    pub fn new(settings: &CameraSettings) -> Self {
        let (sender, receiver) = mpsc::channel();
        std::thread::Builder::new()
            .name("camera listing".to_owned())
            .spawn(move || {
                let listed = vision::list_cameras().map_err(|e| e.to_string());
                // The window may be closed by now: nobody to tell.
                let _ = sender.send(listed);
            })
            .map_or_else(
                |error| Self::listed(Err(format!("cannot list the cameras: {error}")), settings),
                |_| Self {
                    listing: Listing::Looking(receiver),
                    chosen: None,
                    calibration: calibration_text(settings),
                    problem: None,
                },
            )
    }

    /// The window over cameras already listed (tests, and a listing that could not start).
    pub fn listed(cameras: Result<Vec<CameraInfo>, String>, settings: &CameraSettings) -> Self {
        let mut setup = Self {
            listing: Listing::Listed(Ok(Vec::new())),
            chosen: None,
            calibration: calibration_text(settings),
            problem: None,
        };
        setup.take_listing(cameras, settings);
        setup
    }

    /// Keeps the listing and chooses the camera last watched (by name), else the first
    /// that offers a mode, in its last mode or the default one.
    fn take_listing(
        &mut self,
        cameras: Result<Vec<CameraInfo>, String>,
        settings: &CameraSettings,
    ) {
        if let Ok(cameras) = &cameras {
            let usable = || cameras.iter().filter(|c| !c.modes.is_empty());
            let camera = usable()
                .find(|c| Some(&c.name) == settings.camera.as_ref())
                .or_else(|| usable().next());
            self.chosen = camera.and_then(|c| {
                let mode = (settings.mode)
                    .filter(|m| settings.camera.as_ref() == Some(&c.name) && c.modes.contains(m))
                    .or_else(|| c.default_mode())?;
                Some((c.index, mode))
            });
        }
        self.listing = Listing::Listed(cameras);
    }

    fn poll(&mut self, settings: &CameraSettings) {
        if let Listing::Looking(receiver) = &self.listing {
            match receiver.try_recv() {
                Ok(listed) => self.take_listing(listed, settings),
                Err(TryRecvError::Empty) => {}
                Err(TryRecvError::Disconnected) => self.take_listing(
                    Err("the camera listing stopped before it answered".to_owned()),
                    settings,
                ),
            }
        }
    }

    fn cameras(&self) -> Option<&Result<Vec<CameraInfo>, String>> {
        match &self.listing {
            Listing::Looking(_) => None,
            Listing::Listed(listed) => Some(listed),
        }
    }
}

impl CameraSetup {
    /// The calibration file shown (a calibration just saved by the wizard).
    pub fn set_calibration(&mut self, path: &std::path::Path) {
        self.calibration = path.display().to_string();
    }
}

fn calibration_text(settings: &CameraSettings) -> String {
    (settings.calibration.as_ref()).map_or_else(String::new, |p| p.display().to_string())
}

/// What "Watch" asks the app to open.
#[derive(Clone, Debug, PartialEq)]
pub struct CameraChoice {
    pub index: u32,
    pub name: String,
    pub mode: CameraMode,
}

pub fn camera_setup_ui(app: &mut TablesightApp, ctx: &Context) {
    let in_game = app.game().is_some();
    let settings = &mut app.settings.camera;
    let Some(setup) = &mut app.camera_setup else {
        return;
    };
    setup.poll(settings);
    if matches!(setup.listing, Listing::Looking(_)) {
        ctx.request_repaint_after(std::time::Duration::from_millis(100));
    }
    let mut open = true;
    let mut command = None;
    egui::Window::new("Camera")
        .open(&mut open)
        .default_width(520.0)
        // Below the menu bar, over the game's left column.
        .default_pos(egui::pos2(24.0, 48.0))
        .show(ctx, |ui| {
            ui.label(RichText::new("Which camera").strong());
            match &setup.listing {
                Listing::Looking(_) => {
                    ui.horizontal(|ui| {
                        ui.spinner();
                        ui.label("Looking for cameras…");
                    });
                }
                Listing::Listed(Err(error)) => {
                    ui.colored_label(ui.visuals().warn_fg_color, format!("No camera can be listed: {error}"));
                }
                Listing::Listed(Ok(cameras)) if cameras.is_empty() => {
                    ui.label("No camera is attached. Plug a webcam in, then look again.");
                }
                Listing::Listed(Ok(cameras)) => {
                    for camera in cameras {
                        let chosen = setup.chosen.is_some_and(|(i, _)| i == camera.index);
                        let label = format!("{}: {}", camera.index, camera.name);
                        let enabled = !camera.modes.is_empty();
                        let response = ui.add_enabled(enabled, egui::RadioButton::new(chosen, label));
                        if let Some(problem) = &camera.problem {
                            ui.label(RichText::new(problem).small().weak());
                        }
                        if response.clicked()
                            && let Some(mode) = camera.default_mode()
                        {
                            setup.chosen = Some((camera.index, mode));
                        }
                    }
                    if let Some((index, mode)) = &mut setup.chosen
                        && let Some(camera) = cameras.iter().find(|c| c.index == *index)
                    {
                        egui::ComboBox::from_label("Mode")
                            .selected_text(mode.to_string())
                            .show_ui(ui, |ui| {
                                for offered in &camera.modes {
                                    ui.selectable_value(mode, *offered, offered.to_string());
                                }
                            });
                    }
                }
            }
            if ui.button("Look again").clicked() {
                *setup = CameraSetup::new(settings);
            }
            ui.checkbox(&mut settings.lock_controls, "Lock exposure, focus and white balance when it opens")
                .on_hover_text("A steady picture reads better; the camera's automatic modes drift with the light and with hands.");
            ui.separator();
            ui.label(RichText::new("Where the mat is").strong());
            ui.horizontal(|ui| {
                ui.label("Calibration file:");
                ui.add(
                    egui::TextEdit::singleline(&mut setup.calibration)
                        .hint_text("none: the mat's markers in view")
                        .desired_width(300.0),
                );
            });
            let chosen = setup.chosen.and_then(|(index, mode)| {
                let cameras = setup.cameras()?.as_ref().ok()?;
                let camera = cameras.iter().find(|c| c.index == index)?;
                Some(CameraChoice { index, name: camera.name.clone(), mode })
            });
            if ui
                .add_enabled(chosen.is_some(), egui::Button::new("Calibrate with this camera…"))
                .on_hover_text("Print the mat, lay it under the camera, check what the camera sees and save the calibration.")
                .clicked()
                && let Some(camera) = chosen.clone()
            {
                command = Some(Command::CalibrateCamera(camera));
            }
            ui.label(
                RichText::new("Saved by the calibration wizard, or by `tablesight calibrate PHOTO --save FILE`. Without one, the printed mat's markers are found in the frames.")
                    .small()
                    .weak(),
            );
            ui.separator();
            ui.label(RichText::new("The referee").strong());
            ui.add(egui::Slider::new(&mut settings.settle_frames, 1..=30).text("frames a still table must hold"));
            ui.add(egui::Slider::new(&mut settings.vote_frames, 1..=15).text("frames each reading is voted with"));
            ui.add(egui::Slider::new(&mut settings.sure_value, 0.5..=0.99).text("a value is sure above"));
            ui.separator();
            if let Some(problem) = &setup.problem {
                ui.colored_label(ui.visuals().warn_fg_color, problem.as_str());
            }
            ui.horizontal(|ui| {
                let camera = chosen;
                let watch = ui.add_enabled(in_game && camera.is_some(), egui::Button::new("Watch"));
                if !in_game {
                    ui.label("Start or open a game first: the camera referees the game on the table.");
                }
                if watch.clicked()
                    && let Some(camera) = camera
                {
                    let path = setup.calibration.trim();
                    settings.calibration = (!path.is_empty()).then(|| PathBuf::from(path));
                    command = Some(Command::WatchCamera(camera));
                }
            });
        });
    if let Some(command) = command {
        app.command(command);
    }
    if !open {
        app.camera_setup = None;
    }
}
