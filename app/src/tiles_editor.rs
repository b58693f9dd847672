//! The tile catalogue, editable in the app: each tile's restriction and pillar bonuses, saved
//! to the user's catalogue file.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

use egui::{Context, RichText};
use rules::{DieColor, DieValue, PillarBonus, Restriction, Tile, TileCatalogue};

use crate::app::{Command, TablesightApp, write_atomically};

pub struct TilesEditor {
    pub tiles: Vec<Tile>,
    pub selected: usize,
    /// Where "Save and use" writes the catalogue.
    pub path: String,
    pub problems: Vec<String>,
}

impl TilesEditor {
    pub fn new(catalogue: &TileCatalogue, path: Option<PathBuf>) -> Self {
        let path = path
            .or_else(|| eframe::storage_dir(crate::APP_ID).map(|dir| dir.join("tiles.json")))
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "tiles.json".to_owned());
        Self {
            tiles: catalogue.tiles.iter().map(|t| Tile::clone(t)).collect(),
            selected: 0,
            path,
            problems: Vec::new(),
        }
    }

    /// The edited tiles as a catalogue, or every problem found.
    fn catalogue(&self) -> Result<TileCatalogue, Vec<String>> {
        let catalogue = TileCatalogue {
            format: "tablesight-tiles".to_owned(),
            version: 1,
            tiles: self.tiles.iter().cloned().map(Arc::new).collect(),
        };
        TileCatalogue::from_json(&catalogue.to_json())
            .map_err(|e| e.to_string().lines().map(str::to_owned).collect())
    }
}

const SIDE_A_BONUSES: [PillarBonus; 3] = [
    PillarBonus::TwoPrestige,
    PillarBonus::LevelPrestige,
    PillarBonus::ExtraMeeple,
];

pub fn tiles_editor_ui(app: &mut TablesightApp, ctx: &Context) {
    let Some(editor) = &mut app.tiles_editor else {
        return;
    };
    let mut open = true;
    let mut saved = false;
    let mut command = None;
    egui::Window::new("Tile catalogue")
        .open(&mut open)
        .default_width(620.0)
        .show(ctx, |ui| {
            ui.label("The restrictions of the printed tiles are not published: make these match your copy.");
            ui.horizontal_top(|ui| {
                ui.vertical(|ui| {
                    egui::ScrollArea::vertical().max_height(360.0).show(ui, |ui| {
                        for (i, tile) in editor.tiles.iter().enumerate() {
                            let label = if tile.starting { format!("{} (starting)", tile.name) } else { tile.name.clone() };
                            if ui.selectable_label(editor.selected == i, label).clicked() {
                                editor.selected = i;
                            }
                        }
                    });
                    if ui.button("Add a tile").clicked() {
                        let n = editor.tiles.len() + 1;
                        editor.tiles.push(Tile {
                            id: format!("tile-{n}"),
                            name: format!("New tile {n}"),
                            starting: false,
                            restriction: Restriction::any(),
                            bonuses: SIDE_A_BONUSES,
                            source: Some("entered in Tablesight".to_owned()),
                        });
                        editor.selected = editor.tiles.len() - 1;
                    }
                });
                ui.separator();
                if let Some(tile) = editor.tiles.get_mut(editor.selected) {
                    tile_form_ui(tile, ui);
                }
            });
            ui.separator();
            ui.horizontal(|ui| {
                let label = ui.label("File:");
                ui.add(
                    egui::TextEdit::singleline(&mut editor.path)
                        .hint_text("tiles.json")
                        .desired_width(360.0),
                )
                .labelled_by(label.id);
            });
            ui.horizontal(|ui| {
                if ui.button("Save and use these tiles").clicked() {
                    match editor.catalogue() {
                        Ok(catalogue) => {
                            let path = PathBuf::from(editor.path.trim());
                            match write_atomically(&path, &catalogue.to_json()) {
                                Ok(()) => {
                                    editor.problems.clear();
                                    command = Some(Command::UseCatalogue(catalogue, Some(path)));
                                    saved = true;
                                }
                                Err(error) => editor.problems = vec![format!("Could not save: {error}")],
                            }
                        }
                        Err(problems) => editor.problems = problems,
                    }
                }
                if ui.button("Restore the shipped tiles").clicked() {
                    editor.tiles = TileCatalogue::arkhanos().tiles.iter().map(|t| Tile::clone(t)).collect();
                    editor.selected = 0;
                    command = Some(Command::UseCatalogue(TileCatalogue::arkhanos(), None));
                }
            });
            for problem in &editor.problems {
                ui.colored_label(ui.visuals().error_fg_color, problem);
            }
        });
    if let Some(command) = command {
        app.command(command);
    }
    if !open || saved {
        app.tiles_editor = None;
    }
}

/// A checkbox that says whether `item` is in `set`, and puts it in or takes it out.
fn set_checkbox<T: Ord>(
    ui: &mut egui::Ui,
    set: &mut BTreeSet<T>,
    item: T,
    label: impl Into<egui::WidgetText>,
) {
    let mut on = set.contains(&item);
    if ui.checkbox(&mut on, label).changed() {
        if on {
            set.insert(item);
        } else {
            set.remove(&item);
        }
    }
}

fn tile_form_ui(tile: &mut Tile, ui: &mut egui::Ui) {
    ui.vertical(|ui| {
        egui::Grid::new("tile-form").num_columns(2).show(ui, |ui| {
            let label = ui.label("Name");
            ui.add(egui::TextEdit::singleline(&mut tile.name).hint_text("tile name"))
                .labelled_by(label.id);
            ui.end_row();
            let label = ui.label("Id");
            ui.add(egui::TextEdit::singleline(&mut tile.id).hint_text("unique id"))
                .labelled_by(label.id);
            ui.end_row();
            ui.label("Starting tile");
            ui.checkbox(&mut tile.starting, "star-marked pillars (starts a tower)");
            ui.end_row();
            ui.label("Colours");
            ui.horizontal(|ui| {
                for color in DieColor::ALL {
                    set_checkbox(ui, &mut tile.restriction.colors, color, color.name());
                }
            });
            ui.end_row();
            ui.label("Values");
            ui.horizontal(|ui| {
                for value in DieValue::ALL {
                    set_checkbox(ui, &mut tile.restriction.values, value, value.to_string());
                }
            });
            ui.end_row();
            ui.label("");
            ui.checkbox(&mut tile.restriction.all_different, "all values different");
            ui.end_row();
            for (i, bonus) in tile.bonuses.iter_mut().enumerate() {
                ui.label("");
                egui::ComboBox::from_label(format!("pillar {}", i + 1))
                    .selected_text(bonus.to_string())
                    .show_ui(ui, |ui| {
                        for option in SIDE_A_BONUSES {
                            ui.selectable_value(bonus, option, option.to_string());
                        }
                    });
                ui.end_row();
            }
        });
        ui.label(RichText::new(format!("Takes {}.", tile.restriction)).italics());
    });
}
