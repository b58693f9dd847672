//! Marker detection and camera fit per 1280x720 frame of the rendered A2 mat, and marker
//! detection on a rendered game's frame, on one core:
//! `cargo bench -p tablesight-calibration --bench detection`.

use std::hint::black_box;

#[path = "../tests/common/mod.rs"]
mod common;

use calibration::{MarkerDetector, MatArtwork, MatLayout, fit_camera, observations};
use criterion::{Criterion, criterion_group, criterion_main};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn detection(c: &mut Criterion) {
    let layout = MatLayout::a2();
    let camera = common::true_camera();
    let frame = MatArtwork::new(&layout)
        .unwrap_or_else(|e| panic!("{e}"))
        .render_view(&camera, 1280, 720);
    let mut detector = MarkerDetector::new(&layout, 1280, 720).unwrap_or_else(|e| panic!("{e}"));
    c.bench_function("detect_markers_1280x720", |b| {
        b.iter(|| black_box(detector.detect(&frame)));
    });
    // A rendered game's frame (the demo's, webcam blur and JPEG, two of the mat's markers
    // out of view): the second pass runs on every frame whose markers are not all found.
    let game = image::open(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/live-flag/frame-00086.jpg"
    ))
    .unwrap_or_else(|e| panic!("{e}"))
    .to_luma8();
    let game = calibration::GrayFrame {
        width: game.width() as usize,
        height: game.height() as usize,
        pixels: game.into_raw(),
    };
    assert!(detector.detect(&game).is_ok_and(|d| d.len() >= 8));
    c.bench_function("detect_markers_game_frame_1280x720", |b| {
        b.iter(|| black_box(detector.detect(&game)));
    });
    let detections = detector.detect(&frame).unwrap_or_default();
    let seen = observations(&layout, &detections);
    c.bench_function("fit_camera_48_corners", |b| {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        b.iter(|| black_box(fit_camera(&seen, &camera.intrinsics, &mut rng)));
    });
}

criterion_group!(benches, detection);
criterion_main!(benches);
