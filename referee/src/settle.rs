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
/// change of the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ReadingKey {
    /// Kind (0 die, 1 meeple), colour or player, value or rank when sure, place.
    pieces: Vec<(u8, u8, Option<u8>, Place)>,
    tiles: Vec<(TowerId, u8, String)>,
}

impl ReadingKey {
    pub fn of(observation: &Observation) -> Self {
        let sure = |uncertain: bool, shows: u8| (!uncertain).then_some(shows);
        let mut pieces: Vec<(u8, u8, Option<u8>, Place)> = Vec::new();
        for d in &observation.dice {
            let shows = sure(d.uncertain, d.die.value.get());
            pieces.push((0, d.die.color.index() as u8, shows, d.place));
        }
        for m in &observation.meeples {
            let shows = sure(m.uncertain, m.meeple.rank as u8);
            pieces.push((1, m.meeple.player as u8, shows, m.place));
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
}

/// Watches readings frame by frame and says when a new settled table appears.
#[derive(Clone, Debug)]
pub(crate) struct Settler {
    rule: SettleRule,
    /// The reading being watched, since which frame and time, and how many frames.
    current: Option<(ReadingKey, u64, f64, u32)>,
    /// The last reading reported as settled.
    last: Option<ReadingKey>,
}

impl Settler {
    pub fn new(rule: SettleRule) -> Self {
        Self {
            rule,
            current: None,
            last: None,
        }
    }

    /// Feeds one frame; true when this frame completes a settled reading that differs from
    /// the last one reported.
    pub fn update(&mut self, observation: &Observation) -> bool {
        if observation.is_covered() {
            self.current = None;
            return false;
        }
        let key = ReadingKey::of(observation);
        match &mut self.current {
            Some((current, _, _, frames)) if *current == key => *frames += 1,
            _ => self.current = Some((key, observation.frame, observation.time_s, 1)),
        }
        let Some((key, _, since_s, frames)) = &self.current else {
            return false;
        };
        let steady = *frames >= self.rule.frames.max(1)
            && observation.time_s - *since_s + 1e-9 >= self.rule.seconds;
        if steady && self.last.as_ref() != Some(key) {
            self.last = Some(key.clone());
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
        // Read surely, the value counts.
        assert!(!settler.update(&table(3, 2, false)));
        assert!(!settler.update(&table(4, 2, false)));
        assert!(settler.update(&table(5, 2, false)));
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
