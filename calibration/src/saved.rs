//! A calibration saved to a file (`tablesight-calibration`, version 1), and the check that
//! it still fits what the camera sees.

use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use serde::{Deserialize, Serialize};

use crate::camera::{Camera, Intrinsics};
use crate::error::CalibrationError;
use crate::layout::MatLayout;
use crate::markers::{MarkerDetection, observations};
use crate::pose::reprojection_errors;

/// Visible markers further than this from where a saved calibration puts them (median over
/// their corners) mean it no longer fits.
pub const FITS_WITHIN_PX: f64 = 4.0;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SavedCalibration {
    pub format: String,
    pub version: u32,
    /// The name of the mat layout it was made with.
    pub mat: String,
    pub image_size_px: [usize; 2],
    pub intrinsics: Intrinsics,
    /// The camera's pose: rotation of table to camera as a rotation vector (radians), and
    /// the table origin in camera coordinates (mm).
    pub rotation_rad: [f64; 3],
    pub translation_mm: [f64; 3],
    pub reprojection_median_px: f64,
    pub reprojection_max_px: f64,
}

const FORMAT: &str = "tablesight-calibration";

impl SavedCalibration {
    pub fn new(
        camera: &Camera,
        layout: &MatLayout,
        image_size_px: [usize; 2],
        reprojection_px: (f64, f64),
    ) -> Self {
        let rotation = camera.camera_from_table.rotation.scaled_axis();
        let translation = camera.camera_from_table.translation.vector;
        Self {
            format: FORMAT.to_owned(),
            version: 1,
            mat: layout.name.clone(),
            image_size_px,
            intrinsics: camera.intrinsics,
            rotation_rad: [rotation.x, rotation.y, rotation.z],
            translation_mm: [translation.x, translation.y, translation.z],
            reprojection_median_px: reprojection_px.0,
            reprojection_max_px: reprojection_px.1,
        }
    }

    pub fn camera(&self) -> Camera {
        let [rx, ry, rz] = self.rotation_rad;
        Camera {
            intrinsics: self.intrinsics,
            camera_from_table: Isometry3::from_parts(
                Translation3::from(Vector3::from(self.translation_mm)),
                UnitQuaternion::from_scaled_axis(Vector3::new(rx, ry, rz)),
            ),
        }
    }

    pub fn to_json(&self) -> String {
        // Plain numbers and strings: serialising cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    pub fn from_json(text: &str) -> Result<Self, CalibrationError> {
        let saved: Self =
            serde_json::from_str(text).map_err(|e| CalibrationError::FileFormat(e.to_string()))?;
        if saved.format != FORMAT || saved.version != 1 {
            return Err(CalibrationError::FileFormat(format!(
                "expected \"{FORMAT}\" version 1, found \"{}\" version {}",
                saved.format, saved.version
            )));
        }
        match saved.impossible() {
            Some(problem) => Err(CalibrationError::FileFormat(problem)),
            None => Ok(saved),
        }
    }

    /// What no camera could have: numbers that are not finite, an empty frame, a focal
    /// length beyond any lens's (a field of view over 168 degrees, or under 0.6), a distortion
    /// term beyond any lens's (a webcam's k1 is a few tenths), the mat behind the camera.
    fn impossible(&self) -> Option<String> {
        const MAX_DISTORTION: f64 = 10.0;
        let k = &self.intrinsics;
        let lens = [k.fx_px, k.fy_px, k.cx_px, k.cy_px, k.k1, k.k2];
        let numbers = lens
            .iter()
            .chain(&self.rotation_rad)
            .chain(&self.translation_mm);
        if !numbers.copied().all(f64::is_finite) {
            return Some("a number of its lens or pose is not finite".to_owned());
        }
        if self.image_size_px.contains(&0) {
            return Some("its frame size is empty".to_owned());
        }
        let longer = self.image_size_px[0].max(self.image_size_px[1]) as f64;
        let focal = longer / 20.0..=longer * 100.0;
        if !focal.contains(&k.fx_px) || !focal.contains(&k.fy_px) {
            return Some(format!(
                "its focal length ({:.1}, {:.1} px) is no lens's for {}x{} frames",
                k.fx_px, k.fy_px, self.image_size_px[0], self.image_size_px[1]
            ));
        }
        if k.k1.abs() > MAX_DISTORTION || k.k2.abs() > MAX_DISTORTION {
            return Some(format!(
                "its distortion terms (k1 {}, k2 {}) are no lens's",
                k.k1, k.k2
            ));
        }
        if self.translation_mm[2] <= 0.0 {
            return Some("it puts the mat behind the camera".to_owned());
        }
        None
    }

    /// Checks that this calibration fits a frame of `size` in which `detections` were
    /// found; returns the median offset of the visible markers in pixels.
    pub fn check_fits(
        &self,
        layout: &MatLayout,
        size: [usize; 2],
        detections: &[MarkerDetection],
    ) -> Result<f64, CalibrationError> {
        if size != self.image_size_px {
            return Err(CalibrationError::DoesNotFit(format!(
                "it was made for {}x{} frames and this one is {}x{}; calibrate again at this resolution",
                self.image_size_px[0], self.image_size_px[1], size[0], size[1]
            )));
        }
        if layout.name != self.mat {
            return Err(CalibrationError::DoesNotFit(format!(
                "it was made for the mat \"{}\", not \"{}\"",
                self.mat, layout.name
            )));
        }
        let seen = observations(layout, detections);
        if seen.is_empty() {
            return Err(CalibrationError::DoesNotFit(
                "no marker of the mat is in view".to_owned(),
            ));
        }
        let (median_px, _) = reprojection_errors(&self.camera(), &seen);
        if median_px > FITS_WITHIN_PX {
            return Err(CalibrationError::DoesNotFit(format!(
                "the markers in view are {median_px:.0} px from where it expects them (the camera or the mat moved); calibrate again"
            )));
        }
        Ok(median_px)
    }
}
