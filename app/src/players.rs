//! Each player: prestige, reserve, spellbook; the mana pool below.

use egui::{Color32, RichText, Stroke, StrokeKind, Ui, Vec2};
use rules::{Meeple, PlayerState, Rank, SpellId};

use crate::app::{Command, GameView};
use crate::paint::{die_icon, meeple_icon, paint_meeple, player_color};

pub fn players_ui(view: &GameView, teach: bool, ui: &mut Ui, _commands: &mut Vec<Command>) {
    let state = view.session.state();
    let current = state.turn().map(|t| t.player);
    egui::ScrollArea::vertical().show(ui, |ui| {
        for player in state.players() {
            let color = player_color(player.color);
            let is_current = current == Some(player.color);
            let stroke = if is_current {
                Stroke::new(2.5, color)
            } else {
                Stroke::new(1.0, color.gamma_multiply(0.5))
            };
            egui::Frame::group(ui.style())
                .stroke(stroke)
                .show(ui, |ui| {
                    ui.set_width(ui.available_width());
                    ui.horizontal(|ui| {
                        ui.label(
                            RichText::new(player.color.name())
                                .strong()
                                .color(color)
                                .size(16.0),
                        );
                        if state.first_player() == player.color && !state.is_over() {
                            ui.label(RichText::new("first").small())
                                .on_hover_text("First player this round (holds the dice bag)");
                        }
                        if is_current {
                            ui.label(RichText::new("to play").italics());
                        }
                        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                            ui.label(
                                RichText::new(format!("{} prestige", player.prestige)).strong(),
                            );
                        });
                    });
                    reserve_ui(player, ui);
                    spellbook_ui(player, teach, ui);
                });
            ui.add_space(4.0);
        }
        ui.separator();
        ui.label(RichText::new("Mana pool").strong()).on_hover_text(
            "One die per finished round; Exchange swaps a rolled die with one of these.",
        );
        ui.horizontal_wrapped(|ui| {
            for (round, die) in state.mana_pool().iter().enumerate() {
                die_icon(ui, *die, 22.0).on_hover_text(format!("Round {}: the {die}", round + 1));
            }
            for _ in state.mana_pool().len()..usize::from(state.rounds()) {
                let (rect, _) = ui.allocate_exact_size(Vec2::splat(22.0), egui::Sense::hover());
                ui.painter().rect_stroke(
                    rect,
                    4.0,
                    Stroke::new(1.0, Color32::GRAY),
                    StrokeKind::Inside,
                );
            }
        });
        ui.label(format!("Bag: {} dice left", state.bag().total()));
    });
}

fn reserve_ui(player: &PlayerState, ui: &mut Ui) {
    ui.horizontal_wrapped(|ui| {
        ui.label("Reserve:");
        if player.reserve_count() == 0 {
            ui.label(RichText::new("empty").italics());
        }
        if player.master {
            meeple_icon(
                ui,
                Meeple {
                    player: player.color,
                    rank: Rank::Master,
                },
                22.0,
            )
            .on_hover_text("Master (influence 2)");
        }
        for _ in 0..player.apprentices {
            meeple_icon(
                ui,
                Meeple {
                    player: player.color,
                    rank: Rank::Apprentice,
                },
                18.0,
            )
            .on_hover_text("Apprentice (influence 1)");
        }
    });
}

fn spellbook_ui(player: &PlayerState, teach: bool, ui: &mut Ui) {
    ui.horizontal(|ui| {
        ui.spacing_mut().item_spacing.x = 4.0;
        ui.label("Spells:");
        for spell in SpellId::ALL {
            let (rect, response) =
                ui.allocate_exact_size(Vec2::new(25.0, 30.0), egui::Sense::hover());
            let occupied = player.spell(spell);
            ui.painter().rect_stroke(
                rect,
                3.0,
                Stroke::new(1.0, ui.visuals().widgets.noninteractive.fg_stroke.color),
                StrokeKind::Inside,
            );
            ui.painter().text(
                rect.left_top() + Vec2::new(3.0, 1.0),
                egui::Align2::LEFT_TOP,
                spell.number().to_string(),
                egui::FontId::proportional(10.0),
                ui.visuals().text_color(),
            );
            if let Some(rank) = occupied {
                let meeple_rect = egui::Rect::from_center_size(
                    rect.center() + Vec2::new(3.0, 4.0),
                    Vec2::new(14.0, 18.0),
                );
                paint_meeple(
                    ui,
                    meeple_rect,
                    Meeple {
                        player: player.color,
                        rank,
                    },
                );
            }
            let text = format!(
                "{spell}: {}{}",
                if teach { spell.description() } else { "" },
                if occupied.is_some() {
                    " (a meeple is on it: 1 prestige at the end, or cast it)"
                } else {
                    ""
                }
            );
            response.on_hover_text(text);
        }
    });
}
