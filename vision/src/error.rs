//! What can go wrong between the camera (or a photo) and the recognised table.

use std::path::PathBuf;

/// Why a frame could not be read or understood.
#[derive(Debug, thiserror::Error)]
pub enum VisionError {
    /// Missing, truncated, corrupt or of an unknown format; `reason` is the decoder's word.
    #[error("cannot read the image {path}: {reason}")]
    Image { path: PathBuf, reason: String },
    /// A model file that tract cannot load or run, or whose shapes are not the reader's.
    #[error("the model {model} cannot be used: {reason}")]
    Model { model: String, reason: String },
}
