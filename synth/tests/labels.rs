//! The labels match the pixels: each labelled die is where its box says, in the colour its
//! label says; scenes come back the same from the same seed; rendered games replay.

// A test that cannot render should fail loudly; helpers unwrap like tests do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use calibration::quality::DIE_SIZE_MM;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rules::DieColor;
use synth::{AutoExposure, Scene, Studio, random_scene};

const SIZE: (usize, usize) = (640, 480);

fn render(studio: &Studio, scene: &Scene) -> (image::RgbImage, synth::Labels) {
    render_exposed(studio, scene, &mut AutoExposure::still())
}

/// Renders with `exposure`, then locks it so that a second picture is exposed the same.
fn render_exposed(
    studio: &Studio,
    scene: &Scene,
    exposure: &mut AutoExposure,
) -> (image::RgbImage, synth::Labels) {
    let mut rng = ChaCha8Rng::seed_from_u64(scene.seed);
    let frame = studio.render(scene, exposure, &mut rng).unwrap();
    exposure.lock();
    let image = image::load_from_memory(&frame.jpeg).unwrap().to_rgb8();
    (image, frame.labels)
}

/// Pixels that changed by more than a JPEG's noise between two renders, other than by a
/// shadow (the same darkening in every channel).
fn changed(a: &image::RgbImage, b: &image::RgbImage) -> Vec<(u32, u32)> {
    a.enumerate_pixels()
        .filter(|(x, y, p)| {
            let q = b.get_pixel(*x, *y);
            let d: i32 = (0..3)
                .map(|c| (i32::from(p[c]) - i32::from(q[c])).abs())
                .sum();
            let ratio = [0, 1, 2].map(|c| (f64::from(p[c]) + 4.0) / (f64::from(q[c]) + 4.0));
            let mean = ratio.iter().sum::<f64>() / 3.0;
            let shadow = mean < 1.0 && ratio.iter().all(|r| (r - mean).abs() < 0.12 * mean);
            d > 45 && !shadow
        })
        .map(|(x, y, _)| (x, y))
        .collect()
}

fn inside(b: [f64; 4], (x, y): (u32, u32), grow: f64) -> bool {
    let (x, y) = (f64::from(x) + 0.5, f64::from(y) + 0.5);
    x >= b[0] - grow && x <= b[2] + grow && y >= b[1] - grow && y <= b[3] + grow
}

/// The tint a die puts on what lies under it, as the renderer's sprites were made.
fn tint(color: DieColor) -> [f64; 3] {
    match color {
        DieColor::Pink => [0.98, 0.42, 0.68],
        DieColor::Purple => [0.58, 0.32, 0.92],
        DieColor::Yellow => [1.0, 0.86, 0.22],
        DieColor::Blue => [0.26, 0.52, 1.0],
    }
}

/// A random scene with its pieces on the mat's paper and no tray: the checks below divide one
/// render by another, which a saturated lid or felt under a translucent die leaves too dark
/// to do. Bare tables and trays have their own test.
fn scene_on_the_mat(studio: &Studio, seed: u64) -> Scene {
    let mut scene = random_scene(studio, seed, SIZE.0, SIZE.1).unwrap();
    scene.mat = true;
    scene.clutter.tray = None;
    scene
}

#[test]
fn each_die_is_in_its_box_and_of_its_colour() {
    let studio = Studio::new().unwrap();
    let (mut checked, mut right_colour) = (0, 0);
    for seed in 0..14 {
        let scene = scene_on_the_mat(&studio, 100 + seed);
        let exposure = &mut AutoExposure::still();
        let (with, labels) = render_exposed(&studio, &scene, exposure);
        for (index, label) in labels.dice.iter().enumerate() {
            let width = label.box_px[2] - label.box_px[0];
            if label.visible < 0.9 || width < 12.0 || index % 3 != 0 {
                continue;
            }
            // The same scene without this die: what changes is the die (and its shadow).
            let mut without_die = scene.clone();
            let position = without_die
                .table
                .dice
                .iter()
                .position(|d| d.at == label.table_mm && d.die == label.die)
                .unwrap();
            without_die.table.dice.remove(position);
            let (without, _) = render_exposed(&studio, &without_die, exposure);
            let diff = changed(&with, &without);
            assert!(
                diff.len() > 20,
                "seed {seed}: removing {:?} changed {} pixels",
                label.die,
                diff.len()
            );
            let in_box = diff
                .iter()
                .filter(|&&p| inside(label.box_px, p, 3.0))
                .count();
            assert!(
                in_box as f64 >= 0.9 * diff.len() as f64,
                "seed {seed}: {:?} at {:?}: only {in_box} of {} changed pixels in its box",
                label.die,
                label.box_px,
                diff.len()
            );
            // What the die does to the light through it, per channel, is its tint.
            let mut ratio = [0.0; 3];
            for &(x, y) in diff.iter().filter(|&&p| inside(label.box_px, p, 0.0)) {
                let (a, b) = (with.get_pixel(x, y), without.get_pixel(x, y));
                let linear = |level: u8| ((f64::from(level) + 2.0) / 257.0).powf(2.2);
                for c in 0..3 {
                    ratio[c] += linear(a[c]) / linear(b[c]);
                }
            }
            let nearest = DieColor::ALL
                .into_iter()
                .max_by(|&p, &q| cosine(ratio, tint(p)).total_cmp(&cosine(ratio, tint(q))))
                .unwrap();
            checked += 1;
            if nearest == label.die.color {
                right_colour += 1;
            } else {
                eprintln!(
                    "seed {seed}: {:?} at {:?} looks {nearest:?} (ratio {ratio:?})",
                    label.die, label.place
                );
            }
        }
    }
    assert!(checked >= 15, "only {checked} dice checked");
    assert!(
        right_colour as f64 >= 0.85 * checked as f64,
        "{right_colour} of {checked} dice tint the table in their labelled colour"
    );
}

fn cosine(a: [f64; 3], b: [f64; 3]) -> f64 {
    let dot: f64 = (0..3).map(|i| a[i] * b[i]).sum();
    let norm = |v: [f64; 3]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
    dot / (norm(a) * norm(b))
}

#[test]
fn each_meeple_is_in_its_box() {
    let studio = Studio::new().unwrap();
    let mut checked = 0;
    for seed in 0..6 {
        let scene = scene_on_the_mat(&studio, 200 + seed);
        let exposure = &mut AutoExposure::still();
        let (with, labels) = render_exposed(&studio, &scene, exposure);
        for (index, label) in labels.meeples.iter().enumerate() {
            // A meeple on a die shades the translucent die below it: keep to those on floors
            // and boards.
            let on_die = scene.table.dice.iter().any(|d| {
                (d.at.x_mm - label.table_mm.x_mm).abs() < 0.01
                    && (d.at.y_mm - label.table_mm.y_mm).abs() < 0.01
            });
            if label.visible < 0.9 || index % 2 != 0 || on_die {
                continue;
            }
            let mut without_meeple = scene.clone();
            let position = without_meeple
                .table
                .meeples
                .iter()
                .position(|m| m.at == label.table_mm && m.meeple == label.meeple)
                .unwrap();
            without_meeple.table.meeples.remove(position);
            let (without, _) = render_exposed(&studio, &without_meeple, exposure);
            let diff = changed(&with, &without);
            if diff.len() < 10 {
                continue;
            }
            let in_box = diff
                .iter()
                .filter(|&&p| inside(label.box_px, p, 3.0))
                .count();
            assert!(
                in_box as f64 >= 0.85 * diff.len() as f64,
                "seed {seed}: {:?} {:?} box {:?}: {in_box} of {} changed pixels in its box: {:?}",
                label.meeple,
                label.place,
                label.box_px,
                diff.len(),
                diff.iter()
                    .filter(|&&p| !inside(label.box_px, p, 3.0))
                    .take(12)
                    .collect::<Vec<_>>()
            );
            checked += 1;
        }
    }
    assert!(checked >= 8, "only {checked} meeples checked");
}

#[test]
fn the_labels_know_each_die_a_meeple_stands_on() {
    let studio = Studio::new().unwrap();
    let mut under = 0;
    for seed in 0..6 {
        let scene = random_scene(&studio, 200 + seed, SIZE.0, SIZE.1).unwrap();
        let (_, labels) = render(&studio, &scene);
        for die in &labels.dice {
            // A meeple stands on a die where it is drawn on the die's top face.
            let on_top = labels.meeples.iter().any(|m| {
                (m.table_mm.x_mm - die.table_mm.x_mm).abs() < 0.01
                    && (m.table_mm.y_mm - die.table_mm.y_mm).abs() < 0.01
                    && (m.table_mm.height_mm - die.table_mm.height_mm - DIE_SIZE_MM).abs() < 0.01
            });
            assert_eq!(
                labels.meeple_stands_on(die),
                on_top,
                "seed {seed}: {die:?} among {:?}",
                labels.meeples
            );
            under += usize::from(on_top);
        }
    }
    assert!(under >= 5, "only {under} dice under a meeple");
}

#[test]
fn a_hand_over_a_die_hides_it_in_the_labels() {
    let studio = Studio::new().unwrap();
    let scene = random_scene(&studio, 7, SIZE.0, SIZE.1).unwrap();
    let (_, labels) = render(&studio, &scene);
    let die = labels
        .dice
        .iter()
        .find(|d| d.visible > 0.9)
        .unwrap()
        .clone();
    let mut covered = scene.clone();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut hand = synth::Hand::reaching(
        (die.table_mm.x_mm, die.table_mm.y_mm),
        studio.mat.size_mm,
        &mut rng,
    );
    // The palm right over the die.
    let dir = (
        die.table_mm.x_mm - hand.shoulder.0,
        die.table_mm.y_mm - hand.shoulder.1,
    );
    let n = (dir.0 * dir.0 + dir.1 * dir.1).sqrt();
    hand.wrist = (
        die.table_mm.x_mm - dir.0 / n * 25.0,
        die.table_mm.y_mm - dir.1 / n * 25.0,
    );
    hand.height_mm = 60.0;
    covered.clutter.hands = vec![hand];
    let (_, labels) = render(&studio, &covered);
    let after = labels.dice.iter().find(|d| d.table_mm == die.table_mm);
    assert!(after.is_none_or(|d| d.visible < 0.3), "{after:?}");
    assert_eq!(labels.hands, 1);
}

#[test]
fn a_bare_table_and_a_tray_change_the_pixels_not_the_labels() {
    let studio = Studio::new().unwrap();
    let scene = random_scene(&studio, 7, SIZE.0, SIZE.1).unwrap();
    let mut exposure = AutoExposure::still();
    let (on_mat, labels) = render_exposed(&studio, &scene, &mut exposure);
    let mut bare = scene.clone();
    bare.mat = false;
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    bare.surface = synth::TableSurface::printed(&mut rng);
    let roll = studio.mat.zone("roll-area").unwrap();
    let ([x, y], [w, h]) = (roll.center_mm, roll.size_mm);
    let inside = [x - w / 2.0, y - h / 2.0, x + w / 2.0, y + h / 2.0];
    bare.clutter.tray = Some(synth::Tray::around(inside, &mut rng));
    let (off_mat, bare_labels) = render_exposed(&studio, &bare, &mut exposure);
    assert_eq!(
        serde_json::to_string(&labels.dice).unwrap(),
        serde_json::to_string(&bare_labels.dice).unwrap()
    );
    let moved = changed(&on_mat, &off_mat).len();
    let pixels = SIZE.0 * SIZE.1;
    assert!(
        moved > pixels / 5,
        "only {moved} of {pixels} pixels changed"
    );
}

#[test]
fn the_same_seed_renders_the_same_scene() {
    let studio = Studio::new().unwrap();
    let a = render(&studio, &random_scene(&studio, 42, 320, 240).unwrap());
    let b = render(&studio, &random_scene(&studio, 42, 320, 240).unwrap());
    let c = render(&studio, &random_scene(&studio, 43, 320, 240).unwrap());
    assert_eq!(a.0, b.0);
    assert_eq!(
        serde_json::to_string(&a.1).unwrap(),
        serde_json::to_string(&b.1).unwrap()
    );
    assert_ne!(a.0, c.0);
}
