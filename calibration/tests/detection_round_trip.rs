//! Round trips through pixels: the mat rendered as the webcam sees it (perspective, lens
//! distortion, anti-aliasing), its markers detected, the camera's pose recovered.

// A round trip that cannot build its scene should fail loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use calibration::{GrayFrame, MarkerDetector, MatArtwork, MatLayout, fit_camera, observations};
use common::{FLOOR_HEIGHT_MM, position_error_mm, rotation_error_deg, true_camera, webcam};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const WIDTH_PX: usize = 1280;
const HEIGHT_PX: usize = 720;

fn rendered() -> (MatLayout, GrayFrame) {
    let layout = MatLayout::a2();
    let frame = MatArtwork::new(&layout)
        .unwrap()
        .render_view(&true_camera(), WIDTH_PX, HEIGHT_PX);
    (layout, frame)
}

/// Sensor noise (uniform, +-amplitude grey levels) and a 3x3 box blur (defocus).
fn degrade(frame: &GrayFrame, amplitude: i32, rng: &mut impl Rng) -> GrayFrame {
    let (w, h) = (frame.width, frame.height);
    let mut blurred = frame.pixels.clone();
    for y in 1..h - 1 {
        for x in 1..w - 1 {
            let mut sum = 0u32;
            for dy in 0..3 {
                for dx in 0..3 {
                    sum += u32::from(frame.pixels[(y + dy - 1) * w + x + dx - 1]);
                }
            }
            blurred[y * w + x] = (sum / 9) as u8;
        }
    }
    let pixels = blurred
        .into_iter()
        .map(|p| (i32::from(p) + rng.random_range(-amplitude..=amplitude)).clamp(0, 255) as u8)
        .collect();
    GrayFrame {
        width: w,
        height: h,
        pixels,
    }
}

#[test]
fn every_visible_marker_is_found_with_its_id() {
    let (layout, frame) = rendered();
    let mut detector = MarkerDetector::new(&layout, WIDTH_PX, HEIGHT_PX).unwrap();
    let mut ids: Vec<u32> = detector
        .detect(&frame)
        .unwrap()
        .iter()
        .map(|d| d.id)
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, (0..12).collect::<Vec<u32>>());
}

#[test]
fn the_pose_is_recovered_from_a_rendered_frame() {
    let (layout, frame) = rendered();
    let truth = true_camera();
    let mut detector = MarkerDetector::new(&layout, WIDTH_PX, HEIGHT_PX).unwrap();
    let detections = detector.detect(&frame).unwrap();
    // Corners come back in the printed order: each lands on its true projection.
    for d in &detections {
        for (corner, pixel) in layout
            .marker(d.id)
            .unwrap()
            .corners()
            .into_iter()
            .zip(d.corners_px)
        {
            let expected = truth.project(corner).unwrap();
            assert!(
                (expected - pixel).norm() < 1.5,
                "marker {}: {expected} vs {pixel}",
                d.id
            );
        }
    }
    let fit = fit_camera(
        &observations(&layout, &detections),
        &webcam(),
        &mut ChaCha8Rng::seed_from_u64(5),
    )
    .unwrap();
    let rotation_deg = rotation_error_deg(&fit.camera, &truth);
    let position_mm = position_error_mm(&fit.camera, &truth);
    assert!(rotation_deg < 0.3, "{rotation_deg}");
    assert!(position_mm < 5.0, "{position_mm}");
    assert!(
        fit.reprojection_median_px < 1.0,
        "{}",
        fit.reprojection_median_px
    );
    let tower = layout
        .zone("tower-a")
        .unwrap()
        .center()
        .at_height(5.0 * FLOOR_HEIGHT_MM);
    let off_px = (fit.camera.project(tower).unwrap() - truth.project(tower).unwrap()).norm();
    assert!(off_px < 2.0, "{off_px}");
}

#[test]
fn blur_noise_and_a_hand_over_half_the_mat_still_give_the_pose() {
    let (layout, frame) = rendered();
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    let mut frame = degrade(&frame, 12, &mut rng);
    // A hand and arm over the right half of the frame.
    for y in 0..HEIGHT_PX {
        for x in WIDTH_PX / 2..WIDTH_PX {
            frame.pixels[y * WIDTH_PX + x] = 95;
        }
    }
    let mut detector = MarkerDetector::new(&layout, WIDTH_PX, HEIGHT_PX).unwrap();
    let detections = detector.detect(&frame).unwrap();
    assert!(
        (3..12).contains(&detections.len()),
        "{} markers",
        detections.len()
    );
    let truth = true_camera();
    let fit = fit_camera(&observations(&layout, &detections), &webcam(), &mut rng).unwrap();
    let rotation_deg = rotation_error_deg(&fit.camera, &truth);
    let position_mm = position_error_mm(&fit.camera, &truth);
    assert!(rotation_deg < 0.5, "{rotation_deg}");
    assert!(position_mm < 10.0, "{position_mm}");
}

#[test]
fn a_frame_of_another_size_is_refused() {
    let (layout, _) = rendered();
    let mut detector = MarkerDetector::new(&layout, WIDTH_PX, HEIGHT_PX).unwrap();
    let small = GrayFrame {
        width: 640,
        height: 480,
        pixels: vec![0; 640 * 480],
    };
    let error = detector.detect(&small).unwrap_err().to_string();
    assert!(
        error.contains("made for 1280x720 frames, this one is 640x480"),
        "{error}"
    );
}

/// A warm lamp at the top-left: light falls from 110 % there to 45 % in the far corner.
fn uneven_light(frame: &GrayFrame) -> GrayFrame {
    let (w, h) = (frame.width as f64, frame.height as f64);
    let pixels = frame
        .pixels
        .iter()
        .enumerate()
        .map(|(i, &p)| {
            let (x, y) = ((i % frame.width) as f64 / w, (i / frame.width) as f64 / h);
            let light = 1.1 - 0.65 * (x * x + y * y).sqrt() / std::f64::consts::SQRT_2;
            (f64::from(p) * light).round().clamp(0.0, 255.0) as u8
        })
        .collect();
    GrayFrame {
        pixels,
        ..frame.clone()
    }
}

/// The frame through a webcam's JPEG encoder at `quality` and back.
fn jpeg(frame: &GrayFrame, quality: u8) -> GrayFrame {
    let image = image::GrayImage::from_raw(
        frame.width as u32,
        frame.height as u32,
        frame.pixels.clone(),
    )
    .unwrap();
    let mut bytes = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, quality)
        .encode_image(&image)
        .unwrap();
    let decoded = image::load_from_memory(&bytes).unwrap().to_luma8();
    GrayFrame {
        width: frame.width,
        height: frame.height,
        pixels: decoded.into_raw(),
    }
}

#[test]
fn uneven_light_and_jpeg_artefacts_still_give_the_pose() {
    let (layout, frame) = rendered();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let frame = jpeg(&uneven_light(&degrade(&frame, 6, &mut rng)), 55);
    let mut detector = MarkerDetector::new(&layout, WIDTH_PX, HEIGHT_PX).unwrap();
    let detections = detector.detect(&frame).unwrap();
    assert!(detections.len() >= 10, "{} markers", detections.len());
    let truth = true_camera();
    let fit = fit_camera(&observations(&layout, &detections), &webcam(), &mut rng).unwrap();
    let rotation_deg = rotation_error_deg(&fit.camera, &truth);
    let position_mm = position_error_mm(&fit.camera, &truth);
    assert!(rotation_deg < 0.4, "{rotation_deg}");
    assert!(position_mm < 8.0, "{position_mm}");
    assert!(fit.reprojection_median_px < 1.0);
}
