//! Camera-to-table geometry: the mat layout, the camera model, and the camera's pose from
//! marker corners. Knows nothing of the rules, of recognition or of the GUI.

pub use nalgebra;

pub mod camera;
pub mod error;
pub mod homography;
pub mod intrinsics;
pub mod layout;
mod least_squares;
pub mod markers;
pub mod places;
pub mod pose;
pub mod print;
pub mod quality;
pub mod saved;
pub mod tracker;

pub use camera::{Camera, Intrinsics, TablePoint};
pub use error::CalibrationError;
pub use layout::{Marker, MatLayout, Zone, ZoneKind};
pub use markers::{GrayFrame, MarkerDetection, MarkerDetector, MatArtwork, observations};
pub use places::MatPlace;
pub use pose::{CameraFit, Observation, fit_camera, reprojection_errors};
pub use print::{Paper, PrintPage, PrintPlan};
pub use quality::{ViewQuality, ZoneView, view_quality};
pub use saved::SavedCalibration;
pub use tracker::{TrackStatus, Tracker};
