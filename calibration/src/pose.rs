//! The camera's pose from marker corners on the mat: a robust homography gives a first
//! pose, which Levenberg-Marquardt refines against the distorted pixels.

use nalgebra::{
    DMatrix, DVector, Isometry3, Matrix3, Point2, Translation3, UnitQuaternion, Vector3,
};
use rand::Rng;

use crate::camera::{Camera, Intrinsics, TablePoint};
use crate::error::CalibrationError;
use crate::homography::{Correspondence, fit_robust};

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

fn residuals(camera: &Camera, observations: &[Observation]) -> DVector<f64> {
    let mut r = DVector::zeros(2 * observations.len());
    for (i, o) in observations.iter().enumerate() {
        // A point behind the camera gets a large residual rather than none.
        let p = camera.project(o.table).unwrap_or(Point2::new(1e6, 1e6));
        r[2 * i] = p.x - o.pixel.x;
        r[2 * i + 1] = p.y - o.pixel.y;
    }
    r
}

fn perturbed(pose: &Isometry3<f64>, delta: &DVector<f64>) -> Isometry3<f64> {
    let rotation = UnitQuaternion::from_scaled_axis(Vector3::new(delta[0], delta[1], delta[2]));
    Isometry3::from_parts(
        Translation3::from(pose.translation.vector + Vector3::new(delta[3], delta[4], delta[5])),
        rotation * pose.rotation,
    )
}

/// Levenberg-Marquardt on the six pose parameters, minimising the reprojection error.
pub fn refine_pose(
    start: Isometry3<f64>,
    intrinsics: &Intrinsics,
    observations: &[Observation],
) -> Isometry3<f64> {
    let camera = |pose| Camera {
        intrinsics: *intrinsics,
        camera_from_table: pose,
    };
    let mut pose = start;
    let mut r = residuals(&camera(pose), observations);
    let mut damping = 1e-3;
    for _ in 0..50 {
        let mut jacobian = DMatrix::zeros(r.len(), 6);
        for k in 0..6 {
            let step = if k < 3 { 1e-6 } else { 1e-3 };
            let mut delta = DVector::zeros(6);
            delta[k] = step;
            let shifted = residuals(&camera(perturbed(&pose, &delta)), observations);
            jacobian.set_column(k, &((shifted - &r) / step));
        }
        let jt = jacobian.transpose();
        let mut normal = &jt * &jacobian;
        for k in 0..6 {
            normal[(k, k)] *= 1.0 + damping;
        }
        let Some(step) = normal.lu().solve(&(-(&jt * &r))) else {
            break;
        };
        let candidate = perturbed(&pose, &step);
        let candidate_r = residuals(&camera(candidate), observations);
        if candidate_r.norm_squared() < r.norm_squared() {
            let gain = r.norm_squared() - candidate_r.norm_squared();
            pose = candidate;
            r = candidate_r;
            damping = (damping / 3.0).max(1e-9);
            if gain < 1e-12 {
                break;
            }
        } else {
            damping *= 4.0;
        }
    }
    pose
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
    const NEEDED: usize = 8;
    if observations.len() < NEEDED {
        return Err(CalibrationError::TooFewPoints {
            found: observations.len(),
            needed: NEEDED,
        });
    }
    let correspondences: Vec<Correspondence> = observations
        .iter()
        .map(|o| Correspondence {
            table_mm: Point2::new(o.table.x_mm, o.table.y_mm),
            image_px: intrinsics.undistort(&o.pixel),
        })
        .collect();
    let robust = fit_robust(&correspondences, 4.0, 400, rng).ok_or(CalibrationError::Degenerate)?;
    if robust.inliers.len() < NEEDED {
        return Err(CalibrationError::TooFewPoints {
            found: robust.inliers.len(),
            needed: NEEDED,
        });
    }
    let start = pose_from_homography(&robust.image_from_table, intrinsics)
        .ok_or(CalibrationError::Degenerate)?;
    let inliers: Vec<Observation> = robust.inliers.iter().map(|&i| observations[i]).collect();
    let camera = Camera {
        intrinsics: *intrinsics,
        camera_from_table: refine_pose(start, intrinsics, &inliers),
    };
    let mut errors: Vec<f64> = inliers
        .iter()
        .map(|o| {
            camera
                .project(o.table)
                .map_or(f64::INFINITY, |p| (p - o.pixel).norm())
        })
        .collect();
    errors.sort_by(f64::total_cmp);
    let reprojection_median_px = errors[errors.len() / 2];
    let reprojection_max_px = errors.last().copied().unwrap_or(f64::INFINITY);
    Ok(CameraFit {
        camera,
        inliers: robust.inliers,
        reprojection_median_px,
        reprojection_max_px,
    })
}
