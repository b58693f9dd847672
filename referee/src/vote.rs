//! Readings voted over the last frames: a camera's reader misreads a die now and then (a
//! glare, a blur, a pip hidden by a meeple), so each frame's table is what most of the last
//! frames saw, place by place, before it is compared with anything.

use std::collections::{BTreeMap, VecDeque};

use crate::observation::{Observation, Place, SeenDie, SeenMeeple};

/// A piece as the vote counts it: kind and identity at a place.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ballot {
    Die(u8, u8, Place),
    Meeple(u8, u8, Place),
}

/// One frame's pieces, counted.
#[derive(Clone, Debug, Default)]
struct Tally {
    /// How many of each piece, with the sure ones among them and their summed confidence.
    counts: BTreeMap<Ballot, (u32, u32, f32)>,
    dice: BTreeMap<Ballot, SeenDie>,
    meeples: BTreeMap<Ballot, SeenMeeple>,
}

impl Tally {
    fn of(observation: &Observation) -> Self {
        let mut tally = Self::default();
        for die in &observation.dice {
            let ballot = Ballot::Die(die.die.color.index() as u8, die.die.value.get(), die.place);
            tally.add(ballot, die.uncertain, die.confidence);
            tally.dice.insert(ballot, *die);
        }
        for meeple in &observation.meeples {
            let ballot = Ballot::Meeple(
                meeple.meeple.player as u8,
                meeple.meeple.rank as u8,
                meeple.place,
            );
            tally.add(ballot, meeple.uncertain, meeple.confidence);
            tally.meeples.insert(ballot, *meeple);
        }
        tally
    }

    fn add(&mut self, ballot: Ballot, uncertain: bool, confidence: f32) {
        let entry = self.counts.entry(ballot).or_default();
        entry.0 += 1;
        entry.1 += u32::from(!uncertain);
        entry.2 += confidence;
    }
}

/// Votes each frame's reading with the frames before it.
///
/// A piece is in the voted table as many times as at least half of the last `window`
/// frames show it at that place (the median count), flagged uncertain unless most of its
/// sightings were sure, with their mean confidence. A frame with a hand over the table
/// starts the vote again: what the hand moved is a new table.
#[derive(Clone, Debug)]
pub struct Voter {
    window: usize,
    frames: VecDeque<Tally>,
}

impl Voter {
    /// A vote over `window` frames; 1 passes every reading through unchanged.
    pub fn new(window: u32) -> Self {
        Self {
            window: window.max(1) as usize,
            frames: VecDeque::new(),
        }
    }

    /// Whether the last vote had its whole window of frames since the last hand: a vote
    /// over fewer frames is a guess (right after a hand, a blurred frame outvotes nothing).
    pub fn whole(&self) -> bool {
        self.window == 1 || self.frames.len() == self.window
    }

    /// The voted table of `observation` and the frames before it.
    pub fn vote(&mut self, observation: &Observation) -> Observation {
        if observation.is_covered() {
            self.frames.clear();
            return observation.clone();
        }
        if self.window == 1 {
            return observation.clone();
        }
        if self.frames.len() == self.window {
            self.frames.pop_front();
        }
        self.frames.push_back(Tally::of(observation));
        let mut ballots: BTreeMap<Ballot, Vec<(u32, u32, f32)>> = BTreeMap::new();
        for tally in &self.frames {
            for (ballot, counts) in &tally.counts {
                ballots.entry(*ballot).or_default().push(*counts);
            }
        }
        let frames = self.frames.len();
        let mut voted = Observation {
            frame: observation.frame,
            time_s: observation.time_s,
            dice: Vec::new(),
            meeples: Vec::new(),
            covered: Vec::new(),
            floors: observation.floors.clone(),
            levels_assumed: observation.levels_assumed,
        };
        for (ballot, seen) in ballots {
            // The count that at least half of the frames reach: frames that do not show the
            // piece count zero.
            let mut counts: Vec<u32> = seen.iter().map(|c| c.0).collect();
            counts.resize(frames, 0);
            counts.sort_unstable_by(|a, b| b.cmp(a));
            let count = counts[(frames - 1) / 2];
            if count == 0 {
                continue;
            }
            let sightings: u32 = seen.iter().map(|c| c.0).sum();
            let sure: u32 = seen.iter().map(|c| c.1).sum();
            let confidence = seen.iter().map(|c| c.2).sum::<f32>() / sightings as f32;
            let uncertain = 2 * sure <= sightings;
            let example = self.frames.iter().rev().find_map(|t| match ballot {
                Ballot::Die(..) => t.dice.get(&ballot).map(|d| Piece::Die(*d)),
                Ballot::Meeple(..) => t.meeples.get(&ballot).map(|m| Piece::Meeple(*m)),
            });
            for _ in 0..count {
                match example {
                    Some(Piece::Die(die)) => voted.dice.push(SeenDie {
                        confidence,
                        uncertain,
                        ..die
                    }),
                    Some(Piece::Meeple(meeple)) => voted.meeples.push(SeenMeeple {
                        confidence,
                        uncertain,
                        ..meeple
                    }),
                    None => {}
                }
            }
        }
        voted
    }
}

enum Piece {
    Die(SeenDie),
    Meeple(SeenMeeple),
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
    fn a_window_of_one_changes_nothing() {
        let mut voter = Voter::new(1);
        let observation = frame(7, vec![die(6, Place::ManaPool)]);
        assert_eq!(voter.vote(&observation), observation);
    }
}
