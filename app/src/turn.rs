//! The turn bar: rolling, the rolled dice, the meeple to place, the pending bonus, spells,
//! ending the turn; and the flag that refuses an illegal action.

use std::collections::BTreeMap;

use egui::{Color32, RichText, Ui};
use rules::{Action, GameState, MeepleSource, Phase, PillarBonus, Rank, SpellId, Turn};

use crate::app::{Command, GameView};
use crate::paint::{FLAG_RED, die_button};

/// A flag nobody can miss: what was refused and why, with the rule and an override.
pub fn flag_ui(view: &GameView, teach: bool, ui: &mut Ui, commands: &mut Vec<Command>) {
    let Some(flag) = &view.flag else {
        return;
    };
    egui::Frame::new()
        .fill(FLAG_RED)
        .inner_margin(10.0)
        .corner_radius(6.0)
        .show(ui, |ui| {
            ui.set_width(ui.available_width());
            ui.label(
                RichText::new(format!("Not allowed: {}", flag.violation))
                    .color(Color32::WHITE)
                    .size(17.0)
                    .strong(),
            );
            ui.label(
                RichText::new(format!("Tried: {}", flag.action)).color(Color32::from_gray(230)),
            );
            if teach {
                ui.label(
                    RichText::new(format!("Rule: {}", flag.violation.rule()))
                        .color(Color32::from_gray(235))
                        .italics(),
                );
            }
            ui.horizontal(|ui| {
                if flag.violation.can_be_overridden()
                    && ui
                        .button("Allow anyway")
                        .on_hover_text(
                            "The table agreed to waive this restriction; the log keeps it.",
                        )
                        .clicked()
                {
                    commands.push(Command::Override);
                }
                if ui.button("Dismiss").clicked() {
                    commands.push(Command::DismissFlag);
                }
            });
        });
    ui.add_space(6.0);
}

pub fn turn_ui(
    view: &GameView,
    legal: &[Action],
    teach: bool,
    ui: &mut Ui,
    commands: &mut Vec<Command>,
) {
    let state = view.session.state();
    ui.add_space(4.0);
    match state.phase() {
        Phase::Over(score) => {
            let winners: Vec<&str> = score.winners.iter().map(|p| p.name()).collect();
            ui.horizontal(|ui| {
                ui.label(
                    RichText::new(format!(
                        "The game is over. Winner{}: {} ({}).",
                        if winners.len() > 1 { "s" } else { "" },
                        winners.join(", "),
                        score.decided_by
                    ))
                    .size(17.0)
                    .strong(),
                );
                if ui.button("New game").clicked() {
                    commands.push(Command::ShowNewGame);
                }
            });
        }
        Phase::Roll => roll_ui(state, ui, commands),
        Phase::Turn(turn) => turn_bar_ui(view, state, turn, legal, teach, ui, commands),
    }
    ui.add_space(4.0);
}

fn roll_ui(state: &GameState, ui: &mut Ui, commands: &mut Vec<Command>) {
    ui.label(
        RichText::new(format!(
            "Round {} of {}: {} draws {} dice from the bag and rolls them.",
            state.round(),
            state.rounds(),
            state.first_player(),
            state.dice_per_round()
        ))
        .strong(),
    );
    ui.horizontal(|ui| {
        if ui
            .button("Roll the dice")
            .on_hover_text("Draw and roll at random")
            .clicked()
        {
            commands.push(Command::RollRandom);
        }
        ui.label("or enter the dice rolled at the table:");
        let id = ui.scope_id().with("roll-entry");
        let mut text: String = ui.data_mut(|d| d.get_temp(id).unwrap_or_default());
        let edit = ui.add(
            egui::TextEdit::singleline(&mut text)
                .hint_text("yellow2 pink5 blue1 purple6 yellow3")
                .desired_width(300.0),
        );
        let parsed = Action::from_notation(&format!("roll {text}"));
        let submit = ui.add_enabled(
            parsed.is_ok() && !text.trim().is_empty(),
            egui::Button::new("Enter roll"),
        );
        let entered = submit.clicked()
            || (edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)));
        if entered && let Ok(action) = &parsed {
            commands.push(Command::Play(action.clone()));
            text.clear();
        }
        if let Err(error) = &parsed
            && !text.trim().is_empty()
        {
            ui.colored_label(ui.visuals().warn_fg_color, error);
        }
        ui.data_mut(|d| d.insert_temp(id, text));
    });
}

fn turn_bar_ui(
    view: &GameView,
    state: &GameState,
    turn: &Turn,
    legal: &[Action],
    teach: bool,
    ui: &mut Ui,
    commands: &mut Vec<Command>,
) {
    let Some(me) = state.player(turn.player) else {
        return;
    };
    ui.horizontal(|ui| {
        ui.label(
            RichText::new(format!(
                "Round {} of {} · {}'s turn",
                state.round(),
                state.rounds(),
                turn.player
            ))
            .strong()
            .size(16.0),
        );
        ui.separator();
        ui.label("Rolled:");
        for &die in state.roll() {
            let selected = view.selected_die == Some(die);
            let response = die_button(ui, die, 34.0, selected);
            if response.clicked() && turn.placed.is_none() {
                commands.push(Command::SelectDie(if selected { None } else { Some(die) }));
            }
        }
        ui.separator();
        for rank in Rank::ALL {
            let count = match rank {
                Rank::Apprentice => me.apprentices,
                Rank::Master => u8::from(me.master),
            };
            let label = match rank {
                Rank::Apprentice => format!("Apprentice ({count})"),
                Rank::Master => format!("Master ({count})"),
            };
            let enabled = count > 0;
            if ui
                .add_enabled(enabled, egui::Button::selectable(view.rank == rank, label))
                .clicked()
            {
                commands.push(Command::SelectRank(rank));
            }
        }
    });
    if let Some(pending) = turn.pending {
        bonus_ui(pending, legal, ui, commands);
    }
    ui.horizontal_wrapped(|ui| {
        spells_ui(legal, teach, ui, commands);
        for action in legal {
            if let Action::Recall { spell, .. } = action
                && ui
                    .button(format!("Take back the meeple on {}", spell.name()))
                    .on_hover_text(
                        "Your reserve is empty: free a meeple without the spell's effect.",
                    )
                    .clicked()
            {
                commands.push(Command::Play(action.clone()));
            }
        }
        if let Some(end) = legal.iter().find(|a| matches!(a, Action::EndTurn { .. })) {
            let label = if turn.placed.is_some() {
                format!("End {}'s turn", turn.player)
            } else {
                "Pass (no placement possible)".to_owned()
            };
            if ui.button(RichText::new(label).strong()).clicked() {
                commands.push(Command::Play(end.clone()));
            }
        }
    });
    if teach {
        ui.label(RichText::new(next_step_hint(view, turn)).italics());
    }
}

fn next_step_hint(view: &GameView, turn: &Turn) -> String {
    if turn.pending.is_some() {
        "Resolve the bonus: click an empty pillar of another tower, use the buttons above, or decline.".to_owned()
    } else if turn.placed.is_some() {
        "Cast spells if you like, then end the turn.".to_owned()
    } else if view.selected_die.is_none() {
        "Pick a die from the roll; the pillars where it may go light up in green.".to_owned()
    } else {
        "Click a lit pillar to place the die with your meeple.".to_owned()
    }
}

fn bonus_ui(
    pending: rules::PendingBonus,
    legal: &[Action],
    ui: &mut Ui,
    commands: &mut Vec<Command>,
) {
    ui.horizontal_wrapped(|ui| {
        let what = match pending.bonus {
            PillarBonus::Spell => format!(
                "Spell bonus from {}: put a meeple from the reserve on {}.",
                pending.tower, pending.spell
            ),
            _ => format!(
                "Extra meeple from {}: click an empty pillar of another tower (no die, no bonus, it stays for good), or put it on {}.",
                pending.tower, pending.spell
            ),
        };
        ui.label(RichText::new(what).strong().color(ui.visuals().warn_fg_color));
        for action in legal {
            match action {
                Action::BonusMeeple {
                    from,
                    to: rules::BonusTarget::Spellbook,
                    ..
                } => {
                    let source = match from {
                        MeepleSource::Reserve(rank) => format!("{rank}"),
                        MeepleSource::Spellbook(spell) => format!("meeple from {}", spell.name()),
                    };
                    if ui.button(format!("{source} on {}", pending.spell.name())).clicked() {
                        commands.push(Command::Play(action.clone()));
                    }
                }
                Action::SkipBonus { .. } if ui.button("Decline the bonus").clicked() => {
                    commands.push(Command::Play(action.clone()));
                }
                _ => {}
            }
        }
    });
}

/// One menu per castable spell, listing its legal effects.
fn spells_ui(legal: &[Action], teach: bool, ui: &mut Ui, commands: &mut Vec<Command>) {
    let mut by_spell: BTreeMap<(SpellId, bool), Vec<&Action>> = BTreeMap::new();
    for action in legal {
        if let Action::Cast {
            effect,
            via_manipulation,
            ..
        } = action
        {
            by_spell
                .entry((effect.spell(), *via_manipulation))
                .or_default()
                .push(action);
        }
    }
    for ((spell, via), actions) in by_spell {
        let title = if via {
            format!("Cast {} via Manipulation", spell.name())
        } else {
            format!("Cast {}", spell.name())
        };
        let response = ui.menu_button(title, |ui| {
            for action in actions {
                if let Action::Cast { effect, .. } = action
                    && ui.button(effect.to_string()).clicked()
                {
                    commands.push(Command::Play(action.clone()));
                }
            }
        });
        if teach {
            response.response.on_hover_text(spell.description());
        }
    }
}
