//! The game screen: players on the left, scores and log on the right, the turn bar below,
//! the table in the middle. Panels only read the game and queue commands.

use std::collections::BTreeSet;

use egui::Ui;
use rules::{Action, BonusTarget, TowerId};

use crate::app::{Command, Screen, TablesightApp};

pub fn game_screen_ui(app: &mut TablesightApp, ui: &mut Ui) {
    let teach = app.settings.teach_mode;
    let Screen::Game(view) = &app.screen else {
        return;
    };
    let mut commands: Vec<Command> = Vec::new();
    // What the current player may do, computed once for the table and the turn bar.
    let legal = view.session.state().legal_actions();
    let targets = if teach {
        crate::table::legal_targets(view, &legal)
    } else {
        BTreeSet::new()
    };
    if let Some(live) = app.live.as_mut() {
        // Watching: the camera's view on the left, the players below it.
        let width = crate::live_view::panel_width(ui.ctx().content_rect().width());
        egui::Panel::left("live")
            .resizable(true)
            .default_size(width)
            .show(ui, |ui| {
                crate::live_view::live_view_ui(live, &targets, ui, &mut commands);
                ui.separator();
                crate::players::players_ui(view, teach, ui, &mut commands);
            });
    } else {
        egui::Panel::left("players")
            .resizable(false)
            .exact_size(292.0)
            .show(ui, |ui| {
                crate::players::players_ui(view, teach, ui, &mut commands)
            });
    }
    egui::Panel::right("scores")
        .default_size(340.0)
        .show(ui, |ui| {
            crate::scores::scores_ui(view, ui);
            ui.separator();
            crate::log::log_ui(view, ui);
        });
    egui::Panel::bottom("turn").resizable(false).show(ui, |ui| {
        crate::turn::turn_ui(view, &legal, teach, ui, &mut commands)
    });
    egui::CentralPanel::default().show(ui, |ui| {
        let top = ui.max_rect();
        crate::table::table_ui(view, &targets, teach, ui, &mut commands);
        // The flag floats over the table, so the towers do not move under it: over the top,
        // or over the bottom when the refused move was on tower A (the top card), so that
        // it never hides the pillar it is about.
        if let Some(flag) = &view.flag {
            let (pivot, corner) = if on_tower_a(&flag.action) {
                (egui::Align2::LEFT_BOTTOM, top.left_bottom())
            } else {
                (egui::Align2::LEFT_TOP, top.left_top())
            };
            egui::Area::new(egui::Id::unique("tablesight-flag"))
                .order(egui::Order::Foreground)
                .pivot(pivot)
                .fixed_pos(corner)
                .show(ui.ctx(), |ui| {
                    ui.set_width(top.width());
                    crate::turn::flag_ui(view, teach, ui, &mut commands);
                });
        }
    });
    for command in commands {
        app.command(command);
    }
}

/// Whether `action` puts something on tower A, whose card stands at the top of the table.
fn on_tower_a(action: &Action) -> bool {
    matches!(
        action,
        Action::Place {
            tower: TowerId::A,
            ..
        } | Action::SetTile {
            tower: TowerId::A,
            ..
        } | Action::BonusMeeple {
            to: BonusTarget::Pillar {
                tower: TowerId::A,
                ..
            },
            ..
        }
    )
}
