//! Typed actions: everything a player (or the dice) can do to the table.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::components::{Die, DieColor, PillarIndex, PlayerColor, Rank, SpellId, TowerId};

/// Where the meeple of a bonus comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MeepleSource {
    /// From the player's reserve.
    Reserve(Rank),
    /// From a space of the player's spellbook (extra-meeple bonus with an empty reserve).
    Spellbook(SpellId),
}

impl fmt::Display for MeepleSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Reserve(rank) => write!(f, "{} from the reserve", rank.with_article()),
            Self::Spellbook(spell) => write!(f, "the meeple on {spell}"),
        }
    }
}

/// Where the meeple of a bonus goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum BonusTarget {
    /// An empty pillar of another tower's top floor, without a die.
    Pillar { tower: TowerId, pillar: PillarIndex },
    /// The spellbook space equal to the value of the die just placed.
    Spellbook,
}

impl fmt::Display for BonusTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Pillar { tower, pillar } => write!(f, "{pillar} of {tower}"),
            Self::Spellbook => f.write_str("the spellbook"),
        }
    }
}

/// +1 or -1 for the Change spell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    Up,
    Down,
}

impl Direction {
    pub fn delta(self) -> i8 {
        match self {
            Self::Up => 1,
            Self::Down => -1,
        }
    }
}

/// What a cast spell does (Manipulation casts one of these through
/// [`Action::Cast::via_manipulation`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum SpellEffect {
    /// Change: the die placed this turn shows one more or one less.
    Change { direction: Direction },
    /// Flip: turn a rolled die to its opposite face.
    Flip { die: Die },
    /// Metamorphosis: the die placed this turn counts as `color`.
    Metamorphosis { color: DieColor },
    /// Exchange: swap a rolled die with a die of the mana pool.
    Exchange { rolled: Die, pool: Die },
    /// Permutation: swap a rolled die with the die on a pillar of the central tower's top floor.
    Permutation { rolled: Die, pillar: PillarIndex },
}

impl SpellEffect {
    pub fn spell(&self) -> SpellId {
        match self {
            Self::Change { .. } => SpellId::Change,
            Self::Flip { .. } => SpellId::Flip,
            Self::Metamorphosis { .. } => SpellId::Metamorphosis,
            Self::Exchange { .. } => SpellId::Exchange,
            Self::Permutation { .. } => SpellId::Permutation,
        }
    }
}

impl fmt::Display for SpellEffect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Change { direction } => write!(
                f,
                "Change: the die placed this turn will show {}",
                match direction {
                    Direction::Up => "one more",
                    Direction::Down => "one less",
                }
            ),
            Self::Flip { die } => write!(
                f,
                "Flip: the rolled {die} turns to {}",
                die.value.opposite()
            ),
            Self::Metamorphosis { color } => {
                write!(
                    f,
                    "Metamorphosis: the die placed this turn counts as {color}"
                )
            }
            Self::Exchange { rolled, pool } => {
                write!(
                    f,
                    "Exchange: the rolled {rolled} swaps with the {pool} of the mana pool"
                )
            }
            Self::Permutation { rolled, pillar } => write!(
                f,
                "Permutation: the rolled {rolled} swaps with the die on {pillar} of the central tower"
            ),
        }
    }
}

/// One step of the game. Every player action names its player, so that an action out of
/// turn is refused with a clear reason.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// The first player draws and rolls this round's dice.
    Roll { dice: Vec<Die> },
    /// The tile on an empty top floor is this one from the stack (the tile actually drawn
    /// when the floor was built): the two tiles swap places.
    SetTile { tower: TowerId, tile: String },
    /// A die from the roll and a meeple from the reserve go on an empty pillar.
    Place {
        player: PlayerColor,
        die: Die,
        rank: Rank,
        tower: TowerId,
        pillar: PillarIndex,
    },
    /// Resolves the pending extra-meeple or spell bonus.
    BonusMeeple {
        player: PlayerColor,
        from: MeepleSource,
        to: BonusTarget,
    },
    /// Declines the pending bonus.
    SkipBonus { player: PlayerColor },
    /// Casts a spell: the meeple on its space (or on Manipulation) returns to the reserve.
    Cast {
        player: PlayerColor,
        effect: SpellEffect,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        via_manipulation: bool,
    },
    /// Takes a meeple back from the spellbook without its effect (only with an empty reserve).
    Recall { player: PlayerColor, spell: SpellId },
    /// Ends the turn (a pass when no placement is possible).
    EndTurn { player: PlayerColor },
}

impl Action {
    /// The player who acts, or `None` for the roll.
    pub fn player(&self) -> Option<PlayerColor> {
        match self {
            Self::Roll { .. } | Self::SetTile { .. } => None,
            Self::Place { player, .. }
            | Self::BonusMeeple { player, .. }
            | Self::SkipBonus { player }
            | Self::Cast { player, .. }
            | Self::Recall { player, .. }
            | Self::EndTurn { player } => Some(*player),
        }
    }
}

/// "Red casts Flip: the rolled blue 1 turns to 6 (through Manipulation)".
pub(crate) fn write_cast(
    f: &mut fmt::Formatter<'_>,
    player: PlayerColor,
    effect: &SpellEffect,
    via_manipulation: bool,
) -> fmt::Result {
    write!(f, "{player} casts {effect}")?;
    if via_manipulation {
        f.write_str(" (through Manipulation)")?;
    }
    Ok(())
}

pub(crate) fn dice_list(dice: &[Die]) -> String {
    let names: Vec<String> = dice.iter().map(Die::to_string).collect();
    names.join(", ")
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Roll { dice } => write!(f, "roll {}", dice_list(dice)),
            Self::SetTile { tower, tile } => write!(f, "the tile \"{tile}\" is on {tower}"),
            Self::Place {
                player,
                die,
                rank,
                tower,
                pillar,
            } => write!(
                f,
                "{player} places the {die} with {} on {pillar} of {tower}",
                rank.with_article()
            ),
            Self::BonusMeeple { player, from, to } => {
                write!(f, "{player} puts {from} on {to}")
            }
            Self::SkipBonus { player } => write!(f, "{player} declines the bonus"),
            Self::Cast {
                player,
                effect,
                via_manipulation,
            } => write_cast(f, *player, effect, *via_manipulation),
            Self::Recall { player, spell } => {
                write!(f, "{player} takes the meeple back from {spell}")
            }
            Self::EndTurn { player } => write!(f, "{player} ends the turn"),
        }
    }
}
