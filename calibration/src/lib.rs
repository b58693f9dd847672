//! Camera-to-table geometry: the mat layout, the camera model, and the camera's pose from
//! marker corners. Knows nothing of the rules, of recognition or of the GUI.

pub mod camera;
pub mod error;
pub mod homography;
pub mod layout;
pub mod markers;
pub mod pose;

pub use camera::{Camera, Intrinsics, TablePoint};
pub use error::CalibrationError;
pub use layout::{Marker, MatLayout, Zone, ZoneKind};
pub use markers::{GrayFrame, MarkerDetection, MarkerDetector, MatArtwork, observations};
pub use pose::{CameraFit, Observation, fit_camera};
