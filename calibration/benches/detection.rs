//! Marker detection and camera fit per 1280x720 frame of the rendered A2 mat, on one core:
//! `cargo bench -p tablesight-calibration --bench detection`.

use std::hint::black_box;

use calibration::{
    Camera, Intrinsics, MarkerDetector, MatArtwork, MatLayout, fit_camera, observations,
};
use criterion::{Criterion, criterion_group, criterion_main};
use nalgebra::{Isometry3, Matrix3, Point3, Rotation3, Translation3, UnitQuaternion, Vector3};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The webcam of the round-trip tests: 65 cm above the mat, 35 cm back from its centre.
fn camera() -> Camera {
    let eye = Point3::new(297.0, 560.0, -650.0);
    let forward = (Point3::new(297.0, 210.0, 0.0) - eye).normalize();
    let down = (Vector3::y() - forward * forward.dot(&Vector3::y())).normalize();
    let right = down.cross(&forward);
    let camera_from_table =
        Rotation3::from_matrix_unchecked(Matrix3::from_columns(&[right, down, forward])).inverse();
    Camera {
        intrinsics: Intrinsics {
            fx_px: 900.0,
            fy_px: 900.0,
            cx_px: 640.0,
            cy_px: 360.0,
            k1: -0.08,
            k2: 0.01,
        },
        camera_from_table: Isometry3::from_parts(
            Translation3::from(-(camera_from_table * eye.coords)),
            UnitQuaternion::from_rotation_matrix(&camera_from_table),
        ),
    }
}

fn detection(c: &mut Criterion) {
    let layout = MatLayout::a2();
    let camera = camera();
    let frame = MatArtwork::new(&layout)
        .unwrap_or_else(|e| panic!("{e}"))
        .render_view(&camera, 1280, 720);
    let mut detector = MarkerDetector::new(&layout, 1280, 720).unwrap_or_else(|e| panic!("{e}"));
    c.bench_function("detect_markers_1280x720", |b| {
        b.iter(|| black_box(detector.detect(&frame)));
    });
    let detections = detector.detect(&frame).unwrap_or_default();
    let seen = observations(&layout, &detections);
    c.bench_function("fit_camera_48_corners", |b| {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        b.iter(|| black_box(fit_camera(&seen, &camera.intrinsics, &mut rng)));
    });
}

criterion_group!(benches, detection);
criterion_main!(benches);
