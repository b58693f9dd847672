//! Prints one random game, event by event: `cargo run -p tablesight-rules --example one_game -- SEED PLAYERS`.
use rules::{GameSetup, PlayerColor, TileCatalogue, random_game, rng_from_seed};

fn main() {
    let mut args = std::env::args().skip(1);
    let seed = args.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    let count = args.next().and_then(|s| s.parse().ok()).unwrap_or(3);
    let catalogue = TileCatalogue::arkhanos();
    let mut rng = rng_from_seed(seed);
    let setup = GameSetup::random(&PlayerColor::ALL[..count], &catalogue, &mut rng);
    let Ok((record, _)) = random_game(setup, &catalogue, &mut rng) else {
        return;
    };
    let Ok(replay) = record.replay(&catalogue) else {
        return;
    };
    for (_, events) in &replay.events {
        for event in events {
            println!("{event}");
        }
    }
}
