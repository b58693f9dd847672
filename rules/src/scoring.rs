//! Influence, floor majorities, end-of-game scoring and the tie-breakers, each returning a
//! breakdown that says who scored what, where and why.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::components::{Meeple, Pillar, PillarIndex, PlayerColor, TowerId};
use crate::snapshot::Table;
use crate::tiles::PillarBonus;

/// Prestige for the first place, the second place, and each player of a tie.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PointsTable {
    pub first: u32,
    pub second: u32,
    pub tie: u32,
}

/// A completed outer floor (the magic council on the mana pool board).
pub const OUTER_FLOOR: PointsTable = PointsTable {
    first: 6,
    second: 4,
    tie: 3,
};
/// A completed floor of the central tower.
pub const CENTRAL_FLOOR: PointsTable = PointsTable {
    first: 3,
    second: 2,
    tie: 1,
};
/// An incomplete top floor at the end of the game, outer or central alike.
pub const END_GAME_FLOOR: PointsTable = PointsTable {
    first: 3,
    second: 2,
    tie: 1,
};

/// Where a player finished in a floor's majority.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Placing {
    First,
    TiedFirst,
    Second,
    TiedSecond,
    /// Had influence but was neither first nor second (or second behind a tie for first).
    Unplaced,
}

impl fmt::Display for Placing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::First => "first",
            Self::TiedFirst => "tied first",
            Self::Second => "second",
            Self::TiedSecond => "tied second",
            Self::Unplaced => "not placed",
        })
    }
}

/// One player's result in one floor's majority.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Award {
    pub player: PlayerColor,
    pub influence: u8,
    pub placing: Placing,
    pub points: u32,
}

/// Influence per player, by [`PlayerColor::index`]: apprentice 1, master 2; 0 for a player
/// without a meeple. An array, not a map: floors are scored many times in every playout.
pub fn influence(meeples: impl IntoIterator<Item = Meeple>) -> [u8; 4] {
    let mut influence = [0u8; 4];
    for meeple in meeples {
        let sum = &mut influence[meeple.player.index()];
        *sum = sum.saturating_add(meeple.rank.influence());
    }
    influence
}

/// Ranks the players by influence and awards `table` (RULINGS.md, Completing and scoring a
/// floor): a tie for first shares the tie value and leaves no second place; a tie for second
/// shares the tie value. Players with no influence are not listed. Handed out one by one,
/// best first, without a list: floors are scored many times in every playout.
pub fn award(influence: [u8; 4], table: PointsTable) -> impl Iterator<Item = Award> {
    let mut ranked = PlayerColor::ALL.map(|p| (p, influence[p.index()]));
    // Most influence first, then by colour: the four players ordered by a sorting network of
    // five exchanges rather than a general sort.
    let before = |(a, m): (PlayerColor, u8), (b, n): (PlayerColor, u8)| m > n || (m == n && a < b);
    for (i, j) in [(0, 1), (2, 3), (0, 2), (1, 3), (1, 2)] {
        if before(ranked[j], ranked[i]) {
            ranked.swap(i, j);
        }
    }
    // Sorted by influence, most first: the players without any come last.
    let placed = ranked.iter().filter(|&&(_, n)| n > 0).count();
    let with_influence = &ranked[..placed];
    let best = with_influence.first().map_or(0, |&(_, n)| n);
    let firsts = with_influence.iter().filter(|(_, n)| *n == best).count();
    let second_best = with_influence.get(firsts).map(|&(_, n)| n);
    let seconds = with_influence
        .iter()
        .filter(|(_, n)| Some(*n) == second_best)
        .count();
    // The players without influence, ranked last, are left out by their influence rather
    // than counted off with `take`, which ran more instructions per floor in playouts.
    ranked
        .into_iter()
        .filter(|&(_, n)| n > 0)
        .map(move |(player, n)| {
            let (placing, points) = if n == best && firsts > 1 {
                (Placing::TiedFirst, table.tie)
            } else if n == best {
                (Placing::First, table.first)
            } else if firsts == 1 && Some(n) == second_best && seconds > 1 {
                (Placing::TiedSecond, table.tie)
            } else if firsts == 1 && Some(n) == second_best {
                (Placing::Second, table.second)
            } else {
                (Placing::Unplaced, 0)
            };
            Award {
                player,
                influence: n,
                placing,
                points,
            }
        })
}

/// Why a player gained prestige.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum ScoreReason {
    /// The bonus of the pillar a die was placed on.
    Pillar {
        tower: TowerId,
        pillar: PillarIndex,
        bonus: PillarBonus,
        level: u8,
    },
    /// The majority of a completed floor.
    Floor {
        tower: TowerId,
        level: u8,
        influence: u8,
        placing: Placing,
    },
    /// The majority of an incomplete top floor at the end of the game.
    EndGameFloor {
        tower: TowerId,
        level: u8,
        influence: u8,
        placing: Placing,
    },
    /// One prestige per meeple on the spellbook at the end of the game.
    Spellbook { meeples: u8 },
}

/// One line of the score ledger.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScoreEntry {
    pub player: PlayerColor,
    pub points: u32,
    /// The round in which it was scored.
    pub round: u8,
    pub reason: ScoreReason,
}

impl fmt::Display for ScoreEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} +{}: ", self.player, self.points)?;
        match &self.reason {
            ScoreReason::Pillar {
                tower,
                pillar,
                bonus,
                level,
            } => write!(f, "{bonus} bonus of {pillar} of {tower} (level {level})"),
            ScoreReason::Floor {
                tower,
                level,
                influence,
                placing,
            } => write!(
                f,
                "{placing} with influence {influence} on completed floor {level} of {tower}"
            ),
            ScoreReason::EndGameFloor {
                tower,
                level,
                influence,
                placing,
            } => write!(
                f,
                "{placing} with influence {influence} on the unfinished floor {level} of {tower}"
            ),
            ScoreReason::Spellbook { meeples } => {
                let plural = if *meeples == 1 { "" } else { "s" };
                write!(f, "{meeples} meeple{plural} on the spellbook")
            }
        }
    }
}

/// The awards of one floor that bring points, as score entries.
pub fn floor_entries(
    awards: impl IntoIterator<Item = Award>,
    round: u8,
    reason: impl Fn(&Award) -> ScoreReason,
) -> impl Iterator<Item = ScoreEntry> {
    awards
        .into_iter()
        .filter(|a| a.points > 0)
        .map(move |a| ScoreEntry {
            player: a.player,
            points: a.points,
            round,
            reason: reason(&a),
        })
}

/// Which rule decided the winner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecidedBy {
    /// One player has the most prestige.
    Prestige,
    /// Tied on prestige; most meeples on the spellbook.
    Spellbook,
    /// Still tied; most meeples on the top floors of the four towers.
    TopFloors,
    /// Still tied: all tied players win.
    SharedVictory,
}

impl fmt::Display for DecidedBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Prestige => "most prestige",
            Self::Spellbook => "tie on prestige broken by most meeples on the spellbook",
            Self::TopFloors => {
                "tie on prestige and spellbook broken by most meeples on the top floors"
            }
            Self::SharedVictory => "tied on prestige, spellbook and top floors: a shared victory",
        })
    }
}

/// One player's line of the final tally.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standing {
    pub player: PlayerColor,
    /// Prestige earned during play.
    pub during_play: u32,
    /// Prestige from unfinished floors and the spellbook.
    pub end_of_game: u32,
    pub total: u32,
    pub spellbook_meeples: u8,
    pub top_floor_meeples: u8,
}

/// The end-of-game tally: the entries it adds, each player's standing (best first), the
/// winners and the rule that decided them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FinalScore {
    pub entries: Vec<ScoreEntry>,
    pub standings: Vec<Standing>,
    pub totals: BTreeMap<PlayerColor, u32>,
    pub winners: Vec<PlayerColor>,
    pub decided_by: DecidedBy,
}

/// What end-of-game scoring reads from a table: a validated [`Table`], or the state of a
/// game as it ends (which would otherwise build a table, with its maps and sets, at the end
/// of every playout).
pub(crate) trait EndOfGameTable {
    /// The players, in seating order.
    fn players(&self) -> impl Iterator<Item = PlayerColor>;
    /// The level and the pillars of the top floor of `tower`.
    fn top_floor(&self, tower: TowerId) -> (u8, &[Option<Pillar>; 3]);
    /// Prestige earned during play.
    fn prestige(&self, player: PlayerColor) -> u32;
    fn spellbook_meeples(&self, player: PlayerColor) -> u8;

    /// Meeples of `player` on the top floors of the four towers (the second tie-breaker).
    fn top_floor_meeples(&self, player: PlayerColor) -> u8 {
        self.top_floor_meeples_by_player()[player.index()]
    }

    /// [`EndOfGameTable::top_floor_meeples`] of every player, by [`PlayerColor::index`],
    /// counted in one walk over the top floors.
    fn top_floor_meeples_by_player(&self) -> [u8; 4] {
        let mut counts = [0u8; 4];
        let top_floors = TowerId::ALL
            .into_iter()
            .flat_map(|tower| self.top_floor(tower).1.iter().flatten());
        for meeple in top_floors.filter_map(|pillar| pillar.meeple) {
            let count = &mut counts[meeple.player.index()];
            *count = count.saturating_add(1);
        }
        counts
    }
}

impl EndOfGameTable for Table {
    fn players(&self) -> impl Iterator<Item = PlayerColor> {
        self.players.iter().copied()
    }

    fn top_floor(&self, tower: TowerId) -> (u8, &[Option<Pillar>; 3]) {
        let top = self.tower(tower);
        (top.level, &top.pillars)
    }

    fn prestige(&self, player: PlayerColor) -> u32 {
        Table::prestige(self, player)
    }

    fn spellbook_meeples(&self, player: PlayerColor) -> u8 {
        Table::spellbook_meeples(self, player)
    }
}

/// Applies end-of-game scoring (RULINGS.md, End of the game) to a table.
pub(crate) fn final_score(table: &impl EndOfGameTable, round: u8) -> FinalScore {
    // Room for two placings on each of the four floors (more only with ties) and a
    // spellbook line per player, taken once rather than regrown: every playout ends here.
    let mut entries = Vec::with_capacity(2 * TowerId::ALL.len() + table.players().count());
    for tower in TowerId::ALL {
        let (level, pillars) = table.top_floor(tower);
        if pillars.iter().all(Option::is_some) {
            continue;
        }
        let meeples = pillars.iter().flatten().filter_map(|p| p.meeple);
        let awards = award(influence(meeples), END_GAME_FLOOR);
        entries.extend(floor_entries(awards, round, |a| {
            ScoreReason::EndGameFloor {
                tower,
                level,
                influence: a.influence,
                placing: a.placing,
            }
        }));
    }
    // Each player's count, by [`PlayerColor::index`]: asked once (every playout ends here).
    let mut spellbook_meeples = [0u8; 4];
    for player in table.players() {
        let meeples = table.spellbook_meeples(player);
        spellbook_meeples[player.index()] = meeples;
        if meeples > 0 {
            entries.push(ScoreEntry {
                player,
                points: u32::from(meeples),
                round,
                reason: ScoreReason::Spellbook { meeples },
            });
        }
    }
    let top_floor_meeples = table.top_floor_meeples_by_player();
    let mut standings: Vec<Standing> = table
        .players()
        .map(|player| {
            let during_play = table.prestige(player);
            // Prestige saturates rather than wraps: a validated table never comes near.
            let end_of_game = entries
                .iter()
                .filter(|e| e.player == player)
                .fold(0u32, |sum, e| sum.saturating_add(e.points));
            Standing {
                player,
                during_play,
                end_of_game,
                total: during_play.saturating_add(end_of_game),
                spellbook_meeples: spellbook_meeples[player.index()],
                top_floor_meeples: top_floor_meeples[player.index()],
            }
        })
        .collect();
    let key = |s: &Standing| (s.total, s.spellbook_meeples, s.top_floor_meeples);
    standings.sort_by(|a, b| key(b).cmp(&key(a)).then(a.player.cmp(&b.player)));
    let winners: Vec<PlayerColor> = standings
        .iter()
        .filter(|s| standings.first().is_some_and(|best| key(s) == key(best)))
        .map(|s| s.player)
        .collect();
    let decided_by = decided_by(&standings);
    // Inserted one by one: collecting a map first lists and sorts the pairs.
    let mut totals = BTreeMap::new();
    for s in &standings {
        totals.insert(s.player, s.total);
    }
    FinalScore {
        entries,
        standings,
        totals,
        winners,
        decided_by,
    }
}

/// Which tie-breaker separated the first of `standings` (sorted best first) from the rest.
fn decided_by(standings: &[Standing]) -> DecidedBy {
    let Some(best) = standings.first() else {
        return DecidedBy::SharedVictory;
    };
    // Whether the best is alone among the standings `tied` with it: counted, not listed
    // (every playout ends here).
    let alone =
        |tied: &dyn Fn(&Standing) -> bool| standings.iter().filter(|s| tied(s)).count() == 1;
    let on_prestige = |s: &Standing| s.total == best.total;
    let on_spellbook =
        |s: &Standing| on_prestige(s) && s.spellbook_meeples == best.spellbook_meeples;
    let on_top_floors =
        |s: &Standing| on_spellbook(s) && s.top_floor_meeples == best.top_floor_meeples;
    if alone(&on_prestige) {
        DecidedBy::Prestige
    } else if alone(&on_spellbook) {
        DecidedBy::Spellbook
    } else if alone(&on_top_floors) {
        DecidedBy::TopFloors
    } else {
        DecidedBy::SharedVictory
    }
}

impl fmt::Display for FinalScore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "End-of-game scoring:")?;
        if self.entries.is_empty() {
            writeln!(
                f,
                "  (no unfinished floor with meeples, no spellbook meeples)"
            )?;
        }
        for entry in &self.entries {
            writeln!(f, "  {entry}")?;
        }
        writeln!(
            f,
            "{:<8} {:>11} {:>11} {:>6} {:>10} {:>11}",
            "player", "during play", "end of game", "total", "spellbook", "top floors"
        )?;
        for s in &self.standings {
            writeln!(
                f,
                "{:<8} {:>11} {:>11} {:>6} {:>10} {:>11}",
                s.player.name(),
                s.during_play,
                s.end_of_game,
                s.total,
                s.spellbook_meeples,
                s.top_floor_meeples
            )?;
        }
        let names: Vec<&str> = self.winners.iter().map(|p| p.name()).collect();
        write!(
            f,
            "Winner{}: {} ({})",
            if names.len() > 1 { "s" } else { "" },
            names.join(", "),
            self.decided_by
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::components::Rank;
    use PlayerColor::*;

    fn meeples(list: &[(PlayerColor, Rank)]) -> Vec<Meeple> {
        list.iter()
            .map(|&(player, rank)| Meeple { player, rank })
            .collect()
    }

    fn points(list: &[(PlayerColor, Rank)], table: PointsTable) -> Vec<(PlayerColor, u32)> {
        award(influence(meeples(list)), table)
            .map(|a| (a.player, a.points))
            .collect()
    }

    #[test]
    fn a_player_alone_takes_first_only() {
        let a = Rank::Apprentice;
        assert_eq!(points(&[(Red, a), (Red, a)], OUTER_FLOOR), [(Red, 6)]);
        assert_eq!(points(&[(Red, a)], CENTRAL_FLOOR), [(Red, 3)]);
    }

    #[test]
    fn central_tie_for_second_shares_the_tie_value() {
        let a = Rank::Apprentice;
        let m = Rank::Master;
        assert_eq!(
            points(&[(Green, m), (Red, a), (Blue, a)], CENTRAL_FLOOR),
            [(Green, 3), (Blue, 1), (Red, 1)]
        );
    }

    /// The sorting network of `award` ranks as a general sort by influence, then colour, would.
    #[test]
    fn awards_are_ranked_by_influence_then_colour() {
        for code in 0..5u32.pow(4) {
            let influence = [0, 1, 2, 3].map(|i| (code / 5u32.pow(i) % 5) as u8);
            let mut expected: Vec<(PlayerColor, u8)> = PlayerColor::ALL
                .into_iter()
                .map(|p| (p, influence[p.index()]))
                .filter(|&(_, n)| n > 0)
                .collect();
            expected.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            let ranked: Vec<(PlayerColor, u8)> = award(influence, OUTER_FLOOR)
                .map(|a| (a.player, a.influence))
                .collect();
            assert_eq!(ranked, expected, "{influence:?}");
        }
    }

    #[test]
    fn third_place_scores_nothing() {
        let a = Rank::Apprentice;
        let m = Rank::Master;
        let mut awards = award(
            influence(meeples(&[(Green, m), (Green, a), (Red, m), (Blue, a)])),
            OUTER_FLOOR,
        );
        let blue = awards.find(|a| a.player == Blue).unwrap();
        assert_eq!((blue.placing, blue.points), (Placing::Unplaced, 0));
    }
}
