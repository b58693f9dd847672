//! The window as a user sees it while it watches a folder of frames (a recorded or rendered
//! game, e.g. what `scripts/referee-figure` wrote): the game of the folder's `record.json`
//! (its setup; its actions are left out) is opened, the frames are read as fast as the
//! reader goes, and the window is saved as a PNG once each frame number given has been read.
//! For looking at the live view without a display.
//!
//! Run: `cargo run -p tablesight --example window_shots -- DIR OUT_DIR 150,420,840`

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::Duration;

use egui::Vec2;
use egui_kittest::Harness;
use tablesight::app::Command;
use tablesight::{Settings, TablesightApp};
use vision::{FrameFiles, Pace};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, out, frames] = args.as_slice() else {
        eprintln!("usage: window_shots DIR OUT_DIR FRAME[,FRAME...]");
        std::process::exit(2);
    };
    let (dir, out) = (PathBuf::from(dir), PathBuf::from(out));
    let frames: Vec<u64> = (frames.split(','))
        .map(|f| f.parse().expect("frame numbers"))
        .collect();
    std::fs::create_dir_all(&out).unwrap();
    // The game's setup alone: the referee is to find the actions in the frames.
    let text = std::fs::read_to_string(dir.join("record.json")).unwrap();
    let mut record = rules::GameRecord::from_json(&text).unwrap();
    record.actions.clear();
    let setup = out.join("setup.json");
    std::fs::write(&setup, record.to_json()).unwrap();

    let mut harness = Harness::builder()
        .with_size(Vec2::new(1720.0, 960.0))
        .build_ui_state(
            |ui, app: &mut TablesightApp| app.show(ui),
            TablesightApp::new(Settings::default(), 7, None),
        );
    harness.run();
    harness.state_mut().command(Command::Open(setup));
    harness.step();
    let source = FrameFiles::folder(&dir, None, Pace::Fastest).unwrap();
    harness.state_mut().watch(Box::new(source), None).unwrap();
    for frame in frames {
        // The feed reads on its own thread; the window is drawn until it has read enough.
        while harness
            .state()
            .live
            .as_ref()
            .unwrap()
            .feed
            .snapshot()
            .frames_read
            < frame
        {
            harness.step();
            std::thread::sleep(Duration::from_millis(5));
        }
        for _ in 0..3 {
            harness.step();
        }
        let path = out.join(format!("window-{frame:05}.png"));
        harness.render().unwrap().save(&path).unwrap();
        println!("{}", path.display());
    }
}
