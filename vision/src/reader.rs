//! The dice and meeple reader: a finder over the frame shrunk to 512 px finds every die and
//! meeple (and looks again, finer, at a photo whose dice it found small), a reader of
//! full-resolution crops says what each one is (kind, value and colour; player and rank).
//! Both are ONNX models trained by `models/training/`, run by tract.
//!
//! The constants here are those of `models/training/common.py`; loading a model checks the
//! shapes they imply and names the model in any error.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use calibration::MatPlace;
use fast_image_resize::images::{TypedImage, TypedImageRef};
use fast_image_resize::pixels::U8x3;
use fast_image_resize::{FilterType, ResizeAlg, ResizeOptions, Resizer};
use image::RgbImage;
use serde::Serialize;
use tract_onnx::prelude::*;
use tract_onnx::tract_core::knobs::KnobScope;

use crate::error::VisionError;
use crate::motion::Changes;
use crate::places::TableGeometry;

/// The finder's first look sees the frame with its longer side shrunk to this many pixels.
pub const FINDER_LONG_PX: u32 = 512;
/// A second look (`ReaderSettings::second_look`) sees at most this many pixels a side: the
/// finder's work grows with its input, 16 times the first look's here.
pub const FINDER_MAX_LONG_PX: u32 = 2048;
/// The finder answers on a grid this many input pixels apart.
const FINDER_STRIDE: usize = 4;
/// Finder input sides are multiples of this (its deepest layer is 32 times coarser).
const FINDER_SIDE_MULTIPLE: u32 = 32;
/// Finder output channels: heat of die and meeple, log width and height / 16 px, offset x, y.
const FINDER_CHANNELS: usize = 6;
/// The reader's crop: READER_CONTEXT times the box's longer side, READER_PX square.
pub const READER_PX: u32 = 40;
/// The reader's input: one crop, RGB planes.
const READER_INPUT: [usize; 4] = [1, 3, READER_PX as usize, READER_PX as usize];
const READER_CONTEXT: f32 = 1.5;
/// The side of a die, in the finder's pixels, that a second look aims at, and the die it
/// aims it at: the first look's dice at this quantile of their sides, the small ones of a
/// photo whose dice are near and far (both chosen on validation photos, `models/HISTORY.md`).
const SECOND_LOOK_DIE_PX: f32 = 26.0;
const SECOND_LOOK_QUANTILE: f32 = 0.1;
/// A second look's item is kept where the first look's heat, of either kind, reached this
/// (under it or a cell beside it): the first look suspected something there.
const SECOND_LOOK_HINT: f32 = 0.05;
/// Items longer than this in a second look's pixels are left to the first look.
const LARGE_FINDER_PX: f32 = 96.0;
/// The coarse looks (`ReaderSettings::coarse_look`) see the frame at these many pixels a
/// side, one after the other: each finds dice up to twice as large as the look before.
const COARSE_LOOKS_LONG_PX: [u32; 2] = [256, 128];
/// A die a coarse look finds at least this long, in its pixels, is one too close for the
/// finer looks, which may have taken its pips or faces for dice (chosen on close photos
/// made of the validation photos, `models/HISTORY.md`).
const COARSE_DIE_PX: f32 = 48.0;
/// The finer looks' items centred in such a die and shorter than this share of its side
/// are its parts.
const PART_OF_DIE: f32 = 0.6;
/// A die read unsure and shorter than this share of the median of the SPECK_NEIGHBOURS
/// dice nearest it is a speck (`ReaderSettings::speck_share`; chosen on the validation
/// photos and mosaics, `models/HISTORY.md`).
const SPECK_SHARE: f32 = 0.35;
const SPECK_NEIGHBOURS: usize = 3;
/// A die's side over a standing meeple's height, about.
const MEEPLE_TO_DIE: f32 = 0.6;
/// A camera's frame that moved in a few blocks is searched by the finder only in a window
/// around them: this many of the finder's pixels beyond them on every side (240 pixels of
/// a 1280x720 frame), so that what it finds there is what it finds in the whole frame, the
/// same box read the same. Its deepest layer sees 175 pixels across, and the top-down path
/// spreads that layer's cells over 32 pixels: about 105 pixels each way. With 64, the
/// finder peaked a cell away in some windows and the heats it weighs the reader's kind by
/// differed, so a still table's reading hung on where a hand had last moved: of the 57
/// items of the two rendered reader fixtures, 7 were read otherwise in a window; with 96,
/// none (`vision/tests/reader.rs`), and 806 of 809 items of fifty validation scenes read as
/// in the whole frame, 734 with 64 (`examples/window_consistency.rs`).
const WINDOW_MARGIN_PX: f32 = 96.0;
/// The window's sides are multiples of this (or the shrunk frame's own): each size is an
/// optimised plan of its own, and this keeps them few.
const WINDOW_STEP_PX: u32 = 64;
/// A window over more than this share of the shrunk frame is no saving worth a plan: the
/// whole frame is searched.
const WINDOW_MAX_SHARE: u32 = 2;

const KINDS: usize = 3;
const KIND_DIE: usize = 0;
const KIND_MEEPLE: usize = 1;
/// Column ranges of the reader's output row: kind, value, die colour, player, rank.
const KIND_COLUMNS: std::ops::Range<usize> = 0..KINDS;
const VALUE_COLUMNS: std::ops::Range<usize> = KINDS..KINDS + 6;
const COLOR_COLUMNS: std::ops::Range<usize> = 9..14;
const PLAYER_COLUMNS: std::ops::Range<usize> = 14..18;
const RANK_COLUMNS: std::ops::Range<usize> = 18..20;
const READER_OUTPUTS: usize = 20;

/// The models shipped with Tablesight (trained by `models/training/`, see `models/README.md`).
const FINDER_ONNX: &[u8] = include_bytes!("../../models/finder.onnx");
const READER_ONNX: &[u8] = include_bytes!("../../models/reader.onnx");

/// A die's colour as the reader sees it: the game's four, or a die of another game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DieColor {
    Pink,
    Purple,
    Yellow,
    Blue,
    Other,
}

impl DieColor {
    pub const ALL: [DieColor; 5] = [
        DieColor::Pink,
        DieColor::Purple,
        DieColor::Yellow,
        DieColor::Blue,
        DieColor::Other,
    ];

    pub fn name(self) -> &'static str {
        match self {
            DieColor::Pink => "pink",
            DieColor::Purple => "purple",
            DieColor::Yellow => "yellow",
            DieColor::Blue => "blue",
            DieColor::Other => "other",
        }
    }
}

/// A meeple's player colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MeepleColor {
    Blue,
    Green,
    Red,
    Yellow,
}

impl MeepleColor {
    pub const ALL: [MeepleColor; 4] = [
        MeepleColor::Blue,
        MeepleColor::Green,
        MeepleColor::Red,
        MeepleColor::Yellow,
    ];

    pub fn name(self) -> &'static str {
        match self {
            MeepleColor::Blue => "blue",
            MeepleColor::Green => "green",
            MeepleColor::Red => "red",
            MeepleColor::Yellow => "yellow",
        }
    }
}

/// Apprentice or master.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MeepleRank {
    Apprentice,
    Master,
}

/// A box in pixels of the input image: `[x_min, y_min, x_max, y_max]`.
pub type BoxPx = [f32; 4];

/// One die as read: its value and colour with the reader's probability of each.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DieReading {
    /// The item's number (`ItemId`).
    pub id: ItemId,
    pub color: DieColor,
    pub value: u8,
    #[serde(rename = "box")]
    pub box_px: BoxPx,
    /// The probability that this is a die showing this value in this colour.
    pub confidence: f32,
    pub value_confidence: f32,
    pub color_confidence: f32,
    /// The reader's probability of each value, 1 to 6: what else the die may show, for
    /// whoever weighs an unsure reading against other evidence.
    pub value_probabilities: [f32; 6],
    /// The reader's probability of each colour, in [`DieColor::ALL`]'s order: what else
    /// the die may be (blue and purple look alike in dim light, and under a meeple).
    pub color_probabilities: [f32; 5],
    /// True when any part of the reading is below the reader's settings: report it as
    /// unsure, never as a silent guess.
    pub uncertain: bool,
    /// Where it stands on the mat, when a calibration says (`TableGeometry::locate`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub place: Option<MatPlace>,
}

impl DieReading {
    /// The value the reader found likeliest after the one read, and its probability.
    pub fn runner_up(&self) -> Option<(u8, f32)> {
        (1..=6u8)
            .zip(self.value_probabilities)
            .filter(|&(value, _)| value != self.value)
            .max_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// The colour the reader found likeliest after the one read, and its probability.
    pub fn color_runner_up(&self) -> Option<(DieColor, f32)> {
        DieColor::ALL
            .into_iter()
            .zip(self.color_probabilities)
            .filter(|&(color, _)| color != self.color)
            .max_by(|a, b| a.1.total_cmp(&b.1))
    }
}

/// One meeple as read.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MeepleReading {
    /// The item's number (`ItemId`).
    pub id: ItemId,
    pub player: MeepleColor,
    pub rank: MeepleRank,
    #[serde(rename = "box")]
    pub box_px: BoxPx,
    pub confidence: f32,
    pub uncertain: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub place: Option<MatPlace>,
}

/// An item's number, from 1: each item of a photo has its own, and in a camera's frames an
/// item that has not moved keeps the one it had (`DiceReader::read_moved`,
/// `DiceReader::read_again`), whatever it is read as from one frame to the next (a die's
/// value is voted over frames by the referee); what a frame finds anew takes a new one.
pub type ItemId = u32;

/// Everything read in one image.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Reading {
    pub width: u32,
    pub height: u32,
    pub dice: Vec<DieReading>,
    pub meeples: Vec<MeepleReading>,
}

/// Thresholds of the reader (chosen on validation data, see `models/HISTORY.md`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReaderSettings {
    /// The finder's heat above which a place is looked at by the reader.
    pub find_threshold: f32,
    /// The reader's probability of "die" or "meeple" above which an item is reported.
    pub keep_threshold: f32,
    /// A meeple on its die, where the finder peaks once for each and the reader reads both
    /// crops as one kind: the place peaked as the other kind is read as that kind when the
    /// reader gives it at least this probability (flagged uncertain below `sure_kind`).
    pub pair_threshold: f32,
    /// Below these probabilities a reading is flagged uncertain.
    pub sure_kind: f32,
    pub sure_value: f32,
    pub sure_color: f32,
    /// Which views of each crop are read.
    pub views: Views,
    /// The finder finds dice best at a scale, whatever the frame's size: when its first
    /// look (the frame shrunk to FINDER_LONG_PX) finds dice smaller than this many of its
    /// pixels, or nothing at all, it looks again at the scale where the small dice it found
    /// (the tenth percentile) measure this (never finer than the frame's own pixels, nor
    /// past FINDER_MAX_LONG_PX). A phone's photo of dice seen from afar is so read as its
    /// dice need, not as the shrunk frame blurs them. `None`: no second look.
    pub second_look: Option<f32>,
    /// A phone held over a roll takes dice of half the frame, too large for the first
    /// look, which finds their pips as dice: the finder also looks at the frame shrunk to
    /// COARSE_LOOKS_LONG_PX, and the large dice it finds there replace what the finer looks
    /// found inside them.
    pub coarse_look: bool,
    /// A die read unsure and shorter than this share of the dice nearest it (their median
    /// side) is a speck taken for a die (a hole in a tray, a dot of print) and is not
    /// reported: dice side by side stand at much the same distance. `None`: every die is
    /// kept.
    pub speck_share: Option<f32>,
}

/// The views of each crop that the reader reads. The probabilities of a die's value and
/// colour are averaged over them; kind, player and rank come from the crop as it is
/// (meeples stand upright in the frame).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Views {
    /// The crop as it is: a camera's frames, read many times a second and voted over.
    One,
    /// The crop and its mirror image, left and right swapped, for photos. A face's pips
    /// are their own mirror image turned, and a mirror keeps which face is on top: the
    /// reader learnt the dice it sees obliquely upright, their side faces below the top
    /// face (`train_reader.py --upright-tilt`), which a turned view would lose. The two
    /// views misread fewer dice than one, and fewer than four quarter turns
    /// (`models/HISTORY.md`).
    Mirrored,
}

impl Views {
    /// Each view read, in order: whether it is the mirror image. The first is the crop as
    /// it is.
    fn mirrored(self) -> &'static [bool] {
        match self {
            Views::One => &[false],
            Views::Mirrored => &[false, true],
        }
    }
}

impl Default for ReaderSettings {
    /// For photos and single frames: every crop read with its mirror image.
    fn default() -> Self {
        ReaderSettings {
            find_threshold: 0.3,
            keep_threshold: 0.5,
            pair_threshold: 0.25,
            sure_kind: 0.8,
            sure_value: 0.8,
            sure_color: 0.7,
            views: Views::Mirrored,
            second_look: Some(SECOND_LOOK_DIE_PX),
            coarse_look: true,
            speck_share: Some(SPECK_SHARE),
        }
    }
}

impl ReaderSettings {
    /// For a camera's frames, read many times a second and voted over frames: one reading
    /// of each crop, and one look of the finder (a camera over a table sees its dice at
    /// the first look's scale).
    pub fn live() -> Self {
        ReaderSettings::default().for_camera()
    }

    /// These settings' thresholds, with the camera's reading and looks.
    pub fn for_camera(self) -> Self {
        ReaderSettings {
            views: Views::One,
            second_look: None,
            coarse_look: false,
            ..self
        }
    }
}

/// A place the finder found, before the reader looked at it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Found {
    pub box_px: BoxPx,
    /// 0: die, 1: meeple: the class whose heat peaked here.
    pub class: usize,
    /// The finder's heat (0..1) of a die and of a meeple at the centre, from the shrunk
    /// frame: its opinion of what stands here, which the reader's is weighed against.
    pub heats: [f32; 2],
}

impl Found {
    /// The heat of the class that peaked here.
    pub fn heat(&self) -> f32 {
        self.heats[self.class]
    }
}

pub type Plan = Arc<TypedRunnableModel>;

/// The finder and the reader, loaded once, with their buffers.
pub struct DiceReader {
    finder_onnx: Vec<u8>,
    finder_name: String,
    finder_plans: HashMap<(u32, u32), Plan>,
    /// The reader's plan, one crop a call: tract gathers a single input's 3x3 patches
    /// lazily, but copies out every patch of a batch first, which made 16 crops a call
    /// twice as slow as 16 calls (`cargo bench -p tablesight-vision --bench models`).
    reader: Plan,
    resizer: Resizer,
    shrunk: Vec<u8>,
    crop: Vec<u8>,
    crop_small: Vec<u8>,
    input: Vec<f32>,
    /// The number the next new item takes.
    next_id: ItemId,
    pub settings: ReaderSettings,
}

fn model_error(model: &str, error: impl std::fmt::Display) -> VisionError {
    VisionError::Model {
        model: model.to_owned(),
        reason: error.to_string(),
    }
}

impl DiceReader {
    /// The models shipped inside the binary.
    pub fn shipped() -> Result<DiceReader, VisionError> {
        DiceReader::from_files(None, None)
    }

    /// Models from files (to try a newly trained finder, reader or pair); `None` is the
    /// shipped model.
    pub fn from_files(
        finder: Option<&Path>,
        reader: Option<&Path>,
    ) -> Result<DiceReader, VisionError> {
        let read = |path: Option<&Path>, shipped: &'static [u8], shipped_name: &str| {
            Ok::<_, VisionError>(match path {
                Some(path) => (
                    Cow::Owned(
                        std::fs::read(path)
                            .map_err(|e| model_error(&path.display().to_string(), e))?,
                    ),
                    path.display().to_string(),
                ),
                None => (Cow::Borrowed(shipped), shipped_name.to_owned()),
            })
        };
        let (finder, finder_name) = read(finder, FINDER_ONNX, "models/finder.onnx")?;
        let (reader, reader_name) = read(reader, READER_ONNX, "models/reader.onnx")?;
        DiceReader::from_bytes(&finder, &finder_name, &reader, &reader_name)
    }

    /// The models of a folder: its `finder.onnx` and `reader.onnx`, the shipped one for a
    /// file it does not hold (a folder of a reader's run holds its reader alone).
    pub fn from_folder(dir: &Path) -> Result<DiceReader, VisionError> {
        if !dir.is_dir() {
            return Err(model_error(
                &dir.display().to_string(),
                "no such folder (a folder of finder.onnx, reader.onnx or both is wanted)",
            ));
        }
        let file = |name: &str| Some(dir.join(name)).filter(|path| path.is_file());
        let (finder, reader) = (file("finder.onnx"), file("reader.onnx"));
        if finder.is_none() && reader.is_none() {
            return Err(model_error(
                &dir.display().to_string(),
                "the folder holds neither finder.onnx nor reader.onnx (one or both wanted)",
            ));
        }
        DiceReader::from_files(finder.as_deref(), reader.as_deref())
    }

    fn from_bytes(
        finder: &[u8],
        finder_name: &str,
        reader: &[u8],
        reader_name: &str,
    ) -> Result<DiceReader, VisionError> {
        let reader_plan = tract_plan(reader, reader_name, READER_INPUT)?;
        check_output(&reader_plan, reader_name, &[1, READER_OUTPUTS])?;
        let mut dice_reader = DiceReader {
            finder_onnx: finder.to_vec(),
            finder_name: finder_name.to_owned(),
            finder_plans: HashMap::new(),
            reader: reader_plan,
            resizer: Resizer::new(),
            shrunk: Vec::new(),
            crop: Vec::new(),
            crop_small: vec![0; (READER_PX * READER_PX * 3) as usize],
            input: vec![0.0; 3 * (READER_PX * READER_PX) as usize],
            next_id: 1,
            settings: ReaderSettings::default(),
        };
        // The 16:9 webcam shape is checked (and ready) from the start.
        dice_reader.finder_plan(FINDER_LONG_PX, 288)?;
        Ok(dice_reader)
    }

    fn finder_plan(&mut self, width: u32, height: u32) -> Result<Plan, VisionError> {
        if let Some(plan) = self.finder_plans.get(&(width, height)) {
            return Ok(plan.clone());
        }
        let plan = tract_plan(
            &self.finder_onnx,
            &self.finder_name,
            [1, 3, height as usize, width as usize],
        )?;
        let stride = FINDER_STRIDE as u32;
        check_output(
            &plan,
            &self.finder_name,
            &[
                1,
                FINDER_CHANNELS,
                (height / stride) as usize,
                (width / stride) as usize,
            ],
        )?;
        self.finder_plans.insert((width, height), plan.clone());
        Ok(plan)
    }

    /// Every die and meeple in the image. With `table` (a calibration: a saved one, or the
    /// mat found in the photo) each die is cut for the reader at the size a die has where it
    /// stands (`TableGeometry::die_crop_box`), else at the finder's box, and the meeple
    /// on each die on a tower, and the die under each meeple there, are looked for where
    /// the finder found none (`read_pairs_on_towers`). A camera's frames
    /// (`read_within`, `read_moved`, `read_again`) are cut at the finder's boxes: read in
    /// one view, they gained on validation frames but not in the refereed games
    /// (`models/HISTORY.md`, 2026-11-28).
    pub fn read(
        &mut self,
        image: &RgbImage,
        table: Option<&TableGeometry>,
    ) -> Result<Reading, VisionError> {
        let found = self.find(image)?;
        let reading = self.read_places(image, &found, table)?;
        let reading = self.without_specks(reading);
        match table {
            Some(table) => {
                self.read_pairs_on_towers(image, reading, table, None, &Changes::everything())
            }
            None => Ok(self.numbered(reading, None)),
        }
    }

    /// Adds to `reading` (with a calibration, `table`) the other half of each pair on a
    /// tower that the finder took for one item, numbered as `previous` numbers its items.
    /// Every die placed on a tower carries its meeple, but the finder, seeing the two from
    /// above, may peak once for both, and the reader reads that crop as the die or as the
    /// meeple.
    /// - The meeple on each die that no meeple of `reading` stands on is looked for in the
    ///   box it would have on the die (`TableGeometry::meeple_on_die_box`) and in that box
    ///   moved to the top of the die's box (a box the finder put around both is topped by
    ///   the meeple's head). On the rendered validation scenes, 12 more of 486 meeples are
    ///   read right, for 3 more false items.
    /// - Then the die under each meeple with no die of `reading` under it (none at the box
    ///   looked at, nor on its pillar within a side of it), where a die would stand under
    ///   its foot (`TableGeometry::die_under_meeple_box`). The validation scenes' dice under
    ///   a meeple, at least half seen, read as a camera reads them: 182 -> 195 of 203
    ///   found, for 3 more false items, under lone meeples (unsure, as every die whose top
    ///   a meeple hides).
    ///
    /// Each is kept where the reader gives it at least `pair_threshold`, as the second item
    /// of a pair is kept by `kinds_read` (`models/HISTORY.md`).
    ///
    /// Only the looks whose crops touch the blocks of `region` are read: a camera's frame
    /// passes the blocks it read, the items elsewhere being kept from `previous` with what
    /// their looks found in the unchanged pixels then.
    pub fn read_pairs_on_towers(
        &mut self,
        image: &RgbImage,
        mut reading: Reading,
        table: &TableGeometry,
        previous: Option<&Reading>,
        region: &Changes,
    ) -> Result<Reading, VisionError> {
        let seen = |box_px: BoxPx| region.touches(crop_extent(box_px, READER_CONTEXT));
        let manned = |box_px: BoxPx| (reading.meeples.iter()).any(|m| same_item(m.box_px, box_px));
        let looks: Vec<[BoxPx; 2]> = (reading.dice.iter())
            .filter_map(|die| {
                let on_die = table.meeple_on_die_box(die.box_px)?;
                let shift = die.box_px[1] - on_die[1];
                let at_top = [on_die[0], on_die[1] + shift, on_die[2], on_die[3] + shift];
                Some([on_die, at_top])
            })
            .filter(|looks| looks.iter().any(|&b| seen(b)))
            .filter(|looks| !looks.iter().any(|&b| manned(b)))
            .collect();
        for looks in looks {
            let mut best: Option<(f32, BoxPx, [f32; READER_OUTPUTS])> = None;
            for box_px in looks {
                let row = self.read_crop(image, box_px)?;
                // No heat of the finder's here: the reader's odds alone.
                let meeple = row[KIND_COLUMNS][KIND_MEEPLE];
                if best.as_ref().is_none_or(|(p, _, _)| meeple > *p) {
                    best = Some((meeple, box_px, row));
                }
            }
            if let Some((meeple, box_px, row)) = best
                && meeple >= self.settings.pair_threshold
            {
                let place = Found {
                    box_px,
                    class: KIND_MEEPLE,
                    heats: [0.5, 0.5],
                };
                self.interpret(&place, &row, (KIND_MEEPLE, meeple), &mut reading);
            }
        }
        // A die read at the box looked at is the meeple's die, and so is one read on the
        // meeple's pillar within a side of it (the finder's box of a die half under its
        // meeple can lie off its centre).
        let mut located = reading.clone();
        table.locate(&mut located);
        let diced = |box_px: BoxPx, place: &Option<MatPlace>| {
            (located.dice.iter()).any(|d| {
                same_item(d.box_px, box_px) || (d.place == *place && near(d.box_px, box_px, 1.0))
            })
        };
        let under: Vec<BoxPx> = (located.meeples.iter())
            .filter_map(|m| Some((table.die_under_meeple_box(m.box_px, m.rank)?, &m.place)))
            .filter(|(b, place)| seen(*b) && !diced(*b, place))
            .map(|(b, _)| b)
            .collect();
        for box_px in under {
            let row = self.read_crop(image, box_px)?;
            let die = row[KIND_COLUMNS][KIND_DIE];
            if die >= self.settings.pair_threshold {
                let place = Found {
                    box_px,
                    class: KIND_DIE,
                    heats: [0.5, 0.5],
                };
                self.interpret(&place, &row, (KIND_DIE, die), &mut reading);
            }
        }
        Ok(self.numbered(reading, previous))
    }

    /// Every die and meeple in the blocks of `region` (with a calibration, those over the
    /// game's zones, `TableGeometry::zones_region`): the finder searches only a window
    /// around them, and what it finds outside them is not read.
    pub fn read_within(
        &mut self,
        image: &RgbImage,
        region: &Changes,
    ) -> Result<Reading, VisionError> {
        let found = self.find_touching(image, region)?;
        let reading = self.read_places(image, &found, None)?;
        Ok(self.numbered(self.without_specks(reading), None))
    }

    /// `reading` without the dice `settings.speck_share` calls specks.
    fn without_specks(&self, mut reading: Reading) -> Reading {
        if let Some(share) = self.settings.speck_share {
            reading.dice = without_specks(reading.dice, share);
        }
        reading
    }

    /// The finder alone: candidate places, strongest first. A first look at the frame
    /// shrunk to FINDER_LONG_PX, and a second, finer one where `settings.second_look`
    /// asks for it.
    pub fn find(&mut self, image: &RgbImage) -> Result<Vec<Found>, VisionError> {
        let long = image.width().max(image.height());
        let second_look = self.settings.second_look;
        let (mut first, first_heat) =
            self.find_at(image, FINDER_LONG_PX, second_look.is_some(), None)?;
        if self.settings.coarse_look {
            for long in COARSE_LOOKS_LONG_PX {
                first = self.with_coarse_look(image, first, long)?;
            }
        }
        let (Some(die_px), Some(first_heat)) = (second_look, first_heat) else {
            return Ok(first);
        };
        let scale = match die_side_quantile(&first, SECOND_LOOK_QUANTILE) {
            Some(side) => die_px / side,
            None => f32::INFINITY,
        };
        let second_long = (long as f32 * scale).min(long.min(FINDER_MAX_LONG_PX) as f32);
        // A look less than a quarter finer finds what the first found.
        if second_long < FINDER_LONG_PX as f32 * 1.25 {
            return Ok(first);
        }
        let second_long = second_long.round() as u32;
        let (second, _) = self.find_at(image, second_long, false, None)?;
        // The second look's dice; the first look's meeples (the finder learnt meeples in
        // rendered webcam frames only, at the first look's scale) and the dice too large
        // for the finer look (over LARGE_FINDER_PX of its pixels) where it found none.
        let mut found: Vec<Found> = (second.into_iter())
            .filter(|f| f.class == KIND_DIE && first_heat.near(f.box_px) >= SECOND_LOOK_HINT)
            .collect();
        let largest = LARGE_FINDER_PX / (second_long as f32 / long as f32);
        let kept: Vec<Found> = (first.into_iter())
            .filter(|f| {
                f.class == KIND_MEEPLE
                    || (side(f.box_px) > largest
                        && !found.iter().any(|g| same_item(f.box_px, g.box_px)))
            })
            .collect();
        found.extend(kept);
        found.sort_by(|a, b| b.heat().total_cmp(&a.heat()));
        Ok(found)
    }

    /// The finder's places that touch the blocks of `region`. With a camera's settings (the
    /// first look alone) the finder searches only a window around those blocks when they
    /// lie close together (a die put down, a meeple moved), the whole frame otherwise.
    fn find_touching(
        &mut self,
        image: &RgbImage,
        region: &Changes,
    ) -> Result<Vec<Found>, VisionError> {
        if !region.any() {
            return Ok(Vec::new());
        }
        let first_look_only = self.settings.second_look.is_none() && !self.settings.coarse_look;
        let found = match region.bounds() {
            Some(bounds) if first_look_only => {
                self.find_at(image, FINDER_LONG_PX, false, Some(bounds))?.0
            }
            _ => self.find(image)?,
        };
        Ok(found
            .into_iter()
            .filter(|f| region.touches(f.box_px))
            .collect())
    }

    /// `finer`, the places of the finer looks, with the dice that the coarse look at
    /// `long` pixels finds too large for them (COARSE_DIE_PX of its pixels and more) in
    /// place of their parts: the items of `finer` centred in such a die and shorter than
    /// PART_OF_DIE of its side, when the reader reads it whole (`reads_whole`).
    fn with_coarse_look(
        &mut self,
        image: &RgbImage,
        finer: Vec<Found>,
        long: u32,
    ) -> Result<Vec<Found>, VisionError> {
        let (coarse, _) = self.find_at(image, long, false, None)?;
        let shortest = COARSE_DIE_PX * image.width().max(image.height()) as f32 / long as f32;
        let large =
            (coarse.into_iter()).filter(|f| f.class == KIND_DIE && side(f.box_px) >= shortest);
        let mut found = finer;
        for die in large {
            let (parts, mut rest): (Vec<Found>, Vec<Found>) = found.into_iter().partition(|f| {
                side(f.box_px) < PART_OF_DIE * side(die.box_px) && inside(f.box_px, die.box_px)
            });
            let known = rest.iter().any(|f| same_item(f.box_px, die.box_px));
            if !(parts.is_empty() && known) && self.reads_whole(image, die, &parts)? {
                if !known {
                    rest.push(die);
                }
            } else {
                rest.extend(parts);
            }
            found = rest;
        }
        found.sort_by(|a, b| b.heat().total_cmp(&a.heat()));
        Ok(found)
    }

    /// Whether a large die of a coarse look is one, rather than the finer look's `parts`:
    /// the reader reads it as a die, sure, or unsure with none of the parts read as a sure
    /// item; and no more than one part, or less than half of them, is read as a sure item.
    /// Seen from afar, a tray of dice looks like a die and its pips; the reader reads the
    /// tray's dice as sure dice, and a close die's pips as unsure ones.
    fn reads_whole(
        &mut self,
        image: &RgbImage,
        die: Found,
        parts: &[Found],
    ) -> Result<bool, VisionError> {
        let whole = self.read_places(image, &[die], None)?;
        let parts = self.read_places(image, parts, None)?;
        let sure = (parts.dice.iter().filter(|d| !d.uncertain).count())
            + (parts.meeples.iter().filter(|m| !m.uncertain).count());
        let read = parts.dice.len() + parts.meeples.len();
        Ok(
            (whole.dice.first()).is_some_and(|d| !d.uncertain || sure == 0)
                && (sure < 2 || 2 * sure < read),
        )
    }

    /// The finder on `image` shrunk to `long` pixels on its longer side: its peaks, and its
    /// heat cell by cell when `with_heat`. With `around` (a box of the image), only in a
    /// window of the shrunk frame around it (`finder_window`), where it finds what it finds
    /// there in the whole frame; no heat is then kept.
    fn find_at(
        &mut self,
        image: &RgbImage,
        long: u32,
        with_heat: bool,
        around: Option<BoxPx>,
    ) -> Result<(Vec<Found>, Option<HeatMap>), VisionError> {
        let (width, height) = finder_size(image.width(), image.height(), long);
        let scale_x = image.width() as f32 / width as f32;
        let scale_y = image.height() as f32 / height as f32;
        let window = around.and_then(|b| {
            let shrunk = [
                b[0] / scale_x,
                b[1] / scale_y,
                b[2] / scale_x,
                b[3] / scale_y,
            ];
            finder_window(shrunk, width, height)
        });
        let [left, top, w, h] = window.unwrap_or([0, 0, width, height]);
        let plan = self.finder_plan(w, h)?;
        shrink(
            &mut self.resizer,
            image,
            (width, height),
            [left, top, w, h],
            &mut self.shrunk,
        )
        .map_err(|e| model_error(&self.finder_name, e))?;
        let (left, top, w, h) = (left as usize, top as usize, w as usize, h as usize);
        let input = tract_ndarray::Array4::from_shape_fn((1, 3, h, w), |(_, c, y, x)| {
            f32::from(self.shrunk[(y * w + x) * 3 + c]) / 255.0
        });
        let outputs = plan
            .run(tvec!(Tensor::from(input).into()))
            .map_err(|e| model_error(&self.finder_name, e))?;
        let grid = outputs[0]
            .to_plain_array_view::<f32>()
            .map_err(|e| model_error(&self.finder_name, e))?;
        let (rows, cols) = (h / FINDER_STRIDE, w / FINDER_STRIDE);
        let (first_col, first_row) = (left / FINDER_STRIDE, top / FINDER_STRIDE);
        let heat_map = (with_heat && window.is_none()).then(|| HeatMap {
            cols,
            rows,
            cell: [
                FINDER_STRIDE as f32 * scale_x,
                FINDER_STRIDE as f32 * scale_y,
            ],
            heat: (0..rows * cols)
                .map(|i| {
                    sigmoid(grid[[0, 0, i / cols, i % cols]].max(grid[[0, 1, i / cols, i % cols]]))
                })
                .collect(),
        });
        let mut found = Vec::new();
        for class in 0..2 {
            let heat = |r: usize, c: usize| sigmoid(grid[[0, class, r, c]]);
            for r in 0..rows {
                for c in 0..cols {
                    let here = heat(r, c);
                    if here < self.settings.find_threshold {
                        continue;
                    }
                    let is_peak = (r.saturating_sub(1)..(r + 2).min(rows)).all(|rr| {
                        (c.saturating_sub(1)..(c + 2).min(cols))
                            .all(|cc| (rr, cc) == (r, c) || heat(rr, cc) <= here)
                    });
                    if !is_peak {
                        continue;
                    }
                    let cx = ((first_col + c) as f32 + grid[[0, 4, r, c]])
                        * FINDER_STRIDE as f32
                        * scale_x;
                    let cy = ((first_row + r) as f32 + grid[[0, 5, r, c]])
                        * FINDER_STRIDE as f32
                        * scale_y;
                    let bw = grid[[0, 2, r, c]].exp() * 16.0 * scale_x;
                    let bh = grid[[0, 3, r, c]].exp() * 16.0 * scale_y;
                    found.push(Found {
                        box_px: [cx - bw / 2.0, cy - bh / 2.0, cx + bw / 2.0, cy + bh / 2.0],
                        class,
                        heats: [sigmoid(grid[[0, 0, r, c]]), sigmoid(grid[[0, 1, r, c]])],
                    });
                }
            }
        }
        found.sort_by(|a, b| b.heat().total_cmp(&a.heat()));
        Ok((found, heat_map))
    }

    /// Reads `image` where it moved since `previous` was read (`moved`, from
    /// [`crate::Motion`]): the items of `previous` in blocks that did not move are kept as
    /// they were, the finder's places in blocks that moved are read. Nothing is read at all
    /// when nothing moved.
    pub fn read_moved(
        &mut self,
        image: &RgbImage,
        previous: &Reading,
        moved: &Changes,
    ) -> Result<Reading, VisionError> {
        let same_size = (previous.width, previous.height) == image.dimensions();
        if !same_size {
            return self.read(image, None);
        }
        if !moved.any() {
            return Ok(previous.clone());
        }
        let found = self.find_touching(image, moved)?;
        let reading = self.read_places(image, &found, None)?;
        let reading = self.without_specks(with_kept(reading, previous, moved));
        Ok(self.numbered(reading, Some(previous)))
    }

    /// Reads again, in a still frame, what stands in the blocks `region` (those that moved
    /// lately): each item of `previous` there at its box unless the finder finds it again,
    /// and whatever else the finder finds there. An item the finder misses in one still
    /// frame (a meeple on its die, a die under a meeple) is so not lost while nothing moved:
    /// the reader alone says whether it is still there and reads it anew. Items outside
    /// `region` are kept as `previous` has them, but for those a new reading overlaps.
    pub fn read_again(
        &mut self,
        image: &RgbImage,
        previous: &Reading,
        region: &Changes,
    ) -> Result<Reading, VisionError> {
        if (previous.width, previous.height) != image.dimensions() {
            return self.read(image, None);
        }
        let mut found = self.find_touching(image, region)?;
        let known = (previous.dice.iter().map(|d| (d.box_px, KIND_DIE)))
            .chain(previous.meeples.iter().map(|m| (m.box_px, KIND_MEEPLE)))
            .filter(|&(box_px, _)| region.touches(box_px))
            .filter(|&(box_px, class)| {
                !found
                    .iter()
                    .any(|f| f.class == class && same_item(f.box_px, box_px))
            })
            .map(|(box_px, class)| {
                // The kind it was read as stands for the finder's opinion.
                let mut heats = [0.0; 2];
                heats[class] = 1.0;
                Found {
                    box_px,
                    class,
                    heats,
                }
            })
            .collect::<Vec<_>>();
        found.extend(known);
        let reading = self.read_places(image, &found, None)?;
        let reading = self.without_specks(with_kept(reading, previous, region));
        Ok(self.numbered(reading, Some(previous)))
    }

    /// The reader over given places (found by the finder, or known from a calibration),
    /// each item read given a new number.
    pub fn read_found(
        &mut self,
        image: &RgbImage,
        found: &[Found],
    ) -> Result<Reading, VisionError> {
        let reading = self.read_places(image, found, None)?;
        Ok(self.numbered(reading, None))
    }

    /// `reading`, its items without a number (0, new readings) numbered: each takes the
    /// number of the item of `previous` of its kind that it is (`same_item`: it has not
    /// moved) and no other item took, else a new one. Items kept from `previous` keep
    /// theirs.
    fn numbered(&mut self, mut reading: Reading, previous: Option<&Reading>) -> Reading {
        let mut taken: Vec<ItemId> = (reading.dice.iter().map(|d| d.id))
            .chain(reading.meeples.iter().map(|m| m.id))
            .filter(|&id| id != 0)
            .collect();
        let mut number = |box_px: BoxPx, before: &[(ItemId, BoxPx)]| {
            let id = match before
                .iter()
                .find(|&&(id, b)| !taken.contains(&id) && same_item(b, box_px))
            {
                Some(&(id, _)) => id,
                None => {
                    self.next_id += 1;
                    self.next_id - 1
                }
            };
            taken.push(id);
            id
        };
        let (dice, meeples) = previous.map_or((&[][..], &[][..]), |p| {
            (p.dice.as_slice(), p.meeples.as_slice())
        });
        let dice: Vec<(ItemId, BoxPx)> = dice.iter().map(|d| (d.id, d.box_px)).collect();
        for die in reading.dice.iter_mut().filter(|d| d.id == 0) {
            die.id = number(die.box_px, &dice);
        }
        let meeples: Vec<(ItemId, BoxPx)> = meeples.iter().map(|m| (m.id, m.box_px)).collect();
        for meeple in reading.meeples.iter_mut().filter(|m| m.id == 0) {
            meeple.id = number(meeple.box_px, &meeples);
        }
        reading
    }

    /// The reader over given places, its items not yet numbered (0).
    fn read_places(
        &mut self,
        image: &RgbImage,
        found: &[Found],
        table: Option<&TableGeometry>,
    ) -> Result<Reading, VisionError> {
        let mut reading = Reading {
            width: image.width(),
            height: image.height(),
            ..Reading::default()
        };
        let mut rows = Vec::with_capacity(found.len());
        for place in found {
            let cut = match table {
                Some(table) if place.class == KIND_DIE => table.die_crop_box(place.box_px),
                _ => None,
            };
            rows.push(self.read_crop(image, cut.unwrap_or(place.box_px))?);
        }
        let kinds = kinds_read(found, &rows, &self.settings);
        for ((place, row), kind) in found.iter().zip(&rows).zip(kinds) {
            if let Some(kind) = kind {
                self.interpret(place, row, kind, &mut reading);
            }
        }
        // The finder may peak twice on one item (and once per class): of two readings of
        // the same kind centred within half a box side, keep the more confident. A meeple
        // standing on a die is two items of different kinds and keeps both.
        reading.dice = without_duplicates(reading.dice, |d| (d.box_px, d.confidence));
        reading.meeples = without_duplicates(reading.meeples, |m| (m.box_px, m.confidence));
        Ok(reading)
    }

    /// Runs the reader on the crop around `box_px` in each of its `settings.views`:
    /// the row of each head's probabilities (value and colour averaged over the views).
    fn read_crop(
        &mut self,
        image: &RgbImage,
        box_px: BoxPx,
    ) -> Result<[f32; READER_OUTPUTS], VisionError> {
        let views = self.settings.views.mirrored();
        crop_square(image, box_px, READER_CONTEXT, &mut self.crop);
        let side = (self.crop.len() / 3).isqrt() as u32;
        let small = (READER_PX, READER_PX);
        let options = resize_options();
        resize_rgb(
            &mut self.resizer,
            &self.crop,
            (side, side),
            &mut self.crop_small,
            small,
            &options,
        )
        .map_err(|e| model_error("crop", e))?;
        let mut probabilities = [0.0; READER_OUTPUTS];
        for &mirrored in views {
            write_view(&self.crop_small, mirrored, &mut self.input);
            let input = Tensor::from_shape(&READER_INPUT, &self.input)
                .map_err(|e| model_error("reader input", e))?;
            let outputs = (self.reader)
                .run(tvec!(input.into()))
                .map_err(|e| model_error("models/reader.onnx", e))?;
            let row = outputs[0]
                .to_plain_array_view::<f32>()
                .map_err(|e| model_error("models/reader.onnx", e))?;
            let row = row
                .as_slice()
                .ok_or_else(|| model_error("models/reader.onnx", "an output not in one piece"))?;
            // Kind, player and rank from the crop as it is (meeples stand upright in the
            // frame, and the reader learnt them so); value and colour averaged.
            if !mirrored {
                for head in [KIND_COLUMNS, PLAYER_COLUMNS, RANK_COLUMNS] {
                    probabilities[head.clone()].copy_from_slice(&softmax(&row[head]));
                }
            }
            for head in [VALUE_COLUMNS, COLOR_COLUMNS] {
                let mean = &mut probabilities[head.clone()];
                for (m, p) in mean.iter_mut().zip(softmax(&row[head])) {
                    *m += p / views.len() as f32;
                }
            }
        }
        Ok(probabilities)
    }

    /// One place's reading from its row of probabilities (`read_crop`), as the kind
    /// `kinds_read` gave it with that kind's probability.
    fn interpret(
        &self,
        place: &Found,
        row: &[f32; READER_OUTPUTS],
        (kind_index, kind_p): (usize, f32),
        reading: &mut Reading,
    ) {
        let settings = &self.settings;
        if kind_index == KIND_DIE {
            let (value_index, value_p) = best(&row[VALUE_COLUMNS]);
            let (color_index, color_p) = best(&row[COLOR_COLUMNS]);
            reading.dice.push(DieReading {
                id: 0,
                color: DieColor::ALL[color_index],
                value: value_index as u8 + 1,
                box_px: place.box_px,
                confidence: kind_p * value_p * color_p,
                value_confidence: value_p,
                color_confidence: color_p,
                value_probabilities: row[VALUE_COLUMNS].try_into().unwrap_or_default(),
                color_probabilities: row[COLOR_COLUMNS].try_into().unwrap_or_default(),
                uncertain: kind_p < settings.sure_kind
                    || value_p < settings.sure_value
                    || color_p < settings.sure_color,
                place: None,
            });
        } else {
            let (player_index, player_p) = best(&row[PLAYER_COLUMNS]);
            let (rank_index, rank_p) = best(&row[RANK_COLUMNS]);
            let confidence = kind_p * player_p * rank_p;
            reading.meeples.push(MeepleReading {
                id: 0,
                player: MeepleColor::ALL[player_index],
                rank: if rank_index == 0 {
                    MeepleRank::Apprentice
                } else {
                    MeepleRank::Master
                },
                box_px: place.box_px,
                confidence,
                uncertain: kind_p < settings.sure_kind || confidence < settings.sure_value,
                place: None,
            });
        }
    }
}

/// `reading` of the blocks `read`, with the items of `previous` outside them kept, but for
/// those the new readings overlap (seen again, near a block's edge).
fn with_kept(mut reading: Reading, previous: &Reading, read: &Changes) -> Reading {
    let kept_dice = (previous.dice.iter())
        .filter(|d| !read.touches(d.box_px))
        .filter(|d| !reading.dice.iter().any(|n| same_item(n.box_px, d.box_px)))
        .cloned()
        .collect::<Vec<_>>();
    let kept_meeples = (previous.meeples.iter())
        .filter(|m| !read.touches(m.box_px))
        .filter(|m| {
            !reading
                .meeples
                .iter()
                .any(|n| same_item(n.box_px, m.box_px))
        })
        .cloned()
        .collect::<Vec<_>>();
    reading.dice.extend(kept_dice);
    reading.meeples.extend(kept_meeples);
    reading
}

/// The probabilities that a place holds a die and a meeple: the reader's share of "an
/// item here" split between die and meeple in proportion to the reader's odds times the
/// finder's heats, two independent opinions (the reader sees full-resolution pixels, the
/// finder the item's surroundings). Alone, the reader took real translucent yellow and
/// green dice for meeples; with the finder's heats, on the validation split, byler-d6 dice
/// found 99.1 -> 99.7 %, false items 30 -> 23, rendered meeples found 78.5 -> 79.3 %.
fn kind_probabilities(reader: &[f32], heats: [f32; 2]) -> [f32; 2] {
    // Keeps a heat of zero from vetoing a sure reader.
    const FLOOR: f32 = 0.02;
    let die = reader[KIND_DIE] * (heats[KIND_DIE] + FLOOR);
    let meeple = reader[KIND_MEEPLE] * (heats[KIND_MEEPLE] + FLOOR);
    let item = reader[KIND_DIE] + reader[KIND_MEEPLE];
    let total = (die + meeple).max(f32::MIN_POSITIVE);
    [item * die / total, item * meeple / total]
}

/// What each place holds, from the reader's rows (`read_crop`) of every place: a kind and
/// its probability, or nothing under `keep_threshold`.
///
/// Each place is the kind the reader and the finder's heats make likelier
/// (`kind_probabilities`), but for a meeple standing on its die, as every die placed on a
/// tower carries one: the finder peaks once for each, on nearly the same crop, and the
/// reader may read both crops as one kind, of which the less confident would be dropped as
/// a duplicate. So a place read as the kind that the finder peaked for at another place on
/// the same item is read as the kind it peaked for itself, when the reader gives that kind
/// at least `pair_threshold`.
fn kinds_read(
    found: &[Found],
    rows: &[[f32; READER_OUTPUTS]],
    settings: &ReaderSettings,
) -> Vec<Option<(usize, f32)>> {
    let kinds: Vec<[f32; 2]> = (found.iter().zip(rows))
        .map(|(place, row)| kind_probabilities(&row[KIND_COLUMNS], place.heats))
        .collect();
    let likelier = |k: [f32; 2]| {
        if k[KIND_DIE] >= k[KIND_MEEPLE] {
            KIND_DIE
        } else {
            KIND_MEEPLE
        }
    };
    (found.iter().zip(&kinds))
        .map(|(place, &k)| {
            let kind = likelier(k);
            let paired = kind != place.class
                && k[place.class] >= settings.pair_threshold
                && (found.iter().zip(&kinds)).any(|(other, &o)| {
                    other.class == kind
                        && likelier(o) == kind
                        && o[kind] >= settings.keep_threshold
                        && same_item(other.box_px, place.box_px)
                });
            if paired {
                Some((place.class, k[place.class]))
            } else {
                (k[kind] >= settings.keep_threshold).then_some((kind, k[kind]))
            }
        })
        .collect()
}

/// Whether two boxes are one item: centres within half the longest side of the two.
fn same_item(a: BoxPx, b: BoxPx) -> bool {
    near(a, b, 0.5)
}

/// Whether the centres of two boxes lie closer than `share` of the longer side of either.
fn near(a: BoxPx, b: BoxPx, share: f32) -> bool {
    let side = (a[2] - a[0])
        .max(a[3] - a[1])
        .max(b[2] - b[0])
        .max(b[3] - b[1]);
    let dx = (a[0] + a[2] - b[0] - b[2]) / 2.0;
    let dy = (a[1] + a[3] - b[1] - b[3]) / 2.0;
    dx.hypot(dy) < side * share
}

/// The items, most confident first, less any centred within half a box side of a more
/// confident one.
fn without_duplicates<T>(mut items: Vec<T>, key: impl Fn(&T) -> (BoxPx, f32)) -> Vec<T> {
    items.sort_by(|a, b| key(b).1.total_cmp(&key(a).1));
    let mut kept: Vec<T> = Vec::with_capacity(items.len());
    for item in items {
        let (b, _) = key(&item);
        if !kept.iter().any(|k| same_item(key(k).0, b)) {
            kept.push(item);
        }
    }
    kept
}

/// An RGB crop of READER_PX square, or its mirror image (left and right swapped), into the
/// reader's planar input scaled to 0..1.
fn write_view(pixels: &[u8], mirrored: bool, sample: &mut [f32]) {
    let n = READER_PX as usize;
    let plane = n * n;
    for y in 0..n {
        for x in 0..n {
            let from_x = if mirrored { n - 1 - x } else { x };
            let from = (y * n + from_x) * 3;
            for c in 0..3 {
                sample[c * plane + y * n + x] = f32::from(pixels[from + c]) / 255.0;
            }
        }
    }
}

/// `image` shrunk to `size`, only its `window` (`[left, top, width, height]` of the shrunk
/// frame) into `out`, row by row: the window's pixels are the whole shrunk frame's
/// (fast_image_resize takes the filter's taps beyond a crop's edges), for the window's cost.
fn shrink(
    resizer: &mut Resizer,
    image: &RgbImage,
    size: (u32, u32),
    [left, top, width, height]: [u32; 4],
    out: &mut Vec<u8>,
) -> Result<(), String> {
    out.resize((width * height * 3) as usize, 0);
    // The crop in the image's pixels; rounding must not take it past the image's edge,
    // which fast_image_resize refuses.
    let span = |start: u32, count: u32, shrunk: u32, full: u32| {
        let to_full = f64::from(full) / f64::from(shrunk);
        let from = f64::from(start) * to_full;
        let mut length = f64::from(count) * to_full;
        while from + length > f64::from(full) {
            length = f64::from_bits(length.to_bits() - 1);
        }
        (from, length)
    };
    let (x, w) = span(left, width, size.0, image.width());
    let (y, h) = span(top, height, size.1, image.height());
    let options = resize_options().crop(x, y, w, h);
    let full = image.dimensions();
    resize_rgb(
        resizer,
        image.as_raw(),
        full,
        out,
        (width, height),
        &options,
    )
}

/// The RGB pixels `source` (`source_size`) resized into `out` (`out_size`) with `options`.
/// Typed as RGB: fast_image_resize's untyped `resize` builds its kernels for every pixel
/// type into the caller, which tripled this crate's build time.
fn resize_rgb(
    resizer: &mut Resizer,
    source: &[u8],
    (source_width, source_height): (u32, u32),
    out: &mut [u8],
    (out_width, out_height): (u32, u32),
    options: &ResizeOptions,
) -> Result<(), String> {
    let source = TypedImageRef::<U8x3>::from_buffer(source_width, source_height, source)
        .map_err(|e| e.to_string())?;
    let mut out =
        TypedImage::<U8x3>::from_buffer(out_width, out_height, out).map_err(|e| e.to_string())?;
    resizer
        .resize_typed(&source, &mut out, options)
        .map_err(|e| e.to_string())
}

fn resize_options() -> ResizeOptions {
    ResizeOptions::new().resize_alg(ResizeAlg::Convolution(FilterType::Bilinear))
}

/// The finder's input size for an image: the longer side `long`, both sides rounded to
/// multiples of FINDER_SIDE_MULTIPLE.
pub fn finder_size(width: u32, height: u32, long: u32) -> (u32, u32) {
    let scale = long as f32 / width.max(height) as f32;
    let round = |side: u32| {
        let m = FINDER_SIDE_MULTIPLE as f32;
        ((side as f32 * scale / m).round() as u32).max(1) * FINDER_SIDE_MULTIPLE
    };
    (round(width), round(height))
}

/// The window of a shrunk frame of `width` x `height` (multiples of FINDER_SIDE_MULTIPLE)
/// that the finder searches for what touches `around` (a box in the shrunk frame's
/// pixels): [left, top, width, height], WINDOW_MARGIN_PX beyond the box, its corner on the
/// finder's coarsest grid (so that every layer sees the pixels it sees in the whole
/// frame), its sides multiples of WINDOW_STEP_PX or the frame's. `None` when such a window
/// would cover more than 1 / WINDOW_MAX_SHARE of the frame.
fn finder_window(around: BoxPx, width: u32, height: u32) -> Option<[u32; 4]> {
    let m = FINDER_SIDE_MULTIPLE as f32;
    let span = |from: f32, to: f32, full: u32| {
        let start = ((from - WINDOW_MARGIN_PX) / m).floor().max(0.0) as u32 * FINDER_SIDE_MULTIPLE;
        let end =
            (((to + WINDOW_MARGIN_PX) / m).ceil().max(1.0) as u32 * FINDER_SIDE_MULTIPLE).min(full);
        let start = start.min(end.saturating_sub(FINDER_SIDE_MULTIPLE));
        let size = (end - start).div_ceil(WINDOW_STEP_PX) * WINDOW_STEP_PX;
        let size = size.min(full);
        // Grown past the frame's edge: moved back inside, still on the grid.
        (start.min(full - size), size)
    };
    let (left, w) = span(around[0], around[2], width);
    let (top, h) = span(around[1], around[3], height);
    (w * h * WINDOW_MAX_SHARE <= width * height).then_some([left, top, w, h])
}

/// The finder's heat of either kind, cell by cell, and the size of a cell in the image.
struct HeatMap {
    cols: usize,
    rows: usize,
    cell: [f32; 2],
    heat: Vec<f32>,
}

impl HeatMap {
    /// The hottest cell under a box, or one cell beside it.
    fn near(&self, box_px: BoxPx) -> f32 {
        let cell =
            |v: f32, size: f32, count: usize| ((v / size).floor().max(0.0) as usize).min(count - 1);
        let (c0, c1) = (
            cell(box_px[0], self.cell[0], self.cols),
            cell(box_px[2], self.cell[0], self.cols),
        );
        let (r0, r1) = (
            cell(box_px[1], self.cell[1], self.rows),
            cell(box_px[3], self.cell[1], self.rows),
        );
        let mut hottest = 0.0f32;
        for r in r0.saturating_sub(1)..(r1 + 2).min(self.rows) {
            for c in c0.saturating_sub(1)..(c1 + 2).min(self.cols) {
                hottest = hottest.max(self.heat[r * self.cols + c]);
            }
        }
        hottest
    }
}

/// `dice` but for the specks: dice read unsure and shorter than `share` of the median side
/// of the SPECK_NEIGHBOURS dice nearest them (when there are that many others). Nearest,
/// not all: a photo seen at a slant, or photos side by side, hold dice of very different
/// sizes, each among dice of its own size.
fn without_specks(dice: Vec<DieReading>, share: f32) -> Vec<DieReading> {
    if dice.len() <= SPECK_NEIGHBOURS {
        return dice;
    }
    let speck: Vec<bool> = (dice.iter().enumerate())
        .map(|(i, die)| {
            if !die.uncertain {
                return false;
            }
            let (x, y) = centre(die.box_px);
            let mut nearest: Vec<(f32, f32)> = (dice.iter().enumerate())
                .filter(|&(j, _)| j != i)
                .map(|(_, other)| {
                    let (ox, oy) = centre(other.box_px);
                    ((ox - x).hypot(oy - y), side(other.box_px))
                })
                .collect();
            nearest.sort_by(|a, b| a.0.total_cmp(&b.0));
            let mut sides: Vec<f32> = nearest[..SPECK_NEIGHBOURS].iter().map(|n| n.1).collect();
            sides.sort_by(f32::total_cmp);
            side(die.box_px) < share * sides[SPECK_NEIGHBOURS / 2]
        })
        .collect();
    (dice.into_iter().zip(speck))
        .filter(|(_, speck)| !speck)
        .map(|(die, _)| die)
        .collect()
}

/// A box's longer side.
fn side(box_px: BoxPx) -> f32 {
    (box_px[2] - box_px[0]).max(box_px[3] - box_px[1])
}

/// A box's centre.
fn centre(box_px: BoxPx) -> (f32, f32) {
    let [x0, y0, x1, y1] = box_px;
    ((x0 + x1) / 2.0, (y0 + y1) / 2.0)
}

/// Whether the centre of `inner` lies in `outer`.
fn inside(inner: BoxPx, outer: BoxPx) -> bool {
    let (x, y) = centre(inner);
    (outer[0]..=outer[2]).contains(&x) && (outer[1]..=outer[3]).contains(&y)
}

/// The side of the dice among `found` at the quantile `q` (0: the smallest, 0.5: the
/// median), in the image's pixels; from the meeples (a die is about MEEPLE_TO_DIE of a
/// meeple's height) when no die was found.
fn die_side_quantile(found: &[Found], q: f32) -> Option<f32> {
    let dice: Vec<f32> = (found.iter().filter(|f| f.class == KIND_DIE))
        .map(|f| side(f.box_px))
        .collect();
    let mut sides = if dice.is_empty() {
        (found.iter())
            .map(|f| side(f.box_px) * MEEPLE_TO_DIE)
            .collect()
    } else {
        dice
    };
    sides.sort_by(f32::total_cmp);
    sides
        .get(((sides.len() as f32 * q) as usize).min(sides.len().saturating_sub(1)))
        .copied()
}

/// The square of `context` times the box's longer side around its centre: its top-left
/// corner and its side, in pixels.
fn crop_corner_side(box_px: BoxPx, context: f32) -> ([f32; 2], f32) {
    let [x0, y0, x1, y1] = box_px;
    let side = ((x1 - x0).max(y1 - y0).max(1.0)) * context;
    let corner = [(x0 + x1) / 2.0 - side / 2.0, (y0 + y1) / 2.0 - side / 2.0];
    (corner, side)
}

/// The pixels `crop_square` cuts for `box_px`.
fn crop_extent(box_px: BoxPx, context: f32) -> BoxPx {
    let ([left, top], side) = crop_corner_side(box_px, context);
    [left, top, left + side, top + side]
}

/// The square of `context` times the box's longer side around its centre, black outside
/// the image, into `out` (RGB, row after row). Same rule as `crop_square` in
/// `models/training/common.py`.
pub fn crop_square(image: &RgbImage, box_px: BoxPx, context: f32, out: &mut Vec<u8>) {
    let ([left, top], side) = crop_corner_side(box_px, context);
    let (left, top) = (left.round() as i64, top.round() as i64);
    let side = (side.round() as i64).max(1);
    out.clear();
    out.resize((side * side * 3) as usize, 0);
    let (width, height) = (i64::from(image.width()), i64::from(image.height()));
    let raw = image.as_raw();
    let x_from = left.max(0);
    let x_to = (left + side).min(width);
    if x_from >= x_to {
        return;
    }
    for y in top.max(0)..(top + side).min(height) {
        let source = ((y * width + x_from) * 3) as usize..((y * width + x_to) * 3) as usize;
        let target = (((y - top) * side + (x_from - left)) * 3) as usize;
        out[target..target + source.len()].copy_from_slice(&raw[source]);
    }
}

/// The model's plan for inputs of `shape`, optimised by tract. Its convolutions run as
/// im2col and a matrix product, not as tract's direct spatial convolution, which it picks
/// for output rows of 128 points or more and which ran the finder slower: a 4032x3024 photo
/// took 559-606 ms with it, 477-549 ms without, with the same readings (`models/HISTORY.md`,
/// 2026-12-01). The reader's rows are too short for it either way.
pub fn tract_plan(onnx: &[u8], name: &str, shape: [usize; 4]) -> Result<Plan, VisionError> {
    let scope = KnobScope::new([("TRACT_DISABLE_DIRECT_SPATIAL", "true")])
        .map_err(|e| model_error(name, format!("{e:#}")))?;
    scope
        .enter(|| {
            tract_onnx::onnx()
                .model_for_read(&mut &onnx[..])
                .and_then(|model| model.with_input_fact(0, f32::fact(shape).into()))
                .and_then(|model| model.into_optimized())
                .and_then(|model| model.into_runnable())
        })
        .map_err(|e| model_error(name, format!("{e:#}")))
}

fn check_output(plan: &Plan, name: &str, expected: &[usize]) -> Result<(), VisionError> {
    let model = plan.model();
    let outlet = model
        .output_outlets()
        .map_err(|e| model_error(name, e))?
        .first()
        .copied()
        .ok_or_else(|| model_error(name, "the model has no output"))?;
    let fact = model
        .outlet_fact(outlet)
        .map_err(|e| model_error(name, e))?;
    let shape: Option<Vec<usize>> = fact.shape.as_concrete().map(<[usize]>::to_vec);
    if shape.as_deref() != Some(expected) {
        return Err(model_error(
            name,
            format!("output shape {:?}, expected {expected:?}", fact.shape),
        ));
    }
    Ok(())
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

fn softmax(logits: &[f32]) -> Vec<f32> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exp: Vec<f32> = logits.iter().map(|l| (l - max).exp()).collect();
    let sum: f32 = exp.iter().sum();
    exp.into_iter().map(|e| e / sum).collect()
}

fn best(probabilities: &[f32]) -> (usize, f32) {
    probabilities
        .iter()
        .copied()
        .enumerate()
        .fold((0, f32::NEG_INFINITY), |a, b| if b.1 > a.1 { b } else { a })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finder_sizes_keep_the_aspect_in_multiples_of_32() {
        assert_eq!(finder_size(1280, 720, 512), (512, 288));
        assert_eq!(finder_size(4032, 3024, 512), (512, 384));
        assert_eq!(finder_size(416, 416, 512), (512, 512));
        assert_eq!(finder_size(3024, 4032, 512), (384, 512));
        assert_eq!(finder_size(4032, 3024, 2048), (2048, 1536));
    }

    #[test]
    fn a_finder_window_holds_its_box_with_a_margin_on_the_coarsest_grid() {
        // A die of 12 px in the middle of a 16:9 frame: a window of 256 px, on the 32 px grid.
        let [left, top, w, h] = finder_window([250.0, 140.0, 262.0, 152.0], 512, 288).unwrap();
        assert_eq!((w, h), (256, 256));
        assert_eq!((left % 32, top % 32), (0, 0));
        assert!(left as f32 <= 250.0 - WINDOW_MARGIN_PX);
        assert!((left + w) as f32 >= 262.0 + WINDOW_MARGIN_PX);
        assert!(top as f32 <= 140.0 - WINDOW_MARGIN_PX);
        assert!((top + h) as f32 >= 152.0 + WINDOW_MARGIN_PX);
        // In a corner: moved back inside the frame.
        let [left, top, w, h] = finder_window([500.0, 280.0, 512.0, 288.0], 512, 288).unwrap();
        assert_eq!((left + w, top + h), (512, 288));
        assert_eq!((left % 32, top % 32), (0, 0));
        // Over half the frame: none.
        assert_eq!(finder_window([150.0, 50.0, 350.0, 250.0], 512, 288), None);
    }

    #[test]
    fn a_window_shrunk_alone_has_the_pixels_of_the_whole_shrunk_frame() {
        let mut resizer = Resizer::new();
        // A webcam's frame, and an odd size whose scale has no exact binary fraction.
        for (full_w, full_h) in [(1280, 720), (1001, 563)] {
            let image = RgbImage::from_fn(full_w, full_h, |x, y| {
                image::Rgb([(x * 7 + y * 3) as u8, (x ^ y) as u8, (x * y / 5) as u8])
            });
            let (width, height) = finder_size(full_w, full_h, FINDER_LONG_PX);
            let mut whole = Vec::new();
            let all = [0, 0, width, height];
            shrink(&mut resizer, &image, (width, height), all, &mut whole).unwrap();
            // Inside, and against the far corner.
            for window in [[96, 32, 192, 128], [width - 128, height - 64, 128, 64]] {
                let [left, top, w, h] = window.map(|v| v as usize);
                let mut part = Vec::new();
                shrink(&mut resizer, &image, (width, height), window, &mut part).unwrap();
                for y in 0..h {
                    let row = ((top + y) * width as usize + left) * 3;
                    assert_eq!(
                        part[y * w * 3..(y + 1) * w * 3],
                        whole[row..row + w * 3],
                        "{full_w}x{full_h}, window at {left},{top}, row {y}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_finder_finds_in_a_window_what_it_finds_in_the_whole_frame() {
        let mut reader = DiceReader::shipped().unwrap();
        for name in ["scene-720p-0.jpg", "scene-720p-1.jpg"] {
            let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../tests/fixtures/reader")
                .join(name);
            let image = crate::read_rgb(&path).unwrap();
            let (whole, _) = reader.find_at(&image, FINDER_LONG_PX, false, None).unwrap();
            assert!(whole.len() >= 10, "{name}: {} found", whole.len());
            for item in &whole {
                let (windowed, _) =
                    (reader.find_at(&image, FINDER_LONG_PX, false, Some(item.box_px))).unwrap();
                let same = windowed.iter().find(|f| {
                    f.class == item.class
                        && (0..4).all(|i| (f.box_px[i] - item.box_px[i]).abs() < 1.0)
                });
                let same = same.unwrap_or_else(|| panic!("{name}: {item:?} not in its window"));
                assert!(
                    (same.heat() - item.heat()).abs() < 0.03,
                    "{same:?} {item:?}"
                );
            }
        }
    }

    #[test]
    fn an_item_that_did_not_move_keeps_its_number_and_a_new_one_takes_a_new_number() {
        let mut reader = DiceReader::shipped().unwrap();
        let die = |id: ItemId, box_px: BoxPx| DieReading {
            id,
            color: DieColor::Blue,
            value: 3,
            box_px,
            confidence: 0.9,
            value_confidence: 0.95,
            color_confidence: 0.95,
            value_probabilities: [0.0; 6],
            color_probabilities: [0.0; 5],
            uncertain: false,
            place: None,
        };
        let meeple = |id: ItemId, box_px: BoxPx| MeepleReading {
            id,
            player: MeepleColor::Red,
            rank: MeepleRank::Master,
            box_px,
            confidence: 0.9,
            uncertain: false,
            place: None,
        };
        let reading = |dice, meeples| Reading {
            width: 640,
            height: 480,
            dice,
            meeples,
        };
        // A photo: 1, 2, 3.
        let first = reader.numbered(
            reading(
                vec![
                    die(0, [10.0, 10.0, 30.0, 30.0]),
                    die(0, [100.0, 10.0, 120.0, 30.0]),
                ],
                vec![meeple(0, [10.0, 0.0, 30.0, 40.0])],
            ),
            None,
        );
        assert_eq!(first.dice.iter().map(|d| d.id).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(first.meeples[0].id, 3);
        // The next frame: the first die read again a pixel off (and as another value), the
        // second kept as it was, a die put down, the meeple on the first die read again.
        let mut again = die(0, [11.0, 10.0, 31.0, 30.0]);
        again.value = 5;
        let next = reader.numbered(
            reading(
                vec![
                    again,
                    first.dice[1].clone(),
                    die(0, [200.0, 10.0, 220.0, 30.0]),
                ],
                vec![meeple(0, [10.0, 1.0, 30.0, 41.0])],
            ),
            Some(&first),
        );
        assert_eq!(
            next.dice.iter().map(|d| d.id).collect::<Vec<_>>(),
            [1, 2, 4]
        );
        assert_eq!(next.meeples[0].id, 3);
        // Two new readings where one item was: one keeps the number, the other is new.
        let twice = reader.numbered(
            reading(
                vec![
                    die(0, [200.0, 10.0, 220.0, 30.0]),
                    die(0, [203.0, 12.0, 223.0, 32.0]),
                ],
                Vec::new(),
            ),
            Some(&next),
        );
        assert_eq!(twice.dice.iter().map(|d| d.id).collect::<Vec<_>>(), [4, 5]);
    }

    fn place(box_px: BoxPx, class: usize) -> Found {
        Found {
            box_px,
            class,
            heats: [0.9, 0.1],
        }
    }

    #[test]
    fn the_dice_found_give_the_scale_of_a_second_look() {
        let dice = [
            place([0.0, 0.0, 30.0, 20.0], KIND_DIE),
            place([50.0, 50.0, 90.0, 80.0], KIND_DIE),
            place([0.0, 0.0, 10.0, 200.0], KIND_MEEPLE),
            place([10.0, 10.0, 60.0, 30.0], KIND_DIE),
        ];
        assert_eq!(die_side_quantile(&dice, 0.5), Some(40.0));
        assert_eq!(die_side_quantile(&dice, 0.0), Some(30.0));
        assert_eq!(die_side_quantile(&dice, 1.0), Some(50.0));
        let meeple = place([0.0, 0.0, 20.0, 50.0], KIND_MEEPLE);
        assert_eq!(
            die_side_quantile(&[meeple], 0.5),
            Some(50.0 * MEEPLE_TO_DIE)
        );
        assert_eq!(die_side_quantile(&[], 0.5), None);
    }

    #[test]
    fn the_first_look_heat_is_read_under_a_box_and_a_cell_beside_it() {
        let mut heat = HeatMap {
            cols: 4,
            rows: 3,
            cell: [10.0, 20.0],
            heat: vec![0.0; 12],
        };
        heat.heat[2 * 4 + 3] = 0.7; // the cell of x 30-40, y 40-60
        assert_eq!(heat.near([21.0, 21.0, 28.0, 38.0]), 0.7);
        assert_eq!(heat.near([0.0, 0.0, 9.0, 9.0]), 0.0);
        assert_eq!(heat.near([-50.0, 500.0, -40.0, 600.0]), 0.0);
        assert_eq!(heat.near([35.0, 500.0, 900.0, 600.0]), 0.7);
    }

    #[test]
    fn two_peaks_on_one_item_make_one_reading() {
        let items = vec![
            ([0.0, 0.0, 40.0, 40.0], 0.6),
            ([10.0, 5.0, 50.0, 45.0], 0.9),
            ([45.0, 0.0, 85.0, 40.0], 0.5),
        ];
        let kept = without_duplicates(items, |&(b, c)| (b, c));
        assert_eq!(kept.iter().map(|k| k.1).collect::<Vec<_>>(), vec![0.9, 0.5]);
    }

    #[test]
    fn a_speck_far_smaller_than_the_dice_beside_it_is_dropped() {
        let die = |x: f32, side: f32, uncertain: bool| DieReading {
            id: 1,
            color: DieColor::Other,
            value: 1,
            box_px: [x, 0.0, x + side, side],
            confidence: 0.9,
            value_confidence: 0.9,
            color_confidence: 0.9,
            value_probabilities: [0.0; 6],
            color_probabilities: [0.0; 5],
            uncertain,
            place: None,
        };
        let sides = |dice: &[DieReading]| dice.iter().map(|d| side(d.box_px)).collect::<Vec<_>>();
        // A tray's hole a quarter of the dice beside it, read unsure, goes; the same read
        // sure, and a die half their size, stay.
        let tray = vec![
            die(0.0, 40.0, false),
            die(50.0, 38.0, false),
            die(100.0, 42.0, false),
            die(150.0, 10.0, true),
            die(170.0, 20.0, true),
        ];
        assert_eq!(
            sides(&without_specks(tray.clone(), 0.35)),
            vec![40.0, 38.0, 42.0, 20.0]
        );
        let mut sure = tray;
        sure[3].uncertain = false;
        assert_eq!(without_specks(sure, 0.35).len(), 5);
        // Small dice far away among dice of their own size stay.
        let far = vec![
            die(0.0, 60.0, false),
            die(70.0, 60.0, false),
            die(140.0, 60.0, false),
            die(2000.0, 15.0, true),
            die(2020.0, 14.0, true),
            die(2040.0, 15.0, true),
        ];
        assert_eq!(without_specks(far, 0.35).len(), 6);
        // Too few dice to know their size: nothing is dropped.
        let three = vec![
            die(0.0, 40.0, false),
            die(50.0, 40.0, false),
            die(100.0, 8.0, true),
        ];
        assert_eq!(without_specks(three, 0.35).len(), 3);
    }

    #[test]
    fn the_finder_tips_a_doubtful_kind_but_not_a_sure_one() {
        // A translucent die the reader half takes for a meeple, where the finder saw a die.
        let [die, meeple] = kind_probabilities(&[0.3, 0.6, 0.1], [0.6, 0.05]);
        assert!(die > meeple && (die + meeple - 0.9).abs() < 1e-6);
        // A sure reader keeps its kind against the finder's guess.
        let [die, meeple] = kind_probabilities(&[0.01, 0.98, 0.01], [0.5, 0.1]);
        assert!(meeple > 0.8 && die < meeple);
        // No heat at all: the reader alone.
        let [die, meeple] = kind_probabilities(&[0.2, 0.7, 0.1], [0.0, 0.0]);
        assert!((die - 0.2).abs() < 1e-6 && (meeple - 0.7).abs() < 1e-6);
    }

    #[test]
    fn a_meeple_on_its_die_is_two_items_though_both_crops_read_as_dice() {
        let place = |class: usize, heats: [f32; 2], box_px: BoxPx| Found {
            box_px,
            class,
            heats,
        };
        let row = |die: f32, meeple: f32| {
            let mut row = [0.0; READER_OUTPUTS];
            row[KIND_COLUMNS].copy_from_slice(&[die, meeple, 1.0 - die - meeple]);
            row
        };
        let settings = ReaderSettings::default();
        // The die's peak, and the meeple's a few pixels above it, where the die is hot too
        // (live-flag's green master on its purple die).
        let found = [
            place(KIND_DIE, [0.73, 0.16], [100.0, 108.0, 128.0, 136.0]),
            place(KIND_MEEPLE, [0.54, 0.66], [101.0, 100.0, 126.0, 127.0]),
        ];
        let read = kinds_read(&found, &[row(0.95, 0.03), row(0.6, 0.38)], &settings);
        assert_eq!(read[0].map(|k| k.0), Some(KIND_DIE));
        let Some((kind, p)) = read[1] else {
            panic!("the meeple is lost: {read:?}");
        };
        assert_eq!(kind, KIND_MEEPLE);
        assert!(p < settings.sure_kind, "read unsure: {p}");
        // A lone die where the finder also peaked for a meeple, which the reader sees not.
        let read = kinds_read(&found, &[row(0.95, 0.03), row(0.9, 0.08)], &settings);
        assert_eq!(read[1].map(|k| k.0), Some(KIND_DIE));
        // Apart, each place is what the reader and the heats say.
        let apart = [
            found[0],
            place(KIND_MEEPLE, [0.54, 0.66], [200.0, 100.0, 226.0, 127.0]),
        ];
        let read = kinds_read(&apart, &[row(0.95, 0.03), row(0.6, 0.38)], &settings);
        assert_eq!(read[1].map(|k| k.0), Some(KIND_DIE));
    }

    #[test]
    fn the_mirror_view_swaps_left_and_right_and_keeps_the_top_on_top() {
        // The green of the pixel second from the left of the top row, planes in RGB order.
        let n = READER_PX as usize;
        let mut pixels = vec![0u8; n * n * 3];
        pixels[3 + 1] = 255;
        let mut view = vec![0.0; 3 * n * n];
        write_view(&pixels, false, &mut view);
        assert_eq!(view[n * n + 1], 1.0);
        write_view(&pixels, true, &mut view);
        assert_eq!(view[n * n + n - 2], 1.0);
        assert_eq!(view.iter().filter(|&&v| v > 0.0).count(), 1);
    }

    #[test]
    fn crops_are_black_outside_the_image() {
        let image = RgbImage::from_fn(10, 10, |x, y| image::Rgb([x as u8, y as u8, 200]));
        let mut out = Vec::new();
        // A 4 px box at the corner with context 2: an 8 px square from (-4, -4).
        crop_square(&image, [-2.0, -2.0, 2.0, 2.0], 2.0, &mut out);
        assert_eq!(out.len(), 8 * 8 * 3);
        assert_eq!(&out[..3], &[0, 0, 0]);
        let inside = ((4 * 8) + 4) * 3;
        assert_eq!(&out[inside..inside + 3], &[0, 0, 200]);
        let last = out.len() - 3;
        assert_eq!(&out[last..], &[3, 3, 200]);
    }
}
