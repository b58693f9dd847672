//! The calibration wizard: print the mat, lay it under the camera, see what the camera makes
//! of it (the markers found, every zone drawn over the image, each tower at the height of
//! its floors, the fit's error and how many pixels a die covers, with what to fix), and save
//! the calibration that the camera set-up and the live view then use.
//!
//! The frames are read on a thread of their own: the window never waits for the camera. It
//! looks at up to [`FRAMES_TO_TRY`] frames and keeps the first that calibrates, else the one
//! with the most markers.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::time::{Duration, Instant};

use calibration::{CameraFit, MarkerDetection, MatLayout, Paper, SavedCalibration, ViewQuality};
use egui::{
    Align2, Color32, ColorImage, Context, FontId, Pos2, RichText, Sense, Stroke, TextureHandle,
    TextureOptions, Ui, Vec2,
};
use vision::{FrameSource, SourceEvent};

use crate::app::TablesightApp;
use crate::calibration_cli::{fit_view, layout};

/// Frames looked at before the wizard shows the best it found.
pub const FRAMES_TO_TRY: usize = 30;
/// How long it waits for those frames.
const LOOK_FOR: Duration = Duration::from_secs(10);
/// A die needs this many pixels across for the reader to read it well (its training crops
/// are about 27 px; below [`calibration::quality::MIN_DIE_PX`] pips run together).
const GOOD_DIE_PX: f64 = 27.0;

/// What the wizard made of the frames it looked at.
pub struct Looked {
    pub frame: Arc<ColorImage>,
    pub size: [usize; 2],
    pub detections: Vec<MarkerDetection>,
    /// The camera fitted to the markers, or why none is.
    pub fit: Result<CameraFit, String>,
    /// Every zone as that camera sees it.
    pub quality: Option<ViewQuality>,
}

/// What the looking thread hands back: the source (to look again) and what it found.
type Handback = (Box<dyn FrameSource>, Result<Box<Looked>, String>);

/// The frames being looked at, then what was found.
enum Step {
    Looking(Receiver<Handback>),
    Looked(Box<dyn FrameSource>, Result<Box<Looked>, String>),
}

/// The wizard's window while it is open.
pub struct CalibrationWizard {
    source_name: String,
    layout: MatLayout,
    step: Option<Step>,
    texture: Option<TextureHandle>,
    /// Where "Save" writes the calibration.
    pub save_to: PathBuf,
    /// The paper and the file the mat is printed to.
    paper: Paper,
    pub print_to: String,
    /// What the last button did, or why it could not.
    pub message: Option<String>,
}

impl CalibrationWizard {
    /// Starts looking at `source` for the mat.
    pub fn new(source: Box<dyn FrameSource>, save_to: PathBuf) -> Result<Self, String> {
        let layout = layout(None).map_err(|e| format!("{e:#}"))?;
        let source_name = source.describe();
        let print_to = std::env::home_dir()
            .unwrap_or_default()
            .join(mat_file_name(Paper::A2))
            .display()
            .to_string();
        Ok(Self {
            step: Some(look(source, layout.clone())),
            source_name,
            layout,
            texture: None,
            save_to,
            paper: Paper::A2,
            print_to,
            message: None,
        })
    }

    /// What was found, once the frames have been looked at.
    pub fn looked(&mut self) -> Option<&Result<Box<Looked>, String>> {
        self.poll();
        match &self.step {
            Some(Step::Looked(_, looked)) => Some(looked),
            _ => None,
        }
    }

    fn poll(&mut self) {
        if let Some(Step::Looking(receiver)) = &self.step {
            match receiver.try_recv() {
                Ok((source, looked)) => {
                    self.texture = None;
                    self.step = Some(Step::Looked(source, looked));
                }
                Err(TryRecvError::Empty) => {}
                Err(TryRecvError::Disconnected) => {
                    self.step = None;
                    self.message = Some("The frames could not be read.".to_owned());
                }
            }
        }
    }

    fn look_again(&mut self) {
        if let Some(Step::Looked(source, _)) = self.step.take() {
            self.step = Some(look(source, self.layout.clone()));
            self.texture = None;
        }
    }

    /// Writes the calibration found to [`Self::save_to`]; the path on success.
    pub fn save(&mut self) -> Result<PathBuf, String> {
        let Some(Step::Looked(_, Ok(looked))) = &self.step else {
            return Err("Nothing to save yet.".to_owned());
        };
        let fit = looked.fit.as_ref().map_err(Clone::clone)?;
        let saved = SavedCalibration::new(
            &fit.camera,
            &self.layout,
            looked.size,
            (fit.reprojection_median_px, fit.reprojection_max_px),
        );
        if let Some(dir) = self.save_to.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
        }
        std::fs::write(&self.save_to, saved.to_json() + "\n")
            .map_err(|e| format!("cannot write {}: {e}", self.save_to.display()))?;
        Ok(self.save_to.clone())
    }

    fn print_mat(&mut self) {
        let path = PathBuf::from(self.print_to.trim());
        let mut out = Vec::new();
        self.message = Some(
            match crate::calibration_cli::mat(&mut out, &path, self.paper.name(), None, 150) {
                Ok(_) => String::from_utf8_lossy(&out).trim().to_owned(),
                Err(error) => format!("The mat cannot be printed: {error:#}"),
            },
        );
    }
}

fn mat_file_name(paper: Paper) -> String {
    format!("tablesight-mat-{}.pdf", paper.name())
}

/// Reads frames from `source` on a thread until one calibrates, for at most
/// [`FRAMES_TO_TRY`] frames or [`LOOK_FOR`].
fn look(mut source: Box<dyn FrameSource>, layout: MatLayout) -> Step {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let started = Instant::now();
        let mut best: Result<Box<Looked>, String> =
            Err("No frame came from the camera.".to_owned());
        let mut frames = 0;
        while frames < FRAMES_TO_TRY && started.elapsed() < LOOK_FOR {
            let image = match source.next_event(Duration::from_millis(500)) {
                SourceEvent::Frame(frame) => frame.image,
                SourceEvent::End => break,
                SourceEvent::Skipped(error) => {
                    best = best.or(Err(format!("A frame could not be read: {error}")));
                    continue;
                }
                SourceEvent::Status(_) | SourceEvent::Waiting => continue,
            };
            frames += 1;
            let looked = match looked_at(&layout, image) {
                Ok(looked) => looked,
                Err(error) => {
                    best = best.or(Err(error));
                    continue;
                }
            };
            let done = looked.fit.is_ok();
            let more = match &best {
                Ok(b) => looked.detections.len() > b.detections.len(),
                Err(_) => true,
            };
            if done || more {
                best = Ok(Box::new(looked));
            }
            if done {
                break;
            }
        }
        // The window may have been closed: nobody to tell.
        let _ = sender.send((source, best));
    });
    Step::Looking(receiver)
}

fn looked_at(layout: &MatLayout, image: image::RgbImage) -> Result<Looked, String> {
    let size = [image.width() as usize, image.height() as usize];
    let gray = vision::gray_from_image(&image::DynamicImage::ImageRgb8(image.clone()));
    let view = fit_view(layout, &gray).map_err(|e| format!("{e:#}"))?;
    let quality = (view.fit.as_ref().ok())
        .map(|fit| calibration::view_quality(&fit.camera, layout, size[0], size[1]));
    Ok(Looked {
        frame: Arc::new(ColorImage::from_rgb(size, image.as_raw())),
        size,
        detections: view.detections,
        fit: view.fit,
        quality,
    })
}

/// The wizard's window. Saving makes the calibration the camera set-up's.
pub fn calibration_wizard_ui(app: &mut TablesightApp, ctx: &Context) {
    let Some(wizard) = &mut app.calibration_wizard else {
        return;
    };
    wizard.poll();
    if matches!(wizard.step, Some(Step::Looking(_))) {
        ctx.request_repaint_after(Duration::from_millis(100));
    }
    let mut open = true;
    let mut saved = None;
    egui::Window::new("Calibrate the camera")
        .open(&mut open)
        .default_width(720.0)
        .default_pos(egui::pos2(60.0, 60.0))
        .show(ctx, |ui| {
            ui.label(RichText::new("1. Print the mat").strong());
            ui.horizontal(|ui| {
                let before = wizard.paper;
                egui::ComboBox::from_label("paper")
                    .selected_text(wizard.paper.name())
                    .show_ui(ui, |ui| {
                        for paper in Paper::ALL {
                            ui.selectable_value(&mut wizard.paper, paper, paper.name());
                        }
                    });
                // The file named after the paper follows it.
                if wizard.paper != before {
                    wizard.print_to = wizard.print_to.replace(
                        &mat_file_name(before),
                        &mat_file_name(wizard.paper),
                    );
                }
                ui.add(egui::TextEdit::singleline(&mut wizard.print_to).desired_width(320.0));
                if ui.button("Write the PDF").clicked() {
                    wizard.print_mat();
                }
            });
            ui.label(
                RichText::new("A2 is one sheet; smaller paper prints tiles to tape together. Print at 100 % and check the scale bar.")
                    .small()
                    .weak(),
            );
            ui.separator();
            ui.label(RichText::new("2. Lay it flat under the camera, all of it in view").strong());
            ui.label(format!("Looking through {}.", wizard.source_name));
            ui.separator();
            ui.label(RichText::new("3. What the camera sees").strong());
            match &wizard.step {
                None => {}
                Some(Step::Looking(_)) => {
                    ui.horizontal(|ui| {
                        ui.spinner();
                        ui.label("Looking for the mat's markers…");
                    });
                }
                Some(Step::Looked(_, Err(error))) => {
                    ui.colored_label(ui.visuals().warn_fg_color, error.as_str());
                }
                Some(Step::Looked(_, Ok(looked))) => {
                    let texture = wizard.texture.get_or_insert_with(|| {
                        ui.ctx().load_texture(
                            "tablesight-calibration",
                            Arc::clone(&looked.frame),
                            TextureOptions::LINEAR,
                        )
                    });
                    view_ui(ui, texture, looked, wizard.layout.markers.len());
                }
            }
            if let Some(message) = &wizard.message {
                ui.label(message.as_str());
            }
            ui.horizontal(|ui| {
                let looked = matches!(wizard.step, Some(Step::Looked(..)));
                if ui.add_enabled(looked, egui::Button::new("Look again")).clicked() {
                    wizard.look_again();
                }
                let fitted = matches!(&wizard.step, Some(Step::Looked(_, Ok(l))) if l.fit.is_ok());
                if ui
                    .add_enabled(fitted, egui::Button::new("Save the calibration"))
                    .on_hover_text(wizard.save_to.display().to_string())
                    .clicked()
                {
                    match wizard.save() {
                        Ok(path) => saved = Some(path),
                        Err(error) => wizard.message = Some(error),
                    }
                }
            });
        });
    if let Some(path) = saved {
        wizard.message = Some(format!(
            "Saved to {}: the camera set-up uses it from now on.",
            path.display()
        ));
        app.use_calibration(path);
    }
    if !open {
        app.calibration_wizard = None;
    }
}

/// The frame with the markers and zones over it, and the figures under it.
fn view_ui(ui: &mut Ui, texture: &TextureHandle, looked: &Looked, markers: usize) {
    let [w, h] = looked.size.map(|v| v as f32);
    let width = ui.available_width().clamp(240.0, 960.0);
    let (area, _) = ui.allocate_exact_size(Vec2::new(width, width * h / w), Sense::hover());
    let painter = ui.painter_at(area);
    painter.image(
        texture.id(),
        area,
        egui::Rect::from_min_max(Pos2::ZERO, Pos2::new(1.0, 1.0)),
        Color32::WHITE,
    );
    let scale = width / w;
    let at = |p: [f64; 2]| area.min + Vec2::new(p[0] as f32, p[1] as f32) * scale;
    let green = Color32::from_rgb(40, 220, 90);
    for detection in &looked.detections {
        let corners: Vec<Pos2> = (detection.corners_px.iter())
            .map(|c| at([c.x, c.y]))
            .collect();
        painter.add(egui::Shape::closed_line(
            corners.clone(),
            Stroke::new(2.0, green),
        ));
        painter.text(
            corners[0],
            Align2::LEFT_BOTTOM,
            detection.id.to_string(),
            FontId::proportional(11.0),
            green,
        );
    }
    let found = format!(
        "{} of the mat's {markers} markers found",
        looked.detections.len()
    );
    ui.label(&found);
    let fit = match &looked.fit {
        Ok(fit) => fit,
        Err(why) => {
            ui.colored_label(ui.visuals().warn_fg_color, why.as_str());
            return;
        }
    };
    let quality = looked.quality.as_ref();
    let sky = Color32::from_rgb(90, 170, 255);
    for zone in quality.map_or(&[][..], |q| &q.zones) {
        if zone.corners_px.len() == 4 {
            let corners = zone.corners_px.iter().map(|&c| at(c)).collect();
            painter.add(egui::Shape::closed_line(corners, Stroke::new(1.5, sky)));
        }
        for (floor, &point) in zone.floors_px.iter().enumerate() {
            painter.circle_stroke(at(point), 4.0, Stroke::new(1.5, Color32::YELLOW));
            if floor + 1 == zone.floors_px.len() {
                painter.text(
                    at(point),
                    Align2::CENTER_BOTTOM,
                    &zone.name,
                    FontId::proportional(12.0),
                    Color32::YELLOW,
                );
            }
        }
    }
    ui.label(format!(
        "The markers are {:.1} px from where the camera puts them (median; {:.1} px at most).",
        fit.reprojection_median_px, fit.reprojection_max_px
    ));
    ui.label(format!(
        "The camera is {:.0} mm above the mat.",
        -fit.camera.position_in_table().z
    ));
    let dice: Vec<f64> = quality
        .map(|q| q.zones.iter().filter_map(|z| z.die_px).collect())
        .unwrap_or_default();
    if let (Some(small), Some(large)) = (
        dice.iter().copied().reduce(f64::min),
        dice.iter().copied().reduce(f64::max),
    ) {
        let words = format!(
            "A die measures {small:.0} to {large:.0} px across the mat (the reader reads best from about {GOOD_DIE_PX:.0} px)."
        );
        if small < GOOD_DIE_PX {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!("{words} Move the camera closer, or use a higher resolution."),
            );
        } else {
            ui.label(words);
        }
    }
    for warning in quality.map_or(&[][..], |q| &q.warnings) {
        ui.colored_label(ui.visuals().warn_fg_color, warning.as_str());
    }
}
