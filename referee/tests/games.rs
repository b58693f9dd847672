//! The referee on whole random games of the rules engine, shown as a perfect camera would
//! show them: hands over the table between moves, staged illegal placements held and taken
//! back, quick players whose moves fall between two settled tables, and a referee killed
//! and resumed from its journal.

// Tests unwrap like tests do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use referee::{
    JournalWriter, Observation, Place, Referee, RefereeSettings, SeenDie, SeenMeeple, Zone,
};
use rules::{
    Action, GameRecord, GameSetup, GameState, Meeple, PillarIndex, PlayerColor, TileCatalogue,
};

/// A filmed game: its frames and what really happened.
struct Film {
    seed: u64,
    frames: Vec<Observation>,
    truth: GameRecord,
    final_state: GameState,
    /// Each staged illegal placement: its frames, the placement, the engine's reason, and
    /// whether a Change or Metamorphosis spell cast before it in the turn decides it (the
    /// table does not show which way).
    staged: Vec<Staged>,
}

struct Staged {
    first: u64,
    last: u64,
    attempt: Action,
    violation: String,
    spelled: bool,
}

struct Camera {
    frames: Vec<Observation>,
}

impl Camera {
    fn shoot(&mut self, mut observation: Observation, count: usize) {
        for _ in 0..count {
            let frame = self.frames.len() as u64;
            observation.frame = frame;
            observation.time_s = frame as f64 / 15.0;
            self.frames.push(observation.clone());
        }
    }

    fn hands(&mut self, state: &GameState, count: usize) {
        let mut observation = Observation::perfect(state, 0, 0.0);
        observation.covered = vec![Zone::Table];
        self.shoot(observation, count);
    }

    fn next_frame(&self) -> u64 {
        self.frames.len() as u64
    }
}

/// `state`'s table with the die of `attempt` moved from the roll to its pillar, with the
/// meeple.
fn staged_table(state: &GameState, attempt: &Action) -> Observation {
    let mut observation = Observation::perfect(state, 0, 0.0);
    let Action::Place {
        player,
        die,
        rank,
        tower,
        pillar,
    } = *attempt
    else {
        return observation;
    };
    if let Some(i) = observation
        .dice
        .iter()
        .position(|d| d.place == Place::RollArea && d.die == die)
    {
        observation.dice.remove(i);
    }
    let place = Place::Tower {
        tower,
        level: state.tower(tower).level,
        pillar,
        buried: false,
    };
    observation.dice.push(SeenDie {
        die,
        place,
        confidence: 1.0,
        uncertain: false,
        value_probabilities: None,
        color_probabilities: None,
    });
    observation.meeples.push(SeenMeeple {
        meeple: Meeple { player, rank },
        place,
        confidence: 1.0,
        uncertain: false,
    });
    observation
}

/// Films a random legal game. `quick` is the share of moves after which the table is never
/// seen settled (the next move follows at once); `illegal` the share of placements first
/// staged somewhere illegal.
fn film(seed: u64, players: &[PlayerColor], quick: f64, illegal: f64) -> Film {
    film_held(seed, players, quick, illegal, 5)
}

/// [`film`], each settled table held for `hold` frames.
fn film_held(seed: u64, players: &[PlayerColor], quick: f64, illegal: f64, hold: usize) -> Film {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let catalogue = TileCatalogue::arkhanos();
    let setup = GameSetup::random(players, &catalogue, &mut rng);
    let (truth, final_state) = rules::random_game(setup.clone(), &catalogue, &mut rng).unwrap();
    let mut state = setup.start(&catalogue).unwrap();
    let mut camera = Camera { frames: Vec::new() };
    let mut staged = Vec::new();
    let mut quick_run = 0;
    camera.shoot(Observation::perfect(&state, 0, 0.0), 10);
    for action in &truth.actions {
        let spelled = state
            .turn()
            .is_some_and(|t| t.change != 0 || t.metamorphosis.is_some());
        if rng.random_bool(illegal)
            && let Some((attempt, violation)) =
                state.refused_elsewhere(action).choose(&mut rng).cloned()
        {
            let first = camera.next_frame();
            camera.hands(&state, 6);
            camera.shoot(staged_table(&state, &attempt), 18);
            camera.hands(&state, 6);
            staged.push(Staged {
                first,
                last: camera.next_frame() - 1,
                attempt,
                violation: violation.to_string(),
                spelled,
            });
        }
        let next = state.clone().play(action).unwrap();
        camera.hands(&state, 4);
        // Quick players: the next move follows before the table is seen settled (two
        // moves that show on the table, and what leaves no trace between them).
        let invisible = matches!(action, Action::SkipBonus { .. } | Action::EndTurn { .. });
        let hurried = if invisible {
            quick_run > 0
        } else {
            quick_run < 1 && rng.random_bool(quick)
        };
        if !hurried {
            quick_run = 0;
        } else if !invisible {
            quick_run += 1;
        }
        if !hurried {
            camera.hands(&next, 3);
            camera.shoot(Observation::perfect(&next, 0, 0.0), hold);
        }
        state = next;
    }
    camera.shoot(Observation::perfect(&state, 0, 0.0), 10);
    Film {
        seed,
        frames: camera.frames,
        truth,
        final_state,
        staged,
    }
}

fn referee_for(film: &Film) -> Referee {
    Referee::new(
        &film.truth.setup,
        &TileCatalogue::arkhanos(),
        RefereeSettings::default(),
    )
    .unwrap()
}

fn run(film: &Film) -> Referee {
    let mut referee = referee_for(film);
    for frame in &film.frames {
        referee.observe(frame);
    }
    referee
}

/// The game as far as the table shows it: prestige left out.
fn visible_state(state: &GameState) -> serde_json::Value {
    let mut value = serde_json::to_value(state).unwrap();
    let object = value.as_object_mut().unwrap();
    object.remove("ledger");
    for player in object["players"].as_array_mut().unwrap() {
        player.as_object_mut().unwrap().remove("prestige");
    }
    if object["phase"].get("Over").is_some() {
        object.insert("phase".into(), "Over".into());
    }
    // Floors completed in one window are buried in either order, and the mana pool is a
    // pile too.
    let mut pool = object["mana_pool"].as_array().unwrap().clone();
    pool.sort_by_key(ToString::to_string);
    object.insert("mana_pool".into(), pool.into());
    for tower in object["towers"].as_array_mut().unwrap() {
        for pile in ["buried_dice", "foundation"] {
            let mut items = tower[pile].as_array().unwrap().clone();
            items.sort_by_key(ToString::to_string);
            tower[pile] = items.into();
        }
    }
    value
}

fn prestige(state: &GameState) -> Vec<(PlayerColor, u32)> {
    state
        .players()
        .iter()
        .map(|p| (p.color, p.prestige))
        .collect()
}

/// Two rolls of the same dice: the order a roll is read in means nothing.
fn same_roll(a: Option<&Action>, b: Option<&Action>) -> bool {
    let (Some(Action::Roll { dice: a }), Some(Action::Roll { dice: b })) = (a, b) else {
        return false;
    };
    let (mut a, mut b) = (a.clone(), b.clone());
    a.sort();
    b.sort();
    a == b
}

/// Every action equals the true one (a roll: the same dice), except where the referee noted that the table did not
/// show the choice (a rank, a colour); after a noted choice that changed the number of
/// actions (a die placed then swapped, or the other die placed) the two records are only
/// compared by the state they end in. With no such difference the prestige is the true one.
fn check_actions(film: &Film, referee: &Referee) -> usize {
    let got = &referee.record().actions;
    let want = &film.truth.actions;
    let noted: Vec<usize> = referee
        .notes()
        .iter()
        .filter(|n| n.kind == referee::NoteKind::Unseen)
        .flat_map(|n| n.actions.clone())
        .collect();
    let mut unseen = 0;
    for i in 0..got.len().max(want.len()) {
        let (g, w) = (got.get(i), want.get(i));
        if g == w || same_roll(g, w) {
            continue;
        }
        assert!(
            noted.contains(&i),
            "seed {}: action {i}: the referee confirmed {g:?}, the game played {w:?}, and no note says the table did not show it",
            film.seed
        );
        unseen += 1;
        if got.len() != want.len() {
            break;
        }
    }
    assert_eq!(
        visible_state(referee.state()),
        visible_state(&film.final_state),
        "seed {}",
        film.seed
    );
    if unseen == 0 {
        assert_eq!(prestige(referee.state()), prestige(&film.final_state));
    }
    unseen
}

/// Every staged placement is flagged during its frames, with the engine's reason, and
/// nothing else is; every flag clears. After a Change or Metamorphosis spell the table does
/// not show which way the spell went: the placement may be flagged with another reason, or
/// read as legal under another choice and taken back when the die goes back.
fn check_flags(film: &Film, referee: &Referee) {
    let flags = referee.flags();
    let during = |frame: u64, s: &Staged| (s.first..=s.last).contains(&frame);
    for staged in &film.staged {
        let flag = flags
            .iter()
            .find(|f| during(f.frame, staged) && f.action.as_ref() == Some(&staged.attempt));
        match flag {
            Some(flag) => assert!(
                flag.violation == staged.violation || staged.spelled,
                "seed {}: flagged as {:?}, the engine says {:?}",
                film.seed,
                flag.violation,
                staged.violation
            ),
            None => {
                let taken_back = referee.notes().iter().any(|n| {
                    n.kind == referee::NoteKind::TakenBack && n.removed.contains(&staged.attempt)
                });
                assert!(
                    staged.spelled && taken_back,
                    "seed {}: the staged placement of frames {}-{} ({}) was not flagged: {flags:#?}",
                    film.seed,
                    staged.first,
                    staged.last,
                    staged.violation
                );
            }
        }
    }
    for flag in flags {
        assert!(
            film.staged.iter().any(|s| during(flag.frame, s)),
            "seed {}: a flag outside the staged placements: {flag:#?}",
            film.seed
        );
        assert!(flag.cleared.is_some(), "a flag never cleared: {flag:#?}");
    }
}

/// The number of games to play: `default`, or `REFEREE_SEEDS` for a longer run.
fn seeds(default: u64) -> u64 {
    std::env::var("REFEREE_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

const PLAYERS: [&[PlayerColor]; 3] = [
    &[PlayerColor::Red, PlayerColor::Green],
    &[PlayerColor::Blue, PlayerColor::Yellow, PlayerColor::Red],
    &[
        PlayerColor::Green,
        PlayerColor::Red,
        PlayerColor::Yellow,
        PlayerColor::Blue,
    ],
];

#[test]
fn whole_games_are_refereed_exactly_with_staged_illegal_placements_flagged() {
    let mut unseen = 0;
    let mut actions = 0;
    let (mut staged, mut flagged, mut taken_back) = (0, 0, 0);
    for seed in 0..seeds(12) {
        let players = PLAYERS[seed as usize % 3];
        let film = film(seed, players, 0.0, 0.25);
        let referee = run(&film);
        assert!(
            referee.desyncs().is_empty(),
            "seed {seed}: {:#?}",
            referee.desyncs()
        );
        unseen += check_actions(&film, &referee);
        println!(
            "seed {seed}: {} actions, {} staged, {} notes",
            film.truth.actions.len(),
            film.staged.len(),
            referee.notes().len()
        );
        check_flags(&film, &referee);
        assert!(referee.state().is_over());
        actions += film.truth.actions.len();
        staged += film.staged.len();
        flagged += referee.flags().len();
        taken_back += referee
            .notes()
            .iter()
            .filter(|n| n.kind == referee::NoteKind::TakenBack)
            .count();
    }
    eprintln!(
        "{} games, {actions} actions, {unseen} not shown by the table (noted), {staged} staged illegal placements, {flagged} flagged, {taken_back} taken back",
        seeds(12)
    );
    // Only a floor completed and scored in one move hides the rank of the meeple placed.
    assert!(
        unseen * 20 < actions,
        "{unseen} of {actions} actions were not seen"
    );
}

/// Moves that fall between two settled tables may be explained by another sequence of the
/// same effect (a die placed and swapped by Permutation, or the other die placed): the game
/// must end in the same state, with no flag and no desync.
#[test]
fn quick_players_are_explained_by_one_legal_sequence() {
    let mut failed = Vec::new();
    let mut noted_only = 0;
    for seed in 100..100 + seeds(9) {
        let players = PLAYERS[seed as usize % 3];
        let film = film(seed, players, 0.4, 0.0);
        let referee = run(&film);
        let problem = if !referee.desyncs().is_empty() {
            Some(format!("desyncs {:#?}", referee.desyncs()))
        } else if !referee.flags().is_empty() {
            Some(format!("flags {:#?}", referee.flags()))
        } else if visible_state(referee.state()) != visible_state(&film.final_state) {
            // Two floors completed between two tables take the stack's tiles in an order
            // the table does not show (without a tile reader): the referee must say so.
            noted_only += 1;
            referee
                .notes()
                .is_empty()
                .then(|| "another final state, and no note".to_owned())
        } else {
            None
        };
        if let Some(problem) = problem {
            failed.push(format!("seed {seed}: {problem}"));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    assert!(
        noted_only * 30 <= seeds(9),
        "{noted_only} games ended elsewhere"
    );
}

#[test]
fn a_killed_referee_resumes_from_its_journal_with_the_same_result() {
    let film = film(7, PLAYERS[1], 0.0, 0.3);
    let whole = run(&film);
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    for _ in 0..6 {
        let mut referee = referee_for(&film);
        let mut writer = JournalWriter::new(None);
        // The two files on disk, each replaced whole.
        let mut disk = (String::new(), String::new());
        let write = |disk: &mut (String, String),
                     referee: &Referee,
                     writer: &mut JournalWriter,
                     crash_between: bool| {
            let files = writer.next(referee.journal_notes(), referee.record());
            disk.1 = files.notes_json;
            if let Some(record) = files.record_json
                && !crash_between
            {
                disk.0 = record;
            }
        };
        write(&mut disk, &referee, &mut writer, false);
        let mut next = 0usize;
        // Killed at random frames (now and then between the two files of a write),
        // resumed from what the journal held.
        while next < film.frames.len() {
            let kill_at = rng.random_range(next..=film.frames.len());
            let crash_between = rng.random_bool(0.3);
            let frames = &film.frames[next..kill_at];
            for (i, frame) in frames.iter().enumerate() {
                if !referee.observe(frame).is_empty() {
                    let last = i + 1 == frames.len() && kill_at < film.frames.len();
                    write(&mut disk, &referee, &mut writer, last && crash_between);
                }
            }
            if kill_at == film.frames.len() {
                break;
            }
            referee = Referee::from_journal(
                &disk.0,
                Some(&disk.1),
                &TileCatalogue::arkhanos(),
                RefereeSettings::default(),
            )
            .unwrap();
            writer = JournalWriter::new(Some(referee.journal_notes()));
            next = referee.resume_after().map_or(0, |f| f as usize + 1);
        }
        assert_eq!(referee.record(), whole.record());
        assert_eq!(referee.flags(), whole.flags());
        assert_eq!(referee.desyncs(), whole.desyncs());
        assert_eq!(prestige(referee.state()), prestige(whole.state()));
        // The journal is a game record that replays to the same game.
        let record = GameRecord::from_json(&disk.0).unwrap();
        let replayed = record
            .replay(&TileCatalogue::arkhanos(), |_, _, _, _| {})
            .unwrap();
        assert_eq!(prestige(&replayed), prestige(whole.state()));
    }
}

#[test]
fn a_bumped_tower_is_a_desync_until_the_table_is_put_back() {
    let film = film(3, PLAYERS[0], 0.0, 0.0);
    let mut referee = referee_for(&film);
    // Up to the middle of the game, then a die of the roll vanishes (knocked off the mat).
    let middle = film.frames.len() / 2;
    for frame in &film.frames[..middle] {
        referee.observe(frame);
    }
    let state = referee.state().clone();
    let before = referee.record().actions.len();
    let mut frame = film.frames[middle - 1].frame;
    let mut show = |referee: &mut Referee, observation: &Observation, count: usize| {
        for _ in 0..count {
            frame += 1;
            let mut o = observation.clone();
            o.frame = frame;
            o.time_s = frame as f64 / 15.0;
            referee.observe(&o);
        }
    };
    let mut bumped = Observation::perfect(&state, 0, 0.0);
    let Some(i) = bumped.dice.iter().position(|d| d.place != Place::RollArea) else {
        return;
    };
    let moved = bumped.dice[i];
    if let Place::Tower {
        tower,
        level,
        pillar,
        ..
    } = moved.place
    {
        // The die slides to another pillar of its floor.
        let other = PillarIndex::ALL[(pillar.index() + 1) % 3];
        bumped.dice[i].place = Place::Tower {
            tower,
            level,
            pillar: other,
            buried: false,
        };
    }
    show(&mut referee, &bumped, 6);
    assert_eq!(
        referee.record().actions.len(),
        before,
        "a move was invented"
    );
    let desync = referee.active_desync().expect("no desync").clone();
    assert!(!desync.differences.is_empty());
    assert!(
        desync.differences.iter().any(|d| d.contains("Pillar")),
        "{desync:#?}"
    );
    show(&mut referee, &Observation::perfect(&state, 0, 0.0), 6);
    assert!(referee.active_desync().is_none());
    assert_eq!(referee.record().actions.len(), before);
}

fn run_with(film: &Film, frames: &[Observation], settings: RefereeSettings) -> Referee {
    let mut referee =
        Referee::new(&film.truth.setup, &TileCatalogue::arkhanos(), settings).unwrap();
    for frame in frames {
        referee.observe(frame);
    }
    referee
}

/// A die read with another value for two frames at a time, now and then (a glare, a pip
/// hidden by a passing sleeve), right after a hand too: voted over five frames, as the
/// reader path is (each table held for a second), the game is refereed as if it had been
/// read right.
#[test]
fn a_value_misread_for_a_few_frames_changes_nothing() {
    let voted = RefereeSettings {
        vote_frames: 5,
        ..RefereeSettings::default()
    };
    for seed in 40..43 {
        let film = film_held(seed, PLAYERS[seed as usize % 3], 0.0, 0.2, 15);
        let clean = run_with(&film, &film.frames, voted);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut frames = film.frames.clone();
        let mut misread = 0;
        let mut i = 0;
        while i + 2 < frames.len() {
            let still = !frames[i].is_covered() && !frames[i].dice.is_empty();
            if still && rng.random_bool(0.1) {
                let d = rng.random_range(0..frames[i].dice.len());
                let wrong = frames[i].dice[d].die.value.opposite();
                for frame in &mut frames[i..i + 2] {
                    if let Some(die) = frame.dice.get_mut(d) {
                        die.die.value = wrong;
                    }
                }
                misread += 1;
                i += 8;
            } else {
                i += 1;
            }
        }
        assert!(misread > 20, "seed {seed}: {misread} misreadings");
        let referee = run_with(&film, &frames, voted);
        assert!(
            referee.desyncs().is_empty(),
            "seed {seed}: {:#?}",
            referee.desyncs()
        );
        assert_eq!(referee.flags().len(), clean.flags().len(), "seed {seed}");
        check_actions(&film, &referee);
        assert_eq!(
            visible_state(referee.state()),
            visible_state(&film.final_state),
            "seed {seed}"
        );
    }
}

/// Frames lost (a busy machine, a camera that stutters): a fifth of them, in runs. Moves
/// whose settled table was lost are explained together with the next; nothing is invented
/// and no desync is raised.
#[test]
fn dropped_frames_invent_nothing() {
    for seed in 50..53 {
        let film = film(seed, PLAYERS[seed as usize % 3], 0.0, 0.0);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut frames = Vec::new();
        let mut i = 0;
        while i < film.frames.len() {
            if rng.random_bool(0.05) {
                i += rng.random_range(2..8);
            } else {
                frames.push(film.frames[i].clone());
                i += 1;
            }
        }
        assert!(frames.len() * 10 < film.frames.len() * 9, "seed {seed}");
        let referee = run_with(&film, &frames, RefereeSettings::default());
        assert!(
            referee.desyncs().is_empty(),
            "seed {seed}: {:#?}",
            referee.desyncs()
        );
        assert!(
            referee.flags().is_empty(),
            "seed {seed}: {:#?}",
            referee.flags()
        );
        check_actions(&film, &referee);
    }
}

/// A hand that never leaves the table: nothing settles, so nothing is confirmed, however the
/// table changes under it; when it leaves, the moves made meanwhile are explained together.
#[test]
fn a_hand_that_stays_over_the_table_confirms_nothing_until_it_leaves() {
    let film = film(21, PLAYERS[0], 0.0, 0.0);
    let middle = film.frames.len() / 2;
    let mut referee = run_with(&film, &film.frames[..middle], RefereeSettings::default());
    let before = referee.record().actions.clone();
    // The rest of the game, its frames all under the hand, up to a few moves on.
    let mut frames: Vec<Observation> = film.frames[middle..].to_vec();
    for frame in &mut frames {
        frame.covered = vec![Zone::Table];
    }
    let later = frames.len().min(40);
    for frame in &frames[..later] {
        assert!(referee.observe(frame).is_empty(), "frame {}", frame.frame);
    }
    assert_eq!(referee.record().actions, before);
    // The hand leaves: the table as it now is, in the clear.
    let mut clear = film.frames[middle + later - 1].clone();
    clear.covered.clear();
    for k in 0..10 {
        let mut o = clear.clone();
        o.frame = film.frames.len() as u64 + k;
        referee.observe(&o);
    }
    assert!(referee.desyncs().is_empty(), "{:#?}", referee.desyncs());
    assert!(referee.flags().is_empty(), "{:#?}", referee.flags());
    let got = &referee.record().actions;
    assert!(got.len() > before.len(), "nothing was caught up");
    // Every action the true one, but where a note says the table did not show which.
    let noted: Vec<usize> = (referee.notes().iter())
        .filter(|n| n.kind == referee::NoteKind::Unseen)
        .flat_map(|n| n.actions.clone())
        .collect();
    let wrong: Vec<usize> = (0..got.len())
        .filter(|&i| {
            let (g, w) = (got.get(i), film.truth.actions.get(i));
            g != w && !same_roll(g, w) && !noted.contains(&i)
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "actions {wrong:?}: {:#?}",
        referee.notes()
    );
}

/// Prints a filmed game and the referee's record side by side, its flags, notes and
/// desyncs: `SEED=8 QUICK=0 ILLEGAL=0.25 cargo test -p tablesight-referee --test games
/// debug_film -- --ignored --nocapture`.
#[test]
#[ignore = "a tool to look at one game"]
fn debug_film() {
    let seed: u64 = std::env::var("SEED").unwrap().parse().unwrap();
    let quick: f64 = std::env::var("QUICK")
        .unwrap_or("0.4".into())
        .parse()
        .unwrap();
    let players = PLAYERS[seed as usize % 3];
    let illegal: f64 = std::env::var("ILLEGAL")
        .unwrap_or("0".into())
        .parse()
        .unwrap();
    let film = film(seed, players, quick, illegal);
    let referee = run(&film);
    for s in &film.staged {
        println!(
            "staged {}-{} {} {}",
            s.first, s.last, s.spelled, s.violation
        );
    }
    for f in referee.flags() {
        println!("flag {} {:?} {}", f.frame, f.cleared, f.violation);
    }
    for (i, a) in film.truth.actions.iter().enumerate() {
        let got = referee
            .record()
            .actions
            .get(i)
            .map(ToString::to_string)
            .unwrap_or_default();
        let at = referee.confirmed_at().get(i).copied().unwrap_or(0);
        println!("{i:3} {a}    ||| {at} {got}");
    }
    println!("{:#?}", referee.desyncs());
    let (a, b) = (
        visible_state(referee.state()),
        visible_state(&film.final_state),
    );
    for key in a.as_object().unwrap().keys() {
        if a[key] != b[key] {
            println!("differs: {key}\n  referee {}\n  truth   {}", a[key], b[key]);
        }
    }
    for n in referee.notes() {
        println!("note {:?} {}", n.actions, n.text);
    }
    for u in referee.undecided() {
        println!(
            "undecided: {}",
            u.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(" / ")
        );
    }
}
