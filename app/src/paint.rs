//! Drawing the pieces: translucent dice with their pips, meeples (the master with its star),
//! and the clickable widgets made of them.

use egui::accesskit::Role;
use egui::{Color32, Pos2, Rect, Response, Sense, Shape, Stroke, StrokeKind, Ui, Vec2, WidgetInfo};
use rules::{Die, DieColor, Meeple, PlayerColor, Rank};

/// Teach mode's colour for a pillar where a die may go, on the table and on the camera image.
pub const LEGAL_GREEN: Color32 = Color32::from_rgb(60, 200, 90);
/// A flag's red: the banners of refused moves, the flagged move on the image and the table.
pub const FLAG_RED: Color32 = Color32::from_rgb(150, 25, 25);
/// The outline of the flagged move's pillar on the table, brighter than a banner's red.
pub const FLAG_STROKE: Color32 = Color32::from_rgb(230, 60, 60);

pub fn die_color(color: DieColor) -> Color32 {
    match color {
        DieColor::Pink => Color32::from_rgb(236, 112, 170),
        DieColor::Purple => Color32::from_rgb(150, 95, 210),
        DieColor::Yellow => Color32::from_rgb(238, 198, 55),
        DieColor::Blue => Color32::from_rgb(70, 135, 225),
    }
}

pub fn player_color(player: PlayerColor) -> Color32 {
    match player {
        PlayerColor::Blue => Color32::from_rgb(40, 95, 210),
        PlayerColor::Green => Color32::from_rgb(40, 160, 80),
        PlayerColor::Red => Color32::from_rgb(215, 50, 50),
        PlayerColor::Yellow => Color32::from_rgb(230, 190, 30),
    }
}

/// Pip positions on a unit square, for values 1 to 6.
fn pips(value: u8) -> &'static [(f32, f32)] {
    const L: f32 = 0.26;
    const M: f32 = 0.5;
    const H: f32 = 0.74;
    match value {
        1 => &[(M, M)],
        2 => &[(L, L), (H, H)],
        3 => &[(L, L), (M, M), (H, H)],
        4 => &[(L, L), (H, L), (L, H), (H, H)],
        5 => &[(L, L), (H, L), (M, M), (L, H), (H, H)],
        _ => &[(L, L), (H, L), (L, M), (H, M), (L, H), (H, H)],
    }
}

/// Paints a translucent die showing its value.
pub fn paint_die(ui: &Ui, rect: Rect, die: Die) {
    let painter = ui.painter();
    let base = die_color(die.color);
    let radius = rect.width() * 0.18;
    painter.rect_filled(rect, radius, base.gamma_multiply(0.85));
    // A lighter upper-left facet suggests translucent resin.
    let highlight = Rect::from_min_size(rect.min, rect.size() * 0.55);
    painter.rect_filled(highlight, radius, Color32::from_white_alpha(40));
    painter.rect_stroke(
        rect,
        radius,
        Stroke::new(1.5, base.gamma_multiply(0.5)),
        StrokeKind::Inside,
    );
    let pip_radius = rect.width() * 0.075;
    for &(x, y) in pips(die.value.get()) {
        let center = rect.min + Vec2::new(x * rect.width(), y * rect.height());
        painter.circle_filled(center, pip_radius, Color32::from_rgb(250, 250, 250));
    }
}

/// Paints a meeple: a head and a body; the master carries a star.
pub fn paint_meeple(ui: &Ui, rect: Rect, meeple: Meeple) {
    let painter = ui.painter();
    let color = player_color(meeple.player);
    let outline = Stroke::new(1.0, Color32::from_black_alpha(160));
    let w = rect.width();
    let h = rect.height();
    let head = Pos2::new(rect.center().x, rect.top() + h * 0.22);
    painter.circle(head, w * 0.2, color, outline);
    let body = vec![
        Pos2::new(rect.center().x - w * 0.18, rect.top() + h * 0.38),
        Pos2::new(rect.center().x + w * 0.18, rect.top() + h * 0.38),
        Pos2::new(rect.right() - w * 0.08, rect.bottom()),
        Pos2::new(rect.left() + w * 0.08, rect.bottom()),
    ];
    painter.add(Shape::convex_polygon(body, color, outline));
    if meeple.rank == Rank::Master {
        let center = Pos2::new(rect.center().x, rect.top() + h * 0.68);
        painter.add(Shape::convex_polygon(
            star(center, w * 0.2),
            Color32::WHITE,
            Stroke::NONE,
        ));
    }
}

/// A five-pointed star as a convex fan of its outline (drawn as a polygon of 10 points).
fn star(center: Pos2, radius: f32) -> Vec<Pos2> {
    (0..10)
        .map(|i| {
            let r = if i % 2 == 0 { radius } else { radius * 0.45 };
            let angle = std::f32::consts::PI * (i as f32) / 5.0 - std::f32::consts::FRAC_PI_2;
            center + Vec2::new(angle.cos(), angle.sin()) * r
        })
        .collect()
}

/// A clickable die; `selected` draws a ring around it. Its accessible label is the die's name
/// ("yellow 2"), so tests and screen readers find it.
pub fn die_button(ui: &mut Ui, die: Die, size: f32, selected: bool) -> Response {
    let (rect, response) = ui.allocate_exact_size(Vec2::splat(size), Sense::click());
    paint_die(ui, rect, die);
    if selected {
        ui.painter().rect_stroke(
            rect.expand(3.0),
            size * 0.22,
            Stroke::new(3.0, ui.visuals().selection.stroke.color),
            StrokeKind::Outside,
        );
    } else if response.hovered() {
        ui.painter().rect_stroke(
            rect.expand(2.0),
            size * 0.22,
            Stroke::new(1.5, ui.visuals().widgets.hovered.fg_stroke.color),
            StrokeKind::Outside,
        );
    }
    let label = die.to_string();
    response.widget_info(|| WidgetInfo::labeled(Role::Button, true, &label));
    response
}

/// A meeple icon, not clickable.
pub fn meeple_icon(ui: &mut Ui, meeple: Meeple, size: f32) -> Response {
    let (rect, response) = ui.allocate_exact_size(Vec2::new(size * 0.8, size), Sense::hover());
    paint_meeple(ui, rect, meeple);
    response
}

/// A small die icon, not clickable (restrictions, mana pool, log).
pub fn die_icon(ui: &mut Ui, die: Die, size: f32) -> Response {
    let (rect, response) = ui.allocate_exact_size(Vec2::splat(size), Sense::hover());
    paint_die(ui, rect, die);
    response
}
