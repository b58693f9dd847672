//! What happened, in order: the log of a game, each event a sentence.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::action::{BonusTarget, MeepleSource, SpellEffect, dice_list, write_cast};
use crate::components::{Die, Meeple, PillarIndex, PlayerColor, SpellId, TowerId};
use crate::scoring::{FinalScore, ScoreEntry};
use crate::tiles::PillarBonus;
use crate::tiles::Tile;

/// One thing that happened on the table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "event")]
pub enum Event {
    Rolled {
        round: u8,
        first_player: PlayerColor,
        dice: Vec<Die>,
    },
    Placed {
        meeple: Meeple,
        /// The die as it stands on the pillar.
        die: Die,
        /// The rolled die, when Change turned it to another face.
        changed_from: Option<Die>,
        /// The die as the tower's restriction saw it, when Metamorphosis recoloured it.
        counted_as: Option<Die>,
        tower: TowerId,
        pillar: PillarIndex,
        bonus: PillarBonus,
    },
    Scored(ScoreEntry),
    BonusNoEffect {
        player: PlayerColor,
        bonus: PillarBonus,
        why: String,
    },
    BonusMeeple {
        meeple: Meeple,
        from: MeepleSource,
        to: BonusTarget,
        spell: Option<SpellId>,
    },
    BonusSkipped {
        player: PlayerColor,
        bonus: PillarBonus,
    },
    SpellCast {
        player: PlayerColor,
        effect: SpellEffect,
        via_manipulation: bool,
    },
    Recalled {
        player: PlayerColor,
        spell: SpellId,
    },
    FloorCompleted {
        tower: TowerId,
        level: u8,
    },
    MeeplesReturned {
        tower: TowerId,
        meeples: Vec<Meeple>,
    },
    MeeplesStay {
        tower: TowerId,
        meeples: Vec<Meeple>,
    },
    NewFloor {
        tower: TowerId,
        level: u8,
        tile: Arc<Tile>,
    },
    TowerFinished {
        tower: TowerId,
    },
    TurnEnded {
        player: PlayerColor,
        passed: bool,
    },
    RoundEnded {
        round: u8,
        mana_die: Die,
        back_to_bag: Vec<Die>,
    },
    GameEnded(FinalScore),
    /// The tile of an empty top floor was named: it swapped places with the stack's tile.
    TileSet {
        tower: TowerId,
        tile: Arc<Tile>,
    },
    /// The players allowed the action that follows against a rule.
    Overridden {
        violation: String,
    },
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Rolled {
                round,
                first_player,
                dice,
            } => write!(
                f,
                "Round {round}: {first_player} rolls {}.",
                dice_list(dice)
            ),
            Self::Placed {
                meeple,
                die,
                changed_from,
                counted_as,
                tower,
                pillar,
                bonus,
            } => {
                write!(f, "{} places the ", meeple.player)?;
                match changed_from {
                    Some(rolled) => write!(f, "{rolled} (turned to {} by Change)", die.value)?,
                    None => write!(f, "{die}")?,
                }
                write!(
                    f,
                    " with {} on {pillar} of {tower}",
                    meeple.rank.with_article()
                )?;
                if let Some(counted) = counted_as {
                    write!(f, " (counted as {counted})")?;
                }
                write!(f, "; bonus: {bonus}.")
            }
            Self::Scored(entry) => write!(f, "{entry}."),
            Self::BonusNoEffect { player, bonus, why } => {
                write!(f, "{player}'s {bonus} bonus has no effect: {why}.")
            }
            Self::BonusMeeple {
                meeple,
                from,
                to,
                spell,
            } => {
                write!(f, "{} puts {from} on {to}", meeple.player)?;
                if let Some(spell) = spell {
                    write!(f, " ({spell})")?;
                }
                f.write_str(".")
            }
            Self::BonusSkipped { player, bonus } => {
                write!(f, "{player} declines the {bonus} bonus.")
            }
            Self::SpellCast {
                player,
                effect,
                via_manipulation,
            } => {
                write_cast(f, *player, effect, *via_manipulation)?;
                f.write_str(".")
            }
            Self::Recalled { player, spell } => write!(
                f,
                "{player} takes the meeple back from {spell} without its effect."
            ),
            Self::FloorCompleted { tower, level } => {
                write!(f, "Floor {level} of {tower} is complete and scored.")
            }
            Self::MeeplesReturned { tower, meeples } => write!(
                f,
                "Meeples beside dice on {tower} go back to their owners: {}.",
                meeple_list(meeples)
            ),
            Self::MeeplesStay { tower, meeples } => write!(
                f,
                "Meeples alone on pillars stay in {tower} for good: {}.",
                meeple_list(meeples)
            ),
            Self::NewFloor { tower, level, tile } => {
                write!(f, "A new floor is built on {tower}: level {level}")?;
                if tower.is_central() {
                    f.write_str(", any die.")
                } else {
                    write!(f, ", {} ({}).", tile.restriction, tile.name)
                }
            }
            Self::TowerFinished { tower } => write!(
                f,
                "The floor stack is empty: {tower} is finished and takes no more dice."
            ),
            Self::TurnEnded { player, passed } => {
                if *passed {
                    write!(f, "{player} cannot place a die and passes.")
                } else {
                    write!(f, "{player} ends the turn.")
                }
            }
            Self::RoundEnded {
                round,
                mana_die,
                back_to_bag,
            } => {
                write!(
                    f,
                    "Round {round} ends: the {mana_die} goes to the mana pool."
                )?;
                if !back_to_bag.is_empty() {
                    write!(
                        f,
                        " Unplaced dice go back to the bag: {}.",
                        dice_list(back_to_bag)
                    )?;
                }
                Ok(())
            }
            Self::GameEnded(score) => write!(f, "The game is over.\n{score}"),
            Self::TileSet { tower, tile } => {
                write!(f, "The floor on {tower} is the tile {}", tile.name)?;
                if tower.is_central() {
                    f.write_str(" (ceiling side: any die).")
                } else {
                    write!(f, ": {}.", tile.restriction)
                }
            }
            Self::Overridden { violation } => {
                write!(f, "Allowed by the table against the rules: {violation}")
            }
        }
    }
}

fn meeple_list(meeples: &[Meeple]) -> String {
    if meeples.is_empty() {
        return "none".to_owned();
    }
    let names: Vec<String> = meeples.iter().map(Meeple::to_string).collect();
    names.join(", ")
}
