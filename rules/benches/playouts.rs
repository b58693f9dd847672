//! Full random legal games per second on one core: `cargo bench -p tablesight-rules`.
//! Each iteration sets up a game, draws every roll from the bag and plays random legal
//! actions (from `legal_actions`) to the end-of-game tally: `play_out` as hints by playouts
//! would play a position out (`GameState::play_out`, no record kept), `random_game` the same
//! games with their record (`random_game`; the group called `random_playout` until
//! 2026-11-26 measured these).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rules::{GameRng, GameSetup, PlayerColor, TileCatalogue, random_game, rng_from_seed};

/// A group of games of 2, 3 and 4 players, each set up from its seed and played by `play`.
fn bench_games<T>(
    c: &mut Criterion,
    name: &str,
    play: impl Fn(GameSetup, &TileCatalogue, &mut GameRng) -> T,
) {
    let catalogue = TileCatalogue::arkhanos();
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Elements(1));
    for count in 2..=4 {
        let players = &PlayerColor::ALL[..count];
        let mut seed = 0u64;
        group.bench_function(format!("{count}_players"), |b| {
            b.iter(|| {
                seed += 1;
                let mut rng = rng_from_seed(seed);
                let setup = GameSetup::random(players, &catalogue, &mut rng);
                black_box(play(setup, &catalogue, &mut rng))
            });
        });
    }
    group.finish();
}

fn playouts(c: &mut Criterion) {
    bench_games(c, "play_out", |setup, catalogue, rng| {
        setup.start(catalogue).map(|mut state| {
            let played = state.play_out(rng);
            (played, state)
        })
    });
    bench_games(c, "random_game", |setup, catalogue, rng| {
        random_game(setup, catalogue, rng).map(|(_, state)| state)
    });
}

criterion_group!(benches, playouts);
criterion_main!(benches);
