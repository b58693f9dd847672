//! The homography between the mat plane and the (undistorted) image: normalised DLT, and
//! RANSAC over it so that a few wrong marker corners do not spoil the fit.

use nalgebra::{DMatrix, Matrix3, Point2, Vector3};
use rand::Rng;
use rand::seq::index::sample;

/// A table point (mm on the mat) seen at an image point (px, undistorted).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Correspondence {
    pub table_mm: Point2<f64>,
    pub image_px: Point2<f64>,
}

/// Maps a table point to the image with the homography `image_from_table`.
pub fn apply(image_from_table: &Matrix3<f64>, table_mm: &Point2<f64>) -> Option<Point2<f64>> {
    let p = image_from_table * Vector3::new(table_mm.x, table_mm.y, 1.0);
    (p.z.abs() > f64::EPSILON).then(|| Point2::new(p.x / p.z, p.y / p.z))
}

/// A similarity that moves the points' centroid to the origin and their mean distance to √2
/// (Hartley's normalisation, which keeps the DLT well conditioned).
fn normalisation(points: &[Point2<f64>]) -> Matrix3<f64> {
    let n = points.len().max(1) as f64;
    let centroid = points
        .iter()
        .fold(Point2::origin(), |acc, p| acc + p.coords / n);
    let mean_distance = points.iter().map(|p| (p - centroid).norm()).sum::<f64>() / n;
    let scale = if mean_distance > f64::EPSILON {
        std::f64::consts::SQRT_2 / mean_distance
    } else {
        1.0
    };
    Matrix3::new(
        scale,
        0.0,
        -scale * centroid.x,
        0.0,
        scale,
        -scale * centroid.y,
        0.0,
        0.0,
        1.0,
    )
}

/// The homography through at least four correspondences (least squares beyond four), or
/// `None` for a degenerate set (collinear points, say).
pub fn fit(correspondences: &[Correspondence]) -> Option<Matrix3<f64>> {
    if correspondences.len() < 4 {
        return None;
    }
    let table: Vec<Point2<f64>> = correspondences.iter().map(|c| c.table_mm).collect();
    let image: Vec<Point2<f64>> = correspondences.iter().map(|c| c.image_px).collect();
    let normal_from_table = normalisation(&table);
    let normal_from_image = normalisation(&image);
    // At least 9 rows, so that the SVD also returns the null vector of a minimal sample.
    let rows = (2 * correspondences.len()).max(9);
    let mut a = DMatrix::<f64>::zeros(rows, 9);
    for (i, c) in correspondences.iter().enumerate() {
        let t = normal_from_table * Vector3::new(c.table_mm.x, c.table_mm.y, 1.0);
        let m = normal_from_image * Vector3::new(c.image_px.x, c.image_px.y, 1.0);
        let (x, y) = (t.x / t.z, t.y / t.z);
        let (u, v) = (m.x / m.z, m.y / m.z);
        let r = 2 * i;
        a.row_mut(r)
            .copy_from_slice(&[-x, -y, -1.0, 0.0, 0.0, 0.0, u * x, u * y, u]);
        a.row_mut(r + 1)
            .copy_from_slice(&[0.0, 0.0, 0.0, -x, -y, -1.0, v * x, v * y, v]);
    }
    let svd = a.svd(false, true);
    let v_t = svd.v_t?;
    let smallest = svd
        .singular_values
        .iter()
        .enumerate()
        .min_by(|a, b| a.1.total_cmp(b.1))
        .map(|(i, _)| i)?;
    let h = v_t.row(smallest);
    let normalised = Matrix3::new(h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8]);
    let image_from_table = normal_from_image.try_inverse()? * normalised * normal_from_table;
    let scale = image_from_table[(2, 2)];
    if scale.abs() < f64::EPSILON || !image_from_table.iter().all(|x| x.is_finite()) {
        return None;
    }
    Some(image_from_table / scale)
}

/// The transfer error of one correspondence under `image_from_table`, in pixels.
pub fn error_px(image_from_table: &Matrix3<f64>, c: &Correspondence) -> f64 {
    apply(image_from_table, &c.table_mm).map_or(f64::INFINITY, |p| (p - c.image_px).norm())
}

/// A homography fitted robustly, with the correspondences it explains.
#[derive(Clone, Debug)]
pub struct RobustFit {
    pub image_from_table: Matrix3<f64>,
    /// Indices of the inliers in the input.
    pub inliers: Vec<usize>,
}

/// RANSAC: fits minimal samples of four, keeps the homography that explains the most
/// correspondences within `threshold_px`, and refits it on all of them.
pub fn fit_robust(
    correspondences: &[Correspondence],
    threshold_px: f64,
    iterations: usize,
    rng: &mut impl Rng,
) -> Option<RobustFit> {
    let n = correspondences.len();
    if n < 4 {
        return None;
    }
    let inliers_of = |h: &Matrix3<f64>| -> Vec<usize> {
        (0..n)
            .filter(|&i| error_px(h, &correspondences[i]) < threshold_px)
            .collect()
    };
    let mut best: Vec<usize> = Vec::new();
    for _ in 0..iterations {
        let picked: Vec<Correspondence> = sample(rng, n, 4)
            .into_iter()
            .map(|i| correspondences[i])
            .collect();
        let Some(h) = fit(&picked) else { continue };
        let inliers = inliers_of(&h);
        if inliers.len() > best.len() {
            best = inliers;
            if best.len() == n {
                break;
            }
        }
    }
    // Refit on the inliers, and once more on the inliers of the refit.
    let mut inliers = best;
    let mut image_from_table = None;
    for _ in 0..2 {
        let chosen: Vec<Correspondence> = inliers.iter().map(|&i| correspondences[i]).collect();
        let h = fit(&chosen)?;
        inliers = inliers_of(&h);
        image_from_table = Some(h);
    }
    Some(RobustFit {
        image_from_table: image_from_table?,
        inliers,
    })
}
