//! The tracker over sequences of frames: smoothing, markers covered by hands, a camera that
//! was bumped, and a saved calibration checked against a new view.

// A round trip that cannot build its scene should fail loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use calibration::{
    Camera, MarkerDetection, MatLayout, SavedCalibration, TrackStatus, Tracker, fit_camera,
    observations, view_quality,
};
use common::{gaussian, looking_at, position_error_mm, true_camera, webcam};
use nalgebra::{Point2, Point3};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// What a detector reports for `camera`: the markers `keep` lets through, corners with noise.
fn detections(
    camera: &Camera,
    layout: &MatLayout,
    keep: impl Fn(u32) -> bool,
    noise_px: f64,
    rng: &mut impl Rng,
) -> Vec<MarkerDetection> {
    layout
        .markers
        .iter()
        .filter(|m| keep(m.id))
        .map(|m| MarkerDetection {
            id: m.id,
            corners_px: m.corners().map(|corner| {
                let p = camera.project(corner).unwrap();
                Point2::new(p.x + gaussian(rng, noise_px), p.y + gaussian(rng, noise_px))
            }),
            decision_margin: 100.0,
        })
        .collect()
}

#[test]
fn smoothing_steadies_the_pose_over_noisy_frames() {
    let layout = MatLayout::a2();
    let truth = true_camera();
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let mut tracker = Tracker::new(layout.clone(), webcam());
    let mut single_frame_mm = Vec::new();
    let mut tracked_mm = Vec::new();
    for frame in 0..40 {
        let seen = detections(&truth, &layout, |_| true, 0.8, &mut rng);
        let single = fit_camera(&observations(&layout, &seen), &webcam(), &mut rng).unwrap();
        let status = tracker.update(&seen);
        assert_eq!(status, TrackStatus::Tracking { markers_seen: 12 });
        if frame >= 10 {
            single_frame_mm.push(position_error_mm(&single.camera, &truth));
            tracked_mm.push(position_error_mm(tracker.camera().unwrap(), &truth));
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    assert!(
        mean(&tracked_mm) < 0.7 * mean(&single_frame_mm),
        "tracked {:.2} mm, single frames {:.2} mm",
        mean(&tracked_mm),
        mean(&single_frame_mm)
    );
}

#[test]
fn hands_over_the_markers_keep_the_last_good_fit() {
    let layout = MatLayout::a2();
    let truth = true_camera();
    let mut rng = ChaCha8Rng::seed_from_u64(22);
    let mut tracker = Tracker::new(layout.clone(), webcam());
    assert_eq!(
        tracker.update(&[]),
        TrackStatus::Searching { markers_seen: 0 }
    );
    tracker.update(&detections(&truth, &layout, |_| true, 0.3, &mut rng));
    let good = *tracker.camera().unwrap();
    // Arms over the table: two markers, then none, stay in view.
    let status = tracker.update(&detections(&truth, &layout, |id| id < 2, 0.3, &mut rng));
    assert_eq!(
        status,
        TrackStatus::Holding {
            markers_seen: 2,
            frames_since_fit: 1
        }
    );
    let status = tracker.update(&[]);
    assert_eq!(
        status,
        TrackStatus::Holding {
            markers_seen: 0,
            frames_since_fit: 2
        }
    );
    assert!(status.to_string().contains("keeping the last good fit"));
    assert_eq!(tracker.camera(), Some(&good));
}

#[test]
fn a_bumped_camera_is_tracked_again_after_a_few_frames() {
    let layout = MatLayout::a2();
    let mut rng = ChaCha8Rng::seed_from_u64(23);
    let mut tracker = Tracker::new(layout.clone(), webcam());
    tracker.update(&detections(
        &true_camera(),
        &layout,
        |_| true,
        0.3,
        &mut rng,
    ));
    let bumped = looking_at(
        Point3::new(320.0, 570.0, -640.0),
        Point3::new(290.0, 215.0, 0.0),
    );
    // Only two markers in view of the bumped camera: they disagree with the fit in use.
    let status = tracker.update(&detections(&bumped, &layout, |id| id < 2, 0.3, &mut rng));
    assert!(
        matches!(
            status,
            TrackStatus::Moved {
                markers_seen: 2,
                ..
            }
        ),
        "{status:?}"
    );
    for frame in 1..=3 {
        let status = tracker.update(&detections(&bumped, &layout, |_| true, 0.3, &mut rng));
        if frame < 3 {
            assert!(matches!(status, TrackStatus::Moved { .. }), "{status:?}");
            assert!(position_error_mm(tracker.camera().unwrap(), &true_camera()) < 3.0);
        } else {
            assert_eq!(status, TrackStatus::Tracking { markers_seen: 12 });
        }
    }
    assert!(position_error_mm(tracker.camera().unwrap(), &bumped) < 5.0);
}

#[test]
fn a_saved_calibration_round_trips_and_says_when_it_no_longer_fits() {
    let layout = MatLayout::a2();
    let truth = true_camera();
    let mut rng = ChaCha8Rng::seed_from_u64(24);
    let seen = detections(&truth, &layout, |_| true, 0.3, &mut rng);
    let fit = fit_camera(&observations(&layout, &seen), &webcam(), &mut rng).unwrap();
    let saved = SavedCalibration::new(
        &fit.camera,
        &layout,
        [1280, 720],
        (fit.reprojection_median_px, fit.reprojection_max_px),
    );
    let loaded = SavedCalibration::from_json(&saved.to_json()).unwrap();
    assert!(position_error_mm(&loaded.camera(), &fit.camera) < 1e-9);
    assert!(loaded.check_fits(&layout, [1280, 720], &seen).unwrap() < 1.0);

    let moved = looking_at(
        Point3::new(297.0, 600.0, -600.0),
        Point3::new(297.0, 200.0, 0.0),
    );
    let error = loaded
        .check_fits(
            &layout,
            [1280, 720],
            &detections(&moved, &layout, |_| true, 0.3, &mut rng),
        )
        .unwrap_err()
        .to_string();
    assert!(error.contains("the camera or the mat moved"), "{error}");
    let error = loaded
        .check_fits(&layout, [640, 480], &seen)
        .unwrap_err()
        .to_string();
    assert!(error.contains("made for 1280x720 frames"), "{error}");
    let error = SavedCalibration::from_json(r#"{"format": "tablesight-game"}"#)
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("the calibration file cannot be read"),
        "{error}"
    );
}

#[test]
fn a_saved_calibration_no_camera_could_have_is_refused() {
    let layout = MatLayout::a2();
    let saved = SavedCalibration::new(&true_camera(), &layout, [1280, 720], (0.2, 0.5));
    let refused = |change: fn(&mut SavedCalibration)| {
        let mut bad = saved.clone();
        change(&mut bad);
        SavedCalibration::from_json(&bad.to_json())
            .unwrap_err()
            .to_string()
    };
    assert!(SavedCalibration::from_json(&saved.to_json()).is_ok());
    let error = refused(|c| c.intrinsics.fx_px = 0.0);
    assert!(error.contains("focal length"), "{error}");
    let error = refused(|c| c.intrinsics.k1 = 1e6);
    assert!(error.contains("distortion"), "{error}");
    let error = refused(|c| c.translation_mm[2] = -800.0);
    assert!(error.contains("behind the camera"), "{error}");
    let error = refused(|c| c.image_size_px = [0, 720]);
    assert!(error.contains("empty"), "{error}");
}

#[test]
fn a_distant_low_resolution_camera_is_warned_about() {
    let layout = MatLayout::a2();
    let good = view_quality(&true_camera(), &layout, 1280, 720);
    assert!(good.warnings.is_empty(), "{:?}", good.warnings);
    let tower = good.zones.iter().find(|z| z.name == "tower-a").unwrap();
    assert_eq!(tower.floors_px.len(), 5);
    // Floor 5 stands 100 mm above the mat and appears well above (up the image) its base.
    assert!(tower.floors_px[4][1] < tower.center_px.unwrap()[1] - 40.0);

    let mut small = true_camera();
    small.intrinsics.fx_px /= 2.5;
    small.intrinsics.fy_px /= 2.5;
    small.intrinsics.cx_px /= 2.5;
    small.intrinsics.cy_px /= 2.5;
    let poor = view_quality(&small, &layout, 512, 288);
    assert!(
        poor.warnings
            .iter()
            .any(|w| w.contains("move the camera closer or raise the resolution")),
        "{:?}",
        poor.warnings
    );
}

#[test]
fn a_lens_fit_that_folds_inside_the_frame_is_warned_about() {
    let layout = MatLayout::a2();
    let mut folded = true_camera();
    folded.intrinsics.k1 = -0.6;
    folded.intrinsics.k2 = 0.0;
    let quality = view_quality(&folded, &layout, 1280, 720);
    assert!(
        quality
            .warnings
            .iter()
            .any(|w| w.contains("bends back on itself")),
        "{:?}",
        quality.warnings
    );
}
