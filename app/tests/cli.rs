//! The headless subcommands, run as a user runs them: the real binary on real files.

// A test that cannot read its fixtures should fail loudly; helpers unwrap like tests do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(name)
}

fn tablesight(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tablesight"))
        .args(args)
        .output()
        .unwrap()
}

fn run(args: &[&str]) -> (i32, String, String) {
    let output = tablesight(args);
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

fn path(name: &str) -> String {
    fixture(name).to_string_lossy().into_owned()
}

#[test]
fn score_json_of_the_issue_example() {
    let (code, stdout, stderr) = run(&["score", "--json", &path("snapshot-issue-example.json")]);
    assert_eq!(code, 0, "{stderr}");
    let score: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        score["totals"],
        serde_json::json!({"red": 25, "green": 21, "blue": 20})
    );
    assert_eq!(score["winners"], serde_json::json!(["red"]));
    assert_eq!(score["decided_by"], "prestige");
}

#[test]
fn score_prints_the_breakdown() {
    let (code, stdout, _) = run(&["score", &path("snapshot-issue-example.json")]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("Green +3: first with influence 2 on the unfinished floor 3 of tower A")
    );
    assert!(stdout.contains("Red +2: 2 meeples on the spellbook"));
    assert!(stdout.contains("Winner: Red (most prestige)"));
}

#[test]
fn an_unknown_colour_names_line_column_and_path() {
    let (code, stdout, stderr) = run(&["score", &path("bad/snapshot-orange-die.json")]);
    assert_eq!(code, 1);
    assert!(stdout.is_empty());
    assert!(
        stderr.contains("line 5, column 41, at towers[0].top[0].die.color"),
        "{stderr}"
    );
    assert!(stderr.contains("unknown variant `orange`"), "{stderr}");
}

#[test]
fn check_lists_every_problem_of_a_snapshot() {
    let (code, _, stderr) = run(&["check", &path("bad/snapshot-many-problems.json")]);
    assert_eq!(code, 1);
    for expected in [
        "players[2]: Red is listed twice",
        "towers[1].top[0]: the blue 3 stands without a meeple",
        "towers[2].top: a floor has 3 pillars, the file lists 2",
        "spellbooks.yellow: space 3 is listed twice",
        "Red has 2 masters on the towers",
        "11 yellow dice are on the table",
    ] {
        assert!(
            stderr.contains(expected),
            "missing {expected:?} in:\n{stderr}"
        );
    }
}

#[test]
fn check_lists_every_problem_of_a_setup() {
    let (code, _, stderr) = run(&["check", &path("bad/record-bad-setup.json")]);
    assert_eq!(code, 1);
    for expected in [
        "setup.players: a game has 2 to 4 players, the set-up lists 5",
        "setup.players[4]: Red is listed twice",
        "setup.towers.b: no tile \"no-such-tile\" in the tile catalogue",
        "the tile \"blue-odd\" is used twice",
        "setup: the tile \"colourless\": the restriction allows no colour",
    ] {
        assert!(
            stderr.contains(expected),
            "missing {expected:?} in:\n{stderr}"
        );
    }
}

#[test]
fn replay_matches_the_golden_transcript() {
    let (code, stdout, stderr) = run(&["replay", &path("game-3p-seed161.json")]);
    assert_eq!(code, 0, "{stderr}");
    let golden = fixture("game-3p-seed161.replay.txt");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &stdout).unwrap();
    }
    let expected = std::fs::read_to_string(&golden).unwrap();
    assert!(
        stdout == expected,
        "the replay differs from {}; if the change is intended, rerun with UPDATE_GOLDEN=1",
        golden.display()
    );
    assert!(
        stdout.contains("Winner: Blue (tie on prestige broken by most meeples on the spellbook)")
    );
}

#[test]
fn replay_stops_at_an_illegal_action_with_its_explanation() {
    let (code, stdout, stderr) = run(&["replay", &path("bad/record-pillar-taken.json")]);
    assert_eq!(code, 1);
    assert!(stdout.contains("[3] blue end"), "{stdout}");
    assert!(!stdout.contains("[4]"), "{stdout}");
    assert!(
        stderr.contains("actions[4] (Red places the pink 6 with an apprentice on pillar 1 of the central tower) is illegal: Pillar 1 of the central tower is already taken by the yellow 2 with Blue's master."),
        "{stderr}"
    );
}

#[test]
fn a_die_on_a_finished_tower_is_refused() {
    let (code, _, stderr) = run(&["check", &path("bad/record-die-on-finished-tower.json")]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("actions[9]")
            && stderr.contains("Tower A is finished: the floor stack ran out"),
        "{stderr}"
    );
}

#[test]
fn broken_json_and_missing_files_are_errors_not_panics() {
    let (code, _, stderr) = run(&["check", &path("bad/truncated.json")]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("is not valid JSON: EOF while parsing a list at line 3"),
        "{stderr}"
    );
    let (code, _, stderr) = run(&["score", "/nonexistent/table.json"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("cannot read /nonexistent/table.json"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"));
}

#[test]
fn simulated_games_check_and_replay_for_every_player_count() {
    let dir = std::env::temp_dir().join(format!("tablesight-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (players, seed) in [
        ("red,green", "11"),
        ("red,green,blue", "12"),
        ("blue,green,red,yellow", "13"),
    ] {
        let file = dir.join(format!("game-{seed}.json"));
        let file = file.to_string_lossy();
        let (code, _, stderr) = run(&[
            "simulate",
            "--players",
            players,
            "--seed",
            seed,
            "--out",
            &file,
        ]);
        assert_eq!(code, 0, "{stderr}");
        let (code, stdout, stderr) = run(&["check", &file]);
        assert_eq!(code, 0, "{stderr}");
        assert!(stdout.contains("(finished)"), "{stdout}");
        let (code, stdout, _) = run(&["replay", "--json", &file]);
        assert_eq!(code, 0);
        let replay: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(replay["over"], true);
        assert_eq!(replay["prestige"], replay["final_score"]["totals"]);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn records_name_tiles_from_the_catalogue_given_with_tiles() {
    let (code, stdout, _) = run(&["tiles"]);
    assert_eq!(code, 0);
    let file = std::env::temp_dir().join(format!("tablesight-tiles-{}.json", std::process::id()));
    let record = path("bad/record-die-on-finished-tower.json");
    std::fs::write(&file, &stdout).unwrap();
    let (code, _, stderr) = run(&["replay", "--tiles", &file.to_string_lossy(), &record]);
    assert_eq!(code, 1);
    assert!(stderr.contains("Tower A is finished"), "{stderr}");
    let edited = stdout.replace("\"start-purple-even\"", "\"start-purple-renamed\"");
    std::fs::write(&file, edited).unwrap();
    let (code, _, stderr) = run(&["replay", "--tiles", &file.to_string_lossy(), &record]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("setup.towers.b: no tile \"start-purple-even\" in the tile catalogue"),
        "{stderr}"
    );
    std::fs::remove_file(&file).unwrap();
}

#[test]
fn without_a_display_the_window_says_so_and_points_to_the_commands() {
    let output = Command::new(env!("CARGO_BIN_EXE_tablesight"))
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr.contains("Tablesight needs a display to open its window"),
        "{stderr}"
    );
    assert!(stderr.contains("tablesight score FILE"), "{stderr}");
    assert!(!stderr.contains("panicked"));
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tablesight-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_printed_mat_carries_every_marker_at_its_true_size() {
    let dir = temp_dir("mat-png");
    let out = dir.join("mat.png");
    let dpi: f64 = 100.0;
    let (code, stdout, stderr) = run(&[
        "mat",
        "--paper",
        "a2",
        "--dpi",
        "100",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("on one A2 sheet"), "{stdout}");
    // The PNG goes through the same reader and detector as a camera frame.
    let frame = vision::read_gray(&out).unwrap();
    let px_per_mm = dpi / 25.4;
    assert_eq!(frame.width, (594.0 * px_per_mm).round() as usize);
    let layout = calibration::MatLayout::a2();
    let mut detector =
        calibration::MarkerDetector::new(&layout, frame.width, frame.height).unwrap();
    let detections = detector.detect(&frame).unwrap();
    let mut ids: Vec<u32> = detections.iter().map(|d| d.id).collect();
    ids.sort_unstable();
    assert_eq!(ids, (0..12).collect::<Vec<_>>());
    for d in &detections {
        for (corner, pixel) in layout
            .marker(d.id)
            .unwrap()
            .corners()
            .iter()
            .zip(d.corners_px)
        {
            // Detections put pixel centres at whole numbers, the PNG its pixel edges.
            let expected_x = corner.x_mm * px_per_mm - 0.5;
            let expected_y = corner.y_mm * px_per_mm - 0.5;
            assert!(
                (pixel.x - expected_x).abs() < 0.75 && (pixel.y - expected_y).abs() < 0.75,
                "marker {} corner at ({:.1}, {:.1}) px, printed at ({expected_x:.1}, {expected_y:.1})",
                d.id,
                pixel.x,
                pixel.y
            );
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_mat_tiles_onto_a4_sheets_in_one_pdf_or_several_svgs() {
    let dir = temp_dir("mat-tiles");
    let pdf = dir.join("mat.pdf");
    let (code, stdout, stderr) = run(&["mat", "--out", pdf.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("8 A4 sheets, portrait (2 rows of 4)"),
        "{stdout}"
    );
    let bytes = std::fs::read(&pdf).unwrap();
    assert!(bytes.starts_with(b"%PDF-"));
    let pages = bytes.windows(9).filter(|w| w == b"/MediaBox").count();
    assert_eq!(pages, 8);

    let svg = dir.join("mat.svg");
    let (code, stdout, _) = run(&["mat", "--paper", "letter", "--out", svg.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(stdout.contains("mat-8.svg"), "{stdout}");
    let sheet = std::fs::read_to_string(dir.join("mat-1.svg")).unwrap();
    assert!(sheet.contains(r#"width="215.9mm" height="279.4mm""#));

    let (code, _, stderr) = run(&["mat", "--paper", "b5", "--out", svg.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(stderr.contains("unknown paper \"b5\""), "{stderr}");
    let (code, _, stderr) = run(&["mat", "--out", dir.join("mat.doc").to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(stderr.contains("name it .pdf, .png or .svg"), "{stderr}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn calibrate_finds_the_mat_in_a_photo() {
    let (code, stdout, stderr) = run(&["calibrate", &path("mat-view-front.jpg")]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("Markers found: 12 of 12"), "{stdout}");
    assert!(stdout.contains("Reprojection error: median"), "{stdout}");
    assert!(stdout.contains("tower-a"), "{stdout}");
}

#[test]
fn calibrate_json_with_a_second_view_recovers_the_camera() {
    let (code, stdout, stderr) = run(&[
        "calibrate",
        "--json",
        &path("mat-view-front.jpg"),
        "--view",
        &path("mat-view-left.jpg"),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    // The fixture's camera (calibration/examples/render_view.rs): 650 mm above the point
    // (297, 560) of the mat, focal length 900 px, k1 -0.08.
    let position: Vec<f64> = serde_json::from_value(report["camera_position_mm"].clone()).unwrap();
    let expected = [297.0, 560.0, 650.0];
    for (found, expected) in position.iter().zip(expected) {
        assert!((found - expected).abs() < 8.0, "{position:?}");
    }
    let fx = report["intrinsics"]["fx_px"].as_f64().unwrap();
    assert!((fx - 900.0).abs() < 10.0, "{fx}");
    assert!(report["reprojection_median_px"].as_f64().unwrap() < 0.5);
    assert_eq!(report["markers"].as_array().unwrap().len(), 12);
    let zones = report["zones"].as_array().unwrap();
    let tower = zones.iter().find(|z| z["name"] == "tower-a").unwrap();
    assert_eq!(tower["floors_px"].as_array().unwrap().len(), 5);
}

/// `calibrate --save DIR/calibration.json` on the front view of the mat: its path.
fn saved_calibration(dir: &Path) -> PathBuf {
    let saved = dir.join("calibration.json");
    let (code, _, stderr) = run(&[
        "calibrate",
        &path("mat-view-front.jpg"),
        "--save",
        saved.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    saved
}

/// A lens given with --intrinsics that the markers cannot fit is reported, and no
/// calibration is saved from it.
#[test]
fn a_lens_that_does_not_fit_the_markers_is_not_saved() {
    let dir = temp_dir("calibration-lens");
    let saved = saved_calibration(&dir);
    let mut lens: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    lens["intrinsics"]["k1"] = serde_json::json!(3.0);
    let bent = dir.join("bent.json");
    std::fs::write(&bent, lens.to_string()).unwrap();
    let out = dir.join("out.json");
    let (code, _, stderr) = run(&[
        "calibrate",
        &path("mat-view-front.jpg"),
        "--intrinsics",
        bent.to_str().unwrap(),
        "--save",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("the markers fit a camera badly"),
        "{stderr}"
    );
    assert!(!out.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_saved_calibration_is_checked_against_new_photos() {
    let dir = temp_dir("calibration-file");
    let saved = saved_calibration(&dir);
    let (code, stdout, _) = run(&[
        "calibrate",
        &path("mat-view-front.jpg"),
        "--check",
        saved.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    assert!(stdout.contains("fits"), "{stdout}");
    let (code, _, stderr) = run(&[
        "calibrate",
        &path("mat-view-left.jpg"),
        "--check",
        saved.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(stderr.contains("the camera or the mat moved"), "{stderr}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn calibrate_explains_a_corrupt_photo_and_a_photo_without_the_mat() {
    let dir = temp_dir("bad-photos");
    let corrupt = dir.join("corrupt.jpg");
    std::fs::write(&corrupt, b"\xff\xd8\xff\xe0 not a real jpeg").unwrap();
    let (code, _, stderr) = run(&["calibrate", corrupt.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(stderr.contains("cannot read the image"), "{stderr}");
    let blank = dir.join("blank.png");
    image::GrayImage::from_pixel(640, 480, image::Luma([200]))
        .save(&blank)
        .unwrap();
    let (code, _, stderr) = run(&["calibrate", blank.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(stderr.contains("found 0 marker(s) of the mat"), "{stderr}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn detect_reads_a_real_photo_as_json() {
    let photo = path("reader/real/images/IMG_20191209_100225.jpg");
    let (code, stdout, stderr) = run(&["detect", "--json", &photo]);
    assert_eq!(code, 0, "{stderr}");
    let reading: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        (reading["width"].as_u64(), reading["height"].as_u64()),
        (Some(640), Some(640))
    );
    let dice = reading["dice"].as_array().unwrap();
    // Six small translucent dice of the held-out block b08.
    assert!((5..=7).contains(&dice.len()), "{stdout}");
    for die in dice {
        assert!((1..=6).contains(&die["value"].as_u64().unwrap()));
        let b: Vec<f64> = die["box"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        assert!(
            b[0] < b[2] && b[1] < b[3] && b[0] >= -20.0 && b[3] <= 660.0,
            "{b:?}"
        );
        assert!((0.0..=1.0).contains(&die["confidence"].as_f64().unwrap()));
        // The probability of each value, the value read the likeliest.
        let p: Vec<f64> = (die["value_probabilities"].as_array().unwrap().iter())
            .map(|v| v.as_f64().unwrap())
            .collect();
        assert!(
            p.len() == 6 && (p.iter().sum::<f64>() - 1.0).abs() < 1e-3,
            "{p:?}"
        );
        let value = die["value"].as_u64().unwrap() as usize;
        assert!(p.iter().all(|&q| q <= p[value - 1]), "{p:?}");
    }
}

#[test]
fn detect_summarises_and_annotates() {
    let out = std::env::temp_dir().join(format!("tablesight-annotated-{}.png", std::process::id()));
    let frame = path("reader/scene-720p-0.jpg");
    let (code, stdout, stderr) = run(&["detect", &frame, "--annotate", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("1280x720"), "{stdout}");
    assert!(
        stdout.contains("  die  ") && stdout.contains("  meeple  "),
        "{stdout}"
    );
    let annotated = image::open(&out).unwrap();
    std::fs::remove_file(&out).unwrap();
    assert_eq!((annotated.width(), annotated.height()), (1280, 720));
}

#[test]
fn models_are_taken_from_a_folder_and_the_shipped_ones_stand_in_for_those_it_lacks() {
    let photo = path("reader/real/images/IMG_20191209_100225.jpg");
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models");
    let dir = temp_dir("models");
    let models_arg = dir.to_str().unwrap();
    let dice = |stdout: &str| {
        let reading: serde_json::Value = serde_json::from_str(stdout).unwrap();
        reading["dice"].clone()
    };
    let (code, shipped, stderr) = run(&["detect", "--json", &photo]);
    assert_eq!(code, 0, "{stderr}");

    // A folder with nothing to use.
    let (code, _, stderr) = run(&["detect", &photo, "--models", models_arg]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("neither finder.onnx nor reader.onnx"),
        "{stderr}"
    );

    // A reader's run leaves a reader alone: the shipped finder finds, it reads.
    std::fs::copy(models.join("reader.onnx"), dir.join("reader.onnx")).unwrap();
    let (code, stdout, stderr) = run(&["detect", "--json", &photo, "--models", models_arg]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(dice(&stdout), dice(&shipped));

    // The folder's file is the one read: a finder where the reader belongs is refused.
    std::fs::copy(models.join("finder.onnx"), dir.join("reader.onnx")).unwrap();
    let (code, _, stderr) = run(&["detect", &photo, "--models", models_arg]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(code, 1);
    assert!(
        stderr.contains(&format!("{models_arg}/reader.onnx")),
        "{stderr}"
    );
}

#[test]
fn detect_with_a_calibration_names_each_items_place() {
    let frame = path("reader/scene-720p-1.jpg");
    let calibration = path("reader/calibration-720p-1.json");
    let (code, stdout, stderr) = run(&["detect", "--json", &frame, "--calibration", &calibration]);
    assert_eq!(code, 0, "{stderr}");
    let reading: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let zones = |items: &str| -> Vec<String> {
        reading[items]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|item| item["place"]["zone"].as_str().map(str::to_owned))
            .collect()
    };
    // The scene holds 3 dice in the roll area and 6 in the mana pool, meeples on spell
    // slots, towers and in reserves (its labels).
    let dice = zones("dice");
    let count = |zone: &str| dice.iter().filter(|z| *z == zone).count();
    assert!((2..=4).contains(&count("roll_area")), "{stdout}");
    assert!((4..=7).contains(&count("mana_pool")), "{stdout}");
    let meeples = zones("meeples");
    assert!(
        meeples.iter().any(|z| z == "spellbook") && meeples.iter().any(|z| z == "tower"),
        "{stdout}"
    );

    // A calibration made for frames of another size is refused.
    let (code, _, stderr) = run(&[
        "detect",
        &path("reader/real/images/valid_17.jpg"),
        "--calibration",
        &calibration,
    ]);
    assert_eq!(code, 1);
    assert!(stderr.contains("was made for 1280x720 frames"), "{stderr}");

    // So is one made for another mat, and one whose lens no camera has.
    let dir = temp_dir("calibration-refused");
    let text = std::fs::read_to_string(&calibration).unwrap();
    for (name, changed, says) in [
        (
            "other-mat.json",
            text.replacen("\"A2 play mat", "\"Another play mat", 1),
            "was made for the mat \"Another play mat",
        ),
        (
            "no-lens.json",
            text.replacen("\"fx_px\": ", "\"fx_px\": -", 1),
            "focal length",
        ),
    ] {
        assert_ne!(changed, text, "{name}");
        let bad = dir.join(name);
        std::fs::write(&bad, changed).unwrap();
        let (code, _, stderr) = run(&["detect", &frame, "--calibration", bad.to_str().unwrap()]);
        assert_eq!(code, 1, "{name}: {stderr}");
        assert!(stderr.contains(says), "{name}: {stderr}");
    }
}

#[test]
fn detect_refuses_an_unreadable_image() {
    let corrupt =
        std::env::temp_dir().join(format!("tablesight-corrupt-{}.jpg", std::process::id()));
    std::fs::write(&corrupt, b"\xff\xd8\xff\xe0 not a jpeg").unwrap();
    let (code, stdout, stderr) = run(&["detect", corrupt.to_str().unwrap()]);
    std::fs::remove_file(&corrupt).unwrap();
    assert_eq!(code, 1);
    assert!(stdout.is_empty());
    assert!(
        stderr.contains("cannot read the image") && stderr.contains("tablesight-corrupt"),
        "{stderr}"
    );
}

#[test]
fn eval_reports_found_and_read_dice_on_real_photos() {
    let false_file = temp_dir("eval").join("false-items.jsonl");
    let (code, stdout, stderr) = run(&[
        "eval",
        "--json",
        "--false-items",
        false_file.to_str().unwrap(),
        &path("reader/real"),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let figures: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(figures["pictures"], 15);
    // Every false item counted is written, a line each, with its picture and box.
    let false_items: Vec<serde_json::Value> = std::fs::read_to_string(&false_file)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(
        Some(false_items.len() as u64),
        figures["false_items"].as_u64()
    );
    for item in &false_items {
        assert!(
            item["picture"].as_str().unwrap().contains("reader/real"),
            "{item}"
        );
        assert!(
            ["die", "meeple"].contains(&item["kind"].as_str().unwrap()),
            "{item}"
        );
        let b: Vec<f64> = serde_json::from_value(item["box"].clone()).unwrap();
        assert!(b.len() == 4 && b[0] < b[2] && b[1] < b[3], "{item}");
        // A photo's camera is not known: no zone.
        assert!(item["place"].is_null(), "{item}");
    }
    let dice = &figures["dice"];
    let counted = dice["counted"].as_u64().unwrap();
    assert!(counted > 50, "{stdout}");
    assert!(dice["found"].as_u64().unwrap() <= counted);
    assert!(dice["read_right"].as_u64().unwrap() <= dice["found"].as_u64().unwrap());
    // The size bands share out the same dice.
    for figure in ["counted", "found", "read_right"] {
        let bands = dice["by_size"].as_array().unwrap();
        let sum: u64 = bands.iter().map(|b| b[figure].as_u64().unwrap()).sum();
        assert_eq!(Some(sum), dice[figure].as_u64(), "{figure}: {stdout}");
    }
    // Read as a camera's frames are: the same dice counted.
    let (code, live, stderr) = run(&["eval", "--json", "--live", &path("reader/real")]);
    assert_eq!(code, 0, "{stderr}");
    let live: serde_json::Value = serde_json::from_str(&live).unwrap();
    assert_eq!(live["dice"]["counted"].as_u64(), Some(counted));
    let (code, stdout, _) = run(&["eval", &path("reader/real")]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("dice: ") && stdout.contains(" px: ") && stdout.contains("confusion"),
        "{stdout}"
    );
    // The reader alone, on the labelled boxes: no false items (nothing else is read), and
    // nearly every die kept as a die.
    let (code, stdout, stderr) = run(&["eval", "--json", "--truth-boxes", &path("reader/real")]);
    assert_eq!(code, 0, "{stderr}");
    let alone: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(alone["false_items"], 0, "{stdout}");
    assert_eq!(alone["dice"]["counted"].as_u64(), Some(counted));
    assert!(
        alone["dice"]["found"].as_u64().unwrap() * 100 >= counted * 95,
        "{stdout}"
    );
}

#[test]
fn cameras_says_when_there_is_none() {
    let has_video_device = std::fs::read_dir("/dev").is_ok_and(|entries| {
        entries
            .filter_map(Result::ok)
            .any(|e| e.file_name().to_string_lossy().starts_with("video"))
    });
    let (code, stdout, stderr) = run(&["cameras"]);
    assert_eq!(code, 0, "{stderr}");
    let (json_code, json_stdout, json_stderr) = run(&["cameras", "--json"]);
    assert_eq!(json_code, 0, "{json_stderr}");
    let listing: serde_json::Value = serde_json::from_str(&json_stdout).unwrap();
    if has_video_device {
        println!("a camera is connected: the no-camera case is not checked\n{stdout}");
        assert!(listing["cameras"].is_array());
        return;
    }
    assert_eq!(stdout.trim(), "no camera found");
    assert_eq!(listing, serde_json::json!({"cameras": []}));
    assert!(json_stderr.contains("no camera found"));
    // Recording from a camera that is not there says so, and leaves no folder behind.
    let dir = std::env::temp_dir().join(format!("tablesight-cli-record-{}", std::process::id()));
    let (code, _, stderr) = run(&["record", "--camera", "0", "--out", dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("no camera 0: no camera is connected"),
        "{stderr}"
    );
    assert!(!dir.exists());
}

#[test]
fn eval_refuses_labels_that_are_no_die_and_skips_files_that_are_no_image() {
    let dir = temp_dir("eval-bad-labels");
    std::fs::create_dir_all(dir.join("images")).unwrap();
    std::fs::create_dir_all(dir.join("labels")).unwrap();
    std::fs::copy(
        path("reader/real/images/00001_8a6df7fc.jpg"),
        dir.join("images/photo.jpg"),
    )
    .unwrap();
    std::fs::write(dir.join("images/README.md"), "where these photos come from").unwrap();
    let set = dir.to_str().unwrap();
    for (line, says) in [
        ("0 0.5 0.5 0.1 0.1", None),
        ("9 0.5 0.5 0.1 0.1", Some("not a die's value less one")),
        ("2 1.5 0.5 0.1 0.1", Some("not within the photo")),
        ("2 0.5 0.5 0.1 NaN", Some("not within the photo")),
    ] {
        std::fs::write(dir.join("labels/photo.txt"), line).unwrap();
        let (code, _, stderr) = run(&["eval", set]);
        match says {
            None => assert_eq!(code, 0, "{line}: {stderr}"),
            Some(says) => {
                assert_eq!(code, 1, "{line}: {stderr}");
                assert!(stderr.contains(says), "{line}: {stderr}");
            }
        }
    }
}

#[test]
fn a_rendered_game_is_never_written_over_a_cameras_recording() {
    let dir = temp_dir("game-over-recording");
    let index = dir.join("frames.jsonl");
    std::fs::write(&index, "a camera's recording\n").unwrap();
    let (code, _, stderr) = run(&[
        "synth",
        "game",
        "--out",
        dir.to_str().unwrap(),
        "--actions",
        "1",
    ]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("already holds a recording"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&index).unwrap(),
        "a camera's recording\n"
    );
    assert!(!dir.join("game.json").exists());
}
