//! From the difference between the game and a settled table to the actions that explain
//! it: a search over the rules engine's legal actions (and the observed roll), and, when no
//! legal sequence explains the table, the one illegal move that does.

use rules::{
    Action, BonusTarget, Die, DieColor, DieValue, Event, GameState, Meeple, MeepleSource,
    PillarIndex, SpellId, TowerId, Violation,
};

use crate::observation::Place;
use crate::view::{
    Expected, Mismatch, Piece, Reading, Seen, compare, dice_difference, meeple_difference,
};

/// How far the search looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchLimits {
    /// The most actions between two settled tables.
    pub max_depth: usize,
    /// The most actions tried in one search.
    pub node_budget: usize,
    /// The most explanations collected (to see whether the table settles the choice).
    pub max_solutions: usize,
}

impl Default for SearchLimits {
    fn default() -> Self {
        Self {
            max_depth: 7,
            node_budget: 20_000,
            max_solutions: 128,
        }
    }
}

/// A legal sequence that leads from the game to the table seen.
#[derive(Clone, Debug)]
pub(crate) struct Solution {
    pub actions: Vec<Action>,
    pub state: GameState,
}

/// Visible actions that do not bring the game closer to the table, allowed in one sequence
/// (a placement on a floor that a later placement of the same window completes).
const SLACK: usize = 1;

struct Search<'a> {
    seen: &'a Seen,
    /// Whether a roll may hold another value for a die that the table reads where its value
    /// cannot be read ([`roll_candidates`]).
    any_hidden_value: bool,
    /// Whether the search came to a roll.
    rolled: bool,
    limits: SearchLimits,
    target: usize,
    nodes: usize,
    solutions: Vec<Solution>,
}

/// The shortest legal sequences from `start` to the table `seen`, and those up to two
/// actions longer (up to the limits); empty when none is found.
pub(crate) fn explain(start: &GameState, seen: &Seen, limits: SearchLimits) -> Vec<Solution> {
    let mismatch = compare(&Expected::of(start), seen, false);
    if mismatch.count == 0 {
        return vec![Solution {
            actions: Vec::new(),
            state: start.clone(),
        }];
    }
    let mut search = Search {
        seen,
        any_hidden_value: false,
        rolled: false,
        limits,
        target: 0,
        nodes: 0,
        solutions: Vec::new(),
    };
    search.run(start, &mismatch);
    // Nothing explains the table with the roll as read: once more, with any value for the
    // dice of the roll whose value the table hides.
    if search.solutions.is_empty() && search.rolled {
        search.any_hidden_value = true;
        search.nodes = 0;
        search.run(start, &mismatch);
    }
    fewest_unseen_placements(without_idle_endings(search.solutions), seen)
}

/// Keeps the explanations that assume the fewest placements the table does not show (a
/// die gone from the roll to a pillar where it is not seen): a die hidden in the roll is
/// not a move.
fn fewest_unseen_placements(solutions: Vec<Solution>, seen: &Seen) -> Vec<Solution> {
    let unseen = |s: &Solution| {
        s.actions
            .iter()
            .filter(|a| match a {
                Action::Place { die, tower, .. } => !seen.towers[tower.index()]
                    .iter()
                    .any(|p| matches!(p.piece, Piece::Die(r) if r.die.color == die.color)),
                _ => false,
            })
            .count()
    };
    let fewest = solutions.iter().map(unseen).min().unwrap_or(0);
    solutions
        .into_iter()
        .filter(|s| unseen(s) == fewest)
        .collect()
}

/// Where no value has this chance (per mille) in the reader's odds, a die's value is
/// unread: the reader sees too little of its top face (one under a meeple's foot). The
/// reader's summary calls such a value unreadable at the same odds.
const VALUE_UNREAD_PERMILLE: u16 = 250;

/// How much longer than the shortest an explanation may be.
const LONGER: usize = 2;

fn idle(action: &Action) -> bool {
    matches!(action, Action::SkipBonus { .. } | Action::EndTurn { .. })
}

/// Drops explanations that only add actions leaving no trace to a shorter one: those are
/// not seen yet and will be confirmed when the table shows what follows them.
fn without_idle_endings(solutions: Vec<Solution>) -> Vec<Solution> {
    let keep: Vec<bool> = solutions
        .iter()
        .map(|s| {
            !solutions.iter().any(|t| {
                t.actions.len() < s.actions.len()
                    && s.actions.starts_with(&t.actions)
                    && s.actions[t.actions.len()..].iter().all(idle)
            })
        })
        .collect();
    solutions
        .into_iter()
        .zip(keep)
        .filter_map(|(s, keep)| keep.then_some(s))
        .collect()
}

impl Search<'_> {
    /// The shortest explanations, and those up to two actions longer: a longer one may
    /// differ in what the table does not show yet (a declined bonus and a Change spell,
    /// against a placement and a swap).
    fn run(&mut self, start: &GameState, mismatch: &Mismatch) {
        let mut shortest = None;
        for depth in 1..=self.limits.max_depth {
            if shortest.is_some_and(|d| depth > d + LONGER) {
                break;
            }
            self.target = depth;
            self.dfs(start, &mut Vec::new(), mismatch, SLACK);
            if shortest.is_none() && !self.solutions.is_empty() {
                shortest = Some(depth);
            }
            if self.nodes >= self.limits.node_budget {
                break;
            }
        }
    }

    fn dfs(
        &mut self,
        state: &GameState,
        path: &mut Vec<Action>,
        mismatch: &Mismatch,
        slack: usize,
    ) {
        if state.awaiting_roll() {
            self.rolled = true;
        }
        for action in candidates(state, self.seen, mismatch, self.any_hidden_value) {
            if self.nodes >= self.limits.node_budget
                || self.solutions.len() >= self.limits.max_solutions
            {
                return;
            }
            self.nodes += 1;
            let Ok((next, events)) = state.clone().play_with_events(&action) else {
                continue;
            };
            let next_mismatch = compare(&Expected::of(&next), self.seen, false);
            path.push(action);
            if path.len() == self.target {
                let last = path.last().cloned();
                if next_mismatch.count == 0 {
                    self.solutions.push(Solution {
                        actions: path.clone(),
                        state: next,
                    });
                } else if events
                    .iter()
                    .any(|e| matches!(e, Event::FloorCompleted { .. }))
                    && let Some(action) = last
                    && let Some(table) = Expected::before_scoring(state, &action)
                    && compare(&table, self.seen, false).count == 0
                {
                    // The table shows the floor complete, not yet scored.
                    self.solutions.push(Solution {
                        actions: path.clone(),
                        state: next,
                    });
                }
            } else {
                let invisible = path.last().is_some_and(idle);
                if invisible || next_mismatch.count < mismatch.count {
                    self.dfs(&next, path, &next_mismatch, slack);
                } else if slack > 0 {
                    self.dfs(&next, path, &next_mismatch, slack - 1);
                }
            }
            path.pop();
        }
    }
}

/// The legal sequence (up to `limits`, at most three visible actions) after which the table
/// differs least from the game, when it differs less than now: what to offer the user when
/// nothing explains the table (a resync by one click). Ties go to the shorter sequence,
/// then to the first found.
pub(crate) fn closest(start: &GameState, seen: &Seen, limits: SearchLimits) -> Option<Solution> {
    struct Closest<'a> {
        seen: &'a Seen,
        nodes: usize,
        limit: usize,
        best: Option<(usize, Solution)>,
    }
    impl Closest<'_> {
        fn dfs(&mut self, state: &GameState, path: &mut Vec<Action>, mismatch: &Mismatch) {
            if path.iter().filter(|a| !idle(a)).count() >= 3 {
                return;
            }
            for action in candidates(state, self.seen, mismatch, false) {
                if self.nodes >= self.limit {
                    return;
                }
                self.nodes += 1;
                let Ok(next) = state.clone().play(&action) else {
                    continue;
                };
                let next_mismatch = compare(&Expected::of(&next), self.seen, false);
                let invisible = idle(&action);
                path.push(action);
                let better = self.best.as_ref().is_none_or(|(count, best)| {
                    (next_mismatch.count, path.len()) < (*count, best.actions.len())
                });
                if better && next_mismatch.count < mismatch.count {
                    self.best = Some((
                        next_mismatch.count,
                        Solution {
                            actions: path.clone(),
                            state: next.clone(),
                        },
                    ));
                }
                if invisible || next_mismatch.count < mismatch.count {
                    self.dfs(&next, path, &next_mismatch);
                }
                path.pop();
            }
        }
    }
    let now = compare(&Expected::of(start), seen, false);
    let mut search = Closest {
        seen,
        nodes: 0,
        limit: limits.node_budget,
        best: None,
    };
    search.dfs(start, &mut Vec::new(), &now);
    let (_, best) = search.best?;
    // Ending on actions that leave no trace says nothing more.
    let mut best = best;
    while best.actions.last().is_some_and(idle) {
        best.actions.pop();
    }
    let state = best
        .actions
        .iter()
        .try_fold(start.clone(), |state, action| state.play(action).ok())?;
    (!best.actions.is_empty()).then_some(Solution {
        actions: best.actions,
        state,
    })
}

/// The actions worth trying from `state`: legal actions that touch a place where the table
/// differs, then those that leave no trace (declining a bonus, ending the turn).
fn candidates(
    state: &GameState,
    seen: &Seen,
    mismatch: &Mismatch,
    any_hidden_value: bool,
) -> Vec<Action> {
    if state.is_over() {
        return Vec::new();
    }
    if state.awaiting_roll() {
        return roll_candidates(state, seen, any_hidden_value);
    }
    let pending = state.turn().and_then(|t| t.pending);
    let mut visible = Vec::new();
    let mut invisible = Vec::new();
    for action in state.legal_actions() {
        let relevant = match &action {
            // A die not seen in the roll may have gone to a pillar the table does not show.
            Action::Place {
                tower, pillar, die, ..
            } => mismatch.pillar(*tower, *pillar) || mismatch.roll_unseen.contains(die),
            // A lone meeple that completes a floor seen emptied: the hand may have laid
            // the next floor before it left, so that no table showed the meeple.
            Action::BonusMeeple {
                to: BonusTarget::Pillar { tower, pillar },
                ..
            } => {
                mismatch.pillar(*tower, *pillar)
                    || (mismatch.emptied[tower.index()] && completes_floor(state, *tower))
            }
            Action::BonusMeeple {
                player,
                to: BonusTarget::Spellbook,
                ..
            } => pending.is_some_and(|p| mismatch.spell(*player, p.spell)),
            Action::Cast {
                player,
                effect,
                via_manipulation,
            } => {
                let caster = if *via_manipulation {
                    SpellId::Manipulation
                } else {
                    effect.spell()
                };
                mismatch.spell(*player, caster)
            }
            Action::Recall { player, spell } => mismatch.spell(*player, *spell),
            Action::SkipBonus { .. } | Action::EndTurn { .. } => {
                invisible.push(action);
                continue;
            }
            Action::Roll { .. } | Action::SetTile { .. } => false,
        };
        if relevant {
            visible.push(action);
        }
    }
    for tower in state.towers() {
        if let Some(tile) = seen.tiles.get(&(tower.id, tower.level))
            && *tile != tower.tile.id
        {
            let action = Action::SetTile {
                tower: tower.id,
                tile: tile.clone(),
            };
            if state.is_legal(&action) {
                visible.push(action);
            }
        }
    }
    visible.extend(invisible);
    visible
}

/// Whether one more piece on `tower` completes its top floor: a single pillar is empty.
fn completes_floor(state: &GameState, tower: TowerId) -> bool {
    (state.tower(tower).pillars.iter())
        .filter(|p| p.is_none())
        .count()
        == 1
}

/// The roll, read from the table: the dice in the roll area (in the order read); then with
/// the dice that already moved on when the players were quick (to a pillar, to the mana
/// pool), and without those that came from the mana pool or the central tower in exchange;
/// each completed by what the earlier tables of the throw read surely ([`Seen::roll_before`]),
/// then, one die short, by a die hidden under a meeple that no table showed. With
/// `any_hidden_value`, also with each other value for a die read unsure on a pillar where
/// the reader could not tell its value (one under a meeple's foot), and each other die for
/// the one no table showed.
fn roll_candidates(state: &GameState, seen: &Seen, any_hidden_value: bool) -> Vec<Action> {
    let count = state.dice_per_round();
    let expected = Expected::of(state);
    let mut arrived = Vec::new();
    // Those of them read unsure where they arrived.
    let mut unsure: Vec<Die> = (seen.roll.iter())
        .filter(|r| r.uncertain)
        .map(|r| r.die)
        .collect();
    let mut arrive = |extra: Vec<Die>, readings: &[Reading]| {
        for die in extra {
            if readings.iter().any(|r| r.die == die && r.uncertain) {
                unsure.push(die);
            }
            arrived.push(die);
        }
    };
    let mut left = Vec::new();
    // The towers with a meeple new on an empty pillar over which no die is read: it stands
    // on a die.
    let mut hiding = Vec::new();
    for tower in TowerId::ALL {
        let level = expected.levels[tower.index()];
        // The whole top floor, buried dice too: a die may have completed it at once (and
        // buried dice do not keep their pillar).
        let mut on_floor = Vec::new();
        let mut want = Vec::new();
        for pillar in PillarIndex::ALL {
            let (dice, meeples) = seen.on_floor(tower, level, pillar, true);
            let look = &expected.pillars[tower.index()][pillar.index()];
            let empty = look.dice.is_empty() && look.meeples.is_empty();
            if empty && dice.is_empty() && !meeples.is_empty() {
                hiding.push(tower);
            }
            on_floor.extend(dice);
            want.extend(&look.dice);
        }
        let (missing, extra) = dice_difference(&want, &on_floor);
        arrive(extra, &on_floor);
        if tower.is_central() {
            left.extend(missing);
        }
    }
    let (missing, extra) = dice_difference(&expected.pool, &seen.pool);
    arrive(extra, &seen.pool);
    left.extend(missing);
    let read = seen.roll_dice();
    let mut with_arrived = read.clone();
    with_arrived.extend(&arrived);
    let mut exchanged = with_arrived.clone();
    for die in &left {
        if let Some(i) = exchanged.iter().position(|d| d == die) {
            exchanged.remove(i);
        }
    }
    let mut readings: Vec<Vec<Die>> = [read, with_arrived, exchanged]
        .into_iter()
        .map(|dice| with_roll_before(dice, &unsure, seen, count))
        .collect();
    // One die of the roll that no table showed, taken from a throw under a hand and hidden
    // at once under the meeple placed on it: recorded as the likeliest die that the
    // meeple's tower takes, unsure, for the players to name (with `any_hidden_value`, also
    // as each other die it takes).
    let mut unseen_dice_of = Vec::new();
    if let Some(&tower) = hiding.first() {
        for dice in &mut readings {
            if dice.len() + 1 != count {
                continue;
            }
            let mut unseen = unseen_dice(state, dice, tower).into_iter();
            if let Some(die) = unseen.next() {
                unseen_dice_of.push((dice.clone(), unseen));
                dice.push(die);
            }
        }
    }
    // One die at a time.
    if any_hidden_value {
        let hidden_value = |die: &Die| {
            (seen.unsure_dice.iter()).any(|u| {
                u.guess == *die
                    && matches!(u.place, Place::Tower { buried: false, .. })
                    && (u.value_permille)
                        .is_none_or(|p| p.iter().all(|&v| v < VALUE_UNREAD_PERMILLE))
            })
        };
        for dice in readings.clone() {
            for (i, die) in dice.iter().enumerate() {
                if !arrived.contains(die) || !hidden_value(die) {
                    continue;
                }
                for value in DieValue::ALL.into_iter().filter(|v| *v != die.value) {
                    let mut rolled = dice.clone();
                    rolled[i].value = value;
                    readings.push(rolled);
                }
            }
        }
        for (dice, unseen) in unseen_dice_of {
            for die in unseen {
                let mut rolled = dice.clone();
                rolled.push(die);
                readings.push(rolled);
            }
        }
    }
    // A die already flipped by a Flip spell (cast directly or through Manipulation).
    let flipped = seen.spellbook_emptied(&expected, SpellId::Flip)
        || seen.spellbook_emptied(&expected, SpellId::Manipulation);
    if flipped {
        for dice in readings.clone() {
            for i in 0..dice.len() {
                let mut turned = dice.clone();
                turned[i].value = turned[i].value.opposite();
                readings.push(turned);
            }
        }
    }
    // A die placed after a Change spell shows one more or one less than it was rolled.
    let changed = seen.spellbook_emptied(&expected, SpellId::Change)
        || seen.spellbook_emptied(&expected, SpellId::Manipulation);
    if changed {
        for dice in readings.clone() {
            for (i, die) in dice.iter().enumerate().filter(|(_, d)| arrived.contains(d)) {
                for value in [die.value.get() - 1, die.value.get() + 1] {
                    if let Some(value) = rules::DieValue::new(value) {
                        let mut rolled = dice.clone();
                        rolled[i].value = value;
                        readings.push(rolled);
                    }
                }
            }
        }
    }
    let mut rolls: Vec<Action> = Vec::new();
    for dice in readings {
        let roll = Action::Roll { dice };
        if let Action::Roll { dice } = &roll
            && dice.len() == count
            && !rolls.contains(&roll)
            && state.is_legal(&roll)
        {
            rolls.push(roll);
        }
    }
    rolls
}

/// The dice that a roll of `dice` and one more may hold besides them, of those `tower`
/// takes now, the likeliest first: the colours the bag holds more of once `dice` are drawn
/// first (in the order of [`DieColor::ALL`] on a tie), then the lower values.
fn unseen_dice(state: &GameState, dice: &[Die], tower: TowerId) -> Vec<Die> {
    let left = |color: DieColor| {
        let drawn = dice.iter().filter(|d| d.color == color).count();
        usize::from(state.bag().get(color)).saturating_sub(drawn)
    };
    let mut colors: Vec<DieColor> = (DieColor::ALL.into_iter())
        .filter(|c| left(*c) > 0)
        .collect();
    colors.sort_by_key(|c| std::cmp::Reverse(left(*c)));
    let tower = state.tower(tower);
    (colors.into_iter())
        .flat_map(|color| DieValue::ALL.map(|value| Die::new(color, value)))
        .filter(|die| {
            tower
                .restriction()
                .is_none_or(|r| r.allows(*die, tower.dice()))
        })
        .collect()
}

/// `dice` of the roll read now, with what the earlier tables of the throw read surely: a
/// die read unsure (`unsure`: in the roll area, or on the pillar or in the mana pool it has
/// already gone to, where a meeple's foot hides its pips) gives way to a sure reading of its
/// colour that this table lacks, then dice not seen now fill the roll up to `count` (in the
/// order first read). Never more dice than a table showed, never a die no table showed.
fn with_roll_before(mut dice: Vec<Die>, unsure: &[Die], seen: &Seen, count: usize) -> Vec<Die> {
    let mut before = seen.roll_before.clone();
    for die in &dice {
        if let Some(i) = before.iter().position(|d| d == die) {
            before.remove(i);
        }
    }
    for unsure in unsure {
        if let Some(i) = before.iter().position(|d| d.color == unsure.color)
            && let Some(j) = dice.iter().position(|d| d == unsure)
        {
            dice[j] = before.remove(i);
        }
    }
    let missing = count.saturating_sub(dice.len());
    dice.extend(before.into_iter().take(missing));
    dice
}

/// A move that explains the table but that the rules refuse.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Attempt {
    /// Legal actions that leave no trace, played before it (the previous player ending the
    /// turn).
    pub prefix: Vec<Action>,
    /// The move as an action of the game, when it is one.
    pub action: Option<Action>,
    /// The rules engine's reason, when the engine refuses `action`.
    pub violation: Option<Violation>,
    /// What is wrong, in words.
    pub text: String,
    /// The rule broken, in words.
    pub rule: String,
    pub die: Option<Die>,
    pub meeple: Option<Meeple>,
    pub tower: Option<TowerId>,
    pub pillar: Option<PillarIndex>,
    pub spell: Option<SpellId>,
}

impl Attempt {
    /// A bonus meeple on another spellbook space than the value of the die just placed: the
    /// space tells that value, so the die may have been misread rather than the meeple put
    /// wrong.
    pub fn is_bonus_space(&self) -> bool {
        self.rule == BONUS_SPACE_RULE
    }
}

const DIE_WITHOUT_MEEPLE_RULE: &str = "A die goes on an empty pillar of the top floor of any tower, always together with one meeple (apprentice or master) from the player's reserve. Never a die without a meeple.";
const BONUS_SPACE_RULE: &str =
    "The bonus meeple goes on the spellbook space equal to the value of the die just placed.";

/// The illegal move that, played on the game (after legal actions that leave no trace, or
/// a spell cast the table shows), gives the table seen; the one by the player whose turn it
/// then is comes first. `pending` are explanations of the last settled table that its own
/// reading could not choose between (a Change spell cast, the die not yet placed).
pub(crate) fn illegal_attempt(
    start: &GameState,
    pending: &[Solution],
    seen: &Seen,
) -> Option<Attempt> {
    let mut bases: Vec<(Vec<Action>, GameState)> = vec![(Vec::new(), start.clone())];
    bases.extend(pending.iter().map(|s| (s.actions.clone(), s.state.clone())));
    let roots = bases.len();
    let mut i = 0;
    while i < bases.len() && bases.len() < roots + 8 {
        let (prefix, state) = bases[i].clone();
        i += 1;
        if prefix.len() >= 3 + usize::from(i > roots) * 3 {
            continue;
        }
        for action in state.legal_actions() {
            if matches!(action, Action::SkipBonus { .. } | Action::EndTurn { .. })
                && let Ok(next) = state.clone().play(&action)
                && !next.awaiting_roll()
            {
                let mut longer = prefix.clone();
                longer.push(action);
                bases.push((longer, next));
            }
        }
    }
    // A spell cast between the two tables, before the illegal move: its meeple has left the
    // spellbook, the dice it swapped or turned are seen so.
    for (prefix, state) in bases.clone() {
        for action in state.legal_actions() {
            if matches!(action, Action::Cast { .. })
                && let Ok(next) = state.clone().play(&action)
            {
                bases.push(([prefix.as_slice(), &[action]].concat(), next));
            }
        }
    }
    // The move of the player whose turn it is, then the one that assumes no unseen spell
    // effect (Change, Metamorphosis) on the die, then the one with the fewest actions before.
    // (A player who cast Change picks a direction the die can take.)
    let mut found: Vec<((bool, bool, bool, usize), Attempt)> = Vec::new();
    for (prefix, state) in &bases {
        let plain = state
            .turn()
            .is_none_or(|t| t.change == 0 && t.metamorphosis.is_none());
        for mut attempt in attempts_from(state, seen) {
            attempt.prefix = prefix.clone();
            let by_current = attempt
                .meeple
                .is_some_and(|m| state.current_player() == Some(m.player));
            let out_of_range =
                matches!(attempt.violation, Some(Violation::ChangeOutOfRange { .. }));
            found.push(((!by_current, !plain, out_of_range, prefix.len()), attempt));
        }
    }
    found.sort_by_key(|(rank, _)| *rank);
    found.into_iter().next().map(|(_, attempt)| attempt)
}

fn attempts_from(state: &GameState, seen: &Seen) -> Vec<Attempt> {
    let expected = Expected::of(state);
    let mismatch = compare(&expected, seen, false);
    let mut attempts = Vec::new();
    for tower in TowerId::ALL {
        for pillar in PillarIndex::ALL {
            if !mismatch.pillars[tower.index()][pillar.index()] {
                continue;
            }
            let level = expected.levels[tower.index()];
            let look = &expected.pillars[tower.index()][pillar.index()];
            let (dice, meeples) = seen.on_pillar(tower, level, pillar);
            let (missing_dice, extra_dice) = look.dice_difference(&dice, &meeples);
            let (missing_meeples, extra_meeples) = meeple_difference(&look.meeples, &meeples);
            if !missing_dice.is_empty() || !missing_meeples.is_empty() {
                continue;
            }
            // A die read unsure (under its meeple the reader seldom sees its face) is the
            // die of the roll that the roll no longer shows: each die of the roll it may be
            // is tried, the one read first.
            let candidates: Vec<Vec<Die>> = match (extra_dice.as_slice(), dice.as_slice()) {
                ([read], [reading]) if reading.uncertain => {
                    let mut fitting: Vec<(u8, bool, Die)> = (expected.roll.iter())
                        .filter_map(|d| Some((reading.fits(d.color)?, d != read, *d)))
                        .collect();
                    fitting.sort();
                    fitting.dedup();
                    fitting.into_iter().map(|(_, _, d)| vec![d]).collect()
                }
                _ => vec![extra_dice],
            };
            // A die comes from the roll (a die moved from elsewhere is no move of the game).
            let explains = |extra_dice: &Vec<Die>| {
                if extra_dice.iter().any(|d| !expected.roll.contains(d)) {
                    return false;
                }
                let mut table = expected.clone();
                let slot = &mut table.pillars[tower.index()][pillar.index()];
                slot.dice.extend(extra_dice);
                slot.meeples.extend(&extra_meeples);
                for die in extra_dice {
                    if let Some(i) = table.roll.iter().position(|d| d == die) {
                        table.roll.remove(i);
                    }
                }
                compare(&table, seen, false).count == 0
            };
            let Some(extra_dice) = candidates.into_iter().find(explains) else {
                continue;
            };
            let attempt = match (extra_dice.as_slice(), extra_meeples.as_slice()) {
                ([die], [meeple]) => refused(
                    state,
                    Action::Place {
                        player: meeple.player,
                        die: *die,
                        rank: meeple.rank,
                        tower,
                        pillar,
                    },
                    Some(*die),
                    Some(*meeple),
                ),
                ([die], []) => Some(Attempt {
                    prefix: Vec::new(),
                    action: None,
                    violation: None,
                    text: format!(
                        "The {die} stands on {pillar} of {tower} without a meeple; a die is always placed together with a meeple."
                    ),
                    rule: DIE_WITHOUT_MEEPLE_RULE.to_owned(),
                    die: Some(*die),
                    meeple: None,
                    tower: Some(tower),
                    pillar: Some(pillar),
                    spell: None,
                }),
                // A meeple alone on a pillar where the game has no die: a bonus meeple, or
                // a placement whose die it hides (the one die of the roll not seen).
                ([], [meeple]) => {
                    hidden_placement(state, &mismatch.roll_unseen, *meeple, tower, pillar).or_else(
                        || {
                            refused(
                                state,
                                Action::BonusMeeple {
                                    player: meeple.player,
                                    from: MeepleSource::Reserve(meeple.rank),
                                    to: BonusTarget::Pillar { tower, pillar },
                                },
                                None,
                                Some(*meeple),
                            )
                        },
                    )
                }
                _ => None,
            };
            if let Some(mut attempt) = attempt {
                attempt.tower = Some(tower);
                attempt.pillar = Some(pillar);
                attempts.push(attempt);
            }
        }
    }
    for &(player, spell) in &mismatch.spells {
        let want = expected
            .spellbooks
            .get(&(player, spell))
            .cloned()
            .unwrap_or_default();
        let got = seen
            .spellbooks
            .get(&(player, spell))
            .cloned()
            .unwrap_or_default();
        let (_, extra) = meeple_difference(&want, &got);
        let [meeple] = extra.as_slice() else {
            continue;
        };
        // A meeple read unsure there is no ground for a flag: the reader takes a slot's pips
        // beside the board's coloured edge for one now and then.
        if got.len() != want.len() + 1 || got.iter().any(|r| r.uncertain) {
            continue;
        }
        let mut table = expected.clone();
        table
            .spellbooks
            .entry((player, spell))
            .or_default()
            .push(*meeple);
        if compare(&table, seen, false).count != 0 {
            continue;
        }
        let action = Action::BonusMeeple {
            player: meeple.player,
            from: MeepleSource::Reserve(meeple.rank),
            to: BonusTarget::Spellbook,
        };
        let attempt = match state.check(&action) {
            Err(violation) => Some(engine_attempt(action, violation, None, Some(*meeple))),
            Ok(()) => {
                let pending = state.turn().and_then(|t| t.pending).map(|p| p.spell);
                pending.filter(|&s| s != spell).map(|space| Attempt {
                    prefix: Vec::new(),
                    action: None,
                    violation: None,
                    text: format!(
                        "{meeple} stands on {spell} of {player}'s spellbook; the bonus meeple goes on {space}, the space of the die just placed."
                    ),
                    rule: BONUS_SPACE_RULE.to_owned(),
                    die: None,
                    meeple: Some(*meeple),
                    tower: None,
                    pillar: None,
                    spell: Some(spell),
                })
            }
        };
        if let Some(mut attempt) = attempt {
            attempt.spell = Some(spell);
            attempts.push(attempt);
        }
    }
    attempts
}

/// The placement refused by the rules of the one die of the roll not seen (`unseen`) with
/// `meeple` on a pillar where the meeple stands alone: the die is under it. `None` when
/// several different dice are not seen (which one is unknown) or the placement is legal.
fn hidden_placement(
    state: &GameState,
    unseen: &[Die],
    meeple: Meeple,
    tower: TowerId,
    pillar: PillarIndex,
) -> Option<Attempt> {
    let die = *unseen.first()?;
    if unseen.iter().any(|d| *d != die) {
        return None;
    }
    let action = Action::Place {
        player: meeple.player,
        die,
        rank: meeple.rank,
        tower,
        pillar,
    };
    refused(state, action, Some(die), Some(meeple))
}

fn refused(
    state: &GameState,
    action: Action,
    die: Option<Die>,
    meeple: Option<Meeple>,
) -> Option<Attempt> {
    let violation = state.check(&action).err()?;
    Some(engine_attempt(action, violation, die, meeple))
}

fn engine_attempt(
    action: Action,
    violation: Violation,
    die: Option<Die>,
    meeple: Option<Meeple>,
) -> Attempt {
    Attempt {
        prefix: Vec::new(),
        text: violation.to_string(),
        rule: violation.rule().to_owned(),
        action: Some(action),
        violation: Some(violation),
        die,
        meeple,
        tower: None,
        pillar: None,
        spell: None,
    }
}
