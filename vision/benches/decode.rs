//! What a camera frame costs before the reader sees it, on one core: a 1920x1080 MJPEG frame
//! decoded to RGB (zune-jpeg, through the image crate), and a 1920x1080 YUYV frame converted.
//! The JPEG is made here: a rendered 1280x720 scene scaled to 1080p, with sensor-like noise,
//! encoded at quality 85 (a webcam's MJPEG is about that).
//! Run: `cargo bench -p tablesight-vision --bench decode`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a benchmark fails loudly on bad set-up

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use image::RgbImage;
use image::imageops::FilterType;
use vision::{decode_mjpeg, read_rgb, yuyv_to_rgb};

/// The rendered scene at 1080p with a little deterministic noise, so the JPEG holds about as
/// much detail as a webcam's.
fn frame_1080p() -> RgbImage {
    let scene = read_rgb(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/reader/scene-720p-0.jpg"),
    )
    .unwrap();
    let mut frame = image::imageops::resize(&scene, 1920, 1080, FilterType::Triangle);
    let mut state = 0x2545_f491_u32;
    for value in frame.iter_mut() {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let noise = (state % 9) as i16 - 4;
        *value = (i16::from(*value) + noise).clamp(0, 255) as u8;
    }
    frame
}

fn yuyv_of(rgb: &RgbImage) -> Vec<u8> {
    let luma = |p: &[u8]| {
        ((66 * i32::from(p[0]) + 129 * i32::from(p[1]) + 25 * i32::from(p[2]) + 128) >> 8) + 16
    };
    rgb.as_raw()
        .chunks_exact(6)
        .flat_map(|pair| {
            let (r, g, b) = (i32::from(pair[0]), i32::from(pair[1]), i32::from(pair[2]));
            let u = ((-38 * r - 74 * g + 112 * b + 128) >> 8) + 128;
            let v = ((112 * r - 94 * g - 18 * b + 128) >> 8) + 128;
            [luma(&pair[..3]), u, luma(&pair[3..]), v].map(|x| x.clamp(0, 255) as u8)
        })
        .collect()
}

fn decode(c: &mut Criterion) {
    let frame = frame_1080p();
    let mut jpeg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 85)
        .encode_image(&frame)
        .unwrap();
    let yuyv = yuyv_of(&frame);
    println!("1920x1080 MJPEG test frame: {} KiB", jpeg.len() / 1024);
    let mut group = c.benchmark_group("decode");
    group.bench_function("1920x1080 MJPEG to RGB", |b| {
        b.iter(|| decode_mjpeg(black_box(&jpeg)).unwrap());
    });
    group.bench_function("1920x1080 YUYV to RGB", |b| {
        b.iter(|| yuyv_to_rgb(black_box(&yuyv), 1920, 1080).unwrap());
    });
    let half = image::imageops::resize(&frame, 1280, 720, FilterType::Triangle);
    let mut jpeg_720p = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg_720p, 85)
        .encode_image(&half)
        .unwrap();
    group.bench_function("1280x720 MJPEG to RGB", |b| {
        b.iter(|| decode_mjpeg(black_box(&jpeg_720p)).unwrap());
    });
    group.finish();
}

criterion_group!(benches, decode);
criterion_main!(benches);
