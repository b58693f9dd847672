//! Seeded randomness, used only where chance enters the game: drawing and rolling dice,
//! shuffling tiles, and random legal playouts for tests, benchmarks and rendered games.

use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use std::ops::ControlFlow;

use crate::action::Action;
use crate::components::{DiceCount, Die, DieColor, DieValue, PlayerColor};
use crate::play::{OtherBlock, TurnView};
use crate::record::{GameRecord, GameSetup, RecordError, StartingTowers, TileRef};
use crate::state::GameState;
use crate::tiles::TileCatalogue;
use crate::violation::Violation;

/// The random number generator of the engine: reproducible from a seed on every platform.
pub type GameRng = ChaCha8Rng;

pub fn rng_from_seed(seed: u64) -> GameRng {
    ChaCha8Rng::seed_from_u64(seed)
}

// The functions of this file are generic over the generator, so a playout's loop is compiled
// in the caller's crate (the bench, the app): the small engine functions it calls at every
// step are marked `#[inline]` so that they can be inlined there too (without them a
// playout took about 2.5 % longer).
impl GameState {
    /// A legal decision chosen uniformly at random: the action at a random index of
    /// [`GameState::legal_actions`], found without listing every placement (playouts ask
    /// at every step, and a turn can have a hundred placements). `None` while the dice are
    /// to be rolled and once the game is over.
    pub fn random_legal_action(&self, rng: &mut impl Rng) -> Option<Action> {
        let view = self.turn_view()?;
        let placements = self.placement_count(&view);
        // A spell offers the same effects cast directly or through Manipulation: each
        // spell's are counted once, and only those of the block drawn are listed.
        let mut effects: [Option<usize>; 6] = [None; 6];
        let mut block_size = |block: OtherBlock| match block {
            OtherBlock::Recall(_) | OtherBlock::EndTurn => 1,
            OtherBlock::Bonus(pending) => self.bonus_action_count(&view, pending),
            OtherBlock::Casts { spell, .. } => *effects[spell.index()]
                .get_or_insert_with(|| self.castable_effect_count(&view, spell)),
        };
        let mut others = 0;
        // The last block and the index of its first decision among the others.
        let mut last = None;
        let _ = self.for_each_other_block::<()>(&view, |block| {
            last = Some((block, others));
            others += block_size(block);
            ControlFlow::Continue(())
        });
        if placements + others == 0 {
            return None;
        }
        // Drawn as a `u32`: rand draws a `usize` range that fits one the same way (so that
        // every platform plays the same games), through a call that playouts pay at every step.
        let count = u32::try_from(placements + others).ok()?;
        let index = rng.random_range(0..count) as usize;
        if index < placements {
            return self.nth_placement(&view, index);
        }
        let mut index = index - placements;
        // The last block is the one most often drawn (the end of the turn once the player
        // has placed, the only block of a pending bonus): it needs no second walk.
        let (block, index) = match last {
            Some((block, first)) if index >= first => (block, index - first),
            _ => self
                .for_each_other_block(&view, |block| {
                    let size = block_size(block);
                    if index < size {
                        return ControlFlow::Break((block, index));
                    }
                    index -= size;
                    ControlFlow::Continue(())
                })
                .break_value()?,
        };
        self.nth_other_decision(&view, block, index)
    }

    /// The decision at `index` in `block`, in the order of [`GameState::legal_actions`].
    #[inline]
    fn nth_other_decision(
        &self,
        view: &TurnView,
        block: OtherBlock,
        index: usize,
    ) -> Option<Action> {
        let player = view.turn.player;
        match block {
            OtherBlock::Recall(spell) => Some(Action::Recall { player, spell }),
            OtherBlock::EndTurn => Some(Action::EndTurn { player }),
            OtherBlock::Bonus(pending) => Some(self.nth_bonus_action(view, pending, index)),
            OtherBlock::Casts {
                spell,
                via_manipulation,
            } => {
                let (mut seen, mut chosen) = (0, None);
                self.for_each_castable_effect(view, spell, |effect| {
                    if seen == index {
                        chosen = Some(effect);
                    }
                    seen += 1;
                });
                chosen.map(|effect| Action::Cast {
                    player,
                    effect,
                    via_manipulation,
                })
            }
        }
    }

    /// Draws this round's dice from the bag and rolls them (the action is still to be
    /// played). Empty when no roll is awaited.
    pub fn draw_roll(&self, rng: &mut impl Rng) -> Vec<Die> {
        let mut dice = Vec::with_capacity(self.dice_per_round());
        self.draw_roll_into(rng, &mut dice);
        dice
    }

    /// [`GameState::draw_roll`] into a list the caller reuses (cleared first): a playout
    /// rolls every round.
    fn draw_roll_into(&self, rng: &mut impl Rng, dice: &mut Vec<Die>) {
        dice.clear();
        if !self.awaiting_roll() {
            return;
        }
        // Room for the whole roll at once (nothing to do once the list has served a round).
        dice.reserve(self.dice_per_round());
        let mut bag = self.bag();
        // Counted once, then one fewer at each die drawn (a colour is drawn only while it has
        // a die in the bag).
        let mut in_bag = bag.total();
        while dice.len() < self.dice_per_round() && in_bag > 0 {
            let Some(color) = color_of_die(&bag, rng.random_range(0..in_bag)) else {
                break;
            };
            bag.take(color);
            in_bag -= 1;
            debug_assert_eq!(in_bag, bag.total());
            // Drawn as a `u32`, as the decisions of a playout are (the same face as a `usize`).
            let value = DieValue::ALL[rng.random_range(0..6u32) as usize];
            dice.push(Die::new(color, value));
        }
    }

    /// Plays the game to its end: random legal decisions
    /// ([`GameState::random_legal_action`]) and rolls drawn from the bag: a playout, as hints
    /// by playouts would run them on a copy of the state (teach mode has none yet), and
    /// [`random_game`] without the record. Fails only if a roll is refused, which never
    /// happens to a sound state.
    pub fn play_out(&mut self, rng: &mut impl Rng) -> Result<(), Violation> {
        self.play_randomly(rng, None)
            .map_err(|(_, violation)| violation)
    }

    /// The loop of [`GameState::play_out`] and [`random_game`], which keeps the actions in
    /// `record`. A refused roll ends it, with the roll and the reason.
    fn play_randomly(
        &mut self,
        rng: &mut impl Rng,
        mut record: Option<&mut Vec<Action>>,
    ) -> Result<(), (Action, Violation)> {
        while !self.is_over() {
            if !self.awaiting_roll() {
                let Some(action) = self.random_legal_action(rng) else {
                    break;
                };
                self.play_generated(&action);
                if let Some(actions) = record.as_deref_mut() {
                    actions.push(action);
                }
                continue;
            }
            // The dice are drawn into the table's roll, empty between rounds: the list and its
            // room serve every round, without a copy.
            let mut dice = std::mem::take(&mut self.roll);
            self.draw_roll_into(rng, &mut dice);
            // A roll drawn in full from the bag is legal (checked in debug builds); a short
            // one, from a bag run dry, is checked and refused with the reason.
            if dice.len() == self.dice_per_round() {
                if let Some(actions) = record.as_deref_mut() {
                    actions.push(Action::Roll { dice: dice.clone() });
                }
                self.play_drawn_roll(dice);
                continue;
            }
            let roll = Action::Roll { dice };
            if let Err(violation) = self.play_in_place(&roll) {
                return Err((roll, violation));
            }
            if let Some(actions) = record.as_deref_mut() {
                actions.push(roll);
            }
        }
        Ok(())
    }
}

/// The colour of die number `index` (from 0) of the bag, its dice lined up colour by colour:
/// a uniformly random index draws every die in the bag with the same chance.
#[inline]
fn color_of_die(bag: &DiceCount, index: u32) -> Option<DieColor> {
    let mut rest = index;
    for color in DieColor::ALL {
        let count = u32::from(bag.get(color));
        if rest < count {
            return Some(color);
        }
        rest -= count;
    }
    None
}

impl GameSetup {
    /// A set-up as the rulebook makes it: players seated in the given order, the four
    /// starting tiles shuffled into three outer towers and the central tower, the other
    /// tiles shuffled into the stack, a random first player.
    pub fn random(players: &[PlayerColor], catalogue: &TileCatalogue, rng: &mut impl Rng) -> Self {
        // One list with room for the whole catalogue, the stack's tiles then the starting
        // tiles, rather than a list each (a playout starts here). Each part is shuffled as a
        // list of its own would be, the starting tiles first.
        let mut tiles = Vec::with_capacity(catalogue.tiles.len());
        tiles.extend(catalogue.stack_tiles().map(|t| TileRef::Tile(t.clone())));
        let stack = tiles.len();
        tiles.extend(catalogue.starting_tiles().map(|t| TileRef::Tile(t.clone())));
        tiles[stack..].shuffle(rng);
        tiles[..stack].shuffle(rng);
        // The first four starting tiles start the towers; those beyond stay at the bottom of
        // the stack.
        let towers = {
            let mut starting = tiles.drain(stack..(stack + 4).min(tiles.len()));
            let mut next = || {
                starting
                    .next()
                    .unwrap_or_else(|| TileRef::Id(String::new()))
            };
            StartingTowers {
                a: next(),
                b: next(),
                c: next(),
                central: next(),
            }
        };
        Self {
            players: players.to_vec(),
            first_player: players.choose(rng).copied().unwrap_or(PlayerColor::Blue),
            towers,
            floor_stack: tiles,
        }
    }
}

/// Plays a whole game of random legal actions from `setup`, rolling dice from the bag.
/// Returns the record and the final state.
pub fn random_game(
    setup: GameSetup,
    catalogue: &TileCatalogue,
    rng: &mut impl Rng,
) -> Result<(GameRecord, GameState), RecordError> {
    let mut state = setup.start(catalogue)?;
    let mut record = GameRecord::new(setup);
    // A game takes about a hundred actions.
    record.actions.reserve(128);
    let played = state.play_randomly(rng, Some(&mut record.actions));
    if let Err((action, violation)) = played {
        return Err(RecordError::Illegal {
            index: record.actions.len(),
            action,
            violation,
        });
    }
    Ok((record, state))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A playout and a recorded game share one loop: from the same seed they play the same
    /// game, and the record replays to the playout's final state.
    #[test]
    fn a_playout_plays_the_recorded_game() {
        let catalogue = TileCatalogue::arkhanos();
        for players in 2..=4 {
            for seed in 0..20 {
                let mut rng = rng_from_seed(seed);
                let setup = GameSetup::random(&PlayerColor::ALL[..players], &catalogue, &mut rng);
                let mut played = setup.start(&catalogue).unwrap();
                played.play_out(&mut rng.clone()).unwrap();
                let (record, recorded) = random_game(setup, &catalogue, &mut rng).unwrap();
                assert!(played.is_over(), "seed {seed}, {players} players");
                assert_eq!(played, recorded, "seed {seed}, {players} players");
                let replayed = record.replay(&catalogue, |_, _, _, _| {}).unwrap();
                assert_eq!(replayed, played, "seed {seed}, {players} players");
            }
        }
    }
}
