//! Renders the printed mat as the test webcam sees it and writes it as PNG or JPEG: the
//! fixtures of `tablesight calibrate` (`tests/fixtures/mat-view-*.jpg`) come from here.
//!
//! `cargo run -p tablesight-calibration --example render_view -- OUT.jpg [front|left]`

// An example that cannot write its file should stop with the reason.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../tests/common/mod.rs"]
mod common;

use calibration::{MatArtwork, MatLayout};
use nalgebra::Point3;

fn main() {
    let mut args = std::env::args().skip(1);
    let out = args
        .next()
        .expect("usage: render_view OUT.(png|jpg) [front|left]");
    let camera = match args.next().as_deref() {
        None | Some("front") => common::true_camera(),
        Some("left") => common::looking_at(
            Point3::new(200.0, 560.0, -700.0),
            Point3::new(310.0, 210.0, 0.0),
        ),
        Some(other) => panic!("unknown view {other}: front or left"),
    };
    let frame = MatArtwork::new(&MatLayout::a2())
        .unwrap()
        .render_view(&camera, 1280, 720);
    let image = image::GrayImage::from_raw(1280, 720, frame.pixels).unwrap();
    if out.ends_with(".jpg") {
        let mut file = std::fs::File::create(&out).unwrap();
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut file, 85)
            .encode_image(&image)
            .unwrap();
    } else {
        image.save(&out).unwrap();
    }
    eprintln!("wrote {out}");
}
