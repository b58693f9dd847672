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
    /// The cameras could not be listed, or one could not be opened or read.
    #[error("camera {camera}: {reason}")]
    Camera { camera: String, reason: String },
    /// A camera asked for by number or name that is not connected.
    #[error("no camera {wanted}: {available}")]
    NoSuchCamera { wanted: String, available: String },
    /// The camera offers no mode that matches what was asked for.
    #[error("camera {camera} offers no {wanted}; it offers {offered}")]
    NoSuchMode {
        camera: String,
        wanted: String,
        offered: String,
    },
    /// A frame from a camera whose bytes are not a picture of the announced format and size.
    #[error("cannot decode a {format} frame: {reason}")]
    Decode { format: String, reason: String },
    /// A folder, a list or an index of recorded frames that cannot be used.
    #[error("cannot read the frames of {path}: {reason}")]
    Frames { path: PathBuf, reason: String },
}
