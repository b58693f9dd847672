//! Playing actions: checking them against the rules, applying them, and listing the legal
//! ones, like a chess move generator.

use std::ops::ControlFlow;

use crate::action::{Action, BonusTarget, Direction, MeepleSource, SpellEffect};
use crate::components::{
    DiceCount, Die, DieColor, DieKinds, Meeple, Pillar, PillarIndex, PlayerColor, Rank, SpellId,
    TowerId,
};
use crate::event::Event;
use crate::scoring::{
    CENTRAL_FLOOR, OUTER_FLOOR, ScoreEntry, ScoreReason, award, final_score, floor_entries,
    influence,
};
use crate::state::{
    GameState, PendingBonus, Phase, Placement, PlayerState, Tower, Turn, turns_per_round,
};
use crate::tiles::PillarBonus;
use crate::violation::{IllegalAction, Violation};

impl GameState {
    /// Plays `action`, or refuses it with the rule it breaks and the unchanged state.
    pub fn play(mut self, action: &Action) -> Result<Self, IllegalAction> {
        match self.play_in_place(action) {
            Ok(()) => Ok(self),
            Err(violation) => Err(IllegalAction {
                violation,
                action: action.clone(),
                state: Box::new(self),
            }),
        }
    }

    /// Like [`GameState::play`] on a state the caller keeps, without describing what
    /// happened: for playouts, which play thousands of actions. A refused action leaves the
    /// state unchanged.
    pub fn play_in_place(&mut self, action: &Action) -> Result<(), Violation> {
        self.check(action)?;
        self.apply(action, &mut NoLog);
        Ok(())
    }

    /// Plays an action the move generator listed, or a roll drawn in full from the bag,
    /// without checking it again (checked in debug builds): random playouts play only such
    /// actions (`legal_actions_and_is_legal_agree` tests the generator against
    /// [`GameState::check`]).
    pub(crate) fn play_generated(&mut self, action: &Action) {
        debug_assert!(self.is_legal(action), "{action}: {:?}", self.check(action));
        // The end of a turn, a third of a playout's actions, only moves on to the next turn
        // (without a log, nothing is told).
        if let Action::EndTurn { .. } = action {
            self.next_turn(&mut NoLog);
            return;
        }
        self.apply(action, &mut NoLog);
    }

    /// Like [`GameState::play`], also returning what happened, in order.
    pub fn play_with_events(
        mut self,
        action: &Action,
    ) -> Result<(Self, Vec<Event>), IllegalAction> {
        if let Err(violation) = self.check(action) {
            return Err(IllegalAction {
                violation,
                action: action.clone(),
                state: Box::new(self),
            });
        }
        let mut events = Vec::new();
        self.apply(action, &mut events);
        Ok((self, events))
    }

    /// Plays `action` even though it breaks a dice restriction, when the players agreed to
    /// allow it; the first event records the override. Other violations are still refused:
    /// only a restriction can be waived without making the table inconsistent.
    pub fn play_overriding(mut self, action: &Action) -> Result<(Self, Vec<Event>), IllegalAction> {
        match self.check(action) {
            Ok(()) => self.play_with_events(action),
            Err(violation) if violation.can_be_overridden() => {
                let mut events = vec![Event::Overridden {
                    violation: violation.to_string(),
                }];
                self.apply(action, &mut events);
                Ok((self, events))
            }
            Err(violation) => Err(IllegalAction {
                violation,
                action: action.clone(),
                state: Box::new(self),
            }),
        }
    }

    pub fn is_legal(&self, action: &Action) -> bool {
        self.check(action).is_ok()
    }

    /// The placements of a [`Action::Place`]'s die and meeple on each other empty pillar that
    /// the rules refuse now, each with the rule it breaks: the mistakes a player could make
    /// with that die (the synthetic games stage them). Empty for any other action.
    pub fn refused_elsewhere(&self, action: &Action) -> Vec<(Action, Violation)> {
        let Action::Place {
            player,
            die,
            rank,
            tower,
            pillar,
        } = *action
        else {
            return Vec::new();
        };
        let mut refused = Vec::new();
        for other in TowerId::ALL {
            for spot in PillarIndex::ALL {
                if (other, spot) == (tower, pillar) || self.tower(other).pillar(spot).is_some() {
                    continue;
                }
                let attempt = Action::Place {
                    player,
                    die,
                    rank,
                    tower: other,
                    pillar: spot,
                };
                if let Err(violation) = self.check(&attempt) {
                    refused.push((attempt, violation));
                }
            }
        }
        refused
    }

    /// Why `action` is illegal now, if it is.
    pub fn check(&self, action: &Action) -> Result<(), Violation> {
        match action {
            Action::Roll { dice } => self.check_roll(dice),
            Action::SetTile { tower, tile } => self.check_set_tile(*tower, tile),
            Action::Place {
                player,
                die,
                rank,
                tower,
                pillar,
            } => {
                let turn = self.turn_of(*player)?;
                self.check_place(turn, *die, *rank, *tower, *pillar)
            }
            Action::BonusMeeple { player, from, to } => {
                let turn = self.turn_of(*player)?;
                self.check_bonus(turn, *from, *to)
            }
            Action::SkipBonus { player } => {
                let turn = self.turn_of(*player)?;
                match turn.pending {
                    Some(_) => Ok(()),
                    None => Err(Violation::NoBonusPending { player: *player }),
                }
            }
            Action::Cast {
                player,
                effect,
                via_manipulation,
            } => {
                let turn = self.turn_of(*player)?;
                self.check_cast(turn, effect, *via_manipulation)
            }
            Action::Recall { player, spell } => {
                let turn = self.turn_of(*player)?;
                no_pending(turn)?;
                let me = self.current(turn);
                if !me.reserve_is_empty() {
                    return Err(Violation::RecallNotNeeded { player: *player });
                }
                if me.spell(*spell).is_none() {
                    return Err(Violation::NoMeepleOnSpell {
                        player: *player,
                        spell: *spell,
                    });
                }
                Ok(())
            }
            Action::EndTurn { player } => {
                let turn = self.turn_of(*player)?;
                no_pending(turn)?;
                let fitting = self.dice_fitting(turn, self.accepted(turn));
                if turn.placed.is_none() && Self::must_place(self.current(turn), fitting) {
                    return Err(Violation::MustPlace { player: *player });
                }
                Ok(())
            }
        }
    }

    fn check_roll(&self, dice: &[Die]) -> Result<(), Violation> {
        match &self.phase {
            Phase::Over(_) => return Err(Violation::GameOver),
            Phase::Turn(_) => return Err(Violation::AlreadyRolled { round: self.round }),
            Phase::Roll => {}
        }
        if dice.len() != self.dice_per_round() {
            return Err(Violation::WrongDiceCount {
                expected: self.dice_per_round(),
                found: dice.len(),
            });
        }
        let rolled = DiceCount::count_dice(dice);
        for color in DieColor::ALL {
            let wanted = rolled.get(color);
            if wanted > self.bag.get(color) {
                return Err(Violation::NotInBag {
                    color,
                    wanted,
                    in_bag: self.bag.get(color),
                });
            }
        }
        Ok(())
    }

    fn check_set_tile(&self, tower_id: TowerId, tile: &str) -> Result<(), Violation> {
        if self.is_over() {
            return Err(Violation::GameOver);
        }
        let tower = self.tower(tower_id);
        if tower.level == 1 {
            return Err(Violation::StartingTile { tower: tower_id });
        }
        if tower.finished {
            return Err(Violation::TowerFinished { tower: tower_id });
        }
        if tower.pillars.iter().any(Option::is_some) {
            return Err(Violation::FloorNotEmpty { tower: tower_id });
        }
        if !self.stack.iter().any(|t| t.id == tile) {
            return Err(Violation::TileNotInStack {
                tile: tile.to_owned(),
            });
        }
        Ok(())
    }

    fn turn_of(&self, player: PlayerColor) -> Result<&Turn, Violation> {
        match &self.phase {
            Phase::Over(_) => Err(Violation::GameOver),
            Phase::Roll => Err(Violation::NotRolled { round: self.round }),
            Phase::Turn(turn) if turn.player != player => Err(Violation::NotYourTurn {
                player,
                current: turn.player,
            }),
            Phase::Turn(turn) => Ok(turn),
        }
    }

    fn current(&self, turn: &Turn) -> &crate::state::PlayerState {
        let me = &self.players[self.turn_seat()];
        debug_assert_eq!(me.color, turn.player);
        me
    }

    fn check_place(
        &self,
        turn: &Turn,
        die: Die,
        rank: Rank,
        tower_id: TowerId,
        pillar: PillarIndex,
    ) -> Result<(), Violation> {
        no_pending(turn)?;
        if turn.placed.is_some() {
            return Err(Violation::AlreadyPlaced {
                player: turn.player,
            });
        }
        if !self.roll.contains(&die) {
            return Err(Violation::DieNotRolled {
                die,
                rolled: self.roll.clone(),
            });
        }
        let me = self.current(turn);
        if !me.has_in_reserve(rank) {
            return Err(Violation::NoMeepleInReserve {
                player: turn.player,
                rank,
                spellbook_has_meeples: me.spellbook_meeples() > 0,
            });
        }
        self.check_open_pillar(tower_id, pillar)?;
        let (_, counted) =
            Outlook::of(turn)
                .effective_die(die)
                .ok_or(Violation::ChangeOutOfRange {
                    die,
                    delta: turn.change,
                })?;
        let tower = self.tower(tower_id);
        if let Some(restriction) = tower.restriction() {
            if !restriction.allows_color(counted.color) {
                return Err(Violation::ColorNotAllowed {
                    tower: tower_id,
                    die: counted,
                    restriction: restriction.clone(),
                });
            }
            if !restriction.allows_value(counted.value) {
                return Err(Violation::ValueNotAllowed {
                    tower: tower_id,
                    die: counted,
                    restriction: restriction.clone(),
                });
            }
            if !restriction.allows(counted, tower.dice()) {
                return Err(Violation::ValueRepeated {
                    tower: tower_id,
                    die: counted,
                });
            }
        }
        Ok(())
    }

    fn check_open_pillar(&self, tower_id: TowerId, pillar: PillarIndex) -> Result<(), Violation> {
        let tower = self.tower(tower_id);
        if tower.finished {
            return Err(Violation::TowerFinished { tower: tower_id });
        }
        if let Some(occupant) = tower.pillar(pillar) {
            return Err(Violation::PillarTaken {
                tower: tower_id,
                pillar,
                occupant: *occupant,
            });
        }
        Ok(())
    }

    fn check_bonus(
        &self,
        turn: &Turn,
        from: MeepleSource,
        to: BonusTarget,
    ) -> Result<(), Violation> {
        let player = turn.player;
        let Some(pending) = turn.pending else {
            return Err(Violation::NoBonusPending { player });
        };
        let me = self.current(turn);
        match from {
            MeepleSource::Reserve(rank) => {
                if !me.has_in_reserve(rank) {
                    return Err(Violation::NoMeepleInReserve {
                        player,
                        rank,
                        spellbook_has_meeples: false,
                    });
                }
            }
            MeepleSource::Spellbook(spell) => {
                if pending.bonus == PillarBonus::Spell || !me.reserve_is_empty() {
                    return Err(Violation::SpellbookSourceNotAllowed {
                        player,
                        bonus: pending.bonus,
                    });
                }
                if me.spell(spell).is_none() {
                    return Err(Violation::NoMeepleOnSpell { player, spell });
                }
            }
        }
        match to {
            BonusTarget::Spellbook => {
                if me.spell(pending.spell).is_some() {
                    return Err(Violation::SpellbookSpaceTaken {
                        player,
                        spell: pending.spell,
                    });
                }
            }
            BonusTarget::Pillar { tower, pillar } => {
                if pending.bonus == PillarBonus::Spell {
                    return Err(Violation::SpellBonusGoesToSpellbook);
                }
                if tower == pending.tower {
                    return Err(Violation::SameTower { tower });
                }
                self.check_open_pillar(tower, pillar)?;
            }
        }
        Ok(())
    }

    fn check_cast(
        &self,
        turn: &Turn,
        effect: &SpellEffect,
        via_manipulation: bool,
    ) -> Result<(), Violation> {
        no_pending(turn)?;
        let caster = if via_manipulation {
            SpellId::Manipulation
        } else {
            effect.spell()
        };
        if self.current(turn).spell(caster).is_none() {
            return Err(Violation::NoMeepleOnSpell {
                player: turn.player,
                spell: caster,
            });
        }
        if turn.arrived_this_turn(caster) {
            return Err(Violation::SpellJustArrived {
                player: turn.player,
                spell: caster,
            });
        }
        let rolled = |die: &Die| {
            if self.roll.contains(die) {
                Ok(())
            } else {
                Err(Violation::DieNotRolled {
                    die: *die,
                    rolled: self.roll.clone(),
                })
            }
        };
        match effect {
            SpellEffect::Change { .. } | SpellEffect::Metamorphosis { .. } => {
                if turn.placed.is_some() {
                    return Err(Violation::SpellTooLate {
                        spell: effect.spell(),
                    });
                }
            }
            SpellEffect::Flip { die } => rolled(die)?,
            SpellEffect::Exchange { rolled: die, pool } => {
                rolled(die)?;
                if !self.mana_pool.contains(pool) {
                    return Err(Violation::NotInManaPool { die: *pool });
                }
            }
            SpellEffect::Permutation {
                rolled: die,
                pillar,
            } => {
                rolled(die)?;
                if self.central_die(*pillar).is_none() {
                    return Err(Violation::NoDieOnCentralPillar { pillar: *pillar });
                }
            }
        }
        let accepted = self.accepted(turn);
        let fitting = self.dice_fitting(turn, accepted);
        self.check_cast_outcome(turn, effect, accepted, fitting)
    }

    /// A spell that can change nothing cannot be cast, and a spell never takes away the
    /// last possible placement of the turn (RULINGS.md, Spells): the two rules that stop a
    /// spell from being a way to avoid placing. `effect` is known to be castable otherwise;
    /// `accepted` is [`GameState::accepted`] and `fitting` [`GameState::dice_fitting`].
    fn check_cast_outcome(
        &self,
        turn: &Turn,
        effect: &SpellEffect,
        accepted: DieKinds,
        fitting: usize,
    ) -> Result<(), Violation> {
        match *effect {
            SpellEffect::Change { direction } => {
                let delta = turn.change.saturating_add(direction.delta());
                if !self.roll.iter().any(|d| d.value.offset(delta).is_some()) {
                    return Err(Violation::ChangeFitsNoDie { delta });
                }
            }
            SpellEffect::Metamorphosis { color } => {
                let counted = |d: &Die| turn.metamorphosis.unwrap_or(d.color);
                if self.roll.iter().all(|d| counted(d) == color) {
                    return Err(Violation::MetamorphosisChangesNothing { color });
                }
            }
            SpellEffect::Flip { .. } => {}
            SpellEffect::Exchange { rolled, pool } => {
                if rolled == pool {
                    return Err(Violation::SwapChangesNothing {
                        spell: SpellId::Exchange,
                        die: rolled,
                    });
                }
            }
            SpellEffect::Permutation { rolled, pillar } => {
                if self.central_die(pillar) == Some(rolled) {
                    return Err(Violation::SwapChangesNothing {
                        spell: SpellId::Permutation,
                        die: rolled,
                    });
                }
            }
        }
        if fitting > 0 && !self.die_fits_after(turn, effect, accepted, fitting) {
            return Err(Violation::SpellPreventsPlacement {
                player: turn.player,
                spell: effect.spell(),
            });
        }
        Ok(())
    }

    /// The die on a pillar of the central tower's top floor.
    fn central_die(&self, pillar: PillarIndex) -> Option<Die> {
        self.tower(TowerId::Central)
            .pillar(pillar)
            .and_then(|p| p.die)
    }

    /// Whether the player `me` must place before ending the turn: a die fits somewhere and
    /// a meeple is in the reserve, or the reserve is empty and a meeple on the spellbook can
    /// be taken back (RULINGS.md, A placement). `fitting` is [`GameState::dice_fitting`].
    fn must_place(me: &PlayerState, fitting: usize) -> bool {
        if me.reserve_is_empty() {
            me.spellbook_meeples() > 0
        } else {
            fitting > 0
        }
    }

    /// The kinds of die some tower takes from the turn's placement.
    fn accepted(&self, turn: &Turn) -> DieKinds {
        self.tower_accepts(turn)
            .into_iter()
            .fold(DieKinds::NONE, DieKinds::union)
    }

    /// How many dice on the table fit some tower (`accepted` is [`GameState::accepted`]) as
    /// the turn's placement would count them; 0 once the player has placed.
    fn dice_fitting(&self, turn: &Turn, accepted: DieKinds) -> usize {
        if turn.placed.is_some() {
            return 0;
        }
        let outlook = Outlook::of(turn);
        self.roll
            .iter()
            .filter(|&&die| outlook.fits(die, accepted))
            .count()
    }

    /// Whether a die would still fit somewhere once `effect` is cast, `fitting` dice fitting
    /// now. Flip, Exchange and Permutation change one die and leave the others as they are:
    /// with two dice fitting, one still does; else only the die taken away and the die
    /// brought in need to be looked at (the spells are weighed at every step of a playout,
    /// dozens of them when the mana pool is full).
    fn die_fits_after(
        &self,
        turn: &Turn,
        effect: &SpellEffect,
        accepted: DieKinds,
        fitting: usize,
    ) -> bool {
        let mut outlook = Outlook::of(turn);
        let (taken, brought) = match *effect {
            SpellEffect::Change { direction } => {
                outlook.change = outlook.change.saturating_add(direction.delta());
                return self.roll.iter().any(|&die| outlook.fits(die, accepted));
            }
            SpellEffect::Metamorphosis { color } => {
                outlook.metamorphosis = Some(color);
                return self.roll.iter().any(|&die| outlook.fits(die, accepted));
            }
            SpellEffect::Flip { die } => (die, Die::new(die.color, die.value.opposite())),
            SpellEffect::Exchange { rolled, pool } => (rolled, pool),
            SpellEffect::Permutation { rolled, pillar } => match self.central_die(pillar) {
                Some(central) => (rolled, central),
                None => return fitting > 0,
            },
        };
        fitting > 1 || !outlook.fits(taken, accepted) || outlook.fits(brought, accepted)
    }

    /// Every legal decision of the player whose turn it is. Empty while the dice are to be
    /// rolled and once the game is over. Observations of the physical table (the roll, the
    /// tile drawn for a new floor) are not decisions and are never listed: check them with
    /// [`GameState::is_legal`].
    pub fn legal_actions(&self) -> Vec<Action> {
        let mut actions = Vec::new();
        self.legal_actions_into(&mut actions);
        actions
    }

    /// [`GameState::legal_actions`] into a list the caller reuses (cleared first).
    pub fn legal_actions_into(&self, actions: &mut Vec<Action>) {
        actions.clear();
        let Some(view) = self.turn_view() else {
            return;
        };
        self.for_each_placement(&view, |action| actions.push(action));
        self.for_each_other_action(&view, |action| actions.push(action));
    }

    /// The turn as the move generator sees it, worked out once per step (`None` while the
    /// dice are to be rolled and once the game is over).
    #[inline]
    pub(crate) fn turn_view(&self) -> Option<TurnView<'_>> {
        let turn = self.turn()?;
        let me = self.current(turn);
        let mut view = TurnView {
            turn,
            me,
            takes: [DieKinds::NONE; 4],
            ranks: me.reserve_ranks().count(),
            cast_outlook: CastOutlook {
                accepted: DieKinds::NONE,
                fitting: 0,
            },
        };
        if turn.placed.is_some() {
            // No tower takes anything more this turn: most steps of a playout.
            return Some(view);
        }
        let accepts = self.tower_accepts(turn);
        let union = |kinds: [DieKinds; 4]| kinds.into_iter().fold(DieKinds::NONE, DieKinds::union);
        view.takes = Outlook::of(turn).kinds_taken(self.roll_kinds(), accepts);
        // The dice that fit some tower (what `dice_fitting` counts) are those of a kind taken.
        let taken = union(view.takes);
        // With no two dice alike (the usual roll), the dice are counted as their kinds.
        let rolled = self.roll_kinds();
        let fitting = if rolled.len() == self.roll.len() {
            taken.len()
        } else {
            self.roll.iter().filter(|&&die| taken.contains(die)).count()
        };
        view.cast_outlook = CastOutlook {
            accepted: union(accepts),
            fitting,
        };
        Some(view)
    }

    /// What each tower takes from the turn's placement ([`Tower::accepts`]), by
    /// [`TowerId::index`]: nothing once the player has placed (most steps of a playout come
    /// after the placement: bonuses, spells, the end of the turn).
    #[inline]
    pub(crate) fn tower_accepts(&self, turn: &Turn) -> [DieKinds; 4] {
        if turn.placed.is_some() {
            return [DieKinds::NONE; 4];
        }
        self.towers.each_ref().map(Tower::accepts)
    }

    /// Hands `block` each block of legal placements, in the order of
    /// [`GameState::legal_actions`], which lists them first: one block for each distinct
    /// die on the table and tower that takes it, made of every empty pillar of that tower
    /// with every rank in the reserve. Stops where `block` breaks.
    fn for_each_placement_block<B>(
        &self,
        view: &TurnView,
        mut block: impl FnMut(Die, &Tower) -> ControlFlow<B>,
    ) -> ControlFlow<B> {
        if !view.may_place() || view.ranks == 0 {
            return ControlFlow::Continue(());
        }
        for die in distinct(&self.roll) {
            for (tower, kinds) in self.towers.iter().zip(&view.takes) {
                if kinds.contains(die) {
                    block(die, tower)?;
                }
            }
        }
        ControlFlow::Continue(())
    }

    fn for_each_placement(&self, view: &TurnView, mut visit: impl FnMut(Action)) {
        let _ = self.for_each_placement_block::<()>(view, |die, tower| {
            for pillar in tower.open_pillars() {
                for rank in view.me.reserve_ranks() {
                    visit(Action::Place {
                        player: view.turn.player,
                        die,
                        rank,
                        tower: tower.id,
                        pillar,
                    });
                }
            }
            ControlFlow::Continue(())
        });
    }

    /// How many legal placements there are: a block of every empty pillar with every rank
    /// for each kind of die on the table that a tower takes
    /// ([`GameState::for_each_placement_block`], counted without walking it).
    #[inline]
    pub(crate) fn placement_count(&self, view: &TurnView) -> usize {
        if !view.may_place() {
            return 0;
        }
        // A tower that takes none of the dice (full, or restricted to others) needs no count.
        self.towers
            .iter()
            .zip(view.takes)
            .filter(|&(_, takes)| takes != DieKinds::NONE)
            .map(|(tower, takes)| takes.len() * view.block_size(tower))
            .sum()
    }

    /// The legal placement at `index` in the order of [`GameState::legal_actions`], found
    /// by skipping whole blocks.
    #[inline]
    pub(crate) fn nth_placement(&self, view: &TurnView, mut index: usize) -> Option<Action> {
        self.for_each_placement_block(view, |die, tower| {
            let block = view.block_size(tower);
            if index >= block {
                index -= block;
                return ControlFlow::Continue(());
            }
            let (Some(pillar), Some(rank)) = (
                tower.open_pillar(index / view.ranks),
                view.me.reserve_ranks().nth(index % view.ranks),
            ) else {
                return ControlFlow::Continue(());
            };
            ControlFlow::Break(Action::Place {
                player: view.turn.player,
                die,
                rank,
                tower: tower.id,
                pillar,
            })
        })
        .break_value()
    }

    /// Every legal decision that is not a placement, in the order of
    /// [`GameState::legal_actions`].
    pub(crate) fn for_each_other_action(&self, view: &TurnView, mut visit: impl FnMut(Action)) {
        let player = view.turn.player;
        let _ = self.for_each_other_block::<()>(view, |block| {
            match block {
                OtherBlock::Recall(spell) => visit(Action::Recall { player, spell }),
                OtherBlock::EndTurn => visit(Action::EndTurn { player }),
                OtherBlock::Bonus(pending) => {
                    for from in self.bonus_sources(view, pending) {
                        for to in self.bonus_targets(view, pending) {
                            visit(Action::BonusMeeple { player, from, to });
                        }
                    }
                    visit(Action::SkipBonus { player });
                }
                OtherBlock::Casts {
                    spell,
                    via_manipulation,
                } => self.for_each_castable_effect(view, spell, |effect| {
                    visit(Action::Cast {
                        player,
                        effect,
                        via_manipulation,
                    });
                }),
            }
            ControlFlow::Continue(())
        });
    }

    /// Hands `block` the legal decisions that are not placements, in the order of
    /// [`GameState::legal_actions`]: the ways to resolve a pending bonus; or the spells (the
    /// effects of one spell as a block, each castable spell directly, then every spell
    /// through Manipulation), the recalls and the end of the turn. Stops where `block` breaks.
    pub(crate) fn for_each_other_block<B>(
        &self,
        view: &TurnView,
        mut block: impl FnMut(OtherBlock) -> ControlFlow<B>,
    ) -> ControlFlow<B> {
        let turn = view.turn;
        if let Some(pending) = turn.pending {
            return block(OtherBlock::Bonus(pending));
        }
        let me = view.me;
        let castable = self.castable_spells();
        for spell in castable.without(SpellId::Manipulation).iter() {
            block(OtherBlock::Casts {
                spell,
                via_manipulation: false,
            })?;
        }
        if castable.contains(SpellId::Manipulation) {
            for spell in SpellId::ALL[1..].iter().copied() {
                block(OtherBlock::Casts {
                    spell,
                    via_manipulation: true,
                })?;
            }
        }
        if me.reserve_is_empty() {
            for spell in SpellId::ALL.into_iter().filter(|&s| me.spell(s).is_some()) {
                block(OtherBlock::Recall(spell))?;
            }
        }
        if turn.placed.is_some() || !Self::must_place(me, view.cast_outlook.fitting) {
            block(OtherBlock::EndTurn)?;
        }
        ControlFlow::Continue(())
    }

    /// Where the meeple of a pending bonus can come from: the reserve, or the spellbook
    /// when an extra meeple finds the reserve empty.
    fn bonus_sources<'a>(
        &self,
        view: &TurnView<'a>,
        pending: PendingBonus,
    ) -> impl Iterator<Item = MeepleSource> + 'a {
        let me = view.me;
        let from_spellbook = pending.bonus == PillarBonus::ExtraMeeple && me.reserve_is_empty();
        me.reserve_ranks().map(MeepleSource::Reserve).chain(
            SpellId::ALL
                .into_iter()
                .filter(move |&s| from_spellbook && me.spell(s).is_some())
                .map(MeepleSource::Spellbook),
        )
    }

    /// Where the meeple of a pending bonus can go: the spellbook space of the die's value if
    /// it is free; for an extra meeple, also every empty pillar of the other towers.
    fn bonus_targets<'a>(
        &'a self,
        view: &TurnView,
        pending: PendingBonus,
    ) -> impl Iterator<Item = BonusTarget> + 'a {
        let to_spellbook = view.me.spell(pending.spell).is_none();
        let to_pillars = pending.bonus == PillarBonus::ExtraMeeple;
        let pillars = self
            .towers
            .iter()
            .filter(move |t| to_pillars && t.id != pending.tower)
            .flat_map(|tower| {
                tower.open_pillars().map(|pillar| BonusTarget::Pillar {
                    tower: tower.id,
                    pillar,
                })
            });
        to_spellbook
            .then_some(BonusTarget::Spellbook)
            .into_iter()
            .chain(pillars)
    }

    /// How many ways there are to resolve a pending bonus: every source with every target,
    /// and the skip. Counted rather than listed: a playout asks at every bonus.
    pub(crate) fn bonus_action_count(&self, view: &TurnView, pending: PendingBonus) -> usize {
        let me = view.me;
        let extra_meeple = pending.bonus == PillarBonus::ExtraMeeple;
        // As `bonus_sources` lists them: the reserve's ranks, or else the spellbook's meeples.
        let sources = if extra_meeple && me.reserve_is_empty() {
            usize::from(me.spellbook_meeples())
        } else {
            view.ranks
        };
        debug_assert_eq!(sources, self.bonus_sources(view, pending).count());
        sources * self.bonus_target_count(view, pending) + 1
    }

    /// How many targets [`GameState::bonus_targets`] lists.
    fn bonus_target_count(&self, view: &TurnView, pending: PendingBonus) -> usize {
        let to_spellbook = usize::from(view.me.spell(pending.spell).is_none());
        if pending.bonus != PillarBonus::ExtraMeeple {
            return to_spellbook;
        }
        let pillars: usize = self
            .towers
            .iter()
            .filter(|t| t.id != pending.tower)
            .map(Tower::open_pillar_count)
            .sum();
        let count = to_spellbook + pillars;
        debug_assert_eq!(count, self.bonus_targets(view, pending).count());
        count
    }

    /// The way to resolve a pending bonus at `index` in the order of
    /// [`GameState::legal_actions`]: source by source, each with every target; the skip last.
    pub(crate) fn nth_bonus_action(
        &self,
        view: &TurnView,
        pending: PendingBonus,
        index: usize,
    ) -> Action {
        let player = view.turn.player;
        let targets = self.bonus_target_count(view, pending);
        let from = index
            .checked_div(targets)
            .and_then(|source| self.nth_bonus_source(view, pending, source));
        let to = index
            .checked_rem(targets)
            .and_then(|target| self.nth_bonus_target(view, pending, target));
        match (from, to) {
            (Some(from), Some(to)) => Action::BonusMeeple { player, from, to },
            _ => Action::SkipBonus { player },
        }
    }

    /// Source number `n` (from 0) of [`GameState::bonus_sources`], found without walking
    /// them: a rank of the reserve, or else a meeple of the spellbook.
    fn nth_bonus_source(
        &self,
        view: &TurnView,
        pending: PendingBonus,
        n: usize,
    ) -> Option<MeepleSource> {
        let me = view.me;
        let source = match n.checked_sub(view.ranks) {
            None => me.reserve_ranks().nth(n).map(MeepleSource::Reserve),
            Some(n) if pending.bonus == PillarBonus::ExtraMeeple && me.reserve_is_empty() => {
                SpellId::ALL
                    .into_iter()
                    .filter(|&s| me.spell(s).is_some())
                    .nth(n)
                    .map(MeepleSource::Spellbook)
            }
            Some(_) => None,
        };
        debug_assert_eq!(source, self.bonus_sources(view, pending).nth(n));
        source
    }

    /// Target number `n` (from 0) of [`GameState::bonus_targets`], found by skipping whole
    /// towers: the spellbook space if it is free, then the other towers' empty pillars.
    fn nth_bonus_target(
        &self,
        view: &TurnView,
        pending: PendingBonus,
        n: usize,
    ) -> Option<BonusTarget> {
        let to_spellbook = view.me.spell(pending.spell).is_none();
        let target = match n.checked_sub(usize::from(to_spellbook)) {
            None => Some(BonusTarget::Spellbook),
            Some(_) if pending.bonus != PillarBonus::ExtraMeeple => None,
            Some(mut rest) => self
                .towers
                .iter()
                .filter(|t| t.id != pending.tower)
                .find_map(|tower| {
                    let open = tower.open_pillar_count();
                    if rest >= open {
                        rest -= open;
                        return None;
                    }
                    let pillar = tower.open_pillar(rest)?;
                    Some(BonusTarget::Pillar {
                        tower: tower.id,
                        pillar,
                    })
                }),
        };
        debug_assert_eq!(target, self.bonus_targets(view, pending).nth(n));
        target
    }

    /// How many effects of `spell` can be cast now: those
    /// [`GameState::for_each_castable_effect`] lists, counted. Unless exactly one die fits,
    /// changing one die cannot take away the last placement ([`GameState::die_fits_after`]),
    /// so a flip, an exchange or a permutation is refused only when it would swap a die for
    /// an identical one: the sets of distinct dice count those without trying each (the
    /// spells are counted at every step of a playout, and an exchange can pair five rolled
    /// dice with nine in the mana pool). Change and Metamorphosis are listed and counted.
    pub(crate) fn castable_effect_count(&self, view: &TurnView, spell: SpellId) -> usize {
        let placement_at_stake = view.cast_outlook.fitting == 1;
        let rolled = || self.roll_kinds();
        match spell {
            SpellId::Flip if !placement_at_stake => rolled().len(),
            SpellId::Exchange if !placement_at_stake => {
                let (rolled, pool) = (rolled(), DieKinds::of_dice(&self.mana_pool));
                rolled.len() * pool.len() - rolled.intersection(pool).len()
            }
            SpellId::Permutation if !placement_at_stake => {
                let rolled = rolled();
                PillarIndex::ALL
                    .into_iter()
                    .filter_map(|pillar| self.central_die(pillar))
                    .map(|central| rolled.len() - usize::from(rolled.contains(central)))
                    .sum()
            }
            _ => {
                let mut count = 0;
                self.for_each_castable_effect(view, spell, |_| count += 1);
                count
            }
        }
    }

    /// Calls `cast` with every effect of `spell` that can be cast now (the caster's meeple
    /// is known to be there).
    pub(crate) fn for_each_castable_effect(
        &self,
        view: &TurnView,
        spell: SpellId,
        mut cast: impl FnMut(SpellEffect),
    ) {
        let turn = view.turn;
        let outlook = view.cast_outlook;
        let before_placing = turn.placed.is_none();
        let now = Outlook::of(turn);
        // Change and Metamorphosis are weighed on the kinds of die rolled, which count as the
        // dice do (each die as its kind).
        let rolled = || self.roll_kinds();
        // The effects are weighed here by the kinds the dice would count as, rather than
        // through `check_cast_outcome`: the spells are counted at every step while they are
        // in the spellbook, and the property tests hold the two against each other.
        // A die must still fit after the spell if one fits now. A flip or a swap changes one
        // die: it can only take the placement away when exactly one die fits, this one,
        // and the die brought in does not.
        let keeps_the_placement = |taken: Die, brought: Die| {
            outlook.fitting != 1
                || !now.fits(taken, outlook.accepted)
                || now.fits(brought, outlook.accepted)
        };
        match spell {
            SpellId::Manipulation => {}
            SpellId::Change if before_placing => {
                let rolled = rolled();
                for direction in [Direction::Up, Direction::Down] {
                    let after = Outlook {
                        change: turn.change.saturating_add(direction.delta()),
                        ..now
                    };
                    // Some die must be able to take the change.
                    let counted = after.counted_kinds(rolled);
                    if counted != DieKinds::NONE
                        && (outlook.fitting == 0 || counted.intersects(outlook.accepted))
                    {
                        cast(SpellEffect::Change { direction });
                    }
                }
            }
            SpellId::Metamorphosis if before_placing => {
                let rolled = rolled();
                // The kinds rolled in the colours they count as now (whatever their value).
                let coloured = match turn.metamorphosis {
                    Some(color) => rolled.recoloured(color),
                    None => rolled,
                };
                for color in DieColor::ALL {
                    let after = Outlook {
                        metamorphosis: Some(color),
                        ..now
                    };
                    // Some die must count as another colour than it does now.
                    if coloured.without(DieKinds::of_color(color)) != DieKinds::NONE
                        && (outlook.fitting == 0
                            || after.counted_kinds(rolled).intersects(outlook.accepted))
                    {
                        cast(SpellEffect::Metamorphosis { color });
                    }
                }
            }
            SpellId::Change | SpellId::Metamorphosis => {}
            SpellId::Flip => {
                for die in distinct(&self.roll) {
                    if keeps_the_placement(die, Die::new(die.color, die.value.opposite())) {
                        cast(SpellEffect::Flip { die });
                    }
                }
            }
            // A swap must change something: never a die for an identical one.
            SpellId::Exchange => {
                for rolled in distinct(&self.roll) {
                    for pool in distinct(&self.mana_pool) {
                        if rolled != pool && keeps_the_placement(rolled, pool) {
                            cast(SpellEffect::Exchange { rolled, pool });
                        }
                    }
                }
            }
            SpellId::Permutation => {
                for rolled in distinct(&self.roll) {
                    for pillar in PillarIndex::ALL {
                        if let Some(central) = self.central_die(pillar)
                            && central != rolled
                            && keeps_the_placement(rolled, central)
                        {
                            cast(SpellEffect::Permutation { rolled, pillar });
                        }
                    }
                }
            }
        }
    }

    // ----- applying checked actions -----

    fn apply(&mut self, action: &Action, events: &mut impl EventLog) {
        if let Action::SetTile { tower, tile } = action {
            if let Some(i) = self.stack.iter().position(|t| t.id == *tile) {
                let tower = &mut self.towers[tower.index()];
                let drawn = self.stack[i].clone();
                self.stack[i] = tower.lay(drawn);
                events.add(|| Event::TileSet {
                    tower: tower.id,
                    tile: tower.tile.clone(),
                });
            }
            return;
        }
        if let Action::Roll { dice } = action {
            self.roll.clear();
            self.roll.extend_from_slice(dice);
            self.rolled(events);
            return;
        }
        // The turn is updated where it lies, in the phase: the actions below are played at
        // every step of a playout.
        match action {
            Action::Roll { .. } | Action::SetTile { .. } => {}
            Action::Place {
                die,
                rank,
                tower,
                pillar,
                ..
            } => self.apply_place(*die, *rank, *tower, *pillar, events),
            Action::BonusMeeple { from, to, .. } => self.apply_bonus(*from, *to, events),
            Action::SkipBonus { player } => {
                let Some(turn) = self.turn_mut() else {
                    return;
                };
                if let Some(pending) = turn.pending.take() {
                    events.add(|| Event::BonusSkipped {
                        player: *player,
                        bonus: pending.bonus,
                    });
                }
                self.score_completed(events);
            }
            Action::Cast {
                player,
                effect,
                via_manipulation,
            } => self.apply_cast(*player, *effect, *via_manipulation, events),
            Action::Recall { player, spell } => {
                let me = self.current_player_mut();
                if let Some(rank) = me.spellbook[spell.index()].take() {
                    me.give(rank);
                }
                self.spell_left(*player, *spell);
                events.add(|| Event::Recalled {
                    player: *player,
                    spell: *spell,
                });
            }
            Action::EndTurn { player } => {
                let Some(turn) = self.turn() else {
                    return;
                };
                let passed = turn.placed.is_none();
                events.add(|| Event::TurnEnded {
                    player: *player,
                    passed,
                });
                self.next_turn(events);
            }
        }
    }

    /// Plays a roll drawn in full from the bag, as [`GameState::play_generated`] plays a
    /// roll action (checked in debug builds), with `dice` kept as the table's roll rather
    /// than copied into it: a playout rolls every round.
    pub(crate) fn play_drawn_roll(&mut self, dice: Vec<Die>) {
        debug_assert!(self.roll.is_empty(), "{:?}", self.roll);
        debug_assert!(
            self.check_roll(&dice).is_ok(),
            "{:?}",
            self.check_roll(&dice)
        );
        self.roll = dice;
        self.rolled(&mut NoLog);
    }

    /// Starts the round on the dice just put in `roll`: they leave the bag, and the first
    /// player's turn begins.
    fn rolled(&mut self, events: &mut impl EventLog) {
        for die in &self.roll {
            self.bag.take(die.color);
        }
        self.roll_changed();
        events.add(|| Event::Rolled {
            round: self.round,
            first_player: self.first_player(),
            dice: self.roll.clone(),
        });
        self.begin_turn(0);
    }

    /// The current turn, to be changed where it lies (`None` outside a turn).
    fn turn_mut(&mut self) -> Option<&mut Turn> {
        match &mut self.phase {
            Phase::Turn(turn) => Some(turn),
            _ => None,
        }
    }

    fn apply_place(
        &mut self,
        die: Die,
        rank: Rank,
        tower_id: TowerId,
        pillar: PillarIndex,
        events: &mut impl EventLog,
    ) {
        let Some(turn) = self.turn_mut() else {
            return;
        };
        let Some((placed, counted)) = Outlook::of(turn).effective_die(die) else {
            return;
        };
        let player = turn.player;
        turn.placed = Some(Placement {
            die: placed,
            tower: tower_id,
            pillar,
        });
        turn.change = 0;
        turn.metamorphosis = None;
        // The placement is the turn's first move that can complete a floor.
        debug_assert!(turn.completed.is_empty());
        if let Some(i) = self.roll.iter().position(|d| *d == die) {
            self.take_from_roll(i);
        }
        let meeple = Meeple { player, rank };
        self.current_player_mut().take(rank);
        let tower = self.tower_mut(tower_id);
        tower.set_pillar(
            pillar,
            Pillar {
                die: Some(placed),
                meeple: Some(meeple),
            },
        );
        let bonus = tower.bonus(pillar);
        let level = tower.level;
        events.add(|| Event::Placed {
            meeple,
            die: placed,
            changed_from: (die != placed).then_some(die),
            counted_as: (counted != placed).then_some(counted),
            tower: tower_id,
            pillar,
            bonus,
        });
        let mut pending = None;
        match bonus {
            PillarBonus::TwoPrestige | PillarBonus::LevelPrestige => {
                let points = if bonus == PillarBonus::TwoPrestige {
                    2
                } else {
                    u32::from(level)
                };
                let reason = ScoreReason::Pillar {
                    tower: tower_id,
                    pillar,
                    bonus,
                    level,
                };
                self.add_score(player, points, reason, events);
            }
            PillarBonus::ExtraMeeple | PillarBonus::Spell => {
                let bonus_pending = PendingBonus {
                    bonus,
                    tower: tower_id,
                    spell: SpellId::for_value(placed.value),
                };
                match self.bonus_unavailable(player, &bonus_pending) {
                    Some(why) => events.add(|| Event::BonusNoEffect {
                        player,
                        bonus,
                        why: why.describe(player),
                    }),
                    None => pending = Some(bonus_pending),
                }
            }
        }
        // A pending bonus is resolved before the floor is scored, so only then is the floor
        // listed; else it is scored at once (without a list: most turns of a playout).
        let full = self.tower(tower_id).is_full();
        match pending {
            Some(pending) => {
                if let Some(turn) = self.turn_mut() {
                    turn.pending = Some(pending);
                    if full {
                        turn.completed.push(tower_id);
                    }
                }
            }
            None if full => self.score_floor(tower_id, events),
            None => {}
        }
    }

    /// Why a bonus cannot be used at all, if it cannot.
    fn bonus_unavailable(&self, player: PlayerColor, pending: &PendingBonus) -> Option<NoEffect> {
        let me = self.player(player)?;
        let space_free = me.spell(pending.spell).is_none();
        match pending.bonus {
            PillarBonus::Spell if !space_free => Some(NoEffect::SpaceTaken(pending.spell)),
            PillarBonus::Spell if me.reserve_is_empty() => Some(NoEffect::ReserveEmpty),
            PillarBonus::Spell => None,
            _ if me.reserve_is_empty() && me.spellbook_meeples() == 0 => Some(NoEffect::NoMeeple),
            // The other towers are only looked at when the spellbook space is taken.
            _ if space_free => None,
            _ => {
                let open_elsewhere = self
                    .towers
                    .iter()
                    .any(|t| t.id != pending.tower && t.open_pillar_count() > 0);
                (!open_elsewhere).then_some(NoEffect::NowhereToGo(pending.spell))
            }
        }
    }

    fn apply_bonus(&mut self, from: MeepleSource, to: BonusTarget, events: &mut impl EventLog) {
        let Some(turn) = self.turn_mut() else {
            return;
        };
        let Some(pending) = turn.pending.take() else {
            return;
        };
        let player = turn.player;
        if matches!(to, BonusTarget::Spellbook) {
            turn.arrived[pending.spell.index()] = true;
        }
        let me = self.current_player_mut();
        let rank = match from {
            MeepleSource::Reserve(rank) => {
                me.take(rank);
                rank
            }
            MeepleSource::Spellbook(spell) => me.spellbook[spell.index()]
                .take()
                .unwrap_or(Rank::Apprentice),
        };
        let meeple = Meeple { player, rank };
        let mut spell = None;
        match to {
            BonusTarget::Spellbook => {
                me.spellbook[pending.spell.index()] = Some(rank);
                spell = Some(pending.spell);
            }
            BonusTarget::Pillar { tower, pillar } => {
                self.tower_mut(tower).set_pillar(
                    pillar,
                    Pillar {
                        die: None,
                        meeple: Some(meeple),
                    },
                );
                if self.tower(tower).is_full()
                    && let Some(turn) = self.turn_mut()
                {
                    turn.completed.push(tower);
                }
            }
        }
        if let MeepleSource::Spellbook(left) = from {
            self.spell_left(player, left);
        }
        if let Some(arrived) = spell {
            self.spell_arrived(player, arrived);
        }
        events.add(|| Event::BonusMeeple {
            meeple,
            from,
            to,
            spell,
        });
        self.score_completed(events);
    }

    fn apply_cast(
        &mut self,
        player: PlayerColor,
        effect: SpellEffect,
        via_manipulation: bool,
        events: &mut impl EventLog,
    ) {
        let caster = if via_manipulation {
            SpellId::Manipulation
        } else {
            effect.spell()
        };
        let me = self.current_player_mut();
        if let Some(rank) = me.spellbook[caster.index()].take() {
            me.give(rank);
        }
        self.spell_left(player, caster);
        match effect {
            SpellEffect::Change { direction } => {
                if let Some(turn) = self.turn_mut() {
                    turn.change = turn.change.saturating_add(direction.delta());
                }
            }
            SpellEffect::Metamorphosis { color } => {
                if let Some(turn) = self.turn_mut() {
                    turn.metamorphosis = Some(color);
                }
            }
            SpellEffect::Flip { die } => {
                if let Some(d) = self.roll.iter_mut().find(|d| **d == die) {
                    d.value = d.value.opposite();
                    self.roll_changed();
                }
            }
            SpellEffect::Exchange { rolled, pool } => {
                let r = self.roll.iter().position(|d| *d == rolled);
                let p = self.mana_pool.iter().position(|d| *d == pool);
                if let (Some(r), Some(p)) = (r, p) {
                    std::mem::swap(&mut self.roll[r], &mut self.mana_pool[p]);
                    self.roll_changed();
                }
            }
            SpellEffect::Permutation { rolled, pillar } => {
                let r = self.roll.iter().position(|d| *d == rolled);
                // A swap of dice leaves what the central tower accepts as it was: any die
                // while a pillar is empty.
                let central = &mut self.towers[TowerId::Central.index()].pillars[pillar.index()];
                if let (Some(r), Some(Pillar { die: Some(d), .. })) = (r, central.as_mut()) {
                    std::mem::swap(&mut self.roll[r], d);
                    self.roll_changed();
                }
            }
        }
        events.add(|| Event::SpellCast {
            player,
            effect,
            via_manipulation,
        });
    }

    fn add_score(
        &mut self,
        player: PlayerColor,
        points: u32,
        reason: ScoreReason,
        events: &mut impl EventLog,
    ) {
        let entry = ScoreEntry {
            player,
            points,
            round: self.round,
            reason,
        };
        self.record_score(entry, events);
    }

    fn record_score(&mut self, entry: ScoreEntry, events: &mut impl EventLog) {
        let prestige = &mut self.player_mut(entry.player).prestige;
        *prestige = prestige.saturating_add(entry.points);
        events.add(|| Event::Scored(entry.clone()));
        self.ledger.push(entry);
    }

    /// Scores the floors completed this turn, in the order they were completed.
    fn score_completed(&mut self, events: &mut impl EventLog) {
        let Some(turn) = self.turn_mut() else {
            return;
        };
        for tower in std::mem::take(&mut turn.completed) {
            self.score_floor(tower, events);
        }
    }

    /// Scores a complete floor, sends meeples home, and builds the next floor.
    fn score_floor(&mut self, id: TowerId, events: &mut impl EventLog) {
        let tower = self.tower(id);
        let level = tower.level;
        let table = if id.is_central() {
            CENTRAL_FLOOR
        } else {
            OUTER_FLOOR
        };
        let awards = award(influence(tower.meeples()), table);
        events.add(|| Event::FloorCompleted { tower: id, level });
        let entries = floor_entries(awards, self.round, |a| ScoreReason::Floor {
            tower: id,
            level,
            influence: a.influence,
            placing: a.placing,
        });
        for entry in entries {
            self.record_score(entry, events);
        }
        // Meeples beside dice go back to their owners; meeples alone stay for good. One walk
        // over the pillars gives the meeples back (floors are scored many times in every
        // playout); the lists are only made for the events and the foundation.
        let pillars = self.tower(id).pillars;
        // The meeples beside a die (`true`: they go back) or alone (`false`: they stay).
        let meeples = |beside_die: bool| {
            pillars
                .iter()
                .flatten()
                .filter(move |p| p.die.is_some() == beside_die)
                .filter_map(|p| p.meeple)
        };
        let (mut any_returned, mut any_staying) = (false, false);
        for pillar in pillars.iter().flatten() {
            match (pillar.die, pillar.meeple) {
                (Some(_), Some(meeple)) => {
                    self.player_mut(meeple.player).give(meeple.rank);
                    any_returned = true;
                }
                (None, Some(_)) => any_staying = true,
                _ => {}
            }
        }
        if any_returned {
            events.add(|| Event::MeeplesReturned {
                tower: id,
                meeples: meeples(true).collect(),
            });
        }
        if any_staying {
            events.add(|| Event::MeeplesStay {
                tower: id,
                meeples: meeples(false).collect(),
            });
        }
        let next_tile = self.stack.pop();
        let tower = self.tower_mut(id);
        match next_tile {
            Some(tile) => {
                tower
                    .buried_dice
                    .extend(pillars.iter().flatten().filter_map(|p| p.die));
                if any_staying {
                    tower.foundation.extend(meeples(false));
                }
                tower.pillars = [None; 3];
                tower.level += 1;
                // Laid on the emptied floor: what the tower accepts is worked out from both.
                tower.lay(tile);
                events.add(|| Event::NewFloor {
                    tower: id,
                    level: tower.level,
                    tile: tower.tile.clone(),
                });
            }
            None => {
                // The last floor stays on top: its dice and lone meeples remain visible.
                tower.finish();
                events.add(|| Event::TowerFinished { tower: id });
            }
        }
    }

    fn next_turn(&mut self, events: &mut impl EventLog) {
        let next = self.turn_in_round + 1;
        if next < turns_per_round(self.players.len()) {
            self.begin_turn(next);
            return;
        }
        self.turn_in_round = next;
        self.end_turns();
        // The first die left joins the mana pool, the others go back to the bag (read in
        // place: the roll is emptied below).
        if let Some((&mana_die, back_to_bag)) = self.roll.split_first() {
            for die in back_to_bag {
                self.bag.add(die.color);
            }
            self.mana_pool.push(mana_die);
            events.add(|| Event::RoundEnded {
                round: self.round,
                mana_die,
                back_to_bag: back_to_bag.to_vec(),
            });
            self.roll.clear();
            self.roll_changed();
        }
        if self.round >= self.rounds {
            let score = final_score(self, self.round);
            for entry in &score.entries {
                let prestige = &mut self.player_mut(entry.player).prestige;
                *prestige = prestige.saturating_add(entry.points);
                self.ledger.push(entry.clone());
            }
            events.add(|| Event::GameEnded(score.clone()));
            self.phase = Phase::Over(Box::new(score));
            return;
        }
        self.round += 1;
        self.first_seat = (self.first_seat + 1) % self.players.len();
        self.turn_in_round = 0;
        self.phase = Phase::Roll;
    }
}

fn no_pending(turn: &Turn) -> Result<(), Violation> {
    match turn.pending {
        Some(pending) => Err(Violation::BonusPending {
            player: turn.player,
            bonus: pending.bonus,
            tower: pending.tower,
        }),
        None => Ok(()),
    }
}

/// The turn as the move generator sees it ([`GameState::turn_view`]): what every legal
/// decision of a step is weighed against, worked out once rather than for each decision.
pub(crate) struct TurnView<'a> {
    pub(crate) turn: &'a Turn,
    /// The player whose turn it is.
    me: &'a PlayerState,
    /// The kinds of die on the table that each tower takes from the placement, by
    /// [`TowerId::index`]: its [`GameState::tower_accepts`] as the pending Change and
    /// Metamorphosis make the dice count.
    takes: [DieKinds; 4],
    /// How many ranks the reserve holds (0 to 2).
    ranks: usize,
    cast_outlook: CastOutlook,
}

impl TurnView<'_> {
    /// Whether the player can still place: not yet placed this turn.
    #[inline]
    fn may_place(&self) -> bool {
        self.turn.placed.is_none() && self.turn.pending.is_none()
    }

    /// The placements of one die on `tower`: its empty pillars times the ranks in the reserve.
    #[inline]
    fn block_size(&self, tower: &Tower) -> usize {
        tower.open_pillar_count() * self.ranks
    }
}

/// A block of legal decisions that are not placements
/// ([`GameState::for_each_other_block`]).
#[derive(Clone, Copy, Debug)]
pub(crate) enum OtherBlock {
    /// The ways to resolve `PendingBonus`, counted by [`GameState::bonus_action_count`].
    Bonus(PendingBonus),
    /// Casting `spell`, one decision per effect that
    /// [`GameState::for_each_castable_effect`] lists.
    Casts {
        spell: SpellId,
        via_manipulation: bool,
    },
    /// Taking the meeple on a spell back to the empty reserve.
    Recall(SpellId),
    EndTurn,
}

/// What the spells of a decision are weighed against, found once for all of them: the kinds
/// of die some tower takes ([`GameState::accepted`]) and the dice that fit
/// ([`GameState::dice_fitting`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct CastOutlook {
    accepted: DieKinds,
    fitting: usize,
}

/// How the next placement of the turn sees a die: the pending Change and Metamorphosis (or
/// those a spell being considered would leave).
#[derive(Clone, Copy, Debug)]
struct Outlook {
    change: i8,
    metamorphosis: Option<DieColor>,
}

impl Outlook {
    fn of(turn: &Turn) -> Self {
        Self {
            change: turn.change,
            metamorphosis: turn.metamorphosis,
        }
    }

    /// The kinds of `kinds` (of the dice on the table) that each tower takes, as the
    /// restriction would count them, given the kinds each accepts (`accepts`, by
    /// [`TowerId::index`]).
    #[inline]
    fn kinds_taken(&self, kinds: DieKinds, accepts: [DieKinds; 4]) -> [DieKinds; 4] {
        if self.change == 0 && self.metamorphosis.is_none() {
            // Every die counts as itself (the usual case before placing).
            return accepts.map(|accepted| kinds.intersection(accepted));
        }
        accepts.map(|accepted| kinds.intersection(self.kinds_counting_as(accepted)))
    }

    /// The kinds of die that count as one of `accepted` for the restriction, as
    /// [`Outlook::effective_die`] counts each die: those that Change moves into `accepted`
    /// (the kinds moved back), of any colour if Metamorphosis recolours them.
    fn kinds_counting_as(&self, accepted: DieKinds) -> DieKinds {
        let accepted = match self.metamorphosis {
            Some(color) => accepted.spread_from(color),
            None => accepted,
        };
        accepted.offset(self.change.saturating_neg())
    }

    /// The kinds dice of the kinds `kinds` count as for the restriction (those Change would
    /// take out of 1 to 6 left out), as [`Outlook::effective_die`] counts each die.
    fn counted_kinds(&self, kinds: DieKinds) -> DieKinds {
        let moved = kinds.offset(self.change);
        match self.metamorphosis {
            Some(color) => moved.recoloured(color),
            None => moved,
        }
    }

    /// Whether `die`, as the restriction would count it, is of a kind in `accepted`.
    fn fits(&self, die: Die, accepted: DieKinds) -> bool {
        self.effective_die(die)
            .is_some_and(|(_, counted)| accepted.contains(counted))
    }

    /// The die as it lands on the pillar (Change turns it) and as the restriction sees it
    /// (Metamorphosis recolours it); `None` when Change would take it out of 1 to 6.
    fn effective_die(&self, die: Die) -> Option<(Die, Die)> {
        let value = die.value.offset(self.change)?;
        let placed = Die::new(die.color, value);
        let counted = Die::new(self.metamorphosis.unwrap_or(die.color), value);
        Some((placed, counted))
    }
}

/// The distinct dice of a list, in first-seen order (identical dice are interchangeable).
/// The kinds seen so far are kept as a set rather than looked for in the list: the move
/// generator asks at every step, for the roll and for every die of the roll in the mana pool.
fn distinct(dice: &[Die]) -> impl Iterator<Item = Die> + '_ {
    let mut seen = DieKinds::NONE;
    dice.iter().copied().filter(move |&die| {
        let first = !seen.contains(die);
        seen = seen.union(DieKinds::of_die(die));
        first
    })
}

/// Why a pillar's bonus has no effect.
#[derive(Clone, Copy, Debug)]
enum NoEffect {
    SpaceTaken(SpellId),
    ReserveEmpty,
    NoMeeple,
    NowhereToGo(SpellId),
}

impl NoEffect {
    fn describe(self, player: PlayerColor) -> String {
        match self {
            Self::SpaceTaken(spell) => format!("{player} already has a meeple on {spell}"),
            Self::ReserveEmpty => format!("{player} has no meeple left in the reserve"),
            Self::NoMeeple => {
                format!("{player} has no meeple in the reserve or on the spellbook")
            }
            Self::NowhereToGo(spell) => {
                format!("no other tower has an empty pillar and {spell} is taken")
            }
        }
    }
}

/// Where applying an action tells what happened: a list for
/// [`GameState::play_with_events`], nowhere for [`GameState::play`], which then spends no
/// time describing it.
trait EventLog {
    fn add(&mut self, event: impl FnOnce() -> Event);
}

impl EventLog for Vec<Event> {
    fn add(&mut self, event: impl FnOnce() -> Event) {
        self.push(event());
    }
}

/// No log, for [`GameState::play`].
struct NoLog;

impl EventLog for NoLog {
    fn add(&mut self, _: impl FnOnce() -> Event) {}
}
