//! The camera's pose from marker corners on the mat: a robust homography gives a first
//! pose, which Levenberg-Marquardt refines against the distorted pixels.

use nalgebra::{DVector, Isometry3, Matrix3, Point2, Translation3, UnitQuaternion, Vector3};
use rand::Rng;

use crate::camera::{Camera, Intrinsics, TablePoint};
use crate::error::CalibrationError;
use crate::homography::{Correspondence, RobustFit, fit_robust};
use crate::least_squares::minimise;

/// A point of the mat seen at a pixel of the frame (as the camera saw it, distorted).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Observation {
    pub table: TablePoint,
    pub pixel: Point2<f64>,
}

/// The pose from a homography between the mat and undistorted pixels (Zhang's method), with
/// the rotation snapped to the nearest true rotation.
pub fn pose_from_homography(
    image_from_table: &Matrix3<f64>,
    intrinsics: &Intrinsics,
) -> Option<Isometry3<f64>> {
    let k = Matrix3::new(
        intrinsics.fx_px,
        0.0,
        intrinsics.cx_px,
        0.0,
        intrinsics.fy_px,
        intrinsics.cy_px,
        0.0,
        0.0,
        1.0,
    );
    let m = k.try_inverse()? * image_from_table;
    let (m1, m2, m3) = (m.column(0), m.column(1), m.column(2));
    let mut scale = 2.0 / (m1.norm() + m2.norm());
    if m3.z * scale < 0.0 {
        // The mat is in front of the camera: its origin has a positive depth.
        scale = -scale;
    }
    let r1: Vector3<f64> = m1 * scale;
    let r2: Vector3<f64> = m2 * scale;
    let r3 = r1.cross(&r2);
    let svd = Matrix3::from_columns(&[r1, r2, r3]).svd(true, true);
    let (u, v_t) = (svd.u?, svd.v_t?);
    let mut rotation = u * v_t;
    if rotation.determinant() < 0.0 {
        rotation = u * Matrix3::from_diagonal(&Vector3::new(1.0, 1.0, -1.0)) * v_t;
    }
    let rotation = UnitQuaternion::from_matrix(&rotation);
    Some(Isometry3::from_parts(
        Translation3::from(m3 * scale),
        rotation,
    ))
}

pub(crate) fn residuals(camera: &Camera, observations: &[Observation]) -> DVector<f64> {
    let mut r = DVector::zeros(2 * observations.len());
    for (i, o) in observations.iter().enumerate() {
        // A point behind the camera gets a large residual rather than none.
        let p = camera.project(o.table).unwrap_or(Point2::new(1e6, 1e6));
        r[2 * i] = p.x - o.pixel.x;
        r[2 * i + 1] = p.y - o.pixel.y;
    }
    r
}

/// `pose` moved by a small rotation (scaled axis, radians) and translation (mm).
pub(crate) fn perturbed(pose: &Isometry3<f64>, delta: &[f64]) -> Isometry3<f64> {
    let rotation = UnitQuaternion::from_scaled_axis(Vector3::new(delta[0], delta[1], delta[2]));
    Isometry3::from_parts(
        Translation3::from(pose.translation.vector + Vector3::new(delta[3], delta[4], delta[5])),
        rotation * pose.rotation,
    )
}

/// Finite-difference steps for a pose perturbation: radians, then mm.
pub(crate) const POSE_STEPS: [f64; 6] = [1e-6, 1e-6, 1e-6, 1e-3, 1e-3, 1e-3];

/// Levenberg-Marquardt on the six pose parameters, minimising the reprojection error.
pub fn refine_pose(
    start: Isometry3<f64>,
    intrinsics: &Intrinsics,
    observations: &[Observation],
) -> Isometry3<f64> {
    let camera = |delta: &DVector<f64>| Camera {
        intrinsics: *intrinsics,
        camera_from_table: perturbed(&start, delta.as_slice()),
    };
    let delta = minimise(DVector::zeros(6), &POSE_STEPS, 50, |delta| {
        residuals(&camera(delta), observations)
    });
    perturbed(&start, delta.as_slice())
}

/// The homography from the mat to undistorted pixels through the observations that agree
/// with each other (RANSAC, within `threshold_px`), with at least [`MIN_POINTS`] of them.
pub(crate) fn robust_homography(
    observations: &[Observation],
    intrinsics: &Intrinsics,
    threshold_px: f64,
    rng: &mut impl Rng,
) -> Result<RobustFit, CalibrationError> {
    if observations.len() < MIN_POINTS {
        return Err(CalibrationError::TooFewPoints {
            found: observations.len(),
            needed: MIN_POINTS,
        });
    }
    let correspondences: Vec<Correspondence> = observations
        .iter()
        .map(|o| Correspondence {
            table_mm: Point2::new(o.table.x_mm, o.table.y_mm),
            image_px: intrinsics.undistort(&o.pixel),
        })
        .collect();
    let robust =
        fit_robust(&correspondences, threshold_px, 400, rng).ok_or(CalibrationError::Degenerate)?;
    if robust.inliers.len() < MIN_POINTS {
        return Err(CalibrationError::TooFewPoints {
            found: robust.inliers.len(),
            needed: MIN_POINTS,
        });
    }
    Ok(robust)
}

/// The fewest mat points a fit accepts: two markers' corners.
pub const MIN_POINTS: usize = 8;

/// The distance between where `camera` projects each point and where it was seen.
pub fn reprojection_distances(camera: &Camera, observations: &[Observation]) -> Vec<f64> {
    observations
        .iter()
        .map(|o| {
            camera
                .project(o.table)
                .map_or(f64::INFINITY, |p| (p - o.pixel).norm())
        })
        .collect()
}

/// Median and largest of a set of reprojection distances (0 for none).
pub fn median_and_max(mut distances: Vec<f64>) -> (f64, f64) {
    if distances.is_empty() {
        return (0.0, 0.0);
    }
    distances.sort_by(f64::total_cmp);
    (
        distances[distances.len() / 2],
        distances[distances.len() - 1],
    )
}

/// Median and largest distance between where `camera` projects the points and where they
/// were seen.
pub fn reprojection_errors(camera: &Camera, observations: &[Observation]) -> (f64, f64) {
    median_and_max(reprojection_distances(camera, observations))
}

/// A camera fitted to the markers of one frame, with its quality figures.
#[derive(Clone, Debug)]
pub struct CameraFit {
    pub camera: Camera,
    /// Indices of the observations that agree with the fit.
    pub inliers: Vec<usize>,
    pub reprojection_median_px: f64,
    pub reprojection_max_px: f64,
}

/// Fits the camera's pose to observed mat points, given its intrinsics. Wrong observations
/// (a misread marker, a corner under a hand) are left out by RANSAC.
pub fn fit_camera(
    observations: &[Observation],
    intrinsics: &Intrinsics,
    rng: &mut impl Rng,
) -> Result<CameraFit, CalibrationError> {
    let robust = robust_homography(observations, intrinsics, 4.0, rng)?;
    let start = pose_from_homography(&robust.image_from_table, intrinsics)
        .ok_or(CalibrationError::Degenerate)?;
    let inliers: Vec<Observation> = robust.inliers.iter().map(|&i| observations[i]).collect();
    let camera = Camera {
        intrinsics: *intrinsics,
        camera_from_table: refine_pose(start, intrinsics, &inliers),
    };
    let (reprojection_median_px, reprojection_max_px) = reprojection_errors(&camera, &inliers);
    Ok(CameraFit {
        camera,
        inliers: robust.inliers,
        reprojection_median_px,
        reprojection_max_px,
    })
}
