//! What can go wrong between the camera (or a photo) and the recognised table.

use std::path::PathBuf;

/// Why a frame could not be read or understood.
#[derive(Debug, thiserror::Error)]
pub enum VisionError {
    #[error("cannot read the image {path}: {source}")]
    Image {
        path: PathBuf,
        #[source]
        source: image::ImageError,
    },
}
