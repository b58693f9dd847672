//! What the referee is given: one frame's reading of the table, in the words of the game.
//!
//! The camera path (reader, calibration, zones) and the oracle of rendered games both end
//! here: dice with colour and value, meeples with player and rank, each at a place of the
//! game (a pillar of a tower floor, the roll area, the mana pool, a spellbook space, a
//! reserve), with how sure the reading is, and the zones a hand covers.

use std::fmt;

use rules::{Die, DieColor, GameState, Meeple, PillarIndex, PlayerColor, Rank, SpellId, TowerId};
use serde::{Deserialize, Serialize};

/// Where a die or a meeple was seen, in the words of the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "zone")]
pub enum Place {
    /// On a pillar of a tower floor (level 1 is the lowest); `buried` when a floor above
    /// covers it.
    Tower {
        tower: TowerId,
        level: u8,
        pillar: PillarIndex,
        #[serde(default)]
        buried: bool,
    },
    RollArea,
    ManaPool,
    /// On a space of a player's spellbook board.
    Spellbook {
        player: PlayerColor,
        spell: SpellId,
    },
    /// Beside a player's board, in their reserve.
    Reserve {
        player: PlayerColor,
    },
    /// Seen, but in no zone of the game (in a hand, off the mat).
    Elsewhere,
}

/// A zone of the table that something (a hand, an arm) covers in a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "zone")]
pub enum Zone {
    /// Somewhere over the table, where exactly is not known: the whole play area.
    Table,
    Tower {
        tower: TowerId,
    },
    RollArea,
    ManaPool,
    Spellbook {
        player: PlayerColor,
    },
    Reserve {
        player: PlayerColor,
    },
}

impl fmt::Display for Zone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Table => f.write_str("the table"),
            Self::Tower { tower } => write!(f, "{tower}"),
            Self::RollArea => f.write_str("the roll area"),
            Self::ManaPool => f.write_str("the mana pool"),
            Self::Spellbook { player } => write!(f, "{player}'s spellbook"),
            Self::Reserve { player } => write!(f, "{player}'s reserve"),
        }
    }
}

/// A die as one frame shows it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeenDie {
    pub die: Die,
    pub place: Place,
    /// How sure the reading is, 0 to 1.
    #[serde(default = "certain")]
    pub confidence: f32,
    /// The value or colour may be wrong (a reader's flag); the die is there.
    #[serde(default)]
    pub uncertain: bool,
    /// The reader's probability of each value, 1 to 6 (`None` where no reader read it: a
    /// rendered game's labels, readings saved before 2026-11-29): what else an unsure die
    /// may show.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_probabilities: Option<[f32; 6]>,
    /// The reader's probability of each of the game's colours, in [`DieColor::ALL`]'s
    /// order (`None` where no reader read it): what else an unsure die may be.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color_probabilities: Option<[f32; 4]>,
}

impl SeenDie {
    /// The likeliest colour of the game other than the one read, when the reader gave it
    /// at least `at_least`.
    pub fn second_color(&self, at_least: f32) -> Option<DieColor> {
        let probabilities = self.color_probabilities?;
        DieColor::ALL
            .into_iter()
            .zip(probabilities)
            .filter(|&(color, p)| color != self.die.color && p >= at_least)
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(color, _)| color)
    }
}

/// A meeple as one frame shows it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeenMeeple {
    pub meeple: Meeple,
    pub place: Place,
    #[serde(default = "certain")]
    pub confidence: f32,
    #[serde(default)]
    pub uncertain: bool,
}

/// The tile read on a tower's floor, when the camera can tell (optional).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeenFloor {
    pub tower: TowerId,
    pub level: u8,
    /// The tile's catalogue id.
    pub tile: String,
}

fn certain() -> f32 {
    1.0
}

/// One frame's reading of the table.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    /// The frame's number in the video (or the capture).
    pub frame: u64,
    /// Seconds since the first frame.
    pub time_s: f64,
    pub dice: Vec<SeenDie>,
    pub meeples: Vec<SeenMeeple>,
    /// Zones covered by a hand: nothing is settled while any is, unless the hand is at rest.
    #[serde(default)]
    pub covered: Vec<Zone>,
    /// The hand over `covered` has stopped there, and the camera path passes on the table
    /// as it read it before the hand came. That table may settle: the moves it shows are
    /// confirmed when legal sequences explain them, and nothing else is decided (no flag, no
    /// desync) before the hand has gone, since a move under it may have changed what it
    /// hides.
    #[serde(default)]
    pub hand_at_rest: bool,
    /// Tiles read on top floors, if the camera reads them.
    #[serde(default)]
    pub floors: Vec<SeenFloor>,
    /// The levels of the pieces on towers (not buried) are the top floors the game had
    /// when the frame was read, not seen: a camera does not tell a piece on a floor from
    /// one on the new floor above it. The referee then takes each as standing on the top
    /// floor of whatever state it compares the table with (a floor completed and covered
    /// by a new tile shows as its pieces gone, then as new pieces on the same pillars).
    #[serde(default)]
    pub levels_assumed: bool,
    /// The camera path did not read this frame: nothing moved since the last frame read,
    /// and the still table was read again enough times after the last move, so it passes
    /// on that frame's reading (its places located again). The vote counts it once.
    #[serde(default)]
    pub repeated: bool,
}

impl Observation {
    /// The reading of a perfect camera that sees the whole table of `state` and no hand:
    /// the towers' dice and meeples (buried ones too), the roll (in the engine's order),
    /// the mana pool, the spellbooks and the reserves. For tests, simulations and
    /// demonstrations.
    pub fn perfect(state: &GameState, frame: u64, time_s: f64) -> Self {
        let mut observation = Self {
            frame,
            time_s,
            ..Self::default()
        };
        let die = |die, place| SeenDie {
            die,
            place,
            confidence: 1.0,
            uncertain: false,
            value_probabilities: None,
            color_probabilities: None,
        };
        let meeple = |meeple, place| SeenMeeple {
            meeple,
            place,
            confidence: 1.0,
            uncertain: false,
        };
        for tower in state.towers() {
            // Buried pieces, three to a completed floor (which pillar each stood on is not
            // kept by the game).
            let mut buried = tower
                .buried_dice
                .iter()
                .map(|&d| (Some(d), None))
                .chain(tower.foundation.iter().map(|&m| (None, Some(m))));
            for level in 1..tower.level {
                for pillar in PillarIndex::ALL {
                    let Some((d, m)) = buried.next() else { break };
                    let place = Place::Tower {
                        tower: tower.id,
                        level,
                        pillar,
                        buried: true,
                    };
                    if let Some(d) = d {
                        observation.dice.push(die(d, place));
                    }
                    if let Some(m) = m {
                        observation.meeples.push(meeple(m, place));
                    }
                }
            }
            for pillar in PillarIndex::ALL {
                let Some(content) = tower.pillar(pillar) else {
                    continue;
                };
                let place = Place::Tower {
                    tower: tower.id,
                    level: tower.level,
                    pillar,
                    buried: false,
                };
                if let Some(d) = content.die {
                    observation.dice.push(die(d, place));
                }
                if let Some(m) = content.meeple {
                    observation.meeples.push(meeple(m, place));
                }
            }
        }
        for &d in state.roll() {
            observation.dice.push(die(d, Place::RollArea));
        }
        for &d in state.mana_pool() {
            observation.dice.push(die(d, Place::ManaPool));
        }
        for player in state.players() {
            for spell in SpellId::ALL {
                if let Some(rank) = player.spell(spell) {
                    let m = Meeple {
                        player: player.color,
                        rank,
                    };
                    let place = Place::Spellbook {
                        player: player.color,
                        spell,
                    };
                    observation.meeples.push(meeple(m, place));
                }
            }
            let reserve = Place::Reserve {
                player: player.color,
            };
            for rank in Rank::ALL {
                let count = match rank {
                    Rank::Apprentice => player.apprentices,
                    Rank::Master => u8::from(player.master),
                };
                for _ in 0..count {
                    let m = Meeple {
                        player: player.color,
                        rank,
                    };
                    observation.meeples.push(meeple(m, reserve));
                }
            }
        }
        observation
    }

    /// Whether a hand covers any zone.
    pub fn is_covered(&self) -> bool {
        !self.covered.is_empty()
    }
}
