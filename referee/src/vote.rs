//! Readings voted over the last frames: a camera's reader misreads a die now and then (a
//! glare, a blur, a pip hidden by a meeple), so each frame's table is what most of the last
//! frames saw, place by place, before it is compared with anything.

use std::collections::{BTreeMap, VecDeque};

use crate::observation::{Observation, Place, SeenDie, SeenMeeple};

/// A piece as the vote counts it present: kind and colour at a place. What it shows (a
/// die's value, a meeple's rank) is voted apart: a die under a meeple, whose value is a
/// guess, is read with one value in some frames and another in others, and must count as
/// one die seen in every frame, not as two dice each seen in half of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ballot {
    Die(u8, Place),
    Meeple(u8, Place),
}

/// One sighting of a piece: what it showed, and the piece as read.
#[derive(Clone, Copy, Debug)]
enum Piece {
    Die(SeenDie),
    Meeple(SeenMeeple),
}

impl Piece {
    fn ballot(&self) -> Ballot {
        match self {
            Piece::Die(d) => Ballot::Die(d.die.color.index() as u8, d.place),
            Piece::Meeple(m) => Ballot::Meeple(m.meeple.player as u8, m.place),
        }
    }

    /// What it shows: a die's value, a meeple's rank.
    fn shows(&self) -> u8 {
        match self {
            Piece::Die(d) => d.die.value.get(),
            Piece::Meeple(m) => m.meeple.rank as u8,
        }
    }

    fn sure(&self) -> bool {
        match self {
            Piece::Die(d) => !d.uncertain,
            Piece::Meeple(m) => !m.uncertain,
        }
    }

    fn confidence(&self) -> f32 {
        match self {
            Piece::Die(d) => d.confidence,
            Piece::Meeple(m) => m.confidence,
        }
    }
}

/// One frame's pieces, by ballot.
#[derive(Clone, Debug, Default)]
struct Tally {
    pieces: BTreeMap<Ballot, Vec<Piece>>,
}

impl Tally {
    fn of(observation: &Observation) -> Self {
        let mut tally = Self::default();
        let pieces = (observation.dice.iter().map(|&d| Piece::Die(d)))
            .chain(observation.meeples.iter().map(|&m| Piece::Meeple(m)));
        for piece in pieces {
            tally.pieces.entry(piece.ballot()).or_default().push(piece);
        }
        tally
    }
}

/// The sightings of one thing shown (a value, a rank) by the pieces of one ballot.
#[derive(Clone, Copy, Debug)]
struct Sightings {
    count: u32,
    sure: u32,
    confidence: f32,
    /// The reader's value and colour probabilities of the dice sighted with them.
    value_probabilities: Mean<6>,
    color_probabilities: Mean<4>,
    /// The latest sighting, and the frame of the window it is from.
    example: Piece,
    last: usize,
    /// Sightings not yet used up by a piece voted to show it.
    left: i64,
}

/// The mean of rows of probabilities, as they are added.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mean<const N: usize> {
    sum: [f32; N],
    count: u32,
}

impl<const N: usize> Mean<N> {
    pub(crate) fn new() -> Self {
        Self {
            sum: [0.0; N],
            count: 0,
        }
    }

    pub(crate) fn add(&mut self, row: Option<[f32; N]>) {
        if let Some(row) = row {
            for (sum, p) in self.sum.iter_mut().zip(row) {
                *sum += p;
            }
            self.count += 1;
        }
    }

    /// `None` when no row was added.
    pub(crate) fn get(&self) -> Option<[f32; N]> {
        (self.count > 0).then(|| self.sum.map(|sum| sum / self.count as f32))
    }
}

/// Votes each frame's reading with the frames before it.
///
/// A piece (a die of a colour, a meeple of a player) is in the voted table as many times
/// as at least half of the last `window` readings show it at that place (the median
/// count), each showing the value or rank seen most often there. It is flagged uncertain
/// unless most sightings of what it shows were sure and what it shows was seen in at least
/// half of the readings; its confidence is the mean of those sightings, and so are a die's
/// value and colour probabilities where the reader gave them. A frame with a hand over the
/// table starts the vote again: what the hand moved is a new table. A hand that stops there
/// ([`Observation::hand_at_rest`]) takes back the window of the table read before the
/// hand, when that window was whole, and repeats its last reading. A repeated reading
/// ([`Observation::repeated`]) adds no ballot: one reading seen in many frames is still
/// one reading, and a piece read in one frame of three must not stand for good because
/// that frame was the last one read.
#[derive(Clone, Debug)]
pub struct Voter {
    window: usize,
    frames: VecDeque<Tally>,
    /// The last frame was a repeat: no newer reading is coming until something moves.
    repeating: bool,
    /// The whole window of the table read before a hand came over it.
    before_hand: VecDeque<Tally>,
    /// The last frame was voted around a hand at rest.
    at_rest: bool,
}

impl Voter {
    /// A vote over `window` frames; 1 passes every reading through unchanged.
    pub fn new(window: u32) -> Self {
        Self {
            window: window.max(1) as usize,
            frames: VecDeque::new(),
            repeating: false,
            before_hand: VecDeque::new(),
            at_rest: false,
        }
    }

    /// Whether the last vote had its whole window of frames since the last hand, or every
    /// reading there will be until something moves: a vote over fewer frames is a guess
    /// (right after a hand, a blurred frame outvotes nothing).
    pub fn whole(&self) -> bool {
        self.window == 1 || self.frames.len() == self.window || self.repeating
    }

    /// The voted table of `observation` and the frames before it.
    pub fn vote(&mut self, observation: &Observation) -> Observation {
        if self.window == 1 {
            return observation.clone();
        }
        let was_whole = self.whole();
        self.repeating = false;
        // What a hand at rest hid is a new table once it has gone.
        if std::mem::replace(&mut self.at_rest, observation.hand_at_rest)
            && !observation.is_covered()
        {
            self.frames.clear();
        }
        if observation.is_covered() {
            if self.frames.is_empty() && observation.hand_at_rest {
                self.frames = std::mem::take(&mut self.before_hand);
            }
            if self.frames.is_empty() || !observation.hand_at_rest {
                if was_whole && !self.frames.is_empty() {
                    self.before_hand = std::mem::take(&mut self.frames);
                }
                self.frames.clear();
                // Not voted, so not to be settled: a hand at rest counts only over a table
                // read whole before it.
                return Observation {
                    hand_at_rest: false,
                    ..observation.clone()
                };
            }
        } else {
            self.before_hand.clear();
        }
        if observation.repeated && !self.frames.is_empty() {
            self.repeating = true;
        } else {
            if self.frames.len() == self.window {
                self.frames.pop_front();
            }
            self.frames.push_back(Tally::of(observation));
        }
        let frames = self.frames.len();
        let mut voted = Observation {
            frame: observation.frame,
            time_s: observation.time_s,
            dice: Vec::new(),
            meeples: Vec::new(),
            covered: observation.covered.clone(),
            hand_at_rest: observation.hand_at_rest,
            floors: observation.floors.clone(),
            levels_assumed: observation.levels_assumed,
            repeated: observation.repeated,
        };
        // Per ballot, how many of it each frame shows, and what they showed, latest last.
        let mut ballots: BTreeMap<Ballot, (Vec<u32>, BTreeMap<u8, Sightings>)> = BTreeMap::new();
        for (index, tally) in self.frames.iter().enumerate() {
            for (ballot, pieces) in &tally.pieces {
                let (counts, shown) = ballots.entry(*ballot).or_default();
                counts.push(pieces.len() as u32);
                for piece in pieces {
                    let seen = shown.entry(piece.shows()).or_insert(Sightings {
                        count: 0,
                        sure: 0,
                        confidence: 0.0,
                        value_probabilities: Mean::new(),
                        color_probabilities: Mean::new(),
                        example: *piece,
                        last: index,
                        left: 0,
                    });
                    seen.count += 1;
                    seen.left += 1;
                    seen.sure += u32::from(piece.sure());
                    seen.confidence += piece.confidence();
                    if let Piece::Die(die) = piece {
                        seen.value_probabilities.add(die.value_probabilities);
                        seen.color_probabilities.add(die.color_probabilities);
                    }
                    seen.example = *piece;
                    seen.last = index;
                }
            }
        }
        for (mut counts, mut shown) in ballots.into_values() {
            // The count that at least half of the frames reach: frames that do not show the
            // piece count zero.
            counts.resize(frames, 0);
            counts.sort_unstable_by(|a, b| b.cmp(a));
            // Each piece shows what was seen most often (of two seen as often, the one seen
            // last; then the higher value or rank); one seen in every frame uses up that
            // many sightings, so two dice of one value need twice as many.
            for _ in 0..counts[(frames - 1) / 2] {
                let Some(seen) = shown.values_mut().max_by_key(|s| (s.left, s.last)) else {
                    break;
                };
                seen.left -= frames as i64;
                // Unsure unless most of its sightings were sure and it was seen in at least
                // half of the frames.
                let uncertain = 2 * seen.sure <= seen.count || 2 * seen.count < frames as u32;
                let confidence = seen.confidence / seen.count as f32;
                match seen.example {
                    Piece::Die(die) => voted.dice.push(SeenDie {
                        confidence,
                        uncertain,
                        value_probabilities: seen.value_probabilities.get(),
                        color_probabilities: seen.color_probabilities.get(),
                        ..die
                    }),
                    Piece::Meeple(meeple) => voted.meeples.push(SeenMeeple {
                        confidence,
                        uncertain,
                        ..meeple
                    }),
                }
            }
        }
        voted
    }
}

#[cfg(test)]
mod tests {
    use rules::{Die, DieColor, DieValue, Meeple, PlayerColor, Rank};

    use super::*;
    use crate::observation::Zone;

    fn die(value: u8, place: Place) -> SeenDie {
        let Some(value) = DieValue::new(value) else {
            panic!("a die shows 1 to 6");
        };
        SeenDie {
            die: Die::new(DieColor::Blue, value),
            place,
            confidence: 0.9,
            uncertain: false,
            value_probabilities: None,
            color_probabilities: None,
        }
    }

    fn frame(frame: u64, dice: Vec<SeenDie>) -> Observation {
        Observation {
            frame,
            time_s: frame as f64 / 15.0,
            dice,
            ..Observation::default()
        }
    }

    fn values(observation: &Observation) -> Vec<u8> {
        let mut values: Vec<u8> = observation.dice.iter().map(|d| d.die.value.get()).collect();
        values.sort_unstable();
        values
    }

    #[test]
    fn a_misread_frame_is_outvoted_and_a_lasting_change_wins() {
        let mut voter = Voter::new(5);
        let roll = Place::RollArea;
        for f in 0..4 {
            voter.vote(&frame(f, vec![die(3, roll), die(5, roll)]));
        }
        // One frame reads the 5 as a 6 and misses the 3: the vote keeps 3 and 5.
        let voted = voter.vote(&frame(4, vec![die(6, roll)]));
        assert_eq!(values(&voted), vec![3, 5]);
        assert_eq!(voted.frame, 4);
        // The 5 is turned to a 2 for good: the vote follows once most frames show it.
        let mut after = Vec::new();
        for f in 5..10 {
            after.push(values(
                &voter.vote(&frame(f, vec![die(3, roll), die(2, roll)])),
            ));
        }
        assert_eq!(after[0], vec![3, 5]);
        assert_eq!(after[2], vec![2, 3]);
        assert_eq!(after[4], vec![2, 3]);
    }

    #[test]
    fn two_dice_alike_are_counted_and_mostly_unsure_ones_stay_unsure() {
        let mut voter = Voter::new(3);
        let roll = Place::RollArea;
        let unsure = SeenDie {
            uncertain: true,
            ..die(4, roll)
        };
        voter.vote(&frame(0, vec![die(1, roll), die(1, roll), unsure]));
        voter.vote(&frame(1, vec![die(1, roll), unsure]));
        let voted = voter.vote(&frame(2, vec![die(1, roll), die(1, roll), die(4, roll)]));
        assert_eq!(values(&voted), vec![1, 1, 4]);
        assert!(
            voted
                .dice
                .iter()
                .all(|d| d.uncertain == (d.die.value.get() == 4))
        );
    }

    #[test]
    fn a_dies_value_and_colour_probabilities_are_the_mean_of_the_sightings_of_its_value() {
        let mut voter = Voter::new(3);
        let roll = Place::RollArea;
        let read = |value, probabilities: [f32; 6]| SeenDie {
            value_probabilities: Some(probabilities),
            color_probabilities: Some([probabilities[2], 0.0, 0.0, probabilities[1]]),
            ..die(value, roll)
        };
        voter.vote(&frame(0, vec![read(2, [0.0, 0.8, 0.2, 0.0, 0.0, 0.0])]));
        // A sighting of another value, outvoted, does not count; one without them neither.
        voter.vote(&frame(1, vec![read(3, [0.0, 0.1, 0.9, 0.0, 0.0, 0.0])]));
        voter.vote(&frame(2, vec![read(2, [0.0, 0.6, 0.4, 0.0, 0.0, 0.0])]));
        let voted = voter.vote(&frame(3, vec![die(2, roll)]));
        assert_eq!(values(&voted), vec![2]);
        let [p1, p2, p3, ..] = voted.dice[0].value_probabilities.unwrap();
        assert_eq!(p1, 0.0);
        assert!(
            (p2 - 0.6).abs() < 1e-6 && (p3 - 0.4).abs() < 1e-6,
            "{p2} {p3}"
        );
        let [pink, _, _, blue] = voted.dice[0].color_probabilities.unwrap();
        assert!(
            (pink - 0.4).abs() < 1e-6 && (blue - 0.6).abs() < 1e-6,
            "{pink} {blue}"
        );
    }

    #[test]
    fn a_hand_starts_the_vote_again_and_meeples_are_voted_too() {
        let mut voter = Voter::new(3);
        let place = Place::Reserve {
            player: PlayerColor::Red,
        };
        let meeple = SeenMeeple {
            meeple: Meeple {
                player: PlayerColor::Red,
                rank: Rank::Master,
            },
            place,
            confidence: 1.0,
            uncertain: false,
        };
        let with_meeple = |f| Observation {
            meeples: vec![meeple],
            ..frame(f, Vec::new())
        };
        voter.vote(&with_meeple(0));
        assert_eq!(voter.vote(&with_meeple(1)).meeples.len(), 1);
        let hand = Observation {
            covered: vec![Zone::Table],
            ..frame(2, Vec::new())
        };
        assert!(voter.vote(&hand).is_covered());
        // After the hand, the first frame alone decides.
        let voted = voter.vote(&frame(3, vec![die(2, Place::ManaPool)]));
        assert!(voted.meeples.is_empty());
        assert_eq!(values(&voted), vec![2]);
    }

    #[test]
    fn a_hand_at_rest_takes_back_the_whole_window_read_before_it() {
        let roll = Place::RollArea;
        let hand = |f, at_rest| Observation {
            covered: vec![Zone::ManaPool],
            hand_at_rest: at_rest,
            repeated: true,
            ..frame(f, vec![die(3, roll)])
        };
        let mut voter = Voter::new(3);
        // Two readings of 3 and 5, one that misses the 5: the window is whole.
        voter.vote(&frame(0, vec![die(3, roll), die(5, roll)]));
        voter.vote(&frame(1, vec![die(3, roll), die(5, roll)]));
        voter.vote(&frame(2, vec![die(3, roll)]));
        assert!(voter.whole());
        // A hand moves in (not voted), then stops: its frames repeat the last reading, and
        // the window before it votes them.
        assert!(!voter.vote(&hand(3, false)).hand_at_rest);
        for f in 4..7 {
            let voted = voter.vote(&hand(f, true));
            assert!(voted.hand_at_rest && voter.whole(), "frame {f}");
            assert_eq!(values(&voted), vec![3, 5]);
            assert_eq!(voted.covered, vec![Zone::ManaPool]);
        }
        // A table read in fewer frames than the window before the hand is not voted.
        let mut voter = Voter::new(3);
        voter.vote(&frame(0, vec![die(3, roll)]));
        voter.vote(&hand(1, false));
        assert!(!voter.vote(&hand(2, true)).hand_at_rest);
        // The hand gone, the vote starts again.
        let voted = voter.vote(&frame(7, vec![die(4, roll)]));
        assert_eq!(values(&voted), vec![4]);
        assert!(!voter.whole());
        // Nor is a hand at rest after a table seen again, the window before it gone.
        let mut voter = Voter::new(3);
        for f in 0..3 {
            voter.vote(&frame(f, vec![die(3, roll)]));
        }
        voter.vote(&hand(3, false));
        voter.vote(&frame(4, vec![die(3, roll)]));
        voter.vote(&hand(5, false));
        assert!(!voter.vote(&hand(6, true)).hand_at_rest);
    }

    #[test]
    fn a_repeated_reading_is_one_ballot_and_ends_the_wait_for_a_whole_window() {
        let mut voter = Voter::new(5);
        let roll = Place::RollArea;
        // Three fresh readings, the last of which misses the 5; then the camera path
        // repeats that reading while nothing moves.
        voter.vote(&frame(0, vec![die(3, roll), die(5, roll)]));
        voter.vote(&frame(1, vec![die(3, roll), die(5, roll)]));
        voter.vote(&frame(2, vec![die(3, roll)]));
        assert!(!voter.whole());
        for f in 3..12 {
            let repeat = Observation {
                repeated: true,
                ..frame(f, vec![die(3, roll)])
            };
            let voted = voter.vote(&repeat);
            assert_eq!(values(&voted), vec![3, 5], "frame {f}");
            assert_eq!(voted.frame, f);
            assert!(voter.whole());
        }
        // A fresh reading counts again.
        voter.vote(&frame(12, vec![die(3, roll)]));
        assert!(!voter.whole());
    }

    #[test]
    fn a_die_whose_value_flickers_is_one_die_and_unsure() {
        let mut voter = Voter::new(5);
        let pillar = Place::Tower {
            tower: rules::TowerId::A,
            level: 1,
            pillar: rules::PillarIndex::First,
            buried: false,
        };
        let mut voted = Observation::default();
        for (f, value) in [3, 6, 3, 6, 5].into_iter().enumerate() {
            voted = voter.vote(&frame(f as u64, vec![die(value, pillar)]));
        }
        // Seen in every frame, as a 3 and a 6 twice each: one die, the 6 (seen last of the
        // two), unsure (its value in two frames of five).
        assert_eq!(values(&voted), vec![6]);
        assert!(voted.dice[0].uncertain);
    }

    #[test]
    fn a_window_of_one_changes_nothing() {
        let mut voter = Voter::new(1);
        let observation = frame(7, vec![die(6, Place::ManaPool)]);
        assert_eq!(voter.vote(&observation), observation);
    }
}
