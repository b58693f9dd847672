//! Fuzzing every parser of the rules engine (snapshot, game record, tile catalogue, move
//! notation) with proptest: arbitrary bytes, arbitrary JSON values, and valid files with
//! one part replaced, removed or added. No input may panic, and every refusal must be a
//! clear message: not empty, a file's line and place named with no unnamed segment
//! (`spellbooks.?[0]`), never serde's "did not match any variant". What parses is used: a snapshot is validated and scored, a
//! record replayed (conservation must hold), a catalogue plays a random game.
//!
//! Each test prints how many inputs it tried. A long run:
//! `PROPTEST_CASES=200000 cargo test -p tablesight-rules --test fuzz -- --nocapture`.

// A test that cannot read its fixtures should fail loudly; helpers unwrap like tests do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../tests/support/json_fuzz.rs"]
mod json_fuzz;

use json_fuzz::{Vocabulary, bytes, fuzz, json_value, mutate, mutation, words};
use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::TestCaseError;
use rules::{
    Action, CatalogueError, FormatError, GameRecord, GameSetup, PlayerColor, RecordError,
    SnapshotError, TableSnapshot, TileCatalogue, random_game, rng_from_seed,
};
use serde_json::Value;

/// A refusal a person can act on: not empty, no empty line, no serde jargon.
fn clear(message: &str) -> Result<(), TestCaseError> {
    prop_assert!(!message.trim().is_empty(), "an empty error message");
    prop_assert!(
        !message.contains("did not match any variant"),
        "an unclear message: {message}"
    );
    for line in message.lines() {
        prop_assert!(!line.trim().is_empty(), "an empty line in: {message:?}");
    }
    Ok(())
}

/// A file that does not parse: its line, and its place with every segment named (serde's
/// path shows an unnamed segment as `?`, as in `spellbooks.?[0]`).
fn clear_format(error: &FormatError) -> Result<(), TestCaseError> {
    clear(&error.to_string())?;
    prop_assert!(error.line > 0, "no line: {error}");
    prop_assert!(!error.path.contains('?'), "an unnamed place: {error}");
    Ok(())
}

fn check_snapshot(text: &str) -> Result<(), TestCaseError> {
    match TableSnapshot::from_json(text) {
        Ok(snapshot) => match snapshot.validate() {
            Ok(table) => {
                let score = table.score();
                prop_assert!(!score.winners.is_empty());
                let again = TableSnapshot::from_json(&table.to_snapshot().to_json())
                    .map_err(|e| TestCaseError::fail(e.to_string()))?;
                prop_assert!(
                    again.validate().is_ok(),
                    "a valid table's own snapshot is refused"
                );
            }
            Err(error) => clear(&error.to_string())?,
        },
        Err(SnapshotError::Format(error)) => clear_format(&error)?,
        Err(error) => clear(&error.to_string())?,
    }
    Ok(())
}

fn check_record(text: &str, catalogue: &TileCatalogue) -> Result<(), TestCaseError> {
    match GameRecord::from_json(text) {
        Ok(record) => match record.replay(catalogue, |_, _, _, _| {}) {
            Ok(state) => {
                let problems = state.conservation_problems();
                prop_assert!(problems.is_empty(), "{problems:?}");
            }
            Err(error) => clear(&error.to_string())?,
        },
        Err(RecordError::Format(error)) => clear_format(&error)?,
        Err(error) => clear(&error.to_string())?,
    }
    Ok(())
}

fn check_catalogue(text: &str) -> Result<(), TestCaseError> {
    match TileCatalogue::from_json(text) {
        Ok(catalogue) => {
            let mut rng = rng_from_seed(1);
            let setup = GameSetup::random(&PlayerColor::ALL[..3], &catalogue, &mut rng);
            if let Err(error) = random_game(setup, &catalogue, &mut rng) {
                clear(&error.to_string())?;
            }
        }
        Err(CatalogueError::Format(error)) => clear_format(&error)?,
        Err(error) => clear(&error.to_string())?,
    }
    Ok(())
}

fn check_notation(text: &str) -> Result<(), TestCaseError> {
    for line in text.lines() {
        match Action::from_notation(line) {
            Ok(action) => {
                let again = Action::from_notation(&action.notation());
                prop_assert_eq!(again, Ok(action));
            }
            Err(error) => clear(&error)?,
        }
    }
    Ok(())
}

/// Words the formats use, and the keys of every format with a few near misses.
const VOCABULARY: Vocabulary = Vocabulary {
    words: concat!(
        "red green blue yellow pink purple orange apprentice master outer central ",
        "two_prestige level_prestige extra_meeple spell up down tablesight-game ",
        "tablesight-tiles start-yellow-1-2 start-purple-even start-yellow-different ",
        "start-pink-yellow-5-6 blue-odd purple-odd spellbook A central2 "
    ),
    more_words: &[""],
    keys: concat!(
        "players towers kind completed_floors top die dice meeple color value player rank ",
        "spellbooks prestige mana_pool round format version setup actions overridden ",
        "first_player a b c central floor_stack id name starting restriction colors ",
        "values all_different bonuses source tiles roll set_tile tower tile place pillar ",
        "bonus_meeple from to reserve spellbook skip_bonus cast effect via_manipulation ",
        "change direction flip metamorphosis exchange rolled pool permutation recall ",
        "end_turn "
    ),
    small_numbers: 20,
};

/// Valid snapshots and records of random games of 2, 3 and 4 players, mid-game and over.
fn valid_documents() -> (Vec<Value>, Vec<Value>) {
    let catalogue = TileCatalogue::arkhanos();
    let mut snapshots = Vec::new();
    let mut records = Vec::new();
    for count in 2..=4 {
        let mut rng = rng_from_seed(count as u64);
        let setup = GameSetup::random(&PlayerColor::ALL[..count], &catalogue, &mut rng);
        let (record, over) = random_game(setup, &catalogue, &mut rng).unwrap();
        let mut state = record.setup.start(&catalogue).unwrap();
        for action in &record.actions[..record.actions.len() / 2] {
            state = state.play(action).unwrap();
        }
        for table in [state.table(), over.table()] {
            snapshots.push(serde_json::from_str(&table.to_snapshot().to_json()).unwrap());
        }
        records.push(serde_json::from_str(&record.to_json()).unwrap());
    }
    (snapshots, records)
}

#[test]
fn fuzz_every_parser_with_arbitrary_bytes() {
    let catalogue = TileCatalogue::arkhanos();
    fuzz("bytes", bytes(), |text| {
        check_snapshot(&text)?;
        check_record(&text, &catalogue)?;
        check_catalogue(&text)?;
        check_notation(&text)
    });
}

#[test]
fn fuzz_every_json_parser_with_arbitrary_values() {
    let catalogue = TileCatalogue::arkhanos();
    fuzz("json values", json_value(&VOCABULARY), |value| {
        let text = value.to_string();
        check_snapshot(&text)?;
        check_record(&text, &catalogue)?;
        check_catalogue(&text)
    });
}

#[test]
fn fuzz_snapshots_with_one_part_broken() {
    let (snapshots, _) = valid_documents();
    let strategy = (select(snapshots), mutation(&VOCABULARY));
    fuzz("broken snapshots", strategy, |(document, mutation)| {
        check_snapshot(&mutate(&document, &mutation))
    });
}

#[test]
fn fuzz_records_with_one_part_broken() {
    let catalogue = TileCatalogue::arkhanos();
    let (_, records) = valid_documents();
    let strategy = (select(records), mutation(&VOCABULARY));
    fuzz("broken records", strategy, |(document, mutation)| {
        check_record(&mutate(&document, &mutation), &catalogue)
    });
}

#[test]
fn fuzz_catalogues_with_one_part_broken() {
    let shipped: Value = serde_json::from_str(&TileCatalogue::arkhanos().to_json()).unwrap();
    fuzz("broken catalogues", mutation(&VOCABULARY), |mutation| {
        check_catalogue(&mutate(&shipped, &mutation))
    });
}

/// Words of the notation, and some that are not.
const NOTATION_WORDS: &str = concat!(
    "roll tile red green blue yellow place bonus skip cast recall end apprentice ",
    "master spellbook spell4 spell9 change up down flip metamorphosis exchange ",
    "permutation via manipulation yellow2 pink6 blue0 purple77 A1 B3 C4 central2 ",
    "central A 1 3 9 é Aé 2é yellow "
);

#[test]
fn fuzz_move_notation() {
    let word = prop_oneof![
        select(words(NOTATION_WORDS, &["", "\t"])).prop_map(String::from),
        ".{0,6}"
    ];
    let line = prop::collection::vec(word, 0..8).prop_map(|words| words.join(" "));
    fuzz("notation lines", line, |line| check_notation(&line));
}
