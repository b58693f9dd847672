//! The camera's intrinsics from views of the mat. A webcam's focal length comes first from
//! each view's homography (Zhang's constraints with the principal point at the centre), then
//! Levenberg-Marquardt refines the intrinsics and every view's pose together. One tilted
//! view gives the focal length; three or more give the principal point and distortion too.

use nalgebra::{DVector, Matrix3};
use rand::Rng;

use crate::camera::{Camera, Intrinsics};
use crate::error::CalibrationError;
use crate::least_squares::minimise;
use crate::pose::{
    Observation, POSE_STEPS, median_and_max, perturbed, pose_from_homography, refine_pose,
    reprojection_distances, residuals, robust_homography,
};

/// The horizontal field of view assumed before any view is measured: a common webcam.
pub const DEFAULT_FOV_DEG: f64 = 65.0;

/// Intrinsics estimated from views, with each view's camera.
#[derive(Clone, Debug)]
pub struct IntrinsicsFit {
    pub intrinsics: Intrinsics,
    /// One camera per view, in the order given.
    pub cameras: Vec<Camera>,
    /// The inlier observations of each view.
    pub inliers: Vec<Vec<Observation>>,
    pub reprojection_median_px: f64,
    pub reprojection_max_px: f64,
    /// What the views could tell, in words.
    pub estimated: &'static str,
}

/// The intrinsics parameters the solver moves: focal length, aspect ratio, principal
/// point, two distortion terms.
fn intrinsics_from(p: &[f64]) -> Intrinsics {
    Intrinsics {
        fx_px: p[0],
        fy_px: p[0] * p[1],
        cx_px: p[2],
        cy_px: p[3],
        k1: p[4],
        k2: p[5],
    }
}

/// The focal length that makes every view's homography a rotation seen through a pinhole
/// with square pixels and the principal point at `(cx, cy)`, or `None` when the views are
/// too square-on to tell.
fn focal_from_homographies(homographies: &[Matrix3<f64>], cx: f64, cy: f64) -> Option<f64> {
    let shift = Matrix3::new(1.0, 0.0, -cx, 0.0, 1.0, -cy, 0.0, 0.0, 1.0);
    // Each view gives two constraints a * u + b = 0 on u = 1/f^2 (orthogonal columns of
    // equal length); least squares over all of them.
    let (mut num, mut den) = (0.0, 0.0);
    for h in homographies {
        let h = shift * h;
        let h = h / h.column(0).norm().max(h.column(1).norm());
        let (h1, h2) = (h.column(0), h.column(1));
        for (a, b) in [
            (h1.x * h2.x + h1.y * h2.y, h1.z * h2.z),
            (
                h1.x * h1.x + h1.y * h1.y - h2.x * h2.x - h2.y * h2.y,
                h1.z * h1.z - h2.z * h2.z,
            ),
        ] {
            num -= a * b;
            den += a * a;
        }
    }
    let inverse_square = num / den;
    (den > 0.0 && inverse_square > 0.0).then(|| 1.0 / inverse_square.sqrt())
}

/// Marker corners of a single view (eight markers) from which its main distortion term is
/// estimated with its focal length: with fewer, spread over less of the frame, the two
/// trade off against the pose.
pub const DISTORTION_CORNERS: usize = 32;

/// Estimates the intrinsics of a camera of `width_px` by `height_px` from one or more views
/// of the mat (each the observations of one frame).
pub fn calibrate_intrinsics(
    views: &[Vec<Observation>],
    width_px: u32,
    height_px: u32,
    rng: &mut impl Rng,
) -> Result<IntrinsicsFit, CalibrationError> {
    if views.is_empty() {
        return Err(CalibrationError::TooFewPoints {
            found: 0,
            needed: crate::pose::MIN_POINTS,
        });
    }
    let guess = Intrinsics::from_field_of_view(width_px, height_px, DEFAULT_FOV_DEG);
    let mut homographies = Vec::new();
    let mut inliers = Vec::new();
    for view in views {
        // Distortion is still unknown: a loose threshold keeps the corners near the edges.
        let robust = robust_homography(view, &guess, 25.0, rng)?;
        homographies.push(robust.image_from_table);
        inliers.push(robust.inliers.iter().map(|&i| view[i]).collect::<Vec<_>>());
    }
    let width = f64::from(width_px);
    let focal = focal_from_homographies(&homographies, guess.cx_px, guess.cy_px)
        .filter(|f| (0.3 * width..6.0 * width).contains(f))
        .unwrap_or(guess.fx_px);
    let start = Intrinsics {
        fx_px: focal,
        fy_px: focal,
        ..guess
    };
    let mut poses = Vec::new();
    for (h, view) in homographies.iter().zip(&inliers) {
        let pose = pose_from_homography(h, &start).ok_or(CalibrationError::Degenerate)?;
        poses.push(refine_pose(pose, &start, view));
    }
    // What the views can tell apart: one view fixes the focal length (when tilted), and
    // the main distortion term too when its markers spread over the frame; a second view
    // that term, three or more the rest.
    let (free, estimated): (&[usize], &'static str) = match views.len() {
        1 if inliers[0].len() >= DISTORTION_CORNERS => {
            (&[0, 4], "focal length and radial distortion k1 (one view)")
        }
        1 => (&[0], "focal length (one view)"),
        2 => (&[0, 4], "focal length and radial distortion k1 (two views)"),
        _ => (
            &[0, 1, 2, 3, 4, 5],
            "focal length, aspect ratio, principal point, radial distortion k1 and k2",
        ),
    };
    let base = [focal, 1.0, start.cx_px, start.cy_px, 0.0, 0.0];
    let intrinsic_steps = [1e-3, 1e-7, 1e-3, 1e-3, 1e-7, 1e-7];
    let unpack = |x: &DVector<f64>| {
        let mut p = base;
        for (slot, &index) in free.iter().enumerate() {
            p[index] = base[index] + x[slot];
        }
        intrinsics_from(&p)
    };
    let n_free = free.len();
    let mut steps: Vec<f64> = free.iter().map(|&i| intrinsic_steps[i]).collect();
    for _ in &poses {
        steps.extend_from_slice(&POSE_STEPS);
    }
    let solution = minimise(DVector::zeros(steps.len()), &steps, 100, |x| {
        let intrinsics = unpack(x);
        let mut all = Vec::new();
        for (v, (pose, view)) in poses.iter().zip(&inliers).enumerate() {
            let delta = &x.as_slice()[n_free + 6 * v..n_free + 6 * v + 6];
            let camera = Camera {
                intrinsics,
                camera_from_table: perturbed(pose, delta),
            };
            all.extend(residuals(&camera, view).iter().copied());
        }
        DVector::from_vec(all)
    });
    let intrinsics = unpack(&solution);
    let cameras: Vec<Camera> = poses
        .iter()
        .enumerate()
        .map(|(v, pose)| Camera {
            intrinsics,
            camera_from_table: perturbed(
                pose,
                &solution.as_slice()[n_free + 6 * v..n_free + 6 * v + 6],
            ),
        })
        .collect();
    let distances: Vec<f64> = cameras
        .iter()
        .zip(&inliers)
        .flat_map(|(camera, view)| reprojection_distances(camera, view))
        .collect();
    let (reprojection_median_px, reprojection_max_px) = median_and_max(distances);
    Ok(IntrinsicsFit {
        intrinsics,
        cameras,
        inliers,
        reprojection_median_px,
        reprojection_max_px,
        estimated,
    })
}
