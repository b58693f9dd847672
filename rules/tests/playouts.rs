//! Property tests over random legal games of 2 to 4 players: conservation holds at every
//! step, `legal_actions` and `is_legal` agree, and replaying a record reproduces it.

// A test that cannot read its fixtures should fail loudly; helpers unwrap like tests do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use rand::Rng;
use rules::{
    Action, BonusTarget, Die, DieColor, DieValue, Direction, GameRecord, GameSetup, GameState,
    MeepleSource, PillarIndex, PlayerColor, Rank, SpellEffect, SpellId, TileCatalogue, TowerId,
    random_game, rng_from_seed,
};

fn players(count: usize, rng: &mut impl Rng) -> Vec<PlayerColor> {
    let mut all = PlayerColor::ALL.to_vec();
    // A random seating of `count` colours.
    for i in (1..all.len()).rev() {
        all.swap(i, rng.random_range(0..=i));
    }
    all.truncate(count);
    all
}

fn game(seed: u64, count: usize) -> (GameRecord, GameState) {
    let catalogue = TileCatalogue::arkhanos();
    let mut rng = rng_from_seed(seed);
    let seating = players(count, &mut rng);
    let setup = GameSetup::random(&seating, &catalogue, &mut rng);
    random_game(setup, &catalogue, &mut rng).unwrap()
}

/// Actions worth asking `is_legal` about: a superset of the legal ones, with dice from the
/// roll, the mana pool, the central tower and a few others, for every player.
fn candidates(state: &GameState, rng: &mut impl Rng) -> Vec<Action> {
    let mut dice: Vec<Die> = state.roll().to_vec();
    dice.extend(state.mana_pool());
    dice.extend(state.tower(TowerId::Central).dice());
    for _ in 0..2 {
        dice.push(Die::new(
            DieColor::ALL[rng.random_range(0..4)],
            DieValue::ALL[rng.random_range(0..6)],
        ));
    }
    dice.sort();
    dice.dedup();
    let mut effects = vec![
        SpellEffect::Change {
            direction: Direction::Up,
        },
        SpellEffect::Change {
            direction: Direction::Down,
        },
    ];
    effects.extend(DieColor::ALL.map(|color| SpellEffect::Metamorphosis { color }));
    for &die in &dice {
        effects.push(SpellEffect::Flip { die });
        for &pool in &dice {
            effects.push(SpellEffect::Exchange { rolled: die, pool });
        }
        for pillar in PillarIndex::ALL {
            effects.push(SpellEffect::Permutation {
                rolled: die,
                pillar,
            });
        }
    }
    let mut sources: Vec<MeepleSource> = Rank::ALL.map(MeepleSource::Reserve).to_vec();
    sources.extend(SpellId::ALL.map(MeepleSource::Spellbook));
    let mut targets = vec![BonusTarget::Spellbook];
    for tower in TowerId::ALL {
        for pillar in PillarIndex::ALL {
            targets.push(BonusTarget::Pillar { tower, pillar });
        }
    }
    let mut actions = Vec::new();
    for player in state.players().iter().map(|p| p.color) {
        for &die in &dice {
            for rank in Rank::ALL {
                for tower in TowerId::ALL {
                    for pillar in PillarIndex::ALL {
                        actions.push(Action::Place {
                            player,
                            die,
                            rank,
                            tower,
                            pillar,
                        });
                    }
                }
            }
        }
        for &effect in &effects {
            for via_manipulation in [false, true] {
                actions.push(Action::Cast {
                    player,
                    effect,
                    via_manipulation,
                });
            }
        }
        for &from in &sources {
            for &to in &targets {
                actions.push(Action::BonusMeeple { player, from, to });
            }
        }
        actions.extend(SpellId::ALL.map(|spell| Action::Recall { player, spell }));
        actions.push(Action::SkipBonus { player });
        actions.push(Action::EndTurn { player });
    }
    actions
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    /// Dice and meeples are conserved at every step; the table of every settled state is a
    /// valid snapshot; the game ends with the scores of its final tally.
    #[test]
    fn conservation_holds_at_every_step(seed in any::<u64>(), count in 2usize..=4) {
        let (record, _) = game(seed, count);
        let catalogue = TileCatalogue::arkhanos();
        let mut state = record.setup.start(&catalogue).unwrap();
        for action in &record.actions {
            state = state.play(action).unwrap();
            let problems = state.conservation_problems();
            prop_assert!(problems.is_empty(), "after {action}: {problems:?}");
            let settled = state.turn().is_none_or(|t| t.pending.is_none() && t.completed.is_empty());
            if settled {
                let validated = state.table().to_snapshot().validate();
                prop_assert!(validated.is_ok(), "after {action}: {validated:?}");
            }
        }
        prop_assert!(state.is_over());
        let score = state.final_score().unwrap();
        for player in state.players() {
            prop_assert_eq!(score.totals[&player.color], player.prestige);
            let ledger: u32 = state.ledger().iter().filter(|e| e.player == player.color).map(|e| e.points).sum();
            prop_assert_eq!(ledger, player.prestige);
        }
        prop_assert!(!score.winners.is_empty());
        prop_assert_eq!(state.mana_pool().len(), usize::from(state.rounds()));
    }

    /// Replaying a record from its JSON gives the same events and the same final state.
    #[test]
    fn replay_reproduces_the_game(seed in any::<u64>(), count in 2usize..=4) {
        let (record, state) = game(seed, count);
        let catalogue = TileCatalogue::arkhanos();
        let reread = GameRecord::from_json(&record.to_json()).unwrap();
        prop_assert_eq!(&reread, &record);
        let mut first_events = Vec::new();
        let first = reread.replay(&catalogue, |_, _, e, _| first_events.push(e.to_vec())).unwrap();
        let mut second_events = Vec::new();
        record.replay(&catalogue, |_, _, e, _| second_events.push(e.to_vec())).unwrap();
        prop_assert_eq!(&first, &state);
        prop_assert_eq!(first_events, second_events);
        for action in &record.actions {
            prop_assert_eq!(&Action::from_notation(&action.notation()).unwrap(), action);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 120, ..ProptestConfig::default() })]

    /// At every step, an action is legal exactly when `legal_actions` lists it, and the
    /// list holds no duplicates.
    #[test]
    fn legal_actions_and_is_legal_agree(seed in any::<u64>(), count in 2usize..=4) {
        let (record, _) = game(seed, count);
        let catalogue = TileCatalogue::arkhanos();
        let mut rng = rng_from_seed(seed ^ 0x5eed);
        let mut state = record.setup.start(&catalogue).unwrap();
        for action in &record.actions {
            let legal = state.legal_actions();
            let mut sorted: Vec<String> = legal.iter().map(|a| format!("{a:?}")).collect();
            sorted.sort();
            let before = sorted.len();
            sorted.dedup();
            prop_assert_eq!(before, sorted.len(), "duplicate legal actions");
            for listed in &legal {
                prop_assert!(state.is_legal(listed), "listed but refused: {listed}: {:?}", state.check(listed));
            }
            for candidate in candidates(&state, &mut rng) {
                prop_assert_eq!(
                    state.is_legal(&candidate),
                    legal.contains(&candidate),
                    "{} disagrees ({:?})", candidate, state.check(&candidate)
                );
            }
            state = state.play(action).unwrap();
        }
    }
}
