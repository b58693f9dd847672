//! Running prestige, a chart of prestige over the rounds, each floor's scoring explained,
//! and the end-of-game tally with its tie-breakers.

use egui::{Align2, FontId, Pos2, RichText, Sense, Shape, Stroke, Ui, Vec2};
use rules::{ScoreReason, TowerId};

use crate::app::GameView;
use crate::paint::player_color;

pub fn scores_ui(view: &GameView, ui: &mut Ui) {
    let state = view.session.state();
    ui.heading("Scores");
    egui::Grid::new("prestige").striped(true).show(ui, |ui| {
        for player in state.players() {
            ui.label(
                RichText::new(player.color.name())
                    .color(player_color(player.color))
                    .strong(),
            );
            ui.label(format!("{} prestige", player.prestige));
            ui.end_row();
        }
    });
    chart_ui(view, ui);
    if let Some(score) = state.final_score() {
        ui.label(RichText::new("End-of-game tally").strong());
        egui::Grid::new("tally").striped(true).show(ui, |ui| {
            for header in ["", "play", "end", "total", "book", "tops"] {
                ui.label(RichText::new(header).small());
            }
            ui.end_row();
            for s in &score.standings {
                ui.label(RichText::new(s.player.name()).color(player_color(s.player)));
                ui.label(s.during_play.to_string());
                ui.label(s.end_of_game.to_string());
                ui.label(RichText::new(s.total.to_string()).strong());
                ui.label(s.spellbook_meeples.to_string());
                ui.label(s.top_floor_meeples.to_string());
                ui.end_row();
            }
        });
        for entry in &score.entries {
            ui.label(RichText::new(entry.to_string()).small());
        }
        let winners: Vec<&str> = score.winners.iter().map(|p| p.name()).collect();
        ui.label(
            RichText::new(format!(
                "Winner: {} ({})",
                winners.join(", "),
                score.decided_by
            ))
            .strong(),
        );
    }
    egui::CollapsingHeader::new("Floors scored")
        .default_open(false)
        .show(ui, |ui| {
            let mut any = false;
            for entry in state.ledger() {
                if let ScoreReason::Floor { tower, level, .. } = entry.reason {
                    any = true;
                    let name = if tower == TowerId::Central {
                        "central".to_owned()
                    } else {
                        format!("{tower:?}")
                    };
                    ui.label(
                        RichText::new(format!(
                            "round {} · {name} floor {level}: {entry}",
                            entry.round
                        ))
                        .small(),
                    );
                }
            }
            if !any {
                ui.label("No floor completed yet.");
            }
        });
}

/// Prestige of each player at the end of each round, as lines.
fn chart_ui(view: &GameView, ui: &mut Ui) {
    let series = view.session.prestige_by_round();
    let rounds = view.session.state().rounds() as usize;
    let max = series
        .iter()
        .flat_map(|round| round.values())
        .copied()
        .max()
        .unwrap_or(0)
        .max(10) as f32;
    let (rect, response) =
        ui.allocate_exact_size(Vec2::new(ui.available_width(), 120.0), Sense::hover());
    let painter = ui.painter_at(rect);
    let plot = rect.shrink2(Vec2::new(22.0, 12.0));
    let axis = Stroke::new(1.0, ui.visuals().weak_text_color());
    painter.line_segment([plot.left_bottom(), plot.right_bottom()], axis);
    painter.line_segment([plot.left_bottom(), plot.left_top()], axis);
    painter.text(
        plot.left_top() - Vec2::new(4.0, 0.0),
        Align2::RIGHT_TOP,
        format!("{max:.0}"),
        FontId::proportional(10.0),
        ui.visuals().weak_text_color(),
    );
    painter.text(
        plot.right_bottom() + Vec2::new(0.0, 2.0),
        Align2::RIGHT_TOP,
        format!("round {rounds}"),
        FontId::proportional(10.0),
        ui.visuals().weak_text_color(),
    );
    let point = |round: usize, points: u32| {
        Pos2::new(
            plot.left() + plot.width() * round as f32 / rounds.max(1) as f32,
            plot.bottom() - plot.height() * points as f32 / max,
        )
    };
    for player in view.session.state().players() {
        let line: Vec<Pos2> = series
            .iter()
            .enumerate()
            .map(|(round, values)| point(round, values.get(&player.color).copied().unwrap_or(0)))
            .collect();
        painter.add(Shape::line(
            line,
            Stroke::new(2.0, player_color(player.color)),
        ));
    }
    response.on_hover_text("Prestige at the end of each round");
}
