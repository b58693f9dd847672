//! Capture and recognition: frames in, observed dice and meeples out. Depends on calibration only; never knows which placement is legal.

pub mod error;
pub mod frame;
pub mod places;
pub mod reader;

pub use error::VisionError;
pub use frame::{gray_from_image, read_gray, read_rgb};
pub use places::TableGeometry;
pub use reader::{
    DiceReader, DieColor, DieReading, Found, MeepleColor, MeepleRank, MeepleReading,
    ReaderSettings, Reading,
};
