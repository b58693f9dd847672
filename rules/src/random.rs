//! Seeded randomness, used only where chance enters the game: drawing and rolling dice,
//! shuffling tiles, and random legal playouts for tests, benchmarks and rendered games.

use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::action::Action;
use crate::components::{Die, DieColor, DieValue, PlayerColor};
use crate::record::{GameRecord, GameSetup, StartingTowers, TileRef};
use crate::state::GameState;
use crate::tiles::TileCatalogue;

/// The random number generator of the engine: reproducible from a seed on every platform.
pub type GameRng = ChaCha8Rng;

pub fn rng_from_seed(seed: u64) -> GameRng {
    ChaCha8Rng::seed_from_u64(seed)
}

impl GameState {
    /// Draws this round's dice from the bag and rolls them (the action is still to be
    /// played). Empty when no roll is awaited.
    pub fn draw_roll(&self, rng: &mut impl Rng) -> Vec<Die> {
        if !self.awaiting_roll() {
            return Vec::new();
        }
        let mut bag: Vec<DieColor> = DieColor::ALL
            .into_iter()
            .flat_map(|c| std::iter::repeat_n(c, usize::from(self.bag().get(c))))
            .collect();
        bag.shuffle(rng);
        bag.into_iter()
            .take(self.dice_per_round())
            .map(|color| Die::new(color, DieValue::ALL[rng.random_range(0..6)]))
            .collect()
    }
}

impl GameSetup {
    /// A set-up as the rulebook makes it: players seated in the given order, the four
    /// starting tiles shuffled into three outer towers and the central tower, the other
    /// tiles shuffled into the stack, a random first player.
    pub fn random(players: &[PlayerColor], catalogue: &TileCatalogue, rng: &mut impl Rng) -> Self {
        let mut starting: Vec<TileRef> = catalogue
            .starting_tiles()
            .map(|t| TileRef::Tile(t.clone()))
            .collect();
        starting.shuffle(rng);
        let mut stack: Vec<TileRef> = catalogue
            .stack_tiles()
            .map(|t| TileRef::Tile(t.clone()))
            .collect();
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

/// Plays a whole game of random legal actions from `setup`, rolling dice from the bag.
/// Returns the record and the final state.
pub fn random_game(
    setup: GameSetup,
    catalogue: &TileCatalogue,
    rng: &mut impl Rng,
) -> Result<(GameRecord, GameState), crate::record::RecordError> {
    let mut state = setup.start(catalogue)?;
    let mut record = GameRecord::new(setup);
    while !state.is_over() {
        let action = if state.awaiting_roll() {
            Action::Roll {
                dice: state.draw_roll(rng),
            }
        } else {
            let actions = state.legal_actions();
            match actions.choose(rng) {
                Some(action) => action.clone(),
                None => break,
            }
        };
        state = match state.play(&action) {
            Ok(next) => next,
            Err(illegal) => {
                return Err(crate::record::RecordError::Illegal {
                    index: record.actions.len(),
                    action,
                    violation: illegal.violation,
                });
            }
        };
        record.actions.push(action);
    }
    Ok((record, state))
}
