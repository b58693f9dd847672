//! Round trips through a known camera: project the mat's marker corners, disturb them as a
//! webcam and a detector would (noise, wrong detections, covered markers), and recover the
//! camera's pose and the image position of zones at their true height.

// A round trip that cannot build its scene should fail loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use calibration::{CalibrationError, MatLayout, TablePoint, fit_camera};
use common::{
    FLOOR_HEIGHT_MM, observe, position_error_mm, rotation_error_deg, true_camera, webcam,
};
use nalgebra::Point3;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

#[test]
fn the_pose_is_recovered_from_noisy_corners_with_wrong_detections() {
    let layout = MatLayout::a2();
    let truth = true_camera();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let (observations, junk) = observe(&truth, &layout, |_| true, 0.3, 0.1, &mut rng);
    assert!(!junk.is_empty());
    let fit = fit_camera(&observations, &webcam(), &mut rng).unwrap();
    assert!(
        junk.iter().all(|i| !fit.inliers.contains(i)),
        "a wrong detection was kept"
    );
    assert!(
        rotation_error_deg(&fit.camera, &truth) < 0.1,
        "{}",
        rotation_error_deg(&fit.camera, &truth)
    );
    assert!(
        position_error_mm(&fit.camera, &truth) < 1.5,
        "{}",
        position_error_mm(&fit.camera, &truth)
    );
    assert!(
        fit.reprojection_median_px < 0.6,
        "{}",
        fit.reprojection_median_px
    );
}

#[test]
fn half_of_the_markers_covered_still_suffice() {
    let layout = MatLayout::a2();
    let truth = true_camera();
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let (observations, _) = observe(&truth, &layout, |id| id % 2 == 0, 0.3, 0.0, &mut rng);
    assert_eq!(observations.len(), 24);
    let fit = fit_camera(&observations, &webcam(), &mut rng).unwrap();
    assert!(
        rotation_error_deg(&fit.camera, &truth) < 0.3,
        "{}",
        rotation_error_deg(&fit.camera, &truth)
    );
    assert!(
        position_error_mm(&fit.camera, &truth) < 5.0,
        "{}",
        position_error_mm(&fit.camera, &truth)
    );
}

#[test]
fn a_zone_at_floor_five_projects_where_the_true_pose_puts_it() {
    let layout = MatLayout::a2();
    let truth = true_camera();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let (observations, _) = observe(&truth, &layout, |_| true, 0.3, 0.05, &mut rng);
    let fit = fit_camera(&observations, &webcam(), &mut rng).unwrap();
    for zone in ["tower-a", "tower-b", "tower-c", "tower-central"] {
        let on_mat = layout.zone(zone).unwrap().center();
        let floor_five = on_mat.at_height(5.0 * FLOOR_HEIGHT_MM);
        let expected = truth.project(floor_five).unwrap();
        let recovered = fit.camera.project(floor_five).unwrap();
        assert!(
            (expected - recovered).norm() < 0.5,
            "{zone}: {expected} vs {recovered}"
        );
        // Why the pose matters: the fifth floor is far from where the mat point appears.
        let flat = truth.project(on_mat).unwrap();
        assert!(
            (expected - flat).norm() > 30.0,
            "{zone}: floor 5 only {} px away",
            (expected - flat).norm()
        );
    }
}

#[test]
fn one_marker_is_not_enough() {
    let layout = MatLayout::a2();
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let (observations, _) = observe(&true_camera(), &layout, |id| id == 0, 0.3, 0.0, &mut rng);
    let error = fit_camera(&observations, &webcam(), &mut rng).unwrap_err();
    assert_eq!(
        error,
        CalibrationError::TooFewPoints {
            found: 4,
            needed: 8
        }
    );
}

#[test]
fn mm_per_px_is_finer_near_the_camera() {
    let camera = true_camera();
    let near = camera.mm_per_px(TablePoint::on_mat(297.0, 400.0)).unwrap();
    let far = camera.mm_per_px(TablePoint::on_mat(297.0, 20.0)).unwrap();
    assert!(near < far, "{near} vs {far}");
    assert!(
        (0.3..2.0).contains(&near) && (0.3..2.0).contains(&far),
        "{near} {far}"
    );
}

#[test]
fn undistort_inverts_the_lens() {
    let intrinsics = webcam();
    let p = Point3::new(0.4, -0.25, 1.0);
    let distorted = intrinsics.project(&p).unwrap();
    let straight = intrinsics.project_pinhole(&p).unwrap();
    assert!((intrinsics.undistort(&distorted) - straight).norm() < 1e-6);
}
