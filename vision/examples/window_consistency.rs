//! Whether a camera's frame read again in a window (`DiceReader::read_again`, the finder on
//! a window around what moved) reads each item as the whole frame does: every item of each
//! frame read whole, then, in turn, a patch painted on its centre makes the blocks it
//! touches the region, and the frame itself is read again there. Counts the items found
//! again at the same box (to a pixel) and read the same, at the same box but read
//! otherwise, a cell or so away (the finder peaked elsewhere), and not at all.
//! Run: `cargo run --release -p tablesight-vision --example window_consistency -- [--models DIR] FRAME...`

#![allow(clippy::unwrap_used, clippy::expect_used)] // an example fails loudly on bad input

use std::path::Path;

use vision::{DiceReader, ReaderSettings, read_rgb};

#[path = "../tests/common/mod.rs"]
mod common;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut reader = match args.iter().position(|a| a == "--models") {
        Some(i) => {
            let dir = Path::new(&args[i + 1]).to_owned();
            args.drain(i..i + 2);
            DiceReader::from_folder(&dir)
        }
        None => DiceReader::shipped(),
    }
    .expect("the models");
    reader.settings = ReaderSettings::live();
    let (mut same, mut read_otherwise, mut moved, mut lost) = (0, 0, 0, 0);
    for path in &args {
        let frame = read_rgb(Path::new(path)).expect("a picture");
        for ((what, box_px), again) in common::each_item_read_again(&mut reader, &frame) {
            // A meeple on its die can be two items at one box (the finder peaked for both
            // in one cell): the same when any item at the box reads the same.
            let at_box: Vec<_> = (again.iter())
                .filter(|(_, b)| common::within(*b, box_px, 1.0))
                .collect();
            let near = again.iter().find(|(_, b)| common::within(*b, box_px, 12.0));
            match (at_box.first(), near) {
                _ if at_box.iter().any(|(w, _)| *w == what) => same += 1,
                (Some((w, _)), _) => {
                    read_otherwise += 1;
                    println!("{path}: {what} at {box_px:?} read as {w}");
                }
                (None, Some((w, b))) => {
                    moved += 1;
                    println!("{path}: {what} at {box_px:?} found at {b:?}, read as {w}");
                }
                (None, None) => {
                    lost += 1;
                    println!("{path}: {what} at {box_px:?} not found again");
                }
            }
        }
    }
    let all = same + read_otherwise + moved + lost;
    println!(
        "{all} items of {} frames read again in a window: {same} at the same box and read the same, {read_otherwise} at the same box read otherwise, {moved} a cell or so away, {lost} not found",
        args.len()
    );
}
