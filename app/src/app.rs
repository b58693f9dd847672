//! The Tablesight window: persisted settings apart from runtime state, and commands
//! collected during a frame and applied at its end.

use std::path::{Path, PathBuf};

use egui::{Key, KeyboardShortcut, Modifiers, Ui};
use rules::{
    Action, Die, GameRecord, GameRng, GameSetup, PlayerColor, Rank, TileCatalogue, Violation,
};
use serde::{Deserialize, Serialize};

use crate::camera_setup::{CameraChoice, CameraSettings, CameraSetup};
use crate::files::{FileDialog, FilePurpose};
use crate::live::{LiveFeed, LiveOptions, LiveRequest};
use crate::live_view::LiveSession;
use crate::new_game::NewGameForm;
use crate::session::Session;
use crate::tiles_editor::TilesEditor;

/// What persists between runs (eframe storage).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// Highlight legal placements and explain tiles, spells and rules.
    pub teach_mode: bool,
    /// The last players chosen, in seating order.
    pub players: Vec<PlayerColor>,
    /// The user's tile catalogue, if not the shipped one.
    pub catalogue_path: Option<PathBuf>,
    /// The last file saved or opened.
    pub last_file: Option<PathBuf>,
    /// The camera, its calibration and the referee's settings.
    pub camera: CameraSettings,
    /// Whether the demo has played once by itself (a first run without a camera).
    pub demo_shown: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            teach_mode: true,
            players: vec![PlayerColor::Red, PlayerColor::Green, PlayerColor::Blue],
            catalogue_path: None,
            last_file: None,
            camera: CameraSettings::default(),
            demo_shown: false,
        }
    }
}

/// A side effect chosen while drawing a frame, applied at its end.
#[derive(Clone, Debug)]
pub enum Command {
    Play(Action),
    /// Plays the flagged action anyway: the table agreed to waive the restriction.
    Override,
    DismissFlag,
    Undo,
    Redo,
    /// Draws this round's dice from the bag at random.
    RollRandom,
    SelectDie(Option<Die>),
    SelectRank(Rank),
    ShowNewGame,
    StartGame(GameSetup),
    ResumeAutosave,
    OpenFileDialog(FilePurpose),
    Save(PathBuf),
    Open(PathBuf),
    OpenTilesEditor,
    UseCatalogue(TileCatalogue, Option<PathBuf>),
    SetTeachMode(bool),
    /// Plays the demo game through the live feed (rendered first when not cached).
    StartDemo,
    /// Opens the camera set-up window.
    OpenCameraSetup,
    /// Opens this camera and referees the game on the table through it.
    WatchCamera(CameraChoice),
    /// Opens this camera in the calibration wizard.
    CalibrateCamera(CameraChoice),
    /// Stops watching the camera, recording or demo; the game stays on the table.
    StopLive,
    /// An action the live referee confirmed, mirrored into the session.
    Refereed {
        action: Action,
        overridden: bool,
    },
    /// The live referee's record replaces the session's (they went apart).
    FollowRecord(GameRecord),
    /// A request for the live referee.
    Live(LiveRequest),
}

/// An action the rules refused, shown until dismissed or overridden.
#[derive(Clone, Debug)]
pub struct Flag {
    pub action: Action,
    pub violation: Violation,
}

/// A game on the table, with what the user has picked.
pub struct GameView {
    pub session: Session,
    pub selected_die: Option<Die>,
    pub rank: Rank,
    pub flag: Option<Flag>,
    /// The file this game was last saved to or opened from.
    pub file: Option<PathBuf>,
    /// The demo's game: never autosaved (it would replace the user's last game).
    pub demo: bool,
}

pub enum Screen {
    NewGame(Box<NewGameForm>),
    Game(Box<GameView>),
}

/// The whole app. The UI thread only draws and applies commands; nothing here blocks.
pub struct TablesightApp {
    pub settings: Settings,
    pub catalogue: TileCatalogue,
    pub screen: Screen,
    pub rng: GameRng,
    /// Where the record is written after every change, so a crash loses nothing.
    pub autosave: Option<PathBuf>,
    pub file_dialog: Option<FileDialog>,
    pub tiles_editor: Option<TilesEditor>,
    pub camera_setup: Option<CameraSetup>,
    pub calibration_wizard: Option<crate::calibration_wizard::CalibrationWizard>,
    /// A one-line message: saved, opened, or what went wrong.
    pub status: Option<String>,
    /// The camera, recording or demo being watched and refereed.
    pub live: Option<LiveSession>,
    /// Where the demo game is cached; `None`: no demo is offered.
    pub demo_cache: Option<PathBuf>,
    /// Whether a camera is attached (without one, the start screen offers the demo).
    pub camera_attached: bool,
    commands: Vec<Command>,
    /// The window's context, for the live feed to ask for a repaint.
    repaint: Option<egui::Context>,
}

const UNDO: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::Z);
const REDO: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::Y);
const SAVE: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::S);
const OPEN: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::O);
const NEW: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::N);
const TEACH: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::T);

impl TablesightApp {
    /// A new app. `seed` drives the dice the app rolls; `autosave` is where the game record
    /// is kept up to date (none in tests).
    pub fn new(settings: Settings, seed: u64, autosave: Option<PathBuf>) -> Self {
        let (catalogue, status) = match &settings.catalogue_path {
            None => (TileCatalogue::arkhanos(), None),
            Some(path) => match load_catalogue(path) {
                Ok(catalogue) => (catalogue, None),
                Err(error) => (
                    TileCatalogue::arkhanos(),
                    Some(format!("{error}; using the shipped tiles")),
                ),
            },
        };
        let form = NewGameForm::new(
            &settings.players,
            &catalogue,
            read_autosave(autosave.as_deref()),
        );
        Self {
            settings,
            catalogue,
            screen: Screen::NewGame(Box::new(form)),
            rng: rules::rng_from_seed(seed),
            autosave,
            file_dialog: None,
            tiles_editor: None,
            camera_setup: None,
            calibration_wizard: None,
            status,
            live: None,
            demo_cache: None,
            camera_attached: false,
            commands: Vec::new(),
            repaint: None,
        }
    }

    /// Watches `source` and referees the game on the table through it (a saved
    /// `calibration`, else the mat's markers); refused when no game is open.
    pub fn watch(
        &mut self,
        source: Box<dyn vision::FrameSource>,
        calibration: Option<PathBuf>,
    ) -> Result<(), String> {
        let Some(game) = self.game() else {
            return Err(
                "Start or open a game first: the camera referees the game on the table.".to_owned(),
            );
        };
        let mut options = LiveOptions::new(game.session.record(), self.catalogue.clone());
        options.calibration = calibration;
        let camera = &self.settings.camera;
        options.referee.settle.frames = camera.settle_frames.max(1);
        options.referee.vote_frames = camera.vote_frames.max(1);
        options.reader.sure_value = camera.sure_value;
        // The old feed (if any) stops before the new one starts reading.
        self.live = None;
        let feed = LiveFeed::start(source, options, self.repaint.clone());
        self.live = Some(LiveSession::new(feed));
        Ok(())
    }

    /// Opens the calibration wizard on `source`: where the calibration is saved, and the
    /// camera set-up then uses it.
    pub fn calibrate(&mut self, source: Box<dyn vision::FrameSource>) -> Result<(), String> {
        let save_to = eframe::storage_dir(crate::APP_ID)
            .unwrap_or_default()
            .join("calibration.json");
        self.calibration_wizard = Some(crate::calibration_wizard::CalibrationWizard::new(
            source, save_to,
        )?);
        Ok(())
    }

    /// The calibration file the camera set-up (and the next "Watch") uses.
    pub fn use_calibration(&mut self, path: PathBuf) {
        if let Some(setup) = &mut self.camera_setup {
            setup.set_calibration(&path);
        }
        self.settings.camera.calibration = Some(path);
    }

    /// Opens `choice` in its mode and shows it to the calibration wizard.
    fn calibrate_camera(&mut self, choice: &CameraChoice) {
        // A camera opens once: the live view lets it go first.
        self.live = None;
        let request = vision::ModeRequest {
            format: Some(choice.mode.format),
            resolution: Some((choice.mode.width, choice.mode.height)),
            fps: Some(choice.mode.fps),
        };
        let opened = vision::CameraSource::open(
            choice.index,
            &request,
            vision::CameraControls::locked(),
            vision::WatchSettings::default(),
        );
        let result = opened
            .map_err(|e| format!("{} cannot be opened: {e}", choice.name))
            .and_then(|source| self.calibrate(Box::new(source)));
        if let Err(problem) = result {
            match &mut self.camera_setup {
                Some(setup) => setup.problem = Some(problem),
                None => self.status = Some(problem),
            }
        }
    }

    /// Opens `choice` in its mode and referees the game on the table through it, with the
    /// calibration and referee settings of the set-up. A camera that cannot be opened is
    /// said in the set-up window, which stays open.
    fn watch_camera(&mut self, choice: &CameraChoice) {
        let (lock_controls, calibration) = (
            self.settings.camera.lock_controls,
            self.settings.camera.calibration.clone(),
        );
        let request = vision::ModeRequest {
            format: Some(choice.mode.format),
            resolution: Some((choice.mode.width, choice.mode.height)),
            fps: Some(choice.mode.fps),
        };
        let controls = if lock_controls {
            vision::CameraControls::locked()
        } else {
            vision::CameraControls::default()
        };
        let opened = vision::CameraSource::open(
            choice.index,
            &request,
            controls,
            vision::WatchSettings::default(),
        );
        let result = opened
            .map_err(|e| format!("{} cannot be opened: {e}", choice.name))
            .and_then(|source| self.watch(Box::new(source), calibration));
        match result {
            Ok(()) => {
                self.settings.camera.camera = Some(choice.name.clone());
                self.settings.camera.mode = Some(choice.mode);
                self.camera_setup = None;
                self.status = Some(format!("Watching {}.", choice.name));
            }
            Err(problem) => match &mut self.camera_setup {
                Some(setup) => setup.problem = Some(problem),
                None => self.status = Some(problem),
            },
        }
    }

    /// Starts the demo: its game on the table, its frames through the live feed.
    fn start_demo(&mut self) {
        let Some(cache) = self.demo_cache.clone() else {
            self.status = Some("The demo needs a folder to cache its game in.".to_owned());
            return;
        };
        self.live = None;
        let demo = match crate::demo::open_demo(&cache) {
            Ok(demo) => demo,
            Err(error) => {
                self.status = Some(error);
                return;
            }
        };
        match Session::new(&demo.setup, &self.catalogue) {
            Ok(session) => {
                let mut view = GameView::new(session, None);
                view.demo = true;
                self.screen = Screen::Game(Box::new(view));
                self.status =
                    Some("The demo: a game refereed through the camera's eyes.".to_owned());
            }
            Err(error) => {
                self.status = Some(format!("The demo's set-up is refused: {error}"));
                return;
            }
        }
        if let Err(error) = self.watch(demo.source, None) {
            self.status = Some(error);
        }
        // The camera view and the mirrored table side by side need a wide window.
        if let Some(ctx) = &self.repaint
            && ctx.content_rect().width() < 1700.0
        {
            ctx.send_viewport_cmd(egui::ViewportCommand::InnerSize(egui::vec2(1720.0, 960.0)));
        }
    }

    /// Mirrors the live referee into the session: confirmed actions are played, taken-back
    /// ones undone, and its flag shown on the table.
    fn follow_live(&mut self) {
        let Some(live) = &mut self.live else {
            return;
        };
        let snapshot = live.feed.snapshot();
        let referee = &snapshot.referee;
        let flag_frame = referee.active_flag.as_ref().map(|f| f.frame);
        let new_flag = flag_frame != live.flag_shown;
        live.flag_shown = flag_frame;
        let new_record = referee.version != live.mirrored;
        live.mirrored = referee.version;
        let Screen::Game(game) = &mut self.screen else {
            return;
        };
        if new_flag {
            // The referee's flag on the table too, in the rules' words, judged as the referee
            // judged it: after its record (the table may not have followed it yet) and the
            // moves that leave no trace before it (the previous player ending the turn).
            game.flag = referee.active_flag.as_ref().and_then(|flag| {
                let action = flag.action.clone()?;
                let mut state = match &referee.record {
                    Some(record) => record.replay(&self.catalogue, |_, _, _, _| {}).ok()?,
                    None => game.session.state().clone(),
                };
                for earlier in &flag.prefix {
                    state = state.play(earlier).ok()?;
                }
                let violation = state.check(&action).err()?;
                Some(Flag { action, violation })
            });
        }
        let Some(theirs) = referee.record.as_ref().filter(|_| new_record) else {
            return;
        };
        let ours = game.session.record();
        let common = ours
            .actions
            .iter()
            .zip(&theirs.actions)
            .take_while(|(a, b)| a == b)
            .count();
        if common == ours.actions.len() {
            for (index, action) in theirs.actions.iter().enumerate().skip(common) {
                self.commands.push(Command::Refereed {
                    action: action.clone(),
                    overridden: theirs.overridden.contains(&index),
                });
            }
        } else if common == theirs.actions.len() {
            for _ in common..ours.actions.len() {
                self.commands.push(Command::Undo);
            }
        } else {
            self.commands.push(Command::FollowRecord(theirs.clone()));
        }
    }

    /// Queues a command for the end of the frame.
    pub fn command(&mut self, command: Command) {
        self.commands.push(command);
    }

    pub fn game(&self) -> Option<&GameView> {
        match &self.screen {
            Screen::Game(view) => Some(view),
            Screen::NewGame(_) => None,
        }
    }

    /// Draws one frame and applies the commands it chose.
    pub fn show(&mut self, ui: &mut Ui) {
        if self.repaint.is_none() {
            self.repaint = Some(ui.ctx().clone());
        }
        self.follow_live();
        self.shortcuts(ui);
        crate::menu::menu_ui(self, ui);
        if matches!(self.screen, Screen::NewGame(_))
            && self.demo_cache.is_some()
            && !self.camera_attached
        {
            egui::Panel::top("demo-offer").show(ui, |ui| {
                ui.horizontal(|ui| {
                    ui.label(
                        "No camera is attached. See a game refereed through the camera's eyes:",
                    );
                    if ui.button("Watch the demo").clicked() {
                        self.commands.push(Command::StartDemo);
                    }
                });
            });
        }
        match &self.screen {
            Screen::NewGame(_) => crate::new_game::new_game_screen_ui(self, ui),
            Screen::Game(_) => crate::game::game_screen_ui(self, ui),
        }
        if self.file_dialog.is_some() {
            crate::files::file_dialog_ui(self, ui.ctx());
        }
        if self.tiles_editor.is_some() {
            crate::tiles_editor::tiles_editor_ui(self, ui.ctx());
        }
        if self.camera_setup.is_some() {
            crate::camera_setup::camera_setup_ui(self, ui.ctx());
        }
        if self.calibration_wizard.is_some() {
            crate::calibration_wizard::calibration_wizard_ui(self, ui.ctx());
        }
        for command in std::mem::take(&mut self.commands) {
            self.apply(command);
        }
    }

    fn shortcuts(&mut self, ui: &Ui) {
        let pressed = |shortcut| ui.input_mut(|i| i.consume_shortcut(&shortcut));
        if pressed(UNDO) {
            self.command(Command::Undo);
        }
        if pressed(REDO) {
            self.command(Command::Redo);
        }
        if pressed(SAVE) {
            match self.game().and_then(|g| g.file.clone()) {
                Some(path) => self.command(Command::Save(path)),
                None => self.command(Command::OpenFileDialog(FilePurpose::SaveGame)),
            }
        }
        if pressed(OPEN) {
            self.command(Command::OpenFileDialog(FilePurpose::OpenGame));
        }
        if pressed(NEW) {
            self.command(Command::ShowNewGame);
        }
        if pressed(TEACH) {
            self.command(Command::SetTeachMode(!self.settings.teach_mode));
        }
        // Single keys act on the table only while no text field is being typed into.
        if ui.memory(|m| m.focused().is_some()) {
            return;
        }
        let key = |key| ui.input_mut(|i| i.consume_key(Modifiers::NONE, key));
        let Some(game) = self.game() else {
            return;
        };
        let state = game.session.state();
        let mut chosen = Vec::new();
        if key(Key::R) && state.awaiting_roll() {
            chosen.push(Command::RollRandom);
        }
        let digits = [Key::Num1, Key::Num2, Key::Num3, Key::Num4, Key::Num5];
        for (i, digit) in digits.into_iter().enumerate() {
            if key(digit)
                && let Some(&die) = state.roll().get(i)
            {
                chosen.push(Command::SelectDie(Some(die)));
            }
        }
        if key(Key::A) {
            chosen.push(Command::SelectRank(Rank::Apprentice));
        }
        if key(Key::M) {
            chosen.push(Command::SelectRank(Rank::Master));
        }
        if key(Key::E)
            && let Some(end) = state
                .legal_actions()
                .into_iter()
                .find(|a| matches!(a, Action::EndTurn { .. }))
        {
            chosen.push(Command::Play(end));
        }
        self.commands.extend(chosen);
    }

    fn apply(&mut self, command: Command) {
        match command {
            Command::Play(action) => {
                let before = self.game().map(|g| g.session.steps().len());
                self.play(action.clone(), false);
                let after = self.game().map(|g| g.session.steps().len());
                // Played by hand while watching: the referee is told (the camera missed it,
                // or the table did not show the choice).
                if let Some(live) = &self.live
                    && after > before
                {
                    live.feed.request(LiveRequest::Play(vec![action]));
                }
            }
            Command::Override => {
                let flagged = self.game_mut().and_then(|g| g.flag.take());
                if let Some(flag) = flagged {
                    match &self.live {
                        // The camera's flag: the referee plays it, and the table follows.
                        Some(live) if live.flag_shown.is_some() => {
                            live.feed.request(LiveRequest::Override);
                        }
                        _ => self.play(flag.action, true),
                    }
                }
            }
            Command::StartDemo => {
                self.settings.demo_shown = true;
                self.start_demo();
            }
            Command::OpenCameraSetup => {
                self.camera_setup = Some(CameraSetup::new(&self.settings.camera));
            }
            Command::WatchCamera(choice) => self.watch_camera(&choice),
            Command::CalibrateCamera(choice) => self.calibrate_camera(&choice),
            Command::StopLive => self.live = None,
            Command::Refereed { action, overridden } => self.mirror(&action, overridden),
            Command::FollowRecord(record) => match Session::from_record(&record, &self.catalogue) {
                Ok(session) => {
                    if let Some(game) = self.game_mut() {
                        game.session = session;
                        game.selected_die = None;
                        self.autosave_now();
                    }
                }
                Err(error) => {
                    self.status = Some(format!("The referee's record cannot be replayed: {error}"));
                }
            },
            Command::Live(request) => {
                if let Some(live) = &self.live {
                    live.feed.request(request);
                }
            }
            Command::DismissFlag => {
                if let Some(game) = self.game_mut() {
                    game.flag = None;
                }
            }
            Command::Undo => self.edit(Session::undo),
            Command::Redo => self.edit(Session::redo),
            Command::RollRandom => {
                let dice = match &self.screen {
                    Screen::Game(game) => game.session.state().draw_roll(&mut self.rng),
                    Screen::NewGame(_) => return,
                };
                self.play(Action::Roll { dice }, false);
            }
            Command::SelectDie(die) => {
                if let Some(game) = self.game_mut() {
                    game.selected_die = die;
                }
            }
            Command::SelectRank(rank) => {
                if let Some(game) = self.game_mut() {
                    game.rank = rank;
                }
            }
            Command::ShowNewGame => {
                self.live = None;
                self.show_new_game();
            }
            Command::StartGame(setup) => match Session::new(&setup, &self.catalogue) {
                Ok(session) => {
                    self.live = None;
                    self.settings.players = setup.players.clone();
                    self.screen = Screen::Game(Box::new(GameView::new(session, None)));
                    self.autosave_now();
                    self.status = None;
                }
                Err(error) => self.status = Some(error.to_string()),
            },
            Command::ResumeAutosave => {
                if let Screen::NewGame(form) = &self.screen
                    && let Some(record) = form.autosaved.clone()
                {
                    self.open_record(&record, None, "Resumed the last game.");
                }
            }
            Command::OpenFileDialog(purpose) => {
                let start = self.settings.last_file.clone();
                self.file_dialog = Some(FileDialog::new(purpose, start));
            }
            Command::Save(path) => self.save(&path),
            Command::Open(path) => self.open(&path),
            Command::OpenTilesEditor => {
                self.tiles_editor = Some(TilesEditor::new(
                    &self.catalogue,
                    self.settings.catalogue_path.clone(),
                ));
            }
            Command::UseCatalogue(catalogue, path) => {
                self.catalogue = catalogue;
                self.settings.catalogue_path = path;
                if let Screen::NewGame(_) = self.screen {
                    self.show_new_game();
                }
                self.status = Some("Tile catalogue updated.".to_owned());
            }
            Command::SetTeachMode(on) => self.settings.teach_mode = on,
        }
    }

    fn show_new_game(&mut self) {
        let autosaved = read_autosave(self.autosave.as_deref());
        let form = NewGameForm::new(&self.settings.players, &self.catalogue, autosaved);
        self.screen = Screen::NewGame(Box::new(form));
    }

    fn game_mut(&mut self) -> Option<&mut GameView> {
        match &mut self.screen {
            Screen::Game(view) => Some(view),
            Screen::NewGame(_) => None,
        }
    }

    fn play(&mut self, action: Action, overriding: bool) {
        let Some(game) = self.game_mut() else {
            return;
        };
        let played = if overriding {
            game.session.play_overriding(&action)
        } else {
            game.session.play(&action)
        };
        match played {
            Ok(()) => {
                game.flag = None;
                if matches!(action, Action::Place { .. }) {
                    game.selected_die = None;
                }
                let state = game.session.state();
                if let Some(player) = state.turn().map(|t| t.player)
                    && let Some(me) = state.player(player)
                    && !me.has_in_reserve(game.rank)
                {
                    game.rank = me.reserve_ranks().next().unwrap_or(Rank::Apprentice);
                }
                self.autosave_now();
            }
            Err(violation) => game.flag = Some(Flag { action, violation }),
        }
    }

    /// Plays an action the live referee confirmed; a session that refuses it (it went apart
    /// from the referee) takes the referee's whole record instead.
    fn mirror(&mut self, action: &Action, overridden: bool) {
        let Some(game) = self.game_mut() else {
            return;
        };
        let played = if overridden {
            game.session.play_overriding(action)
        } else {
            game.session.play(action)
        };
        match played {
            Ok(()) => {
                game.flag = None;
                game.selected_die = None;
                self.autosave_now();
            }
            Err(_) => {
                let record = self
                    .live
                    .as_ref()
                    .and_then(|live| live.feed.snapshot().referee.record.clone());
                if let Some(record) = record {
                    self.commands.push(Command::FollowRecord(record));
                }
            }
        }
    }

    fn edit(&mut self, change: fn(&mut Session) -> bool) {
        if let Some(game) = self.game_mut()
            && change(&mut game.session)
        {
            game.flag = None;
            game.selected_die = None;
            self.autosave_now();
        }
    }

    /// Writes the current record to the autosave file (atomically, via a temporary file).
    fn autosave_now(&mut self) {
        let (Some(path), Some(game)) = (self.autosave.clone(), self.game()) else {
            return;
        };
        if game.demo {
            return;
        }
        if let Err(error) = write_atomically(&path, &game.session.record().to_json()) {
            self.status = Some(format!("Could not autosave to {}: {error}", path.display()));
        }
    }

    fn save(&mut self, path: &Path) {
        let Some(game) = self.game_mut() else {
            return;
        };
        let json = game.session.record().to_json();
        match write_atomically(path, &json) {
            Ok(()) => {
                game.file = Some(path.to_owned());
                self.settings.last_file = Some(path.to_owned());
                self.status = Some(format!("Saved {}.", file_name(path)));
            }
            Err(error) => self.status = Some(format!("Could not save {}: {error}", path.display())),
        }
    }

    fn open(&mut self, path: &Path) {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(error) => {
                self.status = Some(format!("Could not open {}: {error}", file_name(path)));
                return;
            }
        };
        match GameRecord::from_json(&text) {
            Ok(record) => {
                let message = format!("Opened {}.", file_name(path));
                self.open_record(&record, Some(path.to_owned()), &message);
            }
            Err(error) => {
                self.status = Some(format!("{} is not a game record: {error}", file_name(path)));
            }
        }
    }

    fn open_record(&mut self, record: &GameRecord, file: Option<PathBuf>, message: &str) {
        match Session::from_record(record, &self.catalogue) {
            Ok(session) => {
                if let Some(path) = &file {
                    self.settings.last_file = Some(path.clone());
                }
                self.live = None;
                self.screen = Screen::Game(Box::new(GameView::new(session, file)));
                self.status = Some(message.to_owned());
                self.autosave_now();
            }
            Err(error) => self.status = Some(format!("The game cannot be replayed: {error}")),
        }
    }
}

impl GameView {
    fn new(session: Session, file: Option<PathBuf>) -> Self {
        Self {
            session,
            selected_die: None,
            rank: Rank::Apprentice,
            flag: None,
            file,
            demo: false,
        }
    }
}

/// The game saved automatically, if there is one that can be read.
fn read_autosave(path: Option<&Path>) -> Option<GameRecord> {
    let text = std::fs::read_to_string(path?).ok()?;
    GameRecord::from_json(&text).ok()
}

/// The name of a file without its folders, for messages.
fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |name| name.to_string_lossy().into_owned(),
    )
}

fn load_catalogue(path: &Path) -> Result<TileCatalogue, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("Could not read {}: {e}", path.display()))?;
    TileCatalogue::from_json(&text)
        .map_err(|e| format!("{} is not a tile catalogue: {e}", path.display()))
}

/// Writes `text` to `path` through a temporary file and a rename, so a crash mid-write never
/// leaves a half-written file.
pub fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent()
        && !dir.as_os_str().is_empty()
    {
        std::fs::create_dir_all(dir)?;
    }
    let temporary = path.with_extension("json.partial");
    std::fs::write(&temporary, text)?;
    std::fs::rename(&temporary, path)
}

impl eframe::App for TablesightApp {
    fn ui(&mut self, ui: &mut Ui, _frame: &mut eframe::Frame) {
        self.show(ui);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, eframe::APP_KEY, &self.settings);
    }
}
