//! Round trips through pixels: the mat rendered as the webcam sees it (perspective, lens
//! distortion, anti-aliasing), its markers detected, the camera's pose recovered.

// A round trip that cannot build its scene should fail loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use calibration::{GrayFrame, MarkerDetector, MatArtwork, MatLayout, fit_camera, observations};
use common::{
    FLOOR_HEIGHT_MM, degrade, jpeg, position_error_mm, rotation_error_deg, true_camera,
    uneven_light, webcam,
};
use rand::SeedableRng;
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
fn a_frame_too_thin_for_a_marker_has_none_and_no_error() {
    let layout = MatLayout::a2();
    for (width, height) in [(5000, 2), (3, 900), (15, 15)] {
        let frame = GrayFrame {
            width,
            height,
            pixels: vec![128; width * height],
        };
        let mut detector = MarkerDetector::new(&layout, width, height).unwrap();
        assert_eq!(
            detector.detect(&frame).unwrap(),
            Vec::new(),
            "{width}x{height}"
        );
    }
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
