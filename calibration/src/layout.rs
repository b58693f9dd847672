//! The play mat as data, in millimetres: its size, its fiducial markers and its zones
//! (towers, roll area, mana pool, spellbooks). Users move zones by editing the file.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::camera::TablePoint;
use crate::error::CalibrationError;

/// A square fiducial marker printed on the mat.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Marker {
    pub id: u32,
    pub center_mm: [f64; 2],
    /// Side of the marker's black border, in mm.
    pub size_mm: f64,
}

impl Marker {
    /// The corners as printed: top-left, top-right, bottom-right, bottom-left.
    pub fn corners(&self) -> [TablePoint; 4] {
        let half = self.size_mm / 2.0;
        let [x, y] = self.center_mm;
        [
            TablePoint::on_mat(x - half, y - half),
            TablePoint::on_mat(x + half, y - half),
            TablePoint::on_mat(x + half, y + half),
            TablePoint::on_mat(x - half, y + half),
        ]
    }

    fn bounds(&self) -> Bounds {
        Bounds::around(self.center_mm, [self.size_mm, self.size_mm])
    }
}

/// What a zone of the mat is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ZoneKind {
    Tower,
    RollArea,
    ManaPool,
    Spellbook,
}

impl ZoneKind {
    /// Its name in a layout's JSON.
    pub fn name(self) -> &'static str {
        match self {
            ZoneKind::Tower => "tower",
            ZoneKind::RollArea => "roll_area",
            ZoneKind::ManaPool => "mana_pool",
            ZoneKind::Spellbook => "spellbook",
        }
    }
}

/// A rectangle of the mat where pieces stand.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Zone {
    pub name: String,
    pub kind: ZoneKind,
    pub center_mm: [f64; 2],
    pub size_mm: [f64; 2],
}

impl Zone {
    pub fn center(&self) -> TablePoint {
        TablePoint::on_mat(self.center_mm[0], self.center_mm[1])
    }

    fn bounds(&self) -> Bounds {
        Bounds::around(self.center_mm, self.size_mm)
    }
}

#[derive(Clone, Copy, Debug)]
struct Bounds {
    min: [f64; 2],
    max: [f64; 2],
}

impl Bounds {
    fn around(center: [f64; 2], size: [f64; 2]) -> Self {
        Self {
            min: [center[0] - size[0] / 2.0, center[1] - size[1] / 2.0],
            max: [center[0] + size[0] / 2.0, center[1] + size[1] / 2.0],
        }
    }

    fn overlaps(&self, other: &Bounds) -> bool {
        (0..2).all(|a| self.min[a] < other.max[a] && other.min[a] < self.max[a])
    }

    fn inside(&self, size: [f64; 2]) -> bool {
        (0..2).all(|a| self.min[a] >= 0.0 && self.max[a] <= size[a])
    }
}

/// The mat layout file (`tablesight-mat`, version 1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatLayout {
    pub format: String,
    pub version: u32,
    pub name: String,
    pub size_mm: [f64; 2],
    /// The AprilTag family of the markers.
    pub marker_family: String,
    pub markers: Vec<Marker>,
    pub zones: Vec<Zone>,
}

const SHIPPED_A2: &str = include_str!("../data/mat-a2.json");
/// At least this many markers, so that any four of eight around the edge still suffice.
const MIN_MARKERS: usize = 8;
/// The towers' zones, by the names the referee knows them by.
const TOWER_ZONES: [&str; 4] = ["tower-a", "tower-b", "tower-c", "tower-central"];
/// The players' spellbooks' zones, `spellbook-1` to this.
const SPELLBOOKS: u8 = 4;
/// A mat's sides, in mm: from a sheet of A5 to a table of two metres.
const MAT_SIDE_MM: std::ops::RangeInclusive<f64> = 148.0..=2000.0;

impl MatLayout {
    /// The A2 mat that ships with Tablesight (`calibration/data/mat-a2.json`).
    pub fn a2() -> Self {
        #[allow(clippy::expect_used)] // reason: the embedded file is validated by a unit test
        Self::from_json(SHIPPED_A2).expect("the shipped mat layout is valid")
    }

    /// Parses and checks a layout, listing every problem.
    pub fn from_json(json: &str) -> Result<Self, CalibrationError> {
        let layout: MatLayout = serde_json::from_str(json)
            .map_err(|e| CalibrationError::LayoutFormat(e.to_string()))?;
        let problems = layout.problems();
        if problems.is_empty() {
            Ok(layout)
        } else {
            Err(CalibrationError::InvalidLayout(problems))
        }
    }

    pub fn marker(&self, id: u32) -> Option<&Marker> {
        self.markers.iter().find(|m| m.id == id)
    }

    pub fn zone(&self, name: &str) -> Option<&Zone> {
        self.zones.iter().find(|z| z.name == name)
    }

    fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if self.format != "tablesight-mat" || self.version != 1 {
            problems.push(format!(
                "format: expected \"tablesight-mat\" version 1, found \"{}\" version {}",
                self.format, self.version
            ));
        }
        if !self.size_mm.iter().all(|side| MAT_SIDE_MM.contains(side)) {
            problems.push(format!(
                "size_mm: a mat is {} to {} mm a side, not {} x {} mm",
                MAT_SIDE_MM.start(),
                MAT_SIDE_MM.end(),
                self.size_mm[0],
                self.size_mm[1]
            ));
        }
        if self.markers.len() < MIN_MARKERS {
            problems.push(format!(
                "markers: the mat needs at least {MIN_MARKERS} markers, the file lists {}",
                self.markers.len()
            ));
        }
        let mut ids = BTreeSet::new();
        for (i, marker) in self.markers.iter().enumerate() {
            if !ids.insert(marker.id) {
                problems.push(format!("markers[{i}]: the id {} is used twice", marker.id));
            }
            if marker.size_mm <= 0.0 || !marker.bounds().inside(self.size_mm) {
                problems.push(format!(
                    "markers[{i}]: marker {} does not fit on the mat",
                    marker.id
                ));
            }
            for other in &self.markers[i + 1..] {
                if marker.bounds().overlaps(&other.bounds()) {
                    problems.push(format!(
                        "markers[{i}]: marker {} overlaps marker {}",
                        marker.id, other.id
                    ));
                }
            }
        }
        // The game's zones, each named as the referee knows it: a piece in a zone it does not
        // know would be refereed as off the mat.
        let spellbooks: Vec<String> = (1..=SPELLBOOKS).map(|n| format!("spellbook-{n}")).collect();
        let needed = (TOWER_ZONES.iter().map(|name| (*name, ZoneKind::Tower))).chain(
            spellbooks
                .iter()
                .map(|name| (name.as_str(), ZoneKind::Spellbook)),
        );
        for (name, kind) in needed {
            if !self.zones.iter().any(|z| z.name == name && z.kind == kind) {
                problems.push(format!("zones: no {} zone named \"{name}\"", kind.name()));
            }
        }
        for kind in [ZoneKind::RollArea, ZoneKind::ManaPool] {
            if !self.zones.iter().any(|z| z.kind == kind) {
                problems.push(format!("zones: no {} zone", kind.name()));
            }
        }
        let mut names = BTreeSet::new();
        for (i, zone) in self.zones.iter().enumerate() {
            let known = match zone.kind {
                ZoneKind::Tower => TOWER_ZONES.contains(&zone.name.as_str()),
                ZoneKind::Spellbook => spellbooks.contains(&zone.name),
                ZoneKind::RollArea | ZoneKind::ManaPool => true,
            };
            if !known {
                problems.push(format!(
                    "zones[{i}]: a {} zone named \"{}\" is none of the game's",
                    zone.kind.name(),
                    zone.name
                ));
            }
            if !names.insert(zone.name.as_str()) {
                problems.push(format!(
                    "zones[{i}]: the name \"{}\" is used twice",
                    zone.name
                ));
            }
            if !zone.bounds().inside(self.size_mm) {
                problems.push(format!(
                    "zones[{i}]: \"{}\" does not fit on the mat",
                    zone.name
                ));
            }
            for marker in &self.markers {
                if zone.bounds().overlaps(&marker.bounds()) {
                    problems.push(format!(
                        "zones[{i}]: \"{}\" covers marker {}",
                        zone.name, marker.id
                    ));
                }
            }
            for other in &self.zones[i + 1..] {
                if zone.bounds().overlaps(&other.bounds()) {
                    problems.push(format!(
                        "zones[{i}]: \"{}\" overlaps \"{}\"",
                        zone.name, other.name
                    ));
                }
            }
        }
        problems
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_layout_is_valid() {
        let layout = MatLayout::from_json(SHIPPED_A2).unwrap();
        assert_eq!(layout.markers.len(), 12);
        for zone in [
            "tower-a",
            "tower-b",
            "tower-c",
            "tower-central",
            "roll-area",
            "mana-pool",
        ] {
            assert!(layout.zone(zone).is_some(), "{zone}");
        }
    }

    #[test]
    fn every_layout_problem_is_listed() {
        let mut layout = MatLayout::a2();
        layout.markers[1].id = layout.markers[0].id;
        layout.zones[0].center_mm = [297.0, 30.0];
        layout.zones[1].center_mm = layout.zones[2].center_mm;
        layout.markers[3].center_mm = layout.markers[2].center_mm;
        layout.size_mm[1] = 1e9;
        let json = serde_json::to_string(&layout).unwrap();
        let Err(CalibrationError::InvalidLayout(problems)) = MatLayout::from_json(&json) else {
            panic!("a broken layout was accepted");
        };
        let text = problems.join("\n");
        assert!(text.contains("the id 0 is used twice"), "{text}");
        assert!(
            text.contains("a mat is 148 to 2000 mm a side, not 594 x 1000000000 mm"),
            "{text}"
        );
        assert!(text.contains("overlaps marker"), "{text}");
        assert!(text.contains("\"tower-a\" covers marker"), "{text}");
        assert!(
            text.contains("\"tower-central\" overlaps \"tower-b\""),
            "{text}"
        );
    }

    #[test]
    fn a_layout_needs_the_games_zones_by_their_names() {
        let mut layout = MatLayout::a2();
        layout
            .zones
            .retain(|z| z.name != "mana-pool" && z.name != "spellbook-4");
        let tower = layout
            .zones
            .iter_mut()
            .find(|z| z.name == "tower-c")
            .unwrap();
        tower.name = "tower-z".into();
        let json = serde_json::to_string(&layout).unwrap();
        let Err(CalibrationError::InvalidLayout(problems)) = MatLayout::from_json(&json) else {
            panic!("a layout without the game's zones was accepted");
        };
        assert_eq!(
            problems,
            [
                "zones: no tower zone named \"tower-c\"",
                "zones: no spellbook zone named \"spellbook-4\"",
                "zones: no mana_pool zone",
                "zones[3]: a tower zone named \"tower-z\" is none of the game's",
            ]
        );
    }
}
