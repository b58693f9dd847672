//! The pinhole camera with radial distortion, and points on the table.
//!
//! Table coordinates are millimetres on the printed mat: `x_mm` to the right, `y_mm` towards
//! the bottom edge as printed, and `height_mm` above the mat. In 3D this is the right-handed
//! frame (x, y, -height): its z axis points into the table.
//! Camera coordinates follow the usual convention: x right, y down, z forward.

use nalgebra::{
    Isometry3, Matrix3, Point2, Point3, Rotation3, Translation3, UnitQuaternion, Vector2, Vector3,
};
use serde::{Deserialize, Serialize};

/// A place on or above the mat.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TablePoint {
    pub x_mm: f64,
    pub y_mm: f64,
    pub height_mm: f64,
}

impl TablePoint {
    pub fn on_mat(x_mm: f64, y_mm: f64) -> Self {
        Self {
            x_mm,
            y_mm,
            height_mm: 0.0,
        }
    }

    pub fn at_height(self, height_mm: f64) -> Self {
        Self { height_mm, ..self }
    }

    /// The point in the 3D table frame.
    pub fn to_3d(self) -> Point3<f64> {
        Point3::new(self.x_mm, self.y_mm, -self.height_mm)
    }
}

/// Focal lengths and principal point in pixels, and two radial distortion coefficients.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Intrinsics {
    pub fx_px: f64,
    pub fy_px: f64,
    pub cx_px: f64,
    pub cy_px: f64,
    pub k1: f64,
    pub k2: f64,
}

impl Intrinsics {
    /// A sensible starting guess for an unknown webcam: square pixels, the principal point
    /// in the middle, no distortion, and the given horizontal field of view.
    pub fn from_field_of_view(width_px: u32, height_px: u32, horizontal_fov_deg: f64) -> Self {
        let width = f64::from(width_px);
        let focal = width / 2.0 / (horizontal_fov_deg.to_radians() / 2.0).tan();
        Self {
            fx_px: focal,
            fy_px: focal,
            cx_px: width / 2.0,
            cy_px: f64::from(height_px) / 2.0,
            k1: 0.0,
            k2: 0.0,
        }
    }

    fn distortion(&self, normalized: Vector2<f64>) -> f64 {
        let r2 = normalized.norm_squared();
        1.0 + self.k1 * r2 + self.k2 * r2 * r2
    }

    /// Pixel of a point in camera coordinates, or `None` behind the camera.
    pub fn project(&self, p_camera: &Point3<f64>) -> Option<Point2<f64>> {
        if p_camera.z <= f64::EPSILON {
            return None;
        }
        let normalized = Vector2::new(p_camera.x / p_camera.z, p_camera.y / p_camera.z);
        let distorted = normalized * self.distortion(normalized);
        Some(Point2::new(
            self.fx_px * distorted.x + self.cx_px,
            self.fy_px * distorted.y + self.cy_px,
        ))
    }

    /// The pixel where `pixel` would be seen without lens distortion.
    pub fn undistort(&self, pixel: &Point2<f64>) -> Point2<f64> {
        let distorted = Vector2::new(
            (pixel.x - self.cx_px) / self.fx_px,
            (pixel.y - self.cy_px) / self.fy_px,
        );
        // Fixed-point inversion of the radial model; converges in a few steps for webcam lenses.
        let mut normalized = distorted;
        for _ in 0..20 {
            normalized = distorted / self.distortion(normalized);
        }
        Point2::new(
            self.fx_px * normalized.x + self.cx_px,
            self.fy_px * normalized.y + self.cy_px,
        )
    }

    /// Whether the radial model is a lens over a `width` x `height` picture: it keeps
    /// growing out to the farthest corner, with room to spare, so that `undistort` is exact
    /// everywhere in it. Too strong a barrel distortion (`k1` far below zero for the field
    /// of view) folds back inside the picture: the pixels past the fold have no straight
    /// view, and `undistort` returns scraps of the picture there. Checked where the fixed
    /// point of `undistort` contracts by at most FIXED_POINT_CONTRACTION a step, which also
    /// makes its 20 steps exact to a small fraction of a pixel.
    pub fn inverts_over(&self, width: u32, height: u32) -> bool {
        const FIXED_POINT_CONTRACTION: f64 = 0.6;
        const STEP: f64 = 1e-3;
        let farthest = [0.0, f64::from(width)]
            .iter()
            .flat_map(|&u| [0.0, f64::from(height)].map(|v| (u, v)))
            .map(|(u, v)| ((u - self.cx_px) / self.fx_px).hypot((v - self.cy_px) / self.fy_px))
            .fold(0.0, f64::max);
        // Out from the centre in straight radii r, up to the one the farthest corner sees.
        let mut r: f64 = 0.0;
        loop {
            let r2 = r * r;
            let distortion = 1.0 + self.k1 * r2 + self.k2 * r2 * r2;
            if distortion <= 0.0 {
                return false;
            }
            if r * distortion >= farthest {
                return true;
            }
            // The fixed point's contraction: |r D'(r) / D(r)|.
            let contraction = (2.0 * self.k1 * r2 + 4.0 * self.k2 * r2 * r2) / distortion;
            if contraction.abs() > FIXED_POINT_CONTRACTION {
                return false;
            }
            r += STEP;
        }
    }

    /// Pixels of a table point without distortion (the pinhole part only).
    pub fn project_pinhole(&self, p_camera: &Point3<f64>) -> Option<Point2<f64>> {
        Self {
            k1: 0.0,
            k2: 0.0,
            ..*self
        }
        .project(p_camera)
    }
}

/// A calibrated camera: intrinsics and where it stands relative to the table.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Camera {
    pub intrinsics: Intrinsics,
    pub camera_from_table: Isometry3<f64>,
}

impl Camera {
    /// A camera at `eye` aimed at `target` (3D table frame), upright: the bottom of its
    /// image faces its own side of the table (the near edge, +y, when it looks straight down).
    pub fn looking_at(intrinsics: Intrinsics, eye: Point3<f64>, target: Point3<f64>) -> Self {
        let forward = (target - eye).normalize();
        let mut towards_camera = Vector3::new(eye.x - target.x, eye.y - target.y, 0.0);
        if towards_camera.norm() < 1e-6 * (target - eye).norm() {
            towards_camera = Vector3::y();
        }
        let down = (towards_camera - forward * forward.dot(&towards_camera)).normalize();
        let right = down.cross(&forward);
        let table_from_camera =
            Rotation3::from_matrix_unchecked(Matrix3::from_columns(&[right, down, forward]));
        let camera_from_table = table_from_camera.inverse();
        Self {
            intrinsics,
            camera_from_table: Isometry3::from_parts(
                Translation3::from(-(camera_from_table * eye.coords)),
                UnitQuaternion::from_rotation_matrix(&camera_from_table),
            ),
        }
    }

    /// The pixel where a point on or above the table appears, or `None` behind the camera.
    pub fn project(&self, point: TablePoint) -> Option<Point2<f64>> {
        let p_camera = self.camera_from_table * point.to_3d();
        self.intrinsics.project(&p_camera)
    }

    /// The table point at `height_mm` above the mat that `pixel` sees (lens distortion
    /// undone), or `None` when that plane lies behind the camera or is seen edge-on.
    pub fn on_plane(&self, pixel: [f64; 2], height_mm: f64) -> Option<TablePoint> {
        let k = &self.intrinsics;
        let flat = k.undistort(&Point2::new(pixel[0], pixel[1]));
        let ray_camera = Vector3::new(
            (flat.x - k.cx_px) / k.fx_px,
            (flat.y - k.cy_px) / k.fy_px,
            1.0,
        );
        let table_from_camera = self.camera_from_table.inverse();
        let origin = table_from_camera * Point3::origin();
        let ray = table_from_camera * ray_camera;
        let plane_z = TablePoint::on_mat(0.0, 0.0).at_height(height_mm).to_3d().z;
        if ray.z.abs() < 1e-12 {
            return None;
        }
        let t = (plane_z - origin.z) / ray.z;
        if t <= 0.0 {
            return None;
        }
        let hit = origin + ray * t;
        Some(TablePoint::on_mat(hit.x, hit.y).at_height(height_mm))
    }

    /// The homography from the mat plane (mm) to undistorted pixels.
    pub fn image_from_mat(&self) -> Matrix3<f64> {
        let k = &self.intrinsics;
        let intrinsic = Matrix3::new(k.fx_px, 0.0, k.cx_px, 0.0, k.fy_px, k.cy_px, 0.0, 0.0, 1.0);
        let rotation = self.camera_from_table.rotation.to_rotation_matrix();
        let r = rotation.matrix();
        let t = self.camera_from_table.translation.vector;
        intrinsic * Matrix3::from_columns(&[r.column(0).into_owned(), r.column(1).into_owned(), t])
    }

    /// Where the camera is, in table coordinates (its height above the mat is `-z`).
    pub fn position_in_table(&self) -> Point3<f64> {
        self.camera_from_table.inverse() * Point3::origin()
    }

    /// Millimetres on the mat covered by one pixel around `point` (the mean of the two axes).
    pub fn mm_per_px(&self, point: TablePoint) -> Option<f64> {
        let step_mm = 1.0;
        let here = self.project(point)?;
        let right = self.project(TablePoint {
            x_mm: point.x_mm + step_mm,
            ..point
        })?;
        let down = self.project(TablePoint {
            y_mm: point.y_mm + step_mm,
            ..point
        })?;
        let px_per_mm = ((right - here).norm() + (down - here).norm()) / 2.0;
        (px_per_mm > 0.0).then(|| 1.0 / px_per_mm)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pixel_back_on_its_plane_is_the_point_that_made_it() {
        let mut intrinsics = Intrinsics::from_field_of_view(1280, 720, 70.0);
        intrinsics.k1 = -0.12;
        intrinsics.k2 = 0.02;
        let camera = Camera::looking_at(
            intrinsics,
            Point3::new(300.0, 700.0, -450.0),
            Point3::new(297.0, 210.0, 0.0),
        );
        for (x, y, height) in [
            (297.0, 120.0, 0.0),
            (185.0, 285.0, 44.0),
            (409.0, 300.0, 88.0),
        ] {
            let point = TablePoint::on_mat(x, y).at_height(height);
            let pixel = camera.project(point).unwrap();
            let back = camera.on_plane([pixel.x, pixel.y], height).unwrap();
            assert!(
                (back.x_mm - x).abs() < 0.05 && (back.y_mm - y).abs() < 0.05,
                "{back:?}"
            );
        }
    }

    /// How far a pixel lands from itself when undistorted and projected again.
    fn round_trip_px(intrinsics: &Intrinsics, u: f64, v: f64) -> f64 {
        let straight = intrinsics.undistort(&Point2::new(u, v));
        let ray = Point3::new(
            (straight.x - intrinsics.cx_px) / intrinsics.fx_px,
            (straight.y - intrinsics.cy_px) / intrinsics.fy_px,
            1.0,
        );
        (intrinsics.project(&ray).unwrap() - Point2::new(u, v)).norm()
    }

    #[test]
    fn a_lens_that_folds_inside_its_picture_is_told_from_one_that_does_not() {
        let mut webcam = Intrinsics::from_field_of_view(1280, 720, 70.0);
        webcam.k1 = -0.12;
        webcam.k2 = 0.02;
        assert!(webcam.inverts_over(1280, 720));
        for (u, v) in [(0.0, 0.0), (1280.0, 720.0), (0.0, 720.0), (640.0, 0.0)] {
            assert!(round_trip_px(&webcam, u, v) < 0.01);
        }
        // The lens of a rendered scene whose corners were smeared (seed 3100, scene 77).
        let folded = Intrinsics {
            fx_px: 811.7,
            fy_px: 816.5,
            cx_px: 658.0,
            cy_px: 367.2,
            k1: -0.26,
            k2: -0.011,
        };
        assert!(!folded.inverts_over(1280, 720));
        assert!(round_trip_px(&folded, 0.0, 0.0) > 10.0);
        // Its middle is undistorted exactly still.
        assert!(round_trip_px(&folded, 700.0, 400.0) < 0.01);
    }
}
