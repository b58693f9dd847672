//! Golden scenarios: each file under `tests/scenarios/` cites the rulebook page or ruling it
//! comes from, plays its actions (or scores its snapshot), and states what must happen.

// A test that cannot read its fixtures should fail loudly; helpers unwrap like tests do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rules::{
    Action, DecidedBy, GameSetup, PlayerColor, Restriction, StartingTowers, TableSnapshot, Tile,
    TileCatalogue, TileRef,
};
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Scenario {
    /// Rulebook page or ruling the scenario comes from.
    source: String,
    description: String,
    #[serde(default)]
    players: Vec<PlayerColor>,
    first_player: Option<PlayerColor>,
    /// Default: four tiles that take any die.
    towers: Option<StartingTowers>,
    /// Default: the catalogue's stack tiles in catalogue order.
    floor_stack: Option<Vec<TileRef>>,
    /// Actions in the notation of `rules::Action::from_notation`; a line starting with
    /// `allow ` is played as an override (`GameState::play_overriding`).
    #[serde(default)]
    actions: Vec<String>,
    /// End-of-game scenarios score a snapshot instead of playing actions.
    snapshot: Option<TableSnapshot>,
    expect: Expect,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    /// Score ledger lines that must appear, as the log prints them.
    #[serde(default)]
    scored: Vec<String>,
    /// Fragments of event lines that must appear, in this order.
    #[serde(default)]
    events: Vec<String>,
    /// Prestige of each player after the actions.
    prestige: Option<BTreeMap<PlayerColor, u32>>,
    /// An action that must then be refused, and a fragment of the explanation.
    illegal: Option<Illegal>,
    final_score: Option<FinalExpect>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Illegal {
    action: String,
    message: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FinalExpect {
    totals: BTreeMap<PlayerColor, u32>,
    winners: Vec<PlayerColor>,
    decided_by: DecidedBy,
}

fn open_tile(id: &str) -> TileRef {
    TileRef::Tile(Arc::new(Tile {
        id: id.to_owned(),
        name: "Any die".to_owned(),
        starting: true,
        restriction: Restriction::any(),
        bonuses: [
            rules::PillarBonus::TwoPrestige,
            rules::PillarBonus::LevelPrestige,
            rules::PillarBonus::ExtraMeeple,
        ],
        source: Some("test tile".to_owned()),
    }))
}

fn run(scenario: &Scenario, catalogue: &TileCatalogue) -> Result<(), String> {
    if scenario.source.trim().is_empty() || scenario.description.trim().is_empty() {
        return Err("every scenario cites its source and says what it checks".into());
    }
    if let Some(snapshot) = &scenario.snapshot {
        let table = snapshot.validate().map_err(|e| e.to_string())?;
        return check_final(&table.score(), scenario);
    }
    let setup = GameSetup {
        players: scenario.players.clone(),
        first_player: scenario
            .first_player
            .or(scenario.players.first().copied())
            .ok_or("no players")?,
        towers: scenario.towers.clone().unwrap_or_else(|| StartingTowers {
            a: open_tile("open-a"),
            b: open_tile("open-b"),
            c: open_tile("open-c"),
            central: open_tile("open-central"),
        }),
        floor_stack: scenario.floor_stack.clone().unwrap_or_else(|| {
            catalogue
                .stack_tiles()
                .map(|t| TileRef::Id(t.id.clone()))
                .collect()
        }),
    };
    let mut state = setup.start(catalogue).map_err(|e| e.to_string())?;
    let mut log = Vec::new();
    for (i, line) in scenario.actions.iter().enumerate() {
        let (next, events) =
            play_line(state, line).map_err(|e| format!("actions[{i}] \"{line}\": {e}"))?;
        state = next;
        log.extend(events.iter().map(ToString::to_string));
        let problems = state.conservation_problems();
        if !problems.is_empty() {
            return Err(format!("after \"{line}\": {problems:?}"));
        }
    }
    let expect = &scenario.expect;
    let ledger: Vec<String> = state.ledger().iter().map(ToString::to_string).collect();
    for line in &expect.scored {
        if !ledger.contains(line) {
            return Err(format!(
                "not scored: {line}\nledger:\n{}",
                ledger.join("\n")
            ));
        }
    }
    let mut rest = log.iter();
    for fragment in &expect.events {
        if !rest.any(|e| e.contains(fragment.as_str())) {
            return Err(format!(
                "no event (in order) containing {fragment:?}\nlog:\n{}",
                log.join("\n")
            ));
        }
    }
    if let Some(prestige) = &expect.prestige {
        for (player, points) in prestige {
            let actual = state.player(*player).map(|p| p.prestige);
            if actual != Some(*points) {
                return Err(format!(
                    "{player} has {actual:?} prestige, expected {points}\nledger:\n{}",
                    ledger.join("\n")
                ));
            }
        }
    }
    if let Some(illegal) = &expect.illegal {
        match play_line(state.clone(), &illegal.action) {
            Ok(_) => return Err(format!("\"{}\" was accepted", illegal.action)),
            Err(Refused::Notation(error)) => return Err(error),
            Err(Refused::Illegal(refused)) => {
                let message = refused.to_string();
                if !message.contains(&illegal.message) {
                    return Err(format!(
                        "\"{}\" refused with {message:?}, expected {:?}",
                        illegal.action, illegal.message
                    ));
                }
                if *refused.state != state {
                    return Err("the refused action changed the state".into());
                }
            }
        }
    }
    if expect.final_score.is_some() {
        let score = state.final_score().ok_or("the game is not over")?;
        check_final(score, scenario)?;
    }
    Ok(())
}

enum Refused {
    Notation(String),
    Illegal(Box<rules::IllegalAction>),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Notation(error) => f.write_str(error),
            Self::Illegal(illegal) => write!(f, "refused: {illegal}"),
        }
    }
}

fn play_line(
    state: rules::GameState,
    line: &str,
) -> Result<(rules::GameState, Vec<rules::Event>), Refused> {
    let (allow, notation) = match line.strip_prefix("allow ") {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    let action = Action::from_notation(notation).map_err(Refused::Notation)?;
    let played = if allow {
        state.play_overriding(&action)
    } else {
        state.play_with_events(&action)
    };
    played.map_err(|e| Refused::Illegal(Box::new(e)))
}

fn check_final(score: &rules::FinalScore, scenario: &Scenario) -> Result<(), String> {
    let expect = scenario
        .expect
        .final_score
        .as_ref()
        .ok_or("a snapshot scenario states its final score")?;
    let ledger: Vec<String> = score.entries.iter().map(ToString::to_string).collect();
    for line in &scenario.expect.scored {
        if !ledger.contains(line) {
            return Err(format!("not scored: {line}\n{score}"));
        }
    }
    if score.totals != expect.totals
        || score.winners != expect.winners
        || score.decided_by != expect.decided_by
    {
        return Err(format!(
            "expected totals {:?}, winners {:?} by {:?}; got\n{score}",
            expect.totals, expect.winners, expect.decided_by
        ));
    }
    Ok(())
}

fn scenario_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

#[test]
fn golden_scenarios() {
    let catalogue = TileCatalogue::arkhanos();
    let files = scenario_files();
    assert!(files.len() >= 30, "only {} scenario files", files.len());
    let mut failures = Vec::new();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(file).unwrap();
        let result = serde_json::from_str::<Scenario>(&text)
            .map_err(|e| format!("unreadable: {e}"))
            .and_then(|scenario| run(&scenario, &catalogue));
        if let Err(error) = result {
            failures.push(format!("{name}: {error}"));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}
