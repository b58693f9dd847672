//! Frames from image files: photos of the table and recorded or rendered frames go through
//! the same conversion as camera frames.

use std::path::Path;

use calibration::GrayFrame;
use image::{DynamicImage, ImageDecoder, ImageReader, RgbImage};

use crate::error::VisionError;

/// The grey frame of any image (luma as the image crate computes it from sRGB).
pub fn gray_from_image(image: &DynamicImage) -> GrayFrame {
    let gray = image.to_luma8();
    GrayFrame {
        width: gray.width() as usize,
        height: gray.height() as usize,
        pixels: gray.into_raw(),
    }
}

/// Reads a PNG or JPEG file as a grey frame; a missing, truncated or corrupt file is an
/// error that names it.
pub fn read_gray(path: &Path) -> Result<GrayFrame, VisionError> {
    let image = image::open(path).map_err(|error| VisionError::Image {
        path: path.to_owned(),
        reason: error.to_string(),
    })?;
    Ok(gray_from_image(&image))
}

/// Reads a photo or frame as RGB, turned upright as its EXIF orientation says (phones store
/// portrait photos sideways); a missing, truncated or corrupt file is an error that names it.
pub fn read_rgb(path: &Path) -> Result<RgbImage, VisionError> {
    let error = |reason: String| VisionError::Image {
        path: path.to_owned(),
        reason,
    };
    let mut decoder = ImageReader::open(path)
        .map_err(|e| error(e.to_string()))?
        .with_guessed_format()
        .map_err(|e| error(e.to_string()))?
        .into_decoder()
        .map_err(|e| error(e.to_string()))?;
    let orientation = decoder.orientation().map_err(|e| error(e.to_string()))?;
    let mut image = DynamicImage::from_decoder(decoder).map_err(|e| error(e.to_string()))?;
    image.apply_orientation(orientation);
    Ok(image.into_rgb8())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_corrupt_file_is_a_clear_error() {
        let path =
            std::env::temp_dir().join(format!("tablesight-corrupt-{}.png", std::process::id()));
        std::fs::write(&path, b"\x89PNG\r\n\x1a\nnot really").unwrap();
        let error = read_gray(&path).unwrap_err().to_string();
        std::fs::remove_file(&path).unwrap();
        assert!(error.starts_with("cannot read the image"), "{error}");
        assert!(error.contains("tablesight-corrupt"), "{error}");
    }

    #[test]
    fn a_missing_file_is_a_clear_error_in_colour_too() {
        let error = read_rgb(Path::new("/nonexistent/photo.jpg"))
            .unwrap_err()
            .to_string();
        assert!(error.contains("/nonexistent/photo.jpg"), "{error}");
    }

    #[test]
    fn grey_levels_survive_the_round_trip() {
        let image = DynamicImage::ImageLuma8(image::GrayImage::from_fn(4, 3, |x, y| {
            image::Luma([(x * 10 + y) as u8])
        }));
        let frame = gray_from_image(&image);
        assert_eq!((frame.width, frame.height), (4, 3));
        assert_eq!(frame.pixels[4 + 2], 21);
    }
}
