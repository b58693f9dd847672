//! The mirrored table: the three outer towers in a triangle around the central tower, each
//! with its level, its tile's restriction as dice icons, and its three pillars.

use std::collections::BTreeSet;

use egui::accesskit::Role;
use egui::{
    Align2, Color32, FontId, Pos2, Rect, RichText, Sense, Stroke, StrokeKind, Ui, UiBuilder, Vec2,
    WidgetInfo,
};
use rules::{
    Action, BonusTarget, Die, DieColor, Meeple, MeepleSource, PillarBonus, PillarIndex, Tower,
    TowerId,
};

use crate::app::{Command, GameView};
use crate::paint::{FLAG_RED, FLAG_STROKE, LEGAL_GREEN, die_icon, paint_die, paint_meeple};

const CARD: Vec2 = Vec2::new(236.0, 176.0);

/// Where each tower's card goes, relative to the table's centre: A at the top, B and C at
/// the bottom corners, the central tower in the middle.
fn card_center(tower: TowerId, center: Pos2, radius: f32) -> Pos2 {
    let (dx, dy) = match tower {
        TowerId::A => (0.0, -1.0),
        TowerId::B => (-0.866, 0.5),
        TowerId::C => (0.866, 0.5),
        TowerId::Central => (0.0, 0.0),
    };
    center + Vec2::new(dx * radius * 1.25, dy * radius)
}

/// The pillars the current player can use now: placements of the selected die (or of any
/// die when none is selected), or the targets of the pending bonus.
pub fn legal_targets(view: &GameView, legal: &[Action]) -> BTreeSet<(TowerId, PillarIndex)> {
    legal
        .iter()
        .filter_map(|action| match *action {
            Action::Place {
                die,
                rank,
                tower,
                pillar,
                ..
            } if view.selected_die.is_none_or(|d| d == die) && rank == view.rank => {
                Some((tower, pillar))
            }
            Action::BonusMeeple {
                to: BonusTarget::Pillar { tower, pillar },
                ..
            } => Some((tower, pillar)),
            _ => None,
        })
        .collect()
}

/// The table; `targets`: the pillars teach mode lights (empty without it).
pub fn table_ui(
    view: &GameView,
    targets: &BTreeSet<(TowerId, PillarIndex)>,
    teach: bool,
    ui: &mut Ui,
    commands: &mut Vec<Command>,
) {
    let state = view.session.state();
    let area = ui.available_rect_before_wrap();
    // Large enough that no two cards overlap: the bottom corners must clear the central
    // card sideways (1.25 * 0.866 * radius >= card width) and tower A must clear it upwards.
    let radius = (area.height() / 2.0 - CARD.y / 2.0 - 8.0)
        .min((area.width() / 2.0 - CARD.x / 2.0) / 1.1)
        .max(CARD.x / (1.25 * 0.866) + 4.0);
    let center = area.center();
    ui.allocate_rect(area, Sense::hover());
    for tower in state.towers() {
        let rect = Rect::from_center_size(card_center(tower.id, center, radius), CARD);
        ui.scope_builder(UiBuilder::new().max_rect(rect), |ui| {
            tower_ui(view, tower, targets, teach, ui, commands);
        });
    }
}

fn tower_ui(
    view: &GameView,
    tower: &Tower,
    targets: &BTreeSet<(TowerId, PillarIndex)>,
    teach: bool,
    ui: &mut Ui,
    commands: &mut Vec<Command>,
) {
    let state = view.session.state();
    egui::Frame::group(ui.style())
        .fill(ui.visuals().faint_bg_color)
        .show(ui, |ui| {
            ui.set_width(CARD.x - 14.0);
            ui.horizontal(|ui| {
                let name = match tower.id {
                    TowerId::Central => "Central tower".to_owned(),
                    id => format!("Tower {id:?}"),
                };
                let title =
                    ui.label(RichText::new(format!("{name} · level {}", tower.level)).strong());
                title.on_hover_text(tile_explanation(tower));
                if tower.finished {
                    ui.label(RichText::new("finished").italics().color(Color32::GRAY))
                        .on_hover_text("The floor stack ran out: this tower takes no more dice.");
                }
                let new_floor = tower.level > 1 && tower.pillars.iter().all(Option::is_none);
                let can_name =
                    !tower.finished && !state.is_over() && state.floor_stack().next().is_some();
                if new_floor && can_name {
                    ui.menu_button("tile…", |ui| {
                        ui.label("The tile on this floor is:");
                        for tile in state.floor_stack() {
                            if ui
                                .button(format!("{}: {}", tile.name, tile.restriction))
                                .clicked()
                            {
                                commands.push(Command::Play(Action::SetTile {
                                    tower: tower.id,
                                    tile: tile.id.clone(),
                                }));
                            }
                        }
                    })
                    .response
                    .on_hover_text("Name the tile that was actually drawn for this floor");
                }
            });
            restriction_ui(tower, ui).on_hover_text(tile_explanation(tower));
            ui.horizontal(|ui| {
                for pillar in PillarIndex::ALL {
                    let highlighted = targets.contains(&(tower.id, pillar));
                    if pillar_ui(view, tower, pillar, highlighted, teach, ui).clicked()
                        && let Some(action) = click_action(view, tower.id, pillar)
                    {
                        commands.push(Command::Play(action));
                    }
                }
            });
        });
}

/// The restriction of the top floor as dice icons: one die per allowed colour and value.
fn restriction_ui(tower: &Tower, ui: &mut Ui) -> egui::Response {
    ui.horizontal_wrapped(|ui| {
        ui.spacing_mut().item_spacing.x = 2.0;
        let Some(restriction) = tower.restriction() else {
            ui.label("any die");
            return;
        };
        let all_values = restriction.values.len() == 6;
        for &color in &restriction.colors {
            if all_values {
                die_icon(ui, Die::new(color, rules::DieValue::ALL[5]), 16.0);
                ui.label(RichText::new("any").small());
            } else {
                for &value in &restriction.values {
                    die_icon(ui, Die::new(color, value), 16.0);
                }
            }
            ui.add_space(4.0);
        }
        if restriction.all_different {
            ui.label(RichText::new("≠ all different").small());
        }
        if restriction.colors.len() == DieColor::ALL.len()
            && all_values
            && !restriction.all_different
        {
            ui.label("any die");
        }
    })
    .response
}

fn tile_explanation(tower: &Tower) -> String {
    let mut text = match tower.restriction() {
        Some(restriction) => format!("Tile {}: this floor takes {restriction}.", tower.tile.name),
        None => {
            "The central tower takes any die, even one that would fit an outer tower.".to_owned()
        }
    };
    if tower.restriction().is_some_and(|r| r.all_different) {
        text.push_str(" No value may repeat on this floor.");
    }
    for pillar in PillarIndex::ALL {
        let bonus = tower.bonus(pillar);
        text.push_str(&format!("\n{pillar}: {bonus} ({})", bonus.describe()));
    }
    if let Some(source) = &tower.tile.source {
        text.push_str(&format!("\nTile data: {source}"));
    }
    text
}

fn bonus_short(bonus: PillarBonus) -> &'static str {
    match bonus {
        PillarBonus::TwoPrestige => "+2",
        PillarBonus::LevelPrestige => "+lvl",
        PillarBonus::ExtraMeeple => "+meeple",
        PillarBonus::Spell => "spell",
    }
}

/// Whether `action` puts something on `pillar` of `tower`.
fn refused_at(action: &Action, tower: TowerId, pillar: PillarIndex) -> bool {
    matches!(*action, Action::Place { tower: t, pillar: p, .. } if t == tower && p == pillar)
}

fn pillar_ui(
    view: &GameView,
    tower: &Tower,
    pillar: PillarIndex,
    highlighted: bool,
    teach: bool,
    ui: &mut Ui,
) -> egui::Response {
    let (rect, response) = ui.allocate_exact_size(Vec2::new(68.0, 92.0), Sense::click());
    let painter = ui.painter();
    let visuals = ui.visuals();
    // The flagged placement, in the flag's red, its die and meeple drawn where they were
    // tried when the pillar is empty.
    let occupant = tower.pillar(pillar);
    let flagged = view.flag.as_ref().map(|flag| &flag.action);
    let flagged_here = flagged.is_some_and(|action| refused_at(action, tower.id, pillar));
    let refused = match flagged {
        Some(&Action::Place {
            player, die, rank, ..
        }) if flagged_here && occupant.is_none() => Some((die, Meeple { player, rank })),
        _ => None,
    };
    let stroke = if flagged_here {
        Stroke::new(3.0, FLAG_STROKE)
    } else if highlighted {
        Stroke::new(2.5, LEGAL_GREEN)
    } else if response.hovered() {
        visuals.widgets.hovered.fg_stroke
    } else {
        Stroke::new(1.0, visuals.widgets.noninteractive.bg_stroke.color)
    };
    let tint = if flagged_here {
        Some(FLAG_RED)
    } else {
        highlighted.then_some(LEGAL_GREEN)
    };
    if let Some(tint) = tint {
        let [r, g, b, _] = tint.to_array();
        painter.rect_filled(rect, 6.0, Color32::from_rgba_unmultiplied(r, g, b, 40));
    }
    painter.rect_stroke(rect, 6.0, stroke, StrokeKind::Inside);
    let bonus = tower.bonus(pillar);
    painter.text(
        rect.center_top() + Vec2::new(0.0, 3.0),
        Align2::CENTER_TOP,
        bonus_short(bonus),
        FontId::proportional(11.0),
        visuals.weak_text_color(),
    );
    let die = occupant.and_then(|p| p.die).or(refused.map(|(die, _)| die));
    if let Some(die) = die {
        let die_rect = Rect::from_min_size(rect.min + Vec2::new(6.0, 22.0), Vec2::splat(34.0));
        paint_die(ui, die_rect, die);
    }
    let meeple = occupant.and_then(|p| p.meeple).or(refused.map(|(_, m)| m));
    if let Some(meeple) = meeple {
        let x = if die.is_some() { 42.0 } else { 22.0 };
        let meeple_rect = Rect::from_min_size(rect.min + Vec2::new(x, 44.0), Vec2::new(22.0, 28.0));
        paint_meeple(ui, meeple_rect, meeple);
    }
    let name = match tower.id {
        TowerId::Central => format!("central tower pillar {}", pillar.number()),
        id => format!("tower {id:?} pillar {}", pillar.number()),
    };
    let mut label = match occupant {
        Some(p) => format!("{name}: {p}"),
        None => format!("{name}: empty"),
    };
    if let Some((die, meeple)) = refused {
        label.push_str(&format!(" (refused here: the {die} with {meeple})"));
    }
    response.widget_info(|| WidgetInfo::labeled(Role::Button, true, &label));
    let mut hover = format!("{label}\nBonus: {bonus} ({})", bonus.describe());
    if teach && occupant.is_none() && view.selected_die.is_none() {
        hover.push_str("\nPick a die from the roll, then click an empty pillar.");
    }
    response.on_hover_text(hover)
}

/// What clicking a pillar means now: the pending bonus's meeple goes there, or the selected
/// die is placed there.
fn click_action(view: &GameView, tower: TowerId, pillar: PillarIndex) -> Option<Action> {
    let state = view.session.state();
    let turn = state.turn()?;
    let me = state.player(turn.player)?;
    if turn.pending.is_some() {
        let from = if me.has_in_reserve(view.rank) {
            MeepleSource::Reserve(view.rank)
        } else if let Some(rank) = me.reserve_ranks().next() {
            MeepleSource::Reserve(rank)
        } else {
            MeepleSource::Spellbook(
                rules::SpellId::ALL
                    .into_iter()
                    .find(|&s| me.spell(s).is_some())?,
            )
        };
        return Some(Action::BonusMeeple {
            player: turn.player,
            from,
            to: BonusTarget::Pillar { tower, pillar },
        });
    }
    Some(Action::Place {
        player: turn.player,
        die: view.selected_die?,
        rank: view.rank,
        tower,
        pillar,
    })
}
