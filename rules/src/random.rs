//! Seeded randomness, used only where chance enters the game: drawing and rolling dice,
//! shuffling tiles, and random legal playouts for tests, benchmarks and rendered games.

use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use std::ops::ControlFlow;
use std::sync::Arc;

use crate::action::Action;
use crate::components::{DiceCount, Die, DieColor, DieValue, PlayerColor};
use crate::play::{OtherBlock, TurnView};
use crate::record::{GameRecord, GameSetup, StartingTowers, TileRef};
use crate::state::GameState;
use crate::tiles::{Tile, TileCatalogue};

/// The random number generator of the engine: reproducible from a seed on every platform.
pub type GameRng = ChaCha8Rng;

pub fn rng_from_seed(seed: u64) -> GameRng {
    ChaCha8Rng::seed_from_u64(seed)
}

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
        if !self.awaiting_roll() {
            return Vec::new();
        }
        let mut bag = self.bag();
        let mut dice = Vec::with_capacity(self.dice_per_round());
        while dice.len() < self.dice_per_round() {
            let in_bag = bag.total();
            if in_bag == 0 {
                break;
            }
            let Some(color) = color_of_die(&bag, rng.random_range(0..in_bag)) else {
                break;
            };
            bag.take(color);
            // Drawn as a `u32`, as the decisions of a playout are (the same face as a `usize`).
            let value = DieValue::ALL[rng.random_range(0..6u32) as usize];
            dice.push(Die::new(color, value));
        }
        dice
    }
}

/// The colour of die number `index` (from 0) of the bag, its dice lined up colour by colour:
/// a uniformly random index draws every die in the bag with the same chance.
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
        // Room for the whole catalogue in each list: collected from a filter, a list would
        // be regrown a few times (a playout starts here).
        let room = catalogue.tiles.len();
        let mut starting = tile_refs(catalogue.starting_tiles(), room);
        starting.shuffle(rng);
        let mut stack = tile_refs(catalogue.stack_tiles(), room);
        stack.shuffle(rng);
        // Starting tiles beyond the first four go to the stack.
        stack.extend(starting.drain(4.min(starting.len())..));
        let mut towers = starting.into_iter();
        let mut next = || towers.next().unwrap_or_else(|| TileRef::Id(String::new()));
        Self {
            players: players.to_vec(),
            first_player: players.choose(rng).copied().unwrap_or(PlayerColor::Blue),
            towers: StartingTowers {
                a: next(),
                b: next(),
                c: next(),
                central: next(),
            },
            floor_stack: stack,
        }
    }
}

/// The tiles as references of a set-up, in a list with room for `room`.
fn tile_refs<'a>(tiles: impl Iterator<Item = &'a Arc<Tile>>, room: usize) -> Vec<TileRef> {
    let mut list = Vec::with_capacity(room);
    list.extend(tiles.map(|t| TileRef::Tile(t.clone())));
    list
}

/// Plays a whole game of random legal actions from `setup`, rolling dice from the bag.
/// Returns the record and the final state.
pub fn random_game(
    setup: GameSetup,
    catalogue: &TileCatalogue,
    rng: &mut impl Rng,
) -> Result<(GameRecord, GameState), crate::record::RecordError> {
    let mut state = setup.start(catalogue)?;
    let mut record = GameRecord::new(setup);
    // A game takes about a hundred actions.
    record.actions.reserve(128);
    while !state.is_over() {
        let action = if state.awaiting_roll() {
            let roll = Action::Roll {
                dice: state.draw_roll(rng),
            };
            if let Err(violation) = state.play_in_place(&roll) {
                return Err(crate::record::RecordError::Illegal {
                    index: record.actions.len(),
                    action: roll,
                    violation,
                });
            }
            roll
        } else {
            let Some(action) = state.random_legal_action(rng) else {
                break;
            };
            state.play_generated(&action);
            action
        };
        record.actions.push(action);
    }
    Ok((record, state))
}
