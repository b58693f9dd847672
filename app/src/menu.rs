//! The menu bar: game files, undo and redo, the camera, the tile catalogue, teach mode.

use egui::Ui;

use crate::app::{Command, TablesightApp};
use crate::files::FilePurpose;

pub fn menu_ui(app: &mut TablesightApp, ui: &mut Ui) {
    egui::Panel::top("menu").show(ui, |ui| {
        egui::MenuBar::new().ui(ui, |ui| {
            let in_game = app.game().is_some();
            ui.menu_button("Game", |ui| {
                if ui.button("New game…  (Ctrl+N)").clicked() {
                    app.command(Command::ShowNewGame);
                }
                if ui.button("Open…  (Ctrl+O)").clicked() {
                    app.command(Command::OpenFileDialog(FilePurpose::OpenGame));
                }
                if ui
                    .add_enabled(in_game, egui::Button::new("Save as…  (Ctrl+S)"))
                    .clicked()
                {
                    app.command(Command::OpenFileDialog(FilePurpose::SaveGame));
                }
            });
            ui.menu_button("Edit", |ui| {
                let (undo, redo) = app.game().map_or((false, false), |g| {
                    (g.session.can_undo(), g.session.can_redo())
                });
                if ui
                    .add_enabled(undo, egui::Button::new("Undo  (Ctrl+Z)"))
                    .clicked()
                {
                    app.command(Command::Undo);
                }
                if ui
                    .add_enabled(redo, egui::Button::new("Redo  (Ctrl+Y)"))
                    .clicked()
                {
                    app.command(Command::Redo);
                }
            });
            ui.menu_button("Camera", |ui| {
                if ui.button("Watch a camera…").clicked() {
                    app.command(Command::OpenCameraSetup);
                }
                if ui
                    .add_enabled(
                        app.demo_cache.is_some(),
                        egui::Button::new("Watch the demo"),
                    )
                    .clicked()
                {
                    app.command(Command::StartDemo);
                }
                if ui
                    .add_enabled(app.live.is_some(), egui::Button::new("Stop watching"))
                    .on_hover_text("The game stays; it can go on by clicks")
                    .clicked()
                {
                    app.command(Command::StopLive);
                }
            });
            ui.menu_button("Tiles", |ui| {
                if ui.button("Edit the tile catalogue…").clicked() {
                    app.command(Command::OpenTilesEditor);
                }
            });
            let mut teach = app.settings.teach_mode;
            if ui
                .checkbox(&mut teach, "Teach mode")
                .on_hover_text(
                    "Highlight legal placements and explain tiles, spells and rules (Ctrl+T)",
                )
                .changed()
            {
                app.command(Command::SetTeachMode(teach));
            }
            if let Some(status) = &app.status {
                ui.separator();
                ui.label(status.as_str());
            }
        });
    });
}
