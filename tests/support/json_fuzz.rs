//! What the fuzz tests of the file parsers share (`rules/tests/fuzz.rs` and
//! `calibration/tests/fuzz.rs` include this file with `#[path]`): the runner that counts its
//! inputs, arbitrary bytes, arbitrary JSON values made of a format's own words, and a valid
//! document with one part replaced, removed or added.

use std::cell::Cell;
use std::fmt::Debug;

use proptest::prelude::*;
use proptest::sample::{Index, select};
use proptest::test_runner::{TestCaseError, TestRunner};
use serde_json::Value;

/// The words of a crate's formats, so that arbitrary values often get past the first check.
pub struct Vocabulary {
    /// Words the formats use as values, separated by spaces.
    pub words: &'static str,
    /// Values such a list cannot hold (the empty string, a name with spaces).
    pub more_words: &'static [&'static str],
    /// The keys of every format, and a few near misses, separated by spaces.
    pub keys: &'static str,
    /// Whole numbers below this are drawn often (counts, indices, sizes).
    pub small_numbers: u64,
}

/// Cases per test: `PROPTEST_CASES`, or a few hundred so that `cargo test` stays quick.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(300)
}

/// Runs `test` on `cases()` inputs from `strategy` and prints how many were tried.
pub fn fuzz<S: Strategy>(
    name: &str,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) where
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

/// The words of a space-separated list, and `more` that such a list cannot hold.
pub fn words(list: &'static str, more: &[&'static str]) -> Vec<&'static str> {
    list.split_whitespace()
        .chain(more.iter().copied())
        .collect()
}

/// Bytes, often JSON-like.
pub fn bytes() -> impl Strategy<Value = String> {
    let byte = prop_oneof![
        any::<u8>(),
        select(b"{}[]\":,-.0123456789 \nelnrtu".to_vec())
    ];
    prop::collection::vec(byte, 0..256).prop_map(|b| String::from_utf8_lossy(&b).into_owned())
}

pub fn json_value(vocabulary: &Vocabulary) -> impl Strategy<Value = Value> + use<> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (0..vocabulary.small_numbers).prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|x| serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)),
        select(words(vocabulary.words, vocabulary.more_words)).prop_map(Value::from),
        ".{0,12}".prop_map(Value::String),
    ];
    let keys = vocabulary.keys;
    leaf.prop_recursive(5, 96, 8, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec((key(keys), inner), 0..8)
                .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    })
}

fn key(keys: &'static str) -> impl Strategy<Value = String> {
    prop_oneof![
        select(words(keys, &[])).prop_map(String::from),
        "[a-z_]{0,10}"
    ]
}

/// How a valid document is broken.
#[derive(Clone, Debug)]
pub enum Mutation {
    Replace(Index, Value),
    Remove(Index),
    Insert(Index, String, Value),
}

pub fn mutation(vocabulary: &Vocabulary) -> impl Strategy<Value = Mutation> + use<> {
    prop_oneof![
        (any::<Index>(), json_value(vocabulary))
            .prop_map(|(at, value)| Mutation::Replace(at, value)),
        any::<Index>().prop_map(Mutation::Remove),
        (any::<Index>(), key(vocabulary.keys), json_value(vocabulary))
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

/// `document` with `mutation` done to it, as text.
pub fn mutate(document: &Value, mutation: &Mutation) -> String {
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
