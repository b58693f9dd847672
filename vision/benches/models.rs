//! The two ONNX files alone in tract, one thread: what `time_onnxruntime.py` times in
//! onnxruntime, for the two runtimes side by side; and the reader's 16 crops in calls of 1,
//! 4 and 16 (`DiceReader` makes one call a crop: tract gathers a lone input's patches
//! lazily but copies out every patch of a batch first).
//! Run: `RAYON_NUM_THREADS=1 cargo bench -p tablesight-vision --bench models`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use tract_onnx::prelude::*;

/// The plan `DiceReader` makes of the shipped file, with its tract settings.
fn plan(file: &str, shape: [usize; 4]) -> vision::Plan {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../models")
        .join(file);
    vision::tract_plan(&std::fs::read(path).unwrap(), file, shape).unwrap()
}

fn models(c: &mut Criterion) {
    let mut group = c.benchmark_group("models");
    group.sample_size(20);
    for (h, w) in [(288, 512), (384, 512)] {
        let finder = plan("finder.onnx", [1, 3, h, w]);
        let frame = Tensor::zero::<f32>(&[1, 3, h, w]).unwrap();
        group.bench_function(format!("finder {w}x{h}"), |b| {
            b.iter(|| finder.run(tvec![frame.clone().into()]).unwrap());
        });
    }
    for batch in [1, 4, 16] {
        let reader = plan("reader.onnx", [batch, 3, 40, 40]);
        let crops = Tensor::zero::<f32>(&[batch, 3, 40, 40]).unwrap();
        group.bench_function(format!("reader, 16 crops in calls of {batch}"), |b| {
            b.iter(|| {
                for _ in 0..16 / batch {
                    reader.run(tvec![crops.clone().into()]).unwrap();
                }
            });
        });
    }
    group.finish();
}

criterion_group!(benches, models);
criterion_main!(benches);
