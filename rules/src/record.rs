//! The set-up of a game (untrusted until started) and the game record file: set-up plus the
//! ordered actions. Replaying a record gives the same states, events and score every time.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde::de::value::MapAccessDeserializer;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

use crate::action::Action;
use crate::components::PlayerColor;
use crate::event::Event;
use crate::format::{FormatError, check_header, parse_json};
use crate::state::GameState;
use crate::tiles::{Tile, TileCatalogue};
use crate::violation::Violation;

/// A tile named by its catalogue id, or written out in full.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum TileRef {
    Id(String),
    Tile(Arc<Tile>),
}

/// A string is an id, an object a whole tile: read each as such, so that a mistake inside
/// a tile is reported where it is (an untagged enum would only say that nothing matched).
impl<'de> Deserialize<'de> for TileRef {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TileRefVisitor;

        impl<'de> Visitor<'de> for TileRefVisitor {
            type Value = TileRef;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a tile id from the tile catalogue, or a whole tile")
            }

            fn visit_str<E: serde::de::Error>(self, id: &str) -> Result<TileRef, E> {
                Ok(TileRef::Id(id.to_owned()))
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<TileRef, A::Error> {
                Tile::deserialize(MapAccessDeserializer::new(map))
                    .map(|tile| TileRef::Tile(Arc::new(tile)))
            }
        }

        deserializer.deserialize_any(TileRefVisitor)
    }
}

/// The four starting tiles: three outer towers and the central tower.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartingTowers {
    pub a: TileRef,
    pub b: TileRef,
    pub c: TileRef,
    pub central: TileRef,
}

/// How a game starts. Untrusted: [`GameSetup::start`] checks it and lists every problem.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameSetup {
    /// Players in clockwise seating order.
    pub players: Vec<PlayerColor>,
    pub first_player: PlayerColor,
    pub towers: StartingTowers,
    /// The floor stack, the next tile first.
    pub floor_stack: Vec<TileRef>,
}

/// Everything wrong with a set-up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the set-up has problems:\n{}", .0.join("\n"))]
pub struct SetupError(pub Vec<String>);

impl GameSetup {
    /// Checks the set-up and starts the game; tile ids are looked up in `catalogue`.
    pub fn start(&self, catalogue: &TileCatalogue) -> Result<GameState, SetupError> {
        let mut problems = Vec::new();
        if !(2..=4).contains(&self.players.len()) {
            problems.push(format!(
                "setup.players: a game has 2 to 4 players, the set-up lists {}",
                self.players.len()
            ));
        }
        for (i, player) in self.players.iter().enumerate() {
            if self.players[..i].contains(player) {
                problems.push(format!("setup.players[{i}]: {player} is listed twice"));
            }
        }
        if !self.players.contains(&self.first_player) {
            problems.push(format!(
                "setup.first_player: {} is not one of the players",
                self.first_player
            ));
        }
        // The tile, or the id that the catalogue lacks. Where the tile was asked for is only
        // written out for a problem (a playout starts here).
        let resolve = |tile: &TileRef| -> Result<Arc<Tile>, String> {
            match tile {
                TileRef::Tile(tile) => Ok(tile.clone()),
                TileRef::Id(id) => catalogue.get(id).cloned().ok_or_else(|| id.clone()),
            }
        };
        let missing = |place: &dyn std::fmt::Display, id: String| {
            format!("{place}: no tile \"{id}\" in the tile catalogue")
        };
        let mut tower = |place: &str, tile: &TileRef| {
            resolve(tile)
                .map_err(|id| problems.push(missing(&place, id)))
                .ok()
        };
        let towers = [
            tower("setup.towers.a", &self.towers.a),
            tower("setup.towers.b", &self.towers.b),
            tower("setup.towers.c", &self.towers.c),
            tower("setup.towers.central", &self.towers.central),
        ];
        // The tiles found (those that are not are listed in `problems`), in one list of the
        // set-up's size.
        let mut stack = Vec::with_capacity(self.floor_stack.len());
        for (i, tile) in self.floor_stack.iter().enumerate() {
            match resolve(tile) {
                Ok(tile) => stack.push(tile),
                Err(id) => problems.push(missing(&format_args!("setup.floor_stack[{i}]"), id)),
            }
        }
        // Each tile against those before it: a set-up has under twenty tiles, walked again
        // rather than listed (a playout starts here).
        let tiles = || towers.iter().flatten().chain(&stack);
        for (i, tile) in tiles().enumerate() {
            // A tile written out in the set-up is checked as the catalogue's are.
            for problem in tile.problems() {
                problems.push(format!("setup: the tile \"{}\": {problem}", tile.id));
            }
            if tiles().take(i).any(|earlier| earlier.id == tile.id) {
                problems.push(format!(
                    "setup: the tile \"{}\" is used twice; each printed tile exists once",
                    tile.id
                ));
            }
        }
        let [Some(a), Some(b), Some(c), Some(central)] = towers else {
            return Err(SetupError(problems));
        };
        if !problems.is_empty() {
            return Err(SetupError(problems));
        }
        Ok(GameState::new(
            &self.players,
            self.first_player,
            [a, b, c, central],
            stack,
        ))
    }

    /// A set-up with every tile written out in full, so the record no longer needs the
    /// catalogue it was made with.
    pub fn resolved(&self, catalogue: &TileCatalogue) -> Self {
        let full = |tile: &TileRef| match tile {
            TileRef::Id(id) => catalogue
                .get(id)
                .map_or_else(|| tile.clone(), |t| TileRef::Tile(t.clone())),
            TileRef::Tile(_) => tile.clone(),
        };
        Self {
            players: self.players.clone(),
            first_player: self.first_player,
            towers: StartingTowers {
                a: full(&self.towers.a),
                b: full(&self.towers.b),
                c: full(&self.towers.c),
                central: full(&self.towers.central),
            },
            floor_stack: self.floor_stack.iter().map(full).collect(),
        }
    }
}

const RECORD_FORMAT: &str = "tablesight-game";
const RECORD_VERSION: u32 = 1;

/// A game record file: set-up plus every action in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameRecord {
    pub format: String,
    pub version: u32,
    pub setup: GameSetup,
    pub actions: Vec<Action>,
    /// Indices of the actions the players allowed against a dice restriction.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub overridden: BTreeSet<usize>,
}

/// Why a record cannot be replayed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    #[error(transparent)]
    Format(#[from] FormatError),
    #[error("{}", .0.join("\n"))]
    Header(Vec<String>),
    /// Problems in the file beyond its header (an overridden action that is not there).
    #[error("{}", .0.join("\n"))]
    Invalid(Vec<String>),
    #[error(transparent)]
    Setup(#[from] SetupError),
    #[error("actions[{index}] ({action}) is illegal: {violation}")]
    Illegal {
        index: usize,
        action: Action,
        violation: Violation,
    },
}

impl GameRecord {
    pub fn new(setup: GameSetup) -> Self {
        Self {
            format: RECORD_FORMAT.to_owned(),
            version: RECORD_VERSION,
            setup,
            actions: Vec::new(),
            overridden: BTreeSet::new(),
        }
    }

    pub fn from_json(json: &str) -> Result<Self, RecordError> {
        let record: GameRecord = parse_json(json)?;
        let mut problems = Vec::new();
        check_header(
            &record.format,
            record.version,
            RECORD_FORMAT,
            RECORD_VERSION,
            &mut problems,
        );
        if !problems.is_empty() {
            return Err(RecordError::Header(problems));
        }
        let count = record.actions.len();
        let missing: Vec<String> = record
            .overridden
            .iter()
            .filter(|&&index| index >= count)
            .map(|index| {
                format!(
                    "overridden: there is no action {index}; the record has {count} actions, numbered from 0"
                )
            })
            .collect();
        if missing.is_empty() {
            Ok(record)
        } else {
            Err(RecordError::Invalid(missing))
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Plays every action from the set-up, stopping at the first illegal one. `on_step`
    /// sees each action with the events it caused and the state it led to, as they happen.
    pub fn replay(
        &self,
        catalogue: &TileCatalogue,
        mut on_step: impl FnMut(usize, &Action, &[Event], &GameState),
    ) -> Result<GameState, RecordError> {
        let mut state = self.setup.start(catalogue)?;
        for (index, action) in self.actions.iter().enumerate() {
            let played = if self.overridden.contains(&index) {
                state.play_overriding(action)
            } else {
                state.play_with_events(action)
            };
            match played {
                Ok((next, events)) => {
                    on_step(index, action, &events, &next);
                    state = next;
                }
                Err(illegal) => {
                    return Err(RecordError::Illegal {
                        index,
                        action: action.clone(),
                        violation: illegal.violation,
                    });
                }
            }
        }
        Ok(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::components::PlayerColor::{Blue, Green, Red};

    fn setup() -> GameSetup {
        let id = |s: &str| TileRef::Id(s.to_owned());
        GameSetup {
            players: vec![Red, Green, Blue],
            first_player: Red,
            towers: StartingTowers {
                a: id("start-yellow-1-2"),
                b: id("start-purple-even"),
                c: id("start-yellow-different"),
                central: id("start-pink-yellow-5-6"),
            },
            floor_stack: vec![id("blue-odd")],
        }
    }

    #[test]
    fn overridden_actions_survive_the_file_and_replay() {
        let catalogue = TileCatalogue::arkhanos();
        let mut record = GameRecord::new(setup().resolved(&catalogue));
        for line in [
            "roll pink1 yellow3 yellow1 blue2",
            "red place pink1 apprentice A1",
        ] {
            record.actions.push(Action::from_notation(line).unwrap());
        }
        let refused = record.replay(&catalogue, |_, _, _, _| {});
        assert!(matches!(
            refused,
            Err(RecordError::Illegal { index: 1, .. })
        ));
        record.overridden.insert(1);
        let reread = GameRecord::from_json(&record.to_json()).unwrap();
        assert_eq!(reread, record);
        let mut log = Vec::new();
        let state = reread
            .replay(&TileCatalogue::arkhanos(), |_, _, events, _| {
                log.extend(events.iter().map(ToString::to_string));
            })
            .unwrap();
        assert!(log[1].starts_with("Allowed by the table against the rules: The pink 1"));
        assert_eq!(state.player(Red).map(|p| p.prestige), Some(2));
    }

    #[test]
    fn a_newer_version_is_refused_with_a_clear_message() {
        let mut record = GameRecord::new(setup());
        record.version = 7;
        let Err(RecordError::Header(problems)) = GameRecord::from_json(&record.to_json()) else {
            panic!("version 7 was accepted");
        };
        assert!(problems[0].contains("reads version 1, the file is version 7"));
    }

    #[test]
    fn an_overridden_action_that_is_not_there_is_refused() {
        let mut record = GameRecord::new(setup());
        record
            .actions
            .push(Action::from_notation("roll pink1 yellow3 yellow1 blue2").unwrap());
        record.overridden.insert(7);
        let Err(RecordError::Invalid(problems)) = GameRecord::from_json(&record.to_json()) else {
            panic!("an override of a missing action was accepted");
        };
        assert_eq!(
            problems,
            ["overridden: there is no action 7; the record has 1 actions, numbered from 0"]
        );
    }

    #[test]
    fn unknown_keys_are_refused_with_their_place_even_inside_a_tile() {
        let json = GameRecord::new(setup().resolved(&TileCatalogue::arkhanos())).to_json();
        for (from, to, expected) in [
            (
                "\"first_player\"",
                "\"first_players\"",
                "at setup.first_players: unknown field `first_players`",
            ),
            (
                "\"all_different\": false",
                "\"all_diferent\": true",
                "at setup.towers.a.restriction.all_diferent: unknown field `all_diferent`",
            ),
            (
                "\"actions\": []",
                "\"actions\": [{\"end_turn\": {\"player\": \"red\", \"pass\": true}}]",
                "at actions[0].end_turn.pass: unknown field `pass`, expected `player`",
            ),
        ] {
            let changed = json.replacen(from, to, 1);
            assert_ne!(changed, json, "{from}");
            let error = GameRecord::from_json(&changed).unwrap_err().to_string();
            assert!(error.contains(expected), "{error}");
        }
    }
}
