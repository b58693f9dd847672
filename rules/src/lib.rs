//! The rules engine of The Towers of Arkhanos: set-up, placements, bonuses, spells, floor
//! scoring and the end-of-game tally, as the rulebooks and `RULINGS.md` describe them.
//!
//! Pure: it never touches a file, a clock, a camera, an image or a window; randomness comes
//! only from a seeded generator, and only where dice are drawn.

mod action;
mod components;
mod event;
mod format;
mod notation;
mod play;
mod random;
mod record;
mod scoring;
mod snapshot;
mod state;
mod tiles;
mod violation;

pub use action::{Action, BonusTarget, Direction, MeepleSource, SpellEffect};
pub use components::{
    APPRENTICES_PER_PLAYER, DICE_PER_COLOR, DiceCount, Die, DieColor, DieValue, MEEPLES_PER_PLAYER,
    Meeple, Pillar, PillarIndex, PlayerColor, Rank, SpellId, TowerId,
};
pub use event::Event;
pub use format::FormatError;
pub use random::{GameRng, random_game, rng_from_seed};
pub use record::{GameRecord, GameSetup, RecordError, SetupError, StartingTowers, TileRef};
pub use scoring::{
    Award, CENTRAL_FLOOR, DecidedBy, END_GAME_FLOOR, FinalScore, OUTER_FLOOR, Placing, PointsTable,
    ScoreEntry, ScoreReason, Standing, award, influence,
};
pub use snapshot::{SnapshotError, Table, TableSnapshot, TowerKind, TowerSnapshot, TowerTop};
pub use state::{
    FLOOR_STACK_TILES, GameState, MAX_PRESTIGE_DURING_PLAY, PendingBonus, Phase, Placement,
    PlayerState, Tower, Turn, dice_per_round, rounds_for, turns_per_round,
};
pub use tiles::{CatalogueError, PillarBonus, Restriction, Tile, TileCatalogue};
pub use violation::{IllegalAction, Violation};
