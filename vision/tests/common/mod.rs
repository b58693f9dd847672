//! What the reader's tests and examples share (`#[path]` includes this file).

use image::RgbImage;
use vision::{DiceReader, Motion, Reading};

/// One item of a reading: what it was read as (a die's colour and value, a meeple's player
/// and rank, and whether unsure), and its box.
pub type Item = (String, [f32; 4]);

fn items(reading: &Reading) -> Vec<Item> {
    let dice = (reading.dice.iter()).map(|d| {
        let what = format!("{} {} {}", d.color.name(), d.value, d.uncertain);
        (what, d.box_px)
    });
    let meeples = (reading.meeples.iter()).map(|m| {
        let what = format!("{:?} {:?} {}", m.player, m.rank, m.uncertain);
        (what, m.box_px)
    });
    dice.chain(meeples).collect()
}

/// Whether two boxes are the same within `px` pixels on every side.
pub fn within(a: [f32; 4], b: [f32; 4], px: f32) -> bool {
    (0..4).all(|i| (a[i] - b[i]).abs() <= px)
}

/// Each item of `frame` read whole, with what a still frame reads in a window around it
/// (`DiceReader::read_again` on the frame itself): a patch painted on the item's centre
/// makes the blocks it touches the region read again.
pub fn each_item_read_again(reader: &mut DiceReader, frame: &RgbImage) -> Vec<(Item, Vec<Item>)> {
    let whole = reader.read(frame, None).unwrap();
    let (width, height) = (frame.width() as i32, frame.height() as i32);
    let mut out = Vec::new();
    for item in items(&whole) {
        let box_px = item.1;
        let cx = ((box_px[0] + box_px[2]) / 2.0) as i32;
        let cy = ((box_px[1] + box_px[3]) / 2.0) as i32;
        let (xs, ys) = (
            (cx - 6).max(0)..(cx + 6).min(width),
            (cy - 6).max(0)..(cy + 6).min(height),
        );
        // Black on a light patch, white on a dark one: the motion check compares brightness.
        let light = (ys.clone())
            .flat_map(|y| xs.clone().map(move |x| (x, y)))
            .map(|(x, y)| {
                frame
                    .get_pixel(x as u32, y as u32)
                    .0
                    .iter()
                    .map(|&v| u32::from(v))
                    .sum::<u32>()
            })
            .sum::<u32>()
            > 3 * 128 * (xs.len() * ys.len()) as u32;
        let paint = image::Rgb(if light { [0; 3] } else { [255; 3] });
        let mut patched = frame.clone();
        for y in ys {
            for x in xs.clone() {
                patched.put_pixel(x as u32, y as u32, paint);
            }
        }
        let mut motion = Motion::default();
        motion.compare(frame);
        motion.mark_read();
        let region = motion.compare(&patched);
        assert!(region.any(), "the patch on {item:?} moved nothing");
        let again = items(&reader.read_again(frame, &whole, &region).unwrap());
        out.push((item, again));
    }
    out
}
