//! Where each read item stands, in the mat's words: with a calibration, a die's box centre
//! is traced back onto the plane at the height its centre would have on each tower floor
//! (and on the mat for the roll area, the mana pool and the spellbooks); a meeple's base is
//! the point on each such plane whose projected meeple best fits its box; of the pillars and
//! zones that fit, the one nearest that point where the piece would have the box's height is
//! the item's place.

use std::collections::HashMap;

use calibration::nalgebra::Vector2;
use calibration::places::{
    PILLAR_RADIUS_MM, distance, flat_fit, floor_top_mm, nearest_pillar, pillar_point,
};
use calibration::quality::{DIE_SIZE_MM, TOP_FLOOR};
use calibration::{Camera, MatLayout, MatPlace, TablePoint, Zone, ZoneKind};

use crate::motion::Changes;
use crate::reader::{BoxPx, MeepleRank, Reading};

/// How far from a pillar's circle a piece may stand and still be on that tower (mm).
const PILLAR_SLACK_MM: f64 = 12.0;

/// The weight of a box's size against its position in choosing its place (`place_cost`),
/// and the share by which a box may differ from the size of the piece the places assume
/// before its size counts at all (ln 1.16): pieces of another make, or boxes a little tall,
/// change no place. Both chosen on the validation renders (`tablesight eval
/// data/synth4/val`, HISTORY.md).
const SIZE_WEIGHT: f64 = 8.0;
const SIZE_TOLERANCE: f64 = 0.15;

/// A die whose box overlaps a printed marker's by this much (intersection over union) is
/// that marker: a 16 mm die on a 36 mm marker overlaps it by a fifth.
const MARKER_OVERLAP: f64 = 0.4;

/// A meeple whose box overlaps by this much (intersection over union) the box it would have
/// on a die seen on a pillar stands on that die.
const MEEPLE_ON_DIE_OVERLAP: f64 = 0.3;

/// The side of the square a die is read in, as a share of the side of the box the die has
/// where it stands (`TableGeometry::die_crop_box`): the reader reads best the dice cut as the
/// finder cuts them, about 0.86 of the labelled box (`finder_like` in
/// `models/training/train_reader.py`); on the validation renders 0.8 to 1.0 read alike
/// (`HISTORY.md`, 2026-11-28).
const DIE_CROP_SHARE: f64 = 0.9;

/// Where a piece stands: its place, and the centre of its base (mm) on the plane `base_mm`
/// above the mat.
#[derive(Clone, Debug, PartialEq)]
struct Stand {
    place: MatPlace,
    base: [f64; 2],
    base_mm: f64,
}

/// A meeple's shape as far as its box goes: a base disc on the ground and a head disc at
/// its full height. The discs' radii are the half-extents of the meeple's footprint and head
/// seen from a random side: a `w` by `d` rectangle turned at random reaches `(w + d) / pi`
/// on average from its centre along any direction.
#[derive(Clone, Copy, Debug, PartialEq)]
struct MeepleSize {
    height_mm: f64,
    base_radius_mm: f64,
    head_radius_mm: f64,
}

impl MeepleSize {
    /// The pieces of the game as the sprites are rendered (`models/render/render_sprites.py`):
    /// an apprentice 16 mm tall and 16 mm wide at its feet, its head 6.8 mm wide, 8 mm deep;
    /// a master 25 % taller and wider, as deep.
    fn of(rank: MeepleRank) -> Self {
        const DEPTH_MM: f64 = 8.0;
        let scale = match rank {
            MeepleRank::Apprentice => 1.0,
            MeepleRank::Master => 1.25,
        };
        let mean_reach = |width_mm: f64| (width_mm + DEPTH_MM) / std::f64::consts::PI;
        Self {
            height_mm: 16.0 * scale,
            base_radius_mm: mean_reach(16.0 * scale),
            head_radius_mm: mean_reach(6.8 * scale),
        }
    }
}

/// Steps of the fit of a meeple's base to its box: on the validation scenes the box is off
/// by under 0.1 px after the second step and under 0.01 px after the third.
const FIT_STEPS: usize = 4;

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

    /// The top floor of the tower zone named `zone` (`tower-a`...): the caller's, floor 1
    /// when it gave none.
    pub fn top_floor(&self, zone: &str) -> u8 {
        self.tower_levels.get(zone).copied().unwrap_or(1)
    }

    /// Where a die on each pillar of each tower's top floor shows its centre, in pixels of
    /// the frame: the tower zone's name, the pillar (1-3) and the pixel. Towers of unknown
    /// height are taken at floor 1; points behind the camera are left out.
    pub fn pillar_points_px(&self) -> Vec<(String, u8, [f32; 2])> {
        let mut points = Vec::new();
        for zone in self
            .layout
            .zones
            .iter()
            .filter(|z| z.kind == ZoneKind::Tower)
        {
            let level = self.top_floor(&zone.name);
            for index in 0..3 {
                let [x_mm, y_mm] = pillar_point(zone.center_mm, index, 0.0);
                let point = TablePoint {
                    x_mm,
                    y_mm,
                    height_mm: floor_top_mm(level) + DIE_SIZE_MM / 2.0,
                };
                if let Some(px) = self.camera.project(point) {
                    points.push((
                        zone.name.clone(),
                        index as u8 + 1,
                        [px.x as f32, px.y as f32],
                    ));
                }
            }
        }
        points
    }

    /// The box in pixels of the frame of `zone` with what stands in it: from the mat up to a
    /// master's head, on a tower's top floor on its die (towers of unknown height at floor
    /// 1). `None` when part of it is behind the camera.
    pub fn zone_box_px(&self, zone: &Zone) -> Option<BoxPx> {
        let master = MeepleSize::of(MeepleRank::Master).height_mm;
        let top_mm = if zone.kind == ZoneKind::Tower {
            let level = self.top_floor(&zone.name);
            floor_top_mm(level) + DIE_SIZE_MM + master
        } else {
            master
        };
        let ([x, y], [w, h]) = (zone.center_mm, zone.size_mm);
        let corners = [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)];
        let points = corners.into_iter().flat_map(|(a, b)| {
            [0.0, top_mm].map(|up| TablePoint::on_mat(x + a * w, y + b * h).at_height(up))
        });
        Some(self.projected_box(points)?.map(|v| v as f32))
    }

    /// The blocks of a `width` x `height` frame (`Motion`'s grid) over the box of any zone
    /// (`zone_box_px`): where a piece of the game can be seen. A camera's frames are read
    /// there only.
    pub fn zones_region(&self, width: u32, height: u32) -> Changes {
        let boxes: Vec<BoxPx> = (self.layout.zones.iter())
            .filter_map(|zone| self.zone_box_px(zone))
            .collect();
        Changes::covering(width, height, &boxes)
    }

    /// Sets the `place` of every die and meeple of `reading` (`None` off every zone), and
    /// drops the dice that are the mat's printed markers: a die whose box is a marker's
    /// (`MARKER_OVERLAP`). Seen close, a marker's black and white cells look like a white
    /// die's pips; a die standing on a marker covers a fifth of its box and stays.
    pub fn locate(&self, reading: &mut Reading) {
        let markers = self.marker_boxes_px();
        reading.dice.retain(|die| {
            let seen = die.box_px.map(f64::from);
            !markers.iter().any(|m| overlap(seen, *m) >= MARKER_OVERLAP)
        });
        let mut on_towers = Vec::new();
        for die in &mut reading.dice {
            let stand = self.die_stand(die.box_px);
            die.place = stand.as_ref().map(|stand| stand.place.clone());
            on_towers.extend(stand.filter(|s| matches!(s.place, MatPlace::Tower { .. })));
        }
        for meeple in &mut reading.meeples {
            let size = MeepleSize::of(meeple.rank);
            let box_px = meeple.box_px.map(f64::from);
            // On a die seen on a pillar, when its box is the box it would have there: the
            // die's place is known more surely than a lone box's (a meeple on a high floor
            // of the central tower can look like one on a low floor behind it).
            let on_die = (on_towers.iter())
                .filter_map(|die| {
                    let top_mm = die.base_mm + DIE_SIZE_MM;
                    let fit = overlap(box_px, self.meeple_box_px(die.base, size, top_mm)?);
                    Some((fit, die))
                })
                .filter(|(fit, _)| *fit >= MEEPLE_ON_DIE_OVERLAP)
                .max_by(|a, b| a.0.total_cmp(&b.0));
            meeple.place = match on_die {
                Some((_, die)) => Some(die.place.clone()),
                // On the floor, or on the die of its pillar.
                None => self
                    .stand_of(
                        box_px,
                        |base_mm| self.meeple_base(box_px, size, base_mm),
                        |base, base_mm| self.meeple_box_px(base, size, base_mm),
                        &[DIE_SIZE_MM],
                    )
                    .map(|stand| stand.place),
            };
        }
    }

    /// The square in which the reader reads a die found in `box_px`: centred on the box,
    /// its side `DIE_CROP_SHARE` of the side a die has in the frame where it stands (its
    /// place as `locate` finds it, or on the mat's plane off the zones), turned square to
    /// the mat's edges and an eighth of a turn. The finder's boxes of small dice are a
    /// fifth too small or too large as often as not, and the reader reads a die cut at the
    /// wrong scale worse (HISTORY.md, 2026-11-28). `None` when the camera cannot see there.
    pub fn die_crop_box(&self, box_px: BoxPx) -> Option<BoxPx> {
        let (base, base_mm) = match self.die_stand(box_px) {
            Some(stand) => (stand.base, stand.base_mm),
            None => (self.on_plane(centre(box_px), DIE_SIZE_MM / 2.0)?, 0.0),
        };
        let side = |turn: f64| {
            let [l, t, r, b] = self.turned_die_box_px(base, base_mm, turn)?;
            Some((r - l).max(b - t))
        };
        let side = DIE_CROP_SHARE * (side(0.0)? + side(std::f64::consts::FRAC_PI_4)?) / 2.0;
        let [x, y] = centre(box_px);
        let half = (side / 2.0) as f32;
        let [x, y] = [x as f32, y as f32];
        Some([x - half, y - half, x + half, y + half])
    }

    /// The box in pixels of an apprentice standing on the die seen in `box_px`, when that
    /// die stands on a pillar of a tower: where a meeple is to be looked for that the finder
    /// took for one item with its die (`DiceReader::read_pairs_on_towers`). `None` off the
    /// towers.
    pub fn meeple_on_die_box(&self, box_px: BoxPx) -> Option<BoxPx> {
        let stand = self.die_stand(box_px)?;
        if !matches!(stand.place, MatPlace::Tower { .. }) {
            return None;
        }
        let size = MeepleSize::of(MeepleRank::Apprentice);
        let meeple = self.meeple_box_px(stand.base, size, stand.base_mm + DIE_SIZE_MM)?;
        Some(meeple.map(|v| v as f32))
    }

    /// The square in which the reader reads the die under a meeple of `rank` seen in
    /// `box_px`, when that meeple stands on a pillar of a tower: where a die is to be looked
    /// for that the finder took for one item with its meeple
    /// (`DiceReader::read_pairs_on_towers`), cut as `die_crop_box` cuts a die found there.
    /// `None` off the towers.
    pub fn die_under_meeple_box(&self, box_px: BoxPx, rank: MeepleRank) -> Option<BoxPx> {
        let size = MeepleSize::of(rank);
        let seen = box_px.map(f64::from);
        let stand = self.stand_of(
            seen,
            |base_mm| self.meeple_base(seen, size, base_mm),
            |base, base_mm| self.meeple_box_px(base, size, base_mm),
            &[DIE_SIZE_MM],
        )?;
        let MatPlace::Tower { level, .. } = stand.place else {
            return None;
        };
        let die = self.die_box_px(stand.base, floor_top_mm(level))?;
        self.die_crop_box(die.map(|v| v as f32))
    }

    /// Where a die seen in `box_px` stands (`stand_of`): its box centre traced onto the
    /// plane of its centre at each height.
    fn die_stand(&self, box_px: BoxPx) -> Option<Stand> {
        let centre_px = centre(box_px);
        self.stand_of(
            box_px.map(f64::from),
            |base_mm| self.on_plane(centre_px, base_mm + DIE_SIZE_MM / 2.0),
            |base, base_mm| self.die_box_px(base, base_mm),
            &[],
        )
    }

    /// Where a piece seen in `box_px` stands, whose base, if it stood on the plane `base_mm`
    /// above the mat, would be at `base_at(base_mm)`, where its box would be
    /// `box_at(base, base_mm)`; on towers it may also stand `raised_mm` higher (a meeple on
    /// a die). Of the places it fits, the one it fits best wins: nearest its pillar's circle
    /// or spell slot, with a box of the size it would have there (`place_cost`).
    fn stand_of(
        &self,
        box_px: [f64; 4],
        base_at: impl Fn(f64) -> Option<[f64; 2]>,
        box_at: impl Fn([f64; 2], f64) -> Option<[f64; 4]>,
        raised_mm: &[f64],
    ) -> Option<Stand> {
        // Towers often stand at the same height: each plane's base is found once.
        let mut bases: Vec<(f64, Option<[f64; 2]>)> = Vec::new();
        let mut base_on = |height_mm: f64| match bases.iter().find(|(h, _)| *h == height_mm) {
            Some(&(_, base)) => base,
            None => {
                let base = base_at(height_mm);
                bases.push((height_mm, base));
                base
            }
        };
        let mut best: Option<(f64, Stand)> = None;
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
                    let Some(point) = base_on(floor_top_mm(level) + extra) else {
                        continue;
                    };
                    let miss = (distance(point, zone.center_mm) - PILLAR_RADIUS_MM).abs();
                    if miss > PILLAR_SLACK_MM {
                        continue;
                    }
                    let base_mm = floor_top_mm(level) + extra;
                    let cost = place_cost(miss, box_px, box_at(point, base_mm));
                    if best.as_ref().is_some_and(|(b, _)| *b <= cost) {
                        continue;
                    }
                    let pillar = nearest_pillar(zone.center_mm, point) as u8 + 1;
                    let place = MatPlace::Tower {
                        tower: zone.name.clone(),
                        level,
                        pillar,
                    };
                    let stand = Stand {
                        place,
                        base: point,
                        base_mm,
                    };
                    best = Some((cost, stand));
                }
            }
        }
        let flat = base_on(0.0).and_then(|point| {
            let (place, miss) = flat_fit(&self.layout.zones, point)?;
            // Anywhere in the roll area or the mana pool fits as well as the edge of a
            // pillar's slack: a piece that fits a pillar better stands on it.
            let anywhere = if matches!(place, MatPlace::RollArea | MatPlace::ManaPool) {
                1.0
            } else {
                0.0
            };
            let stand = Stand {
                place,
                base: point,
                base_mm: 0.0,
            };
            Some((
                anywhere + place_cost(miss, box_px, box_at(point, 0.0)),
                stand,
            ))
        });
        // A tie goes to the tower.
        [best, flat]
            .into_iter()
            .flatten()
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, stand)| stand)
    }

    /// The box in pixels of a die whose bottom face is centred on `base` (mm), on the plane
    /// `base_mm` above the mat, turned square to the mat's edges.
    fn die_box_px(&self, base: [f64; 2], base_mm: f64) -> Option<[f64; 4]> {
        self.turned_die_box_px(base, base_mm, 0.0)
    }

    /// The same, the die turned by `turn` (radians) about its upright axis.
    fn turned_die_box_px(&self, base: [f64; 2], base_mm: f64, turn: f64) -> Option<[f64; 4]> {
        let half = DIE_SIZE_MM / 2.0;
        let (sin, cos) = turn.sin_cos();
        self.projected_box(
            [(-1.0, -1.0), (-1.0, 1.0), (1.0, -1.0), (1.0, 1.0)]
                .into_iter()
                .flat_map(|(a, b)| {
                    let (dx, dy) = (half * (a * cos - b * sin), half * (a * sin + b * cos));
                    [0.0, DIE_SIZE_MM].map(|up| {
                        TablePoint::on_mat(base[0] + dx, base[1] + dy).at_height(base_mm + up)
                    })
                }),
        )
    }

    /// The box in pixels of the mat, around its printed markers (they stand along its
    /// edges); `None` when part of it is behind the camera.
    pub fn mat_box_px(&self) -> Option<BoxPx> {
        let corners = (self.layout.markers.iter()).flat_map(|marker| marker.corners());
        Some(self.projected_box(corners)?.map(|v| v as f32))
    }

    /// The box in the image of each printed marker in front of the camera.
    fn marker_boxes_px(&self) -> Vec<[f64; 4]> {
        (self.layout.markers.iter())
            .filter_map(|marker| self.projected_box(marker.corners()))
            .collect()
    }

    /// The box in pixels around `points` as the camera sees them; `None` when one is behind
    /// it.
    fn projected_box(&self, points: impl IntoIterator<Item = TablePoint>) -> Option<[f64; 4]> {
        let start = [
            f64::INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NEG_INFINITY,
        ];
        points.into_iter().try_fold(start, |[l, t, r, b], point| {
            let p = self.camera.project(point)?;
            Some([l.min(p.x), t.min(p.y), r.max(p.x), b.max(p.y)])
        })
    }

    /// The mat point (mm) under `pixel` on the plane `height_mm` above the mat.
    fn on_plane(&self, pixel: [f64; 2], height_mm: f64) -> Option<[f64; 2]> {
        let point = self.camera.on_plane(pixel, height_mm)?;
        Some([point.x_mm, point.y_mm])
    }

    /// The centre of the base of a meeple of `size` seen in `box_px`, if it stands on the
    /// plane `base_mm` above the mat: the point whose projected meeple has its box centred
    /// where `box_px` is. Straight from above the box is centred on the base; from a low
    /// camera its bottom is the near edge of the base and its top the far side of the head,
    /// so the base lies well above the box's bottom edge.
    fn meeple_base(&self, box_px: [f64; 4], size: MeepleSize, base_mm: f64) -> Option<[f64; 2]> {
        let target_px = Vector2::new(box_px[0] + box_px[2], box_px[1] + box_px[3]) / 2.0;
        let mut base = self.on_plane(target_px.into(), base_mm)?;
        for _ in 0..FIT_STEPS {
            let [l, t, r, b] = self.meeple_box_px(base, size, base_mm)?;
            let shift_px = target_px - Vector2::new(l + r, t + b) / 2.0;
            let seen_px = self
                .camera
                .project(TablePoint::on_mat(base[0], base[1]).at_height(base_mm))?;
            base = self.on_plane((seen_px.coords + shift_px).into(), base_mm)?;
        }
        Some(base)
    }

    /// The box in pixels of a meeple of `size` whose base is centred on `base` (mm), on the
    /// plane `base_mm` above the mat: the box of its base and head discs.
    fn meeple_box_px(&self, base: [f64; 2], size: MeepleSize, base_mm: f64) -> Option<[f64; 4]> {
        const RIM_POINTS: usize = 16;
        let rims = [
            (size.base_radius_mm, base_mm),
            (size.head_radius_mm, base_mm + size.height_mm),
        ];
        self.projected_box(rims.into_iter().flat_map(|(radius_mm, height_mm)| {
            (0..RIM_POINTS).map(move |k| {
                let angle = std::f64::consts::TAU * k as f64 / RIM_POINTS as f64;
                TablePoint::on_mat(
                    base[0] + radius_mm * angle.cos(),
                    base[1] + radius_mm * angle.sin(),
                )
                .at_height(height_mm)
            })
        }))
    }
}

/// How far a piece seen in `box_px` is from fitting a place: `miss_mm` off the place (a
/// pillar's circle, a spell slot, the reserve row; `flat_fit`), as a share of
/// `PILLAR_SLACK_MM`, plus
/// `SIZE_WEIGHT` times how far the seen box's height is from the height of the box
/// `expected_px` it would have there (the log of their ratio, beyond `SIZE_TOLERANCE`; the
/// height, as a meeple's width changes with how it is turned). A tower's top floor lies up to 140 mm nearer the
/// camera than the mat: a meeple on a spell slot beyond it, traced onto the floor's plane,
/// can land on a pillar, but looks a third smaller than a meeple standing there.
fn place_cost(miss_mm: f64, box_px: [f64; 4], expected_px: Option<[f64; 4]>) -> f64 {
    let height = |[_, top, _, bottom]: [f64; 4]| (bottom - top).max(1.0);
    let misfit = expected_px.map_or(0.0, |e| {
        ((height(box_px) / height(e)).ln().abs() - SIZE_TOLERANCE).max(0.0)
    });
    miss_mm / PILLAR_SLACK_MM + SIZE_WEIGHT * misfit
}

/// Intersection over union of two boxes `[left, top, right, bottom]`.
fn overlap(a: [f64; 4], b: [f64; 4]) -> f64 {
    let area = |[l, t, r, b]: [f64; 4]| (r - l).max(0.0) * (b - t).max(0.0);
    let common = area([
        a[0].max(b[0]),
        a[1].max(b[1]),
        a[2].min(b[2]),
        a[3].min(b[3]),
    ]);
    common / (area(a) + area(b) - common).max(f64::EPSILON)
}

fn centre(b: BoxPx) -> [f64; 2] {
    [
        f64::from((b[0] + b[2]) / 2.0),
        f64::from((b[1] + b[3]) / 2.0),
    ]
}

#[cfg(test)]
mod tests {
    use calibration::Intrinsics;
    use calibration::nalgebra::Point3;
    use calibration::places::{pillar_point, spell_slots};

    use super::*;
    use crate::reader::{DieColor, DieReading, MeepleColor, MeepleReading};

    fn geometry() -> TableGeometry {
        let camera = Camera::looking_at(
            Intrinsics::from_field_of_view(1280, 720, 65.0),
            Point3::new(297.0, 650.0, -420.0),
            Point3::new(297.0, 220.0, 0.0),
        );
        TableGeometry::new(camera, MatLayout::a2())
    }

    /// A die standing at `point`, its box the projected cube's.
    fn die_at(geometry: &TableGeometry, point: TablePoint) -> DieReading {
        let box_px = geometry
            .die_box_px([point.x_mm, point.y_mm], point.height_mm)
            .unwrap();
        DieReading {
            id: 1,
            color: DieColor::Blue,
            value: 3,
            box_px: box_px.map(|v| v as f32),
            confidence: 1.0,
            value_confidence: 1.0,
            color_confidence: 1.0,
            value_probabilities: [0.0; 6],
            color_probabilities: [0.0; 5],
            uncertain: false,
            place: None,
        }
    }

    #[test]
    fn a_die_found_as_a_printed_marker_is_dropped_and_a_die_on_one_kept() {
        let geometry = geometry();
        let markers = geometry.marker_boxes_px();
        let marker = &geometry.layout.markers[0];
        let on_marker = TablePoint::on_mat(marker.center_mm[0], marker.center_mm[1]);
        let mut reading = Reading::default();
        let mut found_as_marker = die_at(&geometry, on_marker);
        found_as_marker.box_px = markers[0].map(|v| v as f32);
        found_as_marker.color = DieColor::Other;
        reading.dice.push(found_as_marker);
        let mut standing_on_it = die_at(&geometry, on_marker);
        let [x, y] = centre(standing_on_it.box_px);
        let half = (markers[0][2] - markers[0][0]) * 16.0 / 36.0 / 2.0;
        standing_on_it.box_px = [x - half, y - half, x + half, y + half].map(|v| v as f32);
        reading.dice.push(standing_on_it);
        geometry.locate(&mut reading);
        let kept: Vec<DieColor> = reading.dice.iter().map(|d| d.color).collect();
        assert_eq!(
            kept,
            [DieColor::Blue],
            "the marker dropped, the die on it kept"
        );
    }

    #[test]
    fn a_die_seen_at_a_pillars_point_is_placed_on_that_pillar() {
        let mut geometry = geometry();
        geometry.tower_levels.insert("tower-b".into(), 2);
        let points = geometry.pillar_points_px();
        assert_eq!(points.len(), 12, "three pillars of four towers");
        for (zone, pillar, [x, y]) in points {
            let level = if zone == "tower-b" { 2 } else { 1 };
            let mut reading = Reading::default();
            let mut die = die_at(&geometry, TablePoint::on_mat(0.0, 0.0));
            die.box_px = [x - 10.0, y - 10.0, x + 10.0, y + 10.0];
            reading.dice.push(die);
            geometry.locate(&mut reading);
            assert_eq!(
                reading.dice[0].place,
                Some(MatPlace::Tower {
                    tower: zone.clone(),
                    level,
                    pillar
                }),
                "{zone} pillar {pillar}"
            );
        }
    }

    #[test]
    fn a_die_is_cut_at_the_size_a_die_has_where_it_stands_whatever_its_box() {
        let mut geometry = geometry();
        geometry.tower_levels.insert("tower-b".into(), 3);
        // A tower whose height is known: the size of a box does not choose its floor.
        let zone = |name: &str| {
            let mut zones = geometry.layout.zones.iter();
            zones.find(|z| z.name == name).unwrap().center_mm
        };
        let [x, y] = pillar_point(zone("tower-b"), 0, 0.0);
        let on_tower = TablePoint::on_mat(x, y).at_height(floor_top_mm(3));
        let [x, y] = zone("roll-area");
        let on_mat = TablePoint::on_mat(x, y);
        let side = |b: BoxPx| (b[2] - b[0]).max(b[3] - b[1]);
        for point in [on_tower, on_mat] {
            let seen = die_at(&geometry, point).box_px;
            let [cx, cy] = centre(seen).map(|v| v as f32);
            // The finder's box a fifth too small, right, or a quarter too large.
            let cuts = [0.8, 1.0, 1.25].map(|scale| {
                let half = scale * side(seen) / 2.0;
                geometry
                    .die_crop_box([cx - half, cy - half, cx + half, cy + half])
                    .unwrap()
            });
            for cut in cuts {
                assert!((centre(cut)[0] - f64::from(cx)).abs() < 1e-3);
                assert!((centre(cut)[1] - f64::from(cy)).abs() < 1e-3);
                let share = side(cut) / side(seen);
                assert!((0.85..1.15).contains(&share), "{share}");
                assert!((side(cut) - side(cuts[1])).abs() < 0.01, "{cuts:?}");
            }
        }
    }

    #[test]
    fn each_half_of_a_pair_is_looked_for_on_a_tower_and_nowhere_else() {
        let mut geometry = geometry();
        geometry.tower_levels.insert("tower-b".into(), 2);
        let zone = |name: &str| geometry.layout.zone(name).unwrap().center_mm;
        let [x, y] = pillar_point(zone("tower-b"), 1, 0.0);
        let base = TablePoint::on_mat(x, y).at_height(floor_top_mm(2));
        let on_die = base.at_height(base.height_mm + DIE_SIZE_MM);
        let die = die_at(&geometry, base).box_px;
        let side = |b: BoxPx| (b[2] - b[0]).max(b[3] - b[1]);
        // The meeple on the die: the box of the base's and head's discs, against the box of
        // the game's shape, its head higher in the frame than the die's top.
        let looked = geometry.meeple_on_die_box(die).unwrap();
        let apprentice = meeple_box(&geometry.camera, on_die, MeepleRank::Apprentice, 0.0);
        assert!(
            overlap(looked.map(f64::from), apprentice.map(f64::from)) > 0.6,
            "{looked:?} {apprentice:?}"
        );
        assert!(
            looked[1] < die[1] && looked[3] < die[3],
            "{looked:?} {die:?}"
        );
        // The die under the meeple: cut as `die_crop_box` cuts it, where it is within a
        // tenth of its side (the meeple's base is found from its box through a simpler
        // shape than the game's).
        let cut = geometry.die_crop_box(die).unwrap();
        for rank in [MeepleRank::Apprentice, MeepleRank::Master] {
            let meeple = meeple_box(&geometry.camera, on_die, rank, 0.0);
            let under = geometry.die_under_meeple_box(meeple, rank).unwrap();
            assert!(
                (side(under) / side(cut) - 1.0).abs() < 0.02,
                "{under:?} {cut:?}"
            );
            let miss = distance(centre(under), centre(die)) / f64::from(side(die));
            assert!(miss < 0.1, "{rank:?}: {under:?} {die:?}");
        }
        // Off the towers, neither.
        let [x, y] = zone("roll-area");
        let in_roll = TablePoint::on_mat(x, y);
        let die = die_at(&geometry, in_roll).box_px;
        assert_eq!(geometry.meeple_on_die_box(die), None);
        let meeple = meeple_box(&geometry.camera, in_roll, MeepleRank::Apprentice, 0.0);
        let under = geometry.die_under_meeple_box(meeple, MeepleRank::Apprentice);
        assert_eq!(under, None);
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

    /// The box a meeple of the game's shape makes, standing at `base` turned by `turn_rad`:
    /// the corners of its feet (16 by 8 mm), shoulders (16.6 by 8 mm, 8.8 mm up) and head
    /// (6.8 by 8 mm at 16 mm), a master 25 % larger but as deep.
    fn meeple_box(camera: &Camera, base: TablePoint, rank: MeepleRank, turn_rad: f64) -> BoxPx {
        let scale = if rank == MeepleRank::Master {
            1.25
        } else {
            1.0
        };
        let (sin, cos) = turn_rad.sin_cos();
        let mut bounds = [f32::MAX, f32::MAX, f32::MIN, f32::MIN];
        for (width_mm, up_mm) in [(16.0, 0.0), (16.6, 8.8), (6.8, 16.0)] {
            for (a, b) in [(-1.0, -1.0), (-1.0, 1.0), (1.0, -1.0), (1.0, 1.0)] {
                let (along, deep) = (a * width_mm * scale / 2.0, b * 4.0);
                let corner = TablePoint::on_mat(
                    base.x_mm + along * cos - deep * sin,
                    base.y_mm + along * sin + deep * cos,
                )
                .at_height(base.height_mm + up_mm * scale);
                let p = camera.project(corner).unwrap();
                let (x, y) = (p.x as f32, p.y as f32);
                bounds = [
                    bounds[0].min(x),
                    bounds[1].min(y),
                    bounds[2].max(x),
                    bounds[3].max(y),
                ];
            }
        }
        bounds
    }

    fn meeple(box_px: BoxPx, rank: MeepleRank) -> MeepleReading {
        MeepleReading {
            id: 1,
            player: MeepleColor::Green,
            rank,
            box_px,
            confidence: 1.0,
            uncertain: false,
            place: None,
        }
    }

    /// Cameras from straight above down to 35 degrees, from the near edge and the left.
    fn cameras() -> Vec<(f64, Camera)> {
        let target = Point3::new(297.0, 210.0, 0.0);
        let mut cameras = Vec::new();
        for (elevation_deg, azimuth_deg) in [
            (35.0_f64, 90.0_f64),
            (40.0, 90.0),
            (40.0, 200.0),
            (62.0, 60.0),
            (90.0, 90.0),
        ] {
            let (e, a) = (elevation_deg.to_radians(), azimuth_deg.to_radians());
            let distance_mm = 750.0;
            let eye = Point3::new(
                target.x + distance_mm * e.cos() * a.cos(),
                target.y + distance_mm * e.cos() * a.sin(),
                -distance_mm * e.sin(),
            );
            let intrinsics = Intrinsics::from_field_of_view(1280, 720, 70.0);
            cameras.push((elevation_deg, Camera::looking_at(intrinsics, eye, target)));
        }
        cameras
    }

    #[test]
    fn meeples_on_spell_slots_and_dice_are_placed_from_any_elevation() {
        // The old rule took the bottom of the box for the feet: from 35 degrees a master on
        // slot 2 was put on slot 5, a row (19 mm) nearer the camera.
        let layout = MatLayout::a2();
        for (elevation_deg, camera) in cameras() {
            let mut geometry = TableGeometry::new(camera, layout.clone());
            // The referee knows every tower's top floor.
            for (tower, level) in [
                ("tower-a", 1),
                ("tower-b", 2),
                ("tower-c", 1),
                ("tower-central", 3),
            ] {
                geometry.tower_levels.insert(tower.into(), level);
            }
            let mut reading = Reading::default();
            let mut expected = Vec::new();
            let mut turn_rad = 0.3;
            for rank in [MeepleRank::Apprentice, MeepleRank::Master] {
                for board in 1..=4u8 {
                    let zone = layout.zone(&format!("spellbook-{board}")).unwrap();
                    for (slot, [x, y]) in spell_slots(zone).into_iter().enumerate() {
                        turn_rad += 0.9;
                        let base = TablePoint::on_mat(x, y);
                        reading
                            .meeples
                            .push(meeple(meeple_box(&camera, base, rank, turn_rad), rank));
                        expected.push(Some(MatPlace::Spellbook {
                            board,
                            slot: slot as u8 + 1,
                        }));
                    }
                }
                for (tower, level) in [("tower-b", 2), ("tower-central", 3)] {
                    let center = layout.zone(tower).unwrap().center_mm;
                    for pillar in 0..3 {
                        turn_rad += 0.9;
                        let [x, y] = pillar_point(center, pillar, 0.05);
                        let on_die =
                            TablePoint::on_mat(x, y).at_height(floor_top_mm(level) + DIE_SIZE_MM);
                        reading
                            .meeples
                            .push(meeple(meeple_box(&camera, on_die, rank, turn_rad), rank));
                        expected.push(Some(MatPlace::Tower {
                            tower: tower.into(),
                            level,
                            pillar: pillar as u8 + 1,
                        }));
                    }
                }
            }
            geometry.locate(&mut reading);
            for (meeple, expected) in reading.meeples.iter().zip(&expected) {
                assert_eq!(
                    &meeple.place, expected,
                    "from {elevation_deg} degrees, {:?}",
                    meeple.rank
                );
            }
        }
    }

    #[test]
    fn a_meeple_seen_on_a_die_stands_on_that_die_whatever_tower_its_box_alone_fits() {
        // Frame 535 of held-out game 15 (seed 15): Red's apprentice on the blue 1 on pillar 1
        // of the central tower's third floor is seen just in front of tower A's pillar 3, where
        // Green's apprentice stands on the yellow 1. Its box, short (the die's rim hides its
        // feet), fits tower A's floor better than the central tower's; the die under it is
        // seen. The render's camera; the boxes as the shipped models found them.
        let camera: Camera = serde_json::from_str(
            r#"{"intrinsics": {"fx_px": 1012.8616291445978, "fy_px": 1014.374319139181,
                "cx_px": 641.793406380519, "cy_px": 366.03150481393516,
                "k1": -0.15414811380370563, "k2": 0.055146242883822943},
              "camera_from_table": {"rotation": [-0.2769169201044301, 0.006854735032991749,
                0.02377784725799535, 0.9605751641320317],
                "translation": [-281.57597580448703, -184.27848572736718, 868.413735258385]}}"#,
        )
        .unwrap();
        let mut geometry = TableGeometry::new(camera, MatLayout::a2());
        let die = |box_px: BoxPx| DieReading {
            box_px,
            ..die_at(&geometry, TablePoint::on_mat(0.0, 0.0))
        };
        let blue = die([632.66, 301.71, 660.36, 332.19]);
        let yellow = die([609.66, 264.52, 637.76, 295.61]);
        let green = meeple([612.35, 256.17, 635.10, 277.38], MeepleRank::Apprentice);
        let red = meeple([636.15, 285.24, 657.15, 305.75], MeepleRank::Apprentice);
        let tower = |tower: &str, level, pillar| {
            Some(MatPlace::Tower {
                tower: tower.into(),
                level,
                pillar,
            })
        };
        for levels in [false, true] {
            if levels {
                geometry.tower_levels.insert("tower-a".into(), 1);
                geometry.tower_levels.insert("tower-central".into(), 3);
            }
            let mut reading = Reading {
                dice: vec![blue.clone(), yellow.clone()],
                meeples: vec![green.clone(), red.clone()],
                ..Reading::default()
            };
            geometry.locate(&mut reading);
            let places: Vec<_> = reading.meeples.iter().map(|m| m.place.clone()).collect();
            assert_eq!(
                places,
                [tower("tower-a", 1, 3), tower("tower-central", 3, 1)],
                "tower levels known: {levels}"
            );
            // Without the die, the box alone chooses tower A.
            reading.dice.clear();
            geometry.locate(&mut reading);
            assert_eq!(reading.meeples[1].place, tower("tower-a", 1, 3));
        }
    }

    #[test]
    fn meeples_beyond_tall_towers_keep_their_spell_slots() {
        // Traced onto the top floor of a seven-floor tower, 124 mm up, a meeple on a spell
        // slot beyond it can land on a pillar's circle; it looks a third smaller than a
        // meeple standing there would.
        let layout = MatLayout::a2();
        for (elevation_deg, camera) in cameras() {
            let mut geometry = TableGeometry::new(camera, layout.clone());
            for tower in ["tower-a", "tower-b", "tower-c", "tower-central"] {
                geometry.tower_levels.insert(tower.into(), 7);
            }
            let mut reading = Reading::default();
            let mut expected = Vec::new();
            let mut turn_rad = 0.1;
            for board in 1..=4u8 {
                let zone = layout.zone(&format!("spellbook-{board}")).unwrap();
                for (slot, [x, y]) in spell_slots(zone).into_iter().enumerate() {
                    turn_rad += 0.7;
                    let rank = MeepleRank::Apprentice;
                    let box_px = meeple_box(&camera, TablePoint::on_mat(x, y), rank, turn_rad);
                    reading.meeples.push(meeple(box_px, rank));
                    expected.push(Some(MatPlace::Spellbook {
                        board,
                        slot: slot as u8 + 1,
                    }));
                }
            }
            let center = layout.zone("tower-central").unwrap().center_mm;
            for pillar in 0..3 {
                let [x, y] = pillar_point(center, pillar, 0.0);
                let on_die = TablePoint::on_mat(x, y).at_height(floor_top_mm(7) + DIE_SIZE_MM);
                let rank = MeepleRank::Master;
                reading
                    .meeples
                    .push(meeple(meeple_box(&camera, on_die, rank, 0.4), rank));
                expected.push(Some(MatPlace::Tower {
                    tower: "tower-central".into(),
                    level: 7,
                    pillar: pillar as u8 + 1,
                }));
            }
            geometry.locate(&mut reading);
            let places: Vec<_> = reading.meeples.iter().map(|m| m.place.clone()).collect();
            assert_eq!(places, expected, "from {elevation_deg} degrees");
        }
    }

    #[test]
    fn the_fitted_base_is_within_three_millimetres() {
        let layout = MatLayout::a2();
        for (elevation_deg, camera) in cameras() {
            let geometry = TableGeometry::new(camera, layout.clone());
            for rank in [MeepleRank::Apprentice, MeepleRank::Master] {
                for (i, turn_rad) in [0.0, 0.8, 1.6, 2.4].into_iter().enumerate() {
                    let base = TablePoint::on_mat(220.0 + 40.0 * i as f64, 330.0);
                    let box_px = meeple_box(&camera, base, rank, turn_rad).map(f64::from);
                    let [x, y] = geometry
                        .meeple_base(box_px, MeepleSize::of(rank), 0.0)
                        .unwrap();
                    let miss_mm = distance([x, y], [base.x_mm, base.y_mm]);
                    assert!(
                        miss_mm < 3.0,
                        "{miss_mm:.1} mm off from {elevation_deg} degrees"
                    );
                }
            }
        }
    }
}
