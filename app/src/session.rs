//! A game being refereed: the record, every state along it (for undo and redo), and the
//! log of events. The table on screen is drawn from here, whether clicks or, later, the
//! camera changed it.

use std::collections::BTreeMap;

use rules::{
    Action, Event, GameRecord, GameSetup, GameState, PlayerColor, RecordError, SetupError,
    TileCatalogue, Violation,
};

/// One played action with what it caused.
#[derive(Clone, Debug)]
pub struct Step {
    pub action: Action,
    pub overridden: bool,
    pub events: Vec<Event>,
}

/// A game in progress with its history.
#[derive(Clone, Debug)]
pub struct Session {
    setup: GameSetup,
    start: GameState,
    /// `states[i]` is the state after `steps[i]`.
    states: Vec<GameState>,
    steps: Vec<Step>,
    /// Undone steps, the next to redo last.
    undone: Vec<(Action, bool)>,
}

impl Session {
    /// Starts a game; the set-up is stored with every tile in full.
    pub fn new(setup: &GameSetup, catalogue: &TileCatalogue) -> Result<Self, SetupError> {
        let setup = setup.resolved(catalogue);
        let start = setup.start(catalogue)?;
        Ok(Self {
            setup,
            start,
            states: Vec::new(),
            steps: Vec::new(),
            undone: Vec::new(),
        })
    }

    /// Replays a saved record.
    pub fn from_record(
        record: &GameRecord,
        catalogue: &TileCatalogue,
    ) -> Result<Self, RecordError> {
        let mut session = Self::new(&record.setup, catalogue)?;
        record.replay(catalogue, |index, action, events, state| {
            session.steps.push(Step {
                action: action.clone(),
                overridden: record.overridden.contains(&index),
                events: events.to_vec(),
            });
            session.states.push(state.clone());
        })?;
        Ok(session)
    }

    pub fn state(&self) -> &GameState {
        self.states.last().unwrap_or(&self.start)
    }

    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Plays an action; an illegal one changes nothing and says why.
    pub fn play(&mut self, action: &Action) -> Result<(), Violation> {
        self.push(action, false)
    }

    /// Plays an action the players agreed to allow against a dice restriction.
    pub fn play_overriding(&mut self, action: &Action) -> Result<(), Violation> {
        self.push(action, true)
    }

    fn push(&mut self, action: &Action, overriding: bool) -> Result<(), Violation> {
        let state = self.state().clone();
        let played = if overriding {
            state.play_overriding(action)
        } else {
            state.play_with_events(action)
        };
        let (next, events) = played.map_err(|illegal| illegal.violation)?;
        let overridden = matches!(events.first(), Some(Event::Overridden { .. }));
        self.steps.push(Step {
            action: action.clone(),
            overridden,
            events,
        });
        self.states.push(next);
        self.undone.clear();
        Ok(())
    }

    pub fn can_undo(&self) -> bool {
        !self.steps.is_empty()
    }

    pub fn can_redo(&self) -> bool {
        !self.undone.is_empty()
    }

    /// Takes back the last action.
    pub fn undo(&mut self) -> bool {
        let Some(step) = self.steps.pop() else {
            return false;
        };
        self.states.pop();
        self.undone.push((step.action, step.overridden));
        true
    }

    /// Plays again the last action taken back.
    pub fn redo(&mut self) -> bool {
        let Some((action, overridden)) = self.undone.pop() else {
            return false;
        };
        let undone = std::mem::take(&mut self.undone);
        let replayed = self.push(&action, overridden).is_ok();
        self.undone = undone;
        replayed
    }

    /// The game record: set-up, actions, and which actions were overrides.
    pub fn record(&self) -> GameRecord {
        let mut record = GameRecord::new(self.setup.clone());
        for (index, step) in self.steps.iter().enumerate() {
            record.actions.push(step.action.clone());
            if step.overridden {
                record.overridden.insert(index);
            }
        }
        record
    }

    /// Each player's prestige at the end of each round so far (index 0 = before round 1).
    pub fn prestige_by_round(&self) -> Vec<BTreeMap<PlayerColor, u32>> {
        let state = self.state();
        let players: Vec<PlayerColor> = state.players().iter().map(|p| p.color).collect();
        let last_round = if state.is_over() {
            state.rounds()
        } else {
            state.round()
        };
        (0..=last_round)
            .map(|round| {
                players
                    .iter()
                    .map(|&player| {
                        let points = state
                            .ledger()
                            .iter()
                            .filter(|e| e.player == player && e.round <= round)
                            .map(|e| e.points)
                            .sum();
                        (player, points)
                    })
                    .collect()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rules::{GameSetup, rng_from_seed};

    fn session() -> Session {
        let catalogue = TileCatalogue::arkhanos();
        let setup = GameSetup::random(
            &[PlayerColor::Red, PlayerColor::Green],
            &catalogue,
            &mut rng_from_seed(3),
        );
        Session::new(&setup, &catalogue).unwrap()
    }

    fn play(session: &mut Session, line: &str) -> Result<(), Violation> {
        session.play(&Action::from_notation(line).unwrap())
    }

    #[test]
    fn undo_and_redo_walk_the_history() {
        let mut s = session();
        let first = s.state().first_player().name().to_lowercase();
        play(&mut s, "roll pink1 pink2 pink3 pink4 pink5").unwrap();
        play(&mut s, &format!("{first} place pink1 apprentice central1")).unwrap();
        let placed = s.state().clone();
        assert!(s.undo());
        assert!(s.state().awaiting_roll() || s.state().roll().len() == 5);
        assert!(s.redo());
        assert_eq!(s.state(), &placed);
        assert!(!s.can_redo());
        assert!(s.undo());
        play(&mut s, &format!("{first} place pink2 apprentice central1")).unwrap();
        assert!(!s.can_redo(), "a new action clears the redo list");
    }

    #[test]
    fn an_illegal_action_changes_nothing() {
        let mut s = session();
        play(&mut s, "roll pink1 pink2 pink3 pink4 pink5").unwrap();
        let before = s.state().clone();
        let steps = s.steps().len();
        let error = play(&mut s, "red place blue6 apprentice A1");
        assert!(error.is_err());
        assert_eq!(s.state(), &before);
        assert_eq!(s.steps().len(), steps);
    }

    #[test]
    fn the_record_replays_to_the_same_state() {
        let mut s = session();
        let first = s.state().first_player().name().to_lowercase();
        play(&mut s, "roll pink1 pink2 pink3 pink4 pink5").unwrap();
        play(&mut s, &format!("{first} place pink1 apprentice central1")).unwrap();
        let catalogue = TileCatalogue::arkhanos();
        let again = Session::from_record(&s.record(), &catalogue).unwrap();
        assert_eq!(again.state(), s.state());
        assert_eq!(again.prestige_by_round(), s.prestige_by_round());
    }
}
