//! `tablesight referee --oracle` on games rendered by `tablesight synth game`: the real
//! binary on the real files, as a user runs it.
//!
//! The referee reads only the frames' labels (without their `truth`) and the record's
//! set-up; these tests read the answer (`game.json`'s log, `record.json`'s actions) to
//! check it. The default games stop after 60 actions and are rendered at 160x90 to keep the
//! tests short (about 25 s each to render on one core); `cargo test -p tablesight --test
//! referee -- --ignored` referees whole games.

// A test that cannot read its fixtures should fail loudly; helpers unwrap like tests do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Instant;

use rand::{Rng, SeedableRng};
use serde_json::Value;

fn tablesight(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_tablesight"))
        .args(args)
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("referee")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Renders a game into a fresh folder.
fn render(name: &str, seed: u64, players: &str, actions: Option<usize>) -> PathBuf {
    let dir = scratch(name);
    let out = dir.to_string_lossy().into_owned();
    let seed = seed.to_string();
    let mut args = vec![
        "synth",
        "game",
        "--out",
        &out,
        "--seed",
        &seed,
        "--players",
        players,
        "--size",
        "160x90",
    ];
    let limit = actions.map(|n| n.to_string());
    if let Some(limit) = &limit {
        args.extend(["--actions", limit]);
    }
    let (code, stdout, stderr) = tablesight(&args);
    assert_eq!(code, 0, "{stderr}");
    eprintln!("{stdout}");
    dir
}

/// The JSON that a successful `tablesight ARGS` prints.
fn tablesight_json(args: &[&str]) -> Value {
    let (code, stdout, stderr) = tablesight(args);
    assert_eq!(code, 0, "{stderr}");
    serde_json::from_str(&stdout).unwrap()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn referee_json(dir: &Path, journal: Option<&Path>) -> Value {
    let frames = dir.to_string_lossy().into_owned();
    let setup = dir.join("record.json").to_string_lossy().into_owned();
    let mut args = vec!["referee", &frames, "--setup", &setup, "--oracle", "--json"];
    let journal = journal.map(|j| j.to_string_lossy().into_owned());
    if let Some(journal) = &journal {
        args.extend(["--journal", journal]);
    }
    let started = Instant::now();
    let (code, stdout, stderr) = tablesight(&args);
    assert_eq!(code, 0, "{stderr}");
    eprintln!(
        "{} ({:.2} s)",
        stderr.trim(),
        started.elapsed().as_secs_f64()
    );
    serde_json::from_str(&stdout).unwrap()
}

fn idle(action: &Value) -> bool {
    action.get("skip_bonus").is_some() || action.get("end_turn").is_some()
}

/// The referee's output against the answer: the true actions (but where a note says the
/// table did not show the choice; a game cut short may end on actions that leave no trace),
/// every staged illegal placement flagged during its frames and nothing else, no desync,
/// the true prestige.
fn check(dir: &Path, output: &Value) {
    let record = read_json(&dir.join("record.json"));
    let game = read_json(&dir.join("game.json"));
    let want = record["actions"].as_array().unwrap();
    let got = output["actions"].as_array().unwrap();
    assert_eq!(output["desyncs"], serde_json::json!([]), "{output:#}");
    let noted: Vec<u64> = output["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["kind"] == "unseen")
        .flat_map(|n| {
            n["actions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i.as_u64().unwrap())
        })
        .collect();
    let undecided = output["undecided"].as_array().unwrap();
    // Equal, but where a note says the table did not show the choice; after a noted choice
    // that changed the number of actions (a die placed then swapped, or the other die
    // placed), the rest is not compared.
    let mut unseen = 0;
    let mut shifted = false;
    for i in 0..got.len().max(want.len()) {
        let (g, w) = (got.get(i), want.get(i));
        if g == w {
            continue;
        }
        if g.is_none() && w.is_some_and(|w| idle(w) || !undecided.is_empty()) {
            // The game was cut short: what followed the last table is not confirmed.
            continue;
        }
        assert!(
            noted.contains(&(i as u64)),
            "action {i}: confirmed {g:?}, played {w:?}, and no note"
        );
        unseen += 1;
        if got.len() != want.len() {
            shifted = true;
            break;
        }
    }
    let log = game["log"].as_array().unwrap();
    let staged: Vec<&Value> = log.iter().filter(|a| a["legal"] == false).collect();
    let flags = output["flags"].as_array().unwrap();
    let spelled = |first: u64| {
        // A Change or Metamorphosis cast before the placement in the same turn decides it,
        // and the table does not show which way: another reason, or a move read as legal
        // and taken back.
        log.iter()
            .filter(|a| a["legal"] == true && a["last_frame"].as_u64().unwrap() < first)
            .rev()
            .take_while(|a| a["action"].get("end_turn").is_none())
            .any(|a| {
                let effect = &a["action"]["cast"]["effect"];
                effect.get("change").is_some() || effect.get("metamorphosis").is_some()
            })
    };
    let taken_back: Vec<&Value> = output["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["kind"] == "taken_back")
        .flat_map(|n| n["removed"].as_array().unwrap())
        .collect();
    // A staged placement behind a taller tower is in no label: nothing can flag it.
    let labels: Vec<String> = std::fs::read_to_string(dir.join("labels.jsonl"))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    let shown = |first: u64, last: u64, place: &Value| {
        (first..=last).any(|frame| {
            let line: Value = serde_json::from_str(&labels[frame as usize]).unwrap();
            line["dice"].as_array().unwrap().iter().any(|d| {
                d["die"] == place["die"]
                    && d["place"]["tower"] == place["tower"]
                    && d["place"]["pillar"] == place["pillar"]
            })
        })
    };
    let mut flagged = 0;
    let mut hidden = 0;
    for entry in &staged {
        let (first, last) = (
            entry["first_frame"].as_u64().unwrap(),
            entry["last_frame"].as_u64().unwrap(),
        );
        if !shown(first, last, &entry["action"]["place"]) {
            hidden += 1;
            continue;
        }
        let flag = flags.iter().find(|f| {
            let frame = f["frame"].as_u64().unwrap();
            (first..=last).contains(&frame) && f["action"] == entry["action"]
        });
        let Some(flag) = flag else {
            assert!(
                spelled(first) && taken_back.contains(&&entry["action"]),
                "not flagged: {entry:#} in {flags:#?}"
            );
            continue;
        };
        flagged += 1;
        assert!(flag["cleared"].is_u64(), "{flag:#}");
        assert!(!flag["rule"].as_str().unwrap().is_empty());
        assert_eq!(flag["die"], entry["action"]["place"]["die"]);
        assert_eq!(flag["tower"], entry["action"]["place"]["tower"]);
        assert_eq!(flag["pillar"], entry["action"]["place"]["pillar"]);
        assert!(
            flag["violation"] == entry["violation"] || spelled(first),
            "flagged {}, the engine says {}",
            flag["violation"],
            entry["violation"]
        );
    }
    for flag in flags {
        let frame = flag["frame"].as_u64().unwrap();
        assert!(
            staged.iter().any(|e| {
                (e["first_frame"].as_u64().unwrap()..=e["last_frame"].as_u64().unwrap())
                    .contains(&frame)
            }),
            "a flag outside the staged placements: {flag:#}"
        );
    }
    assert_eq!(flags.len(), flagged, "{flags:#?}");
    if !shifted && unseen == 0 && got.len() == want.len() {
        assert_eq!(
            output["prestige"],
            replayed_prestige(&dir.join("record.json"))
        );
    }
    eprintln!(
        "{}: {} actions ({} of {} played), {} flags of {} staged ({hidden} hidden from the camera), {} unseen choices",
        dir.display(),
        got.len(),
        want.len(),
        log.len(),
        flags.len(),
        staged.len(),
        unseen
    );
}

/// A game cut after 60 actions, shared by the tests of this file: four staged illegal
/// placements, one of them after a Metamorphosis spell (read as legal under another colour,
/// then taken back).
fn short_game() -> &'static Path {
    static GAME: OnceLock<PathBuf> = OnceLock::new();
    GAME.get_or_init(|| render("short-2p", 1, "red,green", Some(60)))
}

#[test]
fn two_players_cut_short() {
    let dir = short_game();
    check(dir, &referee_json(dir, None));
}

#[test]
fn three_players_cut_short() {
    let dir = render("short-3p", 5, "blue,yellow,red", Some(60));
    check(&dir, &referee_json(&dir, None));
}

#[test]
fn four_players_cut_short() {
    let dir = render("short-4p", 7, "green,red,yellow,blue", Some(60));
    check(&dir, &referee_json(&dir, None));
}

#[test]
#[ignore = "renders three whole games (minutes)"]
fn whole_games_of_two_three_and_four_players() {
    for (seed, players) in [
        (11, "red,green"),
        (12, "blue,yellow,red"),
        (13, "green,red,yellow,blue"),
    ] {
        let dir = render(&format!("whole-{seed}"), seed, players, None);
        let output = referee_json(&dir, None);
        check(&dir, &output);
        assert_eq!(output["over"], true);
    }
}

/// The prestige of a game record as `replay --json` tallies it.
fn replayed_prestige(record: &Path) -> Value {
    let (code, stdout, stderr) = tablesight(&["replay", "--json", &record.to_string_lossy()]);
    assert_eq!(code, 0, "{stderr}");
    let replay: Value = serde_json::from_str(&stdout).unwrap();
    replay["prestige"].clone()
}

#[test]
fn a_killed_referee_resumes_from_its_journal() {
    let dir = short_game();
    let work = scratch("journal");
    let whole = referee_json(dir, Some(&work.join("whole.json")));
    // The journal of the uninterrupted run replays to the same prestige.
    assert_eq!(
        replayed_prestige(&work.join("whole.json")),
        whole["prestige"]
    );

    let started = Instant::now();
    referee_json(dir, None);
    let full = started.elapsed();
    let journal = work.join("killed.json");
    let frames = dir.to_string_lossy().into_owned();
    let setup = dir.join("record.json").to_string_lossy().into_owned();
    let journal_arg = journal.to_string_lossy().into_owned();
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut kills = 0;
    let output = loop {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tablesight"))
            .args([
                "referee",
                &frames,
                "--setup",
                &setup,
                "--oracle",
                "--json",
                "--journal",
                &journal_arg,
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let wait = full.mul_f64(rng.random_range(0.0..1.0));
        std::thread::sleep(wait);
        if kills < 12 && child.try_wait().unwrap().is_none() {
            // SIGKILL: no destructor, no flush.
            child.kill().unwrap();
            child.wait().unwrap();
            kills += 1;
            continue;
        }
        let output = child.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        break serde_json::from_slice::<Value>(&output.stdout).unwrap();
    };
    eprintln!("killed {kills} times");
    for key in ["actions", "flags", "desyncs", "notes", "prestige"] {
        assert_eq!(output[key], whole[key], "{key} differs after {kills} kills");
    }
    assert_eq!(
        replayed_prestige(Path::new(&journal_arg)),
        whole["prestige"]
    );
    // A folder without frames says what FRAMES must be, on either path.
    let empty = work.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let empty = empty.to_string_lossy().into_owned();
    for oracle in [false, true] {
        let mut args = vec!["referee", empty.as_str(), "--setup", &setup];
        if oracle {
            args.push("--oracle");
        }
        let (code, _, stderr) = tablesight(&args);
        assert_eq!(code, 1);
        let expected = if oracle {
            "labels.jsonl"
        } else {
            "frame-NNNNN.jpg"
        };
        assert!(stderr.contains(expected), "{stderr}");
    }
}

/// The short game refereed by the oracle, its readings saved in the fresh folder `name`:
/// the oracle's output, the readings' path and the set-up's.
fn oracle_readings(name: &str) -> (Value, String, String) {
    let dir = short_game();
    let frames = dir.to_string_lossy().into_owned();
    let setup = dir.join("record.json").to_string_lossy().into_owned();
    let saved = scratch(name).join("readings.jsonl");
    let saved = saved.to_string_lossy().into_owned();
    let oracle = tablesight_json(&[
        "referee",
        &frames,
        "--setup",
        &setup,
        "--oracle",
        "--json",
        "--save-readings",
        &saved,
    ]);
    (oracle, saved, setup)
}

/// The arguments of `referee` on the saved readings `saved`, each frame as it was read (no
/// vote over frames again).
fn as_read<'a>(saved: &'a str, setup: &'a str) -> Vec<&'a str> {
    vec![
        "referee",
        saved,
        "--setup",
        setup,
        "--json",
        "--vote-frames",
        "1",
    ]
}

#[test]
fn saved_readings_are_refereed_again_as_they_were_read() {
    let (oracle, saved, setup) = oracle_readings("readings");
    // The oracle's readings are not voted: neither are they read again.
    let again = tablesight_json(&as_read(&saved, &setup));
    for key in ["actions", "flags", "desyncs", "prestige"] {
        assert_eq!(again[key], oracle[key], "{key}");
    }
    // A last line cut short (a referee stopped while it wrote) ends the readings there.
    let text = std::fs::read_to_string(&saved).unwrap();
    std::fs::write(&saved, &text[..text.trim_end().len() - 10]).unwrap();
    let (code, _, stderr) = tablesight(&["referee", &saved, "--setup", &setup, "--json"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("cut short, the readings end before it"),
        "{stderr}"
    );
    // A damaged line is named.
    let text = std::fs::read_to_string(&saved).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[3] = "{\"frame\": 3, \"dice\": 7}";
    std::fs::write(&saved, lines.join("\n")).unwrap();
    let (code, _, stderr) = tablesight(&["referee", &saved, "--setup", &setup, "--json"]);
    assert_ne!(code, 0);
    assert!(stderr.contains("line 4"), "{stderr}");
}

/// A placement whose meeple is never seen (the oracle's readings of the short game without
/// it, nor any reserve): Red's master on the blue 5. The table fits it made by an
/// apprentice too, and while it does the referee asks which; unanswered, it records the
/// first with a note once the tables show no more difference. Players who answer once the
/// question has stood 2 s name the move made.
#[test]
fn players_who_answer_say_which_of_several_moves_was_made() {
    let (_, saved, setup) = oracle_readings("which-move");
    let truth = read_json(Path::new(&setup));
    let actions = truth["actions"].as_array().unwrap();
    let first = actions
        .iter()
        .position(|a| a.get("place").is_some())
        .unwrap();
    let place = &actions[first]["place"];
    assert_eq!(place["rank"], "master");
    let unseen = |meeple: &Value| {
        let at = &meeple["place"];
        at["zone"] == "reserve"
            || (at["zone"] == "tower"
                && at["tower"] == place["tower"]
                && at["pillar"] == place["pillar"])
    };
    let text = std::fs::read_to_string(&saved).unwrap();
    let lines: Vec<String> = (text.lines())
        .map(|line| {
            let mut frame: Value = serde_json::from_str(line).unwrap();
            let meeples = frame["meeples"].as_array_mut().unwrap();
            meeples.retain(|m| !unseen(m));
            frame.to_string()
        })
        .collect();
    std::fs::write(&saved, lines.join("\n")).unwrap();
    let mut args = as_read(&saved, &setup);
    let unanswered = tablesight_json(&args);
    let placed = |output: &Value| output["actions"][first].clone();
    assert_eq!(placed(&unanswered)["place"]["rank"], "apprentice");
    assert!(
        notes_say(
            &unanswered,
            "The table did not show which: \"Red places the blue 5"
        ),
        "{:#}",
        unanswered["notes"]
    );
    args.extend(["--answers", &setup]);
    let (code, stdout, stderr) = tablesight(&args);
    assert_eq!(code, 0, "{stderr}");
    let answered: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(placed(&answered), actions[first]);
    assert!(!notes_say(&answered, "Red places the blue 5"));
    assert!(
        stderr.contains("about which of several moves was made")
            && !stderr.contains(" 0 about which"),
        "{stderr}"
    );
}

/// The reader's own readings of a rendered game (`tests/fixtures/readings`): a die of the
/// roll that the reader was unsure of is put right when the spellbook space of its bonus
/// shows its value, instead of a false flag on the bonus.
#[test]
fn a_roll_die_read_unsure_is_put_right_by_what_followed() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/readings");
    let readings = fixtures.join("g13-readings.jsonl");
    let record = fixtures.join("g13-record.json");
    let output = tablesight_json(&[
        "referee",
        &readings.to_string_lossy(),
        "--setup",
        &record.to_string_lossy(),
        "--json",
    ]);
    let truth = read_json(&record);
    let amended: Vec<&Value> = (output["notes"].as_array().unwrap().iter())
        .filter(|n| n["kind"] == "amended")
        .collect();
    let [note] = amended.as_slice() else {
        panic!("one amendment expected: {:#}", output["notes"]);
    };
    let text = note["text"].as_str().unwrap();
    assert!(
        text.contains("yellow 4") && text.contains("yellow 5"),
        "{text}"
    );
    // The yellow 5's placement, Red's master to the spellbook and the end of the turn, as
    // they happened.
    let actions = |v: &Value| v["actions"].as_array().unwrap()[1..4].to_vec();
    assert_eq!(actions(&output), actions(&truth));
    // The only flag is the staged placement (a yellow die on tower A, frames 53-74).
    let flags = output["flags"].as_array().unwrap();
    assert!(!flags.is_empty());
    for flag in flags {
        let frame = flag["frame"].as_u64().unwrap();
        assert!((53..=74).contains(&frame), "{flag:#}");
        assert_eq!(flag["tower"], "a", "{flag:#}");
    }
}

/// Answers from the record of another game are refused before anything is refereed: they
/// would answer with that game's dice and meeples.
#[test]
fn answers_from_another_games_record_are_refused() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
    let readings = fixtures.join("readings/g13-readings.jsonl");
    let record = fixtures.join("readings/g13-record.json");
    let other = fixtures.join("live-roll/truth.json");
    let (code, _, stderr) = tablesight(&[
        "referee",
        &readings.to_string_lossy(),
        "--setup",
        &record.to_string_lossy(),
        "--answers",
        &other.to_string_lossy(),
    ]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("is the record of another game"), "{stderr}");
}

/// `referee --json` on the recording in `tests/fixtures/NAME`, unanswered and with players
/// who answer from its `truth.json`: both outputs, the answered run's stderr and the truth.
fn with_and_without_answers(name: &str) -> (Value, Value, String, Value) {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(name);
    let frames = fixture.to_string_lossy().into_owned();
    let setup = fixture.join("record.json").to_string_lossy().into_owned();
    let truth = fixture.join("truth.json");
    let mut args = vec!["referee", &frames, "--setup", &setup, "--json"];
    let unanswered = tablesight_json(&args);
    let truth_arg = truth.to_string_lossy().into_owned();
    args.extend(["--answers", &truth_arg]);
    let (code, stdout, stderr) = tablesight(&args);
    assert_eq!(code, 0, "{stderr}");
    let answered = serde_json::from_str(&stdout).unwrap();
    (unanswered, answered, stderr, read_json(&truth))
}

fn notes_say(output: &Value, words: &str) -> bool {
    (output["notes"].as_array().unwrap().iter())
        .any(|n| n["text"].as_str().unwrap().contains(words))
}

/// A roll with a die read right but unsure (`tests/fixtures/live-roll`: the purple 2). The
/// roll is recorded as read and the players asked; players who answer confirm it, and no
/// question is left.
#[test]
fn players_who_answer_put_the_unsure_die_of_the_roll_right() {
    let (unanswered, answered, stderr, truth) = with_and_without_answers("live-roll");
    let roll = |output: &Value| {
        let mut dice = output["actions"][0]["roll"]["dice"]
            .as_array()
            .unwrap()
            .clone();
        dice.sort_by_key(ToString::to_string);
        dice
    };
    assert_eq!(roll(&unanswered), roll(&truth), "the roll as read");
    assert_eq!(
        unanswered["unsure_in_roll"],
        serde_json::json!([{"color": "purple", "value": 2}])
    );
    assert_eq!(roll(&answered), roll(&truth), "the roll as it was thrown");
    assert!(answered["unsure_in_roll"].as_array().unwrap().is_empty());
    assert!(
        stderr.contains("1 about dice of the roll read unsure (0 of them another die than read)"),
        "{stderr}"
    );
    assert!(
        !notes_say(&answered, "the players say it is"),
        "{:#}",
        answered["notes"]
    );
}

/// A placement whose meeple the reader was unsure of (`tests/fixtures/live-rank`): Green's
/// master, read right but unsure. The placement is recorded as read and the players are
/// asked; players who answer confirm it, and the question is settled.
#[test]
fn players_who_answer_name_the_rank_of_a_meeple_read_unsure() {
    let (unanswered, answered, stderr, truth) = with_and_without_answers("live-rank");
    assert_eq!(unanswered["actions"][1]["place"]["rank"], "master");
    assert_eq!(unanswered["unsure_ranks"], serde_json::json!([1]));
    // The placement as it was made (the roll's dice are recorded in the order read).
    assert_eq!(answered["actions"][1], truth["actions"][1]);
    assert_eq!(answered["unsure_ranks"], serde_json::json!([]));
    assert!(
        stderr.contains("1 about the ranks of meeples placed (0 of them the other rank)"),
        "{stderr}"
    );
}

#[test]
fn watching_a_recording_prints_the_figures_of_the_camera_path() {
    let dir = mat_view_frames("watch-figures", 6);
    let setup =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/game-3p-seed161.json");
    let (code, _, stderr) = tablesight(&[
        "watch",
        "--frames",
        &dir.to_string_lossy(),
        "--setup",
        &setup.to_string_lossy(),
        "--fps",
        "10",
        "--seconds",
        "30",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let figures = stderr
        .lines()
        .find(|line| line.starts_with("reading a frame: median"))
        .unwrap_or_else(|| panic!("no figures in:\n{stderr}"));
    assert!(figures.contains("from the frame's arrival to its reading: median"));
    // Each frame is read or passed over for a newer one, as a camera's would be; the last
    // one is always read.
    let (before, after) = figures.split_once(" frames read, ").unwrap();
    let read: u64 = before.rsplit(' ').next().unwrap().parse().unwrap();
    let passed: u64 = after.split(' ').next().unwrap().parse().unwrap();
    assert!(read >= 1);
    assert_eq!(read + passed, 6, "{figures}");
}

/// A scratch folder `name` of `count` frames, `frame-00000.jpg` on, each the rendered front
/// view of the mat (`tests/fixtures/mat-view-front.jpg`).
fn mat_view_frames(name: &str, count: usize) -> PathBuf {
    let dir = scratch(name);
    let view = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/mat-view-front.jpg");
    for n in 0..count {
        std::fs::copy(&view, dir.join(format!("frame-{n:05}.jpg"))).unwrap();
    }
    dir
}

/// `tablesight referee DIR` with the set-up of a fixture game: its exit code and errors.
fn referee_folder(dir: &Path) -> (i32, String) {
    let setup =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/game-3p-seed161.json");
    let (code, _, stderr) = tablesight(&[
        "referee",
        &dir.to_string_lossy(),
        "--setup",
        &setup.to_string_lossy(),
    ]);
    (code, stderr)
}

#[test]
fn a_recording_whose_frames_are_all_missing_is_an_error() {
    let dir = scratch("all-missing");
    std::fs::write(
        dir.join("frames.jsonl"),
        "{\"format\": \"tablesight-recording\", \"version\": 1, \"camera\": \"gone\", \"mode\": null}\n\
         {\"number\": 0, \"file\": \"frame-00000.jpg\", \"timestamp_ms\": 0.0}\n",
    )
    .unwrap();
    let (code, stderr) = referee_folder(&dir);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("frame-00000.jpg"), "{stderr}");
    assert!(stderr.contains("gave no frame to referee"), "{stderr}");
}

#[test]
fn a_frame_of_another_size_than_the_calibrated_ones_is_not_read() {
    let dir = mat_view_frames("other-size", 3);
    image::RgbImage::new(64, 48)
        .save(dir.join("frame-00003.jpg"))
        .unwrap();
    let (code, stderr) = referee_folder(&dir);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("calibrated from frame 0"), "{stderr}");
    assert!(
        stderr.contains("frame 3 is 64x48 where the calibrated frames are 1280x720: not read"),
        "{stderr}"
    );
}

#[test]
fn a_journal_cut_short_is_refused_and_its_cause_said_once() {
    let dir = scratch("journal-cut");
    let journal = dir.join("journal.json");
    std::fs::write(&journal, "{\"format\": \"tablesight-ga").unwrap();
    std::fs::write(tablesight::referee_cli::notes_path(&journal), "{}").unwrap();
    let game = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/synth/game");
    let (code, _, stderr) = tablesight(&[
        "referee",
        &game.to_string_lossy(),
        "--setup",
        &game.join("record.json").to_string_lossy(),
        "--oracle",
        "--journal",
        &journal.to_string_lossy(),
    ]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("cannot be replayed"), "{stderr}");
    assert_eq!(stderr.matches("EOF while parsing").count(), 1, "{stderr}");
    // Nothing of it is lost.
    assert_eq!(
        std::fs::read_to_string(&journal).unwrap(),
        "{\"format\": \"tablesight-ga"
    );
}
