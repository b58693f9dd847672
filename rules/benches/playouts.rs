//! Full random legal games per second on one core: `cargo bench -p tablesight-rules`.
//! Each iteration sets up a game, draws every roll from the bag and plays random legal
//! actions (from `legal_actions`) to the end-of-game tally: `play_out` as hints by playouts
//! would play a position out (`GameState::play_out`, no record kept), `random_game` the same
//! games with their record (`random_game`; the group called `random_playout` until
//! 2026-11-26 measured these).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rules::{GameSetup, PlayerColor, TileCatalogue, random_game, rng_from_seed};

fn playouts(c: &mut Criterion) {
    let catalogue = TileCatalogue::arkhanos();
    let mut group = c.benchmark_group("play_out");
    group.throughput(Throughput::Elements(1));
    for count in 2..=4 {
        let players = &PlayerColor::ALL[..count];
        let mut seed = 0u64;
        group.bench_function(format!("{count}_players"), |b| {
            b.iter(|| {
                seed += 1;
                let mut rng = rng_from_seed(seed);
                let setup = GameSetup::random(players, &catalogue, &mut rng);
                black_box(setup.start(&catalogue).map(|mut state| {
                    let played = state.play_out(&mut rng);
                    (played, state)
                }))
            });
        });
    }
    group.finish();
}

fn games(c: &mut Criterion) {
    let catalogue = TileCatalogue::arkhanos();
    let mut group = c.benchmark_group("random_game");
    group.throughput(Throughput::Elements(1));
    for count in 2..=4 {
        let players = &PlayerColor::ALL[..count];
        let mut seed = 0u64;
        group.bench_function(format!("{count}_players"), |b| {
            b.iter(|| {
                seed += 1;
                let mut rng = rng_from_seed(seed);
                let setup = GameSetup::random(players, &catalogue, &mut rng);
                black_box(random_game(setup, &catalogue, &mut rng).map(|(_, state)| state))
            });
        });
    }
    group.finish();
}

criterion_group!(benches, playouts, games);
criterion_main!(benches);
