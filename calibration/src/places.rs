//! The places of the game on the mat, in millimetres: the pillars of every tower floor, the
//! spell slots of a spellbook board and the reserve beside it. The synthetic table lays its
//! pieces out by them, and the reader maps what it sees back onto them, so both agree.

use std::f64::consts::{FRAC_PI_2, PI};

use serde::{Deserialize, Serialize};

use crate::camera::TablePoint;
use crate::layout::{Zone, ZoneKind};
use crate::quality::{DIE_SIZE_MM, FLOOR_HEIGHT_MM, TOP_FLOOR};

/// The thickness of a floor tile; a floor and the dice on it rise `FLOOR_HEIGHT_MM`.
pub const TILE_MM: f64 = FLOOR_HEIGHT_MM - DIE_SIZE_MM;
/// From a tower's centre to its pillars.
pub const PILLAR_RADIUS_MM: f64 = 27.0;
/// A player's spellbook board: six spell slots in two rows of three.
pub const BOARD_MM: [f64; 2] = [84.0, 40.0];
const SLOT_STEP_MM: [f64; 2] = [27.0, 19.0];
/// The reserve: a row of meeples along the far edge of the spellbook zone.
const RESERVE_FROM_EDGE_MM: f64 = 4.0;
const RESERVE_STEP_MM: f64 = 12.0;
/// A piece whose centre lies this far outside a zone still stands in it: half a die or a
/// meeple's foot juts over the zone's edge, and the reserve row lies 4 mm from it. A base
/// found from a low camera is often a few millimetres off in depth.
const EDGE_SLACK_MM: f64 = 8.0;

/// A place of the mat, in the mat's own words (zones by name, spellbook zones by number).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "zone")]
pub enum MatPlace {
    /// Pillar 1-3 of a tower floor; level 1 is the lowest.
    Tower {
        tower: String,
        level: u8,
        pillar: u8,
    },
    RollArea,
    ManaPool,
    /// Slot 1-6 of the board in spellbook zone `board` (1-4, the players' seats).
    Spellbook {
        board: u8,
        slot: u8,
    },
    Reserve {
        board: u8,
    },
}

/// The height of the top face of tower floor `level` (1 is the lowest), where its dice stand.
pub fn floor_top_mm(level: u8) -> f64 {
    f64::from(level.saturating_sub(1)) * FLOOR_HEIGHT_MM + TILE_MM
}

/// The direction of pillar `index` (0-2) from its tower's centre, in radians in the mat's
/// frame (x right, y towards the near edge): pillar 1 points to the far edge, the others
/// follow a third of a turn apart; `turn` is how far the tile is turned from that.
pub fn pillar_angle(index: usize, turn: f64) -> f64 {
    -FRAC_PI_2 + turn + index as f64 * 2.0 * PI / 3.0
}

/// Where pillar `index` (0-2) of a tower floor centred at `center` stands, in mm.
pub fn pillar_point(center: [f64; 2], index: usize, turn: f64) -> [f64; 2] {
    let a = pillar_angle(index, turn);
    [
        center[0] + PILLAR_RADIUS_MM * a.cos(),
        center[1] + PILLAR_RADIUS_MM * a.sin(),
    ]
}

/// The pillar (0-2) whose direction from the tower's centre is nearest to `point`'s.
pub fn nearest_pillar(center: [f64; 2], point: [f64; 2]) -> usize {
    let angle = (point[1] - center[1]).atan2(point[0] - center[0]);
    (0..3)
        .min_by(|&a, &b| {
            let gap = |i: usize| angle_between(angle, pillar_angle(i, 0.0));
            gap(a).total_cmp(&gap(b))
        })
        .unwrap_or(0)
}

fn angle_between(a: f64, b: f64) -> f64 {
    let d = (a - b).rem_euclid(2.0 * PI);
    d.min(2.0 * PI - d)
}

/// The centre of the spellbook board lying in a spellbook zone, against its far edge.
pub fn board_center(zone: &Zone) -> [f64; 2] {
    let top = zone.center_mm[1] - zone.size_mm[1] / 2.0;
    [zone.center_mm[0], top + BOARD_MM[1] / 2.0 + 1.0]
}

/// The six spell slots of the board in a spellbook zone, in the order of the rules' spells.
pub fn spell_slots(zone: &Zone) -> [[f64; 2]; 6] {
    let center = board_center(zone);
    std::array::from_fn(|i| {
        let (column, row) = ((i % 3) as f64 - 1.0, (i / 3) as f64 - 0.5);
        [
            center[0] + column * SLOT_STEP_MM[0],
            center[1] + row * SLOT_STEP_MM[1],
        ]
    })
}

/// Where the `index`-th meeple of a reserve stands in a spellbook zone.
pub fn reserve_point(zone: &Zone, index: usize) -> [f64; 2] {
    let left = zone.center_mm[0] - zone.size_mm[0] / 2.0;
    let bottom = zone.center_mm[1] + zone.size_mm[1] / 2.0;
    [
        left + 8.0 + index as f64 * RESERVE_STEP_MM,
        bottom - RESERVE_FROM_EDGE_MM,
    ]
}

/// The place of the mat at `point` (on the mat plane, mm) for a piece that is not on a
/// tower, or `None` farther than `EDGE_SLACK_MM` outside every zone (within it, the nearest
/// zone's place). Between the board's near row of slots and the reserve row, the nearer
/// row: a meeple's base is found less surely in depth than across, and the board's edge
/// lies much nearer the reserve row than the slots do.
pub fn flat_place(zones: &[Zone], point: [f64; 2]) -> Option<MatPlace> {
    flat_fit(zones, point).map(|(place, _)| place)
}

/// `flat_place`, and how far (mm) `point` lies from where a piece of that place stands: its
/// spell slot, the reserve row, or the zone of the roll area and the mana pool, anywhere in
/// them.
pub fn flat_fit(zones: &[Zone], point: [f64; 2]) -> Option<(MatPlace, f64)> {
    let (zone, outside) = zones
        .iter()
        .filter(|z| z.kind != ZoneKind::Tower)
        .map(|z| (z, outside_mm(z, point)))
        .filter(|(_, off_mm)| *off_mm <= EDGE_SLACK_MM)
        .min_by(|a, b| a.1.total_cmp(&b.1))?;
    match zone.kind {
        ZoneKind::RollArea => Some((MatPlace::RollArea, outside)),
        ZoneKind::ManaPool => Some((MatPlace::ManaPool, outside)),
        ZoneKind::Spellbook => {
            let board = spellbook_number(zone)?;
            let slots = spell_slots(zone);
            let reserve_row = reserve_point(zone, 0)[1];
            if point[1] > (slots[5][1] + reserve_row) / 2.0 {
                return Some((MatPlace::Reserve { board }, (point[1] - reserve_row).abs()));
            }
            let (slot, miss) = (0..6)
                .map(|i| (i, distance(slots[i], point)))
                .min_by(|a, b| a.1.total_cmp(&b.1))?;
            Some((
                MatPlace::Spellbook {
                    board,
                    slot: slot as u8 + 1,
                },
                miss,
            ))
        }
        ZoneKind::Tower => None,
    }
}

/// The number of a spellbook zone (`spellbook-2` is 2).
pub fn spellbook_number(zone: &Zone) -> Option<u8> {
    zone.name.strip_prefix("spellbook-")?.parse().ok()
}

/// Every table point where a piece of `height_mm` above its base could stand on a tower of
/// `zone`: the centre of the tower at each floor's height, for floors 1 to `TOP_FLOOR`.
pub fn tower_floor_centres(zone: &Zone, height_mm: f64) -> Vec<(u8, TablePoint)> {
    (1..=TOP_FLOOR)
        .map(|level| {
            let [x, y] = zone.center_mm;
            (
                level,
                TablePoint::on_mat(x, y).at_height(floor_top_mm(level) + height_mm),
            )
        })
        .collect()
}

/// How far `point` lies outside `zone` (mm), 0 inside it.
fn outside_mm(zone: &Zone, point: [f64; 2]) -> f64 {
    let off = |a: usize| ((point[a] - zone.center_mm[a]).abs() - zone.size_mm[a] / 2.0).max(0.0);
    off(0).hypot(off(1))
}

pub fn distance(a: [f64; 2], b: [f64; 2]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::MatLayout;

    fn mat() -> MatLayout {
        MatLayout::a2()
    }

    #[test]
    fn every_slot_and_reserve_spot_maps_back_to_itself() {
        let mat = mat();
        for zone in mat.zones.iter().filter(|z| z.kind == ZoneKind::Spellbook) {
            let board = spellbook_number(zone).unwrap();
            for (i, slot) in spell_slots(zone).into_iter().enumerate() {
                assert_eq!(
                    flat_place(&mat.zones, slot),
                    Some(MatPlace::Spellbook {
                        board,
                        slot: i as u8 + 1
                    })
                );
            }
            for i in 0..7 {
                assert_eq!(
                    flat_place(&mat.zones, reserve_point(zone, i)),
                    Some(MatPlace::Reserve { board }),
                    "{} reserve {i}",
                    zone.name
                );
            }
        }
    }

    /// A base found a few millimetres off in depth (the reader's usual error from a low
    /// camera) keeps its row: on the shallowest zone, spellbook-4, the board's edge lies
    /// 5 mm from the reserve row and 10.5 mm from the near slots.
    #[test]
    fn a_base_found_a_little_off_in_depth_keeps_its_row() {
        const OFF_MM: f64 = 6.0;
        let mat = mat();
        for zone in mat.zones.iter().filter(|z| z.kind == ZoneKind::Spellbook) {
            let board = spellbook_number(zone).unwrap();
            for i in 0..7 {
                let [x, y] = reserve_point(zone, i);
                assert_eq!(
                    flat_place(&mat.zones, [x, y - OFF_MM]),
                    Some(MatPlace::Reserve { board }),
                    "{} reserve {i}",
                    zone.name
                );
            }
            for (i, [x, y]) in spell_slots(zone).into_iter().enumerate().skip(3) {
                assert_eq!(
                    flat_place(&mat.zones, [x, y + OFF_MM]),
                    Some(MatPlace::Spellbook {
                        board,
                        slot: i as u8 + 1
                    }),
                    "{} slot {}",
                    zone.name,
                    i + 1
                );
            }
        }
    }

    /// A reserve meeple's base found a little beyond the zone's edge, a few millimetres off
    /// in depth, is still in the reserve; a base well clear of every zone is nowhere.
    #[test]
    fn a_base_found_just_outside_its_zone_stays_in_it() {
        let mat = mat();
        for zone in mat.zones.iter().filter(|z| z.kind == ZoneKind::Spellbook) {
            let board = spellbook_number(zone).unwrap();
            let [x, y] = reserve_point(zone, 3);
            assert_eq!(
                flat_place(&mat.zones, [x, y + 8.0]),
                Some(MatPlace::Reserve { board }),
                "{}",
                zone.name
            );
            assert_eq!(flat_place(&mat.zones, [x, y + 30.0]), None, "{}", zone.name);
        }
    }

    #[test]
    fn pillars_are_found_by_direction_even_on_a_turned_tile() {
        for i in 0..3 {
            for turn in [-0.4, 0.0, 0.4] {
                let p = pillar_point([100.0, 100.0], i, turn);
                assert_eq!(nearest_pillar([100.0, 100.0], p), i);
            }
        }
    }

    #[test]
    fn floors_rise_a_die_and_a_tile_each() {
        assert_eq!(floor_top_mm(1), 4.0);
        assert_eq!(floor_top_mm(3), 44.0);
    }
}
