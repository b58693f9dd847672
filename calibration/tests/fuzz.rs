//! Fuzzing the calibration crate's file parsers (mat layout `tablesight-mat`, saved
//! calibration `tablesight-calibration`) with proptest: arbitrary bytes, arbitrary JSON
//! values, and the shipped files with one part replaced, removed or added. No input may
//! panic; every refusal is a message that is not empty; what parses writes itself out and
//! reads back.
//!
//! Each test prints how many inputs it tried. A long run:
//! `PROPTEST_CASES=200000 cargo test -p tablesight-calibration --test fuzz -- --nocapture`.

// A test that cannot read its fixtures should fail loudly; helpers unwrap like tests do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::cell::Cell;
use std::fmt::Debug;

use calibration::{Camera, Intrinsics, MatLayout, SavedCalibration};
use nalgebra::Point3;
use proptest::prelude::*;
use proptest::sample::{Index, select};
use proptest::test_runner::{TestCaseError, TestRunner};
use serde_json::Value;

/// Cases per test: `PROPTEST_CASES`, or a few hundred so that `cargo test` stays quick.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(300)
}

/// Runs `test` on `cases()` inputs from `strategy` and prints how many were tried.
fn fuzz<S: Strategy>(name: &str, strategy: S, test: impl Fn(S::Value) -> Result<(), TestCaseError>)
where
    S::Value: Debug,
{
    let config = ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let tried = Cell::new(0u64);
    let result = TestRunner::new(config).run(&strategy, |input| {
        tried.set(tried.get() + 1);
        test(input)
    });
    eprintln!("fuzz {name}: {} inputs tried", tried.get());
    if let Err(error) = result {
        panic!("{name}: {error}");
    }
}

fn check_layout(text: &str) -> Result<(), TestCaseError> {
    match MatLayout::from_json(text) {
        Ok(layout) => {
            // Read back, not compared: serde_json may read an extreme float (1e-75) back
            // one unit in the last place away.
            let again = MatLayout::from_json(&serde_json::to_string(&layout).unwrap());
            prop_assert!(again.is_ok(), "{again:?}");
        }
        Err(error) => prop_assert!(!error.to_string().trim().is_empty()),
    }
    Ok(())
}

fn check_saved(text: &str) -> Result<(), TestCaseError> {
    match SavedCalibration::from_json(text) {
        Ok(saved) => {
            let _ = saved.camera();
            let again = SavedCalibration::from_json(&saved.to_json());
            prop_assert!(again.is_ok(), "{again:?}");
        }
        Err(error) => prop_assert!(!error.to_string().trim().is_empty()),
    }
    Ok(())
}

const WORDS: &str = concat!(
    "tablesight-mat tablesight-calibration tag36h11 tower roll_area mana_pool ",
    "spellbook tower-a "
);

const KEYS: &str = concat!(
    "format version name size_mm marker_family markers zones id center_mm kind mat ",
    "image_size_px intrinsics fx_px fy_px cx_px cy_px k1 k2 rotation_rad ",
    "translation_mm reprojection_median_px reprojection_max_px size centre_mm "
);

/// The words of a space-separated list, and `more` that such a list cannot hold.
fn words(list: &'static str, more: &[&'static str]) -> Vec<&'static str> {
    list.split_whitespace()
        .chain(more.iter().copied())
        .collect()
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (0u64..700).prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|x| serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)),
        select(words(WORDS, &["", "A2 play mat (594 x 420 mm)"])).prop_map(Value::from),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 96, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..8)
                .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    })
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        select(words(KEYS, &[])).prop_map(String::from),
        "[a-z_]{0,10}"
    ]
}

/// How a valid document is broken.
#[derive(Clone, Debug)]
enum Mutation {
    Replace(Index, Value),
    Remove(Index),
    Insert(Index, String, Value),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<Index>(), json_value()).prop_map(|(at, value)| Mutation::Replace(at, value)),
        any::<Index>().prop_map(Mutation::Remove),
        (any::<Index>(), key(), json_value())
            .prop_map(|(at, key, value)| Mutation::Insert(at, key, value)),
    ]
}

/// Every node of `value` as a JSON pointer.
fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                pointers(item, format!("{at}/{i}"), out);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                pointers(
                    item,
                    format!("{at}/{}", key.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        _ => {}
    }
    out.push(at);
}

fn mutate(document: &Value, mutation: &Mutation) -> String {
    let mut value = document.clone();
    let mut all = Vec::new();
    pointers(&value, String::new(), &mut all);
    match mutation {
        Mutation::Replace(at, new) => {
            if let Some(node) = value.pointer_mut(at.get(&all).as_str()) {
                *node = new.clone();
            }
        }
        Mutation::Remove(at) => {
            if let Some((parent, last)) = at.get(&all).rsplit_once('/') {
                match value.pointer_mut(parent) {
                    Some(Value::Object(map)) => {
                        map.remove(&last.replace("~1", "/").replace("~0", "~"));
                    }
                    Some(Value::Array(items)) => {
                        if let Ok(i) = last.parse::<usize>() {
                            items.remove(i);
                        }
                    }
                    _ => {}
                }
            }
        }
        Mutation::Insert(at, key, new) => match value.pointer_mut(at.get(&all).as_str()) {
            Some(Value::Object(map)) => {
                map.insert(key.clone(), new.clone());
            }
            Some(Value::Array(items)) => items.push(new.clone()),
            _ => {}
        },
    }
    value.to_string()
}

/// A saved calibration of the shipped mat, as `tablesight calibrate --save` writes it.
fn saved_calibration() -> Value {
    let layout = MatLayout::a2();
    let camera = Camera::looking_at(
        Intrinsics::from_field_of_view(1280, 720, 65.0),
        Point3::new(297.0, 700.0, -500.0),
        Point3::new(297.0, 210.0, 0.0),
    );
    let saved = SavedCalibration::new(&camera, &layout, [1280, 720], (0.4, 1.1));
    serde_json::from_str(&saved.to_json()).unwrap()
}

#[test]
fn fuzz_both_parsers_with_arbitrary_bytes() {
    let byte = prop_oneof![
        any::<u8>(),
        select(b"{}[]\":,-.0123456789 \nelnrtu".to_vec())
    ];
    let bytes =
        prop::collection::vec(byte, 0..256).prop_map(|b| String::from_utf8_lossy(&b).into_owned());
    fuzz("bytes", bytes, |text| {
        check_layout(&text)?;
        check_saved(&text)
    });
}

#[test]
fn fuzz_both_parsers_with_arbitrary_values() {
    fuzz("json values", json_value(), |value| {
        let text = value.to_string();
        check_layout(&text)?;
        check_saved(&text)
    });
}

#[test]
fn fuzz_the_shipped_layout_with_one_part_broken() {
    let shipped: Value = serde_json::to_value(MatLayout::a2()).unwrap();
    fuzz("broken layouts", mutation(), |mutation| {
        check_layout(&mutate(&shipped, &mutation))
    });
}

#[test]
fn fuzz_a_saved_calibration_with_one_part_broken() {
    let saved = saved_calibration();
    fuzz("broken calibrations", mutation(), |mutation| {
        check_saved(&mutate(&saved, &mutation))
    });
}

#[test]
fn unknown_keys_are_refused() {
    let mut layout = serde_json::to_value(MatLayout::a2()).unwrap();
    layout["zones"][0]["centre_mm"] = Value::from(3);
    let error = MatLayout::from_json(&layout.to_string())
        .unwrap_err()
        .to_string();
    assert!(error.contains("unknown field `centre_mm`"), "{error}");
    let mut saved = saved_calibration();
    saved["intrinsics"]["k3"] = Value::from(0.1);
    let error = SavedCalibration::from_json(&saved.to_string())
        .unwrap_err()
        .to_string();
    assert!(error.contains("unknown field `k3`"), "{error}");
}
