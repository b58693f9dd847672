//! Playing actions: checking them against the rules, applying them, and listing the legal
//! ones, like a chess move generator.

use crate::action::{Action, BonusTarget, Direction, MeepleSource, SpellEffect};
use crate::components::{
    Die, DieColor, Meeple, Pillar, PillarIndex, PlayerColor, Rank, SpellId, TowerId,
};
use crate::event::Event;
use crate::scoring::{
    CENTRAL_FLOOR, OUTER_FLOOR, ScoreEntry, ScoreReason, award, final_score, floor_entries,
    influence,
};
use crate::state::{GameState, PendingBonus, Phase, Placement, Turn, turns_per_round};
use crate::tiles::PillarBonus;
use crate::violation::{IllegalAction, Violation};

impl GameState {
    /// Plays `action`, or refuses it with the rule it breaks and the unchanged state.
    pub fn play(self, action: &Action) -> Result<Self, IllegalAction> {
        self.play_with_events(action).map(|(state, _)| state)
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
                if turn.placed.is_none() && (self.can_place(turn) || self.can_recall(turn)) {
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
        for color in DieColor::ALL {
            let wanted =
                u8::try_from(dice.iter().filter(|d| d.color == color).count()).unwrap_or(u8::MAX);
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
        // The turn's player is always one of the players.
        let index = self
            .players
            .iter()
            .position(|p| p.color == turn.player)
            .unwrap_or(0);
        &self.players[index]
    }

    /// The die as it lands on the pillar (Change turns it) and as the restriction sees it
    /// (Metamorphosis recolours it).
    fn effective_die(turn: &Turn, die: Die) -> Result<(Die, Die), Violation> {
        let value = die
            .value
            .offset(turn.change)
            .ok_or(Violation::ChangeOutOfRange {
                die,
                delta: turn.change,
            })?;
        let placed = Die::new(die.color, value);
        let counted = Die::new(turn.metamorphosis.unwrap_or(die.color), value);
        Ok((placed, counted))
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
        let (_, counted) = Self::effective_die(turn, die)?;
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
                Ok(())
            }
            SpellEffect::Flip { die } => rolled(die),
            SpellEffect::Exchange { rolled: die, pool } => {
                rolled(die)?;
                if !self.mana_pool.contains(pool) {
                    return Err(Violation::NotInManaPool { die: *pool });
                }
                Ok(())
            }
            SpellEffect::Permutation {
                rolled: die,
                pillar,
            } => {
                rolled(die)?;
                let central = self.tower(TowerId::Central);
                if central.pillar(*pillar).and_then(|p| p.die).is_none() {
                    return Err(Violation::NoDieOnCentralPillar { pillar: *pillar });
                }
                Ok(())
            }
        }
    }

    fn can_place(&self, turn: &Turn) -> bool {
        !self.placements(turn).is_empty()
    }

    fn can_recall(&self, turn: &Turn) -> bool {
        let me = self.current(turn);
        me.reserve_is_empty() && me.spellbook_meeples() > 0
    }

    /// Every legal placement this turn.
    fn placements(&self, turn: &Turn) -> Vec<Action> {
        let mut actions = Vec::new();
        if turn.pending.is_some() || turn.placed.is_some() {
            return actions;
        }
        let me = self.current(turn);
        let ranks: Vec<Rank> = me.reserve_ranks().collect();
        if ranks.is_empty() {
            return actions;
        }
        for die in distinct(&self.roll) {
            let Ok((_, counted)) = Self::effective_die(turn, die) else {
                continue;
            };
            for tower in &self.towers {
                let fits = tower
                    .restriction()
                    .is_none_or(|r| r.allows(counted, tower.dice()));
                if !fits {
                    continue;
                }
                for pillar in tower.open_pillars() {
                    for &rank in &ranks {
                        actions.push(Action::Place {
                            player: turn.player,
                            die,
                            rank,
                            tower: tower.id,
                            pillar,
                        });
                    }
                }
            }
        }
        actions
    }

    /// Every legal decision of the player whose turn it is. Empty while the dice are to be
    /// rolled and once the game is over. Observations of the physical table (the roll, the
    /// tile drawn for a new floor) are not decisions and are never listed: check them with
    /// [`GameState::is_legal`].
    pub fn legal_actions(&self) -> Vec<Action> {
        let Phase::Turn(turn) = &self.phase else {
            return Vec::new();
        };
        let player = turn.player;
        let me = self.current(turn);
        if let Some(pending) = turn.pending {
            let mut sources: Vec<MeepleSource> =
                me.reserve_ranks().map(MeepleSource::Reserve).collect();
            if pending.bonus == PillarBonus::ExtraMeeple && me.reserve_is_empty() {
                sources.extend(
                    SpellId::ALL
                        .into_iter()
                        .filter(|&s| me.spell(s).is_some())
                        .map(MeepleSource::Spellbook),
                );
            }
            let mut targets = Vec::new();
            if me.spell(pending.spell).is_none() {
                targets.push(BonusTarget::Spellbook);
            }
            if pending.bonus == PillarBonus::ExtraMeeple {
                for tower in self.towers.iter().filter(|t| t.id != pending.tower) {
                    targets.extend(tower.open_pillars().map(|pillar| BonusTarget::Pillar {
                        tower: tower.id,
                        pillar,
                    }));
                }
            }
            let mut actions: Vec<Action> = sources
                .iter()
                .flat_map(|&from| {
                    targets
                        .iter()
                        .map(move |&to| Action::BonusMeeple { player, from, to })
                })
                .collect();
            actions.push(Action::SkipBonus { player });
            return actions;
        }
        let mut actions = self.placements(turn);
        let can_place = !actions.is_empty();
        let casters: Vec<(SpellId, bool)> = if me.spell(SpellId::Manipulation).is_some() {
            SpellId::ALL[1..].iter().map(|&s| (s, true)).collect()
        } else {
            Vec::new()
        };
        let direct = SpellId::ALL[1..]
            .iter()
            .filter(|&&s| me.spell(s).is_some())
            .map(|&s| (s, false));
        for (spell, via_manipulation) in direct.chain(casters) {
            for effect in self.spell_effects(turn, spell) {
                actions.push(Action::Cast {
                    player,
                    effect,
                    via_manipulation,
                });
            }
        }
        if me.reserve_is_empty() {
            actions.extend(
                SpellId::ALL
                    .into_iter()
                    .filter(|&s| me.spell(s).is_some())
                    .map(|spell| Action::Recall { player, spell }),
            );
        }
        if turn.placed.is_some() || !(can_place || self.can_recall(turn)) {
            actions.push(Action::EndTurn { player });
        }
        actions
    }

    fn spell_effects(&self, turn: &Turn, spell: SpellId) -> Vec<SpellEffect> {
        let rolled = distinct(&self.roll);
        match spell {
            SpellId::Manipulation => Vec::new(),
            SpellId::Change if turn.placed.is_none() => [Direction::Up, Direction::Down]
                .map(|direction| SpellEffect::Change { direction })
                .to_vec(),
            SpellId::Metamorphosis if turn.placed.is_none() => DieColor::ALL
                .map(|color| SpellEffect::Metamorphosis { color })
                .to_vec(),
            SpellId::Change | SpellId::Metamorphosis => Vec::new(),
            SpellId::Flip => rolled
                .into_iter()
                .map(|die| SpellEffect::Flip { die })
                .collect(),
            SpellId::Exchange => {
                let pool = distinct(&self.mana_pool);
                rolled
                    .iter()
                    .flat_map(|&r| {
                        pool.iter()
                            .map(move |&p| SpellEffect::Exchange { rolled: r, pool: p })
                    })
                    .collect()
            }
            SpellId::Permutation => {
                let central = self.tower(TowerId::Central);
                rolled
                    .iter()
                    .flat_map(|&r| {
                        PillarIndex::ALL
                            .into_iter()
                            .filter(|&p| central.pillar(p).and_then(|x| x.die).is_some())
                            .map(move |pillar| SpellEffect::Permutation { rolled: r, pillar })
                    })
                    .collect()
            }
        }
    }

    // ----- applying checked actions -----

    fn apply(&mut self, action: &Action, events: &mut Vec<Event>) {
        if let Action::SetTile { tower, tile } = action {
            if let Some(i) = self.stack.iter().position(|t| t.id == *tile) {
                let tower = &mut self.towers[tower.index()];
                std::mem::swap(&mut tower.tile, &mut self.stack[i]);
                events.push(Event::TileSet {
                    tower: tower.id,
                    tile: tower.tile.clone(),
                });
            }
            return;
        }
        if let Action::Roll { dice } = action {
            for die in dice {
                self.bag.take(die.color);
            }
            self.roll = dice.clone();
            events.push(Event::Rolled {
                round: self.round,
                first_player: self.first_player(),
                dice: dice.clone(),
            });
            self.phase = Phase::Turn(Turn::new(self.seat_player(0)));
            return;
        }
        let Phase::Turn(mut turn) = std::mem::replace(&mut self.phase, Phase::Roll) else {
            return;
        };
        match action {
            Action::Roll { .. } | Action::SetTile { .. } => {}
            Action::Place {
                die,
                rank,
                tower,
                pillar,
                ..
            } => self.apply_place(&mut turn, *die, *rank, *tower, *pillar, events),
            Action::BonusMeeple { from, to, .. } => {
                self.apply_bonus(&mut turn, *from, *to, events);
            }
            Action::SkipBonus { player } => {
                if let Some(pending) = turn.pending.take() {
                    events.push(Event::BonusSkipped {
                        player: *player,
                        bonus: pending.bonus,
                    });
                }
                self.score_completed(&mut turn, events);
            }
            Action::Cast {
                player,
                effect,
                via_manipulation,
            } => self.apply_cast(&mut turn, *player, *effect, *via_manipulation, events),
            Action::Recall { player, spell } => {
                let me = self.player_mut(*player);
                if let Some(rank) = me.spellbook[spell.index()].take() {
                    me.give(rank);
                }
                events.push(Event::Recalled {
                    player: *player,
                    spell: *spell,
                });
            }
            Action::EndTurn { player } => {
                events.push(Event::TurnEnded {
                    player: *player,
                    passed: turn.placed.is_none(),
                });
                self.next_turn(events);
                return;
            }
        }
        self.phase = Phase::Turn(turn);
    }

    fn seat_player(&self, turn_in_round: u8) -> PlayerColor {
        let seat = (self.first_seat + usize::from(turn_in_round)) % self.players.len();
        self.players[seat].color
    }

    fn apply_place(
        &mut self,
        turn: &mut Turn,
        die: Die,
        rank: Rank,
        tower_id: TowerId,
        pillar: PillarIndex,
        events: &mut Vec<Event>,
    ) {
        let Ok((placed, counted)) = Self::effective_die(turn, die) else {
            return;
        };
        if let Some(i) = self.roll.iter().position(|d| *d == die) {
            self.roll.remove(i);
        }
        let meeple = Meeple {
            player: turn.player,
            rank,
        };
        self.player_mut(turn.player).take(rank);
        let tower = self.tower_mut(tower_id);
        tower.pillars[pillar.index()] = Some(Pillar {
            die: Some(placed),
            meeple: Some(meeple),
        });
        let bonus = tower.bonus(pillar);
        let level = tower.level;
        turn.placed = Some(Placement {
            die: placed,
            tower: tower_id,
            pillar,
        });
        turn.change = 0;
        turn.metamorphosis = None;
        events.push(Event::Placed {
            meeple,
            die: placed,
            changed_from: (die != placed).then_some(die),
            counted_as: (counted != placed).then_some(counted),
            tower: tower_id,
            pillar,
            bonus,
        });
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
                self.add_score(turn.player, points, reason, events);
            }
            PillarBonus::ExtraMeeple | PillarBonus::Spell => {
                let pending = PendingBonus {
                    bonus,
                    tower: tower_id,
                    spell: SpellId::for_value(placed.value),
                };
                match self.bonus_unavailable(turn.player, &pending) {
                    Some(why) => events.push(Event::BonusNoEffect {
                        player: turn.player,
                        bonus,
                        why,
                    }),
                    None => turn.pending = Some(pending),
                }
            }
        }
        if self.tower(tower_id).is_full() {
            turn.completed.push(tower_id);
        }
        if turn.pending.is_none() {
            self.score_completed(turn, events);
        }
    }

    /// Why a bonus cannot be used at all, if it cannot.
    fn bonus_unavailable(&self, player: PlayerColor, pending: &PendingBonus) -> Option<String> {
        let me = self.player(player)?;
        let space_free = me.spell(pending.spell).is_none();
        match pending.bonus {
            PillarBonus::Spell => {
                if !space_free {
                    Some(format!(
                        "{player} already has a meeple on {}",
                        pending.spell
                    ))
                } else if me.reserve_is_empty() {
                    Some(format!("{player} has no meeple left in the reserve"))
                } else {
                    None
                }
            }
            _ => {
                if me.reserve_is_empty() && me.spellbook_meeples() == 0 {
                    return Some(format!(
                        "{player} has no meeple in the reserve or on the spellbook"
                    ));
                }
                let open_elsewhere = self
                    .towers
                    .iter()
                    .any(|t| t.id != pending.tower && t.open_pillars().next().is_some());
                if !space_free && !open_elsewhere {
                    return Some(format!(
                        "no other tower has an empty pillar and {} is taken",
                        pending.spell
                    ));
                }
                None
            }
        }
    }

    fn apply_bonus(
        &mut self,
        turn: &mut Turn,
        from: MeepleSource,
        to: BonusTarget,
        events: &mut Vec<Event>,
    ) {
        let Some(pending) = turn.pending.take() else {
            return;
        };
        let me = self.player_mut(turn.player);
        let rank = match from {
            MeepleSource::Reserve(rank) => {
                me.take(rank);
                rank
            }
            MeepleSource::Spellbook(spell) => me.spellbook[spell.index()]
                .take()
                .unwrap_or(Rank::Apprentice),
        };
        let meeple = Meeple {
            player: turn.player,
            rank,
        };
        let mut spell = None;
        match to {
            BonusTarget::Spellbook => {
                me.spellbook[pending.spell.index()] = Some(rank);
                spell = Some(pending.spell);
            }
            BonusTarget::Pillar { tower, pillar } => {
                self.tower_mut(tower).pillars[pillar.index()] = Some(Pillar {
                    die: None,
                    meeple: Some(meeple),
                });
                if self.tower(tower).is_full() {
                    turn.completed.push(tower);
                }
            }
        }
        events.push(Event::BonusMeeple {
            meeple,
            from,
            to,
            spell,
        });
        self.score_completed(turn, events);
    }

    fn apply_cast(
        &mut self,
        turn: &mut Turn,
        player: PlayerColor,
        effect: SpellEffect,
        via_manipulation: bool,
        events: &mut Vec<Event>,
    ) {
        let caster = if via_manipulation {
            SpellId::Manipulation
        } else {
            effect.spell()
        };
        let me = self.player_mut(player);
        if let Some(rank) = me.spellbook[caster.index()].take() {
            me.give(rank);
        }
        match effect {
            SpellEffect::Change { direction } => turn.change += direction.delta(),
            SpellEffect::Metamorphosis { color } => turn.metamorphosis = Some(color),
            SpellEffect::Flip { die } => {
                if let Some(d) = self.roll.iter_mut().find(|d| **d == die) {
                    d.value = d.value.opposite();
                }
            }
            SpellEffect::Exchange { rolled, pool } => {
                let r = self.roll.iter().position(|d| *d == rolled);
                let p = self.mana_pool.iter().position(|d| *d == pool);
                if let (Some(r), Some(p)) = (r, p) {
                    std::mem::swap(&mut self.roll[r], &mut self.mana_pool[p]);
                }
            }
            SpellEffect::Permutation { rolled, pillar } => {
                let r = self.roll.iter().position(|d| *d == rolled);
                let central = &mut self.towers[TowerId::Central.index()].pillars[pillar.index()];
                if let (Some(r), Some(Pillar { die: Some(d), .. })) = (r, central.as_mut()) {
                    std::mem::swap(&mut self.roll[r], d);
                }
            }
        }
        events.push(Event::SpellCast {
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
        events: &mut Vec<Event>,
    ) {
        let entry = ScoreEntry {
            player,
            points,
            round: self.round,
            reason,
        };
        self.record_score(entry, events);
    }

    fn record_score(&mut self, entry: ScoreEntry, events: &mut Vec<Event>) {
        self.player_mut(entry.player).prestige += entry.points;
        self.ledger.push(entry.clone());
        events.push(Event::Scored(entry));
    }

    /// Scores the floors completed this turn, in the order they were completed.
    fn score_completed(&mut self, turn: &mut Turn, events: &mut Vec<Event>) {
        for tower in std::mem::take(&mut turn.completed) {
            self.score_floor(tower, events);
        }
    }

    /// Scores a complete floor, sends meeples home, and builds the next floor.
    fn score_floor(&mut self, id: TowerId, events: &mut Vec<Event>) {
        let tower = self.tower(id);
        let level = tower.level;
        let table = if id.is_central() {
            CENTRAL_FLOOR
        } else {
            OUTER_FLOOR
        };
        let awards = award(&influence(tower.meeples()), table);
        events.push(Event::FloorCompleted { tower: id, level });
        for entry in floor_entries(&awards, self.round, |a| ScoreReason::Floor {
            tower: id,
            level,
            influence: a.influence,
            placing: a.placing,
        }) {
            self.record_score(entry, events);
        }
        let mut returned = Vec::new();
        let mut staying = Vec::new();
        for pillar in self.tower_mut(id).pillars.iter_mut().flatten() {
            match (pillar.die, pillar.meeple) {
                (Some(_), Some(meeple)) => {
                    returned.push(meeple);
                    pillar.meeple = None;
                }
                (None, Some(meeple)) => staying.push(meeple),
                _ => {}
            }
        }
        for meeple in &returned {
            self.player_mut(meeple.player).give(meeple.rank);
        }
        if !returned.is_empty() {
            events.push(Event::MeeplesReturned {
                tower: id,
                meeples: returned,
            });
        }
        if !staying.is_empty() {
            events.push(Event::MeeplesStay {
                tower: id,
                meeples: staying.clone(),
            });
        }
        let next_tile = self.stack.pop();
        let tower = self.tower_mut(id);
        match next_tile {
            Some(tile) => {
                let dice: Vec<Die> = tower.dice().collect();
                tower.buried_dice.extend(dice);
                tower.foundation.extend(staying);
                tower.pillars = [None; 3];
                tower.level += 1;
                tower.tile = tile.clone();
                events.push(Event::NewFloor {
                    tower: id,
                    level: tower.level,
                    tile,
                });
            }
            None => {
                // The last floor stays on top: its dice and lone meeples remain visible.
                tower.finished = true;
                events.push(Event::TowerFinished { tower: id });
            }
        }
    }

    fn next_turn(&mut self, events: &mut Vec<Event>) {
        self.turn_in_round += 1;
        if self.turn_in_round < turns_per_round(self.players.len()) {
            self.phase = Phase::Turn(Turn::new(self.seat_player(self.turn_in_round)));
            return;
        }
        let mut leftover = std::mem::take(&mut self.roll);
        if !leftover.is_empty() {
            let mana_die = leftover.remove(0);
            for die in &leftover {
                self.bag.add(die.color);
            }
            self.mana_pool.push(mana_die);
            events.push(Event::RoundEnded {
                round: self.round,
                mana_die,
                back_to_bag: leftover,
            });
        }
        if self.round >= self.rounds {
            let score = final_score(&self.table(), self.round);
            for entry in &score.entries {
                self.player_mut(entry.player).prestige += entry.points;
                self.ledger.push(entry.clone());
            }
            events.push(Event::GameEnded(score.clone()));
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

/// The distinct dice of a list, in first-seen order (identical dice are interchangeable).
fn distinct(dice: &[Die]) -> Vec<Die> {
    let mut seen: Vec<Die> = Vec::with_capacity(dice.len());
    for &die in dice {
        if !seen.contains(&die) {
            seen.push(die);
        }
    }
    seen
}
