//! What a game state implies the camera should see, what a settled frame did see, and how
//! the two differ.
//!
//! Compared: the top floor of each tower (its level, and the die and meeple on each pillar),
//! the dice of the roll and of the mana pool, and the meeples on the spellbooks. Buried dice
//! and foundation meeples are checked only one way: what is seen below a top floor must be
//! buried there (they are mostly hidden). Reserves are not compared: players hold meeples in
//! their hands, and the reserve follows from everything else (conservation). What is not
//! seen at all on a pillar, in the roll or in the mana pool does not count either (it may lie
//! behind a taller tower or another die); what is seen where the game has nothing does.

use std::collections::BTreeMap;

use rules::{
    Action, BonusTarget, Die, DieColor, GameState, Meeple, PillarIndex, PlayerColor, SpellId,
    TowerId,
};

use crate::observation::{Observation, Place};

/// A die as the comparison sees it: uncertain dice match any die of their colour, else of
/// the second colour the reader gave them a fair chance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Reading {
    pub die: Die,
    pub uncertain: bool,
    /// For a die read unsure, the likeliest other colour of the game when the reader gave
    /// it at least [`OR_COLOR`] (blue and purple look alike in dim light, and under a
    /// meeple that hides most of the die's top).
    pub or_color: Option<DieColor>,
}

/// The probability the reader must give a second colour for an unsure die to match a die
/// of that colour too: one chance in five.
pub(crate) const OR_COLOR: f32 = 0.2;

impl Reading {
    /// How well this reading fits a die of `color`: 0 its own colour, 1 (read unsure) the
    /// second colour the reader gave it, else not at all.
    pub(crate) fn fits(&self, color: DieColor) -> Option<u8> {
        match color {
            c if c == self.die.color => Some(0),
            c if self.or_color == Some(c) => Some(1),
            _ => None,
        }
    }
}

/// A meeple as the comparison sees it: an uncertain reading matches a meeple of its player
/// of either rank (the reader tells an apprentice from a master by a star a few pixels
/// wide).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct MeepleReading {
    pub meeple: Meeple,
    pub uncertain: bool,
}

/// Where a meeple put on the table stands: a pillar of a tower, or a space of its player's
/// spellbook.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Spot {
    Pillar(TowerId, PillarIndex),
    Spellbook(SpellId),
}

/// The visible content of one top-floor pillar.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct PillarLook {
    pub dice: Vec<Die>,
    pub meeples: Vec<Meeple>,
}

impl PillarLook {
    /// The dice of this look not seen among a pillar's `dice` and `meeples` as read, and
    /// the dice read there not in it. A meeple on its die hides the die's top face; the
    /// reader, which learnt that, reads a die unsure under a meeple it sees, but when it
    /// misses the meeple it now and then reads the hidden value surely. So where the game
    /// has a meeple on a die and none is seen there, the dice read there match as if read
    /// unsure, by colour.
    pub(crate) fn dice_difference(
        &self,
        dice: &[Reading],
        meeples: &[MeepleReading],
    ) -> (Vec<Die>, Vec<Die>) {
        if self.dice.is_empty() || self.meeples.is_empty() || !meeples.is_empty() {
            return dice_difference(&self.dice, dice);
        }
        let hidden: Vec<Reading> = (dice.iter())
            .map(|r| Reading {
                uncertain: true,
                ..*r
            })
            .collect();
        dice_difference(&self.dice, &hidden)
    }
}

/// What the rules say the table shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Expected {
    pub levels: [u8; 4],
    pub pillars: [[PillarLook; 3]; 4],
    pub buried: [Vec<Die>; 4],
    pub foundation: [Vec<Meeple>; 4],
    pub tiles: [String; 4],
    pub roll: Vec<Die>,
    pub pool: Vec<Die>,
    pub spellbooks: BTreeMap<(PlayerColor, SpellId), Vec<Meeple>>,
    /// How many meeples each player has in the reserve.
    pub reserves: BTreeMap<PlayerColor, usize>,
}

impl Expected {
    pub fn of(state: &GameState) -> Self {
        let towers = state.towers();
        let pillars = towers.each_ref().map(|tower| {
            PillarIndex::ALL.map(|p| {
                let content = tower.pillar(p);
                PillarLook {
                    dice: content.and_then(|c| c.die).into_iter().collect(),
                    meeples: content.and_then(|c| c.meeple).into_iter().collect(),
                }
            })
        });
        let mut spellbooks = BTreeMap::new();
        let reserves = (state.players().iter())
            .map(|p| (p.color, usize::from(p.reserve_count())))
            .collect();
        for player in state.players() {
            for spell in SpellId::ALL {
                if let Some(rank) = player.spell(spell) {
                    let meeple = Meeple {
                        player: player.color,
                        rank,
                    };
                    spellbooks.insert((player.color, spell), vec![meeple]);
                }
            }
        }
        Self {
            levels: towers.each_ref().map(|t| t.level),
            pillars,
            buried: towers.each_ref().map(|t| sorted(t.buried_dice.clone())),
            foundation: towers.each_ref().map(|t| sorted(t.foundation.clone())),
            tiles: towers.each_ref().map(|t| t.tile.id.clone()),
            roll: sorted(state.roll().to_vec()),
            pool: sorted(state.mana_pool().to_vec()),
            spellbooks,
            reserves,
        }
    }

    /// The table of `before` as the players leave it right after `action`, before a floor
    /// it completed is scored: the die and meeple (or the lone meeple) on the pillar, the
    /// meeples still beside the dice. `None` for actions that complete nothing.
    pub fn before_scoring(before: &GameState, action: &Action) -> Option<Self> {
        let mut table = Self::of(before);
        match action {
            Action::Place {
                player,
                die,
                rank,
                tower,
                pillar,
            } => {
                let change = before.turn().map_or(0, |t| t.change);
                let placed = Die::new(die.color, die.value.offset(change)?);
                remove(&mut table.roll, die)?;
                let look = &mut table.pillars[tower.index()][pillar.index()];
                look.dice.push(placed);
                look.meeples.push(Meeple {
                    player: *player,
                    rank: *rank,
                });
            }
            Action::BonusMeeple { player, from, to } => {
                let rank = match from {
                    rules::MeepleSource::Reserve(rank) => *rank,
                    rules::MeepleSource::Spellbook(spell) => {
                        table.spellbooks.remove(&(*player, *spell))?.first()?.rank
                    }
                };
                let meeple = Meeple {
                    player: *player,
                    rank,
                };
                match to {
                    BonusTarget::Pillar { tower, pillar } => {
                        table.pillars[tower.index()][pillar.index()]
                            .meeples
                            .push(meeple);
                    }
                    BonusTarget::Spellbook => {
                        let spell = before.turn()?.pending?.spell;
                        table
                            .spellbooks
                            .entry((*player, spell))
                            .or_default()
                            .push(meeple);
                    }
                }
            }
            Action::SkipBonus { .. } => {}
            _ => return None,
        }
        Some(table)
    }
}

fn permille(probability: f32) -> u16 {
    (probability.clamp(0.0, 1.0) * 1000.0).round() as u16
}

fn sorted<T: Ord>(mut items: Vec<T>) -> Vec<T> {
    items.sort();
    items
}

fn remove<T: PartialEq>(items: &mut Vec<T>, item: &T) -> Option<()> {
    let i = items.iter().position(|x| x == item)?;
    items.remove(i);
    Some(())
}

/// A piece seen on a tower.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Piece {
    Die(Reading),
    Meeple(MeepleReading),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct TowerPiece {
    /// The floor it stands on; `None` on the top floor of whatever state the table is
    /// compared with (a camera's reading: see [`Observation::levels_assumed`]).
    pub level: Option<u8>,
    pub pillar: PillarIndex,
    pub buried: bool,
    pub piece: Piece,
}

impl TowerPiece {
    /// Whether the piece stands on `pillar` of the floor at `level`, not buried there.
    fn stands_on(&self, level: u8, pillar: PillarIndex) -> bool {
        self.on_level(level) && (self.pillar, self.buried) == (pillar, false)
    }

    /// Whether the piece is on the floor at `level` (a piece on the top floor, its level
    /// not read, is on every top floor).
    fn on_level(&self, level: u8) -> bool {
        self.level.is_none_or(|l| l == level)
    }
}

/// A pillar of a tower's top floor: the tower, the floor's level, the pillar.
pub(crate) type TopPillar = (TowerId, u8, PillarIndex);

/// What a settled frame shows, sorted by place.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Seen {
    pub towers: [Vec<TowerPiece>; 4],
    /// In the order the reading lists them (the roll's order when it is confirmed).
    pub roll: Vec<Reading>,
    pub pool: Vec<Reading>,
    pub spellbooks: BTreeMap<(PlayerColor, SpellId), Vec<MeepleReading>>,
    /// Tiles read on floors, by tower and level.
    pub tiles: BTreeMap<(TowerId, u8), String>,
    /// Meeples seen in each reserve (not compared: only a tie-breaker).
    pub reserves: BTreeMap<PlayerColor, Vec<Meeple>>,
    /// Dice read surely in the roll area by the earlier settled tables of the same throw
    /// (each as many times as one of those tables showed it): they stand in for dice of the
    /// roll this table does not show or reads unsure. Only ever fills the roll read here up
    /// to its size; never compared.
    pub roll_before: Vec<Die>,
    /// The dice read unsure, with the reader's confidence in its guess (per mille): only a
    /// tie-breaker ([`Seen::doubted_guesses`]).
    pub unsure_dice: Vec<UnsureDie>,
}

/// A die read unsure: where, the reader's guess, and how sure of it the reader was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct UnsureDie {
    pub place: Place,
    pub guess: Die,
    pub confidence_permille: u16,
    /// The reader's probability of each value, 1 to 6, per mille, where it gave them.
    pub value_permille: Option<[u16; 6]>,
    /// The same of each colour of the game (`DieColor::ALL`).
    pub color_permille: Option<[u16; 4]>,
}

impl Seen {
    /// This table with what the rules say must be misread put right, in the order to try
    /// when the table as read is not explained: meeples in place with their known rank,
    /// unsure dice beside lone meeples dropped; a meeple read on an empty spellbook space put
    /// back in the reserve or dropped; the roll's die misread on its pillar or in
    /// the mana pool; both. Only those that differ from the table.
    pub(crate) fn corrected(&self, expected: &Expected) -> Vec<Seen> {
        let known = self.known(expected);
        let differs = known != *self;
        let mut corrected = Vec::new();
        if differs {
            corrected.push(known.clone());
        }
        corrected.extend(known.without_spellbook_meeple(expected));
        corrected.extend(self.with_roll_die_misread(expected));
        if differs {
            corrected.extend(known.with_roll_die_misread(expected));
        }
        corrected
    }

    /// This table with the meeples in place in their known rank and the unsure dice beside
    /// lone meeples dropped: the first correction, and the ground of the others.
    fn known(&self, expected: &Expected) -> Seen {
        let mut known = self.clone();
        known.keep_known_ranks(expected);
        known.drop_dice_beside_lone_meeples(expected);
        known
    }

    /// This table (meeples in place with their known rank) without the dice read unsure on
    /// a top floor's pillar that the game has empty, beside a meeple seen there: a bonus's
    /// extra meeple arrives alone, and the reader now and then reads a die into a lone
    /// meeple's base (a rendered game held in a desync by such a phantom from the moment
    /// Green's extra meeple landed). Tried after [`Seen::corrected`], for an explanation
    /// only: a move called illegal must not rest on a die dropped as a guess. `None` when
    /// no die is dropped.
    pub(crate) fn without_dice_under_new_meeples(&self, expected: &Expected) -> Option<Seen> {
        let known = self.known(expected);
        let mut lone = known.clone();
        lone.drop_dice_beside_new_meeples(expected);
        (lone != known).then_some(lone)
    }

    fn drop_dice_beside_new_meeples(&mut self, expected: &Expected) {
        for tower in TowerId::ALL {
            let t = tower.index();
            let level = expected.levels[t];
            for pillar in PillarIndex::ALL {
                let look = &expected.pillars[t][pillar.index()];
                let meeple_seen = self.towers[t]
                    .iter()
                    .any(|p| p.stands_on(level, pillar) && matches!(p.piece, Piece::Meeple(_)));
                if look.dice.is_empty() && look.meeples.is_empty() && meeple_seen {
                    self.drop_unsure_dice_on(tower, level, pillar);
                }
            }
        }
    }

    /// Dice read unsure on a top floor's pillar where the game has a lone meeple (one a bonus
    /// put there) are dropped: no move puts a die beside it, and the reader now and then takes
    /// a standing meeple's base for a die, unsure of it (seen in rendered games, where such a
    /// phantom held the referee in a desync). A correction, tried only when the table as
    /// read is not explained and shows no illegal move; a die read surely there stays (the
    /// camera path passes every die on a meeple's pillar on unsure, since the meeple hides
    /// its value, so from a camera this correction can drop any die there).
    fn drop_dice_beside_lone_meeples(&mut self, expected: &Expected) {
        for tower in TowerId::ALL {
            let t = tower.index();
            let level = expected.levels[t];
            for pillar in PillarIndex::ALL {
                let look = &expected.pillars[t][pillar.index()];
                if look.dice.is_empty() && !look.meeples.is_empty() {
                    self.drop_unsure_dice_on(tower, level, pillar);
                }
            }
        }
    }

    /// Drops the dice read unsure on `pillar` of `tower`'s floor at `level`.
    fn drop_unsure_dice_on(&mut self, tower: TowerId, level: u8, pillar: PillarIndex) {
        self.towers[tower.index()].retain(|p| {
            !p.stands_on(level, pillar) || !matches!(p.piece, Piece::Die(r) if r.uncertain)
        });
    }

    /// This table without one meeple seen on a spellbook space the game has empty: put back
    /// in its player's reserve while that reserve shows fewer meeples than the game has
    /// there, else dropped when read unsure. One table for each such space (a bonus may have
    /// put a meeple on another space of the same board meanwhile), then one without all of
    /// them. The reserve row runs along the board's edge, and a far board seen at a shallow
    /// angle puts a meeple's base a few millimetres off in depth (on a rendered game whose
    /// camera found only the near markers, Blue's reserve meeples stood on its spell slots
    /// frame after frame); the reader now and then takes a slot's pips beside the board's
    /// coloured edge for an unsure meeple of that colour.
    fn without_spellbook_meeple(&self, expected: &Expected) -> Vec<Seen> {
        // Takes the meeple off the space in `table`; false when it is neither missing from
        // the reserve nor read unsure.
        let take = |table: &mut Seen, player: PlayerColor, spell: SpellId| {
            let in_reserve = expected.reserves.get(&player).copied().unwrap_or(0);
            let reserve = table.reserves.entry(player).or_default();
            let space = table.spellbooks.entry((player, spell)).or_default();
            let Some(reading) = space.last().copied() else {
                return false;
            };
            if reserve.len() < in_reserve {
                reserve.push(reading.meeple);
            } else if !reading.uncertain {
                return false;
            }
            space.pop();
            if space.is_empty() {
                table.spellbooks.remove(&(player, spell));
            }
            true
        };
        let mut tables: Vec<Seen> = Vec::new();
        let mut all = self.clone();
        for &(player, spell) in self.spellbooks.keys() {
            if expected.spellbooks.contains_key(&(player, spell)) {
                continue;
            }
            let mut table = self.clone();
            if take(&mut table, player, spell) {
                tables.push(table);
                take(&mut all, player, spell);
            }
        }
        if tables.len() > 1 {
            tables.push(all);
        }
        tables
    }

    /// Meeples the game already has on a pillar of a top floor or on a spellbook space,
    /// seen there again with the other rank, take the game's rank: no move changes the rank
    /// of a meeple in place, and the reader tells an apprentice from a master by a star a
    /// few pixels wide (a Recall and a new placement can, so this is a correction, tried
    /// only when the table as read is not explained). A meeple newly seen keeps its rank.
    fn keep_known_ranks(&mut self, expected: &Expected) {
        for tower in TowerId::ALL {
            let t = tower.index();
            let level = expected.levels[t];
            for pillar in PillarIndex::ALL {
                let [known] = expected.pillars[t][pillar.index()].meeples.as_slice() else {
                    continue;
                };
                let mut same_player = self.towers[t].iter_mut().filter(|p| {
                    p.stands_on(level, pillar)
                        && matches!(p.piece, Piece::Meeple(m) if m.meeple.player == known.player)
                });
                if let (Some(piece), None) = (same_player.next(), same_player.next()) {
                    piece.piece = Piece::Meeple(MeepleReading {
                        meeple: *known,
                        uncertain: false,
                    });
                }
            }
        }
        for (place, meeples) in &mut self.spellbooks {
            if let (Some([known]), [seen]) = (
                expected.spellbooks.get(place).map(Vec::as_slice),
                meeples.as_mut_slice(),
            ) && seen.meeple.player == known.player
            {
                *seen = MeepleReading {
                    meeple: *known,
                    uncertain: false,
                };
            }
        }
    }

    /// This table with the dice read on top-floor pillars or in the mana pool put right: each
    /// a die the game has neither there nor in the roll, taken for a die of the roll not seen
    /// in the roll area that shares its value (its colour misread: blue and purple in dim
    /// light) or its colour (its value misread), a different one for each. Dice are
    /// conserved, so those are the dice that moved: to a pillar, or to the mana pool as the
    /// round's last die. `None` when no die needs it, or when the dice read could be the
    /// roll's dice in more than one way (a purple 6 and a yellow 1 read where the purple 3
    /// and the yellow 6 went are one way: the yellow 1 can only be the yellow 6).
    fn with_roll_die_misread(&self, expected: &Expected) -> Option<Seen> {
        let (mut unseen, _) = dice_difference(&expected.roll, &self.roll);
        let mut read = self.dice_arrived(expected);
        // A die of the roll read as itself where it went is not one of those to put right,
        // and no other can be it.
        read.retain(|(_, d)| {
            let as_read = expected.roll.contains(d);
            if let Some(i) = as_read
                .then(|| unseen.iter().position(|u| u == d))
                .flatten()
            {
                unseen.remove(i);
            }
            !as_read
        });
        if read.is_empty() {
            return None;
        }
        let dice: Vec<Die> = read.iter().map(|&(_, d)| d).collect();
        let taken = one_matching(&dice, &unseen)?;
        let fixes = read
            .into_iter()
            .zip(taken)
            .map(|((at, read), die)| (at, read, die));
        let mut fixed = self.clone();
        for (at, read, die) in fixes {
            let reading = Reading {
                die,
                uncertain: false,
                or_color: None,
            };
            match at {
                Some((tower, level, pillar)) => {
                    let piece = fixed.towers[tower.index()].iter_mut().find(|p| {
                        p.stands_on(level, pillar)
                            && matches!(p.piece, Piece::Die(r) if r.die == read)
                    })?;
                    piece.piece = Piece::Die(reading);
                }
                None => *fixed.pool.iter_mut().find(|r| r.die == read)? = reading,
            }
        }
        Some(fixed)
    }

    /// The dice read on top-floor pillars and in the mana pool that the game has not there:
    /// where each is (a pillar, else the mana pool), and the die read.
    pub(crate) fn dice_arrived(&self, expected: &Expected) -> Vec<(Option<TopPillar>, Die)> {
        let mut arrived = Vec::new();
        for tower in TowerId::ALL {
            let level = expected.levels[tower.index()];
            for pillar in PillarIndex::ALL {
                let (dice, meeples) = self.on_pillar(tower, level, pillar);
                let look = &expected.pillars[tower.index()][pillar.index()];
                let (_, extra) = look.dice_difference(&dice, &meeples);
                arrived.extend(extra.into_iter().map(|d| (Some((tower, level, pillar)), d)));
            }
        }
        let (_, extra) = dice_difference(&expected.pool, &self.pool);
        arrived.extend(extra.into_iter().map(|d| (None, d)));
        arrived
    }

    /// The die read unsure as `die` at `at` (a top-floor pillar, else the mana pool);
    /// `None` when it was read surely there.
    pub(crate) fn unsure_at(&self, at: Option<TopPillar>, die: Die) -> Option<&UnsureDie> {
        (self.unsure_dice.iter()).find(|u| {
            u.guess == die
                && match (at, u.place) {
                    (
                        Some((tower, _, pillar)),
                        Place::Tower {
                            tower: t,
                            pillar: p,
                            buried: false,
                            ..
                        },
                    ) => (t, p) == (tower, pillar),
                    (None, Place::ManaPool) => true,
                    _ => false,
                }
        })
    }

    pub fn of(observation: &Observation) -> Self {
        let mut seen = Self::default();
        let level =
            |level: u8, buried: bool| (buried || !observation.levels_assumed).then_some(level);
        for d in &observation.dice {
            let reading = Reading {
                die: d.die,
                uncertain: d.uncertain,
                or_color: d.uncertain.then(|| d.second_color(OR_COLOR)).flatten(),
            };
            if d.uncertain {
                seen.unsure_dice.push(UnsureDie {
                    place: d.place,
                    guess: d.die,
                    confidence_permille: permille(d.confidence),
                    value_permille: d.value_probabilities.map(|p| p.map(permille)),
                    color_permille: d.color_probabilities.map(|p| p.map(permille)),
                });
            }
            match d.place {
                Place::Tower {
                    tower,
                    level: l,
                    pillar,
                    buried,
                } => seen.towers[tower.index()].push(TowerPiece {
                    level: level(l, buried),
                    pillar,
                    buried,
                    piece: Piece::Die(reading),
                }),
                Place::RollArea => seen.roll.push(reading),
                Place::ManaPool => seen.pool.push(reading),
                // A die on a spellbook or in a reserve is in no place of the game: it
                // counts as missing from where it should be.
                Place::Spellbook { .. } | Place::Reserve { .. } | Place::Elsewhere => {}
            }
        }
        for m in &observation.meeples {
            let reading = MeepleReading {
                meeple: m.meeple,
                uncertain: m.uncertain,
            };
            match m.place {
                Place::Tower {
                    tower,
                    level: l,
                    pillar,
                    buried,
                } => {
                    let piece = TowerPiece {
                        level: level(l, buried),
                        pillar,
                        buried,
                        piece: Piece::Meeple(reading),
                    };
                    // A pillar holds one meeple: two readings of one player's meeple there
                    // are that meeple read twice (the reader's boxes of a meeple on its die
                    // now and then split in two), and the sure reading stands.
                    let pieces = &mut seen.towers[tower.index()];
                    let twin = pieces.iter_mut().find(|p| {
                        (p.level, p.pillar, p.buried) == (piece.level, pillar, buried)
                            && matches!(p.piece, Piece::Meeple(o) if o.meeple.player == m.meeple.player)
                    });
                    match twin {
                        Some(twin) => {
                            if matches!(twin.piece, Piece::Meeple(o) if o.uncertain) && !m.uncertain
                            {
                                *twin = piece;
                            }
                        }
                        None => pieces.push(piece),
                    }
                }
                Place::Spellbook { player, spell } => {
                    seen.spellbooks
                        .entry((player, spell))
                        .or_default()
                        .push(reading);
                }
                Place::Reserve { player } => {
                    seen.reserves.entry(player).or_default().push(m.meeple);
                }
                Place::RollArea | Place::ManaPool | Place::Elsewhere => {}
            }
        }
        for floor in &observation.floors {
            seen.tiles
                .insert((floor.tower, floor.level), floor.tile.clone());
        }
        for tower in &mut seen.towers {
            tower.sort();
        }
        seen
    }

    /// The seen pieces on a pillar of a tower's floor at `level`, not buried.
    pub fn on_pillar(
        &self,
        tower: TowerId,
        level: u8,
        pillar: PillarIndex,
    ) -> (Vec<Reading>, Vec<MeepleReading>) {
        self.on_floor(tower, level, pillar, false)
    }

    /// The seen pieces on a pillar of a tower's floor at `level`, buried ones too when
    /// `buried`.
    pub fn on_floor(
        &self,
        tower: TowerId,
        level: u8,
        pillar: PillarIndex,
        buried: bool,
    ) -> (Vec<Reading>, Vec<MeepleReading>) {
        let mut dice = Vec::new();
        let mut meeples = Vec::new();
        for piece in &self.towers[tower.index()] {
            if piece.on_level(level) && piece.pillar == pillar && (buried || !piece.buried) {
                match piece.piece {
                    Piece::Die(d) => dice.push(d),
                    Piece::Meeple(m) => meeples.push(m),
                }
            }
        }
        (dice, meeples)
    }

    /// How far the reserves seen are from those of `state` (players whose reserve is not
    /// seen at all are left out): each meeple seen that the game does not have there counts
    /// two, each one missing one. Two meeples side by side in a reserve are often found as
    /// one, one seldom as two: on the rendered validation scenes, read as a camera reads
    /// them, most missed meeples stand in reserves and no false one does.
    pub fn reserve_difference(&self, state: &GameState) -> usize {
        state
            .players()
            .iter()
            .filter_map(|player| {
                let seen = self.reserves.get(&player.color)?;
                let expected: Vec<Meeple> = player
                    .reserve_ranks()
                    .flat_map(|rank| {
                        let count = match rank {
                            rules::Rank::Apprentice => player.apprentices,
                            rules::Rank::Master => 1,
                        };
                        std::iter::repeat_n(
                            Meeple {
                                player: player.color,
                                rank,
                            },
                            usize::from(count),
                        )
                    })
                    .collect();
                let seen: Vec<MeepleReading> = seen
                    .iter()
                    .map(|&meeple| MeepleReading {
                        meeple,
                        uncertain: false,
                    })
                    .collect();
                let (missing, extra) = meeple_difference(&expected, &seen);
                Some(missing.len() + 2 * extra.len())
            })
            .sum()
    }

    /// Whether some player's meeple on `spell` is no longer seen there.
    pub fn spellbook_emptied(&self, expected: &Expected, spell: SpellId) -> bool {
        expected.spellbooks.iter().any(|(&(player, s), meeples)| {
            s == spell
                && !meeples.is_empty()
                && self
                    .spellbooks
                    .get(&(player, s))
                    .is_none_or(|seen| seen.len() < meeples.len())
        })
    }

    /// This table with every meeple reading taken as sure: the reader's best guesses of
    /// ranks (its guesses of dice are weighed by [`Seen::doubted_guesses`]).
    pub fn best_meeple_guesses(&self) -> Seen {
        let mut sure = self.clone();
        for piece in sure.towers.iter_mut().flatten() {
            if let Piece::Meeple(r) = &mut piece.piece {
                r.uncertain = false;
            }
        }
        for r in sure.spellbooks.values_mut().flatten() {
            r.uncertain = false;
        }
        sure
    }

    /// How much of the reader's confidence in its unsure guesses `expected` contradicts (per
    /// mille, summed): a guess contradicted is a die the game does not have where it was
    /// read. Among explanations that agree as well with the readings, the one that
    /// contradicts only the guesses the reader was least sure of (two pink dice of a roll,
    /// both read unsure, one placed: the one read more surely in the roll area stayed there).
    pub fn doubted_guesses(&self, expected: &Expected) -> u32 {
        let contradicted = |unsure: &UnsureDie| match unsure.place {
            Place::RollArea => !expected.roll.contains(&unsure.guess),
            Place::ManaPool => !expected.pool.contains(&unsure.guess),
            Place::Tower {
                tower,
                pillar,
                buried: false,
                ..
            } => !expected.pillars[tower.index()][pillar.index()]
                .dice
                .contains(&unsure.guess),
            _ => false,
        };
        (self.unsure_dice.iter())
            .filter(|u| contradicted(u))
            .map(|u| u32::from(u.confidence_permille))
            .sum()
    }

    /// Every die read, anywhere, by this table and by the earlier ones of the same throw.
    pub fn dice_read(&self) -> Vec<Die> {
        let pieces = self.towers.iter().flatten().filter_map(|p| match p.piece {
            Piece::Die(d) => Some(d.die),
            Piece::Meeple(_) => None,
        });
        (self.roll.iter().chain(&self.pool))
            .map(|r| r.die)
            .chain(pieces)
            .chain(self.roll_before.iter().copied())
            .collect()
    }

    pub fn roll_dice(&self) -> Vec<Die> {
        self.roll.iter().map(|r| r.die).collect()
    }

    /// The dice read surely in the roll area, by this table and by the earlier ones of the
    /// same throw.
    pub fn sure_roll(&self) -> Vec<Die> {
        let mut sure: Vec<Die> = self
            .roll
            .iter()
            .filter(|r| !r.uncertain)
            .map(|r| r.die)
            .collect();
        let mut before = self.roll_before.clone();
        for die in &sure {
            if let Some(i) = before.iter().position(|d| d == die) {
                before.remove(i);
            }
        }
        sure.extend(before);
        sure
    }

    /// The dice read surely where the game has them: on the top floors' pillars and in the
    /// mana pool (each as many times as both have it). A die of the roll read unsure and
    /// seen so later is known after all.
    pub fn sure_in_place(&self, expected: &Expected) -> Vec<Die> {
        let both = |want: &[Die], got: &[Reading]| {
            let mut left = want.to_vec();
            let mut sure = Vec::new();
            for reading in got.iter().filter(|r| !r.uncertain) {
                if let Some(i) = left.iter().position(|d| *d == reading.die) {
                    sure.push(left.remove(i));
                }
            }
            sure
        };
        let mut sure = both(&expected.pool, &self.pool);
        for tower in TowerId::ALL {
            let level = expected.levels[tower.index()];
            for pillar in PillarIndex::ALL {
                let (dice, _) = self.on_pillar(tower, level, pillar);
                let look = &expected.pillars[tower.index()][pillar.index()];
                sure.extend(both(&look.dice, &dice));
            }
        }
        sure
    }

    /// Whether `meeple` is read surely, in its rank, at `spot` (a pillar: any floor in view;
    /// a space of its player's spellbook).
    pub fn meeple_read_surely(&self, spot: Spot, meeple: Meeple) -> bool {
        let sure = |m: &MeepleReading| m.meeple == meeple && !m.uncertain;
        match spot {
            Spot::Pillar(tower, pillar) => (self.towers[tower.index()].iter()).any(|piece| {
                piece.pillar == pillar
                    && !piece.buried
                    && matches!(&piece.piece, Piece::Meeple(m) if sure(m))
            }),
            Spot::Spellbook(spell) => (self.spellbooks.get(&(meeple.player, spell)))
                .is_some_and(|meeples| meeples.iter().any(sure)),
        }
    }

    /// The colours of the dice seen on the top floors, in the roll area and in the mana
    /// pool that the game does not have there.
    pub fn unexpected_colors(&self, expected: &Expected) -> Vec<DieColor> {
        let mut extra: Vec<Die> = (self.dice_arrived(expected).into_iter())
            .map(|(_, die)| die)
            .collect();
        extra.extend(dice_difference(&expected.roll, &self.roll).1);
        let mut colors: Vec<DieColor> = extra.into_iter().map(|d| d.color).collect();
        colors.sort();
        colors.dedup();
        colors
    }
}

/// Where the table differs from the game, and by how many pieces.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Mismatch {
    pub count: usize,
    /// Pieces the game has on pillars where they are not seen and nothing seen contradicts
    /// the game (a pillar showing nothing may be hidden behind a taller tower, a die under
    /// its meeple): not counted, but a reason to prefer an explanation that needs fewer.
    pub hidden: usize,
    pub pillars: [[bool; 3]; 4],
    /// Towers whose top floor shows nothing at all where the game has pieces, on every
    /// such pillar: hidden, or covered by a new floor that the hand laid at once.
    pub emptied: [bool; 4],
    /// A floor was completed or added (pieces above the top floor, or the top floor buried),
    /// or its tile differs.
    pub towers: [bool; 4],
    pub roll: bool,
    /// Dice of the roll not seen: placed where the table does not show them, or hidden.
    pub roll_unseen: Vec<Die>,
    pub pool: bool,
    pub spells: Vec<(PlayerColor, SpellId)>,
    /// The differences in words, when asked for.
    pub words: Vec<String>,
}

impl Mismatch {
    /// Whether a piece put on `pillar` of `tower` may explain the difference: the tower
    /// differs somewhere (a placement that completes a floor changes every pillar).
    pub fn pillar(&self, tower: TowerId, _pillar: PillarIndex) -> bool {
        self.towers[tower.index()] || self.pillars[tower.index()].iter().any(|&p| p)
    }

    pub fn spell(&self, player: PlayerColor, spell: SpellId) -> bool {
        self.spells.contains(&(player, spell))
    }
}

/// The dice of `expected` not seen, and the seen dice not expected. Uncertain readings
/// match a missing die of their colour (the same die first).
pub(crate) fn dice_difference(expected: &[Die], seen: &[Reading]) -> (Vec<Die>, Vec<Die>) {
    difference(
        expected,
        seen,
        |r| (r.die, r.uncertain),
        |die, r| r.fits(die.color),
    )
}

/// The one way to take each die of `read` for a different die of `unseen` that shares its
/// value or its colour (the dice of `unseen` taken, in `read`'s order; identical dice are
/// one way). `None` when there is no way or more than one.
fn one_matching(read: &[Die], unseen: &[Die]) -> Option<Vec<Die>> {
    fn extend(read: &[Die], left: &mut Vec<Die>, taken: &mut Vec<Die>, ways: &mut Vec<Vec<Die>>) {
        let Some((first, rest)) = read.split_first() else {
            if !ways.contains(taken) {
                ways.push(taken.clone());
            }
            return;
        };
        let mut tried: Vec<Die> = Vec::new();
        for i in 0..left.len() {
            let die = left[i];
            let like = die.value == first.value || die.color == first.color;
            if !like || tried.contains(&die) || ways.len() > 1 {
                continue;
            }
            tried.push(die);
            left.remove(i);
            taken.push(die);
            extend(rest, left, taken, ways);
            taken.pop();
            left.insert(i, die);
        }
    }
    let mut ways = Vec::new();
    extend(read, &mut unseen.to_vec(), &mut Vec::new(), &mut ways);
    let [way] = <[Vec<Die>; 1]>::try_from(ways).ok()?;
    Some(way)
}

/// The meeples of `expected` not seen, and the seen meeples not expected. Uncertain
/// readings match a missing meeple of their player (the same meeple first).
pub(crate) fn meeple_difference(
    expected: &[Meeple],
    seen: &[MeepleReading],
) -> (Vec<Meeple>, Vec<Meeple>) {
    difference(
        expected,
        seen,
        |r| (r.meeple, r.uncertain),
        |meeple, r| (meeple.player == r.meeple.player).then_some(0),
    )
}

/// The pieces of `expected` not seen, and the pieces of the `seen` readings (`piece` gives
/// each one's piece and whether it was read unsure) not expected. Sure readings match their
/// own piece; unsure ones then match the same piece, else the one `alike` the reading best
/// (the lowest rank it gives; `None` for a piece the reading cannot be).
fn difference<T: Copy + PartialEq, R>(
    expected: &[T],
    seen: &[R],
    piece: impl Fn(&R) -> (T, bool),
    alike: impl Fn(&T, &R) -> Option<u8>,
) -> (Vec<T>, Vec<T>) {
    let mut missing = expected.to_vec();
    let mut extra = Vec::new();
    let mut unsure = Vec::new();
    for reading in seen {
        let (piece, uncertain) = piece(reading);
        if uncertain {
            unsure.push((piece, reading));
        } else if remove(&mut missing, &piece).is_none() {
            extra.push(piece);
        }
    }
    for (piece, reading) in unsure {
        let exact = missing.iter().position(|m| *m == piece);
        let best_alike = || {
            (missing.iter().enumerate())
                .filter_map(|(i, m)| alike(m, reading).map(|rank| (rank, i)))
                .min()
                .map(|(_, i)| i)
        };
        match exact.or_else(best_alike) {
            Some(i) => {
                missing.remove(i);
            }
            None => extra.push(piece),
        }
    }
    (missing, extra)
}

fn list<T: std::fmt::Display>(items: &[T]) -> String {
    if items.is_empty() {
        return "nothing".to_owned();
    }
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// Compares the table the rules expect with the one seen; with `words`, also says how they
/// differ, one sentence per place.
pub(crate) fn compare(expected: &Expected, seen: &Seen, words: bool) -> Mismatch {
    let mut m = Mismatch::default();
    for tower in TowerId::ALL {
        let t = tower.index();
        let level = expected.levels[t];
        let (mut occupied, mut blank) = (0, 0);
        for pillar in PillarIndex::ALL {
            let look = &expected.pillars[t][pillar.index()];
            let (dice, meeples) = seen.on_pillar(tower, level, pillar);
            if !look.dice.is_empty() || !look.meeples.is_empty() {
                occupied += 1;
                if dice.is_empty() && meeples.is_empty() {
                    blank += 1;
                }
            }
            // Dice read unsure and alone on a pillar the game has empty, each of the colour
            // of a die buried in the tower, are those dice seen through the floor above
            // them (the reader cannot tell a floor's level).
            if look.dice.is_empty()
                && look.meeples.is_empty()
                && meeples.is_empty()
                && !dice.is_empty()
                && dice.iter().all(|d| {
                    d.uncertain && expected.buried[t].iter().any(|b| b.color == d.die.color)
                })
            {
                continue;
            }
            let (missing_dice, extra_dice) = look.dice_difference(&dice, &meeples);
            let (missing_meeples, extra_meeples) = meeple_difference(&look.meeples, &meeples);
            // A pillar that shows nothing at all of what the game has there may be hidden
            // behind a taller tower: what is missing counts only beside something seen that
            // the game does not have there.
            let extra = extra_dice.len() + extra_meeples.len();
            let missing = missing_dice.len() + missing_meeples.len();
            let count = if extra > 0 { extra + missing } else { 0 };
            if extra == 0 {
                m.hidden += missing;
            }
            if count > 0 {
                m.count += count;
                m.pillars[t][pillar.index()] = true;
                if words {
                    m.words.push(format!(
                        "{} of {tower} (level {level}): the game has {}, the table shows {}",
                        capitalised(&pillar.to_string()),
                        describe(&look.dice, &look.meeples),
                        describe(
                            &dice.iter().map(|r| r.die).collect::<Vec<_>>(),
                            &meeples.iter().map(|r| r.meeple).collect::<Vec<_>>()
                        ),
                    ));
                }
            }
        }
        m.emptied[t] = occupied > 0 && blank == occupied;
        let mut above = 0;
        let mut top_buried = 0;
        let mut below_dice = Vec::new();
        let mut below_meeples = Vec::new();
        for piece in &seen.towers[t] {
            let Some(at) = piece.level else {
                continue;
            };
            if at > level {
                above += 1;
            } else if at == level && piece.buried {
                top_buried += 1;
            } else if at < level {
                match piece.piece {
                    Piece::Die(d) => below_dice.push(d),
                    Piece::Meeple(meeple) => below_meeples.push(meeple),
                }
            }
        }
        let (_, extra_below_dice) = dice_difference(&expected.buried[t], &below_dice);
        let (_, extra_below_meeples) = meeple_difference(&expected.foundation[t], &below_meeples);
        let below = extra_below_dice.len() + extra_below_meeples.len();
        let tile_differs = seen
            .tiles
            .get(&(tower, level))
            .is_some_and(|tile| *tile != expected.tiles[t]);
        if above + top_buried + below > 0 || tile_differs {
            m.count += above + top_buried + below + usize::from(tile_differs);
            m.towers[t] = true;
            if words {
                let name = capitalised(&tower.to_string());
                if above > 0 {
                    m.words.push(format!(
                        "{name}: {above} pieces are seen above its top floor (level {level})"
                    ));
                }
                if top_buried > 0 {
                    m.words.push(format!(
                        "{name}: its top floor (level {level}) is seen covered by a new floor"
                    ));
                }
                if below > 0 {
                    let mut pieces: Vec<String> =
                        extra_below_dice.iter().map(ToString::to_string).collect();
                    pieces.extend(extra_below_meeples.iter().map(ToString::to_string));
                    m.words.push(format!(
                        "{name}: {} seen below its top floor, where the game buried no such piece",
                        pieces.join(", ")
                    ));
                }
                if tile_differs {
                    m.words.push(format!(
                        "{name}: the tile on level {level} is read as \"{}\", the game has \"{}\"",
                        seen.tiles.get(&(tower, level)).map_or("", String::as_str),
                        expected.tiles[t]
                    ));
                }
            }
        }
    }
    // A die of the roll that is not seen may lie behind another die or a tower: only dice
    // seen that the game does not have there count. (Where a die went is still checked
    // where it arrives: a pillar, the mana pool.)
    let (missing, extra) = dice_difference(&expected.roll, &seen.roll);
    m.roll_unseen.clone_from(&missing);
    if !missing.is_empty() || !extra.is_empty() {
        m.count += extra.len();
        m.roll = true;
        if words {
            m.words.push(format!(
                "Roll area: the game has {}, the table shows {}",
                list(&expected.roll),
                list(&seen.roll_dice())
            ));
        }
    }
    // The same for the mana pool: a die not seen may be hidden; a die seen that the game
    // does not have there counts (with what it replaced).
    let (missing, extra) = dice_difference(&expected.pool, &seen.pool);
    if !extra.is_empty() {
        m.count += missing.len() + extra.len();
        m.pool = true;
        if words {
            m.words.push(format!(
                "Mana pool: the game has {}, the table shows {}",
                list(&expected.pool),
                list(&seen.pool.iter().map(|r| r.die).collect::<Vec<_>>())
            ));
        }
    }
    let mut spaces: Vec<(PlayerColor, SpellId)> = expected.spellbooks.keys().copied().collect();
    spaces.extend(seen.spellbooks.keys().copied());
    spaces.sort();
    spaces.dedup();
    for space in spaces {
        let want = expected.spellbooks.get(&space).cloned().unwrap_or_default();
        let got = seen.spellbooks.get(&space).cloned().unwrap_or_default();
        let (missing, extra) = meeple_difference(&want, &got);
        if !missing.is_empty() || !extra.is_empty() {
            m.count += missing.len() + extra.len();
            m.spells.push(space);
            if words {
                let (player, spell) = space;
                m.words.push(format!(
                    "{player}'s spellbook, {spell}: the game has {}, the table shows {}",
                    list(&want),
                    list(&got.iter().map(|r| r.meeple).collect::<Vec<_>>())
                ));
            }
        }
    }
    m
}

fn describe(dice: &[Die], meeples: &[Meeple]) -> String {
    let mut parts: Vec<String> = dice.iter().map(|d| format!("the {d}")).collect();
    parts.extend(meeples.iter().map(ToString::to_string));
    if parts.is_empty() {
        "nothing".to_owned()
    } else {
        parts.join(" and ")
    }
}

#[cfg(test)]
mod tests {
    use rules::DieValue;

    use super::*;

    #[test]
    fn an_unsure_die_takes_a_missing_die_of_its_colour_before_one_of_its_second_colour() {
        let die = |color, value| Die::new(color, DieValue::new(value).unwrap());
        let unsure = Reading {
            die: die(DieColor::Blue, 5),
            uncertain: true,
            or_color: Some(DieColor::Purple),
        };
        let expected = [die(DieColor::Purple, 4), die(DieColor::Blue, 2)];
        assert_eq!(
            dice_difference(&expected, &[unsure]),
            (vec![die(DieColor::Purple, 4)], vec![])
        );
        assert_eq!(dice_difference(&expected[..1], &[unsure]), (vec![], vec![]));
        let sure = Reading {
            uncertain: false,
            ..unsure
        };
        assert_eq!(
            dice_difference(&expected[..1], &[sure]),
            (expected[..1].to_vec(), vec![sure.die])
        );
    }
}
