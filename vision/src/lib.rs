//! Capture and recognition: frames in, observed dice and meeples out. Depends on calibration only; never knows which placement is legal.

pub mod error;
pub mod frame;

pub use error::VisionError;
pub use frame::{gray_from_image, read_gray};
