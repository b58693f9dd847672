//! Where each read item stands, in the mat's words: with a calibration, a die's box centre
//! is traced back onto the plane at the height its centre would have on each tower floor
//! (and on the mat for the roll area, the mana pool and the spellbooks), and the nearest
//! pillar or zone that fits is its place.

use std::collections::HashMap;

use calibration::places::{PILLAR_RADIUS_MM, distance, flat_place, floor_top_mm, nearest_pillar};
use calibration::quality::{DIE_SIZE_MM, TOP_FLOOR};
use calibration::{Camera, MatLayout, MatPlace, ZoneKind};

use crate::reader::{BoxPx, Reading};

/// How far from a pillar's circle a piece may stand and still be on that tower (mm).
const PILLAR_SLACK_MM: f64 = 12.0;

/// The camera and the mat of a calibration, and what is known of the towers' heights.
#[derive(Clone, Debug)]
pub struct TableGeometry {
    pub camera: Camera,
    pub layout: MatLayout,
    /// The top floor of each tower zone by name (`tower-a`...), when the caller knows it (the
    /// referee does); any floor from 1 to 5 is tried for the others.
    pub tower_levels: HashMap<String, u8>,
}

impl TableGeometry {
    pub fn new(camera: Camera, layout: MatLayout) -> Self {
        Self {
            camera,
            layout,
            tower_levels: HashMap::new(),
        }
    }

    /// Sets the `place` of every die and meeple of `reading` (`None` off every zone).
    pub fn locate(&self, reading: &mut Reading) {
        for die in &mut reading.dice {
            die.place = self.place_of(centre(die.box_px), DIE_SIZE_MM / 2.0, &[]);
        }
        for meeple in &mut reading.meeples {
            // A meeple's feet: on the floor, or on the die of its pillar.
            let feet = [
                (meeple.box_px[0] + meeple.box_px[2]) / 2.0,
                meeple.box_px[3],
            ];
            meeple.place = self.place_of(feet.map(f64::from), 0.0, &[DIE_SIZE_MM]);
        }
    }

    /// The place of a piece seen at `pixel`, a point `height_mm` above its base; on towers
    /// it may also stand `raised_mm` higher (a meeple on a die).
    fn place_of(&self, pixel: [f64; 2], height_mm: f64, raised_mm: &[f64]) -> Option<MatPlace> {
        let mut best: Option<(f64, MatPlace)> = None;
        for zone in self
            .layout
            .zones
            .iter()
            .filter(|z| z.kind == ZoneKind::Tower)
        {
            let levels: Vec<u8> = match self.tower_levels.get(&zone.name) {
                Some(&level) => vec![level],
                None => (1..=TOP_FLOOR).collect(),
            };
            for level in levels {
                for extra in std::iter::once(0.0).chain(raised_mm.iter().copied()) {
                    let height = floor_top_mm(level) + height_mm + extra;
                    let Some(point) = self.camera.on_plane(pixel, height) else {
                        continue;
                    };
                    let point = [point.x_mm, point.y_mm];
                    let miss = (distance(point, zone.center_mm) - PILLAR_RADIUS_MM).abs();
                    if miss > PILLAR_SLACK_MM || best.as_ref().is_some_and(|(b, _)| *b <= miss) {
                        continue;
                    }
                    let pillar = nearest_pillar(zone.center_mm, point) as u8 + 1;
                    let place = MatPlace::Tower {
                        tower: zone.name.clone(),
                        level,
                        pillar,
                    };
                    best = Some((miss, place));
                }
            }
        }
        if let Some((_, place)) = best {
            return Some(place);
        }
        let point = self.camera.on_plane(pixel, height_mm)?;
        flat_place(&self.layout.zones, [point.x_mm, point.y_mm])
    }
}

fn centre(b: BoxPx) -> [f64; 2] {
    [
        f64::from((b[0] + b[2]) / 2.0),
        f64::from((b[1] + b[3]) / 2.0),
    ]
}

#[cfg(test)]
mod tests {
    use calibration::nalgebra::Point3;
    use calibration::places::{pillar_point, spell_slots};
    use calibration::{Intrinsics, TablePoint};

    use super::*;
    use crate::reader::{DieColor, DieReading, MeepleColor, MeepleRank, MeepleReading};

    fn geometry() -> TableGeometry {
        let camera = Camera::looking_at(
            Intrinsics::from_field_of_view(1280, 720, 65.0),
            Point3::new(297.0, 650.0, -420.0),
            Point3::new(297.0, 220.0, 0.0),
        );
        TableGeometry::new(camera, MatLayout::a2())
    }

    fn die_at(geometry: &TableGeometry, point: TablePoint) -> DieReading {
        let p = geometry
            .camera
            .project(point.at_height(point.height_mm + 8.0))
            .unwrap();
        let (x, y) = (p.x as f32, p.y as f32);
        DieReading {
            color: DieColor::Blue,
            value: 3,
            box_px: [x - 10.0, y - 10.0, x + 10.0, y + 10.0],
            confidence: 1.0,
            value_confidence: 1.0,
            color_confidence: 1.0,
            uncertain: false,
            place: None,
        }
    }

    #[test]
    fn dice_on_pillars_and_in_zones_get_their_places() {
        let mut geometry = geometry();
        let layout = geometry.layout.clone();
        let tower = layout.zone("tower-b").unwrap();
        let mut reading = Reading::default();
        let mut expected = Vec::new();
        for level in [1, 3] {
            for pillar in 0..3 {
                let [x, y] = pillar_point(tower.center_mm, pillar, 0.1);
                let point = TablePoint::on_mat(x, y).at_height(floor_top_mm(level));
                reading.dice.push(die_at(&geometry, point));
                expected.push(Some(MatPlace::Tower {
                    tower: "tower-b".into(),
                    level,
                    pillar: pillar as u8 + 1,
                }));
            }
        }
        let roll = layout.zone("roll-area").unwrap().center_mm;
        reading.dice.push(die_at(
            &geometry,
            TablePoint::on_mat(roll[0] + 20.0, roll[1]),
        ));
        expected.push(Some(MatPlace::RollArea));
        let pool = layout.zone("mana-pool").unwrap().center_mm;
        reading
            .dice
            .push(die_at(&geometry, TablePoint::on_mat(pool[0], pool[1])));
        expected.push(Some(MatPlace::ManaPool));
        reading
            .dice
            .push(die_at(&geometry, TablePoint::on_mat(20.0, 20.0)));
        expected.push(None);

        // The level is searched when unknown, and taken as given when known.
        geometry.locate(&mut reading);
        let places: Vec<_> = reading.dice.iter().map(|d| d.place.clone()).collect();
        assert_eq!(places, expected);
        geometry.tower_levels.insert("tower-b".into(), 3);
        geometry.locate(&mut reading);
        assert_eq!(reading.dice[3].place, expected[3]);
    }

    #[test]
    fn a_meeple_on_a_spell_slot_is_on_that_slot() {
        let geometry = geometry();
        let zone = geometry.layout.zone("spellbook-2").unwrap().clone();
        let [x, y] = spell_slots(&zone)[4];
        let feet = geometry.camera.project(TablePoint::on_mat(x, y)).unwrap();
        let (fx, fy) = (feet.x as f32, feet.y as f32);
        let mut reading = Reading::default();
        reading.meeples.push(MeepleReading {
            player: MeepleColor::Red,
            rank: MeepleRank::Apprentice,
            box_px: [fx - 8.0, fy - 24.0, fx + 8.0, fy],
            confidence: 1.0,
            uncertain: false,
            place: None,
        });
        geometry.locate(&mut reading);
        assert_eq!(
            reading.meeples[0].place,
            Some(MatPlace::Spellbook { board: 2, slot: 5 })
        );
    }
}
