//! The new-game screen: players and seating, first player, starting tiles, floor stack.

use egui::{RichText, Ui};
use rand::seq::SliceRandom;
use rules::{GameRecord, GameSetup, PlayerColor, StartingTowers, TileCatalogue, TileRef};

use crate::app::{Command, TablesightApp};
use crate::paint::player_color;

/// What the new-game screen is filling in.
#[derive(Clone, Debug)]
pub struct NewGameForm {
    /// Players in clockwise seating order.
    pub players: Vec<PlayerColor>,
    pub first_player: PlayerColor,
    /// Tile ids of towers A, B, C and the central tower.
    pub towers: [String; 4],
    /// Tile ids of the floor stack, the next tile first.
    pub stack: Vec<String>,
    /// The game saved automatically, read once when the screen opens.
    pub autosaved: Option<GameRecord>,
}

const TOWER_NAMES: [&str; 4] = ["Tower A", "Tower B", "Tower C", "Central tower"];

impl NewGameForm {
    pub fn new(
        players: &[PlayerColor],
        catalogue: &TileCatalogue,
        autosaved: Option<GameRecord>,
    ) -> Self {
        let mut starting = catalogue.starting_tiles().map(|t| t.id.clone());
        let mut next = || starting.next().unwrap_or_default();
        let towers = [next(), next(), next(), next()];
        let mut form = Self {
            players: players.to_vec(),
            first_player: players.first().copied().unwrap_or(PlayerColor::Red),
            towers,
            stack: Vec::new(),
            autosaved,
        };
        form.restack(catalogue);
        form
    }

    /// The stack: every catalogue tile not used by a tower, keeping the current order.
    fn restack(&mut self, catalogue: &TileCatalogue) {
        let mut stack: Vec<String> = self
            .stack
            .iter()
            .filter(|id| !self.towers.contains(id) && catalogue.get(id).is_some())
            .cloned()
            .collect();
        for tile in &catalogue.tiles {
            if !self.towers.contains(&tile.id) && !stack.contains(&tile.id) && !tile.starting {
                stack.push(tile.id.clone());
            }
        }
        self.stack = stack;
    }

    /// Sets up as the rulebook says: shuffled starting tiles and stack, random first player.
    pub fn shuffle(&mut self, catalogue: &TileCatalogue, rng: &mut impl rand::Rng) {
        let setup = GameSetup::random(&self.players, catalogue, rng);
        let id = |tile: &TileRef| match tile {
            TileRef::Id(id) => id.clone(),
            TileRef::Tile(tile) => tile.id.clone(),
        };
        self.first_player = setup.first_player;
        self.towers = [
            id(&setup.towers.a),
            id(&setup.towers.b),
            id(&setup.towers.c),
            id(&setup.towers.central),
        ];
        self.stack = setup.floor_stack.iter().map(id).collect();
        self.stack.shuffle(rng);
    }

    pub fn setup(&self) -> GameSetup {
        let id = |s: &String| TileRef::Id(s.clone());
        GameSetup {
            players: self.players.clone(),
            first_player: self.first_player,
            towers: StartingTowers {
                a: id(&self.towers[0]),
                b: id(&self.towers[1]),
                c: id(&self.towers[2]),
                central: id(&self.towers[3]),
            },
            floor_stack: self.stack.iter().map(id).collect(),
        }
    }
}

pub fn new_game_screen_ui(app: &mut TablesightApp, ui: &mut Ui) {
    let catalogue = app.catalogue.clone();
    let mut shuffle = false;
    let mut start = None;
    let crate::app::Screen::NewGame(form) = &mut app.screen else {
        return;
    };
    egui::CentralPanel::default().show(ui, |ui| {
        egui::ScrollArea::vertical().show(ui, |ui| {
            ui.heading("New game of The Towers of Arkhanos");
            if let Some(record) = &form.autosaved {
                ui.horizontal(|ui| {
                    ui.label(format!(
                        "A game of {} actions was saved automatically.",
                        record.actions.len()
                    ));
                    if ui.button("Resume the last game").clicked() {
                        start = Some(None);
                    }
                });
            }
            ui.add_space(8.0);
            players_ui(form, ui);
            ui.add_space(8.0);
            ui.label(RichText::new("Starting tiles").strong());
            egui::Grid::new("starting-tiles")
                .num_columns(2)
                .show(ui, |ui| {
                    for (i, name) in TOWER_NAMES.iter().enumerate() {
                        let selected = catalogue
                            .get(&form.towers[i])
                            .map_or_else(|| form.towers[i].clone(), |t| tile_label(t, i == 3));
                        egui::ComboBox::from_label(*name)
                            .selected_text(selected)
                            .width(320.0)
                            .show_ui(ui, |ui| {
                                for tile in &catalogue.tiles {
                                    ui.selectable_value(
                                        &mut form.towers[i],
                                        tile.id.clone(),
                                        tile_label(tile, i == 3),
                                    );
                                }
                            });
                        ui.end_row();
                    }
                });
            form.restack(&catalogue);
            ui.label(format!(
                "Floor stack: {} tiles, the next first: {}",
                form.stack.len(),
                form.stack
                    .iter()
                    .filter_map(|id| catalogue.get(id).map(|t| t.name.clone()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            ui.add_space(8.0);
            ui.horizontal(|ui| {
                if ui
                    .button("Shuffle as the rulebook says")
                    .on_hover_text("Random starting tiles, floor stack and first player")
                    .clicked()
                {
                    shuffle = true;
                }
                let ready = (2..=4).contains(&form.players.len());
                if ui
                    .add_enabled(
                        ready,
                        egui::Button::new(RichText::new("Start the game").strong()),
                    )
                    .clicked()
                {
                    start = Some(Some(form.setup()));
                }
            });
        });
    });
    if shuffle && let crate::app::Screen::NewGame(form) = &mut app.screen {
        form.shuffle(&catalogue, &mut app.rng);
    }
    match start {
        Some(Some(setup)) => app.command(Command::StartGame(setup)),
        Some(None) => app.command(Command::ResumeAutosave),
        None => {}
    }
}

fn tile_label(tile: &rules::Tile, central: bool) -> String {
    if central {
        format!("{} (any die on the ceiling side)", tile.name)
    } else {
        format!("{}: {}", tile.name, tile.restriction)
    }
}

fn players_ui(form: &mut NewGameForm, ui: &mut Ui) {
    ui.label(RichText::new("Players, in clockwise seating order").strong());
    // Seated players first, in seat order, then the colours not playing.
    let mut order = form.players.clone();
    order.extend(
        PlayerColor::ALL
            .iter()
            .filter(|c| !form.players.contains(c)),
    );
    for color in order {
        ui.horizontal(|ui| {
            let mut playing = form.players.contains(&color);
            let label = RichText::new(color.name())
                .color(player_color(color))
                .strong();
            if ui.checkbox(&mut playing, label).changed() {
                if playing {
                    form.players.push(color);
                } else {
                    form.players.retain(|&p| p != color);
                }
            }
            if let Some(seat) = form.players.iter().position(|&p| p == color) {
                ui.label(format!("seat {}", seat + 1));
                if seat > 0 && ui.small_button("move up").clicked() {
                    form.players.swap(seat, seat - 1);
                }
                ui.radio_value(&mut form.first_player, color, "first player");
            }
        });
    }
    if !form.players.contains(&form.first_player)
        && let Some(&first) = form.players.first()
    {
        form.first_player = first;
    }
    if !(2..=4).contains(&form.players.len()) {
        ui.colored_label(ui.visuals().warn_fg_color, "A game has 2 to 4 players.");
    } else {
        let n = form.players.len();
        ui.label(format!(
            "{} rounds of {} dice{}.",
            rules::rounds_for(n),
            rules::dice_per_round(n),
            if n == 2 {
                ", two turns each per round"
            } else {
                ""
            }
        ));
    }
}
