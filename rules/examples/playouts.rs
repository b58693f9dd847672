//! Plays full random legal games as the `playouts` bench does, for a profiler:
//! `cargo build --release --example playouts -p tablesight-rules`, then
//! `valgrind --tool=callgrind target/release/examples/playouts 3 200` (players, games).
//! Prints the games' total prestige, so that two versions can be seen to play the same games.

use rules::{GameSetup, PlayerColor, TileCatalogue, random_game, rng_from_seed};

fn main() {
    let mut args = std::env::args()
        .skip(1)
        .map(|a| a.parse::<u64>().unwrap_or(0));
    let players = args.next().map_or(3, |n| n.clamp(2, 4) as usize);
    let games = args.next().unwrap_or(1000);
    let catalogue = TileCatalogue::arkhanos();
    let mut prestige = 0u64;
    for seed in 1..=games {
        let mut rng = rng_from_seed(seed);
        let setup = GameSetup::random(&PlayerColor::ALL[..players], &catalogue, &mut rng);
        let Ok((_, state)) = random_game(setup, &catalogue, &mut rng) else {
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
