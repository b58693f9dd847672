//! How long one 640x480 training scene takes to lay out, draw, develop and encode.
//! Run: `cargo bench -p tablesight-synth --bench render`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a benchmark fails loudly on bad set-up

use criterion::{Criterion, criterion_group, criterion_main};
use rand::SeedableRng;
use synth::{AutoExposure, Studio, random_scene};

fn render(c: &mut Criterion) {
    let studio = Studio::new().unwrap();
    let mut seed = 0;
    c.bench_function("scene 640x480", |b| {
        b.iter(|| {
            seed += 1;
            let scene = random_scene(&studio, seed, 640, 480).unwrap();
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            studio
                .render(&scene, &mut AutoExposure::still(), &mut rng)
                .unwrap()
        });
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = render
}
criterion_main!(benches);
