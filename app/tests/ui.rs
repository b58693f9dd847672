//! The main flows of the window, driven by their labels as a user would click them, with
//! image snapshots of the main screens under `tests/snapshots/`.

// A test that cannot find its widget should fail loudly; helpers unwrap like tests do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use egui::accesskit::Role;
use egui::{Key, Modifiers, Vec2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use rules::{PlayerColor, ScoreReason};
use tablesight::app::Screen;
use tablesight::{Settings, TablesightApp};

fn harness() -> Harness<'static, TablesightApp> {
    let app = TablesightApp::new(Settings::default(), 7, None);
    let mut harness = Harness::builder()
        .with_size(Vec2::new(1400.0, 900.0))
        .build_ui_state(|ui, app: &mut TablesightApp| app.show(ui), app);
    harness.run();
    harness
}

fn click(harness: &mut Harness<'static, TablesightApp>, label: &str) {
    harness.get_by_label(label).click();
    harness.run();
}

fn log_contains(harness: &Harness<'static, TablesightApp>, text: &str) -> bool {
    harness.query_all_by_label_contains(text).next().is_some()
}

/// Starts the default game: Red, Green, Blue; Red first; tower A takes yellow 1-2.
fn start(harness: &mut Harness<'static, TablesightApp>) {
    click(harness, "Start the game");
}

fn enter_roll(harness: &mut Harness<'static, TablesightApp>, dice: &str) {
    let entry = harness.get_by_role(Role::TextInput);
    entry.focus();
    harness.run();
    harness.get_by_role(Role::TextInput).type_text(dice);
    harness.run();
    click(harness, "Enter roll");
}

fn prestige(harness: &Harness<'static, TablesightApp>, player: PlayerColor) -> u32 {
    let game = harness.state().game().unwrap();
    game.session.state().player(player).unwrap().prestige
}

fn place(harness: &mut Harness<'static, TablesightApp>, die: &str, pillar: &str) {
    click(harness, die);
    click(harness, pillar);
}

#[test]
fn a_new_game_starts_with_the_chosen_players() {
    let mut harness = harness();
    harness.snapshot("new_game");
    start(&mut harness);
    assert!(
        harness
            .query_by_label_contains("Round 1 of 9: Red draws 4 dice")
            .is_some()
    );
    let game = harness.state().game().unwrap();
    let players: Vec<PlayerColor> = game
        .session
        .state()
        .players()
        .iter()
        .map(|p| p.color)
        .collect();
    assert_eq!(
        players,
        [PlayerColor::Red, PlayerColor::Green, PlayerColor::Blue]
    );
}

#[test]
fn a_legal_placement_takes_its_bonus() {
    let mut harness = harness();
    start(&mut harness);
    enter_roll(&mut harness, "yellow1 yellow2 pink3 blue4");
    assert!(log_contains(
        &harness,
        "Round 1: Red rolls yellow 1, yellow 2, pink 3, blue 4."
    ));
    place(&mut harness, "yellow 1", "tower A pillar 1: empty");
    assert!(log_contains(
        &harness,
        "Red places the yellow 1 with an apprentice on pillar 1 of tower A"
    ));
    assert!(log_contains(
        &harness,
        "Red +2: +2 prestige bonus of pillar 1 of tower A (level 1)"
    ));
    assert_eq!(prestige(&harness, PlayerColor::Red), 2);
    harness.snapshot("placed_with_bonus");
}

#[test]
fn an_illegal_placement_is_flagged_and_can_be_overridden() {
    let mut harness = harness();
    start(&mut harness);
    enter_roll(&mut harness, "yellow1 yellow2 pink3 blue4");
    place(&mut harness, "pink 3", "tower A pillar 2: empty");
    assert!(log_contains(
        &harness,
        "Not allowed: The pink 3 cannot go on tower A: its floor only takes yellow dice showing 1 or 2, and pink is not one of its colours."
    ));
    assert!(log_contains(
        &harness,
        "Rule: On an outer tower the die must satisfy the top tile's restriction"
    ));
    let game = harness.state().game().unwrap();
    assert!(
        game.session
            .state()
            .tower(rules::TowerId::A)
            .pillars
            .iter()
            .all(Option::is_none)
    );
    // The flag floats over the bottom of the table, clear of tower A's card.
    let allow = harness.get_by_label("Allow anyway").rect();
    let pillar = harness.get_by_label_contains("tower A pillar 2").rect();
    assert!(allow.top() > pillar.bottom(), "{allow:?} over {pillar:?}");
    harness.snapshot("illegal_flagged");
    click(&mut harness, "Allow anyway");
    assert!(log_contains(
        &harness,
        "Allowed by the table against the rules: The pink 3 cannot go on tower A"
    ));
    let record = harness.state().game().unwrap().session.record();
    assert_eq!(record.overridden.iter().copied().collect::<Vec<_>>(), [1]);
}

#[test]
fn a_completed_floor_is_scored_and_undo_takes_it_back() {
    let mut harness = harness();
    start(&mut harness);
    enter_roll(&mut harness, "yellow1 yellow2 pink3 blue4");
    place(&mut harness, "yellow 1", "central tower pillar 1: empty");
    click(&mut harness, "Decline the bonus");
    click(&mut harness, "End Red's turn");
    place(&mut harness, "yellow 2", "central tower pillar 2: empty");
    click(&mut harness, "Decline the bonus");
    click(&mut harness, "End Green's turn");
    harness.get_by_label("Master (1)").click();
    harness.run();
    place(&mut harness, "pink 3", "central tower pillar 3: empty");
    click(&mut harness, "Decline the bonus");
    assert!(log_contains(
        &harness,
        "Floor 1 of the central tower is complete and scored."
    ));
    assert!(log_contains(
        &harness,
        "Blue +3: first with influence 2 on completed floor 1 of the central tower"
    ));
    assert_eq!(prestige(&harness, PlayerColor::Blue), 3);
    let floors = |h: &Harness<'static, TablesightApp>| {
        h.state()
            .game()
            .unwrap()
            .session
            .state()
            .ledger()
            .iter()
            .filter(|e| matches!(e.reason, ScoreReason::Floor { .. }))
            .count()
    };
    assert_eq!(floors(&harness), 3);
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run();
    assert_eq!(
        floors(&harness),
        0,
        "undo takes back the bonus choice that scored the floor"
    );
    assert_eq!(prestige(&harness, PlayerColor::Blue), 0);
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Y);
    harness.run();
    assert_eq!(floors(&harness), 3);
}

/// A file in a folder of this test run, under a stable name (the name shows in snapshots).
fn temporary(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tablesight-ui-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn a_saved_game_opens_to_the_same_table() {
    let mut harness = harness();
    start(&mut harness);
    enter_roll(&mut harness, "yellow1 yellow2 pink3 blue4");
    place(&mut harness, "yellow 2", "tower A pillar 3: empty");
    let path = temporary("saved.json");
    harness.state_mut().settings.last_file = Some(path.clone());
    click(&mut harness, "Game");
    click(&mut harness, "Save as…  (Ctrl+S)");
    click(&mut harness, "Save");
    assert!(log_contains(&harness, "Saved"));
    let saved = harness.state().game().unwrap().session.state().clone();

    let mut other = self::harness();
    other.state_mut().settings.last_file = Some(path.clone());
    click(&mut other, "Game");
    click(&mut other, "Open…  (Ctrl+O)");
    click(&mut other, "Open");
    assert_eq!(other.state().game().unwrap().session.state(), &saved);
    assert!(
        other
            .query_by_label_contains("Extra meeple from tower A")
            .is_some()
    );
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_broken_file_is_reported_and_the_game_is_kept() {
    let mut harness = harness();
    start(&mut harness);
    let path = temporary("broken.json");
    std::fs::write(
        &path,
        "{\"format\": \"tablesight-game\", \"version\": 1, \"setup\": ",
    )
    .unwrap();
    harness.state_mut().settings.last_file = Some(path.clone());
    click(&mut harness, "Game");
    click(&mut harness, "Open…  (Ctrl+O)");
    click(&mut harness, "Open");
    assert!(
        harness
            .query_by_label_contains("is not a game record")
            .is_some()
    );
    assert!(
        harness.state().game().is_some(),
        "the current game is still on the table"
    );
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn the_end_of_a_game_shows_the_tally_and_the_winner() {
    let mut harness = harness();
    let fixture =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/game-3p-seed161.json");
    harness.state_mut().settings.last_file = Some(fixture);
    click(&mut harness, "Game");
    click(&mut harness, "Open…  (Ctrl+O)");
    click(&mut harness, "Open");
    assert!(matches!(harness.state().screen, Screen::Game(_)));
    assert!(log_contains(
        &harness,
        "The game is over. Winner: Blue (tie on prestige broken by most meeples on the spellbook)."
    ));
    assert!(harness.query_by_label("End-of-game tally").is_some());
    assert!(log_contains(
        &harness,
        "Blue +3: first with influence 2 on the unfinished floor 1 of tower A"
    ));
    harness.snapshot("end_of_game");
}

#[test]
fn teach_mode_lights_the_legal_pillars_of_the_selected_die() {
    let mut harness = harness();
    start(&mut harness);
    enter_roll(&mut harness, "blue5 yellow2 pink3 blue4");
    click(&mut harness, "blue 5");
    // Tower A takes yellow 1-2, B purple 2-4-6, C yellow: the blue 5 goes on the central tower only.
    harness.snapshot("teach_mode");
    let game = harness.state().game().unwrap();
    let legal: Vec<_> = game
        .session
        .state()
        .legal_actions()
        .into_iter()
        .filter_map(|a| match a {
            rules::Action::Place { die, tower, .. } if die.to_string() == "blue 5" => Some(tower),
            _ => None,
        })
        .collect();
    assert!(legal.iter().all(|t| *t == rules::TowerId::Central));
}

/// The README's screenshot: a real game (the 3-player fixture) stopped halfway.
#[test]
fn a_game_in_progress() {
    let fixture =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/game-3p-seed161.json");
    let mut record =
        rules::GameRecord::from_json(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    record.actions.truncate(52);
    let path = temporary("mid-game.json");
    std::fs::write(&path, record.to_json()).unwrap();
    let mut harness = harness();
    harness.state_mut().settings.last_file = Some(path.clone());
    click(&mut harness, "Game");
    click(&mut harness, "Open…  (Ctrl+O)");
    click(&mut harness, "Open");
    let state = harness.state().game().unwrap().session.state().clone();
    assert_eq!(state.round(), 6);
    harness.snapshot("mid_game");
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn the_tile_catalogue_is_edited_in_the_app() {
    let mut harness = harness();
    click(&mut harness, "Tiles");
    click(&mut harness, "Edit the tile catalogue…");
    let path = temporary("my-tiles.json");
    harness.state_mut().tiles_editor.as_mut().unwrap().path = path.display().to_string();
    harness
        .get_by_label("Yellow 1-2 (starting)")
        .click_accesskit();
    harness.run();
    // The window's grid settles over its first frames: click through AccessKit, which
    // targets the checkbox itself rather than a screen position.
    harness.get_by_label("3").click_accesskit();
    harness.run();
    harness
        .get_by_label("Save and use these tiles")
        .click_accesskit();
    harness.run();
    let tile = harness
        .state()
        .catalogue
        .get("start-yellow-1-2")
        .unwrap()
        .clone();
    assert_eq!(
        tile.restriction.to_string(),
        "yellow dice showing 1, 2 or 3"
    );
    assert_eq!(
        harness.state().settings.catalogue_path.as_deref(),
        Some(path.as_path())
    );
    let saved = rules::TileCatalogue::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        saved.get("start-yellow-1-2").unwrap().restriction,
        tile.restriction
    );
    start(&mut harness);
    enter_roll(&mut harness, "yellow3 yellow2 pink3 blue4");
    place(&mut harness, "yellow 3", "tower A pillar 1: empty");
    assert!(log_contains(
        &harness,
        "Red places the yellow 3 with an apprentice on pillar 1 of tower A"
    ));
}

#[test]
fn single_keys_pick_a_die_and_end_the_turn() {
    let mut harness = harness();
    start(&mut harness);
    enter_roll(&mut harness, "yellow1 yellow2 pink3 blue4");
    // The roll entry had the focus; a click on the table takes it away.
    click(&mut harness, "tower B pillar 1: empty");
    harness.key_press(Key::Num4);
    harness.run();
    assert_eq!(
        harness
            .state()
            .game()
            .unwrap()
            .selected_die
            .map(|d| d.to_string())
            .as_deref(),
        Some("blue 4")
    );
    click(&mut harness, "central tower pillar 1: empty");
    click(&mut harness, "Decline the bonus");
    harness.key_press(Key::E);
    harness.run();
    let state = harness.state().game().unwrap().session.state().clone();
    assert_eq!(state.turn().map(|t| t.player), Some(PlayerColor::Green));
}

#[test]
fn every_change_is_autosaved_and_the_game_can_be_resumed() {
    let autosave = temporary("autosave-game.json");
    let app = TablesightApp::new(Settings::default(), 7, Some(autosave.clone()));
    let mut harness = Harness::builder()
        .with_size(Vec2::new(1400.0, 900.0))
        .build_ui_state(|ui, app: &mut TablesightApp| app.show(ui), app);
    harness.run();
    start(&mut harness);
    enter_roll(&mut harness, "yellow1 yellow2 pink3 blue4");
    place(&mut harness, "yellow 1", "tower A pillar 1: empty");
    let saved = rules::GameRecord::from_json(&std::fs::read_to_string(&autosave).unwrap()).unwrap();
    assert_eq!(
        saved.actions.len(),
        2,
        "the roll and the placement are on disk"
    );
    let table = harness.state().game().unwrap().session.state().clone();
    drop(harness);

    // A new window (after a crash, say) offers the saved game.
    let app = TablesightApp::new(Settings::default(), 8, Some(autosave.clone()));
    let mut harness = Harness::builder()
        .with_size(Vec2::new(1400.0, 900.0))
        .build_ui_state(|ui, app: &mut TablesightApp| app.show(ui), app);
    harness.run();
    assert!(log_contains(
        &harness,
        "A game of 2 actions was saved automatically."
    ));
    click(&mut harness, "Resume the last game");
    assert_eq!(harness.state().game().unwrap().session.state(), &table);
    std::fs::remove_file(&autosave).unwrap();
}
