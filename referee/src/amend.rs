//! A die of the round's roll that the reader was not sure of, put right by what followed.
//!
//! The roll is confirmed from the dice read in the roll area; a die read unsure there (or
//! not seen at all and inferred) keeps that guess in the record. What the players do next
//! often shows the die: the spellbook space its bonus meeple takes, a sure reading on its
//! pillar, a die of another colour appearing where the game has none. When a table is
//! explained by no legal sequence as the game stands, the referee tries the game with one
//! unsure die of the roll read otherwise, the actions since the roll played again with it.
//! A die read surely anywhere is never changed: only what the camera could not tell.

use rules::{Action, Die, DieColor, DieValue, GameState, SpellEffect};

/// The round's roll and what followed, with one die read otherwise.
#[derive(Clone, Debug)]
pub(crate) struct Amendment {
    /// The die as the record has it, and as it is now taken to be.
    pub was: Die,
    pub is: Die,
    /// The roll and the actions after it, with the die changed.
    pub actions: Vec<Action>,
    /// The game after them.
    pub state: GameState,
}

/// Every game that `actions` (a roll and what followed it, played from `before`) could be
/// with one of the `unsure` dice read as another die of its colour or of one of `colors`
/// (the colours of dice the table shows where the game has none). Those the rules refuse
/// are left out.
pub(crate) fn amendments(
    before: &GameState,
    actions: &[Action],
    unsure: &[Die],
    colors: &[DieColor],
) -> Vec<Amendment> {
    let mut wrong: Vec<Die> = unsure.to_vec();
    wrong.sort();
    wrong.dedup();
    let mut found = Vec::new();
    for was in wrong {
        let mut kinds: Vec<DieColor> = vec![was.color];
        kinds.extend(colors.iter().filter(|c| **c != was.color));
        kinds.dedup();
        for color in kinds {
            for value in DieValue::ALL {
                let is = Die { color, value };
                if is != was {
                    found.extend(amended(before, actions, was, is).ok());
                }
            }
        }
    }
    found
}

/// `actions` (a roll and what followed it, played from `before`) with the roll's `was`
/// read as `is`. Err: why not (the roll has no such die, or the rules refuse an action
/// once the die is changed).
pub(crate) fn amended(
    before: &GameState,
    actions: &[Action],
    was: Die,
    is: Die,
) -> Result<Amendment, String> {
    let changed = with_die(actions, was, is).ok_or_else(|| format!("the roll has no {was}"))?;
    let state = replay(before, &changed)?;
    Ok(Amendment {
        was,
        is,
        actions: changed,
        state,
    })
}

/// The game after `actions` played from `before`. Err: the first action the rules refuse,
/// and why.
pub(crate) fn replay(before: &GameState, actions: &[Action]) -> Result<GameState, String> {
    (actions.iter()).try_fold(before.clone(), |state, action| {
        (state.play(action)).map_err(|e| format!("{action}: {}", e.violation))
    })
}

/// `actions` (a roll first) with one `was` of the roll read as `is`, and the actions that
/// name that die after it (placed, flipped, exchanged) following it. `None` when the first
/// action is not a roll with that die.
fn with_die(actions: &[Action], was: Die, is: Die) -> Option<Vec<Action>> {
    let (Action::Roll { dice }, later) = actions.split_first()? else {
        return None;
    };
    let mut dice = dice.clone();
    let at = dice.iter().position(|d| *d == was)?;
    dice[at] = is;
    let mut changed = vec![Action::Roll { dice }];
    // The die as the actions name it now: a Flip turns it over.
    let (mut was, mut is) = (was, is);
    let mut moved = false;
    for action in later {
        let mut action = action.clone();
        match &mut action {
            Action::Place { die, .. } if !moved && *die == was => {
                *die = is;
                moved = true;
            }
            Action::Cast { effect, .. } if !moved => match effect {
                SpellEffect::Flip { die } if *die == was => {
                    *die = is;
                    was = turned(was);
                    is = turned(is);
                }
                SpellEffect::Exchange { rolled, .. } | SpellEffect::Permutation { rolled, .. }
                    if *rolled == was =>
                {
                    *rolled = is;
                    moved = true;
                }
                _ => {}
            },
            _ => {}
        }
        changed.push(action);
    }
    Some(changed)
}

fn turned(die: Die) -> Die {
    Die {
        value: die.value.opposite(),
        ..die
    }
}

#[cfg(test)]
mod tests {
    // Tests unwrap like tests do.
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use rules::{PillarIndex, PlayerColor, Rank, TowerId};

    use super::*;

    fn die(color: DieColor, value: u8) -> Die {
        Die {
            color,
            value: DieValue::try_from(value).unwrap(),
        }
    }

    #[test]
    fn the_die_is_changed_in_the_roll_and_where_it_was_placed() {
        let was = die(DieColor::Yellow, 4);
        let is = die(DieColor::Yellow, 5);
        let other = die(DieColor::Blue, 4);
        let place = |die| Action::Place {
            player: PlayerColor::Red,
            die,
            rank: Rank::Apprentice,
            tower: TowerId::Central,
            pillar: PillarIndex::ALL[0],
        };
        let actions = vec![
            Action::Roll {
                dice: vec![other, was],
            },
            place(was),
        ];
        let changed = with_die(&actions, was, is).unwrap();
        assert_eq!(
            changed,
            vec![
                Action::Roll {
                    dice: vec![other, is]
                },
                place(is)
            ]
        );
        assert!(with_die(&actions, die(DieColor::Pink, 1), is).is_none());
    }
}
