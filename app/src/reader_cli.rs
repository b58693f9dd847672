//! `tablesight detect` (the reader on one photo or frame) and `tablesight eval` (its figures
//! on a labelled set: rendered scenes or YOLO-format photos).

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use calibration::{Camera, MatLayout, MatPlace};
use image::RgbImage;
use resvg::{tiny_skia, usvg};
use serde::Serialize;
use serde_json::json;
use vision::{Changes, DiceReader, DieColor, Found, ReaderSettings, Reading, TableGeometry};

use crate::calibration_cli::{self, svg_options};
use crate::cli::Outcome;

/// The shipped models, or those of a folder (`DiceReader::from_folder`).
pub fn dice_reader(models: Option<&Path>) -> Result<DiceReader> {
    Ok(match models {
        None => DiceReader::shipped()?,
        Some(dir) => DiceReader::from_folder(dir)?,
    })
}

pub struct DetectOptions<'a> {
    pub image: &'a Path,
    /// A saved calibration for frames of this size; without one, the mat's markers in the
    /// image are used when there are enough.
    pub calibration: Option<&'a Path>,
    pub layout: Option<&'a Path>,
    pub json: bool,
    pub annotate: Option<&'a Path>,
    pub models: Option<&'a Path>,
}

pub fn detect(out: &mut impl Write, options: &DetectOptions<'_>) -> Result<Outcome> {
    let image = vision::read_rgb(options.image)?;
    let mut reader = dice_reader(options.models)?;
    let layout = calibration_cli::layout(options.layout)?;
    let gray = vision::gray_from_image(&image::DynamicImage::ImageRgb8(image.clone()));
    let camera = calibration_cli::camera_for(&layout, &gray, options.calibration)?;
    let geometry = camera.map(|camera| TableGeometry::new(camera, layout));
    let started = Instant::now();
    let mut reading = reader.read(&image, geometry.as_ref())?;
    let elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
    if let Some(geometry) = &geometry {
        geometry.locate(&mut reading);
    }
    if options.json {
        let mut value = serde_json::to_value(&reading)?;
        value["image"] = json!(options.image.display().to_string());
        value["mat_found"] = json!(camera.is_some());
        writeln!(out, "{}", serde_json::to_string_pretty(&value)?)?;
    } else {
        write_summary(out, options.image, &reading, elapsed_ms)?;
        if camera.is_none() {
            writeln!(out, "  (the mat is not in view: no places)")?;
        }
    }
    if let Some(path) = options.annotate {
        annotated(&image, &reading)?
            .save(path)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(Outcome::Ok)
}

/// The summary names the second likeliest value of an unsure die from this probability.
const RUNNER_UP_SHOWN: f32 = 0.15;

/// Below this probability of its likeliest value an unsure die's value is not guessed at in
/// the summary: the reader's odds are near even (1 in 6 each), as for a die under a meeple.
const VALUE_UNREADABLE: f32 = 0.25;

/// "1 die", "3 dice".
fn counted(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

fn write_summary(out: &mut impl Write, path: &Path, reading: &Reading, ms: f64) -> Result<()> {
    writeln!(
        out,
        "{}: {}x{}, {} and {} ({ms:.0} ms)",
        path.display(),
        reading.width,
        reading.height,
        counted(reading.dice.len(), "die", "dice"),
        counted(reading.meeples.len(), "meeple", "meeples"),
    )?;
    for die in &reading.dice {
        // An unsure die with what else it may be, when the reader gave it a chance: the
        // two likeliest values, and the two likeliest colours, with their probabilities.
        let mut odds = Vec::new();
        if die.value_confidence < VALUE_UNREADABLE {
            odds.push("value unreadable".to_owned());
        } else if let Some((value, p)) = die.runner_up().filter(|&(_, p)| p >= RUNNER_UP_SHOWN) {
            odds.push(format!(
                "{}: {:.0} %, {value}: {:.0} %",
                die.value,
                die.value_confidence * 100.0,
                p * 100.0
            ));
        }
        if let Some((color, p)) = die.color_runner_up().filter(|&(_, p)| p >= RUNNER_UP_SHOWN) {
            odds.push(format!(
                "{}: {:.0} %, {}: {:.0} %",
                die.color.name(),
                die.color_confidence * 100.0,
                color.name(),
                p * 100.0
            ));
        }
        let unsure = match (die.uncertain, odds.is_empty()) {
            (false, _) => String::new(),
            (true, true) => "  uncertain".to_owned(),
            (true, false) => format!("  uncertain ({})", odds.join("; ")),
        };
        writeln!(
            out,
            "  die     {:<7} {}   at {:>5.0},{:<5.0} {:>4.0} %{}{unsure}",
            die.color.name(),
            die.value,
            (die.box_px[0] + die.box_px[2]) / 2.0,
            (die.box_px[1] + die.box_px[3]) / 2.0,
            die.confidence * 100.0,
            place_words(die.place.as_ref()),
        )?;
    }
    for meeple in &reading.meeples {
        writeln!(
            out,
            "  meeple  {:<7} {:<10} at {:>5.0},{:<5.0} {:>4.0} %{}{}",
            meeple.player.name(),
            format!("{:?}", meeple.rank).to_lowercase(),
            (meeple.box_px[0] + meeple.box_px[2]) / 2.0,
            (meeple.box_px[1] + meeple.box_px[3]) / 2.0,
            meeple.confidence * 100.0,
            place_words(meeple.place.as_ref()),
            if meeple.uncertain { "  uncertain" } else { "" }
        )?;
    }
    Ok(())
}

/// A place in a few words for the summary (empty without a calibration).
fn place_words(place: Option<&MatPlace>) -> String {
    match place {
        None => String::new(),
        Some(MatPlace::Tower {
            tower,
            level,
            pillar,
        }) => format!("  {tower} floor {level} pillar {pillar}"),
        Some(MatPlace::RollArea) => "  roll area".into(),
        Some(MatPlace::ManaPool) => "  mana pool".into(),
        Some(MatPlace::Spellbook { board, slot }) => format!("  spellbook {board} slot {slot}"),
        Some(MatPlace::Reserve { board }) => format!("  reserve {board}"),
    }
}

/// The kind of zone of a place, for the breakdown of misplaced items.
fn zone_words(place: Option<&MatPlace>) -> &'static str {
    match place {
        None => "nowhere",
        Some(MatPlace::Tower { .. }) => "pillar",
        Some(MatPlace::RollArea) => "roll area",
        Some(MatPlace::ManaPool) => "mana pool",
        Some(MatPlace::Spellbook { .. }) => "spell slot",
        Some(MatPlace::Reserve { .. }) => "reserve",
    }
}

fn die_stroke(color: DieColor) -> &'static str {
    match color {
        DieColor::Pink => "#ff4fb0",
        DieColor::Purple => "#a05cff",
        DieColor::Yellow => "#ffd400",
        DieColor::Blue => "#2f8cff",
        DieColor::Other => "#ffffff",
    }
}

/// The image with each reading's box and words drawn over it (dashed when uncertain).
fn annotated(image: &RgbImage, reading: &Reading) -> Result<RgbImage> {
    let (width, height) = (image.width(), image.height());
    let line = (width.max(height) as f32 / 400.0).max(1.5);
    let font = line * 7.0;
    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">"#
    );
    let mut item = |b: [f32; 4], stroke: &str, text: String, uncertain: bool| {
        let dash = if uncertain {
            format!(r#" stroke-dasharray="{0} {0}""#, line * 3.0)
        } else {
            String::new()
        };
        svg += &format!(
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="{stroke}" stroke-width="{line}"{dash}/>"#,
            b[0],
            b[1],
            b[2] - b[0],
            b[3] - b[1]
        );
        svg += &format!(
            r#"<text x="{}" y="{}" font-size="{font}" fill="{stroke}" stroke="black" stroke-width="{}" paint-order="stroke">{text}</text>"#,
            b[0],
            b[1] - line,
            line * 0.6
        );
    };
    for die in &reading.dice {
        let mark = if die.uncertain { "?" } else { "" };
        item(
            die.box_px,
            die_stroke(die.color),
            format!("{}{mark}", die.value),
            die.uncertain,
        );
    }
    for meeple in &reading.meeples {
        let rank = match meeple.rank {
            vision::MeepleRank::Apprentice => "A",
            vision::MeepleRank::Master => "M",
        };
        let stroke = match meeple.player {
            vision::MeepleColor::Blue => "#2f8cff",
            vision::MeepleColor::Green => "#2fd05a",
            vision::MeepleColor::Red => "#ff3b3b",
            vision::MeepleColor::Yellow => "#ffd400",
        };
        item(
            meeple.box_px,
            stroke,
            format!("{rank}{}", if meeple.uncertain { "?" } else { "" }),
            meeple.uncertain,
        );
    }
    svg += "</svg>";
    let tree = usvg::Tree::from_str(&svg, &svg_options())?;
    let mut pixmap =
        tiny_skia::Pixmap::new(width, height).context("the image is too large to annotate")?;
    resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
    let mut out = image.clone();
    for (pixel, over) in out.pixels_mut().zip(pixmap.pixels()) {
        let alpha = u16::from(over.alpha());
        // tiny-skia keeps premultiplied colour.
        let over = [over.red(), over.green(), over.blue()];
        for (channel, over) in pixel.0.iter_mut().zip(over) {
            *channel = (u16::from(over) + u16::from(*channel) * (255 - alpha) / 255).min(255) as u8;
        }
    }
    Ok(out)
}

/// One labelled item of an evaluation set.
struct Truth {
    die: bool,
    /// Value 1-6 for a die; player index for a meeple.
    value: u8,
    /// Die colour (rendered scenes only), or meeple rank.
    class: Option<String>,
    box_px: [f32; 4],
    /// Counted in the figures (at least 90 % visible); others are neither found nor false.
    counted: bool,
    /// False for a die that a meeple stands on (rendered scenes): no camera sees its value,
    /// so it is read right with its colour and either the right value or an unsure reading.
    value_shown: bool,
    /// A meeple standing on a die (rendered scenes): the game's usual stack, which the
    /// finder may take for one item.
    on_die: bool,
    /// A die a meeple stands on, at least `UNDER_MEEPLE_VISIBLE` of it seen (rendered
    /// scenes): counted apart even when too hidden for the figures, since the referee needs
    /// its presence and colour (a meeple with its die, or a lone one).
    under_meeple: bool,
    /// Where it stands on the mat (rendered scenes, which know their camera).
    place: Option<MatPlace>,
}

impl Truth {
    /// A die of another game (rendered scenes), labelled "other".
    fn of_other_game(&self) -> bool {
        self.die && self.class.as_deref() == Some("other")
    }

    /// The zone it stands in, in `zone_words` (rendered scenes).
    fn zone(&self) -> Option<&'static str> {
        self.place.as_ref().map(|p| zone_words(Some(p)))
    }

    /// As the confusion matrix names it (`class_key`).
    fn key(&self) -> String {
        class_key(self.value, self.class.as_ref())
    }
}

/// A die's colour and value ("blue 3"), a meeple's rank and player ("master 2"), a photo's
/// die's value alone.
fn class_key(value: u8, class: Option<&String>) -> String {
    match class {
        Some(c) => format!("{c} {value}"),
        None => value.to_string(),
    }
}

/// One labelled picture: its file, its items, and the camera that took it when known.
struct Labelled {
    path: PathBuf,
    truths: Vec<Truth>,
    camera: Option<Camera>,
    /// The top floor of each tower (what the referee knows when it asks for places).
    tower_levels: HashMap<String, u8>,
}

/// A rendered item's place in the mat's words: towers by zone name, spellbooks and reserves
/// by the seat of their player; buried and carried items have none.
fn mat_place(place: &synth::Place, players: &[rules::PlayerColor]) -> Option<MatPlace> {
    let board = |player: &rules::PlayerColor| {
        players
            .iter()
            .position(|p| p == player)
            .map(|seat| seat as u8 + 1)
    };
    Some(match place {
        synth::Place::Tower { buried: true, .. } | synth::Place::InHand => return None,
        synth::Place::Tower {
            tower,
            level,
            pillar,
            ..
        } => MatPlace::Tower {
            tower: synth::tower_zone(*tower).to_owned(),
            level: *level,
            pillar: *pillar,
        },
        synth::Place::RollArea => MatPlace::RollArea,
        synth::Place::ManaPool => MatPlace::ManaPool,
        synth::Place::Spellbook { player, spell } => MatPlace::Spellbook {
            board: board(player)?,
            slot: spell.index() as u8 + 1,
        },
        synth::Place::Reserve { player } => MatPlace::Reserve {
            board: board(player)?,
        },
    })
}

/// The labelled pictures of DIR: rendered scenes (`scene-*.json` beside each JPEG) or YOLO
/// photos (`images/` and `labels/`, class k = value k + 1).
fn labelled_set(dir: &Path) -> Result<Vec<Labelled>> {
    let mut scenes: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read the folder {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|e| e == "json")
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("scene-"))
        })
        .collect();
    scenes.sort();
    if !scenes.is_empty() {
        return scenes
            .into_iter()
            .map(|json_path| {
                let text = std::fs::read_to_string(&json_path)?;
                let labels: synth::Labels = serde_json::from_str(&text).with_context(|| {
                    format!("{} is not a scene label file", json_path.display())
                })?;
                let players = &labels.truth.players;
                let mut tower_levels = HashMap::new();
                let places = labels.dice.iter().map(|d| &d.place);
                for place in places.chain(labels.meeples.iter().map(|m| &m.place)) {
                    if let synth::Place::Tower { tower, level, .. } = place {
                        let top = tower_levels
                            .entry(synth::tower_zone(*tower).to_owned())
                            .or_insert(0);
                        *top = (*top).max(*level);
                    }
                }
                let mut truths = Vec::new();
                for die in &labels.dice {
                    truths.push(Truth {
                        die: true,
                        value: die.die.value.get(),
                        class: Some(format!("{:?}", die.die.color).to_lowercase()),
                        box_px: die.box_px.map(|v| v as f32),
                        counted: die.visible >= 0.9,
                        value_shown: !labels.meeple_stands_on(die),
                        on_die: false,
                        under_meeple: labels.meeple_stands_on(die)
                            && die.visible >= UNDER_MEEPLE_VISIBLE,
                        place: mat_place(&die.place, players),
                    });
                }
                for die in &labels.other_dice {
                    truths.push(Truth {
                        die: true,
                        value: die.value.get(),
                        class: Some("other".into()),
                        box_px: die.box_px.map(|v| v as f32),
                        counted: die.visible >= 0.9,
                        value_shown: true,
                        on_die: false,
                        under_meeple: false,
                        place: None,
                    });
                }
                for meeple in &labels.meeples {
                    truths.push(Truth {
                        die: false,
                        value: meeple.meeple.player as u8,
                        class: Some(format!("{:?}", meeple.meeple.rank).to_lowercase()),
                        box_px: meeple.box_px.map(|v| v as f32),
                        counted: meeple.visible >= 0.9,
                        value_shown: true,
                        on_die: labels
                            .dice
                            .iter()
                            .any(|d| d.place == meeple.place && labels.meeple_stands_on(d)),
                        under_meeple: false,
                        place: mat_place(&meeple.place, players),
                    });
                }
                Ok(Labelled {
                    path: json_path.with_extension("jpg"),
                    truths,
                    camera: Some(labels.camera),
                    tower_levels,
                })
            })
            .collect();
    }
    let images = dir.join("images");
    let mut photos: Vec<PathBuf> = std::fs::read_dir(&images)
        .with_context(|| {
            format!(
                "{} holds neither rendered scenes (scene-*.json) nor images/ and labels/",
                dir.display()
            )
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|path| {
            let extension = path
                .extension()
                .and_then(|e| e.to_str())
                .unwrap_or_default();
            ["jpg", "jpeg", "png", "webp", "bmp", "tif", "tiff"]
                .contains(&extension.to_ascii_lowercase().as_str())
        })
        .collect();
    photos.sort();
    photos
        .into_iter()
        .map(|photo| {
            // The decoder's error repeats its cause in its own words: said once.
            let image = image::image_dimensions(&photo)
                .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", photo.display()))?;
            let (w, h) = (image.0 as f32, image.1 as f32);
            let stem = photo.file_stem().unwrap_or_default();
            let label = dir.join("labels").join(stem).with_extension("txt");
            // No label file: no dice in the photo, as in YOLO's own sets.
            let text = match std::fs::read_to_string(&label) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
                read => read.with_context(|| format!("cannot read {}", label.display()))?,
            };
            let mut truths = Vec::new();
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                let fields: Vec<f32> = line
                    .split_whitespace()
                    .map(str::parse)
                    .collect::<Result<_, _>>()
                    .with_context(|| format!("{}: bad line {line:?}", label.display()))?;
                let [k, cx, cy, bw, bh] = fields[..] else {
                    bail!(
                        "{}: expected `class cx cy w h`, found {line:?}",
                        label.display()
                    );
                };
                let unit = 0.0..=1.0;
                if !(0.0..=5.0).contains(&k) || k.fract() != 0.0 {
                    bail!(
                        "{}: the class of {line:?} is not a die's value less one (0 to 5)",
                        label.display()
                    );
                }
                if ![cx, cy, bw, bh].iter().all(|v| unit.contains(v)) || bw == 0.0 || bh == 0.0
                {
                    bail!(
                        "{}: the box of {line:?} is not within the photo (centre, width and height are shares of its size, 0 to 1)",
                        label.display()
                    );
                }
                truths.push(Truth {
                    die: true,
                    value: k as u8 + 1,
                    class: None,
                    box_px: [
                        (cx - bw / 2.0) * w,
                        (cy - bh / 2.0) * h,
                        (cx + bw / 2.0) * w,
                        (cy + bh / 2.0) * h,
                    ],
                    counted: true,
                    value_shown: true,
                    on_die: false,
                    under_meeple: false,
                    place: None,
                });
            }
            Ok(Labelled {
                path: photo,
                truths,
                camera: None,
                tower_levels: HashMap::new(),
            })
        })
        .collect()
}

#[derive(Default, Serialize)]
struct Tally {
    counted: usize,
    found: usize,
    /// Found and read right: value (and colour where labelled); player and rank.
    read_right: usize,
    /// Found and the value (dice) or player (meeples) right; for a die whose value does not
    /// show (`Truth::value_shown`), right or read unsure.
    value_right: usize,
    uncertain: usize,
    /// Counted dice that a meeple stands on (`Truth::value_shown`), and those of them found
    /// and read right.
    value_hidden: usize,
    value_hidden_right: usize,
    /// Meeples standing on a die (`Truth::on_die`).
    on_die: Subset,
    /// Dice a meeple stands on, counted or not (`Truth::under_meeple`): found, and their
    /// colour right.
    under_meeple: Subset,
    /// The dice of other games (rendered scenes' "other" dice), which the game's dice
    /// are counted without too.
    other_games: Subset,
    /// The same figures by the zone each item stands in (rendered scenes: the items with a
    /// place in the game; the dice of other games have none).
    by_zone: BTreeMap<&'static str, Subset>,
    /// Found items whose true place is known (rendered scenes), and those put there.
    placed: usize,
    placed_right: usize,
    /// Found items put in the wrong place: "true zone -> zone put in" -> count.
    place_misses: BTreeMap<String, usize>,
    /// Among found items not flagged uncertain: read right.
    sure: usize,
    sure_right: usize,
    /// truth -> reading -> count; "missed" when not found.
    confusion: BTreeMap<String, BTreeMap<String, usize>>,
    /// The same figures by the labelled box's longer side (`SIZE_BANDS_PX`): where a
    /// miss comes from items too small to read.
    by_size: [Subset; SIZE_BANDS_PX.len() + 1],
}

/// How much of a die under a meeple must be seen for `Tally::under_meeple` to count it:
/// half (the meeple's foot hides its top face, and its body part of the sides).
const UNDER_MEEPLE_VISIBLE: f64 = 0.5;

/// The edges of the size bands, in pixels of the labelled box's longer side: under 20 px
/// pips run together; 27 px is what the calibration wizard asks of a camera
/// (`GOOD_DIE_PX`); from 40 px the reader's crop is shrunk.
const SIZE_BANDS_PX: [f32; 3] = [20.0, 27.0, 40.0];

/// Some of the counted items (a size band, the meeples on a die): how many, found, read
/// right.
#[derive(Clone, Copy, Default, Serialize)]
struct Subset {
    counted: usize,
    found: usize,
    read_right: usize,
}

impl Subset {
    fn found(&mut self, right: bool) {
        self.found += 1;
        self.read_right += usize::from(right);
    }

    /// "N counted, F % found, R % found and read right".
    fn figures(&self) -> String {
        format!(
            "{} counted, {:.2} % found, {:.2} % found and read right",
            self.counted,
            share(self.found, self.counted),
            share(self.read_right, self.counted)
        )
    }
}

/// The size band of a labelled box.
fn size_band(box_px: [f32; 4]) -> usize {
    SIZE_BANDS_PX
        .iter()
        .take_while(|&&edge| side(box_px) >= edge)
        .count()
}

#[derive(Default, Serialize)]
struct Figures {
    pictures: usize,
    dice: Tally,
    meeples: Tally,
    false_items: usize,
    /// False items flagged unsure (drawn dashed, weighed less by the referee).
    false_unsure: usize,
    /// Pictures with the most misses and false items, worst first.
    worst: Vec<(String, usize)>,
    ms_per_picture: f64,
    /// The false items of the picture scored last (`eval --false-items`).
    #[serde(skip)]
    false_found: Vec<FalseItem>,
    /// The counted items the picture scored last missed or misread (`eval --misses`).
    #[serde(skip)]
    missed: Vec<Miss>,
}

/// A counted item missed or misread, as `eval --misses` writes it: one JSON object a line,
/// for looking at what the reader gets wrong.
#[derive(Serialize)]
struct Miss {
    picture: String,
    kind: &'static str,
    /// As the confusion matrix names it: colour and value of a die ("blue 3"), rank and
    /// player of a meeple ("master 2"), a photo's die's value.
    truth: String,
    /// The reading it was matched with, named likewise; `None` when it was missed.
    read: Option<String>,
    /// The labelled box: x_min, y_min, x_max, y_max in pixels of the picture.
    #[serde(rename = "box")]
    box_px: [f32; 4],
    /// The zone it stands in (rendered scenes).
    place: Option<&'static str>,
}

impl Miss {
    /// `truth`, read as `read` (`None`: missed), its picture named later.
    fn of(truth: &Truth, read: Option<String>) -> Self {
        Self {
            picture: String::new(),
            kind: if truth.die { "die" } else { "meeple" },
            truth: truth.key(),
            read,
            box_px: truth.box_px,
            place: truth.zone(),
        }
    }
}

/// A reading that matches no labelled item, as `eval --false-items` writes it: one JSON
/// object a line, for looking at the finder's mistakes or cutting them as the reader's
/// "nothing" (`models/training/mine_negatives.py`).
#[derive(Serialize)]
struct FalseItem {
    picture: String,
    kind: &'static str,
    /// x_min, y_min, x_max, y_max in pixels of the picture.
    #[serde(rename = "box")]
    box_px: [f32; 4],
    confidence: f32,
    uncertain: bool,
    /// The zone it was put in (`pillar`, `roll area`...) when the picture's camera is known.
    place: Option<&'static str>,
}

fn share(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// How `eval` reads and reports.
pub struct EvalOptions<'a> {
    pub models: Option<&'a Path>,
    pub json: bool,
    /// The labelled boxes instead of the finder's: the reader alone.
    pub truth_boxes: bool,
    /// As a camera's frames are read, not as photos.
    pub live: bool,
    /// Where to write every false item, a JSON object a line.
    pub false_items: Option<&'a Path>,
    /// Where to write every counted item missed or misread, a JSON object a line.
    pub misses: Option<&'a Path>,
}

pub fn eval(out: &mut impl Write, dir: &Path, options: &EvalOptions) -> Result<Outcome> {
    let EvalOptions {
        models,
        json: as_json,
        truth_boxes,
        live,
        false_items,
        misses,
    } = *options;
    let set = labelled_set(dir)?;
    if set.is_empty() {
        bail!("{} holds no labelled pictures", dir.display());
    }
    let mut false_file = lines_file(false_items)?;
    let mut misses_file = lines_file(misses)?;
    let mut reader = dice_reader(models)?;
    if live {
        reader.settings = ReaderSettings::live();
    }
    let mut figures = Figures::default();
    let mut seconds = 0.0;
    let mut errors = Vec::new();
    let layout = MatLayout::a2();
    for picture in &set {
        let image = vision::read_rgb(&picture.path)?;
        // A rendered scene's camera is its calibration.
        let geometry = picture.camera.map(|camera| {
            let mut geometry = TableGeometry::new(camera, layout.clone());
            geometry.tower_levels = picture.tower_levels.clone();
            geometry
        });
        let started = Instant::now();
        let mut reading = if truth_boxes {
            let boxes: Vec<Found> = (picture.truths.iter())
                .map(|t| Found {
                    box_px: t.box_px,
                    class: usize::from(!t.die),
                    // No opinion of the finder's: the reader alone decides the kind.
                    heats: [0.5, 0.5],
                })
                .collect();
            reader.read_found(&image, &boxes)?
        } else {
            // A camera's frames are cut at the finder's boxes (`vision::DiceReader::read`),
            // and the meeples on dice looked for as the camera's path does (`app::observe`).
            let reading = reader.read(&image, geometry.as_ref().filter(|_| !live))?;
            match &geometry {
                Some(geometry) if live => {
                    (reader.read_pairs_on_towers(
                        &image,
                        reading,
                        geometry,
                        None,
                        &Changes::everything(),
                    ))?
                }
                _ => reading,
            }
        };
        seconds += started.elapsed().as_secs_f64();
        if let Some(geometry) = &geometry {
            geometry.locate(&mut reading);
        }
        figures.pictures += 1;
        let picture_errors = score_picture(&picture.truths, &reading, &mut figures);
        let name = picture.path.display().to_string();
        for mut item in figures.false_found.drain(..) {
            if let Some((file, _)) = false_file.as_mut() {
                item.picture.clone_from(&name);
                writeln!(file, "{}", serde_json::to_string(&item)?)?;
            }
        }
        for mut item in figures.missed.drain(..) {
            if let Some((file, _)) = misses_file.as_mut() {
                item.picture.clone_from(&name);
                writeln!(file, "{}", serde_json::to_string(&item)?)?;
            }
        }
        errors.push((name, picture_errors));
    }
    for (file, path) in [false_file, misses_file].iter_mut().flatten() {
        file.flush()
            .with_context(|| format!("writing {}", path.display()))?;
    }
    errors.sort_by_key(|e| std::cmp::Reverse(e.1));
    figures.worst = errors.into_iter().filter(|e| e.1 > 0).take(10).collect();
    figures.ms_per_picture = seconds * 1000.0 / figures.pictures as f64;
    if as_json {
        writeln!(out, "{}", serde_json::to_string_pretty(&figures)?)?;
    } else {
        write_figures(out, dir, &figures)?;
    }
    Ok(Outcome::Ok)
}

/// A file of JSON lines created at `path`, if one is asked for.
fn lines_file(path: Option<&Path>) -> Result<Option<(std::io::BufWriter<std::fs::File>, &Path)>> {
    path.map(|path| {
        let file =
            std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
        Ok((std::io::BufWriter::new(file), path))
    })
    .transpose()
}

/// One reading as the scoring sees it.
struct Prediction<'a> {
    is_die: bool,
    confidence: f32,
    box_px: [f32; 4],
    at: [f32; 2],
    /// Value and colour of a die; player index and rank of a meeple.
    read: (u8, String),
    uncertain: bool,
    place: Option<&'a MatPlace>,
}

/// Adds one picture to the figures; returns its misses, misreadings and false items.
fn score_picture(truths: &[Truth], reading: &Reading, figures: &mut Figures) -> usize {
    let mut predictions: Vec<Prediction> = reading
        .dice
        .iter()
        .map(|d| Prediction {
            is_die: true,
            confidence: d.confidence,
            box_px: d.box_px,
            at: centre(d.box_px),
            read: (d.value, d.color.name().to_owned()),
            uncertain: d.uncertain,
            place: d.place.as_ref(),
        })
        .chain(reading.meeples.iter().map(|m| Prediction {
            is_die: false,
            confidence: m.confidence,
            box_px: m.box_px,
            at: centre(m.box_px),
            read: (m.player as u8, format!("{:?}", m.rank).to_lowercase()),
            uncertain: m.uncertain,
            place: m.place.as_ref(),
        }))
        .collect();
    predictions.sort_by(|a, b| b.confidence.total_cmp(&a.confidence));
    let mut taken = vec![false; truths.len()];
    let mut errors = 0;
    for Prediction {
        is_die,
        confidence,
        box_px,
        at,
        read,
        uncertain,
        place,
    } in &predictions
    {
        let nearest = truths
            .iter()
            .enumerate()
            .filter(|(i, t)| !taken[*i] && t.die == *is_die)
            .map(|(i, t)| (i, distance(*at, centre(t.box_px)) / side(t.box_px)))
            .filter(|(_, d)| *d <= 0.5)
            .min_by(|a, b| a.1.total_cmp(&b.1));
        let Some((i, _)) = nearest else {
            // Not a false item when it sits on an item too hidden to count.
            let on_hidden = truths
                .iter()
                .any(|t| !t.counted && distance(*at, centre(t.box_px)) / side(t.box_px) <= 0.5);
            if !on_hidden {
                figures.false_items += 1;
                figures.false_unsure += usize::from(*uncertain);
                figures.false_found.push(FalseItem {
                    picture: String::new(),
                    kind: if *is_die { "die" } else { "meeple" },
                    box_px: *box_px,
                    confidence: *confidence,
                    uncertain: *uncertain,
                    place: place.map(|p| zone_words(Some(p))),
                });
                errors += 1;
            }
            continue;
        };
        taken[i] = true;
        let truth = &truths[i];
        if truth.under_meeple {
            let class_right = truth.class.as_ref().is_none_or(|c| *c == read.1);
            figures.dice.under_meeple.found(class_right);
        }
        if !truth.counted {
            continue;
        }
        let tally = if truth.die {
            &mut figures.dice
        } else {
            &mut figures.meeples
        };
        tally.found += 1;
        if let Some(true_place) = &truth.place {
            tally.placed += 1;
            if place.is_some_and(|p| p == true_place) {
                tally.placed_right += 1;
            } else {
                let miss = format!("{} -> {}", zone_words(Some(true_place)), zone_words(*place));
                *tally.place_misses.entry(miss).or_default() += 1;
            }
        }
        // A value that no camera sees is right when the reading says it is unsure.
        let value_right = read.0 == truth.value || (!truth.value_shown && *uncertain);
        let class_right = truth.class.as_ref().is_none_or(|c| *c == read.1);
        tally.value_right += usize::from(value_right);
        tally.read_right += usize::from(value_right && class_right);
        tally.value_hidden_right += usize::from(!truth.value_shown && value_right && class_right);
        if truth.on_die {
            tally.on_die.found(value_right && class_right);
        }
        if truth.of_other_game() {
            tally.other_games.found(value_right && class_right);
        }
        if let Some(zone) = truth.zone() {
            tally
                .by_zone
                .entry(zone)
                .or_default()
                .found(value_right && class_right);
        }
        tally.by_size[size_band(truth.box_px)].found(value_right && class_right);
        if *uncertain {
            tally.uncertain += 1;
        } else {
            tally.sure += 1;
            tally.sure_right += usize::from(value_right && class_right);
        }
        errors += usize::from(!(value_right && class_right));
        // A value that does not show, read unsure, is no misreading of it.
        let reading = match truth.class.as_ref().map(|_| &read.1) {
            Some(class) if !truth.value_shown && *uncertain => format!("{class} unsure"),
            class => class_key(read.0, class),
        };
        if !(value_right && class_right) {
            figures.missed.push(Miss::of(truth, Some(reading.clone())));
        }
        let tally = if truth.die {
            &mut figures.dice
        } else {
            &mut figures.meeples
        };
        *tally
            .confusion
            .entry(truth.key())
            .or_default()
            .entry(reading)
            .or_default() += 1;
    }
    for (i, truth) in truths.iter().enumerate() {
        figures.dice.under_meeple.counted += usize::from(truth.under_meeple);
        if !truth.counted {
            continue;
        }
        let tally = if truth.die {
            &mut figures.dice
        } else {
            &mut figures.meeples
        };
        tally.counted += 1;
        tally.value_hidden += usize::from(!truth.value_shown);
        tally.on_die.counted += usize::from(truth.on_die);
        tally.other_games.counted += usize::from(truth.of_other_game());
        if let Some(zone) = truth.zone() {
            tally.by_zone.entry(zone).or_default().counted += 1;
        }
        tally.by_size[size_band(truth.box_px)].counted += 1;
        if !taken[i] {
            errors += 1;
            *tally
                .confusion
                .entry(truth.key())
                .or_default()
                .entry("missed".to_owned())
                .or_default() += 1;
            figures.missed.push(Miss::of(truth, None));
        }
    }
    errors
}

fn centre(b: [f32; 4]) -> [f32; 2] {
    [(b[0] + b[2]) / 2.0, (b[1] + b[3]) / 2.0]
}

fn side(b: [f32; 4]) -> f32 {
    (b[2] - b[0]).max(b[3] - b[1]).max(1.0)
}

fn distance(a: [f32; 2], b: [f32; 2]) -> f32 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

fn write_figures(out: &mut impl Write, dir: &Path, figures: &Figures) -> Result<()> {
    writeln!(
        out,
        "{}: {} pictures, {:.1} ms a picture",
        dir.display(),
        figures.pictures,
        figures.ms_per_picture
    )?;
    for (name, tally) in [("dice", &figures.dice), ("meeples", &figures.meeples)] {
        if tally.counted == 0 {
            continue;
        }
        writeln!(
            out,
            "{name}: {} counted, {:.2} % found, {:.2} % found and read right ({:.2} % of found: value{}), {} uncertain, {:.2} % of the sure ones right",
            tally.counted,
            share(tally.found, tally.counted),
            share(tally.read_right, tally.counted),
            share(tally.value_right, tally.found),
            if name == "dice" { "" } else { " = player" },
            tally.uncertain,
            share(tally.sure_right, tally.sure),
        )?;
        if tally.value_hidden > 0 {
            writeln!(
                out,
                "  {} of them under a meeple, their value hidden: {:.2} % found and read right (the colour, and the value right or flagged unsure)",
                tally.value_hidden,
                share(tally.value_hidden_right, tally.value_hidden)
            )?;
        }
        if tally.on_die.counted > 0 {
            writeln!(out, "  standing on a die: {}", tally.on_die.figures())?;
        }
        let other = tally.other_games;
        if other.counted > 0 {
            let game = Subset {
                counted: tally.counted - other.counted,
                found: tally.found - other.found,
                read_right: tally.read_right - other.read_right,
            };
            writeln!(out, "  the game's dice: {}", game.figures())?;
            writeln!(out, "  dice of other games: {}", other.figures())?;
        }
        for (zone, subset) in &tally.by_zone {
            writeln!(out, "  zone {zone}: {}", subset.figures())?;
        }
        if tally.under_meeple.counted > 0 {
            writeln!(
                out,
                "  under a meeple, at least half seen (counted or not): {} (the colour)",
                tally.under_meeple.figures()
            )?;
        }
        if tally.placed > 0 {
            writeln!(
                out,
                "  places (rendered camera, towers' heights known): {:.2} % of {} found items put where they stand",
                share(tally.placed_right, tally.placed),
                tally.placed
            )?;
        }
        for (i, band) in tally.by_size.iter().enumerate() {
            if band.counted == 0 {
                continue;
            }
            let low = i.checked_sub(1).map_or(0.0, |j| SIZE_BANDS_PX[j]);
            let range = match SIZE_BANDS_PX.get(i) {
                Some(high) => format!("{low:.0}-{high:.0} px"),
                None => format!("{low:.0} px and more"),
            };
            writeln!(out, "  {range}: {}", band.figures())?;
        }
        for (miss, n) in &tally.place_misses {
            writeln!(out, "    misplaced {miss}: {n}")?;
        }
        writeln!(out, "  confusion (truth: readings)")?;
        for (truth, row) in &tally.confusion {
            let cells: Vec<String> = row.iter().map(|(r, n)| format!("{r} x{n}")).collect();
            writeln!(out, "    {truth}: {}", cells.join(", "))?;
        }
    }
    let counted = figures.dice.counted + figures.meeples.counted;
    writeln!(
        out,
        "false items: {} ({:.2} % of the counted items), {} of them unsure",
        figures.false_items,
        share(figures.false_items, counted),
        figures.false_unsure
    )?;
    if !figures.worst.is_empty() {
        writeln!(out, "worst pictures (misses + misreadings + false items):")?;
        for (path, n) in &figures.worst {
            writeln!(out, "  {n:>3}  {path}")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use vision::DieReading;

    /// A blue 3 at the same place as `die_reading` below, its value shown or not.
    fn blue_three(value_shown: bool) -> Truth {
        Truth {
            die: true,
            value: 3,
            class: Some("blue".into()),
            box_px: [100.0, 100.0, 130.0, 130.0],
            counted: true,
            value_shown,
            on_die: false,
            under_meeple: false,
            place: None,
        }
    }

    fn die_reading(color: DieColor, value: u8, uncertain: bool) -> Reading {
        Reading {
            width: 640,
            height: 480,
            dice: vec![DieReading {
                id: 1,
                color,
                value,
                box_px: [101.0, 99.0, 131.0, 129.0],
                confidence: 0.9,
                value_confidence: 0.9,
                color_confidence: 0.9,
                value_probabilities: [0.0; 6],
                color_probabilities: [0.0; 5],
                uncertain,
                place: None,
            }],
            meeples: Vec::new(),
        }
    }

    /// Scores one reading of one die: (read right, errors of the picture) and the figures.
    fn score(truth: Truth, reading: &Reading) -> ((usize, usize), Figures) {
        let mut figures = Figures::default();
        let errors = score_picture(&[truth], reading, &mut figures);
        assert_eq!((figures.dice.counted, figures.dice.found), (1, 1));
        ((figures.dice.read_right, errors), figures)
    }

    #[test]
    fn the_summary_names_what_else_an_unsure_die_may_be() {
        // A blue 4 read with `four` (the rest to a 2 first), likelier blue than purple.
        let summary = |uncertain, four: f32| {
            let mut reading = die_reading(DieColor::Blue, 4, uncertain);
            let die = &mut reading.dice[0];
            (die.value_confidence, die.color_confidence) = (four, 0.6);
            let two = (four - 0.05).min(0.3);
            let rest = (1.0 - four - two) / 4.0;
            die.value_probabilities = [rest, two, rest, four, rest, rest];
            die.color_probabilities = [0.02, 0.32, 0.03, 0.6, 0.03];
            let mut out = Vec::new();
            write_summary(&mut out, Path::new("table.jpg"), &reading, 20.0).unwrap();
            String::from_utf8(out).unwrap()
        };
        let unsure = summary(true, 0.45);
        assert!(
            unsure.contains("uncertain (4: 45 %, 2: 30 %; blue: 60 %, purple: 32 %)"),
            "{unsure}"
        );
        assert!(!summary(false, 0.45).contains("uncertain"));
        let hidden = summary(true, 0.2);
        assert!(
            hidden.contains("uncertain (value unreadable; blue: 60 %, purple: 32 %)"),
            "{hidden}"
        );
    }

    #[test]
    fn meeples_on_a_die_are_counted_apart() {
        let red_master = |on_die| Truth {
            die: false,
            value: vision::MeepleColor::Red as u8,
            class: Some("master".into()),
            on_die,
            ..blue_three(true)
        };
        let reading = Reading {
            meeples: vec![vision::MeepleReading {
                id: 1,
                player: vision::MeepleColor::Red,
                rank: vision::MeepleRank::Master,
                box_px: [101.0, 99.0, 131.0, 129.0],
                confidence: 0.9,
                uncertain: false,
                place: None,
            }],
            ..die_reading(DieColor::Blue, 3, false)
        };
        let mut figures = Figures::default();
        // One standing on a die, read; one beside it, missed.
        let missed = Truth {
            box_px: [300.0, 300.0, 330.0, 330.0],
            ..red_master(false)
        };
        score_picture(&[red_master(true), missed], &reading, &mut figures);
        let meeples = &figures.meeples;
        assert_eq!((meeples.counted, meeples.found), (2, 1));
        assert_eq!(
            (
                meeples.on_die.counted,
                meeples.on_die.found,
                meeples.on_die.read_right
            ),
            (1, 1, 1)
        );
    }

    #[test]
    fn dice_under_meeples_are_counted_apart_too_hidden_or_not() {
        let under = |counted, box_px| Truth {
            counted,
            under_meeple: true,
            box_px,
            ..blue_three(false)
        };
        let mut figures = Figures::default();
        // Too hidden for the figures, found in its colour (purple: wrong); a counted one,
        // missed.
        let hidden = under(false, [100.0, 100.0, 130.0, 130.0]);
        let missed = under(true, [300.0, 300.0, 330.0, 330.0]);
        let reading = die_reading(DieColor::Purple, 3, true);
        score_picture(&[hidden, missed], &reading, &mut figures);
        let dice = &figures.dice;
        assert_eq!((dice.counted, dice.found), (1, 0));
        let subset = dice.under_meeple;
        assert_eq!((subset.counted, subset.found, subset.read_right), (2, 1, 0));
        // Read blue: its colour right.
        let mut figures = Figures::default();
        let reading = die_reading(DieColor::Blue, 5, true);
        score_picture(
            &[under(false, [100.0, 100.0, 130.0, 130.0])],
            &reading,
            &mut figures,
        );
        let subset = figures.dice.under_meeple;
        assert_eq!((subset.counted, subset.found, subset.read_right), (1, 1, 1));
    }

    /// The dice of other games are counted apart, the dice of the game by zone too, and
    /// each miss or misreading is listed.
    #[test]
    fn dice_of_other_games_are_counted_apart_and_misses_listed() {
        let other = Truth {
            class: Some("other".into()),
            box_px: [300.0, 300.0, 330.0, 330.0],
            ..blue_three(true)
        };
        let rolled = Truth {
            place: Some(MatPlace::RollArea),
            ..blue_three(true)
        };
        let mut figures = Figures::default();
        // The blue 3 in the roll area read a 5; the other game's 3 missed.
        let reading = die_reading(DieColor::Blue, 5, false);
        score_picture(&[rolled, other], &reading, &mut figures);
        let subset = figures.dice.other_games;
        assert_eq!((subset.counted, subset.found, subset.read_right), (1, 0, 0));
        assert_eq!(figures.dice.counted, 2);
        // By zone: the dice with a place in the game only.
        let zones: Vec<(&str, usize, usize, usize)> = (figures.dice.by_zone.iter())
            .map(|(zone, s)| (*zone, s.counted, s.found, s.read_right))
            .collect();
        assert_eq!(zones, [("roll area", 1, 1, 0)]);
        let misses: Vec<(&str, Option<&str>)> = (figures.missed.iter())
            .map(|m| (m.truth.as_str(), m.read.as_deref()))
            .collect();
        assert_eq!(misses, [("blue 3", Some("blue 5")), ("other 3", None)]);
    }

    #[test]
    fn a_die_under_a_meeple_is_read_right_unsure_or_with_its_value() {
        let right_and_errors = |shown, color, value, unsure| {
            score(blue_three(shown), &die_reading(color, value, unsure)).0
        };
        // Its value shown: only the value counts, sure or not.
        assert_eq!(right_and_errors(true, DieColor::Blue, 3, false), (1, 0));
        assert_eq!(right_and_errors(true, DieColor::Blue, 5, true), (0, 1));
        // Under a meeple: a sure wrong value is a silent guess; an unsure one says so.
        assert_eq!(right_and_errors(false, DieColor::Blue, 5, false), (0, 1));
        assert_eq!(right_and_errors(false, DieColor::Blue, 5, true), (1, 0));
        assert_eq!(right_and_errors(false, DieColor::Blue, 3, false), (1, 0));
        // Its colour still shows.
        assert_eq!(right_and_errors(false, DieColor::Pink, 5, true), (0, 1));
        let (_, figures) = score(blue_three(false), &die_reading(DieColor::Blue, 5, true));
        let dice = &figures.dice;
        assert_eq!((dice.value_hidden, dice.value_hidden_right), (1, 1));
        assert_eq!(dice.confusion["blue 3"]["blue unsure"], 1);
    }

    #[test]
    fn false_items_are_counted_with_those_flagged_unsure() {
        let mut figures = Figures::default();
        let far = || Truth {
            box_px: [300.0, 300.0, 330.0, 330.0],
            ..blue_three(true)
        };
        score_picture(
            &[far()],
            &die_reading(DieColor::Blue, 3, true),
            &mut figures,
        );
        score_picture(
            &[far()],
            &die_reading(DieColor::Blue, 3, false),
            &mut figures,
        );
        assert_eq!((figures.false_items, figures.false_unsure), (2, 1));
        assert_eq!(figures.dice.found, 0);
    }
}
