//! `tablesight`: referee, scorekeeper and teacher for The Towers of Arkhanos.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use rules::PlayerColor;

use std::io::Write;

use tablesight::{calibration_cli, capture_cli, cli, reader_cli, referee_cli, synth_cli};

#[derive(Parser)]
#[command(
    name = "tablesight",
    version,
    about = "Referee, scorekeeper and teacher for The Towers of Arkhanos"
)]
struct Args {
    /// Open the window on the demo: a game rendered by the synthetic table (the first time,
    /// in the background), read and refereed as a camera's frames are.
    #[arg(long)]
    demo: bool,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Applies end-of-game scoring to a table snapshot and prints the breakdown.
    Score {
        /// A snapshot file (JSON).
        file: PathBuf,
        /// Print one JSON object (totals, winners, standings, entries).
        #[arg(long)]
        json: bool,
    },
    /// Replays a game record, printing every event and the final score.
    Replay {
        /// A game record file (JSON).
        file: PathBuf,
        /// A tile catalogue for records that name tiles by id.
        #[arg(long)]
        tiles: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Validates a snapshot or a game record and lists every problem.
    Check {
        file: PathBuf,
        #[arg(long)]
        tiles: Option<PathBuf>,
    },
    /// Plays a random legal game and writes its record.
    Simulate {
        /// The players in seating order, e.g. red,green,blue.
        #[arg(long, value_delimiter = ',', default_value = "red,green,blue")]
        players: Vec<PlayerArg>,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        tiles: Option<PathBuf>,
        /// Where to write the record (default: standard output).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Prints the shipped tile catalogue, to copy and edit for `--tiles`.
    Tiles,
    /// Writes the printable play mat: PDF (all sheets), PNG or SVG (a file per sheet).
    Mat {
        /// The file to write: .pdf, .png or .svg.
        #[arg(long)]
        out: PathBuf,
        /// A4 (tiles to tape together), A3, A2 or Letter.
        #[arg(long, default_value = "A4")]
        paper: String,
        /// A mat layout file (default: the shipped A2 mat; see `tablesight mat-layout`).
        #[arg(long)]
        layout: Option<PathBuf>,
        /// Resolution of PNG sheets.
        #[arg(long, default_value_t = 300)]
        dpi: u32,
    },
    /// Prints the shipped mat layout (millimetres), to copy and edit for `--layout`.
    MatLayout,
    /// Finds the mat in a photo: markers, lens, camera pose, reprojection error, zones.
    Calibrate {
        /// A photo (JPEG, PNG, WebP, BMP or TIFF) of the table from the camera's place.
        image: PathBuf,
        /// More photos of the mat from other places, to measure the lens better.
        #[arg(long = "view")]
        views: Vec<PathBuf>,
        #[arg(long)]
        layout: Option<PathBuf>,
        /// Use the lens of this saved calibration instead of estimating it.
        #[arg(long, conflicts_with = "views")]
        intrinsics: Option<PathBuf>,
        /// Only check that this saved calibration still fits the photo.
        #[arg(long)]
        check: Option<PathBuf>,
        /// Save the calibration to this file.
        #[arg(long)]
        save: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Reads every die (colour, value) and meeple (player, rank) in a photo or frame.
    Detect {
        /// A photo or frame (JPEG, PNG, WebP, BMP or TIFF), any size; EXIF orientation is applied.
        image: PathBuf,
        /// Print one JSON object: dice and meeples with boxes in pixels of the image.
        #[arg(long)]
        json: bool,
        /// Also write the image with the readings drawn over it (PNG).
        #[arg(long)]
        annotate: Option<PathBuf>,
        /// A saved calibration (`calibrate --save`) for frames of this size; without it the
        /// mat's markers in the image give each item's place when enough are in view.
        #[arg(long)]
        calibration: Option<PathBuf>,
        /// The mat layout file (the shipped A2 mat by default).
        #[arg(long)]
        layout: Option<PathBuf>,
        /// A folder with finder.onnx, reader.onnx or both to use instead of the shipped ones.
        #[arg(long)]
        models: Option<PathBuf>,
    },
    /// Measures the reader on a labelled set: rendered scenes or YOLO-format photos.
    Eval {
        /// A folder of `tablesight synth scenes`, or one with images/ and labels/ (YOLO).
        dir: PathBuf,
        #[arg(long)]
        json: bool,
        /// A folder with other finder.onnx, reader.onnx or both than the shipped ones.
        #[arg(long)]
        models: Option<PathBuf>,
        /// Read the labelled boxes instead of the finder's: the reader alone, without the
        /// finder's misses and imprecise boxes.
        #[arg(long)]
        truth_boxes: bool,
        /// Read as a camera's frames are (each crop once, the finder looking once), not as
        /// photos (each crop with its mirror image, coarse looks for close dice, a second
        /// look for small ones).
        #[arg(long)]
        live: bool,
        /// Also write every false item (a reading that matches no labelled item) to this
        /// file, a JSON object a line: picture, kind, box, confidence, uncertain, and the
        /// zone it was put in when the picture's camera is known (rendered scenes).
        #[arg(long)]
        false_items: Option<PathBuf>,
        /// Also write every counted item missed or misread to this file, a JSON object a
        /// line: picture, kind, truth, the reading it was matched with (none when missed),
        /// its labelled box, and its zone (rendered scenes).
        #[arg(long)]
        misses: Option<PathBuf>,
    },
    /// Referees a recorded game headless: confirmed actions, illegal moves, desyncs.
    Referee {
        /// A folder of frames, frame-NNNNN.jpg (as `tablesight synth game` writes them), or
        /// a file of readings written by --save-readings (refereed again without the reader).
        frames: PathBuf,
        /// A game record: only its set-up is used (players, first player, tiles, stack).
        #[arg(long)]
        setup: PathBuf,
        /// A game journal to write (and to resume from when it exists): a game record for
        /// `tablesight replay`, with the referee's notes beside it in FILE.referee.json.
        #[arg(long)]
        journal: Option<PathBuf>,
        #[arg(long)]
        tiles: Option<PathBuf>,
        /// Read the frames' true labels (labels.jsonl) instead of the pixels: the referee
        /// alone, without the reader's errors.
        #[arg(long)]
        oracle: bool,
        /// A saved calibration (`tablesight calibrate --save`); default: the mat's markers
        /// fitted in the first frames.
        #[arg(long)]
        calibration: Option<PathBuf>,
        /// A folder with other finder.onnx, reader.onnx or both than the shipped ones.
        #[arg(long)]
        models: Option<PathBuf>,
        /// Frames each reading is voted with before it counts (the reader path; 1 to 60).
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=60))]
        vote_frames: u32,
        /// Frames a second of a folder of frames without an index (default: its game.json's,
        /// else 15).
        #[arg(long, value_parser = referee_cli::parse_fps)]
        fps: Option<f64>,
        /// Frames in a row a reading must hold, with no hand over the table, to count (1 to
        /// 60).
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=60))]
        settle_frames: u32,
        /// Print one JSON object: actions, flags, desyncs, notes, prestige.
        #[arg(long)]
        json: bool,
        /// Write each frame's reading (what the referee is given, before the vote) to FILE,
        /// a line of JSON per frame.
        #[arg(long)]
        save_readings: Option<PathBuf>,
        /// Players who answer the referee's questions (what a die of the roll read unsure
        /// shows, the rank of a meeple placed unsure, after 2 s which of several moves was
        /// made) from this game record, the true one of a rendered game: what answering does.
        #[arg(long)]
        answers: Option<PathBuf>,
    },
    /// Referees the live table headless: a camera (or a recording at its own pace) through
    /// the reader, the calibration and the referee; prints each confirmed action, flag and
    /// desync as it happens.
    Watch {
        /// The camera's number, as `tablesight cameras` lists it.
        #[arg(long, conflicts_with = "frames")]
        camera: Option<u32>,
        /// A folder of frames (`tablesight record`, `tablesight synth game`) instead.
        #[arg(long)]
        frames: Option<PathBuf>,
        /// A game record: only its set-up is used (players, first player, tiles, stack).
        #[arg(long)]
        setup: PathBuf,
        /// A saved calibration (`tablesight calibrate --save`); default: the mat's markers.
        #[arg(long)]
        calibration: Option<PathBuf>,
        /// A game journal to write (and to resume from when it exists).
        #[arg(long)]
        journal: Option<PathBuf>,
        #[arg(long)]
        tiles: Option<PathBuf>,
        /// Frames a second of a folder of frames without an index (default: its game.json's,
        /// else 15).
        #[arg(long, value_parser = referee_cli::parse_fps)]
        fps: Option<f64>,
        /// Stop after this many seconds, and print the figures: reading time, latency from
        /// capture to reading, frames passed over, CPU use.
        #[arg(long)]
        seconds: Option<f64>,
    },
    /// Renders the synthetic table: training scenes or whole games, with exact labels.
    #[command(subcommand)]
    Synth(SynthCommand),
    /// Lists the cameras and what each offers: formats, sizes, frame rates.
    Cameras {
        /// Print one JSON object: the cameras with their modes and the mode `record` opens.
        #[arg(long)]
        json: bool,
    },
    /// Saves a camera's frames for replay: frame-NNNNN.jpg and their index frames.jsonl,
    /// read back as a folder of frames with the recorded times.
    Record {
        /// The camera's number, as `tablesight cameras` lists it.
        #[arg(long)]
        camera: u32,
        /// The folder to write (created; one that already holds a recording is refused).
        #[arg(long)]
        out: PathBuf,
        /// Stop after this many seconds (default: when interrupted; every frame written is
        /// in the index at once).
        #[arg(long)]
        seconds: Option<f64>,
        /// WIDTHxHEIGHT (default: 1920x1080, else 1280x720, as the camera offers).
        #[arg(long, value_parser = capture_cli::parse_resolution)]
        resolution: Option<(u32, u32)>,
        /// The camera's pixel format (default: MJPEG where offered).
        #[arg(long, value_enum)]
        format: Option<FormatArg>,
        /// Frames a second (default: 30, else the nearest the camera offers from 15 to 30).
        #[arg(long)]
        fps: Option<u32>,
        /// Lock exposure, focus and white balance at what the camera has when it opens.
        #[arg(long)]
        lock: bool,
    },
}

/// A camera's pixel format, for `tablesight record --format`.
#[derive(Clone, Copy, clap::ValueEnum)]
enum FormatArg {
    Mjpeg,
    Yuyv,
}

impl From<FormatArg> for vision::PixelFormat {
    fn from(arg: FormatArg) -> Self {
        match arg {
            FormatArg::Mjpeg => vision::PixelFormat::Mjpeg,
            FormatArg::Yuyv => vision::PixelFormat::Yuyv,
        }
    }
}

/// What `tablesight synth` makes.
#[derive(clap::Subcommand)]
enum SynthCommand {
    /// Random scenes for training the reader: scene-NNNNN.jpg with its labels in .json.
    Scenes {
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long, default_value_t = 100)]
        count: usize,
        /// Frame size, WIDTHxHEIGHT.
        #[arg(long, default_value = "640x480", value_parser = synth_cli::parse_size)]
        size: (usize, usize),
        /// Render threads (default: one per core).
        #[arg(long)]
        threads: Option<usize>,
        /// Sprites from this folder (what `render_sprites.py --out` wrote) instead of the
        /// committed ones.
        #[arg(long)]
        sprites: Option<PathBuf>,
    },
    /// A random legal game as webcam video frames, with labels and the true action log.
    Game {
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The players in seating order, e.g. red,green.
        #[arg(long, value_delimiter = ',', default_value = "red,green")]
        players: Vec<PlayerArg>,
        /// Stop after this many actions (default: the whole game).
        #[arg(long)]
        actions: Option<usize>,
        #[arg(long, default_value = "640x480", value_parser = synth_cli::parse_size)]
        size: (usize, usize),
        /// Frames a second (1 to 120).
        #[arg(long, default_value_t = 15, value_parser = clap::value_parser!(u32).range(1..=120))]
        fps: u32,
        /// The share of placements before which a player rests a hand over a die for a few
        /// seconds (0 to 1).
        #[arg(long, default_value_t = 0.0, value_parser = synth_cli::parse_share)]
        rest_share: f64,
        /// Sprites from this folder instead of the committed ones.
        #[arg(long)]
        sprites: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum PlayerArg {
    Blue,
    Green,
    Red,
    Yellow,
}

impl From<PlayerArg> for PlayerColor {
    fn from(arg: PlayerArg) -> Self {
        match arg {
            PlayerArg::Blue => PlayerColor::Blue,
            PlayerArg::Green => PlayerColor::Green,
            PlayerArg::Red => PlayerColor::Red,
            PlayerArg::Yellow => PlayerColor::Yellow,
        }
    }
}

fn run(command: Command) -> anyhow::Result<cli::Outcome> {
    let out = &mut std::io::stdout().lock();
    match command {
        Command::Score { file, json } => cli::score(out, &file, json),
        Command::Replay { file, tiles, json } => cli::replay(out, &file, tiles.as_deref(), json),
        Command::Check { file, tiles } => cli::check(out, &file, tiles.as_deref()),
        Command::Simulate {
            players,
            seed,
            tiles,
            out,
        } => {
            let players: Vec<PlayerColor> = players.into_iter().map(Into::into).collect();
            cli::simulate(
                &mut std::io::stdout().lock(),
                &players,
                seed,
                tiles.as_deref(),
                out.as_ref(),
            )
        }
        Command::Tiles => {
            writeln!(out, "{}", rules::TileCatalogue::arkhanos().to_json())?;
            Ok(cli::Outcome::Ok)
        }
        Command::Mat {
            out: destination,
            paper,
            layout,
            dpi,
        } => calibration_cli::mat(out, &destination, &paper, layout.as_deref(), dpi),
        Command::MatLayout => {
            writeln!(
                out,
                "{}",
                serde_json::to_string_pretty(&calibration::MatLayout::a2())?
            )?;
            Ok(cli::Outcome::Ok)
        }
        Command::Detect {
            image,
            json,
            annotate,
            calibration,
            layout,
            models,
        } => reader_cli::detect(
            out,
            &reader_cli::DetectOptions {
                image: &image,
                calibration: calibration.as_deref(),
                layout: layout.as_deref(),
                json,
                annotate: annotate.as_deref(),
                models: models.as_deref(),
            },
        ),
        Command::Eval {
            dir,
            json,
            models,
            truth_boxes,
            live,
            false_items,
            misses,
        } => reader_cli::eval(
            out,
            &dir,
            &reader_cli::EvalOptions {
                models: models.as_deref(),
                json,
                truth_boxes,
                live,
                false_items: false_items.as_deref(),
                misses: misses.as_deref(),
            },
        ),
        Command::Referee {
            frames,
            setup,
            journal,
            tiles,
            oracle,
            calibration,
            models,
            fps,
            settle_frames,
            vote_frames,
            json,
            save_readings,
            answers,
        } => referee_cli::referee(
            out,
            &referee_cli::RefereeOptions {
                source: referee_cli::Source::Frames(&frames),
                pace: vision::Pace::Fastest,
                setup: &setup,
                journal: journal.as_deref(),
                tiles: tiles.as_deref(),
                json,
                oracle,
                calibration: calibration.as_deref(),
                models: models.as_deref(),
                fps,
                settle_frames,
                vote_frames,
                save_readings: save_readings.as_deref(),
                limit: None,
                answers: answers.as_deref(),
            },
        ),
        Command::Watch {
            camera,
            frames,
            setup,
            calibration,
            journal,
            tiles,
            fps,
            seconds,
        } => {
            let limit = capture_cli::seconds_limit(seconds)?;
            let source = match (&frames, camera) {
                (Some(dir), _) => referee_cli::Source::Frames(dir),
                (None, camera) => referee_cli::Source::Camera(camera.unwrap_or(0)),
            };
            referee_cli::referee(
                out,
                &referee_cli::RefereeOptions {
                    source,
                    pace: vision::Pace::Live,
                    setup: &setup,
                    journal: journal.as_deref(),
                    tiles: tiles.as_deref(),
                    json: false,
                    oracle: false,
                    calibration: calibration.as_deref(),
                    models: None,
                    fps,
                    settle_frames: 3,
                    vote_frames: 5,
                    save_readings: None,
                    limit,
                    answers: None,
                },
            )
        }
        Command::Synth(SynthCommand::Scenes {
            out: dir,
            seed,
            count,
            size,
            threads,
            sprites,
        }) => {
            let threads = threads.unwrap_or_else(|| {
                std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
            });
            synth_cli::scenes(
                out,
                &synth_cli::ScenesOptions {
                    dir: &dir,
                    seed,
                    count,
                    size,
                    threads,
                    sprites: sprites.as_deref(),
                },
            )
        }
        Command::Synth(SynthCommand::Game {
            out: dir,
            seed,
            players,
            actions,
            size,
            fps,
            rest_share,
            sprites,
        }) => {
            let players: Vec<PlayerColor> = players.into_iter().map(Into::into).collect();
            synth_cli::game(
                out,
                &synth_cli::GameOptions {
                    dir: &dir,
                    seed,
                    players: &players,
                    actions,
                    size,
                    fps,
                    rest_share,
                    sprites: sprites.as_deref(),
                },
            )
        }
        Command::Cameras { json } => capture_cli::cameras(out, json),
        Command::Record {
            camera,
            out: dir,
            seconds,
            resolution,
            format,
            fps,
            lock,
        } => capture_cli::record(
            out,
            &capture_cli::RecordOptions {
                camera,
                out: &dir,
                seconds,
                resolution,
                format: format.map(Into::into),
                fps,
                lock,
            },
        ),
        Command::Calibrate {
            image,
            views,
            layout,
            intrinsics,
            check,
            save,
            json,
        } => calibration_cli::calibrate(
            out,
            &calibration_cli::CalibrateOptions {
                image: &image,
                views: &views,
                layout: layout.as_deref(),
                intrinsics: intrinsics.as_deref(),
                check: check.as_deref(),
                save: save.as_deref(),
                json,
            },
        ),
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    let Some(command) = args.command else {
        return match tablesight::run_window(args.demo) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                match error {
                    tablesight::WindowError::NoDisplay => eprintln!(
                        "Tablesight needs a display to open its window, and none was found (DISPLAY and WAYLAND_DISPLAY are unset)."
                    ),
                    tablesight::WindowError::Eframe(error) => {
                        eprintln!("Tablesight could not open its window: {error}")
                    }
                }
                eprintln!(
                    "The headless commands work without one:\
                     \n  tablesight score FILE [--json]   score an end-of-game snapshot\
                     \n  tablesight replay FILE           replay a game record\
                     \n  tablesight check FILE            validate a snapshot or a record\
                     \n  tablesight simulate --seed N     play a random legal game\
                     \nRun `tablesight --help` for details."
                );
                ExitCode::from(1)
            }
        };
    };
    match run(command) {
        Ok(cli::Outcome::Ok) => ExitCode::SUCCESS,
        Ok(cli::Outcome::Invalid) => ExitCode::from(1),
        // A reader that stops early (`tablesight replay FILE | head`) is not an error.
        Err(error)
            if error
                .downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(1)
        }
    }
}
