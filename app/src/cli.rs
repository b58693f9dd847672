//! The headless subcommands: score a snapshot, replay or check a file, simulate a game,
//! print the tile catalogue.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use rules::{
    GameRecord, GameSetup, PlayerColor, RecordError, SnapshotError, TableSnapshot, TileCatalogue,
    random_game, rng_from_seed,
};
use serde_json::json;

/// What a command reports back to `main`: success, or problems already printed.
pub enum Outcome {
    Ok,
    /// The input was read but is invalid or illegal; the explanation was printed.
    Invalid,
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
}

/// The shipped catalogue, or the user's file given with `--tiles`.
pub fn catalogue(path: Option<&Path>) -> Result<TileCatalogue> {
    match path {
        None => Ok(TileCatalogue::arkhanos()),
        Some(path) => TileCatalogue::from_json(&read(path)?)
            .with_context(|| format!("{} is not a usable tile catalogue", path.display())),
    }
}

/// `tablesight score FILE [--json]`: end-of-game scoring of a snapshot.
pub fn score(out: &mut impl Write, path: &Path, as_json: bool) -> Result<Outcome> {
    let snapshot = match TableSnapshot::from_json(&read(path)?) {
        Ok(snapshot) => snapshot,
        Err(error) => return report_snapshot_error(path, &error),
    };
    let table = match snapshot.validate() {
        Ok(table) => table,
        Err(error) => return report_snapshot_error(path, &error),
    };
    let score = table.score();
    if as_json {
        writeln!(out, "{}", serde_json::to_string_pretty(&score)?)?;
    } else {
        writeln!(out, "{score}")?;
    }
    Ok(Outcome::Ok)
}

fn report_snapshot_error(path: &Path, error: &SnapshotError) -> Result<Outcome> {
    eprintln!("{} is not a valid snapshot:", path.display());
    for line in error.to_string().lines() {
        eprintln!("  {line}");
    }
    Ok(Outcome::Invalid)
}

fn report_record_error(path: &Path, error: &RecordError) -> Result<Outcome> {
    match error {
        RecordError::Illegal { .. } => eprintln!("{}: {error}", path.display()),
        _ => {
            eprintln!("{} is not a valid game record:", path.display());
            for line in error.to_string().lines() {
                eprintln!("  {line}");
            }
        }
    }
    Ok(Outcome::Invalid)
}

/// `tablesight replay FILE [--json]`: replays a game record, printing every event and the
/// final score; stops at the first illegal action.
pub fn replay(
    out: &mut impl Write,
    path: &Path,
    tiles: Option<&Path>,
    as_json: bool,
) -> Result<Outcome> {
    let catalogue = catalogue(tiles)?;
    let record = match GameRecord::from_json(&read(path)?) {
        Ok(record) => record,
        Err(error) => return report_record_error(path, &error),
    };
    let mut log = Vec::new();
    let mut written = Ok(());
    let result = record.replay(&catalogue, |index, action, events, _| {
        if as_json {
            for event in events {
                log.push(json!({
                    "action": index,
                    "text": event.to_string(),
                    "event": event,
                }));
            }
        } else if written.is_ok() {
            written = print_step(out, index, action, events);
        }
    });
    written?;
    let state = match result {
        Ok(state) => state,
        Err(error) => {
            if as_json {
                writeln!(
                    out,
                    "{}",
                    serde_json::to_string_pretty(&json!({ "events": log }))?
                )?;
            }
            return report_record_error(path, &error);
        }
    };
    if as_json {
        let output = json!({
            "events": log,
            "over": state.is_over(),
            "prestige": state.players().iter().map(|p| (p.color, p.prestige)).collect::<std::collections::BTreeMap<_, _>>(),
            "final_score": state.final_score(),
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&output)?)?;
    } else if !state.is_over() {
        writeln!(
            out,
            "The record stops in round {} of {}; prestige so far: {}",
            state.round(),
            state.rounds(),
            state
                .players()
                .iter()
                .map(|p| format!("{} {}", p.color, p.prestige))
                .collect::<Vec<_>>()
                .join(", ")
        )?;
    }
    Ok(Outcome::Ok)
}

fn print_step(
    out: &mut impl Write,
    index: usize,
    action: &rules::Action,
    events: &[rules::Event],
) -> std::io::Result<()> {
    writeln!(out, "[{index}] {}", action.notation())?;
    for event in events {
        for line in event.to_string().lines() {
            writeln!(out, "    {line}")?;
        }
    }
    Ok(())
}

/// `tablesight check FILE`: validates a snapshot or a game record and lists every problem.
pub fn check(out: &mut impl Write, path: &Path, tiles: Option<&Path>) -> Result<Outcome> {
    let text = read(path)?;
    let value: serde_json::Value = match serde_json::from_str(&text) {
        Ok(value) => value,
        Err(error) => {
            eprintln!("{} is not valid JSON: {error}", path.display());
            return Ok(Outcome::Invalid);
        }
    };
    let is_record = value.get("actions").is_some() || value.get("setup").is_some();
    if is_record {
        let catalogue = catalogue(tiles)?;
        let record = match GameRecord::from_json(&text) {
            Ok(record) => record,
            Err(error) => return report_record_error(path, &error),
        };
        match record.replay(&catalogue, |_, _, _, _| {}) {
            Ok(state) => {
                let problems = state.conservation_problems();
                if !problems.is_empty() {
                    eprintln!("{}: the replayed game breaks conservation:", path.display());
                    for problem in problems {
                        eprintln!("  {problem}");
                    }
                    return Ok(Outcome::Invalid);
                }
                writeln!(
                    out,
                    "{}: a valid game record of {} actions ({}).",
                    path.display(),
                    record.actions.len(),
                    if state.is_over() {
                        "finished".to_owned()
                    } else {
                        format!("stops in round {}", state.round())
                    }
                )?;
                Ok(Outcome::Ok)
            }
            Err(error) => report_record_error(path, &error),
        }
    } else if value.get("towers").is_some() {
        let snapshot = match TableSnapshot::from_json(&text) {
            Ok(snapshot) => snapshot,
            Err(error) => return report_snapshot_error(path, &error),
        };
        match snapshot.validate() {
            Ok(_) => {
                writeln!(out, "{}: a valid end-of-game snapshot.", path.display())?;
                Ok(Outcome::Ok)
            }
            Err(error) => report_snapshot_error(path, &error),
        }
    } else {
        eprintln!(
            "{} is neither a game record (with \"setup\" and \"actions\") nor a snapshot (with \"towers\").",
            path.display()
        );
        Ok(Outcome::Invalid)
    }
}

/// `tablesight simulate`: a random legal game, written as a game record.
pub fn simulate(
    out: &mut impl Write,
    players: &[PlayerColor],
    seed: u64,
    tiles: Option<&Path>,
    destination: Option<&PathBuf>,
) -> Result<Outcome> {
    let catalogue = catalogue(tiles)?;
    if !(2..=4).contains(&players.len()) {
        bail!("a game has 2 to 4 players, {} given", players.len());
    }
    let mut rng = rng_from_seed(seed);
    let setup = GameSetup::random(players, &catalogue, &mut rng);
    let (record, state) = random_game(setup, &catalogue, &mut rng)?;
    let json = record.to_json();
    match destination {
        Some(path) => {
            std::fs::write(path, json + "\n")
                .with_context(|| format!("cannot write {}", path.display()))?;
            if let Some(score) = state.final_score() {
                eprintln!(
                    "wrote {} ({} actions); winner: {}",
                    path.display(),
                    record.actions.len(),
                    score
                        .winners
                        .iter()
                        .map(|p| p.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
        }
        None => writeln!(out, "{json}")?,
    }
    Ok(Outcome::Ok)
}
