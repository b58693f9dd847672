//! Intrinsics round trips: a webcam with known focal length and distortion looks at the mat
//! from several places; its intrinsics are recovered from the marker corners alone,
//! starting from a guess of the field of view.

// A round trip that cannot build its scene should fail loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use calibration::intrinsics::{DEFAULT_FOV_DEG, calibrate_intrinsics};
use calibration::{Camera, Intrinsics, MatLayout};
use common::{looking_at, observe, position_error_mm, rotation_error_deg, true_camera, webcam};
use nalgebra::Point3;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Views a user gets by moving the webcam around the table between shots.
fn views() -> Vec<Camera> {
    vec![
        true_camera(),
        looking_at(
            Point3::new(200.0, 560.0, -700.0),
            Point3::new(310.0, 210.0, 0.0),
        ),
        looking_at(
            Point3::new(400.0, 560.0, -700.0),
            Point3::new(285.0, 210.0, 0.0),
        ),
        looking_at(
            Point3::new(297.0, 400.0, -800.0),
            Point3::new(297.0, 210.0, 0.0),
        ),
        looking_at(
            Point3::new(297.0, 600.0, -600.0),
            Point3::new(297.0, 190.0, 0.0),
        ),
    ]
}

fn relative(a: f64, b: f64) -> f64 {
    (a - b).abs() / b
}

#[test]
fn the_default_guess_is_far_from_the_true_focal_length() {
    // The recovery below starts from here: 23 % away.
    let guess = Intrinsics::from_field_of_view(1280, 720, DEFAULT_FOV_DEG);
    assert!(relative(guess.fx_px, webcam().fx_px) > 0.1);
}

#[test]
fn one_tilted_view_gives_the_focal_length() {
    let layout = MatLayout::a2();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let camera = Camera {
        intrinsics: Intrinsics {
            k1: 0.0,
            k2: 0.0,
            ..webcam()
        },
        ..true_camera()
    };
    let (view, _) = observe(&camera, &layout, |_| true, 0.3, 0.0, &mut rng);
    let fit = calibrate_intrinsics(&[view], 1280, 720, &mut rng).unwrap();
    assert!(
        relative(fit.intrinsics.fx_px, 900.0) < 0.03,
        "focal {:.1} px",
        fit.intrinsics.fx_px
    );
    assert!(position_error_mm(&fit.cameras[0], &camera) < 20.0);
}

#[test]
fn one_view_of_the_whole_mat_gives_the_focal_length_and_the_distortion() {
    let layout = MatLayout::a2();
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let (view, _) = observe(&true_camera(), &layout, |_| true, 0.3, 0.0, &mut rng);
    let fit = calibrate_intrinsics(&[view], 1280, 720, &mut rng).unwrap();
    let lens = fit.intrinsics;
    assert!(
        relative(lens.fx_px, 900.0) < 0.03,
        "focal {:.1} px",
        lens.fx_px
    );
    assert!((lens.k1 - webcam().k1).abs() < 0.02, "k1 {:.3}", lens.k1);
    assert!(fit.reprojection_median_px < 0.5, "{fit:?}");
}

#[test]
fn one_view_of_a_few_markers_leaves_the_distortion_alone() {
    // Five markers: the focal length and the distortion would trade off against the pose.
    let layout = MatLayout::a2();
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let (view, _) = observe(&true_camera(), &layout, |id| id < 5, 0.3, 0.0, &mut rng);
    let fit = calibrate_intrinsics(&[view], 1280, 720, &mut rng).unwrap();
    assert_eq!(fit.intrinsics.k1, 0.0);
    assert_eq!(fit.estimated, "focal length (one view)");
}

#[test]
fn several_views_give_focal_length_principal_point_and_distortion() {
    let layout = MatLayout::a2();
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let truth = views();
    let observed: Vec<_> = truth
        .iter()
        .map(|camera| observe(camera, &layout, |_| true, 0.3, 0.0, &mut rng).0)
        .collect();
    let fit = calibrate_intrinsics(&observed, 1280, 720, &mut rng).unwrap();
    let k = fit.intrinsics;
    let expected = webcam();
    assert!(relative(k.fx_px, expected.fx_px) < 0.01, "{k:?}");
    assert!(relative(k.fy_px, expected.fy_px) < 0.01, "{k:?}");
    assert!((k.cx_px - expected.cx_px).abs() < 8.0, "{k:?}");
    assert!((k.cy_px - expected.cy_px).abs() < 8.0, "{k:?}");
    assert!((k.k1 - expected.k1).abs() < 0.02, "{k:?}");
    assert!(
        fit.reprojection_median_px < 0.6,
        "{}",
        fit.reprojection_median_px
    );
    for (found, camera) in fit.cameras.iter().zip(&truth) {
        assert!(rotation_error_deg(found, camera) < 0.3);
        assert!(position_error_mm(found, camera) < 8.0);
    }
}
