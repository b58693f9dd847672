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

#[path = "../../tests/support/json_fuzz.rs"]
mod json_fuzz;

use calibration::{Camera, Intrinsics, MatLayout, SavedCalibration};
use json_fuzz::{Vocabulary, bytes, fuzz, json_value, mutate, mutation};
use nalgebra::Point3;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::Value;

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

const VOCABULARY: Vocabulary = Vocabulary {
    words: concat!(
        "tablesight-mat tablesight-calibration tag36h11 tower roll_area mana_pool ",
        "spellbook tower-a "
    ),
    more_words: &["", "A2 play mat (594 x 420 mm)"],
    keys: concat!(
        "format version name size_mm marker_family markers zones id center_mm kind mat ",
        "image_size_px intrinsics fx_px fy_px cx_px cy_px k1 k2 rotation_rad ",
        "translation_mm reprojection_median_px reprojection_max_px size centre_mm "
    ),
    small_numbers: 700,
};

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
    fuzz("bytes", bytes(), |text| {
        check_layout(&text)?;
        check_saved(&text)
    });
}

#[test]
fn fuzz_both_parsers_with_arbitrary_values() {
    fuzz("json values", json_value(&VOCABULARY), |value| {
        let text = value.to_string();
        check_layout(&text)?;
        check_saved(&text)
    });
}

#[test]
fn fuzz_the_shipped_layout_with_one_part_broken() {
    let shipped: Value = serde_json::to_value(MatLayout::a2()).unwrap();
    fuzz("broken layouts", mutation(&VOCABULARY), |mutation| {
        check_layout(&mutate(&shipped, &mutation))
    });
}

#[test]
fn fuzz_a_saved_calibration_with_one_part_broken() {
    let saved = saved_calibration();
    fuzz("broken calibrations", mutation(&VOCABULARY), |mutation| {
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
