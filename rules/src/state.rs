//! The validated state of a game in progress.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrayvec::ArrayVec;
use serde::{Deserialize, Serialize};

use crate::components::{
    APPRENTICES_PER_PLAYER, DICE_PER_COLOR, DiceCount, Die, DieColor, DieKinds, MEEPLES_PER_PLAYER,
    Meeple, Pillar, PillarIndex, PlayerColor, Rank, SpellId, SpellSet, TowerId,
};
use crate::scoring::{EndOfGameTable, FinalScore, OUTER_FLOOR, ScoreEntry};
use crate::snapshot::{Table, TowerTop};
use crate::tiles::PillarBonus;
use crate::tiles::{Restriction, Tile};

/// Tiles in the floor stack of a standard game (18 tiles, 4 of them start the towers).
pub const FLOOR_STACK_TILES: u8 = 14;

/// More prestige than any player can earn before the end-of-game scoring: at most 32
/// placements (4 a round for 8 rounds), each worth at most the level of its tower (a tower
/// reaches level 15 at most: the first floor and the 14 tiles of the stack), and at most 18
/// completed floors (14 that took a tile from the stack and 4 finished towers), each
/// worth at most 6 to one player. A snapshot claiming more is refused.
pub const MAX_PRESTIGE_DURING_PLAY: u32 =
    32 * (1 + FLOOR_STACK_TILES as u32) + (FLOOR_STACK_TILES as u32 + 4) * OUTER_FLOOR.first;

/// Rounds in a game: 9 with 3 players, 8 with 2 or 4.
pub fn rounds_for(players: usize) -> u8 {
    if players == 3 { 9 } else { 8 }
}

/// Dice rolled each round: 4 with 3 players, 5 with 2 or 4.
pub fn dice_per_round(players: usize) -> usize {
    if players == 3 { 4 } else { 5 }
}

/// Placements in a round: each player once, or twice each with 2 players.
pub fn turns_per_round(players: usize) -> u8 {
    if players == 2 {
        4
    } else {
        u8::try_from(players).unwrap_or(u8::MAX)
    }
}

/// A player's pieces and prestige.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerState {
    pub color: PlayerColor,
    /// Apprentices in the reserve.
    pub apprentices: u8,
    /// Whether the master is in the reserve.
    pub master: bool,
    /// The meeple on each spellbook space, indexed by [`SpellId::index`].
    pub spellbook: [Option<Rank>; 6],
    pub prestige: u32,
}

impl PlayerState {
    fn new(color: PlayerColor) -> Self {
        Self {
            color,
            apprentices: APPRENTICES_PER_PLAYER,
            master: true,
            spellbook: [None; 6],
            prestige: 0,
        }
    }

    pub fn has_in_reserve(&self, rank: Rank) -> bool {
        match rank {
            Rank::Apprentice => self.apprentices > 0,
            Rank::Master => self.master,
        }
    }

    pub fn reserve_is_empty(&self) -> bool {
        self.apprentices == 0 && !self.master
    }

    /// The ranks available in the reserve.
    pub fn reserve_ranks(&self) -> impl Iterator<Item = Rank> + '_ {
        Rank::ALL.into_iter().filter(|&r| self.has_in_reserve(r))
    }

    pub fn reserve_count(&self) -> u8 {
        self.apprentices + u8::from(self.master)
    }

    pub fn spell(&self, spell: SpellId) -> Option<Rank> {
        self.spellbook[spell.index()]
    }

    pub fn spellbook_meeples(&self) -> u8 {
        let count = self.spellbook.iter().flatten().count();
        u8::try_from(count).unwrap_or(u8::MAX)
    }

    pub(crate) fn take(&mut self, rank: Rank) {
        match rank {
            Rank::Apprentice => self.apprentices = self.apprentices.saturating_sub(1),
            Rank::Master => self.master = false,
        }
    }

    pub(crate) fn give(&mut self, rank: Rank) {
        match rank {
            Rank::Apprentice => self.apprentices = self.apprentices.saturating_add(1),
            Rank::Master => self.master = true,
        }
    }

    fn meeple(&self, rank: Rank) -> Meeple {
        Meeple {
            player: self.color,
            rank,
        }
    }
}

/// One tower: its level, its top floor and what lies buried below.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Tower {
    pub id: TowerId,
    /// The level of the top floor (first floor = 1).
    pub level: u8,
    /// The tile of the top floor (the ceiling side B for the central tower).
    pub tile: Arc<Tile>,
    pub pillars: [Option<Pillar>; 3],
    /// Completed with an empty floor stack: no new floor, no more dice.
    pub finished: bool,
    /// Meeples that stood alone on pillars of completed floors: lost for good.
    pub foundation: Vec<Meeple>,
    /// Dice of completed floors, under the floors above.
    pub buried_dice: Vec<Die>,
    /// The kinds of die the tile's colours and values allow, found when the tile is laid
    /// (legal actions ask for them at every step); every kind on the central tower, which
    /// has no restriction (its tiles are not read: it completes the most floors).
    #[serde(skip)]
    allowed: DieKinds,
    /// What [`Tower::accepts`] answers, worked out again by the methods that change the top
    /// floor ([`Tower::set_pillar`], [`Tower::lay`], [`Tower::finish`]): the move generator
    /// asks the four towers at every step before the placement.
    #[serde(skip)]
    accepts: DieKinds,
    /// What [`Tower::open_pillars`] lists, kept up to date with `accepts`: the move
    /// generator counts and indexes the empty pillars at every step.
    #[serde(skip)]
    open: ArrayVec<PillarIndex, 3>,
}

impl Tower {
    fn new(id: TowerId, tile: Arc<Tile>) -> Self {
        let mut tower = Self {
            id,
            level: 1,
            allowed: allowed_on(id, &tile),
            tile,
            pillars: [None; 3],
            finished: false,
            foundation: Vec::new(),
            // Three dice a floor, for as many floors as the stack can give the tower: the
            // room is taken once rather than regrown while the floors are completed.
            buried_dice: Vec::with_capacity(3 * usize::from(FLOOR_STACK_TILES)),
            accepts: DieKinds::NONE,
            open: ArrayVec::new(),
        };
        tower.empty_floor_laid();
        tower
    }

    /// Lays `tile` as the top floor's tile, on an empty floor (a new floor, or one whose
    /// drawn tile is set); returns the tile it replaces.
    pub(crate) fn lay(&mut self, tile: Arc<Tile>) -> Arc<Tile> {
        self.allowed = allowed_on(self.id, &tile);
        let replaced = std::mem::replace(&mut self.tile, tile);
        self.empty_floor_laid();
        replaced
    }

    /// What is kept of an empty top floor whose tile was just laid, set without looking at
    /// the pillars (a playout lays a dozen tiles): every pillar is open, and the floor takes
    /// the dice its tile allows (any die on the central tower).
    fn empty_floor_laid(&mut self) {
        debug_assert!(!self.finished && self.pillars == [None; 3], "{:?}", self.id);
        self.open = ArrayVec::from(PillarIndex::ALL);
        self.accepts = self.allowed;
    }

    /// Puts `content` on an empty pillar of the top floor. Only that pillar changes, so what
    /// is kept of the floor is updated rather than worked out again (a playout fills a
    /// pillar at almost every turn): the pillar is no longer empty, and a die on it takes
    /// its value away from an all-different floor.
    pub(crate) fn set_pillar(&mut self, pillar: PillarIndex, content: Pillar) {
        debug_assert!(self.pillars[pillar.index()].is_none(), "{pillar} is taken");
        self.pillars[pillar.index()] = Some(content);
        self.open.retain(|open| *open != pillar);
        if self.open.is_empty() {
            self.accepts = DieKinds::NONE;
        } else if let (Some(die), Some(restriction)) = (content.die, self.restriction())
            && restriction.all_different
        {
            self.accepts = self.accepts.without(DieKinds::of_value(die.value));
        }
    }

    /// Works out again what is kept of the top floor: its empty pillars and what it accepts.
    fn top_floor_changed(&mut self) {
        self.open = self.open_now();
        self.accepts = self.accepts_now();
    }

    /// Ends the tower on its top floor (the stack is empty): its meeples beside dice go
    /// home, its dice and lone meeples stay, and it takes nothing more.
    pub(crate) fn finish(&mut self) {
        for pillar in self.pillars.iter_mut().flatten() {
            if pillar.die.is_some() {
                pillar.meeple = None;
            }
        }
        self.finished = true;
        self.top_floor_changed();
    }

    /// The dice this floor accepts, or `None` for the central tower (any die).
    pub fn restriction(&self) -> Option<&Restriction> {
        (!self.id.is_central()).then_some(&self.tile.restriction)
    }

    pub fn bonus(&self, pillar: PillarIndex) -> PillarBonus {
        if self.id.is_central() {
            PillarBonus::CENTRAL
        } else {
            self.tile.bonus(pillar)
        }
    }

    pub fn pillar(&self, pillar: PillarIndex) -> Option<&Pillar> {
        self.pillars[pillar.index()].as_ref()
    }

    pub fn is_full(&self) -> bool {
        self.pillars.iter().all(Option::is_some)
    }

    /// The empty pillars, if the tower still takes dice.
    pub fn open_pillars(&self) -> impl Iterator<Item = PillarIndex> + '_ {
        self.open_list().iter().copied()
    }

    /// How many pillars [`Tower::open_pillars`] lists.
    #[inline]
    pub fn open_pillar_count(&self) -> usize {
        self.open_list().len()
    }

    /// Empty pillar number `n` (from 0) of [`Tower::open_pillars`].
    #[inline]
    pub(crate) fn open_pillar(&self, n: usize) -> Option<PillarIndex> {
        self.open_list().get(n).copied()
    }

    #[inline]
    fn open_list(&self) -> &[PillarIndex] {
        debug_assert_eq!(self.open, self.open_now(), "{:?}", self.id);
        &self.open
    }

    fn open_now(&self) -> ArrayVec<PillarIndex, 3> {
        PillarIndex::ALL
            .into_iter()
            .filter(|&p| !self.finished && self.pillars[p.index()].is_none())
            .collect()
    }

    pub fn dice(&self) -> impl Iterator<Item = Die> + '_ {
        self.pillars.iter().flatten().filter_map(|p| p.die)
    }

    /// The kinds of die the top floor takes now: none once it is finished or full; on an
    /// outer floor, those its restriction allows (all different: no value already there).
    pub(crate) fn accepts(&self) -> DieKinds {
        debug_assert_eq!(self.accepts, self.accepts_now(), "{:?}", self.id);
        self.accepts
    }

    fn accepts_now(&self) -> DieKinds {
        if self.open.is_empty() {
            return DieKinds::NONE;
        }
        let Some(restriction) = self.restriction() else {
            return DieKinds::ALL;
        };
        if !restriction.all_different {
            return self.allowed;
        }
        self.dice().fold(self.allowed, |kinds, die| {
            kinds.without(DieKinds::of_value(die.value))
        })
    }

    pub fn meeples(&self) -> impl Iterator<Item = Meeple> + '_ {
        self.pillars.iter().flatten().filter_map(|p| p.meeple)
    }
}

/// What [`Tower::allowed`] keeps for `tile` laid on tower `id`.
fn allowed_on(id: TowerId, tile: &Tile) -> DieKinds {
    if id.is_central() {
        DieKinds::ALL
    } else {
        tile.restriction.kinds()
    }
}

/// The table at the end of the game, read in place rather than through [`GameState::table`].
impl EndOfGameTable for GameState {
    fn players(&self) -> impl Iterator<Item = PlayerColor> {
        self.players.iter().map(|p| p.color)
    }

    fn top_floor(&self, tower: TowerId) -> (u8, &[Option<Pillar>; 3]) {
        let top = self.tower(tower);
        (top.level, &top.pillars)
    }

    fn prestige(&self, player: PlayerColor) -> u32 {
        self.player(player).map_or(0, |p| p.prestige)
    }

    fn spellbook_meeples(&self, player: PlayerColor) -> u8 {
        self.player(player)
            .map_or(0, PlayerState::spellbook_meeples)
    }
}

/// A placement made this turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placement {
    pub die: Die,
    pub tower: TowerId,
    pub pillar: PillarIndex,
}

/// A bonus waiting for the player's choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingBonus {
    /// [`PillarBonus::ExtraMeeple`] or [`PillarBonus::Spell`].
    pub bonus: PillarBonus,
    /// The tower where the die was placed.
    pub tower: TowerId,
    /// The spellbook space the bonus can fill (the placed die's value).
    pub spell: SpellId,
}

/// The state of the current turn.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    pub player: PlayerColor,
    pub placed: Option<Placement>,
    pub pending: Option<PendingBonus>,
    /// Towers completed this turn and not yet scored while a bonus is pending, in the order
    /// they were completed (each tower once at most, so the list needs no allocation).
    pub completed: ArrayVec<TowerId, { TowerId::ALL.len() }>,
    /// The Change spells cast for the next placement (+1 or -1 each).
    pub change: i8,
    /// The colour Metamorphosis gives the next placement.
    pub metamorphosis: Option<DieColor>,
    /// The spellbook spaces, by [`SpellId::index`], that received a meeple this turn: it
    /// can be cast from the player's next turn on (RULINGS.md, Spells).
    pub arrived: [bool; 6],
}

impl Turn {
    pub(crate) fn new(player: PlayerColor) -> Self {
        Self {
            player,
            placed: None,
            pending: None,
            completed: ArrayVec::new(),
            change: 0,
            metamorphosis: None,
            arrived: [false; 6],
        }
    }

    /// Whether a meeple arrived on `spell`'s space this turn (and so cannot be cast yet).
    pub fn arrived_this_turn(&self, spell: SpellId) -> bool {
        self.arrived[spell.index()]
    }
}

/// Where the game stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    /// The round's dice are to be rolled.
    Roll,
    Turn(Turn),
    Over(Box<FinalScore>),
}

/// A valid game in progress. The only ways to get one are [`crate::GameSetup::start`] and
/// [`GameState::play`] (so it is written out, but never read back: a record is).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameState {
    pub(crate) players: Vec<PlayerState>,
    pub(crate) rounds: u8,
    pub(crate) round: u8,
    /// Seat of this round's first player in `players`.
    pub(crate) first_seat: usize,
    /// Turns played this round.
    pub(crate) turn_in_round: u8,
    /// Seat in `players` of the player whose turn it is, set by [`GameState::begin_turn`]:
    /// the move generator asks at every step.
    #[serde(skip)]
    turn_seat: usize,
    pub(crate) phase: Phase,
    pub(crate) bag: DiceCount,
    pub(crate) roll: Vec<Die>,
    /// The kinds of die in `roll`, worked out when the dice are rolled or changed by a spell
    /// ([`GameState::roll_changed`]) and updated as a die is placed: the move generator asks
    /// at every step before the placement and while a spell can be cast.
    #[serde(skip)]
    roll_kinds: DieKinds,
    pub(crate) mana_pool: Vec<Die>,
    pub(crate) towers: [Tower; 4],
    /// The floor stack; the next tile is the last element.
    pub(crate) stack: Vec<Arc<Tile>>,
    pub(crate) ledger: Vec<ScoreEntry>,
    /// The spaces of each player's spellbook that hold a meeple, by [`PlayerColor::index`],
    /// updated as a meeple leaves or joins a spellbook ([`GameState::spell_left`],
    /// [`GameState::spell_arrived`]).
    #[serde(skip)]
    spellbooks: [SpellSet; 4],
    /// The spells the player whose turn it is can cast: their spellbook's meeples, less those
    /// that arrived this turn; none outside a turn. Set when a turn begins
    /// ([`GameState::begin_turn`]), less each spell that leaves ([`GameState::spell_left`]):
    /// the move generator asks at every step.
    #[serde(skip)]
    castable: SpellSet,
    /// The seat in `players` of each colour, by [`PlayerColor::index`] (`u8::MAX` for a
    /// colour that does not play), set with the players, who never change seats: points and
    /// the meeples of a completed floor go to their player by colour many times in every
    /// playout ([`GameState::player_mut`]).
    #[serde(skip)]
    seats: [u8; 4],
}

impl GameState {
    pub(crate) fn new(
        players: &[PlayerColor],
        first_player: PlayerColor,
        towers: [Arc<Tile>; 4],
        stack_top_first: Vec<Arc<Tile>>,
    ) -> Self {
        let first_seat = players.iter().position(|&p| p == first_player).unwrap_or(0);
        let [a, b, c, central] = towers;
        let mut stack = stack_top_first;
        stack.reverse();
        // Later seats first, so that a colour listed twice has its first seat, as a search
        // would find it.
        let mut seats = [u8::MAX; 4];
        for (seat, player) in players.iter().enumerate().rev() {
            seats[player.index()] = u8::try_from(seat).unwrap_or(u8::MAX);
        }
        Self {
            players: players.iter().map(|&p| PlayerState::new(p)).collect(),
            rounds: rounds_for(players.len()),
            round: 1,
            first_seat,
            turn_in_round: 0,
            turn_seat: first_seat,
            phase: Phase::Roll,
            bag: DiceCount::full(),
            roll: Vec::new(),
            roll_kinds: DieKinds::NONE,
            // One die per round: room for all of them from the start.
            mana_pool: Vec::with_capacity(usize::from(rounds_for(players.len()))),
            towers: [
                Tower::new(TowerId::A, a),
                Tower::new(TowerId::B, b),
                Tower::new(TowerId::C, c),
                Tower::new(TowerId::Central, central),
            ],
            stack,
            // A game scores 30 to 50 entries: room for them from the start, not regrown.
            ledger: Vec::with_capacity(48),
            spellbooks: [SpellSet::NONE; 4],
            castable: SpellSet::NONE,
            seats,
        }
    }

    /// The spells the player whose turn it is can cast now (none outside a turn).
    pub(crate) fn castable_spells(&self) -> SpellSet {
        debug_assert_eq!(self.spellbooks, self.spellbooks_now());
        debug_assert_eq!(self.castable, self.castable_now());
        self.castable
    }

    /// What `spellbooks` keeps, worked out from the players' spellbooks.
    fn spellbooks_now(&self) -> [SpellSet; 4] {
        let mut spellbooks = [SpellSet::NONE; 4];
        for player in &self.players {
            spellbooks[player.color.index()] = SpellSet::occupied(&player.spellbook);
        }
        spellbooks
    }

    /// What `castable` keeps, worked out from the kept spellbooks and the turn.
    fn castable_now(&self) -> SpellSet {
        let Some(turn) = self.turn() else {
            return SpellSet::NONE;
        };
        SpellId::ALL
            .into_iter()
            .filter(|&spell| turn.arrived_this_turn(spell))
            .fold(self.spellbooks[turn.player.index()], SpellSet::without)
    }

    /// Starts turn number `turn_in_round` (from 0) of the round: its player, the first
    /// player or the next clockwise after the last turn's, may cast every spell of their
    /// spellbook.
    pub(crate) fn begin_turn(&mut self, turn_in_round: u8) {
        self.turn_in_round = turn_in_round;
        let seat = if turn_in_round == 0 {
            self.first_seat
        } else {
            self.turn_seat + 1
        };
        // Around the table without a division.
        self.turn_seat = if seat == self.players.len() { 0 } else { seat };
        let player = self.players[self.turn_seat()].color;
        // The last turn's state is written over where it lies, the phase being a turn but
        // for the first turn of a round.
        match &mut self.phase {
            Phase::Turn(turn) => *turn = Turn::new(player),
            phase => *phase = Phase::Turn(Turn::new(player)),
        }
        self.castable = self.spellbooks[player.index()];
    }

    /// Ends the round's turns: nobody casts until the next turn begins.
    pub(crate) fn end_turns(&mut self) {
        self.castable = SpellSet::NONE;
    }

    /// Notes that the meeple on `spell`'s space of `player`'s spellbook left it (cast,
    /// recalled or moved by a bonus): the spell can no longer be cast.
    pub(crate) fn spell_left(&mut self, player: PlayerColor, spell: SpellId) {
        let spellbook = &mut self.spellbooks[player.index()];
        *spellbook = spellbook.without(spell);
        if self.turn().is_some_and(|turn| turn.player == player) {
            self.castable = self.castable.without(spell);
        }
    }

    /// Notes that a meeple arrived on `spell`'s space of `player`'s spellbook: it can be
    /// cast from the player's next turn on (RULINGS.md, Spells).
    pub(crate) fn spell_arrived(&mut self, player: PlayerColor, spell: SpellId) {
        let spellbook = &mut self.spellbooks[player.index()];
        *spellbook = spellbook.with(spell);
    }

    /// The seat, in `players`, of the player whose turn it is.
    pub(crate) fn turn_seat(&self) -> usize {
        debug_assert_eq!(self.turn_seat, self.seat(self.turn_in_round));
        self.turn_seat
    }

    /// The seat, in `players`, of the player of turn `turn_in_round` of this round.
    pub(crate) fn seat(&self, turn_in_round: u8) -> usize {
        (self.first_seat + usize::from(turn_in_round)) % self.players.len()
    }

    /// Players in seating order (clockwise).
    pub fn players(&self) -> &[PlayerState] {
        &self.players
    }

    pub fn player(&self, color: PlayerColor) -> Option<&PlayerState> {
        self.seat_of(color).map(|seat| &self.players[seat])
    }

    /// The seat of `color` in `players`, read from the kept seats.
    fn seat_of(&self, color: PlayerColor) -> Option<usize> {
        let seat = usize::from(self.seats[color.index()]);
        let found = (seat < self.players.len()).then_some(seat);
        debug_assert_eq!(found, self.players.iter().position(|p| p.color == color));
        found
    }

    /// The player whose turn it is, found at the kept seat rather than by colour: the
    /// actions of every step of a playout change their pieces.
    pub(crate) fn current_player_mut(&mut self) -> &mut PlayerState {
        let seat = self.turn_seat();
        debug_assert_eq!(self.current_player(), Some(self.players[seat].color));
        &mut self.players[seat]
    }

    pub(crate) fn player_mut(&mut self, color: PlayerColor) -> &mut PlayerState {
        let seat = self.seat_of(color).unwrap_or(0);
        &mut self.players[seat]
    }

    /// The current round, 1-based.
    pub fn round(&self) -> u8 {
        self.round
    }

    pub fn rounds(&self) -> u8 {
        self.rounds
    }

    pub fn phase(&self) -> &Phase {
        &self.phase
    }

    pub fn turn(&self) -> Option<&Turn> {
        match &self.phase {
            Phase::Turn(turn) => Some(turn),
            _ => None,
        }
    }

    /// The player whose turn it is (during the roll: the first player, who rolls).
    pub fn current_player(&self) -> Option<PlayerColor> {
        match &self.phase {
            Phase::Roll => Some(self.first_player()),
            Phase::Turn(turn) => Some(turn.player),
            Phase::Over(_) => None,
        }
    }

    pub fn first_player(&self) -> PlayerColor {
        self.players[self.first_seat].color
    }

    pub fn is_over(&self) -> bool {
        matches!(self.phase, Phase::Over(_))
    }

    /// The end-of-game tally, once the game is over.
    pub fn final_score(&self) -> Option<&FinalScore> {
        match &self.phase {
            Phase::Over(score) => Some(score),
            _ => None,
        }
    }

    /// Whether the round's dice must be rolled before anything else.
    pub fn awaiting_roll(&self) -> bool {
        matches!(self.phase, Phase::Roll)
    }

    pub fn dice_per_round(&self) -> usize {
        dice_per_round(self.players.len())
    }

    pub fn bag(&self) -> DiceCount {
        self.bag
    }

    /// The dice rolled this round and still on the table.
    pub fn roll(&self) -> &[Die] {
        &self.roll
    }

    pub fn mana_pool(&self) -> &[Die] {
        &self.mana_pool
    }

    /// The kinds of die in [`GameState::roll`].
    pub(crate) fn roll_kinds(&self) -> DieKinds {
        debug_assert_eq!(self.roll_kinds, DieKinds::of_dice(&self.roll));
        self.roll_kinds
    }

    /// Works out again the kinds of die in the roll, after the dice were rolled, put back
    /// in the bag or changed by a spell.
    pub(crate) fn roll_changed(&mut self) {
        self.roll_kinds = DieKinds::of_dice(&self.roll);
    }

    /// Takes die number `index` of the roll away (it was placed): its kind leaves the kept
    /// kinds unless an identical die remains.
    pub(crate) fn take_from_roll(&mut self, index: usize) {
        let Some(&die) = self.roll.get(index) else {
            return;
        };
        // The dice after it move down one by one, in order, rather than through the memory
        // copy that `Vec::remove` calls: a roll holds five dice at most, and a playout places
        // at every turn.
        for i in index + 1..self.roll.len() {
            self.roll.swap(i - 1, i);
        }
        self.roll.pop();
        if !self.roll.contains(&die) {
            self.roll_kinds = self.roll_kinds.without(DieKinds::of_die(die));
        }
    }

    pub fn tower(&self, id: TowerId) -> &Tower {
        &self.towers[id.index()]
    }

    pub(crate) fn tower_mut(&mut self, id: TowerId) -> &mut Tower {
        &mut self.towers[id.index()]
    }

    pub fn towers(&self) -> &[Tower; 4] {
        &self.towers
    }

    /// Tiles left in the floor stack, next first.
    pub fn floor_stack(&self) -> impl Iterator<Item = &Arc<Tile>> {
        self.stack.iter().rev()
    }

    /// Every prestige point scored so far, in order, with its reason.
    pub fn ledger(&self) -> &[ScoreEntry] {
        &self.ledger
    }

    /// The table as a validated snapshot (for end-of-game scoring and export).
    pub fn table(&self) -> Table {
        Table {
            players: self.players.iter().map(|p| p.color).collect(),
            towers: self.towers.each_ref().map(|t| TowerTop {
                level: t.level,
                pillars: t.pillars,
            }),
            spellbooks: self
                .players
                .iter()
                .map(|p| {
                    let spells = SpellId::ALL
                        .into_iter()
                        .filter(|&s| p.spell(s).is_some())
                        .collect();
                    (p.color, spells)
                })
                .collect(),
            prestige: self.players.iter().map(|p| (p.color, p.prestige)).collect(),
            mana_pool: self.mana_pool.clone(),
            round: self.round.min(self.rounds),
        }
    }

    /// Checks that every die and meeple is somewhere, once (RULINGS.md, Conservation).
    /// Returns the problems found; empty when the state is sound.
    pub fn conservation_problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        let mut dice = self.bag;
        for die in self
            .roll
            .iter()
            .chain(&self.mana_pool)
            .chain(self.towers.iter().flat_map(|t| &t.buried_dice))
        {
            dice.add(die.color);
        }
        for die in self.towers.iter().flat_map(Tower::dice) {
            dice.add(die.color);
        }
        for color in DieColor::ALL {
            if dice.get(color) != DICE_PER_COLOR {
                problems.push(format!(
                    "{} {color} dice are accounted for instead of {DICE_PER_COLOR}",
                    dice.get(color)
                ));
            }
        }
        let mut counts: BTreeMap<PlayerColor, (u8, u8)> = BTreeMap::new();
        let mut count = |meeple: Meeple| {
            let entry = counts.entry(meeple.player).or_insert((0, 0));
            entry.0 += 1;
            entry.1 += u8::from(meeple.rank == Rank::Master);
        };
        for player in &self.players {
            for _ in 0..player.apprentices {
                count(player.meeple(Rank::Apprentice));
            }
            if player.master {
                count(player.meeple(Rank::Master));
            }
            for rank in player.spellbook.iter().flatten() {
                count(player.meeple(*rank));
            }
        }
        for tower in &self.towers {
            tower.meeples().for_each(&mut count);
            tower.foundation.iter().copied().for_each(&mut count);
        }
        for player in &self.players {
            let (meeples, masters) = counts.get(&player.color).copied().unwrap_or((0, 0));
            if meeples != MEEPLES_PER_PLAYER || masters != 1 {
                problems.push(format!(
                    "{} has {meeples} meeples ({masters} masters) instead of {MEEPLES_PER_PLAYER} (1 master)",
                    player.color
                ));
            }
        }
        let finished_rounds = if self.is_over() {
            self.rounds
        } else {
            self.round - 1
        };
        if self.mana_pool.len() != usize::from(finished_rounds) {
            problems.push(format!(
                "the mana pool holds {} dice after {finished_rounds} finished rounds",
                self.mana_pool.len()
            ));
        }
        problems
    }
}
