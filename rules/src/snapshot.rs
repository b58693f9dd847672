//! The table as seen at one moment: the end-of-game snapshot file (untrusted), and the
//! validated [`Table`] that end-of-game scoring works on.

use std::collections::{BTreeMap, BTreeSet};

use serde::de::{Deserializer, Error as _, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

use crate::components::{
    DICE_PER_COLOR, DiceCount, Die, DieColor, MEEPLES_PER_PLAYER, Meeple, Pillar, PlayerColor,
    Rank, SpellId, TowerId,
};
use crate::format::{FormatError, parse_json};
use crate::scoring::{EndOfGameTable, FinalScore, final_score};
use crate::state::{FLOOR_STACK_TILES, MAX_PRESTIGE_DURING_PLAY, rounds_for};

/// Outer (restriction side up) or central (any-colour side up).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TowerKind {
    Outer,
    Central,
}

/// One tower in a snapshot file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TowerSnapshot {
    pub kind: TowerKind,
    /// Floors completed below the top floor; the top floor's level is this plus one.
    pub completed_floors: u8,
    /// The three pillars of the top floor; `null` is an empty pillar.
    pub top: Vec<Option<Pillar>>,
}

/// The end-of-game snapshot file, as written by a person, the app or the camera: nothing in
/// it is trusted until [`TableSnapshot::validate`] turns it into a [`Table`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableSnapshot {
    pub players: Vec<PlayerColor>,
    pub towers: Vec<TowerSnapshot>,
    #[serde(default, deserialize_with = "player_map")]
    pub spellbooks: BTreeMap<PlayerColor, Vec<SpellId>>,
    #[serde(deserialize_with = "player_map")]
    pub prestige: BTreeMap<PlayerColor, u32>,
    /// The mana pool, one die per finished round (optional: an empty or missing pool is
    /// taken as not recorded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mana_pool: Vec<Die>,
    /// The round the snapshot was taken in (optional; the last round by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<u8>,
}

/// Every problem found in a snapshot, each starting with its place in the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SnapshotError {
    #[error(transparent)]
    Format(#[from] FormatError),
    #[error("{}", .0.join("\n"))]
    Invalid(Vec<String>),
}

/// The top floor of one tower.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TowerTop {
    /// The level of the top floor (first floor = 1).
    pub level: u8,
    pub pillars: [Option<Pillar>; 3],
}

impl TowerTop {
    pub fn is_full(&self) -> bool {
        self.pillars.iter().all(Option::is_some)
    }

    pub fn meeples(&self) -> impl Iterator<Item = Meeple> + '_ {
        self.pillars.iter().flatten().filter_map(|p| p.meeple)
    }

    pub fn dice(&self) -> impl Iterator<Item = Die> + '_ {
        self.pillars.iter().flatten().filter_map(|p| p.die)
    }
}

/// A validated table: what end-of-game scoring needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    pub players: Vec<PlayerColor>,
    /// Indexed by [`TowerId::index`].
    pub towers: [TowerTop; 4],
    pub spellbooks: BTreeMap<PlayerColor, BTreeSet<SpellId>>,
    pub prestige: BTreeMap<PlayerColor, u32>,
    pub mana_pool: Vec<Die>,
    pub round: u8,
}

impl Table {
    pub fn tower(&self, id: TowerId) -> &TowerTop {
        &self.towers[id.index()]
    }

    pub fn prestige(&self, player: PlayerColor) -> u32 {
        self.prestige.get(&player).copied().unwrap_or(0)
    }

    pub fn spellbook_meeples(&self, player: PlayerColor) -> u8 {
        self.spellbooks
            .get(&player)
            .map_or(0, |spells| u8::try_from(spells.len()).unwrap_or(u8::MAX))
    }

    /// Meeples of `player` on the top floors of the four towers (the second tie-breaker).
    pub fn top_floor_meeples(&self, player: PlayerColor) -> u8 {
        EndOfGameTable::top_floor_meeples(self, player)
    }

    /// End-of-game scoring: unfinished floors, spellbooks, totals and tie-breakers.
    pub fn score(&self) -> FinalScore {
        final_score(self, self.round)
    }

    /// The snapshot file of this table (towers A, B, C, then the central tower).
    pub fn to_snapshot(&self) -> TableSnapshot {
        TableSnapshot {
            players: self.players.clone(),
            towers: TowerId::ALL
                .iter()
                .map(|&id| {
                    let top = self.tower(id);
                    TowerSnapshot {
                        kind: if id.is_central() {
                            TowerKind::Central
                        } else {
                            TowerKind::Outer
                        },
                        completed_floors: top.level.saturating_sub(1),
                        top: top.pillars.to_vec(),
                    }
                })
                .collect(),
            spellbooks: self
                .spellbooks
                .iter()
                .map(|(&p, spells)| (p, spells.iter().copied().collect()))
                .collect(),
            prestige: self.prestige.clone(),
            mana_pool: self.mana_pool.clone(),
            round: Some(self.round),
        }
    }
}

impl TableSnapshot {
    pub fn from_json(json: &str) -> Result<Self, SnapshotError> {
        Ok(parse_json(json)?)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Checks the snapshot against the rules and the game's components, listing every
    /// problem found, and returns the validated table.
    pub fn validate(&self) -> Result<Table, SnapshotError> {
        let mut problems = Vec::new();
        let players = self.check_players(&mut problems);
        let tops = self.check_towers(&players, &mut problems);
        self.check_spellbooks_and_prestige(&players, &mut problems);
        self.check_round_and_mana_pool(&mut problems);
        self.check_components(&tops, &players, &mut problems);
        let towers = arrange(tops);
        let round = self.round.unwrap_or_else(|| rounds_for(self.players.len()));
        match towers {
            Some(towers) if problems.is_empty() => Ok(Table {
                players: self.players.clone(),
                towers,
                spellbooks: self
                    .spellbooks
                    .iter()
                    .map(|(&p, spells)| (p, spells.iter().copied().collect()))
                    .collect(),
                prestige: self.prestige.clone(),
                mana_pool: self.mana_pool.clone(),
                round,
            }),
            _ => Err(SnapshotError::Invalid(problems)),
        }
    }

    fn check_players(&self, problems: &mut Vec<String>) -> BTreeSet<PlayerColor> {
        if !(2..=4).contains(&self.players.len()) {
            problems.push(format!(
                "players: a game has 2 to 4 players, the file lists {}",
                self.players.len()
            ));
        }
        let mut seen = BTreeSet::new();
        for (i, &player) in self.players.iter().enumerate() {
            if !seen.insert(player) {
                problems.push(format!("players[{i}]: {player} is listed twice"));
            }
        }
        seen
    }

    /// The top floor of each tower that has three pillars, with its kind.
    fn check_towers(
        &self,
        players: &BTreeSet<PlayerColor>,
        problems: &mut Vec<String>,
    ) -> Vec<(TowerKind, TowerTop)> {
        let outer = self
            .towers
            .iter()
            .filter(|t| t.kind == TowerKind::Outer)
            .count();
        let central = self.towers.len() - outer;
        if outer != 3 || central != 1 {
            problems.push(format!(
                "towers: the table has exactly three outer towers and one central tower, the file lists {outer} outer and {central} central"
            ));
        }
        let mut tops: Vec<(TowerKind, TowerTop)> = Vec::new();
        let mut built_floors = 0u32;
        let mut full_floor = None;
        for (i, tower) in self.towers.iter().enumerate() {
            let place = format!("towers[{i}]");
            built_floors = built_floors.saturating_add(u32::from(tower.completed_floors));
            if tower.top.len() != 3 {
                problems.push(format!(
                    "{place}.top: a floor has 3 pillars, the file lists {}",
                    tower.top.len()
                ));
                continue;
            }
            let pillars: [Option<Pillar>; 3] =
                [0, 1, 2].map(|j| tower.top[j].filter(|p| !p.is_empty()));
            let full = pillars.iter().all(Option::is_some);
            if full {
                full_floor.get_or_insert(i);
            }
            for (j, pillar) in pillars.iter().enumerate() {
                let Some(pillar) = pillar else { continue };
                if let Some(meeple) = pillar.meeple
                    && !players.contains(&meeple.player)
                {
                    problems.push(format!(
                        "{place}.top[{j}].meeple: {} is not playing in this game",
                        meeple.player
                    ));
                }
                if pillar.die.is_some() && pillar.meeple.is_none() && !full {
                    problems.push(format!(
                        "{place}.top[{j}]: the {} stands without a meeple; a die is always placed together with a meeple",
                        pillar.die.map(|d| d.to_string()).unwrap_or_default()
                    ));
                }
            }
            if full
                && pillars
                    .iter()
                    .flatten()
                    .any(|p| p.die.is_some() && p.meeple.is_some())
            {
                problems.push(format!(
                    "{place}.top: the floor is full but meeples still stand beside dice; a full floor is scored at once and those meeples go back to their owners"
                ));
            }
            tops.push((
                tower.kind,
                TowerTop {
                    level: tower.completed_floors.saturating_add(1),
                    pillars,
                },
            ));
        }
        if built_floors > u32::from(FLOOR_STACK_TILES) {
            problems.push(format!(
                "towers: the towers list {built_floors} completed floors, but the floor stack holds only {FLOOR_STACK_TILES} tiles to build on them"
            ));
        } else if let Some(i) = full_floor
            && built_floors < u32::from(FLOOR_STACK_TILES)
        {
            problems.push(format!(
                "towers[{i}].top: a full top floor stays only once the floor stack has run out, after {FLOOR_STACK_TILES} completed floors, but the towers list {built_floors}"
            ));
        }
        tops
    }

    fn check_spellbooks_and_prestige(
        &self,
        players: &BTreeSet<PlayerColor>,
        problems: &mut Vec<String>,
    ) {
        for (player, spells) in &self.spellbooks {
            let place = format!("spellbooks.{}", player.name().to_lowercase());
            if !players.contains(player) {
                problems.push(format!("{place}: {player} is not playing in this game"));
            }
            let mut seen = BTreeSet::new();
            for spell in spells {
                if !seen.insert(spell) {
                    problems.push(format!(
                        "{place}: space {} is listed twice; each spell holds one meeple at most",
                        spell.number()
                    ));
                }
            }
        }
        for player in players {
            if !self.prestige.contains_key(player) {
                problems.push(format!(
                    "prestige: {player}'s prestige is missing (write 0 if they earned none)"
                ));
            }
        }
        for (player, &prestige) in &self.prestige {
            let place = format!("prestige.{}", player.name().to_lowercase());
            if !players.contains(player) {
                problems.push(format!("{place}: {player} is not playing in this game"));
            }
            if prestige > MAX_PRESTIGE_DURING_PLAY {
                problems.push(format!(
                    "{place}: {prestige} is more prestige than a game can give before its end (at most {MAX_PRESTIGE_DURING_PLAY})"
                ));
            }
        }
    }

    /// The round exists for this number of players, and the mana pool (when recorded)
    /// holds one die per finished round (RULINGS.md, Conservation).
    fn check_round_and_mana_pool(&self, problems: &mut Vec<String>) {
        let players = self.players.len();
        if !(2..=4).contains(&players) {
            return;
        }
        let rounds = rounds_for(players);
        let round = self.round.unwrap_or(rounds);
        if !(1..=rounds).contains(&round) {
            problems.push(format!(
                "round: a game of {players} players has rounds 1 to {rounds}, not {round}"
            ));
            return;
        }
        let found = self.mana_pool.len();
        if found == 0 {
            return;
        }
        let finished = usize::from(round - 1);
        if round < rounds && found != finished {
            problems.push(format!(
                "mana_pool: in round {round}, {finished} rounds are finished and the mana pool holds one die for each, but the file lists {found}"
            ));
        } else if round == rounds && !(finished..=finished + 1).contains(&found) {
            problems.push(format!(
                "mana_pool: in the last round ({rounds}) the mana pool holds {finished} dice, or {rounds} once the game is over, but the file lists {found}"
            ));
        }
    }

    /// Conservation: no more meeples or dice than the box holds.
    fn check_components(
        &self,
        towers: &[(TowerKind, TowerTop)],
        players: &BTreeSet<PlayerColor>,
        problems: &mut Vec<String>,
    ) {
        for &player in players {
            let on_towers: Vec<Meeple> = towers
                .iter()
                .flat_map(|(_, top)| top.meeples())
                .filter(|m| m.player == player)
                .collect();
            let masters = on_towers.iter().filter(|m| m.rank == Rank::Master).count();
            if masters > 1 {
                problems.push(format!(
                    "towers: {player} has {masters} masters on the towers; each player has one master"
                ));
            }
            let in_book = self.spellbooks.get(&player).map_or(0, Vec::len);
            let total = on_towers.len() + in_book;
            if total > usize::from(MEEPLES_PER_PLAYER) {
                problems.push(format!(
                    "{player} has {total} meeples on the towers and the spellbook; each player has {MEEPLES_PER_PLAYER}"
                ));
            }
        }
        let dice = DiceCount::count_dice(
            towers
                .iter()
                .flat_map(|(_, t)| t.pillars.iter().flatten().filter_map(|p| p.die.as_ref()))
                .chain(&self.mana_pool),
        );
        for color in DieColor::ALL {
            if dice.get(color) > DICE_PER_COLOR {
                problems.push(format!(
                    "{} {color} dice are on the table; the game has {DICE_PER_COLOR} of each colour",
                    dice.get(color)
                ));
            }
        }
    }
}

/// A player colour as a map key, read as a string so that a problem inside the map names
/// its key (`spellbooks.red[0]`).
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct PlayerKey(PlayerColor);

impl<'de> Deserialize<'de> for PlayerKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = std::borrow::Cow::<str>::deserialize(deserializer)?;
        let name = serde::de::value::StrDeserializer::<D::Error>::new(&name);
        PlayerColor::deserialize(name).map(Self)
    }
}

/// A map from players to `V` that refuses a player listed twice.
fn player_map<'de, D, V>(deserializer: D) -> Result<BTreeMap<PlayerColor, V>, D::Error>
where
    D: Deserializer<'de>,
    V: Deserialize<'de>,
{
    struct PlayerMap<V>(std::marker::PhantomData<V>);

    impl<'de, V: Deserialize<'de>> Visitor<'de> for PlayerMap<V> {
        type Value = BTreeMap<PlayerColor, V>;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a map from player colours (blue, green, red, yellow)")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut players = BTreeMap::new();
            while let Some(PlayerKey(player)) = map.next_key()? {
                let value = map.next_value()?;
                if players.insert(player, value).is_some() {
                    return Err(A::Error::custom(format!("{player} is listed twice")));
                }
            }
            Ok(players)
        }
    }

    deserializer.deserialize_map(PlayerMap(std::marker::PhantomData))
}

/// Assigns the outer towers A, B, C in file order; `None` unless the towers are three outer
/// towers and one central tower, each with three pillars.
fn arrange(tops: Vec<(TowerKind, TowerTop)>) -> Option<[TowerTop; 4]> {
    let mut outer = Vec::new();
    let mut central = Vec::new();
    for (kind, top) in tops {
        match kind {
            TowerKind::Outer => outer.push(top),
            TowerKind::Central => central.push(top),
        }
    }
    let [a, b, c]: [TowerTop; 3] = outer.try_into().ok()?;
    let [central]: [TowerTop; 1] = central.try_into().ok()?;
    Some([a, b, c, central])
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = r#"{
      "players": ["red", "green", "blue"],
      "towers": [
        { "kind": "outer", "completed_floors": 2,
          "top": [ {"die": {"color": "yellow", "value": 2},
                    "meeple": {"player": "red", "rank": "apprentice"}},
                   {"die": null, "meeple": {"player": "green", "rank": "master"}},
                   null ] },
        { "kind": "outer", "completed_floors": 0, "top": [null, null, null] },
        { "kind": "central", "completed_floors": 1, "top": [null, null, null] },
        { "kind": "outer", "completed_floors": 1, "top": [null, null, null] }
      ],
      "spellbooks": { "red": [1, 4], "green": [], "blue": [6] },
      "prestige": { "red": 21, "green": 18, "blue": 19 }
    }"#;

    #[test]
    fn the_issue_example_scores() {
        let table = TableSnapshot::from_json(EXAMPLE)
            .unwrap()
            .validate()
            .unwrap();
        let score = table.score();
        // Green's master (2) beats Red's apprentice (1) on tower A: 3 and 2.
        assert_eq!(score.totals[&PlayerColor::Red], 21 + 2 + 2);
        assert_eq!(score.totals[&PlayerColor::Green], 18 + 3);
        assert_eq!(score.totals[&PlayerColor::Blue], 19 + 1);
        assert_eq!(score.winners, [PlayerColor::Red]);
        assert_eq!(table.tower(TowerId::Central).level, 2);
    }

    #[test]
    fn round_trips_through_json() {
        let table = TableSnapshot::from_json(EXAMPLE)
            .unwrap()
            .validate()
            .unwrap();
        let again = TableSnapshot::from_json(&table.to_snapshot().to_json())
            .unwrap()
            .validate()
            .unwrap();
        assert_eq!(table, again);
    }

    #[test]
    fn every_problem_is_listed() {
        let json = r#"{
          "players": ["red", "green", "red"],
          "towers": [
            { "kind": "outer", "completed_floors": 0,
              "top": [ {"die": {"color": "yellow", "value": 2}, "meeple": null},
                       {"meeple": {"player": "blue", "rank": "master"}}, null ] },
            { "kind": "outer", "completed_floors": 0,
              "top": [ {"meeple": {"player": "red", "rank": "master"}},
                       {"meeple": {"player": "red", "rank": "master"}}, null ] },
            { "kind": "central", "completed_floors": 0, "top": [null, null] },
            { "kind": "central", "completed_floors": 0, "top": [null, null, null] }
          ],
          "spellbooks": { "yellow": [2, 2] },
          "prestige": { "red": 3 }
        }"#;
        let Err(SnapshotError::Invalid(problems)) =
            TableSnapshot::from_json(json).unwrap().validate()
        else {
            panic!("an invalid snapshot was accepted");
        };
        let text = problems.join("\n");
        for expected in [
            "players[2]: Red is listed twice",
            "exactly three outer towers and one central tower, the file lists 2 outer and 2 central",
            "towers[0].top[0]: the yellow 2 stands without a meeple",
            "towers[0].top[1].meeple: Blue is not playing",
            "towers[2].top: a floor has 3 pillars, the file lists 2",
            "spellbooks.yellow: Yellow is not playing",
            "spellbooks.yellow: space 2 is listed twice",
            "prestige: Green's prestige is missing",
        ] {
            assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
        }
    }

    #[test]
    fn too_many_dice_and_masters_are_found() {
        let mut snapshot = TableSnapshot::from_json(EXAMPLE).unwrap();
        let yellow = Die::new(DieColor::Yellow, crate::components::DieValue::ALL[0]);
        snapshot.mana_pool = vec![yellow; 10];
        snapshot.towers[1].top[0] = Some(Pillar {
            die: None,
            meeple: Some(Meeple {
                player: PlayerColor::Green,
                rank: Rank::Master,
            }),
        });
        let Err(SnapshotError::Invalid(problems)) = snapshot.validate() else {
            panic!("11 yellow dice and two green masters were accepted");
        };
        let text = problems.join("\n");
        assert!(text.contains("11 yellow dice"), "{text}");
        assert!(text.contains("Green has 2 masters"), "{text}");
    }

    #[test]
    fn an_unknown_colour_names_its_place() {
        let json = EXAMPLE.replace("\"yellow\", \"value\": 2", "\"orange\", \"value\": 2");
        let Err(SnapshotError::Format(error)) = TableSnapshot::from_json(&json) else {
            panic!("an orange die was accepted");
        };
        assert!(error.path.starts_with("towers[0].top[0]"), "{error}");
        assert!(error.to_string().contains("orange"), "{error}");
        assert_eq!(error.line, 5);
    }

    fn problems(json: &str) -> String {
        match TableSnapshot::from_json(json).map(|s| s.validate()) {
            Ok(Ok(_)) => panic!("accepted:\n{json}"),
            Ok(Err(error)) | Err(error) => error.to_string(),
        }
    }

    #[test]
    fn unknown_and_misspelt_keys_are_refused_with_their_place() {
        for (from, to, expected) in [
            (
                "\"spellbooks\"",
                "\"spelbooks\"",
                "at spelbooks: unknown field `spelbooks`, expected one of",
            ),
            (
                "{\"die\": {\"color\": \"yellow\"",
                "{\"dice\": {\"color\": \"yellow\"",
                "at towers[0].top[0].dice: unknown field `dice`, expected `die` or `meeple`",
            ),
            (
                "\"completed_floors\": 0",
                "\"completed_floors\": 0, \"floors\": 2",
                "at towers[1].floors: unknown field `floors`",
            ),
            (
                "\"rank\": \"master\"",
                "\"rank\": \"master\", \"colour\": \"red\"",
                "at towers[0].top[1].meeple.colour: unknown field `colour`",
            ),
        ] {
            let json = EXAMPLE.replacen(from, to, 1);
            assert_ne!(json, EXAMPLE, "{from}");
            let text = problems(&json);
            assert!(text.contains(expected), "{text}");
        }
    }

    #[test]
    fn a_spell_space_out_of_range_names_its_place() {
        let text = problems(&EXAMPLE.replace("\"red\": [1, 4]", "\"red\": [1, 7]"));
        assert!(
            text.contains("at spellbooks.red[1]: a spellbook has spaces 1 to 6, not 7"),
            "{text}"
        );
        let text = problems(&EXAMPLE.replace("\"red\": 21,", "\"red\": 21, \"red\": 2,"));
        assert!(text.contains("at prestige: Red is listed twice"), "{text}");
    }

    #[test]
    fn the_round_must_exist_for_the_player_count() {
        let snapshot = |round: &str| {
            EXAMPLE.replace("\"prestige\"", &format!("\"round\": {round}, \"prestige\""))
        };
        let text = problems(&snapshot("12"));
        assert!(
            text.contains("round: a game of 3 players has rounds 1 to 9, not 12"),
            "{text}"
        );
        assert!(problems(&snapshot("0")).contains("not 0"));
        let two_players = EXAMPLE
            .replace("[\"red\", \"green\", \"blue\"]", "[\"red\", \"green\"]")
            .replace(", \"blue\": [6]", "")
            .replace(", \"blue\": 19", "")
            .replace("\"prestige\"", "\"round\": 9, \"prestige\"");
        let text = problems(&two_players);
        assert!(
            text.contains("round: a game of 2 players has rounds 1 to 8, not 9"),
            "{text}"
        );
    }

    #[test]
    fn the_mana_pool_holds_one_die_per_finished_round() {
        let mut snapshot = TableSnapshot::from_json(EXAMPLE).unwrap();
        let die = Die::new(DieColor::Pink, crate::components::DieValue::ALL[2]);
        snapshot.round = Some(4);
        snapshot.mana_pool = vec![die; 3];
        assert!(snapshot.validate().is_ok());
        snapshot.mana_pool = vec![die; 5];
        let text = snapshot.validate().unwrap_err().to_string();
        assert!(
            text.contains(
                "mana_pool: in round 4, 3 rounds are finished and the mana pool holds one die for each, but the file lists 5"
            ),
            "{text}"
        );
        // The last round: 8 dice while it is played, 9 once the game is over.
        snapshot.round = None;
        for (dice, valid) in [(7, false), (8, true), (9, true), (10, false)] {
            snapshot.mana_pool = vec![die; dice];
            assert_eq!(snapshot.validate().is_ok(), valid, "{dice} dice");
        }
    }

    #[test]
    fn prestige_no_game_can_reach_is_refused_and_never_wraps() {
        let text = problems(&EXAMPLE.replace("\"red\": 21", "\"red\": 4294967295"));
        assert!(
            text.contains(&format!(
                "prestige.red: 4294967295 is more prestige than a game can give before its end (at most {MAX_PRESTIGE_DURING_PLAY})"
            )),
            "{text}"
        );
        let text = problems(&EXAMPLE.replace("\"red\": 21", "\"red\": 4294967296"));
        assert!(text.contains("at prestige.red: invalid value"), "{text}");
        // A table built in code is scored without wrapping.
        let mut table = TableSnapshot::from_json(EXAMPLE)
            .unwrap()
            .validate()
            .unwrap();
        table.prestige.insert(PlayerColor::Red, u32::MAX);
        let score = table.score();
        assert_eq!(score.totals[&PlayerColor::Red], u32::MAX);
        assert_eq!(score.winners, [PlayerColor::Red]);
    }

    #[test]
    fn a_full_top_floor_needs_an_empty_stack() {
        let full = EXAMPLE.replace(
            "{ \"kind\": \"outer\", \"completed_floors\": 0, \"top\": [null, null, null] }",
            r#"{ "kind": "outer", "completed_floors": 0, "top": [
                 {"die": {"color": "blue", "value": 1}}, {"die": {"color": "blue", "value": 3}},
                 {"meeple": {"player": "blue", "rank": "apprentice"}} ] }"#,
        );
        let text = problems(&full);
        assert!(
            text.contains("towers[1].top: a full top floor stays only once the floor stack has run out, after 14 completed floors, but the towers list 4"),
            "{text}"
        );
    }
}
