//! From a frame to the referee's [`Observation`]: the reader reads the dice and meeples, the
//! calibration puts each on its place of the mat (with the towers' heights the game knows),
//! and the mat's places become the game's (zones by tower, spellbook boards by seat).
//! The camera, a recording and the demo all referee through here.

use std::collections::HashMap;

use calibration::{Camera, MarkerDetector, MatLayout, MatPlace, TrackStatus, Tracker, ZoneKind};
use image::RgbImage;
use referee::{Observation, Place, SeenDie, SeenMeeple, Zone};
use rules::{
    Die, DieColor, DieValue, GameState, Meeple, PillarIndex, PlayerColor, Rank, SpellId, TowerId,
};
use vision::{
    BoxPx, Changes, DiceReader, DieReading, MeepleReading, Motion, Reading, TableGeometry,
    VisionError,
};

/// The mat zone of each tower.
fn tower_of_zone(zone: &str) -> Option<TowerId> {
    TowerId::ALL
        .into_iter()
        .find(|&t| synth::tower_zone(t) == zone)
}

/// The player of spellbook board `board` (1-4), `seats` the players in seating order.
fn seat_of(board: u8, seats: &[PlayerColor]) -> Option<PlayerColor> {
    seats.get(usize::from(board).checked_sub(1)?).copied()
}

/// A place of the mat in the words of the game; `seats` are the players in seating order
/// (spellbook board 1 is the first's).
pub fn game_place(place: Option<&MatPlace>, seats: &[PlayerColor]) -> Place {
    let seat = |board: u8| seat_of(board, seats);
    match place {
        Some(MatPlace::Tower {
            tower,
            level,
            pillar,
        }) => match (tower_of_zone(tower), PillarIndex::try_from(*pillar)) {
            (Some(tower), Ok(pillar)) => Place::Tower {
                tower,
                level: *level,
                pillar,
                buried: false,
            },
            _ => Place::Elsewhere,
        },
        Some(MatPlace::RollArea) => Place::RollArea,
        Some(MatPlace::ManaPool) => Place::ManaPool,
        Some(MatPlace::Spellbook { board, slot }) => {
            let spell = SpellId::ALL.get(usize::from(*slot).wrapping_sub(1));
            match (seat(*board), spell) {
                (Some(player), Some(&spell)) => Place::Spellbook { player, spell },
                _ => Place::Elsewhere,
            }
        }
        Some(MatPlace::Reserve { board }) => match seat(*board) {
            Some(player) => Place::Reserve { player },
            None => Place::Elsewhere,
        },
        None => Place::Elsewhere,
    }
}

fn die_color(color: vision::DieColor) -> Option<DieColor> {
    Some(match color {
        vision::DieColor::Pink => DieColor::Pink,
        vision::DieColor::Purple => DieColor::Purple,
        vision::DieColor::Yellow => DieColor::Yellow,
        vision::DieColor::Blue => DieColor::Blue,
        vision::DieColor::Other => return None,
    })
}

fn player_color(color: vision::MeepleColor) -> PlayerColor {
    match color {
        vision::MeepleColor::Blue => PlayerColor::Blue,
        vision::MeepleColor::Green => PlayerColor::Green,
        vision::MeepleColor::Red => PlayerColor::Red,
        vision::MeepleColor::Yellow => PlayerColor::Yellow,
    }
}

/// A located reading as the referee's observation of frame `frame`. Dice of a colour the
/// game does not have (another game's dice) are left out. A die on the pillar of a meeple
/// is seen unsure: the meeple stands on its top face, so whatever value was read is a
/// guess (its colour still shows).
pub fn observation_of(
    reading: &Reading,
    seats: &[PlayerColor],
    frame: u64,
    time_s: f64,
) -> Observation {
    let mut observation = Observation {
        frame,
        time_s,
        // The calibration put each piece on the top floor the game has (`Observer::observe`).
        levels_assumed: true,
        ..Observation::default()
    };
    for meeple in &reading.meeples {
        observation.meeples.push(SeenMeeple {
            meeple: Meeple {
                player: player_color(meeple.player),
                rank: match meeple.rank {
                    vision::MeepleRank::Apprentice => Rank::Apprentice,
                    vision::MeepleRank::Master => Rank::Master,
                },
            },
            place: game_place(meeple.place.as_ref(), seats),
            confidence: meeple.confidence,
            uncertain: meeple.uncertain,
        });
    }
    for die in &reading.dice {
        let (Some(color), Some(value)) = (die_color(die.color), DieValue::new(die.value)) else {
            continue;
        };
        let place = game_place(die.place.as_ref(), seats);
        let under_meeple = matches!(place, Place::Tower { .. })
            && observation.meeples.iter().any(|m| m.place == place);
        observation.dice.push(SeenDie {
            die: Die::new(color, value),
            place,
            confidence: die.confidence,
            uncertain: die.uncertain || under_meeple,
            value_probabilities: Some(die.value_probabilities),
            // The reader's first four colours are the game's, in the same order.
            color_probabilities: die.color_probabilities[..4].try_into().ok(),
        });
    }
    observation
}

/// One frame read in this many is searched for the mat's markers, to follow a camera or a
/// mat that moved (about once a second at 15 frames a second; a search takes a few ms).
const TRACK_EVERY: u32 = 15;

/// Markers off by this share of the frame's width (median; 13 px of a 1280x720 frame) mean
/// the camera or the mat moved; smaller offsets are followed smoothly. The lens of a camera
/// calibrated from the markers of one frame is a guess, which leaves markers 5-11 px off
/// the pose when hands cover some of them (rendered demo game).
const MOVED_SHARE: f64 = 0.01;

/// Blocks of 32 px (of a 1280x720 frame) that move together from one frame to the next
/// when a hand or an arm moves over the table; a die put down or taken moves 2-9.
const HAND_BLOCKS: usize = 16;

/// A hand that stops over the table after moving in is taken for the table once it has
/// rested this long (seconds): by then it is more likely something put down at the
/// picture's edge than a hand, and a table never read again would referee nothing.
const REST_LIMIT_S: f64 = 10.0;

/// After something moved, the blocks that moved are read again in at least this many still
/// frames (as many as the referee's vote needs to fill its window,
/// [`TableReader::new`]). Each is a fresh ballot for the vote: a die read near the reader's
/// threshold (one under a meeple, one half in a shadow) is seen in some frames and not in
/// others, and the reading of the last frame that moved, often taken as the hand left,
/// must not stand alone for as long as the table stays still.
const FRESH_READS: u32 = 4;

/// A die on a tower's top floor always stands with its meeple, and the finder, which often
/// peaks once for the pair, now and then misses the meeple in every fresh read. While a
/// still reading shows a die there with no meeple, its place is read again, in up to this
/// many still frames after each move: each a fresh ballot for the vote.
const UNMANNED_READS: u32 = 20;

/// The fresh reads of an item since it last moved that are kept for its consensus
/// ([`ReadsSinceMoved`]).
const READS_KEPT: usize = 16;

/// Each item's fresh reads since it last moved, by its number (`vision::ItemId`). An item
/// that nothing moved over is not read again: the reading keeps it, and the referee's vote
/// counts it in every frame where something else moved. Shown as its last read alone, one
/// misreading in the frames after a move (a master read as an apprentice once in nine)
/// would then outvote the others as soon as a hand elsewhere clears the vote's window, so
/// a kept item shows the latest read of what most of its reads read.
#[derive(Default)]
struct ReadsSinceMoved {
    dice: HashMap<vision::ItemId, Vec<DieReading>>,
    meeples: HashMap<vision::ItemId, Vec<MeepleReading>>,
}

impl ReadsSinceMoved {
    /// Adds the items of `reading` read afresh in the blocks `read` (their reads started
    /// anew where `moved` touches them), and shows each kept item as its consensus.
    fn update(&mut self, reading: &mut Reading, read: Option<&Changes>, moved: Option<&Changes>) {
        let fresh = |box_px: BoxPx| read.is_some_and(|r| r.touches(box_px));
        let restart = |box_px: BoxPx| moved.is_some_and(|m| m.touches(box_px));
        update_items(&mut self.dice, &mut reading.dice, fresh, restart);
        update_items(&mut self.meeples, &mut reading.meeples, fresh, restart);
    }
}

/// An item of a reading as [`ReadsSinceMoved`] keeps its reads.
trait ItemRead: Clone {
    type Shows: PartialEq;
    fn id(&self) -> vision::ItemId;
    fn box_px(&self) -> BoxPx;
    /// What it shows: a die's colour and value, a meeple's player and rank.
    fn shows(&self) -> Self::Shows;
    /// `read` shown where this item stands, under its number.
    fn shown_as(&self, read: &Self) -> Self;
}

/// `ItemRead` for a reading type whose fields `$shows` are what it shows.
macro_rules! item_read {
    ($reading:ty, $shows:ty, $($field:ident),+) => {
        impl ItemRead for $reading {
            type Shows = $shows;
            fn id(&self) -> vision::ItemId {
                self.id
            }
            fn box_px(&self) -> BoxPx {
                self.box_px
            }
            fn shows(&self) -> Self::Shows {
                ($(self.$field),+)
            }
            fn shown_as(&self, read: &Self) -> Self {
                Self {
                    id: self.id,
                    box_px: self.box_px,
                    place: self.place.clone(),
                    ..read.clone()
                }
            }
        }
    };
}

item_read!(DieReading, (vision::DieColor, u8), color, value);
item_read!(
    MeepleReading,
    (vision::MeepleColor, vision::MeepleRank),
    player,
    rank
);

/// Adds to `reads` each of `items` read afresh (`fresh`: its reads start again where
/// `restart`), shows each kept one as the latest of its reads that shows what most of them
/// show (of two shown as often, the one shown last), and forgets the items gone.
fn update_items<T: ItemRead>(
    reads: &mut HashMap<vision::ItemId, Vec<T>>,
    items: &mut [T],
    fresh: impl Fn(BoxPx) -> bool,
    restart: impl Fn(BoxPx) -> bool,
) {
    for item in items.iter_mut() {
        let kept = reads.entry(item.id()).or_default();
        if fresh(item.box_px()) {
            if restart(item.box_px()) {
                kept.clear();
            }
            if kept.len() == READS_KEPT {
                kept.remove(0);
            }
            kept.push(item.clone());
        } else {
            let count = |read: &T| kept.iter().filter(|r| r.shows() == read.shows()).count();
            if let Some(shown) = kept.iter().max_by_key(|read| count(read)) {
                *item = item.shown_as(shown);
            }
        }
    }
    reads.retain(|id, _| items.iter().any(|i| i.id() == *id));
}

/// A table that moved lately, read again while it is still.
struct Settling {
    /// Every block that moved since the table was last still for the fresh reads.
    blocks: Changes,
    /// The still frames left to read again.
    left: u32,
    /// The reading of the last frame that moved: what each fresh read looks at again, so
    /// that an item one fresh read missed is looked at in the next.
    base: Reading,
}

/// The reader and the calibration of one camera: frames in, observations out. Only what
/// moved lately is read again ([`vision::Motion`]): a still table costs a thumbnail, a moved
/// die the finder and one reader call in each of a few frames.
pub struct TableReader {
    reader: DiceReader,
    geometry: TableGeometry,
    motion: Motion,
    last: Option<Reading>,
    settling: Option<Settling>,
    /// How many still frames are read again after a move.
    fresh_reads: u32,
    /// How many more still frames may read again a die on a top floor that shows no
    /// meeple ([`UNMANNED_READS`]).
    unmanned_reads: u32,
    /// Follows the mat in the frames: a bumped camera or mat is calibrated again.
    tracker: Tracker,
    markers: Option<MarkerDetector>,
    tracking: Option<TrackStatus>,
    /// Frames read since the last search for markers (counted, not taken from the frames'
    /// numbers: a camera's numbers skip the frames dropped for newer ones).
    since_search: u32,
    /// Whether the frame before had a hand over the table, moving or at rest.
    hand_before: bool,
    /// When the hand now resting over the table stopped (seconds of the frames' clock).
    rest_since: Option<f64>,
    reads: ReadsSinceMoved,
}

impl TableReader {
    /// A camera's frames are read many times a second and voted over frames by the
    /// referee, so each crop is read once and the finder looks once
    /// (`vision::ReaderSettings::for_camera`); the reader's thresholds are kept.
    /// `vote_frames` is the referee's vote window
    /// ([`referee::RefereeSettings::vote_frames`]): the fresh reads of a still table after
    /// a move fill it, so that the vote does not mix the table before the move with the
    /// one after.
    pub fn new(
        mut reader: DiceReader,
        camera: Camera,
        layout: MatLayout,
        vote_frames: u32,
    ) -> Self {
        reader.settings = reader.settings.for_camera();
        Self {
            reader,
            tracker: Tracker::new(layout.clone(), camera.intrinsics)
                .with_camera(camera)
                .with_moved_px(MOVED_SHARE * 2.0 * camera.intrinsics.cx_px),
            geometry: TableGeometry::new(camera, layout),
            motion: Motion::default(),
            last: None,
            settling: None,
            fresh_reads: FRESH_READS.max(vote_frames.saturating_sub(1)),
            unmanned_reads: UNMANNED_READS,
            markers: None,
            tracking: None,
            since_search: TRACK_EVERY,
            hand_before: false,
            rest_since: None,
            reads: ReadsSinceMoved::default(),
        }
    }

    /// The camera in use: the calibration's, then where the tracker followed it.
    pub fn camera(&self) -> &Camera {
        &self.geometry.camera
    }

    /// What the last search for the mat's markers found (`None` before the first).
    pub fn tracking(&self) -> Option<&TrackStatus> {
        self.tracking.as_ref()
    }

    /// Every [`TRACK_EVERY`] frames read, looks for the mat's markers and follows the
    /// camera if it (or the mat) moved. Returns whether the camera in use is in doubt
    /// (markers seen away from where it puts them, until frames agree on where they went).
    fn track(&mut self, image: &RgbImage) -> bool {
        if self.since_search < TRACK_EVERY {
            self.since_search += 1;
            return matches!(self.tracking, Some(TrackStatus::Moved { .. }));
        }
        self.since_search = 1;
        let gray = vision::gray_from_image(&image::DynamicImage::ImageRgb8(image.clone()));
        let size = (gray.width, gray.height);
        if self.markers.as_ref().is_none_or(|m| m.size() != size) {
            self.markers = MarkerDetector::new(&self.geometry.layout, size.0, size.1).ok();
        }
        let Some(detections) = self.markers.as_mut().and_then(|m| m.detect(&gray).ok()) else {
            return false;
        };
        let status = self.tracker.update(&detections);
        if let Some(camera) = self.tracker.camera() {
            self.geometry.camera = *camera;
        }
        let moved = matches!(status, TrackStatus::Moved { .. });
        self.tracking = Some(status);
        moved
    }

    /// Where a die on each pillar of each tower's top floor shows its centre in the frame,
    /// for the towers' heights of the last frame read: to light pillars on the image.
    pub fn pillar_points(&self) -> Vec<(TowerId, PillarIndex, [f32; 2])> {
        self.geometry
            .pillar_points_px()
            .into_iter()
            .filter_map(|(zone, pillar, px)| {
                Some((
                    tower_of_zone(&zone)?,
                    PillarIndex::try_from(pillar).ok()?,
                    px,
                ))
            })
            .collect()
    }

    /// Reads `image`, frame `frame` at `time_s`, of a table where the game is at `state`
    /// (its towers' heights tell at which floor to look for pieces). Returns the reading
    /// with places (to draw) and the observation (to referee).
    pub fn observe(
        &mut self,
        image: &RgbImage,
        state: &GameState,
        frame: u64,
        time_s: f64,
    ) -> Result<(Reading, Observation), VisionError> {
        let camera_in_doubt = self.track(image);
        self.geometry.tower_levels = state
            .towers()
            .iter()
            .map(|t| (synth::tower_zone(t.id).to_owned(), t.level))
            .collect::<HashMap<_, _>>();
        let moved = self.motion.compare(image);
        // A hand or an arm moving over the table moves many blocks from one frame to the
        // next. Nothing settles under it and the referee counts none of its frames, so it
        // is not read: the last reading stands (a covered zone keeps it), and the frame it
        // was read from stays the one later frames are compared with, so the first frame
        // after the hand reads what the hand changed.
        let step = self.motion.step().largest();
        // An arm coming in over the mat or going out moves blocks at the picture's border,
        // however few: a frame read then would show part of it, and the frames after it,
        // compared with that one, a hand at rest that is not there (the roll put down
        // under it never read). Movement beyond the mat (someone passing behind) is not.
        let arm = step.touches_border()
            && (step.bounds().zip(self.geometry.mat_box_px())).is_some_and(|(moved, mat)| {
                moved[0] < mat[2] && mat[0] < moved[2] && moved[1] < mat[3] && mat[1] < moved[3]
            });
        let moving_hand = step.largest_region() >= HAND_BLOCKS || arm;
        let seats: Vec<PlayerColor> = state.players().iter().map(|p| p.color).collect();
        // A hand that stops over the table changes nothing from one frame to the next, so
        // it is followed from the frames where it moved (`resting_hand`).
        let resting = if self.hand_before {
            self.resting_hand(moving_hand.then_some(&step), &seats, time_s)
        } else {
            None
        };
        if resting.is_none() {
            self.rest_since = None;
        }
        let hand = moving_hand || resting.is_some();
        self.hand_before = hand;
        let under_hand = hand && !camera_in_doubt && self.last.is_some();
        // Pieces of the game stand in its zones: a frame is read there only (worked out
        // only for a frame that is read: most frames of a still table are not). `read`:
        // the blocks read afresh, `None` for a reading repeated; `after_move`: whether
        // they moved since the frame last read (not a still frame read again).
        let geometry = &self.geometry;
        let zones = || geometry.zones_region(image.width(), image.height());
        let after_move = self.last.is_none() || (moved.any() && !under_hand);
        let (mut reading, read) = match (&self.last, &mut self.settling) {
            (Some(last), _) if under_hand => (last.clone(), None),
            (None, _) => {
                let region = zones();
                (self.reader.read_within(image, &region)?, Some(region))
            }
            (Some(last), _) if moved.any() => {
                let region = moved.within(&zones());
                (self.reader.read_moved(image, last, &region)?, Some(region))
            }
            (Some(_), Some(settling)) => {
                let blocks = settling.blocks.within(&zones());
                let reading = self.reader.read_again(image, &settling.base, &blocks)?;
                settling.left -= 1;
                if settling.left == 0 {
                    self.settling = None;
                }
                (reading, Some(blocks))
            }
            (Some(last), None) => (last.clone(), None),
        };
        let repeated = read.is_none();
        // A meeple and its die that the finder took for one item, where the frame was read.
        if let Some(region) = &read {
            reading = (self.reader).read_pairs_on_towers(
                image,
                reading,
                &self.geometry,
                self.last.as_ref(),
                region,
            )?;
        }
        if moved.any() && !under_hand {
            self.motion.mark_read();
            self.unmanned_reads = UNMANNED_READS;
            let blocks = match self.settling.take() {
                Some(mut settling) => {
                    settling.blocks.merge(&moved);
                    settling.blocks
                }
                None => moved,
            };
            self.settling = Some(Settling {
                blocks,
                left: self.fresh_reads,
                base: reading.clone(),
            });
        }
        // While the camera is in doubt nothing read counts: once it is followed, the whole
        // table is read afresh.
        if camera_in_doubt {
            self.settling = Some(Settling {
                blocks: Changes::everything(),
                left: self.fresh_reads,
                base: reading.clone(),
            });
        }
        if !repeated {
            self.last = Some(reading.clone());
        }
        let restart = read.as_ref().filter(|_| after_move);
        self.reads.update(&mut reading, read.as_ref(), restart);
        self.geometry.locate(&mut reading);
        if self.settling.is_none() && !hand && !camera_in_doubt && self.unmanned_reads > 0 {
            let unmanned = unmanned_dice(&reading, &self.geometry);
            if !unmanned.is_empty() {
                self.unmanned_reads -= 1;
                self.settling = Some(Settling {
                    blocks: Changes::covering(image.width(), image.height(), &unmanned),
                    left: 1,
                    base: reading.clone(),
                });
            }
        }
        let mut observation = observation_of(&reading, &seats, frame, time_s);
        observation.repeated = repeated;
        // A hand or an arm over the table, or a camera that moved and is not followed yet:
        // nothing is settled.
        if camera_in_doubt {
            observation.covered.push(Zone::Table);
        } else if let Some(zones) = resting {
            observation.covered = zones;
            observation.hand_at_rest = true;
        } else if hand {
            observation.covered = self.covered_zones(&step, &seats);
        }
        Ok((reading, observation))
    }

    /// The zones of the game under a hand that has stopped over the table, when the frame
    /// last compared shows one, `None` when it does not. A frame after a hand moved shows
    /// one when it still differs from the frame last read, beyond the whole frame's drift
    /// (`Motion::beyond_drift`), by a region as large as a hand's that reaches the
    /// picture's border (the arm) and lies over a zone of the game. A die or a meeple put
    /// down lies inside the picture, and is read; so is a hand at rest longer than
    /// [`REST_LIMIT_S`]. A hand at rest trembles: it may move as many blocks as a moving
    /// hand from one frame to the next (`trembling`), all of them inside that region.
    fn resting_hand(
        &mut self,
        trembling: Option<&Changes>,
        seats: &[PlayerColor],
        time_s: f64,
    ) -> Option<Vec<Zone>> {
        let lasting = self.motion.beyond_drift().largest();
        if lasting.largest_region() < HAND_BLOCKS || !lasting.touches_border() {
            return None;
        }
        if trembling.is_some_and(|step| step.within(&lasting) != *step) {
            return None;
        }
        let zones = self.covered_zones(&lasting, seats);
        if zones == [Zone::Table] {
            return None;
        }
        let since = *self.rest_since.get_or_insert(time_s);
        (time_s - since <= REST_LIMIT_S).then_some(zones)
    }

    /// The zones of the game a hand in `blocks` is over (the whole table when it is over
    /// none of them: an arm over the mat's edge still keeps anything from settling).
    fn covered_zones(&self, blocks: &Changes, seats: &[PlayerColor]) -> Vec<Zone> {
        let mut covered: Vec<Zone> = (self.geometry.layout.zones.iter())
            .filter(|zone| {
                (self.geometry.zone_box_px(zone)).is_some_and(|box_px| blocks.touches(box_px))
            })
            .flat_map(|zone| game_zones(zone, seats))
            .collect();
        if covered.is_empty() {
            covered.push(Zone::Table);
        }
        covered
    }

    /// Where the mat's zones that hold any of `covered` show in the frame (pixels, from the
    /// mat up to a master on a die on a tower's top floor): to shade what waits for a hand.
    /// The whole table (`Zone::Table`) has no box.
    pub fn zone_boxes_px(&self, covered: &[Zone], seats: &[PlayerColor]) -> Vec<BoxPx> {
        (self.geometry.layout.zones.iter())
            .filter(|zone| game_zones(zone, seats).iter().any(|z| covered.contains(z)))
            .filter_map(|zone| self.geometry.zone_box_px(zone))
            .collect()
    }
}

/// Where the dice of `reading` (located by `geometry`) on a tower's top floor with no meeple
/// read on their pillar stand, with a meeple's height above them: where a missed meeple is.
fn unmanned_dice(reading: &Reading, geometry: &TableGeometry) -> Vec<BoxPx> {
    fn on_top_floor<'a>(
        place: &'a Option<MatPlace>,
        geometry: &TableGeometry,
    ) -> Option<(&'a str, u8)> {
        match place {
            Some(MatPlace::Tower {
                tower,
                level,
                pillar,
            }) if geometry.top_floor(tower) == *level => Some((tower, *pillar)),
            _ => None,
        }
    }
    let manned: Vec<_> = (reading.meeples.iter())
        .filter_map(|m| on_top_floor(&m.place, geometry))
        .collect();
    (reading.dice.iter())
        .filter(|d| on_top_floor(&d.place, geometry).is_some_and(|p| !manned.contains(&p)))
        .map(|d| {
            let [x0, y0, x1, y1] = d.box_px;
            [x0, y0 - 1.5 * (y1 - y0), x1, y1]
        })
        .collect()
}

/// The zones of the game that a zone of the mat holds: a tower, the roll area, the mana pool,
/// or a seated player's spellbook and the reserve beside it.
fn game_zones(zone: &calibration::Zone, seats: &[PlayerColor]) -> Vec<Zone> {
    match zone.kind {
        ZoneKind::Tower => (tower_of_zone(&zone.name).map(|tower| Zone::Tower { tower }))
            .into_iter()
            .collect(),
        ZoneKind::RollArea => vec![Zone::RollArea],
        ZoneKind::ManaPool => vec![Zone::ManaPool],
        ZoneKind::Spellbook => {
            match calibration::places::spellbook_number(zone).and_then(|b| seat_of(b, seats)) {
                Some(player) => vec![Zone::Spellbook { player }, Zone::Reserve { player }],
                None => Vec::new(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    // Tests unwrap like tests do.
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::path::PathBuf;

    use calibration::nalgebra::{Isometry3, Translation3};
    use rules::{GameSetup, TileCatalogue};

    use super::*;

    /// A kept meeple shows what most of its reads since it last moved read, not its last
    /// read alone; a move starts its reads again.
    #[test]
    fn a_kept_item_shows_what_most_of_its_reads_read() {
        let meeple = |rank, confidence| MeepleReading {
            id: 7,
            player: vision::MeepleColor::Yellow,
            rank,
            box_px: [100.0, 100.0, 120.0, 130.0],
            confidence,
            uncertain: false,
            place: None,
        };
        let (master, apprentice) = (vision::MeepleRank::Master, vision::MeepleRank::Apprentice);
        let reading = |m: MeepleReading| Reading {
            width: 1280,
            height: 720,
            meeples: vec![m],
            ..Reading::default()
        };
        let everything = Changes::everything();
        let nowhere = Changes::covering(1280, 720, &[]);
        let mut reads = ReadsSinceMoved::default();
        let mut shown = |m: MeepleReading, read: &Changes, moved: Option<&Changes>| {
            let mut reading = reading(m);
            reads.update(&mut reading, Some(read), moved);
            (reading.meeples[0].rank, reading.meeples[0].confidence)
        };
        // Read as it was put down, then again in still frames.
        shown(meeple(master, 0.9), &everything, Some(&everything));
        shown(meeple(apprentice, 0.6), &everything, None);
        shown(meeple(master, 0.8), &everything, None);
        shown(meeple(master, 0.75), &everything, None);
        // Read as it is: a fresh read shows itself.
        assert_eq!(
            shown(meeple(apprentice, 0.85), &everything, None),
            (apprentice, 0.85)
        );
        // Kept unread while something else moves: the latest master read.
        assert_eq!(
            shown(meeple(apprentice, 0.85), &nowhere, Some(&nowhere)),
            (master, 0.75)
        );
        // Moved (turned over, say): its reads start again.
        shown(meeple(apprentice, 0.7), &everything, Some(&everything));
        assert_eq!(
            shown(meeple(apprentice, 0.7), &nowhere, None),
            (apprentice, 0.7)
        );
    }

    /// The mat seen from the front, the camera calibrated from its markers, and a game
    /// just started.
    fn front_view() -> (RgbImage, Camera, GameState) {
        let path =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/mat-view-front.jpg");
        let image = vision::read_rgb(&path).unwrap();
        let gray = vision::gray_from_image(&image::DynamicImage::ImageRgb8(image.clone()));
        let camera = crate::calibration_cli::camera_for(&MatLayout::a2(), &gray, None)
            .unwrap()
            .unwrap();
        (image, camera, game_just_started())
    }

    /// A game of Red and Green just started: every tower at its first floor.
    fn game_just_started() -> GameState {
        let catalogue = TileCatalogue::arkhanos();
        let setup = GameSetup::random(
            &[PlayerColor::Red, PlayerColor::Green],
            &catalogue,
            &mut rules::rng_from_seed(1),
        );
        setup.start(&catalogue).unwrap()
    }

    /// A meeple on its die that the finder takes for one item with it is read on the die
    /// (`DiceReader::read_pairs_on_towers`): in the rendered `scene-720p-2`, the finder
    /// alone misses both meeples on tower c's dice.
    #[test]
    fn a_meeple_the_finder_takes_for_its_die_is_read_on_its_die() {
        let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/reader");
        let image = vision::read_rgb(&fixtures.join("scene-720p-2.jpg")).unwrap();
        let labels: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(fixtures.join("scene-720p-2.json")).unwrap(),
        )
        .unwrap();
        let camera: Camera = serde_json::from_value(labels["camera"].clone()).unwrap();
        // Tower c at its first floor, as in the scene.
        let state = game_just_started();
        let mut table =
            TableReader::new(DiceReader::shipped().unwrap(), camera, MatLayout::a2(), 5);
        let (reading, _) = table.observe(&image, &state, 0, 0.0).unwrap();
        let mut on_tower_c: Vec<_> = (reading.meeples.iter())
            .filter(|m| {
                matches!(&m.place, Some(MatPlace::Tower { tower, level: 1, .. }) if tower == "tower-c")
            })
            .map(|m| m.player)
            .collect();
        on_tower_c.sort_by_key(|p| format!("{p:?}"));
        assert_eq!(
            on_tower_c,
            [vision::MeepleColor::Green, vision::MeepleColor::Red]
        );
    }

    /// A hand's or an arm's colour, painted over the frame.
    const SKIN: [u8; 3] = [214, 162, 140];

    /// `image` with the pixels in `columns` x `rows` (clipped to it) painted `color`: a
    /// hand, an arm, a die put down.
    fn painted(
        image: &RgbImage,
        columns: std::ops::Range<u32>,
        rows: std::ops::Range<u32>,
        color: [u8; 3],
    ) -> RgbImage {
        let mut frame = image.clone();
        for y in rows.start..rows.end.min(image.height()) {
            for x in columns.start..columns.end.min(image.width()) {
                frame.put_pixel(x, y, image::Rgb(color));
            }
        }
        frame
    }

    #[test]
    fn a_still_table_is_read_again_a_few_frames_then_its_reading_repeated() {
        let (image, camera, state) = front_view();
        let mut table =
            TableReader::new(DiceReader::shipped().unwrap(), camera, MatLayout::a2(), 5);
        let frames = u64::from(FRESH_READS) + 2;
        let repeated: Vec<bool> = (0..frames)
            .map(|frame| {
                let (_, observation) = table.observe(&image, &state, frame, 0.1).unwrap();
                observation.repeated
            })
            .collect();
        // The first frame, then FRESH_READS still ones read again; after them, nothing
        // moved and nothing is left to read again.
        let mut read = vec![false; FRESH_READS as usize + 1];
        read.push(true);
        assert_eq!(repeated, read);
    }

    #[test]
    fn a_die_on_a_top_floor_with_no_meeple_is_read_again_in_still_frames_a_while() {
        let (image, camera, state) = front_view();
        let mut table =
            TableReader::new(DiceReader::shipped().unwrap(), camera, MatLayout::a2(), 5);
        // The first frame and its fresh reads; after them, the still table is not read.
        for frame in 0..=u64::from(FRESH_READS) {
            table.observe(&image, &state, frame, 0.1).unwrap();
        }
        let (_, _, [x, y]) = table.geometry.pillar_points_px()[0].clone();
        let die = vision::DieReading {
            id: 900,
            color: vision::DieColor::Pink,
            value: 6,
            box_px: [x - 12.0, y - 12.0, x + 12.0, y + 12.0],
            confidence: 0.5,
            value_confidence: 0.5,
            color_confidence: 0.9,
            value_probabilities: [0.1, 0.1, 0.1, 0.1, 0.1, 0.5],
            color_probabilities: [0.9, 0.025, 0.025, 0.025, 0.025],
            uncertain: true,
            place: None,
        };
        let meeple = vision::MeepleReading {
            id: 901,
            player: vision::MeepleColor::Green,
            rank: vision::MeepleRank::Master,
            box_px: [x - 12.0, y - 40.0, x + 12.0, y - 4.0],
            confidence: 0.9,
            uncertain: false,
            place: None,
        };
        // The last reading holds a die on a pillar of a tower's top floor (the mat shows
        // none there: read again, it is gone, and it is put back before each frame).
        let mut frame = 10;
        let mut reads_with = |table: &mut TableReader, on_die: Option<&vision::MeepleReading>| {
            let mut reads = 0;
            for _ in 0..2 * UNMANNED_READS + 4 {
                let last = table.last.as_mut().unwrap();
                last.dice.retain(|d| d.id != die.id);
                last.dice.push(die.clone());
                last.meeples.retain(|m| m.id != meeple.id);
                last.meeples.extend(on_die.cloned());
                let (reading, observation) = table.observe(&image, &state, frame, 0.1).unwrap();
                frame += 1;
                if !observation.repeated {
                    reads += 1;
                } else {
                    let ours = reading.dice.iter().find(|d| d.id == die.id).unwrap();
                    assert!(
                        matches!(ours.place, Some(MatPlace::Tower { level: 1, .. })),
                        "{:?}",
                        ours.place
                    );
                }
            }
            reads
        };
        // With its meeple read on it, it is not read again.
        assert_eq!(reads_with(&mut table, Some(&meeple)), 0);
        // Alone, its place is read again in UNMANNED_READS still frames, no more.
        assert_eq!(reads_with(&mut table, None), UNMANNED_READS);
    }

    #[test]
    fn a_hand_over_the_table_is_not_read_and_what_it_changed_is_read_after_it() {
        let (image, camera, state) = front_view();
        let mut table =
            TableReader::new(DiceReader::shipped().unwrap(), camera, MatLayout::a2(), 5);
        let (first, _) = table.observe(&image, &state, 0, 0.0).unwrap();
        // A hand (a skin-coloured patch) sweeping over the middle of the table, frame
        // after frame, then gone, leaving a pink die where there was none.
        let paint = |x0: u32, y0: u32, side: u32, color| {
            painted(&image, x0..x0 + side, y0..y0 + side, color)
        };
        for (frame, x0) in [(1, 300), (2, 420), (3, 540)] {
            let (reading, observation) = table
                .observe(
                    &paint(x0, 200, 260, SKIN),
                    &state,
                    frame,
                    0.1 * frame as f64,
                )
                .unwrap();
            assert!(observation.is_covered(), "frame {frame}");
            assert!(observation.repeated, "frame {frame} was read");
            assert_eq!(reading.dice.len(), first.dice.len(), "frame {frame}");
        }
        // The hand gone: its last frame moved against this one, then the die it left is
        // read, its blocks compared with the frame read before the hand.
        let after = paint(640, 360, 28, [235, 80, 160]);
        let (_, observation) = table.observe(&after, &state, 4, 0.4).unwrap();
        assert!(observation.is_covered());
        let (_, observation) = table.observe(&after, &state, 5, 0.5).unwrap();
        assert!(observation.covered.is_empty() && !observation.repeated);
        assert!(
            !table.motion.compare(&after).any(),
            "the frame after the hand was read"
        );
    }

    #[test]
    fn a_hand_covers_the_zones_it_is_over() {
        let (image, camera, state) = front_view();
        let mut table =
            TableReader::new(DiceReader::shipped().unwrap(), camera, MatLayout::a2(), 5);
        table.observe(&image, &state, 0, 0.0).unwrap();
        // A hand over the second player's spellbook (the mat's right front corner), its arm
        // off the mat to the right: it comes in, then goes.
        let hand = painted(&image, 900..1100, 430..630, SKIN);
        let green = PlayerColor::Green;
        let seats = [PlayerColor::Red, green];
        for (frame, picture) in [(1, &hand), (2, &image)] {
            let (_, observation) = table.observe(picture, &state, frame, 0.1).unwrap();
            assert_eq!(
                observation.covered,
                [
                    Zone::Spellbook { player: green },
                    Zone::Reserve { player: green }
                ],
                "frame {frame}"
            );
            // One box to shade, the spellbook zone under the hand.
            let boxes = table.zone_boxes_px(&observation.covered, &seats);
            assert_eq!(boxes.len(), 1);
            let [x0, y0, x1, y1] = boxes[0];
            assert!(
                x0 < 1100.0 && x1 > 900.0 && y0 < 630.0 && y1 > 430.0,
                "{boxes:?}"
            );
        }
        assert!(table.zone_boxes_px(&[Zone::Table], &seats).is_empty());
    }

    #[test]
    fn an_arm_coming_in_over_the_mat_is_not_read_however_little_shows() {
        // Seen first as a few blocks at the picture's border: read then, the frame would
        // show part of it, and the frames after it, compared with that one, a hand at rest
        // where it was (rendered game of seed 52: its roll never read).
        let (image, camera, state) = front_view();
        let mut table =
            TableReader::new(DiceReader::shipped().unwrap(), camera, MatLayout::a2(), 5);
        table.observe(&image, &state, 0, 0.0).unwrap();
        let [left, _, right, bottom] = table.geometry.mat_box_px().unwrap();
        assert!(
            bottom < image.height() as f32 - 40.0,
            "the mat reaches the border"
        );
        // A strip 60 px wide from the bottom border to 8 px into the mat's box: a hand's
        // fingers, or something moving by the table beside the mat.
        let strip = |x0: u32| painted(&image, x0..x0 + 60, bottom as u32 - 8..image.height(), SKIN);
        let middle = ((left + right) / 2.0) as u32;
        let (_, observation) = table.observe(&strip(middle), &state, 1, 0.1).unwrap();
        assert!(
            observation.repeated && observation.covered == [Zone::Table],
            "{observation:?}"
        );
        let (_, observation) = table.observe(&image, &state, 2, 0.2).unwrap();
        assert!(observation.is_covered(), "the arm moved out");
        let (_, observation) = table.observe(&image, &state, 3, 0.3).unwrap();
        assert!(!observation.is_covered(), "{observation:?}");
        assert!(left > 100.0, "no room beside the mat");
        let (_, observation) = table.observe(&strip(20), &state, 4, 0.4).unwrap();
        assert!(
            !observation.repeated && !observation.is_covered(),
            "movement beside the mat: {observation:?}"
        );
    }

    #[test]
    fn a_hand_that_stops_over_the_table_covers_it_until_it_leaves() {
        let (image, camera, state) = front_view();
        let mut table =
            TableReader::new(DiceReader::shipped().unwrap(), camera, MatLayout::a2(), 5);
        let (first, _) = table.observe(&image, &state, 0, 0.0).unwrap();
        // An arm from the right border, its hand over the second player's spellbook.
        let arm = |x0: u32| painted(&image, x0..image.width(), 430..630, SKIN);
        let green = PlayerColor::Green;
        let spellbook = [
            Zone::Spellbook { player: green },
            Zone::Reserve { player: green },
        ];
        let mut time = 0.0;
        let mut observe = |table: &mut TableReader, picture: &RgbImage, frame: u64| {
            time += 1.0;
            let (reading, observation) = table.observe(picture, &state, frame, time).unwrap();
            (reading.dice.len(), observation)
        };
        // It reaches in, then rests: nothing moves from frame to frame, but the frame
        // differs from the table last read by a hand and an arm.
        for (frame, x0) in [(1, 1100), (2, 900)] {
            let (_, observation) = observe(&mut table, &arm(x0), frame);
            assert!(observation.repeated, "frame {frame}");
        }
        for frame in 3..8 {
            let (dice, observation) = observe(&mut table, &arm(900), frame);
            assert_eq!(observation.covered, spellbook, "frame {frame}");
            assert!(observation.repeated, "frame {frame} was read");
            assert_eq!(dice, first.dice.len());
        }
        // It leaves, and the camera's exposure follows it out (a tenth brighter): the
        // table is read once still.
        let mut brighter = image.clone();
        for p in brighter.pixels_mut() {
            p.0 = p.0.map(|v| (f32::from(v) * 1.1).min(255.0) as u8);
        }
        let (_, observation) = observe(&mut table, &brighter, 8);
        assert!(observation.is_covered(), "the hand moved out");
        let (_, observation) = observe(&mut table, &brighter, 9);
        assert!(observation.covered.is_empty() && !observation.repeated);
        // A hand at rest longer than REST_LIMIT_S is taken for the table.
        for (frame, x0) in [(10, 1100), (11, 900)] {
            observe(&mut table, &arm(x0), frame);
        }
        let mut frame = 12;
        while observe(&mut table, &arm(900), frame).1.is_covered() {
            frame += 1;
            assert!(frame < 12 + REST_LIMIT_S as u64 + 2, "still covered");
        }
        assert!(
            frame >= 12 + REST_LIMIT_S as u64,
            "read after {} s",
            frame - 12
        );
    }

    #[test]
    fn a_rendered_hand_at_rest_is_not_read_and_the_table_after_it_is() {
        // Frames 802-878 of a rendered game with hands at rest (tests/fixtures/live-rest):
        // Red's hand reaches in (811-818), rests over the table trembling (819-845), goes
        // (846-851), then puts the blue 5 on the central tower (852-869); the table is
        // still after it (870-878).
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/live-rest");
        let record = rules::GameRecord::from_json(
            &std::fs::read_to_string(dir.join("record.json")).unwrap(),
        )
        .unwrap();
        let catalogue = TileCatalogue::arkhanos();
        let state = (record.actions.iter())
            .try_fold(record.setup.start(&catalogue).unwrap(), |state, action| {
                state.play(action)
            })
            .unwrap();
        let frames: Vec<(u64, RgbImage)> = std::fs::read_to_string(dir.join("frames.jsonl"))
            .unwrap()
            .lines()
            .skip(1)
            .map(|line| {
                let entry: serde_json::Value = serde_json::from_str(line).unwrap();
                let path = dir.join(entry["file"].as_str().unwrap());
                (
                    entry["number"].as_u64().unwrap(),
                    vision::read_rgb(&path).unwrap(),
                )
            })
            .collect();
        let gray = vision::gray_from_image(&image::DynamicImage::ImageRgb8(frames[0].1.clone()));
        let camera = crate::calibration_cli::camera_for(&MatLayout::a2(), &gray, None)
            .unwrap()
            .unwrap();
        let mut table =
            TableReader::new(DiceReader::shipped().unwrap(), camera, MatLayout::a2(), 5);
        let (mut read_after, mut at_rest) = (0, Vec::new());
        for (number, image) in &frames {
            let (_, observation) = table
                .observe(image, &state, *number, *number as f64 / 15.0)
                .unwrap();
            if (819..=845).contains(number) {
                assert!(
                    observation.is_covered() && observation.repeated,
                    "frame {number}, under the resting hand, was read"
                );
            }
            if observation.hand_at_rest {
                at_rest.push(*number);
            }
            if *number >= 870 && !observation.is_covered() && !observation.repeated {
                read_after += 1;
            }
        }
        assert!(
            read_after >= 4,
            "{read_after} still frames read after the hand"
        );
        // The hand trembles as it rests: followed as at rest all the same (7 of its 9
        // frames here; the others moved more), never once it has gone.
        let resting = at_rest.iter().filter(|n| (819..=845).contains(*n)).count();
        assert!(
            resting >= 7 && at_rest.iter().all(|n| *n < 846),
            "{at_rest:?}"
        );
    }

    #[test]
    fn a_camera_that_moved_is_followed_and_nothing_settles_until_it_is() {
        let (image, truth, state) = front_view();
        let layout = MatLayout::a2();
        // The camera in use is 25 mm off: the camera was bumped since it was calibrated.
        let mut bumped = truth;
        bumped.camera_from_table =
            Isometry3::from_parts(Translation3::new(25.0, 0.0, 0.0), Default::default())
                * truth.camera_from_table;
        let offset = |camera: &Camera| {
            (camera.camera_from_table.translation.vector
                - truth.camera_from_table.translation.vector)
                .norm()
        };
        let mut table = TableReader::new(DiceReader::shipped().unwrap(), bumped, layout, 5);
        let (_, first) = table.observe(&image, &state, 0, 0.0).unwrap();
        assert!(
            matches!(table.tracking(), Some(TrackStatus::Moved { .. })),
            "{:?}",
            table.tracking()
        );
        assert!(
            first.covered.contains(&Zone::Table),
            "nothing settles on a camera in doubt"
        );
        // Frames agree on where the markers went: the camera is followed (two more
        // searches, one every TRACK_EVERY frames read).
        for frame in 1..=2 * u64::from(TRACK_EVERY) {
            let (_, observation) = table.observe(&image, &state, frame, 1.0).unwrap();
            if frame < 2 * u64::from(TRACK_EVERY) {
                assert!(observation.covered.contains(&Zone::Table), "frame {frame}");
            }
        }
        assert!(
            matches!(table.tracking(), Some(TrackStatus::Tracking { .. })),
            "{:?}",
            table.tracking()
        );
        assert!(
            offset(table.camera()) < 2.0,
            "{} mm off",
            offset(table.camera())
        );
        let (_, settled) = table
            .observe(&image, &state, 2 * u64::from(TRACK_EVERY) + 1, 1.1)
            .unwrap();
        assert!(settled.covered.is_empty());
    }

    #[test]
    fn a_die_under_a_meeple_is_seen_unsure() {
        let pillar = |pillar| MatPlace::Tower {
            tower: "tower-a".to_owned(),
            level: 1,
            pillar,
        };
        let die = |place: MatPlace| vision::DieReading {
            id: 1,
            color: vision::DieColor::Blue,
            value: 4,
            box_px: [0.0; 4],
            confidence: 0.95,
            value_confidence: 0.97,
            color_confidence: 0.98,
            value_probabilities: [0.0; 6],
            color_probabilities: [0.0; 5],
            uncertain: false,
            place: Some(place),
        };
        let reading = Reading {
            width: 1280,
            height: 720,
            dice: vec![
                die(pillar(1)),
                die(pillar(2)),
                die(MatPlace::RollArea),
                die(MatPlace::Reserve { board: 1 }),
            ],
            meeples: [pillar(1), MatPlace::Reserve { board: 1 }]
                .into_iter()
                .map(|place| vision::MeepleReading {
                    id: 1,
                    player: vision::MeepleColor::Red,
                    rank: vision::MeepleRank::Apprentice,
                    box_px: [0.0; 4],
                    confidence: 0.9,
                    uncertain: false,
                    place: Some(place),
                })
                .collect(),
        };
        let observation = observation_of(&reading, &[PlayerColor::Red, PlayerColor::Green], 7, 0.5);
        let unsure: Vec<bool> = observation.dice.iter().map(|d| d.uncertain).collect();
        // The die the meeple stands on; alone on the next pillar; in the roll area; beside
        // a meeple in a reserve, which holds many pieces side by side.
        assert_eq!(unsure, [true, false, false, false]);
    }

    #[test]
    fn mat_places_become_the_game_places_by_seat() {
        let seats = [PlayerColor::Red, PlayerColor::Green];
        let tower = MatPlace::Tower {
            tower: "tower-central".to_owned(),
            level: 2,
            pillar: 3,
        };
        assert_eq!(
            game_place(Some(&tower), &seats),
            Place::Tower {
                tower: TowerId::Central,
                level: 2,
                pillar: PillarIndex::Third,
                buried: false
            }
        );
        let book = MatPlace::Spellbook { board: 2, slot: 1 };
        assert_eq!(
            game_place(Some(&book), &seats),
            Place::Spellbook {
                player: PlayerColor::Green,
                spell: SpellId::ALL[0]
            }
        );
        // A board nobody sits at, a zone of no tower, nowhere: elsewhere.
        assert_eq!(
            game_place(Some(&MatPlace::Reserve { board: 3 }), &seats),
            Place::Elsewhere
        );
        let nowhere = MatPlace::Tower {
            tower: "tower-z".to_owned(),
            level: 1,
            pillar: 1,
        };
        assert_eq!(game_place(Some(&nowhere), &seats), Place::Elsewhere);
        assert_eq!(game_place(None, &seats), Place::Elsewhere);
        assert_eq!(
            game_place(Some(&MatPlace::Reserve { board: 1 }), &seats),
            Place::Reserve {
                player: PlayerColor::Red
            }
        );
    }
}
