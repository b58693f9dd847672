//! `tablesight`: referee, scorekeeper and teacher for The Towers of Arkhanos.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use rules::PlayerColor;

use tablesight::cli;

#[derive(Parser)]
#[command(
    name = "tablesight",
    version,
    about = "Referee, scorekeeper and teacher for The Towers of Arkhanos"
)]
struct Args {
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
            use std::io::Write;
            writeln!(out, "{}", rules::TileCatalogue::arkhanos().to_json())?;
            Ok(cli::Outcome::Ok)
        }
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    let Some(command) = args.command else {
        return match tablesight::run_window() {
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
