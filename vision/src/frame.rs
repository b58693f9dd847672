//! Frames from image files: photos of the table and recorded or rendered frames go through
//! the same conversion as camera frames.

use std::io::Cursor;
use std::path::Path;

use calibration::GrayFrame;
use image::{DynamicImage, ImageDecoder, ImageError, ImageReader, RgbImage};

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

/// Reads a JPEG, PNG, WebP, BMP or TIFF file as a grey frame, turned upright as its EXIF
/// orientation says; a missing, truncated or corrupt file is an error that names it.
pub fn read_gray(path: &Path) -> Result<GrayFrame, VisionError> {
    Ok(gray_from_image(&read_image(path)?))
}

/// Reads a photo or frame as RGB, turned upright as its EXIF orientation says (phones store
/// portrait photos sideways); a missing, truncated or corrupt file is an error that names it.
pub fn read_rgb(path: &Path) -> Result<RgbImage, VisionError> {
    Ok(read_image(path)?.into_rgb8())
}

/// The longest side of a picture read: a 200-megapixel phone's photos are 16,320 px wide. A
/// file that declares more (a corrupt header, a panorama) is refused before its pixels are
/// allocated.
pub const MAX_SIDE_PX: u32 = 16_384;

fn read_image(path: &Path) -> Result<DynamicImage, VisionError> {
    let error = |reason: String| VisionError::Image {
        path: path.to_owned(),
        reason,
    };
    let bytes = std::fs::read(path).map_err(|e| error(e.to_string()))?;
    if jpeg_truncated(&bytes) {
        return Err(error(
            "the JPEG file ends before its picture does (truncated)".into(),
        ));
    }
    let mut decoder = ImageReader::new(Cursor::new(&bytes))
        .with_guessed_format()
        .map_err(|e| error(e.to_string()))?
        .into_decoder()
        .map_err(|e| match e {
            ImageError::Unsupported(_) => error(format!(
                "{e} (Tablesight reads JPEG, PNG, WebP, BMP and TIFF: a phone's HEIC photo is to be saved as JPEG)"
            )),
            e => error(e.to_string()),
        })?;
    let (width, height) = decoder.dimensions();
    if width.max(height) > MAX_SIDE_PX {
        return Err(error(format!(
            "the picture is {width}x{height} px; Tablesight reads pictures of up to {MAX_SIDE_PX} px a side"
        )));
    }
    let orientation = decoder.orientation().map_err(|e| error(e.to_string()))?;
    let mut image = DynamicImage::from_decoder(decoder).map_err(|e| error(e.to_string()))?;
    image.apply_orientation(orientation);
    Ok(image)
}

/// Whether a JPEG file stops before the end of its picture: the decoder fills the missing
/// part with grey and says nothing. The segments before the first scan are walked by their
/// lengths (an EXIF thumbnail, with markers of its own, lies inside one); the picture ends
/// with an end-of-image marker after that scan (scan data escapes every 0xFF byte, and a
/// phone may append data after the marker). Not a JPEG: false, the decoder judges it.
fn jpeg_truncated(bytes: &[u8]) -> bool {
    const START_OF_SCAN: u8 = 0xDA;
    const END_OF_IMAGE: u8 = 0xD9;
    if !bytes.starts_with(&[0xFF, 0xD8]) {
        return false;
    }
    let mut at = 2;
    loop {
        while bytes.get(at) == Some(&0xFF) && bytes.get(at + 1) == Some(&0xFF) {
            at += 1; // fill bytes before a marker
        }
        match (bytes.get(at), bytes.get(at + 1)) {
            (Some(0xFF), Some(&START_OF_SCAN)) => break,
            (Some(0xFF), Some(&marker)) if marker != END_OF_IMAGE => {}
            _ => return true,
        }
        let Some(length) = bytes.get(at + 2..at + 4) else {
            return true;
        };
        at += 2 + usize::from(u16::from_be_bytes([length[0], length[1]]));
    }
    !bytes[at..]
        .windows(2)
        .rev()
        .any(|pair| pair == [0xFF, END_OF_IMAGE])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The error of `read` on a temporary file `name` holding `bytes`.
    fn error_reading<T>(
        name: &str,
        bytes: &[u8],
        read: fn(&Path) -> Result<T, VisionError>,
    ) -> String {
        let path = std::env::temp_dir().join(format!("{}-{name}", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        let error = read(&path).err().expect("the file was read").to_string();
        std::fs::remove_file(&path).unwrap();
        error
    }

    #[test]
    fn a_corrupt_file_is_a_clear_error() {
        let error = error_reading(
            "tablesight-corrupt.png",
            b"\x89PNG\r\n\x1a\nnot really",
            read_gray,
        );
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

    fn fixture_jpeg() -> Vec<u8> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/reader/real/images/IMG_20191209_100216.jpg");
        std::fs::read(path).unwrap()
    }

    #[test]
    fn a_truncated_jpeg_is_a_clear_error() {
        let whole = fixture_jpeg();
        let error = error_reading(
            "tablesight-truncated.jpg",
            &whole[..whole.len() * 2 / 3],
            read_rgb,
        );
        assert!(error.contains("tablesight-truncated"), "{error}");
        assert!(error.contains("truncated"), "{error}");
    }

    #[test]
    fn a_whole_jpeg_is_complete_with_or_without_data_after_it() {
        let mut whole = fixture_jpeg();
        assert!(!jpeg_truncated(&whole));
        whole.extend_from_slice(b"ftypmp42 a phone's motion photo");
        assert!(!jpeg_truncated(&whole));
        assert!(jpeg_truncated(&whole[..whole.len() / 2]));
        assert!(jpeg_truncated(&whole[..3]));
        assert!(!jpeg_truncated(b"\x89PNG\r\n\x1a\n"));
    }

    #[test]
    fn a_picture_too_large_to_read_is_refused_before_its_pixels_are_allocated() {
        // The fixture's frame header (walked to by the segments' lengths, past the EXIF
        // thumbnail's) made to declare 65,000 x 65,000 px: 12 GB of RGB.
        let mut jpeg = fixture_jpeg();
        let mut at = 2;
        while !matches!(jpeg[at + 1], 0xC0 | 0xC2) {
            at += 2 + usize::from(u16::from_be_bytes([jpeg[at + 2], jpeg[at + 3]]));
        }
        jpeg[at + 5..at + 9].copy_from_slice(&[0xFD, 0xE8, 0xFD, 0xE8]);
        let error = error_reading("tablesight-huge.jpg", &jpeg, read_rgb);
        assert!(error.contains("65000x65000"), "{error}");
        assert!(error.contains("16384 px"), "{error}");
    }

    #[test]
    fn a_photo_saved_as_bmp_or_tiff_reads_as_its_pixels() {
        let photo = image::load_from_memory(&fixture_jpeg()).unwrap();
        for (name, format) in [
            ("photo.bmp", image::ImageFormat::Bmp),
            ("photo.tiff", image::ImageFormat::Tiff),
        ] {
            let path = std::env::temp_dir().join(format!("{}-{name}", std::process::id()));
            photo.save_with_format(&path, format).unwrap();
            let read = read_rgb(&path);
            std::fs::remove_file(&path).unwrap();
            assert_eq!(read.unwrap(), photo.to_rgb8(), "{name}");
        }
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
