//! What moved since the frame last read: each frame is shrunk to a small colour thumbnail
//! and compared, block by block, with the thumbnail of the frame the reader last read (in
//! colour: a purple die on brown wood can be as bright as the wood). A live
//! table is still most of the time (players think, then one hand moves one die), so the
//! reader need only read again what lies in blocks that moved, and nothing at all when
//! none did.

use std::ops::RangeInclusive;

use image::RgbImage;

use crate::reader::BoxPx;

/// The thumbnail's width in cells: a 1280x720 frame becomes 160x90, one cell 8x8 pixels.
const THUMB_WIDTH: u32 = 160;
/// A block is this many cells square: 32x32 pixels of a 1280x720 frame, about a die and
/// its shadow seen from a webcam over the mat.
const BLOCK_CELLS: usize = 4;
/// A block has moved when its cells' levels (the channel that changed most in each) changed
/// by more than this on average (0..255), or by more than its noise allows ([`NoiseFloor`]).
/// A die's pips turned by a spell change a 32 px block by 10-20 levels; a webcam's noise,
/// averaged over a cell's 64 pixels, by under 1 in good light, and by 2-4 in dim light on a
/// dark cloth, where the sensor's gain is high and sRGB stretches the shadows.
const MOVED_LEVELS: f32 = 4.0;
/// How many of the last steps (frame to next frame) [`NoiseFloor`] keeps for each block.
const NOISE_STEPS: usize = 32;
/// A block's quiet change is the change this share of its kept steps stays under: a hand
/// moving over the block in most of them leaves it low.
const QUIET_SHARE: f32 = 0.2;
/// The steps a block's noise is known from: before, a block moves by `MOVED_LEVELS`.
const NOISE_KNOWN_STEPS: usize = NOISE_STEPS / 4;
/// A block has moved when it changed by more than its quiet change times this. The noise
/// then moves a few blocks here and there, which are read again, but seldom 16 side by side,
/// a hand's region. Measured on two rendered games (`tablesight referee`, models/HISTORY.md,
/// the thirty-seventh session): under 1.4 a dim game's noise is still a hand in most
/// frames; from 1.8 the demo's game is followed wrong from its fifteenth action (other blocks
/// read again, and an apprentice on a spellbook missed there).
const NOISE_MARGIN: f32 = 1.5;
/// The most a block's noise raises the change it needs to have moved: a hand, a die put
/// down or a die's turned face change a block by more.
const NOISY_LEVELS: f32 = 10.0;

/// The colour thumbnail of one frame: each cell's mean red, green and blue.
#[derive(Clone, Debug, PartialEq)]
struct Thumbnail {
    /// The frame's size in pixels.
    frame: (u32, u32),
    /// Pixels per cell.
    cell: u32,
    columns: usize,
    rows: usize,
    cells: Vec<[f32; 3]>,
}

/// The side in pixels of a thumbnail's cell for a `width` x `height` frame, and the
/// thumbnail's columns and rows of cells.
fn cells_of(width: u32, height: u32) -> (u32, usize, usize) {
    let cell = (width / THUMB_WIDTH).max(1);
    (cell, (width / cell) as usize, (height / cell) as usize)
}

impl Thumbnail {
    fn of(image: &RgbImage) -> Self {
        let (width, height) = image.dimensions();
        let (cell, columns, rows) = cells_of(width, height);
        let mut cells = vec![[0.0f32; 3]; columns * rows];
        let stride = width as usize * 3;
        let pixels = image.as_raw();
        let cell_px = cell as usize;
        for y in 0..rows * cell_px {
            let line = &pixels[y * stride..y * stride + columns * cell_px * 3];
            let sums = &mut cells[(y / cell_px) * columns..(y / cell_px + 1) * columns];
            for (sum, cell_pixels) in sums.iter_mut().zip(line.chunks_exact(cell_px * 3)) {
                let mut row = [0u32; 3];
                for p in cell_pixels.chunks_exact(3) {
                    for (r, &v) in row.iter_mut().zip(p) {
                        *r += u32::from(v);
                    }
                }
                for (s, r) in sum.iter_mut().zip(row) {
                    *s += r as f32;
                }
            }
        }
        let scale = 1.0 / (cell * cell) as f32;
        for c in cells.iter_mut().flatten() {
            *c *= scale;
        }
        Self {
            frame: (width, height),
            cell,
            columns,
            rows,
            cells,
        }
    }
}

/// Which blocks of a frame moved since the frame last read.
#[derive(Clone, Debug, PartialEq)]
pub struct Changes {
    /// Pixels per block side.
    block_px: f32,
    columns: usize,
    rows: usize,
    moved: Vec<bool>,
}

impl Changes {
    /// Every block moved: a frame with nothing to compare with.
    pub fn everything() -> Self {
        Self {
            block_px: f32::INFINITY,
            columns: 1,
            rows: 1,
            moved: vec![true],
        }
    }

    /// The blocks of a `width` x `height` frame (the grid [`Motion`] compares frames on)
    /// that overlap any of `boxes` (pixels): with a calibration, where the game's pieces
    /// can be seen.
    pub fn covering(width: u32, height: u32, boxes: &[BoxPx]) -> Self {
        let (cell, cell_columns, cell_rows) = cells_of(width, height);
        let mut changes = Self::unmoved(cell, cell_columns, cell_rows);
        for b in boxes {
            if b[2] < 0.0 || b[3] < 0.0 || b[0] >= width as f32 || b[1] >= height as f32 {
                continue;
            }
            let (rows, columns) = changes.blocks_under(*b);
            for r in rows {
                for c in columns.clone() {
                    changes.moved[r * changes.columns + c] = true;
                }
            }
        }
        changes
    }

    /// No block moved, on the grid of a thumbnail of `cell` pixels a cell and `cell_columns`
    /// x `cell_rows` cells.
    fn unmoved(cell: u32, cell_columns: usize, cell_rows: usize) -> Self {
        let (columns, rows) = (
            cell_columns.div_ceil(BLOCK_CELLS),
            cell_rows.div_ceil(BLOCK_CELLS),
        );
        Self {
            block_px: (cell as usize * BLOCK_CELLS) as f32,
            columns,
            rows,
            moved: vec![false; columns * rows],
        }
    }

    /// The rows and the columns of the blocks a box (pixels of the frame) overlaps, those of
    /// the grid's edge for a box beyond it.
    fn blocks_under(&self, box_px: BoxPx) -> (RangeInclusive<usize>, RangeInclusive<usize>) {
        let block = |v: f32, count: usize| ((v / self.block_px).max(0.0) as usize).min(count - 1);
        (
            block(box_px[1], self.rows)..=block(box_px[3], self.rows),
            block(box_px[0], self.columns)..=block(box_px[2], self.columns),
        )
    }

    /// Only the blocks that also lie in `area` (of the same grid). `Changes::everything`
    /// within an area is the area; an area of another grid, or everything, leaves `self`.
    pub fn within(&self, area: &Changes) -> Changes {
        if !self.block_px.is_finite() && area.block_px.is_finite() && self.any() {
            return area.clone();
        }
        let grid = |c: &Changes| (c.block_px, c.columns, c.rows);
        if grid(self) != grid(area) {
            return self.clone();
        }
        Changes {
            moved: (self.moved.iter().zip(&area.moved))
                .map(|(&a, &b)| a && b)
                .collect(),
            ..self.clone()
        }
    }

    /// Adds the blocks that moved in `other`; changes of frames of another size make
    /// everything moved.
    pub fn merge(&mut self, other: &Changes) {
        let grid = |c: &Changes| (c.block_px, c.columns, c.rows);
        if grid(self) == grid(other) {
            for (mine, &theirs) in self.moved.iter_mut().zip(&other.moved) {
                *mine |= theirs;
            }
        } else {
            *self = Self::everything();
        }
    }

    /// Whether anything moved.
    pub fn any(&self) -> bool {
        self.moved.iter().any(|&m| m)
    }

    /// The share of blocks that moved (0..1).
    pub fn share(&self) -> f32 {
        self.moved.iter().filter(|&&m| m).count() as f32 / self.moved.len() as f32
    }

    /// The blocks of the largest region of blocks that moved, touching by side or corner:
    /// a die put down moves 2-9 blocks of a 1280x720 frame, a hand or an arm dozens.
    pub fn largest_region(&self) -> usize {
        self.largest_blocks().len()
    }

    /// Only the largest region of blocks that moved (`largest_region`): where a hand is.
    pub fn largest(&self) -> Changes {
        let mut moved = vec![false; self.moved.len()];
        for i in self.largest_blocks() {
            moved[i] = true;
        }
        Changes {
            moved,
            ..self.clone()
        }
    }

    /// The indices of the blocks of the largest region that moved.
    fn largest_blocks(&self) -> Vec<usize> {
        let mut seen = vec![false; self.moved.len()];
        let mut largest = Vec::new();
        let mut stack = Vec::new();
        for start in 0..self.moved.len() {
            if !self.moved[start] || seen[start] {
                continue;
            }
            seen[start] = true;
            stack.push(start);
            let mut region = Vec::new();
            while let Some(i) = stack.pop() {
                region.push(i);
                let (r, c) = (i / self.columns, i % self.columns);
                for rr in r.saturating_sub(1)..(r + 2).min(self.rows) {
                    for cc in c.saturating_sub(1)..(c + 2).min(self.columns) {
                        let j = rr * self.columns + cc;
                        if self.moved[j] && !seen[j] {
                            seen[j] = true;
                            stack.push(j);
                        }
                    }
                }
            }
            if region.len() > largest.len() {
                largest = region;
            }
        }
        largest
    }

    /// Whether a block on the frame's border moved: an arm reaches over the table from
    /// beyond the picture, a die or a cup put down lies inside it.
    pub fn touches_border(&self) -> bool {
        if !self.block_px.is_finite() {
            return self.any();
        }
        (0..self.moved.len()).any(|i| {
            let (r, c) = (i / self.columns, i % self.columns);
            self.moved[i] && (r == 0 || c == 0 || r + 1 == self.rows || c + 1 == self.columns)
        })
    }

    /// The box (pixels of the frame) around every block that moved; `None` when nothing
    /// did, or when the whole frame counts as moved (`Changes::everything`).
    pub fn bounds(&self) -> Option<BoxPx> {
        if !self.block_px.is_finite() {
            return None;
        }
        let moved = (0..self.moved.len()).filter(|&i| self.moved[i]);
        let (mut c0, mut r0, mut c1, mut r1) = (usize::MAX, usize::MAX, 0, 0);
        for i in moved {
            let (r, c) = (i / self.columns, i % self.columns);
            (c0, r0, c1, r1) = (c0.min(c), r0.min(r), c1.max(c), r1.max(r));
        }
        (c0 != usize::MAX).then(|| {
            let px = |cell: usize| cell as f32 * self.block_px;
            [px(c0), px(r0), px(c1 + 1), px(r1 + 1)]
        })
    }

    /// Whether a box (pixels of the frame) overlaps a block that moved.
    pub fn touches(&self, box_px: BoxPx) -> bool {
        if !self.block_px.is_finite() {
            return self.any();
        }
        let (mut rows, columns) = self.blocks_under(box_px);
        rows.any(|r| columns.clone().any(|c| self.moved[r * self.columns + c]))
    }
}

/// How much each block changes from one frame to the next when nothing over it moves: the
/// picture's noise, which a dim webcam's gain makes larger in the shadows than in the light.
/// Kept from each block's last steps (a low share of them, so that a hand passing over the
/// block does not raise it).
#[derive(Clone, Debug, Default)]
struct NoiseFloor {
    /// The blocks' changes of the last steps, oldest first; all of one grid.
    steps: std::collections::VecDeque<Vec<f32>>,
    /// The change each block needs to have moved.
    moved_levels: Vec<f32>,
}

impl NoiseFloor {
    /// Adds one step's block changes, or forgets every step when the grid changed or there
    /// was no step (`None`: a first frame, or one of another size).
    fn add(&mut self, step: Option<&[f32]>) {
        let Some(step) = step else {
            *self = Self::default();
            return;
        };
        if self.steps.front().is_some_and(|s| s.len() != step.len()) {
            *self = Self::default();
        }
        if self.steps.len() == NOISE_STEPS {
            self.steps.pop_front();
        }
        self.steps.push_back(step.to_vec());
        if self.steps.len() < NOISE_KNOWN_STEPS {
            self.moved_levels.clear();
            return;
        }
        let quiet_rank = (self.steps.len() as f32 * QUIET_SHARE) as usize;
        let mut kept = Vec::with_capacity(self.steps.len());
        self.moved_levels = (0..step.len())
            .map(|block| {
                kept.clear();
                kept.extend(self.steps.iter().map(|s| s[block]));
                let quiet = *kept.select_nth_unstable_by(quiet_rank, f32::total_cmp).1;
                (quiet * NOISE_MARGIN).clamp(MOVED_LEVELS, NOISY_LEVELS)
            })
            .collect();
    }

    /// Which of a frame's blocks moved, from their changes.
    fn moved(&self, levels: &[f32]) -> Vec<bool> {
        if self.moved_levels.len() != levels.len() {
            return levels.iter().map(|&l| l > MOVED_LEVELS).collect();
        }
        (levels.iter().zip(&self.moved_levels))
            .map(|(&l, &needed)| l > needed)
            .collect()
    }
}

/// Compares frames with the frame last read, and with the frame before.
#[derive(Clone, Debug)]
pub struct Motion {
    read: Option<Thumbnail>,
    latest: Option<Thumbnail>,
    step: Changes,
    noise: NoiseFloor,
}

impl Default for Motion {
    fn default() -> Self {
        Self {
            read: None,
            latest: None,
            step: Changes::everything(),
            noise: NoiseFloor::default(),
        }
    }
}

impl Motion {
    /// The blocks of `image` that moved since the frame last marked read
    /// ([`Motion::mark_read`]); everything when there is none, or its size differs.
    pub fn compare(&mut self, image: &RgbImage) -> Changes {
        let now = Thumbnail::of(image);
        let step = block_levels(self.latest.as_ref(), &now, [1.0; 3]);
        self.noise.add(step.as_deref());
        self.step = self.moved(&now, step);
        let changes = self.moved(&now, block_levels(self.read.as_ref(), &now, [1.0; 3]));
        self.latest = Some(now);
        changes
    }

    /// The blocks of `now` that moved, from their changes; everything when there are none.
    fn moved(&self, now: &Thumbnail, levels: Option<Vec<f32>>) -> Changes {
        let Some(levels) = levels else {
            return Changes::everything();
        };
        Changes {
            moved: self.noise.moved(&levels),
            ..Changes::unmoved(now.cell, now.columns, now.rows)
        }
    }

    /// The blocks that moved from the frame compared before the last to the last one,
    /// whether or not either was read: a hand moving over the table moves many of them
    /// from one frame to the next. Everything before a second frame.
    pub fn step(&self) -> &Changes {
        &self.step
    }

    /// The blocks of the frame last compared that differ from the frame last read once the
    /// whole frame's drift is taken out: a webcam's auto-exposure and white balance follow
    /// a hand in and out of the picture, which moves every bright block a little for
    /// seconds after (one gain a channel, the median of the cells' ratios, which a hand
    /// over part of the frame does not sway). What remains after a hand stopped over the
    /// table is the hand and the arm. Everything when there is nothing to compare.
    pub fn beyond_drift(&self) -> Changes {
        let (Some(read), Some(latest)) = (&self.read, &self.latest) else {
            return Changes::everything();
        };
        if read.frame != latest.frame {
            return Changes::everything();
        }
        let mut ratios: Vec<f32> = Vec::with_capacity(latest.cells.len());
        let gain = [0, 1, 2].map(|c| {
            ratios.clear();
            ratios.extend(
                latest
                    .cells
                    .iter()
                    .zip(&read.cells)
                    .map(|(now, before)| (now[c] + 1.0) / (before[c] + 1.0)),
            );
            let middle = ratios.len() / 2;
            *ratios.select_nth_unstable_by(middle, f32::total_cmp).1
        });
        self.moved(latest, block_levels(Some(read), latest, gain))
    }

    /// The frame last compared has been read: later frames are compared with it.
    pub fn mark_read(&mut self) {
        if let Some(latest) = &self.latest {
            self.read = Some(latest.clone());
        }
    }
}

/// How much each block (of [`Changes`]' grid, in order) changed from `before`, its channels
/// times `gain`, to `now`: the mean over its cells of the channel that changed most in each
/// (0..255); `None` when there is no `before`, or its size differs.
fn block_levels(before: Option<&Thumbnail>, now: &Thumbnail, gain: [f32; 3]) -> Option<Vec<f32>> {
    let before = before.filter(|b| b.frame == now.frame)?;
    let columns = now.columns.div_ceil(BLOCK_CELLS);
    let mut totals = vec![(0.0f32, 0u32); columns * now.rows.div_ceil(BLOCK_CELLS)];
    for y in 0..now.rows {
        for x in 0..now.columns {
            let i = y * now.columns + x;
            let total = &mut totals[(y / BLOCK_CELLS) * columns + x / BLOCK_CELLS];
            let (a, b) = (now.cells[i], before.cells[i]);
            total.0 += (0..3)
                .map(|c| (a[c] - b[c] * gain[c]).abs())
                .fold(0.0, f32::max);
            total.1 += 1;
        }
    }
    Some(totals.iter().map(|&(sum, n)| sum / n as f32).collect())
}

#[cfg(test)]
mod tests {
    use image::Rgb;

    use super::*;

    fn table() -> RgbImage {
        RgbImage::from_fn(1280, 720, |x, y| {
            Rgb([(x % 200) as u8, (y % 180) as u8, ((x + y) % 90) as u8])
        })
    }

    /// Paints a square of `side` pixels from (`x0`, `y0`): a die put down, a hand.
    fn paint(image: &mut RgbImage, x0: u32, y0: u32, side: u32, color: [u8; 3]) {
        for y in y0..y0 + side {
            for x in x0..x0 + side {
                image.put_pixel(x, y, Rgb(color));
            }
        }
    }

    #[test]
    fn a_still_frame_has_not_moved_and_a_new_die_moves_only_its_blocks() {
        let mut motion = Motion::default();
        let first = table();
        assert!(motion.compare(&first).any(), "nothing to compare with");
        motion.mark_read();
        let mut noisy = first.clone();
        for (i, p) in noisy.pixels_mut().enumerate() {
            p[0] = p[0].saturating_add((i % 3) as u8);
        }
        assert!(!motion.compare(&noisy).any(), "sensor noise is no motion");
        // A white die of 30 px put down at (600, 300).
        let mut moved = first.clone();
        paint(&mut moved, 600, 300, 30, [250, 250, 250]);
        let changes = motion.compare(&moved);
        assert!(
            changes.any() && changes.share() < 0.01,
            "{}",
            changes.share()
        );
        assert!(changes.touches([605.0, 305.0, 625.0, 325.0]));
        assert!(!changes.touches([100.0, 100.0, 130.0, 130.0]));
        // Its blocks of 32 px, from (576, 288) to (640, 352).
        assert_eq!(changes.bounds(), Some([576.0, 288.0, 640.0, 352.0]));
        assert!(!changes.touches([700.0, 300.0, 730.0, 330.0]));
        // Compared with the frame last read, not the last compared: still moved; but
        // nothing moved from the frame before.
        assert!(motion.compare(&moved).any());
        assert!(!motion.step().any());
        motion.mark_read();
        assert!(!motion.compare(&moved).any());
    }

    /// `image` with noise of up to `amplitude` levels on each channel of every pixel left of
    /// `x_end`, a different draw for each `frame`: a dim webcam over a dark cloth.
    fn noisy(image: &RgbImage, x_end: u32, amplitude: i32, frame: u32) -> RgbImage {
        let mut noisy = image.clone();
        let mut state = 0x9E37_79B9u32 ^ frame.wrapping_mul(0x85EB_CA6B);
        for (x, _, p) in noisy.enumerate_pixels_mut() {
            for v in p.0.iter_mut() {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                if x < x_end {
                    let delta = (state % (2 * amplitude as u32 + 1)) as i32 - amplitude;
                    *v = (i32::from(*v) + delta).clamp(0, 255) as u8;
                }
            }
        }
        noisy
    }

    #[test]
    fn a_noisy_part_of_the_picture_learns_its_noise_and_still_sees_a_die() {
        let mut motion = Motion::default();
        let first = table();
        motion.compare(&noisy(&first, 640, 30, 0));
        motion.mark_read();
        // Before the noise is known, it moves many blocks of the noisy half, side by side
        // as a hand's, and none of the clean half.
        let changes = motion.compare(&noisy(&first, 640, 30, 1));
        assert!(changes.share() > 0.2 && changes.largest_region() > 50);
        assert!(!changes.touches([672.0, 0.0, 1280.0, 720.0]));
        for frame in 2..40 {
            motion.compare(&noisy(&first, 640, 30, frame));
        }
        // Once known, a few blocks here and there.
        let changes = motion.compare(&noisy(&first, 640, 30, 40));
        for changes in [motion.step(), &changes] {
            assert!(
                changes.share() < 0.03 && changes.largest_region() < 4,
                "{} {}",
                changes.share(),
                changes.largest_region()
            );
        }
        // A die put down in the noisy half moves its blocks, and a faint change of 6 levels
        // in the clean half moves its own, as before.
        let mut moved = first.clone();
        paint(&mut moved, 300, 300, 30, [250, 250, 250]);
        for y in 500..564 {
            for x in 800..864 {
                let p = moved.get_pixel_mut(x, y);
                p[1] = p[1].saturating_add(6);
            }
        }
        let changes = motion.compare(&noisy(&moved, 640, 30, 41));
        assert!(changes.touches([305.0, 305.0, 325.0, 325.0]));
        assert!(changes.touches([804.0, 504.0, 850.0, 550.0]));
        assert!(!changes.touches([672.0, 0.0, 790.0, 720.0]));
    }

    #[test]
    fn merged_changes_hold_the_blocks_of_both() {
        let mut motion = Motion::default();
        let first = table();
        motion.compare(&first);
        motion.mark_read();
        let with_die = |x0: u32| {
            let mut image = first.clone();
            paint(&mut image, x0, 300, 30, [250, 250, 250]);
            image
        };
        let mut recent = motion.compare(&with_die(100));
        recent.merge(&motion.compare(&with_die(600)));
        assert!(recent.touches([105.0, 305.0, 125.0, 325.0]));
        assert!(recent.touches([605.0, 305.0, 625.0, 325.0]));
        assert!(!recent.touches([1000.0, 300.0, 1030.0, 330.0]));
        recent.merge(&motion.compare(&RgbImage::new(640, 360)));
        assert_eq!(recent.share(), 1.0);
    }

    #[test]
    fn a_frame_of_another_size_has_moved_everywhere() {
        let mut motion = Motion::default();
        motion.compare(&table());
        motion.mark_read();
        let changes = motion.compare(&RgbImage::new(640, 360));
        assert!(changes.touches([0.0, 0.0, 1.0, 1.0]));
        assert_eq!(changes.share(), 1.0);
        assert_eq!(changes.bounds(), None);
    }

    #[test]
    fn a_drift_of_the_whole_frame_is_taken_out_and_a_hand_from_the_border_stays() {
        let mut motion = Motion::default();
        let first = table();
        motion.compare(&first);
        motion.mark_read();
        // Auto-exposure brightens the frame by a tenth, white balance warms it, and a hand
        // rests over it with its arm from the left border.
        let mut drifted = first.clone();
        for p in drifted.pixels_mut() {
            p[0] = (f32::from(p[0]) * 1.15).min(255.0) as u8;
            p[1] = (f32::from(p[1]) * 1.1).min(255.0) as u8;
            p[2] = (f32::from(p[2]) * 1.05).min(255.0) as u8;
        }
        assert!(
            motion.compare(&drifted).share() > 0.3,
            "the drift moves blocks"
        );
        assert!(!motion.beyond_drift().any(), "the drift alone is taken out");
        let skin = [220, 170, 150];
        paint(&mut drifted, 0, 300, 400, skin);
        motion.compare(&drifted);
        let lasting = motion.beyond_drift();
        assert!(lasting.largest_region() >= 100 && lasting.share() < 0.25);
        assert!(lasting.touches_border());
        // A die put down inside the frame touches no border.
        let mut die = first.clone();
        paint(&mut die, 600, 300, 30, [250, 250, 250]);
        motion.compare(&die);
        assert!(motion.beyond_drift().any() && !motion.beyond_drift().touches_border());
        assert!(Changes::everything().touches_border());
    }

    #[test]
    fn changes_within_the_zones_keep_only_their_blocks() {
        // Two zones of a 1280x720 frame; blocks of 32 px.
        let zones = Changes::covering(
            1280,
            720,
            &[[100.0, 100.0, 200.0, 150.0], [1250.0, 700.0, 1400.0, 800.0]],
        );
        assert!(zones.touches([110.0, 110.0, 120.0, 120.0]));
        assert!(zones.touches([1270.0, 710.0, 1275.0, 715.0]));
        assert!(!zones.touches([300.0, 300.0, 310.0, 310.0]));
        // From (96, 96) to (224, 160): 4 x 2 blocks; the corner's two blocks, the last row
        // of 40 x 23 running past the frame's bottom.
        assert_eq!(zones.bounds(), Some([96.0, 96.0, 1280.0, 736.0]));
        assert_eq!((zones.share() * 920.0).round(), 10.0);
        let mut motion = Motion::default();
        let first = table();
        motion.compare(&first);
        motion.mark_read();
        let mut moved = first.clone();
        paint(&mut moved, 110, 110, 30, [250, 250, 250]);
        paint(&mut moved, 600, 300, 30, [250, 250, 250]);
        let changes = motion.compare(&moved).within(&zones);
        assert!(changes.touches([115.0, 115.0, 125.0, 125.0]));
        assert!(!changes.touches([605.0, 305.0, 625.0, 325.0]));
        assert_eq!(Changes::everything().within(&zones), zones);
        assert_eq!(changes.within(&Changes::everything()), changes);
    }

    #[test]
    fn a_hand_is_one_large_region_and_two_dice_two_small_ones() {
        let mut motion = Motion::default();
        let first = table();
        motion.compare(&first);
        motion.mark_read();
        let mut moved = first.clone();
        let skin = [220, 170, 150];
        paint(&mut moved, 100, 100, 30, skin);
        paint(&mut moved, 400, 100, 30, skin);
        assert!(motion.compare(&moved).largest_region() <= 4);
        paint(&mut moved, 600, 300, 200, skin);
        let changes = motion.compare(&moved);
        assert!(changes.largest_region() >= 36);
        // The hand alone: not the dice beside it.
        let hand = changes.largest();
        assert_eq!(hand.largest_region(), changes.largest_region());
        assert!(hand.touches([650.0, 350.0, 700.0, 400.0]));
        assert!(changes.touches([105.0, 105.0, 125.0, 125.0]));
        assert!(!hand.touches([105.0, 105.0, 125.0, 125.0]));
        // From the frame before, only the hand moved: the dice were there already.
        assert!(motion.step().largest_region() >= 36);
        assert!(!motion.step().touches([105.0, 105.0, 125.0, 125.0]));
    }
}
