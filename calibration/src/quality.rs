//! What a calibration means for the game: where each zone appears in the image (towers at
//! every floor's height), how many millimetres a pixel covers there, and whether a die is
//! big enough in the image for the reader.

use serde::Serialize;

use crate::camera::{Camera, TablePoint};
use crate::layout::{MatLayout, ZoneKind};

/// Side of a die of the game, in mm (a standard 16 mm die).
pub const DIE_SIZE_MM: f64 = 16.0;
/// One floor of a tower: a die under a tile.
pub const FLOOR_HEIGHT_MM: f64 = 20.0;
/// The highest floor a tower reaches.
pub const TOP_FLOOR: u8 = 5;
/// The fewest pixels across a die face at which pips can still be told apart (a first
/// figure; the dice reader will measure its own).
pub const MIN_DIE_PX: f64 = 16.0;

/// One zone as the camera sees it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ZoneView {
    pub name: String,
    pub kind: ZoneKind,
    /// The zone's centre on the mat, in pixels.
    pub center_px: Option<[f64; 2]>,
    /// Its corners on the mat, in pixels (top-left, top-right, bottom-right, bottom-left).
    pub corners_px: Vec<[f64; 2]>,
    /// For towers: the centre of floors 1 to 5, each one floor higher than the last.
    pub floors_px: Vec<[f64; 2]>,
    pub mm_per_px: Option<f64>,
    /// Pixels across a die lying in the zone.
    pub die_px: Option<f64>,
    pub in_view: bool,
}

/// Every zone as the camera sees it, and what the user should fix.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ViewQuality {
    pub zones: Vec<ZoneView>,
    pub warnings: Vec<String>,
}

/// Projects every zone of `layout` through `camera` into a `width_px` by `height_px` frame.
pub fn view_quality(
    camera: &Camera,
    layout: &MatLayout,
    width_px: usize,
    height_px: usize,
) -> ViewQuality {
    let inside = |p: &[f64; 2]| {
        (0.0..width_px as f64).contains(&p[0]) && (0.0..height_px as f64).contains(&p[1])
    };
    let pixel = |point: TablePoint| camera.project(point).map(|p| [p.x, p.y]);
    let mut zones = Vec::new();
    let mut warnings = Vec::new();
    if !camera
        .intrinsics
        .inverts_over(width_px as u32, height_px as u32)
    {
        warnings.push(
            "the lens fitted to this view bends back on itself near the frame's edges, so \
             places there are unsure: calibrate again with the mat over more of the frame, \
             or with a second view"
                .to_owned(),
        );
    }
    for zone in &layout.zones {
        let [x, y] = zone.center_mm;
        let [w, h] = zone.size_mm;
        let corners_px: Vec<[f64; 2]> = [
            (x - w / 2.0, y - h / 2.0),
            (x + w / 2.0, y - h / 2.0),
            (x + w / 2.0, y + h / 2.0),
            (x - w / 2.0, y + h / 2.0),
        ]
        .into_iter()
        .filter_map(|(cx, cy)| pixel(TablePoint::on_mat(cx, cy)))
        .collect();
        let floors_px: Vec<[f64; 2]> = if zone.kind == ZoneKind::Tower {
            (1..=TOP_FLOOR)
                .filter_map(|floor| {
                    pixel(zone.center().at_height(f64::from(floor) * FLOOR_HEIGHT_MM))
                })
                .collect()
        } else {
            Vec::new()
        };
        let mm_per_px = camera.mm_per_px(zone.center());
        let die_px = mm_per_px.map(|mm| DIE_SIZE_MM / mm);
        let in_view =
            corners_px.len() == 4 && corners_px.iter().all(inside) && floors_px.iter().all(inside);
        if !in_view {
            warnings.push(format!(
                "{} is not wholly in view: turn or raise the camera",
                zone.name
            ));
        }
        if let Some(die_px) = die_px.filter(|&px| px < MIN_DIE_PX) {
            warnings.push(format!(
                "a die in {} covers {die_px:.0} px, the reader needs {MIN_DIE_PX:.0}: move the camera closer or raise the resolution",
                zone.name
            ));
        }
        zones.push(ZoneView {
            name: zone.name.clone(),
            kind: zone.kind,
            center_px: pixel(zone.center()),
            corners_px,
            floors_px,
            mm_per_px,
            die_px,
            in_view,
        });
    }
    ViewQuality { zones, warnings }
}
