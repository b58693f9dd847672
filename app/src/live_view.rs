//! The live view: the camera's image scaled to fit, every reading drawn over it, the status
//! line, and the referee's active flag and desync. It only reads the feed's newest snapshot
//! and queues commands; the feed runs on its own thread (`live.rs`).

use std::collections::BTreeSet;
use std::sync::Arc;

use egui::accesskit::Role;
use egui::{
    Align2, Color32, FontId, Rect, RichText, Sense, Shape, Stroke, StrokeKind, TextureHandle,
    TextureOptions, Ui, Vec2, WidgetInfo,
};

use rules::{Action, Die, DieColor, DieValue, PillarIndex, Rank, TowerId};
use vision::CameraStatus;

use crate::app::Command;
use crate::live::{
    FeedPhase, LiveFeed, LiveFrame, LiveRequest, LiveSnapshot, fit_image, overlay_items,
    screen_rect,
};
use crate::paint::{FLAG_RED, LEGAL_GREEN};

/// A feed being watched, with what the window keeps of it.
pub struct LiveSession {
    pub feed: LiveFeed,
    /// The version of the referee's record that the session mirrors.
    pub mirrored: u64,
    /// The frame of the referee's flag last put on the table.
    pub flag_shown: Option<u64>,
    /// The newest frame on the GPU, and its number.
    texture: Option<(u64, TextureHandle)>,
}

impl LiveSession {
    pub fn new(feed: LiveFeed) -> Self {
        Self {
            feed,
            mirrored: 0,
            flag_shown: None,
            texture: None,
        }
    }

    /// The texture of the snapshot's frame, uploaded when the frame is new.
    fn texture(&mut self, ui: &Ui, snapshot: &LiveSnapshot) -> Option<&TextureHandle> {
        let frame = snapshot.frame.as_ref()?;
        match &mut self.texture {
            Some((number, handle)) if *number != frame.number => {
                handle.set(Arc::clone(&frame.image), TextureOptions::LINEAR);
                *number = frame.number;
            }
            Some(_) => {}
            None => {
                let handle = ui.ctx().load_texture(
                    "tablesight-live",
                    Arc::clone(&frame.image),
                    TextureOptions::LINEAR,
                );
                self.texture = Some((frame.number, handle));
            }
        }
        self.texture.as_ref().map(|(_, handle)| handle)
    }
}

const DESYNC_ORANGE: Color32 = Color32::from_rgb(170, 90, 10);
const QUESTION_BLUE: Color32 = Color32::from_rgb(30, 70, 130);
/// A legal pillar's ring on the image: about a die's half-width at 1280x720 from a webcam
/// over the mat (pixels of the frame).
const LEGAL_RING_PX: f32 = 16.0;

/// A coloured box across the view, for a flag, a desync or a camera in trouble.
fn banner(ui: &mut Ui, fill: Color32, contents: impl FnOnce(&mut Ui)) {
    egui::Frame::new()
        .fill(fill)
        .inner_margin(8.0)
        .corner_radius(6.0)
        .show(ui, |ui| {
            ui.set_width(ui.available_width());
            contents(ui);
        });
}

/// What is wrong with the camera, in words; `None` while it is starting or live.
fn camera_trouble(status: &CameraStatus) -> Option<String> {
    match status {
        CameraStatus::Starting | CameraStatus::Live => None,
        CameraStatus::Stalled { .. } => Some("The camera sends no frames.".to_owned()),
        CameraStatus::Lost { reason } => Some(format!("The camera is lost: {reason}.")),
        CameraStatus::Reconnecting => Some("Opening the camera again…".to_owned()),
    }
}

/// The live view: header, status, image with readings, flag, desync, the referee's events;
/// `targets`: the pillars teach mode lights on the image (empty without it).
pub fn live_view_ui(
    live: &mut LiveSession,
    targets: &BTreeSet<(TowerId, PillarIndex)>,
    ui: &mut Ui,
    commands: &mut Vec<Command>,
) {
    let snapshot = live.feed.snapshot();
    ui.horizontal(|ui| {
        ui.heading("Camera");
        let label = match snapshot.phase {
            FeedPhase::Ended | FeedPhase::Stopped | FeedPhase::Failed(_) => "Close the camera view",
            FeedPhase::Starting | FeedPhase::Running => "Stop watching",
        };
        if ui
            .button(label)
            .on_hover_text("The game stays; it can go on by clicks")
            .clicked()
        {
            commands.push(Command::StopLive);
        }
    });
    ui.label(snapshot.status_line());
    if let Some(words) = snapshot.camera.as_ref().and_then(camera_trouble) {
        banner(ui, DESYNC_ORANGE, |ui| {
            ui.label(RichText::new(words).color(Color32::WHITE).strong());
            ui.label(
                    RichText::new(
                        "The game is kept. Refereeing goes on when frames come again: plug the camera in again, or choose another (Camera > Watch a camera…).",
                    )
                    .color(Color32::WHITE),
                );
        });
    }
    if let Some(problem) = &snapshot.problem {
        ui.colored_label(ui.visuals().warn_fg_color, problem.as_str());
    }
    image_ui(live, &snapshot, targets, ui);
    if let Some(flag) = &snapshot.referee.active_flag {
        banner(ui, FLAG_RED, |ui| {
            ui.label(
                RichText::new(format!("Illegal move seen: {}", flag.violation))
                    .color(Color32::WHITE)
                    .strong(),
            );
            ui.label(
                RichText::new(format!("Rule: {}", flag.rule))
                    .color(Color32::from_gray(235))
                    .italics(),
            );
            ui.label(
                RichText::new("Put the piece back, or allow the move.")
                    .color(Color32::from_gray(230)),
            );
            if flag.can_override
                && ui
                    .button("Allow the move seen")
                    .on_hover_text("The table agreed to waive this restriction; the log keeps it.")
                    .clicked()
            {
                commands.push(Command::Live(LiveRequest::Override));
            }
        });
    }
    if let Some(desync) = &snapshot.referee.active_desync {
        banner(ui, DESYNC_ORANGE, |ui| {
            ui.label(
                RichText::new(format!(
                    "The table and the game differ (frame {}): no legal move explains it.",
                    desync.frame
                ))
                .color(Color32::WHITE)
                .strong(),
            );
            for difference in &desync.differences {
                ui.label(RichText::new(format!("• {difference}")).color(Color32::WHITE));
            }
            ui.label(
                RichText::new(
                    "Put the table back as the game has it, play what happened by clicks on the table below, or accept the closest legal moves.",
                )
                .color(Color32::from_gray(230)),
            );
            if !desync.closest.is_empty() {
                ui.label(RichText::new("Closest legal moves:").color(Color32::WHITE));
                for action in &desync.closest {
                    ui.label(RichText::new(format!("  {action}")).color(Color32::WHITE));
                }
                if ui
                    .button("Accept these moves")
                    .on_hover_text("The referee plays them; what still differs is a misreading or a piece to put back.")
                    .clicked()
                {
                    commands.push(Command::Live(LiveRequest::Play(desync.closest.clone())));
                }
            }
        });
    }
    let undecided = &snapshot.referee.undecided;
    // Asked only while nothing else stands: a flag's move is to be put back first.
    let standing =
        snapshot.referee.active_flag.is_some() || snapshot.referee.active_desync.is_some();
    if !undecided.is_empty() && !standing {
        banner(ui, QUESTION_BLUE, |ui| {
            ui.label(
                RichText::new("The table fits more than one move. Which was it?")
                    .color(Color32::WHITE)
                    .strong(),
            );
            let differing = referee::differing_moves(undecided);
            for actions in undecided {
                let words = |shown: Vec<&Action>| {
                    shown
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join("; ")
                };
                let all = words(actions.iter().collect());
                let told = words(differing.iter().filter_map(|&i| actions.get(i)).collect());
                if ui
                    .button(told)
                    .on_hover_text(format!(
                        "The referee plays it. Else the next tables decide. All of it: {all}."
                    ))
                    .clicked()
                {
                    commands.push(Command::Live(LiveRequest::Play(actions.clone())));
                }
            }
        });
    }
    // Asked beside a flag or a desync too: a die read wrong may be what the table differs by.
    let unsure = &snapshot.referee.unsure_in_roll;
    if !unsure.is_empty() {
        banner(ui, QUESTION_BLUE, |ui| {
            ui.label(
                RichText::new("The camera was not sure of a die of the roll. What does it show?")
                    .color(Color32::WHITE)
                    .strong(),
            );
            for (was, odds) in unsure {
                // The values offered are of the colour read until the players pick another
                // (blue and purple look alike in dim light); the pick is kept while asked.
                let picked = egui::Id::unique(("the colour of an unsure die of the roll", *was));
                let mut color = ui.data(|d| d.get_temp(picked)).unwrap_or(was.color);
                // A die that no table read as it is (taken under a hand and hidden at once
                // under its meeple): the record holds the likeliest die the rules allow.
                let unseen = snapshot.referee.unseen_in_roll.contains(was);
                ui.horizontal_wrapped(|ui| {
                    let told = if unseen {
                        format!("Under a meeple, not read (the likeliest: the {was}):")
                    } else {
                        format!("Read as the {was}:")
                    };
                    ui.label(RichText::new(told).color(Color32::WHITE));
                    let values = odds.values.unwrap_or_default();
                    for (value, p) in DieValue::ALL.into_iter().zip(values) {
                        let is = Die::new(color, value);
                        let request = LiveRequest::PutRight { was: *was, is };
                        let as_read = is == *was && !unseen;
                        // The reader's probability under its value, where it gave it a chance.
                        ui.vertical(|ui| {
                            answer_button(ui, &is.to_string(), as_read, request, commands);
                            ui.label(odds_words(p));
                        });
                    }
                });
                ui.horizontal_wrapped(|ui| {
                    ui.label(RichText::new("Its colour:").small().color(Color32::WHITE));
                    let colors = odds.colors.unwrap_or_default();
                    for (other, p) in DieColor::ALL.into_iter().zip(colors) {
                        let selected = other == color;
                        let chip = ui
                            .vertical(|ui| {
                                let chip = ui.selectable_label(selected, other.name());
                                ui.label(odds_words(p));
                                chip
                            })
                            .inner;
                        // Named with the die, for a screen reader: one row a die asked.
                        let name = format!("{other}, for the {was}");
                        chip.widget_info(|| {
                            WidgetInfo::selected(Role::Button, true, selected, &name)
                        });
                        if chip.clicked() {
                            color = other;
                        }
                    }
                });
                ui.data_mut(|d| d.insert_temp(picked, color));
            }
        });
    }
    let ranks = &snapshot.referee.unsure_ranks;
    if !ranks.is_empty() {
        banner(ui, QUESTION_BLUE, |ui| {
            ui.label(
                RichText::new("The camera was not sure of a meeple's rank. Which was it?")
                    .color(Color32::WHITE)
                    .strong(),
            );
            for (index, action) in ranks {
                let Some(read) = referee::meeple_put(action).map(|m| m.rank) else {
                    continue;
                };
                ui.label(RichText::new(action.to_string()).color(Color32::WHITE));
                ui.horizontal_wrapped(|ui| {
                    for rank in [Rank::Apprentice, Rank::Master] {
                        let name = match rank {
                            Rank::Apprentice => "an apprentice",
                            Rank::Master => "the master",
                        };
                        let request = LiveRequest::NameRank {
                            index: *index,
                            rank,
                        };
                        answer_button(ui, name, rank == read, request, commands);
                    }
                });
            }
        });
    }
    egui::CollapsingHeader::new("What the referee saw")
        .default_open(false)
        .show(ui, |ui| {
            if snapshot.referee.events.is_empty() {
                ui.label("Nothing yet.");
            }
            for event in snapshot.referee.events.iter().rev().take(12) {
                ui.label(RichText::new(event.as_str()).small());
            }
        });
}

/// The reader's probability of an answer, in small print; nothing under one chance in
/// twenty.
fn odds_words(p: f32) -> RichText {
    let words = if p >= 0.05 {
        format!("{:.0} %", p * 100.0)
    } else {
        String::new()
    };
    RichText::new(words).small().color(Color32::WHITE)
}

/// A button that answers one of the referee's questions with `request`, "(as read)" after
/// the answer the camera gave.
fn answer_button(
    ui: &mut Ui,
    words: &str,
    as_read: bool,
    request: LiveRequest,
    commands: &mut Vec<Command>,
) {
    let words = if as_read {
        format!("{words} (as read)")
    } else {
        words.to_owned()
    };
    if ui
        .button(words)
        .on_hover_text("The referee records it. Else the next tables may show it.")
        .clicked()
    {
        commands.push(Command::Live(request));
    }
}

/// The frame scaled to the panel's width, with every reading over it.
fn image_ui(
    live: &mut LiveSession,
    snapshot: &LiveSnapshot,
    targets: &BTreeSet<(TowerId, PillarIndex)>,
    ui: &mut Ui,
) {
    let image_size = snapshot
        .frame
        .as_ref()
        .map_or(Vec2::new(1280.0, 720.0), |f| {
            Vec2::new(f.image.size[0] as f32, f.image.size[1] as f32)
        });
    let width = ui.available_width().max(160.0);
    let height = width * image_size.y / image_size.x.max(1.0);
    let (area, response) = ui.allocate_exact_size(Vec2::new(width, height), Sense::hover());
    let painter = ui.painter_at(area);
    painter.rect_filled(area, 4.0, Color32::from_gray(24));
    let flagged = snapshot.referee.active_flag.is_some();
    let Some(texture) = live.texture(ui, snapshot) else {
        let waiting = match &snapshot.phase {
            FeedPhase::Failed(why) => format!("The camera view failed: {why}"),
            _ => "Waiting for the first frame…".to_owned(),
        };
        painter.text(
            area.center(),
            Align2::CENTER_CENTER,
            &waiting,
            FontId::proportional(15.0),
            Color32::from_gray(200),
        );
        response.widget_info(|| WidgetInfo::labeled(Role::Image, true, &waiting));
        return;
    };
    let shown = fit_image(image_size, area);
    let uv = Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0));
    painter.image(texture.id(), shown, uv, Color32::WHITE);
    if let Some(frame) = &snapshot.frame {
        covered_ui(&painter, ui, &response, frame, image_size, shown);
        legal_pillars_ui(&painter, ui, &response, frame, targets, image_size, shown);
    }
    let items = snapshot
        .frame
        .as_ref()
        .map(|f| overlay_items(&f.reading))
        .unwrap_or_default();
    let flag = snapshot.referee.active_flag.as_ref();
    for (i, item) in items.iter().enumerate() {
        let rect = screen_rect(item.box_px, image_size, shown).expand(1.5);
        overlay_box(&painter, rect, item.color, item.uncertain);
        let at_flag = flag.is_some_and(|flag| item.flagged_by(flag));
        if at_flag {
            // The flagged move where it happened: a red ring and the word under the box.
            painter.rect_stroke(
                rect.expand(3.0),
                4.0,
                Stroke::new(3.0, FLAG_RED),
                StrokeKind::Outside,
            );
            painter.text(
                rect.center_bottom() + Vec2::new(0.0, 5.0),
                Align2::CENTER_TOP,
                "ILLEGAL",
                FontId::proportional(11.0),
                FLAG_RED,
            );
        }
        let tag = item.tag.as_str();
        let galley =
            painter.layout_no_wrap(tag.to_owned(), FontId::proportional(10.0), Color32::WHITE);
        let at = rect.left_top() - Vec2::new(0.0, galley.size().y + 1.0);
        let back = Rect::from_min_size(at, galley.size()).expand(1.0);
        painter.rect_filled(back, 2.0, item.color.gamma_multiply(0.8).to_opaque());
        painter.galley(at, galley, Color32::WHITE);
        let label = if at_flag {
            format!("{}: {} (the flagged move)", item.kind, item.label)
        } else {
            format!("{}: {}", item.kind, item.label)
        };
        ui.interact(rect, response.id.with(i), Sense::hover())
            .on_hover_text(&label)
            .widget_info(|| WidgetInfo::labeled(Role::Image, true, &label));
    }
    if flagged {
        painter.rect_stroke(shown, 0.0, Stroke::new(4.0, FLAG_RED), StrokeKind::Inside);
    }
    if let Some(frame) = &snapshot.frame {
        let (dice, meeples) = (frame.reading.dice.len(), frame.reading.meeples.len());
        let caption = format!(
            "Camera image: frame {}, {dice} dice and {meeples} meeples read",
            frame.number
        );
        response.widget_info(|| WidgetInfo::labeled(Role::Image, true, &caption));
    }
}

/// The zones under a hand, shaded: nothing there is refereed until the hand leaves.
fn covered_ui(
    painter: &egui::Painter,
    ui: &Ui,
    response: &egui::Response,
    frame: &LiveFrame,
    image_size: Vec2,
    shown: Rect,
) {
    const UNDER_A_HAND: &str = "Under a hand: refereed once it leaves";
    for (i, box_px) in frame.covered_px.iter().enumerate() {
        let rect = screen_rect(*box_px, image_size, shown).intersect(shown);
        painter.rect_filled(rect, 3.0, Color32::from_black_alpha(110));
        painter.rect_stroke(
            rect,
            3.0,
            Stroke::new(1.5, Color32::from_white_alpha(150)),
            StrokeKind::Inside,
        );
        painter.text(
            rect.left_top() + Vec2::new(4.0, 3.0),
            Align2::LEFT_TOP,
            "under a hand",
            FontId::proportional(10.0),
            Color32::from_white_alpha(220),
        );
        ui.interact(rect, response.id.with(("covered", i)), Sense::hover())
            .on_hover_text(UNDER_A_HAND)
            .widget_info(|| WidgetInfo::labeled(Role::Image, true, UNDER_A_HAND));
    }
}

/// Teach mode on the camera image: a green ring where a die may go now, on each legal
/// pillar of the game's top floors.
fn legal_pillars_ui(
    painter: &egui::Painter,
    ui: &Ui,
    response: &egui::Response,
    frame: &LiveFrame,
    targets: &BTreeSet<(TowerId, PillarIndex)>,
    image_size: Vec2,
    shown: Rect,
) {
    let r = LEGAL_RING_PX;
    for &(tower, pillar, [x, y]) in &frame.pillars_px {
        if !targets.contains(&(tower, pillar)) {
            continue;
        }
        let ring = screen_rect([x - r, y - r, x + r, y + r], image_size, shown);
        let (at, radius) = (ring.center(), (ring.width() / 2.0).max(6.0));
        painter.circle_filled(at, radius, LEGAL_GREEN.gamma_multiply(0.25));
        painter.circle_stroke(at, radius, Stroke::new(2.0, LEGAL_GREEN));
        let label = format!("Legal: {pillar} of {tower}");
        let rect = Rect::from_center_size(at, Vec2::splat(radius * 2.0));
        ui.interact(
            rect,
            response.id.with(("legal", tower, pillar)),
            Sense::hover(),
        )
        .on_hover_text(&label)
        .widget_info(|| WidgetInfo::labeled(Role::Image, true, &label));
    }
}

/// A reading's box: solid when sure, dashed when uncertain.
fn overlay_box(painter: &egui::Painter, rect: Rect, color: Color32, uncertain: bool) {
    let stroke = Stroke::new(2.0, color);
    if !uncertain {
        painter.rect_stroke(rect, 2.0, stroke, StrokeKind::Middle);
        return;
    }
    let corners = [
        rect.left_top(),
        rect.right_top(),
        rect.right_bottom(),
        rect.left_bottom(),
        rect.left_top(),
    ];
    painter.extend(Shape::dashed_line(&corners, stroke, 4.0, 3.0));
}

/// The width of the live panel in a window of `window_width` points: what the mirrored
/// table (about 730 points) and the scores (340) leave, within 320-640.
pub fn panel_width(window_width: f32) -> f32 {
    (window_width - 340.0 - 730.0).clamp(320.0, 640.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_panel_leaves_the_table_its_room() {
        assert_eq!(panel_width(1720.0), 640.0);
        assert_eq!(panel_width(1600.0), 530.0);
        assert_eq!(panel_width(1100.0), 320.0);
    }
}
