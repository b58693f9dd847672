//! Round trips through a known camera: project the mat's marker corners, disturb them as a
//! webcam and a detector would (noise, wrong detections, covered markers), and recover the
//! camera's pose and the image position of zones at their true height.

// A round trip that cannot build its scene should fail loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use calibration::{
    CalibrationError, Camera, Intrinsics, MatLayout, Observation, TablePoint, fit_camera,
};
use nalgebra::{
    Isometry3, Matrix3, Point2, Point3, Rotation3, Translation3, UnitQuaternion, Vector3,
};
use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const WIDTH: f64 = 1280.0;
const HEIGHT: f64 = 720.0;
/// One floor of a tower: a die (16 mm) under a tile (about 4 mm).
const FLOOR_HEIGHT_MM: f64 = 20.0;

fn webcam() -> Intrinsics {
    Intrinsics {
        fx_px: 900.0,
        fy_px: 900.0,
        cx_px: 640.0,
        cy_px: 360.0,
        k1: -0.08,
        k2: 0.01,
    }
}

/// A camera at `eye` (table frame: z into the table) looking at `target`, with the mat's
/// near edge at the bottom of the image.
fn looking_at(eye: Point3<f64>, target: Point3<f64>) -> Camera {
    let forward = (target - eye).normalize();
    let towards_near_edge = Vector3::y();
    let down = (towards_near_edge - forward * forward.dot(&towards_near_edge)).normalize();
    let right = down.cross(&forward);
    let table_from_camera =
        Rotation3::from_matrix_unchecked(Matrix3::from_columns(&[right, down, forward]));
    let camera_from_table = table_from_camera.inverse();
    Camera {
        intrinsics: webcam(),
        camera_from_table: Isometry3::from_parts(
            Translation3::from(-(camera_from_table * eye.coords)),
            UnitQuaternion::from_rotation_matrix(&camera_from_table),
        ),
    }
}

/// From the player's side of the table: 65 cm above the mat, 35 cm back from its centre.
fn true_camera() -> Camera {
    looking_at(
        Point3::new(297.0, 560.0, -650.0),
        Point3::new(297.0, 210.0, 0.0),
    )
}

fn gaussian(rng: &mut impl Rng, sigma: f64) -> f64 {
    let u1: f64 = rng.random_range(f64::EPSILON..1.0);
    let u2: f64 = rng.random();
    sigma * (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// The marker corners the camera sees, with pixel noise; `wrong` of them replaced by junk.
fn observe(
    camera: &Camera,
    layout: &MatLayout,
    keep: impl Fn(u32) -> bool,
    noise_px: f64,
    wrong: f64,
    rng: &mut impl Rng,
) -> (Vec<Observation>, Vec<usize>) {
    let mut observations = Vec::new();
    let mut junk = Vec::new();
    for marker in layout.markers.iter().filter(|m| keep(m.id)) {
        for corner in marker.corners() {
            let pixel = camera.project(corner).unwrap();
            assert!(
                (0.0..WIDTH).contains(&pixel.x) && (0.0..HEIGHT).contains(&pixel.y),
                "corner out of view: {pixel}"
            );
            let pixel = if rng.random::<f64>() < wrong {
                junk.push(observations.len());
                Point2::new(rng.random_range(0.0..WIDTH), rng.random_range(0.0..HEIGHT))
            } else {
                Point2::new(
                    pixel.x + gaussian(rng, noise_px),
                    pixel.y + gaussian(rng, noise_px),
                )
            };
            observations.push(Observation {
                table: corner,
                pixel,
            });
        }
    }
    (observations, junk)
}

fn rotation_error_deg(a: &Camera, b: &Camera) -> f64 {
    a.camera_from_table
        .rotation
        .angle_to(&b.camera_from_table.rotation)
        .to_degrees()
}

fn position_error_mm(a: &Camera, b: &Camera) -> f64 {
    (a.position_in_table() - b.position_in_table()).norm()
}

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
