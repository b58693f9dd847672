//! Compares the pure-Rust detector Tablesight uses (kornia-apriltag) with the C AprilTag
//! library (the `apriltag` crate) on the rendered test frames: markers found, corner error
//! against the true projection, and time per 1280x720 frame on one thread.
//!
//! `cargo run --release -p tablesight-calibration --features compare-c-apriltag --example compare_detectors`

// A comparison that cannot build its frames should stop with the reason.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::Instant;

use calibration::{GrayFrame, MarkerDetector, MatArtwork, MatLayout};
use nalgebra::Point2;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const WIDTH: usize = 1280;
const HEIGHT: usize = 720;
const RUNS: usize = 20;

/// Markers found as (id, corners), in any corner order.
type Found = Vec<(u32, [Point2<f64>; 4])>;

fn c_apriltag(detector: &mut apriltag::Detector, frame: &GrayFrame) -> Found {
    let mut image = apriltag::Image::zeros_with_stride(WIDTH, HEIGHT, WIDTH).unwrap();
    let stride = image.stride();
    let pixels = image.as_slice_mut();
    for y in 0..HEIGHT {
        pixels[y * stride..y * stride + WIDTH]
            .copy_from_slice(&frame.pixels[y * WIDTH..(y + 1) * WIDTH]);
    }
    detector
        .detect(&image)
        .iter()
        .map(|d| {
            // Pixel edges at whole numbers, like kornia's; see `detection_of` in markers.rs.
            let corners = d.corners().map(|[x, y]| Point2::new(x - 0.5, y - 0.5));
            (d.id() as u32, corners)
        })
        .collect()
}

fn kornia(detector: &mut MarkerDetector, frame: &GrayFrame) -> Found {
    detector
        .detect(frame)
        .unwrap()
        .into_iter()
        .map(|d| (d.id, d.corners_px))
        .collect()
}

/// Root-mean-square distance of each corner to the nearest true corner of its marker.
fn corner_rms(layout: &MatLayout, found: &Found) -> f64 {
    let truth = common::true_camera();
    let mut sum = 0.0;
    let mut n = 0;
    for (id, corners) in found {
        let Some(marker) = layout.marker(*id) else {
            continue;
        };
        let expected: Vec<Point2<f64>> = marker
            .corners()
            .iter()
            .map(|c| truth.project(*c).unwrap())
            .collect();
        for corner in corners {
            let nearest = expected
                .iter()
                .map(|e| (e - corner).norm())
                .fold(f64::INFINITY, f64::min);
            sum += nearest * nearest;
            n += 1;
        }
    }
    (sum / n.max(1) as f64).sqrt()
}

fn timed(mut detect: impl FnMut() -> Found) -> (Found, f64) {
    let found = detect();
    let mut times: Vec<f64> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(detect());
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    (found, times[RUNS / 2])
}

fn main() {
    let layout = MatLayout::a2();
    let clean =
        MatArtwork::new(&layout)
            .unwrap()
            .render_view(&common::true_camera(), WIDTH, HEIGHT);
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    let noisy = common::degrade(&clean, 12, &mut rng);
    let mut hand = noisy.clone();
    for y in 0..HEIGHT {
        for x in WIDTH / 2..WIDTH {
            hand.pixels[y * WIDTH + x] = 95;
        }
    }
    let lamp_jpeg = common::jpeg(
        &common::uneven_light(&common::degrade(&clean, 6, &mut rng)),
        55,
    );
    let frames = [
        ("clean", clean),
        ("blur + noise", noisy),
        ("hand over half", hand),
        ("uneven light + JPEG 55", lamp_jpeg),
    ];

    let mut ours = MarkerDetector::new(&layout, WIDTH, HEIGHT).unwrap();
    let mut theirs = apriltag::Detector::builder()
        .add_family_bits(apriltag::Family::tag_36h11(), 1)
        .build()
        .unwrap();
    theirs.set_thread_number(1);
    // The C library's defaults: decimation 2 (quads found at half resolution, then refined).
    println!(
        "{:<24} {:<24} {:>7} {:>16} {:>10}",
        "frame", "detector", "markers", "corner RMS (px)", "ms/frame"
    );
    for (name, frame) in &frames {
        let (found, ms) = timed(|| kornia(&mut ours, frame));
        println!(
            "{name:<24} {:<24} {:>4}/12 {:>16.2} {ms:>10.2}",
            "kornia-apriltag 0.2",
            found.len(),
            corner_rms(&layout, &found)
        );
        let (found, ms) = timed(|| c_apriltag(&mut theirs, frame));
        println!(
            "{name:<24} {:<24} {:>4}/12 {:>16.2} {ms:>10.2}",
            "apriltag (C) 0.4",
            found.len(),
            corner_rms(&layout, &found)
        );
    }
}
