//! When the table has settled: no hand over it, and the same reading for long enough.

use rules::TowerId;
use serde::{Deserialize, Serialize};

use crate::observation::{Observation, Place};

/// How long a reading must stay the same, with no hand over the table, to count as settled.
/// Both must hold: at least `frames` frames in a row and at least `seconds`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SettleRule {
    pub frames: u32,
    pub seconds: f64,
}

impl Default for SettleRule {
    /// Three frames (0.2 s at 15 frames a second): dice still tumbling change every frame,
    /// and players leave a move on the table for longer than that.
    fn default() -> Self {
        Self {
            frames: 3,
            seconds: 0.0,
        }
    }
}

/// A reading reduced to what must stay the same: every piece and its place, what each sure
/// piece shows, the tiles read; no positions or confidences. What an unsure piece shows is
/// a guess that the referee lets match any value of its colour or either rank: a guess
/// that changes from frame to frame (a die under a meeple, a far meeple in a reserve) is no
/// change of the table, and neither is a piece read surely in some frames and unsurely in
/// others ([`ReadingKey::merged`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ReadingKey {
    /// Kind (0 die, 1 meeple), colour or player, place, value or rank when sure; sorted.
    pieces: Vec<(u8, u8, Place, Option<u8>)>,
    tiles: Vec<(TowerId, u8, String)>,
}

impl ReadingKey {
    pub fn of(observation: &Observation) -> Self {
        let sure = |uncertain: bool, shows: u8| (!uncertain).then_some(shows);
        let mut pieces: Vec<(u8, u8, Place, Option<u8>)> = Vec::new();
        for d in &observation.dice {
            let shows = sure(d.uncertain, d.die.value.get());
            pieces.push((0, d.die.color.index() as u8, d.place, shows));
        }
        for m in &observation.meeples {
            let shows = sure(m.uncertain, m.meeple.rank as u8);
            pieces.push((1, m.meeple.player as u8, m.place, shows));
        }
        pieces.sort();
        let mut tiles: Vec<(TowerId, u8, String)> = observation
            .floors
            .iter()
            .map(|f| (f.tower, f.level, f.tile.clone()))
            .collect();
        tiles.sort();
        Self { pieces, tiles }
    }

    /// The one table that this key and `other` both read, telling all that either tells (a
    /// piece sure in one of them shows what that one read), or none when they disagree: a
    /// piece more or fewer of a kind and colour at a place, another tile, or sure readings
    /// that no pairing of the pieces makes agree.
    pub fn merged(&self, other: &ReadingKey) -> Option<ReadingKey> {
        if self.tiles != other.tiles || self.pieces.len() != other.pieces.len() {
            return None;
        }
        let mut pieces = Vec::with_capacity(self.pieces.len());
        let (mut a, mut b) = (self.pieces.as_slice(), other.pieces.as_slice());
        while let Some(&(kind, colour, place, _)) = a.first() {
            let here = |p: &&(u8, u8, Place, Option<u8>)| (p.0, p.1, p.2) == (kind, colour, place);
            let n = a.iter().take_while(here).count();
            if b.iter().take_while(here).count() != n {
                return None;
            }
            let shows = |pieces: &[(u8, u8, Place, Option<u8>)]| {
                pieces.iter().map(|p| p.3).collect::<Vec<_>>()
            };
            let merged = merged_shows(&shows(&a[..n]), &shows(&b[..n]))?;
            pieces.extend(merged.into_iter().map(|s| (kind, colour, place, s)));
            (a, b) = (&a[n..], &b[n..]);
        }
        pieces.sort();
        Some(ReadingKey {
            pieces,
            tiles: self.tiles.clone(),
        })
    }
}

/// What the pieces of one kind, colour and place show in two readings (sure values, none
/// where unsure; each sorted, nones first), merged: the sure values both read, then those
/// only one read, each taken by one of the other reading's unsure pieces, then unsure
/// pieces for the rest; none when one reading's sure values outnumber the other's unsure
/// pieces that could take them.
fn merged_shows(a: &[Option<u8>], b: &[Option<u8>]) -> Option<Vec<Option<u8>>> {
    let (mut only_a, mut only_b): (Vec<u8>, Vec<u8>) = (
        a.iter().flatten().copied().collect(),
        b.iter().flatten().copied().collect(),
    );
    let (unsure_a, unsure_b) = (a.len() - only_a.len(), b.len() - only_b.len());
    let mut both = Vec::new();
    only_a.retain(|value| match only_b.iter().position(|v| v == value) {
        Some(at) => {
            only_b.remove(at);
            both.push(*value);
            false
        }
        None => true,
    });
    if only_a.len() > unsure_b || only_b.len() > unsure_a {
        return None;
    }
    let unsure = a.len() - both.len() - only_a.len() - only_b.len();
    let mut merged: Vec<Option<u8>> = (both.into_iter().chain(only_a).chain(only_b))
        .map(Some)
        .collect();
    merged.extend(std::iter::repeat_n(None, unsure));
    merged.sort();
    Some(merged)
}

/// Watches readings frame by frame and says when a new settled table appears.
#[derive(Clone, Debug)]
pub(crate) struct Settler {
    rule: SettleRule,
    /// The reading being watched, since which frame and time, and how many frames.
    current: Option<(ReadingKey, u64, f64, u32)>,
    /// The last reading reported as settled.
    last: Option<ReadingKey>,
    /// The last reading reported was not judged (a hand at rest hid part of it): it is
    /// reported again once no hand covers it.
    unjudged: bool,
}

impl Settler {
    pub fn new(rule: SettleRule) -> Self {
        Self {
            rule,
            current: None,
            last: None,
            unjudged: false,
        }
    }

    /// The reading last reported could not be judged: report it again once nothing covers
    /// it.
    pub fn unjudged(&mut self) {
        self.unjudged = true;
    }

    /// Feeds one frame; true when this frame completes a settled reading that differs from
    /// the last one reported. A hand at rest lets the table settle around it.
    pub fn update(&mut self, observation: &Observation) -> bool {
        if observation.is_covered() && !observation.hand_at_rest {
            self.current = None;
            return false;
        }
        let key = ReadingKey::of(observation);
        let merged = (self.current.as_ref()).and_then(|(current, ..)| current.merged(&key));
        match (&mut self.current, merged) {
            // The same table, maybe read more surely: it goes on settling, as all that any
            // of its frames read surely.
            (Some((current, _, _, frames)), Some(merged)) => {
                *current = merged;
                *frames += 1;
            }
            _ => self.current = Some((key, observation.frame, observation.time_s, 1)),
        }
        let Some((key, _, since_s, frames)) = &self.current else {
            return false;
        };
        let steady = *frames >= self.rule.frames.max(1)
            && observation.time_s - *since_s + 1e-9 >= self.rule.seconds;
        let again = self.unjudged && !observation.is_covered();
        if steady && (again || self.last.as_ref() != Some(key)) {
            self.last = Some(key.clone());
            self.unjudged = false;
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use rules::{Die, DieColor, DieValue};

    use super::*;
    use crate::observation::{SeenDie, Zone};

    fn table(frame: u64, value: u8, hand: bool) -> Observation {
        let Some(value) = DieValue::new(value) else {
            panic!("a die shows 1 to 6");
        };
        Observation {
            frame,
            time_s: frame as f64 / 15.0,
            dice: vec![SeenDie {
                die: Die::new(DieColor::Pink, value),
                place: Place::RollArea,
                confidence: 1.0,
                uncertain: false,
                value_probabilities: None,
                color_probabilities: None,
            }],
            covered: if hand { vec![Zone::Table] } else { Vec::new() },
            ..Observation::default()
        }
    }

    #[test]
    fn a_reading_settles_after_its_frames_once_and_not_under_a_hand() {
        let mut settler = Settler::new(SettleRule::default());
        // Tumbling: a new face every frame.
        for (frame, value) in [1, 4, 2, 6].into_iter().enumerate() {
            assert!(!settler.update(&table(frame as u64, value, false)));
        }
        assert!(!settler.update(&table(4, 3, false)));
        assert!(!settler.update(&table(5, 3, false)));
        assert!(settler.update(&table(6, 3, false)));
        assert!(!settler.update(&table(7, 3, false)), "reported twice");
        // A hand passes and leaves the same table: nothing new.
        assert!(!settler.update(&table(8, 3, true)));
        for frame in 9..14 {
            assert!(!settler.update(&table(frame, 3, false)));
        }
        // Steady under a hand is not settled.
        for frame in 14..20 {
            assert!(!settler.update(&table(frame, 5, true)));
        }
    }

    #[test]
    fn a_table_settles_around_a_hand_at_rest_and_once_more_when_it_goes_if_unjudged() {
        let mut settler = Settler::new(SettleRule::default());
        let at_rest = |frame, value| Observation {
            covered: vec![Zone::ManaPool],
            hand_at_rest: true,
            ..table(frame, value, false)
        };
        assert!(!settler.update(&at_rest(0, 3)));
        assert!(!settler.update(&at_rest(1, 3)));
        assert!(settler.update(&at_rest(2, 3)));
        assert!(!settler.update(&at_rest(3, 3)));
        // Left unjudged: reported again once the hand has gone, and only once.
        settler.unjudged();
        assert!(!settler.update(&at_rest(4, 3)));
        assert!(settler.update(&table(5, 3, false)));
        assert!(!settler.update(&table(6, 3, false)));
    }

    #[test]
    fn an_unsure_guess_that_changes_is_no_change_of_the_table() {
        let mut settler = Settler::new(SettleRule::default());
        let unsure = |frame, value| Observation {
            dice: vec![SeenDie {
                uncertain: true,
                ..table(frame, value, false).dice[0]
            }],
            ..table(frame, value, false)
        };
        assert!(!settler.update(&unsure(0, 2)));
        assert!(!settler.update(&unsure(1, 5)));
        assert!(settler.update(&unsure(2, 2)));
        // Read surely, the value counts: the still table is new, as soon as it is read so.
        assert!(settler.update(&table(3, 2, false)));
        // Unsure again, then sure again: the same table.
        assert!(!settler.update(&unsure(4, 6)));
        assert!(!settler.update(&table(5, 2, false)));
        // Read surely as another value: another table, settled after its own frames.
        assert!(!settler.update(&table(6, 4, false)));
        assert!(!settler.update(&table(7, 4, false)));
        assert!(settler.update(&table(8, 4, false)));
    }

    #[test]
    fn readings_agree_where_either_is_unsure() {
        let key = |shows: &[Option<u8>]| ReadingKey {
            pieces: (shows.iter())
                .map(|&s| (0, 0, Place::RollArea, s))
                .collect(),
            tiles: Vec::new(),
        };
        let merged = |a: &[Option<u8>], b: &[Option<u8>]| {
            key(a)
                .merged(&key(b))
                .map(|k| k.pieces.iter().map(|p| p.3).collect::<Vec<_>>())
        };
        assert_eq!(
            merged(&[None, Some(3)], &[Some(3), Some(5)]),
            Some(vec![Some(3), Some(5)])
        );
        assert_eq!(
            merged(&[None, None], &[Some(2), Some(6)]),
            Some(vec![Some(2), Some(6)])
        );
        assert_eq!(
            merged(&[None, Some(3)], &[None, Some(4)]),
            Some(vec![Some(3), Some(4)])
        );
        // Two sure readings of one die that differ, and a die more.
        assert_eq!(merged(&[Some(3)], &[Some(4)]), None);
        assert_eq!(merged(&[Some(3), Some(5)], &[None, Some(4)]), None);
        assert_eq!(merged(&[None], &[None, None]), None);
        // Pieces at different places never pair.
        let elsewhere = ReadingKey {
            pieces: vec![(0, 0, Place::ManaPool, None)],
            tiles: Vec::new(),
        };
        assert_eq!(key(&[None]).merged(&elsewhere), None);
    }

    #[test]
    fn seconds_count_too() {
        let mut settler = Settler::new(SettleRule {
            frames: 1,
            seconds: 0.5,
        });
        let settled: Vec<bool> = (0..10)
            .map(|f| settler.update(&table(f, 2, false)))
            .collect();
        // 0.5 s at 15 frames a second: the frame 7.5 frames after the first.
        assert_eq!(settled.iter().position(|&s| s), Some(8));
    }
}
