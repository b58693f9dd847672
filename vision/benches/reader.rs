//! How long the reader takes on one core: a 1280x720 rendered frame read as a photo (finder
//! over the whole frame, its coarse and second looks, then the reader on every item found),
//! the finder alone, the reader alone on 16 crops, a phone-sized 4032x3024 photo; and a
//! camera's frames read once each, only where they moved lately (`Motion`, `read_moved`,
//! `read_again`): a still frame, a frame where one die was put down, and one of the still
//! frames after it, read again there (the finder on a window around the die, the reader on
//! the items there); and a camera's frame read whole with a calibration (the scene's own
//! camera): the finder on a window over the game's zones, the reader on what it finds there
//! and on the meeples it missed on dice (`read_pairs_on_towers`), as `app::observe` reads.
//! Run: `RAYON_NUM_THREADS=1 cargo bench -p tablesight-vision --bench reader`; with
//! `TABLESIGHT_BENCH_MODELS=DIR` (absolute, or relative to the workspace) it times the models
//! of DIR (as `tablesight detect --models DIR` takes them) instead of the shipped ones.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a benchmark fails loudly on bad set-up

use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use image::imageops::FilterType;
use vision::{DiceReader, Motion, ReaderSettings, TableGeometry, read_rgb};

fn fixture(name: &str) -> image::RgbImage {
    read_rgb(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/reader")
            .join(name),
    )
    .unwrap()
}

fn reader(c: &mut Criterion) {
    let mut reader = match std::env::var_os("TABLESIGHT_BENCH_MODELS") {
        // Relative to the workspace, where cargo is run (a bench runs in vision/).
        Some(dir) => {
            DiceReader::from_folder(&Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir))
                .unwrap()
        }
        None => DiceReader::shipped().unwrap(),
    };
    let frame = fixture("scene-720p-0.jpg");
    let found = reader.find(&frame).unwrap();
    let mut group = c.benchmark_group("reader");
    group.sample_size(20);
    group.bench_function("1280x720 frame, whole-frame search", |b| {
        b.iter(|| reader.read(&frame, None).unwrap());
    });
    group.bench_function("finder alone, 1280x720", |b| {
        b.iter(|| reader.find(&frame).unwrap());
    });
    let sixteen: Vec<_> = found.iter().copied().cycle().take(16).collect();
    group.bench_function("reader alone, 16 crops", |b| {
        b.iter(|| reader.read_found(&frame, &sixteen).unwrap());
    });
    let photo = image::imageops::resize(&frame, 4032, 3024, FilterType::Triangle);
    group.sample_size(10);
    group.bench_function("4032x3024 photo", |b| {
        b.iter(|| reader.read(&photo, None).unwrap());
    });
    // A camera's frames: each crop read once, the finder's first look only.
    reader.settings = ReaderSettings::live();
    let before = reader.read(&frame, None).unwrap();
    let mut moved = frame.clone();
    let die = before.dice[0].box_px;
    let (x0, y0) = (die[0] as u32, die[1] as u32);
    for y in y0..y0 + 24 {
        for x in x0 + 60..x0 + 84 {
            moved.put_pixel(x, y, image::Rgb([235, 80, 160]));
        }
    }
    let mut motion = Motion::default();
    motion.compare(&frame);
    motion.mark_read();
    assert!(!motion.compare(&frame).any() && motion.compare(&moved).any());
    group.sample_size(20);
    group.bench_function("camera frame read once, whole-frame search", |b| {
        b.iter(|| reader.read(&frame, None).unwrap());
    });
    let labels: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../tests/fixtures/reader/scene-720p-0.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let camera: calibration::Camera = serde_json::from_value(labels["camera"].clone()).unwrap();
    let mut table = TableGeometry::new(camera, calibration::MatLayout::a2());
    // Each tower's top floor, as the camera's path knows it from the game.
    for item in ["dice", "meeples"]
        .iter()
        .flat_map(|k| labels[k].as_array().unwrap())
    {
        let place = &item["place"];
        if place["zone"] == "tower" {
            let zone = format!("tower-{}", place["tower"].as_str().unwrap());
            let level = place["level"].as_u64().unwrap() as u8;
            let top = table.tower_levels.entry(zone).or_insert(level);
            *top = (*top).max(level);
        }
    }
    let zones = table.zones_region(frame.width(), frame.height());
    group.bench_function(
        "camera frame read once with a calibration, over the zones",
        |b| {
            b.iter(|| {
                let reading = reader.read_within(&frame, &zones).unwrap();
                (reader.read_pairs_on_towers(&frame, reading, &table, None, &zones)).unwrap()
            });
        },
    );
    group.bench_function("camera frame, nothing moved (motion + reading kept)", |b| {
        b.iter(|| {
            let changes = motion.compare(&frame);
            reader.read_moved(&frame, &before, &changes).unwrap()
        });
    });
    group.bench_function(
        "camera frame, one die put down (motion + finder around it + its places)",
        |b| {
            b.iter(|| {
                let changes = motion.compare(&moved);
                reader.read_moved(&moved, &before, &changes).unwrap()
            });
        },
    );
    let changes = motion.compare(&moved);
    let after = reader.read_moved(&moved, &before, &changes).unwrap();
    group.bench_function(
        "camera frame, still after a die was put down (finder around it + the places there read again)",
        |b| b.iter(|| reader.read_again(&moved, &after, &changes).unwrap()),
    );
    group.finish();
    println!(
        "{} items found in the 1280x720 frame (a photo's crop is read with its mirror image, a camera's once; one crop a reader call)",
        found.len()
    );
}

criterion_group!(benches, reader);
criterion_main!(benches);
