//! Plays full random legal games as the `playouts` bench does, for a profiler:
//! `cargo build --release --example playouts -p tablesight-rules`, then
//! `valgrind --tool=callgrind target/release/examples/playouts 3 200` (players, games; add
//! `record` to play them with `random_game`, which keeps their record, as the bench's
//! `random_game` group does). Prints the games' total prestige, so that two versions can be
//! seen to play the same games.

use rules::{GameSetup, PlayerColor, TileCatalogue, random_game, rng_from_seed};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize| args.get(i).and_then(|a| a.parse::<u64>().ok());
    let players = number(0).map_or(3, |n| n.clamp(2, 4) as usize);
    let games = number(1).unwrap_or(1000);
    let with_record = args.get(2).is_some_and(|a| a == "record");
    let catalogue = TileCatalogue::arkhanos();
    let mut prestige = 0u64;
    for seed in 1..=games {
        let mut rng = rng_from_seed(seed);
        let setup = GameSetup::random(&PlayerColor::ALL[..players], &catalogue, &mut rng);
        let played = if with_record {
            random_game(setup, &catalogue, &mut rng)
                .map(|(_, state)| state)
                .ok()
        } else {
            setup.start(&catalogue).ok().and_then(|mut state| {
                state.play_out(&mut rng).ok()?;
                Some(state)
            })
        };
        let Some(state) = played else {
            eprintln!("game {seed} could not be played");
            std::process::exit(1);
        };
        prestige += state
            .players()
            .iter()
            .map(|p| u64::from(p.prestige))
            .sum::<u64>();
    }
    println!("{games} games of {players} players, {prestige} prestige in all");
}
