//! The dependency direction of `STYLE.md`, checked on the resolved dependency graph:
//!
//! ```text
//! rules        -> nothing of ours; no image, egui, tract, nokhwa
//! calibration  -> nothing of ours
//! vision       -> calibration (never rules)
//! synth        -> rules, calibration (never vision: rendered frames reach the reader as files)
//! referee      -> rules (vision and calibration when the camera path comes; never synth, the
//!                 app or a GUI: it takes observations and gives actions, flags, desyncs)
//! app          -> rules, vision, calibration, synth, referee
//! ```

// A test that cannot read its fixtures should fail loudly; helpers unwrap like tests do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use serde_json::Value;

/// Crates that must never be in the normal dependency tree of a crate: exact names, or
/// name prefixes written `name*`.
const FORBIDDEN: &[(&str, &[&str])] = &[
    (
        "tablesight-rules",
        &[
            "tablesight",
            "tablesight-vision",
            "tablesight-calibration",
            "image*",
            "imageproc",
            "egui*",
            "eframe",
            "tract*",
            "nokhwa*",
            "winit",
            "wgpu*",
            "ort*",
        ],
    ),
    (
        "tablesight-calibration",
        &[
            "tablesight",
            "tablesight-rules",
            "tablesight-vision",
            "egui*",
            "eframe",
            "tract*",
            "nokhwa*",
            "winit",
            "wgpu*",
        ],
    ),
    (
        "tablesight-vision",
        &[
            "tablesight",
            "tablesight-rules",
            "egui*",
            "eframe",
            "winit",
            "wgpu*",
        ],
    ),
    (
        "tablesight-synth",
        &[
            "tablesight",
            "tablesight-vision",
            "tablesight-referee",
            "egui*",
            "eframe",
            "tract*",
            "nokhwa*",
            "winit",
            "wgpu*",
        ],
    ),
    (
        "tablesight-referee",
        &[
            "tablesight",
            "tablesight-synth",
            "egui*",
            "eframe",
            "winit",
            "wgpu*",
        ],
    ),
];

fn matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name == prefix || name.starts_with(&format!("{prefix}-")),
        None => name == pattern,
    }
}

/// Each package's normal (not dev, not build) dependencies, by package name.
fn dependency_graph() -> (BTreeMap<String, Vec<String>>, BTreeMap<String, String>) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: Value = serde_json::from_slice(&output.stdout).unwrap();
    let names: BTreeMap<String, String> = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["id"].as_str().unwrap().to_owned(),
                p["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let mut graph = BTreeMap::new();
    for node in metadata["resolve"]["nodes"].as_array().unwrap() {
        let deps = node["deps"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| {
                d["dep_kinds"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|k| k["kind"].is_null())
            })
            .map(|d| d["pkg"].as_str().unwrap().to_owned())
            .collect();
        graph.insert(node["id"].as_str().unwrap().to_owned(), deps);
    }
    (graph, names)
}

fn closure(graph: &BTreeMap<String, Vec<String>>, root: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![root.to_owned()];
    while let Some(id) = todo.pop() {
        for dep in graph.get(&id).into_iter().flatten() {
            if seen.insert(dep.clone()) {
                todo.push(dep.clone());
            }
        }
    }
    seen
}

fn dependencies_of(package: &str) -> BTreeSet<String> {
    let (graph, names) = dependency_graph();
    let id = names
        .iter()
        .find(|(_, name)| *name == package)
        .map(|(id, _)| id.clone())
        .unwrap_or_else(|| panic!("no package {package} in the workspace"));
    closure(&graph, &id)
        .iter()
        .map(|dep| names[dep].clone())
        .collect()
}

#[test]
fn lower_layers_never_depend_on_higher_ones() {
    let mut violations = Vec::new();
    for (package, forbidden) in FORBIDDEN {
        for dep in dependencies_of(package) {
            if forbidden.iter().any(|pattern| matches(pattern, &dep)) {
                violations.push(format!("{package} depends on {dep}"));
            }
        }
    }
    assert!(violations.is_empty(), "{violations:#?}");
}

#[test]
fn the_app_is_the_one_place_that_knows_all_three() {
    let deps = dependencies_of("tablesight");
    for layer in [
        "tablesight-rules",
        "tablesight-vision",
        "tablesight-calibration",
        "tablesight-referee",
    ] {
        assert!(deps.contains(layer), "the app does not depend on {layer}");
    }
    assert!(dependencies_of("tablesight-vision").contains("tablesight-calibration"));
    assert!(dependencies_of("tablesight-referee").contains("tablesight-rules"));
}
