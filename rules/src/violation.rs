//! Why an action is illegal, in sentences a new player understands.

use std::fmt;

use crate::action::{Action, dice_list};
use crate::components::{Die, DieColor, Pillar, PillarIndex, PlayerColor, Rank, SpellId, TowerId};
use crate::state::GameState;
use crate::tiles::PillarBonus;
use crate::tiles::Restriction;

/// The rule an action broke, with the die, meeple, tower and pillar involved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Violation {
    GameOver,
    NotRolled {
        round: u8,
    },
    AlreadyRolled {
        round: u8,
    },
    WrongDiceCount {
        expected: usize,
        found: usize,
    },
    NotInBag {
        color: DieColor,
        wanted: u8,
        in_bag: u8,
    },
    NotYourTurn {
        player: PlayerColor,
        current: PlayerColor,
    },
    BonusPending {
        player: PlayerColor,
        bonus: PillarBonus,
        tower: TowerId,
    },
    NoBonusPending {
        player: PlayerColor,
    },
    AlreadyPlaced {
        player: PlayerColor,
    },
    MustPlace {
        player: PlayerColor,
    },
    DieNotRolled {
        die: Die,
        rolled: Vec<Die>,
    },
    NoMeepleInReserve {
        player: PlayerColor,
        rank: Rank,
        spellbook_has_meeples: bool,
    },
    TowerFinished {
        tower: TowerId,
    },
    PillarTaken {
        tower: TowerId,
        pillar: PillarIndex,
        occupant: Pillar,
    },
    ColorNotAllowed {
        tower: TowerId,
        die: Die,
        restriction: Restriction,
    },
    ValueNotAllowed {
        tower: TowerId,
        die: Die,
        restriction: Restriction,
    },
    ValueRepeated {
        tower: TowerId,
        die: Die,
    },
    ChangeOutOfRange {
        die: Die,
        delta: i8,
    },
    SameTower {
        tower: TowerId,
    },
    SpellBonusGoesToSpellbook,
    SpellbookSourceNotAllowed {
        player: PlayerColor,
        bonus: PillarBonus,
    },
    SpellbookSpaceTaken {
        player: PlayerColor,
        spell: SpellId,
    },
    NoMeepleOnSpell {
        player: PlayerColor,
        spell: SpellId,
    },
    SpellTooLate {
        spell: SpellId,
    },
    NotInManaPool {
        die: Die,
    },
    NoDieOnCentralPillar {
        pillar: PillarIndex,
    },
    RecallNotNeeded {
        player: PlayerColor,
    },
    TileNotInStack {
        tile: String,
    },
    FloorNotEmpty {
        tower: TowerId,
    },
    StartingTile {
        tower: TowerId,
    },
    SpellJustArrived {
        player: PlayerColor,
        spell: SpellId,
    },
    /// Change by `delta` (the total of this turn's Change spells) fits no die on the table.
    ChangeFitsNoDie {
        delta: i8,
    },
    MetamorphosisChangesNothing {
        color: DieColor,
    },
    /// Exchange or Permutation would swap `die` with an identical die.
    SwapChangesNothing {
        spell: SpellId,
        die: Die,
    },
    SpellPreventsPlacement {
        player: PlayerColor,
        spell: SpellId,
    },
}

impl Violation {
    /// Whether the players may agree to waive this rule ([`GameState::play_overriding`]):
    /// only the dice restrictions of a floor, which change nothing else on the table.
    pub fn can_be_overridden(&self) -> bool {
        matches!(
            self,
            Self::ColorNotAllowed { .. }
                | Self::ValueNotAllowed { .. }
                | Self::ValueRepeated { .. }
        )
    }

    /// The rule that was broken, quoted from RULINGS.md, for the teaching view.
    pub fn rule(&self) -> &'static str {
        use Violation::*;
        match self {
            GameOver => "The game ends after the last round (8 with 2 or 4 players, 9 with 3).",
            NotRolled { .. } | AlreadyRolled { .. } | WrongDiceCount { .. } | NotInBag { .. } => {
                "The first player draws and rolls 5 dice (2 or 4 players) or 4 dice (3 players) from the bag."
            }
            NotYourTurn { .. } => {
                "Clockwise from the first player, each player places one die (2 players: alternately, two each)."
            }
            BonusPending { .. } | NoBonusPending { .. } => {
                "After placing, resolve the bonus of the pillar before anything else."
            }
            AlreadyPlaced { .. } | MustPlace { .. } => {
                "Each turn a player places exactly one die together with one meeple."
            }
            DieNotRolled { .. } => "A die goes on a pillar from the dice rolled this round.",
            NoMeepleInReserve { .. } => {
                "A die is always placed with a meeple from the reserve; with an empty reserve, first cast a spell or take a meeple back from the spellbook."
            }
            TowerFinished { .. } => {
                "If the floor stack is empty, a completed tower gets no new floor and takes no more dice."
            }
            PillarTaken { .. } => "A die goes on an empty pillar of the top floor of a tower.",
            ColorNotAllowed { .. } | ValueNotAllowed { .. } | ValueRepeated { .. } => {
                "On an outer tower the die must satisfy the top tile's restriction: colour in the allowed set, value in the allowed set, and on an all-different tile no value already on that floor."
            }
            ChangeOutOfRange { .. } => {
                "Change: +1 or -1 to the value of the die you place; 1 cannot go to 0, 6 not to 7."
            }
            SameTower { .. } => {
                "Extra meeple: on an empty pillar of the top floor of a DIFFERENT tower, or on the spellbook."
            }
            SpellBonusGoesToSpellbook => {
                "Central tower: put a meeple from the reserve on the spellbook space equal to the die's value."
            }
            SpellbookSourceNotAllowed { .. } => {
                "Extra meeple: from the reserve, or from the spellbook only if the reserve is empty; the central tower's spell bonus takes a meeple from the reserve."
            }
            SpellbookSpaceTaken { .. } => "Each spellbook space holds at most one meeple.",
            NoMeepleOnSpell { .. } => {
                "A spell is cast by returning the meeple on its space (or on Manipulation) to the reserve."
            }
            SpellTooLate { .. } => {
                "Change and Metamorphosis act on the die you are about to place."
            }
            NotInManaPool { .. } => {
                "Exchange: swap a die on the table with a die in the mana pool."
            }
            NoDieOnCentralPillar { .. } => {
                "Permutation: swap a die on the table with a die on the top floor of the central tower."
            }
            RecallNotNeeded { .. } => {
                "A meeple is taken back from the spellbook without its effect only when the reserve is empty."
            }
            TileNotInStack { .. } | FloorNotEmpty { .. } | StartingTile { .. } => {
                "A completed floor gets the next tile from the stack; it can be named until a die or meeple stands on it. The first floors are the starting tiles."
            }
            SpellJustArrived { .. } => {
                "A meeple put on a spellbook space during a turn can be cast from that player's next turn on (\"at any point in their future turns\")."
            }
            ChangeFitsNoDie { .. }
            | MetamorphosisChangesNothing { .. }
            | SwapChangesNothing { .. }
            | SpellPreventsPlacement { .. } => {
                "A spell that can change nothing cannot be cast: a spell is never a way to avoid placing. Each player places one die per turn while a placement is possible."
            }
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Violation::*;
        match self {
            GameOver => f.write_str("The game is over: no more actions can be played."),
            NotRolled { round } => write!(
                f,
                "The dice of round {round} have not been rolled yet: the first player rolls before anyone places."
            ),
            AlreadyRolled { round } => {
                write!(f, "The dice of round {round} have already been rolled.")
            }
            WrongDiceCount { expected, found } => write!(
                f,
                "This round is played with {expected} dice, but {found} were rolled."
            ),
            NotInBag {
                color,
                wanted,
                in_bag,
            } => write!(
                f,
                "The roll has {wanted} {color} dice, but only {in_bag} {color} dice are left in the bag."
            ),
            NotYourTurn { player, current } => {
                write!(f, "It is {current}'s turn, not {player}'s.")
            }
            BonusPending {
                player,
                bonus,
                tower,
            } => write!(
                f,
                "{player} must first resolve the {bonus} bonus from {tower} (or decline it)."
            ),
            NoBonusPending { player } => write!(f, "{player} has no bonus to resolve."),
            AlreadyPlaced { player } => write!(
                f,
                "{player} has already placed a die this turn; one die per turn."
            ),
            MustPlace { player } => write!(
                f,
                "{player} must place a die and a meeple before ending the turn (a placement is possible)."
            ),
            DieNotRolled { die, rolled } => {
                if rolled.is_empty() {
                    write!(f, "There is no {die} among the rolled dice: none are left.")
                } else {
                    write!(
                        f,
                        "There is no {die} among the rolled dice (rolled: {}).",
                        dice_list(rolled)
                    )
                }
            }
            NoMeepleInReserve {
                player,
                rank,
                spellbook_has_meeples,
            } => {
                match rank {
                    Rank::Master => write!(f, "{player}'s master is not in the reserve.")?,
                    Rank::Apprentice => {
                        write!(f, "{player} has no apprentice left in the reserve.")?
                    }
                }
                if *spellbook_has_meeples {
                    f.write_str(
                        " Cast a spell or take a meeple back from the spellbook to free one.",
                    )?;
                }
                Ok(())
            }
            TowerFinished { tower } => {
                let name = capitalise(&tower.to_string());
                write!(
                    f,
                    "{name} is finished: the floor stack ran out, so it takes no more dice or meeples."
                )
            }
            PillarTaken {
                tower,
                pillar,
                occupant,
            } => {
                let name = capitalise(&pillar.to_string());
                write!(f, "{name} of {tower} is already taken by {occupant}.")
            }
            ColorNotAllowed {
                tower,
                die,
                restriction,
            } => write!(
                f,
                "The {die} cannot go on {tower}: its floor only takes {restriction}, and {} is not one of its colours.",
                die.color
            ),
            ValueNotAllowed {
                tower,
                die,
                restriction,
            } => write!(
                f,
                "The {die} cannot go on {tower}: its floor only takes {restriction}, and {} is not one of its values.",
                die.value
            ),
            ValueRepeated { tower, die } => write!(
                f,
                "The {die} cannot go on {tower}: its floor needs all values different and already holds a {}.",
                die.value
            ),
            ChangeOutOfRange { die, delta } => write!(
                f,
                "Change cannot turn the {die} to {}: a die shows 1 to 6 and does not wrap around.",
                i16::from(die.value.get()) + i16::from(*delta)
            ),
            SameTower { tower } => write!(
                f,
                "The extra meeple must go to a different tower than the one that gave the bonus ({tower})."
            ),
            SpellBonusGoesToSpellbook => f.write_str(
                "The central tower's bonus puts the meeple on the spellbook, not on a pillar.",
            ),
            SpellbookSourceNotAllowed { player, bonus } => match bonus {
                PillarBonus::Spell => write!(
                    f,
                    "The central tower's spell bonus takes a meeple from {player}'s reserve, not from the spellbook."
                ),
                _ => write!(
                    f,
                    "{player} still has meeples in the reserve; the bonus meeple comes from the spellbook only when the reserve is empty."
                ),
            },
            SpellbookSpaceTaken { player, spell } => write!(
                f,
                "{player}'s spellbook already has a meeple on {spell}; each space holds one."
            ),
            NoMeepleOnSpell { player, spell } => {
                write!(f, "{player} has no meeple on {spell}.")
            }
            SpellTooLate { spell } => write!(
                f,
                "{spell} acts on the die you are about to place, and you have already placed this turn."
            ),
            NotInManaPool { die } => write!(f, "There is no {die} in the mana pool."),
            NoDieOnCentralPillar { pillar } => write!(
                f,
                "There is no die on {pillar} of the central tower's top floor to swap with."
            ),
            TileNotInStack { tile } => {
                write!(f, "The tile \"{tile}\" is not in the floor stack.")
            }
            FloorNotEmpty { tower } => write!(
                f,
                "The top floor of {tower} already holds dice or meeples; its tile can no longer be changed."
            ),
            StartingTile { tower } => write!(
                f,
                "The first floor of {tower} is a starting tile laid at set-up; only a tile drawn from the stack for a new floor can be named."
            ),
            SpellJustArrived { player, spell } => write!(
                f,
                "{player}'s meeple arrived on {spell} this turn; it can be cast from {player}'s next turn on."
            ),
            ChangeFitsNoDie { delta } => write!(
                f,
                "Change cannot act: no die on the table can show {} (a die shows 1 to 6 and does not wrap around), and a spell that can change nothing cannot be cast.",
                match delta {
                    1 => "one more".to_owned(),
                    -1 => "one less".to_owned(),
                    _ => format!("{delta:+}"),
                }
            ),
            MetamorphosisChangesNothing { color } => write!(
                f,
                "Metamorphosis to {color} changes nothing: every die on the table already counts as {color}, and a spell that can change nothing cannot be cast."
            ),
            SwapChangesNothing { spell, die } => write!(
                f,
                "{spell} would swap the {die} with an identical {die}: a spell that can change nothing cannot be cast."
            ),
            SpellPreventsPlacement { player, spell } => write!(
                f,
                "{player} can place a die now, and after this {} could not: a spell is never a way to avoid placing.",
                spell.name()
            ),
            RecallNotNeeded { player } => write!(
                f,
                "{player} still has meeples in the reserve; a meeple is taken back from the spellbook without its effect only when the reserve is empty."
            ),
        }
    }
}

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// An action refused by [`GameState::play`]: the rule it broke, the action, and the
/// unchanged state handed back.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{violation}")]
pub struct IllegalAction {
    pub violation: Violation,
    pub action: Action,
    pub state: Box<GameState>,
}
