//! The scene shared by the round-trip tests: a webcam looking at the A2 mat from the
//! player's side of the table.

#![allow(dead_code)]
// reason: each test file uses its own part of the scene
// A scene that cannot be built should fail loudly, in tests, benches and examples alike.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use calibration::{Camera, GrayFrame, Intrinsics, MatLayout, Observation};
use nalgebra::{Point2, Point3};
use rand::Rng;

pub const WIDTH: f64 = 1280.0;
pub const HEIGHT: f64 = 720.0;
/// One floor of a tower: a die (16 mm) under a tile (about 4 mm).
pub const FLOOR_HEIGHT_MM: f64 = 20.0;

pub fn webcam() -> Intrinsics {
    Intrinsics {
        fx_px: 900.0,
        fy_px: 900.0,
        cx_px: 640.0,
        cy_px: 360.0,
        k1: -0.08,
        k2: 0.01,
    }
}

/// A camera at `eye` (table frame: z into the table) looking at `target`, with the mat's
/// near edge at the bottom of the image.
pub fn looking_at(eye: Point3<f64>, target: Point3<f64>) -> Camera {
    Camera::looking_at(webcam(), eye, target)
}

/// From the player's side of the table: 65 cm above the mat, 35 cm back from its centre.
pub fn true_camera() -> Camera {
    looking_at(
        Point3::new(297.0, 560.0, -650.0),
        Point3::new(297.0, 210.0, 0.0),
    )
}

/// The angle between the two cameras' orientations, in degrees.
pub fn rotation_error_deg(a: &Camera, b: &Camera) -> f64 {
    a.camera_from_table
        .rotation
        .angle_to(&b.camera_from_table.rotation)
        .to_degrees()
}

/// The distance between the two cameras, in mm.
pub fn position_error_mm(a: &Camera, b: &Camera) -> f64 {
    (a.position_in_table() - b.position_in_table()).norm()
}

pub fn gaussian(rng: &mut impl Rng, sigma: f64) -> f64 {
    let u1: f64 = rng.random_range(f64::EPSILON..1.0);
    let u2: f64 = rng.random();
    sigma * (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// The marker corners the camera sees, with pixel noise; `wrong` of them replaced by junk.
pub fn observe(
    camera: &Camera,
    layout: &MatLayout,
    keep: impl Fn(u32) -> bool,
    noise_px: f64,
    wrong: f64,
    rng: &mut impl Rng,
) -> (Vec<Observation>, Vec<usize>) {
    let mut observations = Vec::new();
    let mut junk = Vec::new();
    for marker in layout.markers.iter().filter(|m| keep(m.id)) {
        for corner in marker.corners() {
            let pixel = camera.project(corner).unwrap();
            assert!(
                (0.0..WIDTH).contains(&pixel.x) && (0.0..HEIGHT).contains(&pixel.y),
                "corner out of view: {pixel}"
            );
            let pixel = if rng.random::<f64>() < wrong {
                junk.push(observations.len());
                Point2::new(rng.random_range(0.0..WIDTH), rng.random_range(0.0..HEIGHT))
            } else {
                Point2::new(
                    pixel.x + gaussian(rng, noise_px),
                    pixel.y + gaussian(rng, noise_px),
                )
            };
            observations.push(Observation {
                table: corner,
                pixel,
            });
        }
    }
    (observations, junk)
}

/// Sensor noise (uniform, +-amplitude grey levels) and a 3x3 box blur (defocus).
pub fn degrade(frame: &GrayFrame, amplitude: i32, rng: &mut impl Rng) -> GrayFrame {
    let (w, h) = (frame.width, frame.height);
    let mut blurred = frame.pixels.clone();
    for y in 1..h - 1 {
        for x in 1..w - 1 {
            let mut sum = 0u32;
            for dy in 0..3 {
                for dx in 0..3 {
                    sum += u32::from(frame.pixels[(y + dy - 1) * w + x + dx - 1]);
                }
            }
            blurred[y * w + x] = (sum / 9) as u8;
        }
    }
    let pixels = blurred
        .into_iter()
        .map(|p| (i32::from(p) + rng.random_range(-amplitude..=amplitude)).clamp(0, 255) as u8)
        .collect();
    GrayFrame {
        width: w,
        height: h,
        pixels,
    }
}

/// A warm lamp at the top-left: light falls from 110 % there to 45 % in the far corner.
pub fn uneven_light(frame: &GrayFrame) -> GrayFrame {
    let (w, h) = (frame.width as f64, frame.height as f64);
    let pixels = frame
        .pixels
        .iter()
        .enumerate()
        .map(|(i, &p)| {
            let (x, y) = ((i % frame.width) as f64 / w, (i / frame.width) as f64 / h);
            let light = 1.1 - 0.65 * (x * x + y * y).sqrt() / std::f64::consts::SQRT_2;
            (f64::from(p) * light).round().clamp(0.0, 255.0) as u8
        })
        .collect();
    GrayFrame {
        pixels,
        ..frame.clone()
    }
}

/// The frame through a webcam's JPEG encoder at `quality` and back.
pub fn jpeg(frame: &GrayFrame, quality: u8) -> GrayFrame {
    let image = image::GrayImage::from_raw(
        frame.width as u32,
        frame.height as u32,
        frame.pixels.clone(),
    )
    .unwrap();
    let mut bytes = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, quality)
        .encode_image(&image)
        .unwrap();
    let decoded = image::load_from_memory(&bytes).unwrap().to_luma8();
    GrayFrame {
        width: frame.width,
        height: frame.height,
        pixels: decoded.into_raw(),
    }
}
