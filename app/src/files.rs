//! A small in-app prompt for file paths (save, open, tile catalogue), which works the same
//! on every desktop and in tests.

use std::path::PathBuf;

use egui::Context;

use crate::app::{Command, TablesightApp};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FilePurpose {
    SaveGame,
    OpenGame,
}

pub struct FileDialog {
    pub purpose: FilePurpose,
    pub path: String,
}

impl FileDialog {
    pub fn new(purpose: FilePurpose, start: Option<PathBuf>) -> Self {
        let path = start
            .or_else(|| std::env::current_dir().ok().map(|d| d.join("game.json")))
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        Self { purpose, path }
    }
}

pub fn file_dialog_ui(app: &mut TablesightApp, ctx: &Context) {
    let Some(dialog) = &mut app.file_dialog else {
        return;
    };
    let title = match dialog.purpose {
        FilePurpose::SaveGame => "Save the game record",
        FilePurpose::OpenGame => "Open a game record",
    };
    let mut close = false;
    let mut chosen = None;
    egui::Window::new(title).collapsible(false).show(ctx, |ui| {
        let label = ui.label("Path of the file");
        ui.add(
            egui::TextEdit::singleline(&mut dialog.path)
                .hint_text("/home/me/games/tuesday.json")
                .desired_width(420.0),
        )
        .labelled_by(label.id);
        ui.horizontal(|ui| {
            let verb = match dialog.purpose {
                FilePurpose::SaveGame => "Save",
                FilePurpose::OpenGame => "Open",
            };
            if ui.button(verb).clicked() && !dialog.path.trim().is_empty() {
                chosen = Some(PathBuf::from(dialog.path.trim()));
            }
            if ui.button("Cancel").clicked() {
                close = true;
            }
        });
    });
    if let Some(path) = chosen {
        let command = match dialog.purpose {
            FilePurpose::SaveGame => Command::Save(path),
            FilePurpose::OpenGame => Command::Open(path),
        };
        app.command(command);
        close = true;
    }
    if close {
        app.file_dialog = None;
    }
}
