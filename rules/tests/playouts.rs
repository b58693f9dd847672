//! Property tests over random legal games of 2 to 4 players: conservation holds at every
//! step, `legal_actions` and `is_legal` agree, replaying a record reproduces it, no turn
//! ends without the placement that was possible at its start, and no spell is cast in the
//! turn its meeple arrived.

// A test that cannot read its fixtures should fail loudly; helpers unwrap like tests do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use rand::Rng;
use rand::seq::IndexedRandom;
use rules::{
    Action, BonusTarget, Die, DieColor, DieValue, Direction, Event, GameRecord, GameRng, GameSetup,
    GameState, MeepleSource, PillarIndex, PlayerColor, Rank, SpellEffect, SpellId, TileCatalogue,
    TowerId, random_game, rng_from_seed,
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

/// A set-up and a generator for a game played here step by step.
fn start(seed: u64, count: usize) -> (GameState, GameRng) {
    let catalogue = TileCatalogue::arkhanos();
    let mut rng = rng_from_seed(seed);
    let seating = players(count, &mut rng);
    let setup = GameSetup::random(&seating, &catalogue, &mut rng);
    (setup.start(&catalogue).unwrap(), rng)
}

/// A random legal action that fills spellbooks and casts spells more often than a uniform
/// choice would, so that the spell rules are exercised in most games.
fn spell_loving_choice(legal: &[Action], rng: &mut impl Rng) -> Action {
    let liked: Vec<&Action> = legal
        .iter()
        .filter(|a| {
            matches!(
                a,
                Action::Cast { .. }
                    | Action::BonusMeeple {
                        to: BonusTarget::Spellbook,
                        ..
                    }
            )
        })
        .collect();
    match liked.choose(rng) {
        Some(action) if rng.random_bool(0.6) => (*action).clone(),
        _ => legal.choose(rng).unwrap().clone(),
    }
}

/// The spellbook space whose meeple a cast returns to the reserve.
fn caster(action: &Action) -> Option<SpellId> {
    match action {
        Action::Cast {
            via_manipulation: true,
            ..
        } => Some(SpellId::Manipulation),
        Action::Cast { effect, .. } => Some(effect.spell()),
        _ => None,
    }
}

/// Whether the player whose turn it is can place a die: now, or after taking a meeple back
/// from the spellbook when the reserve is empty. Asked of `legal_actions`, whose agreement
/// with the rules is checked by `legal_actions_and_is_legal_agree`.
fn placement_possible(state: &GameState) -> bool {
    let legal = state.legal_actions();
    let places = |actions: &[Action]| actions.iter().any(|a| matches!(a, Action::Place { .. }));
    places(&legal)
        || legal.iter().any(|action| {
            matches!(action, Action::Recall { .. })
                && places(&state.clone().play(action).unwrap().legal_actions())
        })
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

    /// At every step, an action is legal exactly when `legal_actions` lists it, the list
    /// holds no duplicates, and `random_legal_action` picks from it.
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
            // A random legal action is the one at a random index of the list.
            let mut draw = rng.clone();
            let expected = (!legal.is_empty()).then(|| legal[draw.random_range(0..legal.len())].clone());
            prop_assert_eq!(state.random_legal_action(&mut rng), expected);
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

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// A turn never ends without a placement while one was possible at its start, whatever
    /// spells and recalls come first: besides the game's own choices, from every turn's
    /// start, random sequences of spells and recalls are tried and ending the turn must stay
    /// refused along each of them.
    #[test]
    fn no_turn_ends_without_placing_when_a_placement_was_possible(
        seed in any::<u64>(),
        count in 2usize..=4,
    ) {
        let (mut state, mut rng) = start(seed, count);
        let mut possible_at_start = false;
        let mut new_turn = true;
        while !state.is_over() {
            if state.awaiting_roll() {
                let dice = state.draw_roll(&mut rng);
                state = state.play(&Action::Roll { dice }).unwrap();
                new_turn = true;
                continue;
            }
            let turn = state.turn().unwrap();
            let player = turn.player;
            if new_turn {
                new_turn = false;
                possible_at_start = placement_possible(&state);
                if possible_at_start {
                    for _ in 0..6 {
                        let mut walk = state.clone();
                        for _ in 0..6 {
                            let end = Action::EndTurn { player };
                            prop_assert!(
                                !walk.is_legal(&end),
                                "{player} may end the turn without placing: {:?}",
                                walk.check(&end)
                            );
                            let legal = walk.legal_actions();
                            let can_go_on = legal
                                .iter()
                                .any(|a| matches!(a, Action::Place { .. } | Action::Recall { .. }));
                            prop_assert!(can_go_on, "{player} can neither place nor recall");
                            let detours: Vec<&Action> = legal
                                .iter()
                                .filter(|a| matches!(a, Action::Cast { .. } | Action::Recall { .. }))
                                .collect();
                            let Some(detour) = detours.choose(&mut rng) else { break };
                            walk = walk.play(detour).unwrap();
                        }
                    }
                }
            }
            let legal = state.legal_actions();
            prop_assert!(!legal.is_empty(), "no legal action for {player}");
            let action = spell_loving_choice(&legal, &mut rng);
            if let Action::EndTurn { .. } = action {
                prop_assert!(
                    state.turn().unwrap().placed.is_some() || !possible_at_start,
                    "{player} ended the turn without placing, though a placement was possible at its start"
                );
                new_turn = true;
            }
            state = state.play(&action).unwrap();
        }
    }

    /// A meeple that reaches the spellbook during a turn is never cast in that turn: neither
    /// listed by `legal_actions` nor accepted by `is_legal`, directly or as Manipulation.
    #[test]
    fn no_spell_is_cast_in_the_turn_its_meeple_arrived(seed in any::<u64>(), count in 2usize..=4) {
        let (mut state, mut rng) = start(seed, count);
        let mut arrived: Vec<SpellId> = Vec::new();
        let mut arrivals = 0;
        while !state.is_over() {
            let action = if state.awaiting_roll() {
                Action::Roll { dice: state.draw_roll(&mut rng) }
            } else {
                let legal = state.legal_actions();
                for action in &legal {
                    if let Some(spell) = caster(action) {
                        prop_assert!(!arrived.contains(&spell), "listed: {action}");
                    }
                }
                if !arrived.is_empty() {
                    for candidate in candidates(&state, &mut rng) {
                        if let Some(spell) = caster(&candidate) {
                            prop_assert!(
                                !(arrived.contains(&spell) && state.is_legal(&candidate)),
                                "accepted: {candidate}"
                            );
                        }
                    }
                }
                spell_loving_choice(&legal, &mut rng)
            };
            let (next, events) = state.play_with_events(&action).unwrap();
            state = next;
            for event in events {
                match event {
                    Event::BonusMeeple { spell: Some(spell), .. } => {
                        arrived.push(spell);
                        arrivals += 1;
                    }
                    Event::TurnEnded { .. } => arrived.clear(),
                    _ => {}
                }
            }
        }
        prop_assert!(arrivals > 0, "no meeple reached a spellbook in this game");
    }
}
