//! The referee of Tablesight: what the camera saw, explained by the rules. Frame by frame
//! it waits for the table to settle (no hand over it, the same reading for a while),
//! explains the change since the last settled table by legal actions of the rules engine,
//! flags illegal moves with the rule they break, reports a desync when nothing explains the
//! table (it never invents a move), and keeps a journal that is a valid game record.
//!
//! It knows the rules and what the camera sees (as an [`Observation`], in the words of the
//! game); it never knows the GUI, files or clocks (times come with the frames).

mod amend;
mod error;
mod explain;
mod journal;
mod observation;
mod referee;
mod settle;
mod view;
mod vote;

pub use error::RefereeError;
pub use explain::SearchLimits;
pub use journal::{JournalNotes, JournalWrite, JournalWriter, NotesFile};
pub use observation::{Observation, Place, SeenDie, SeenFloor, SeenMeeple, Zone};
pub use referee::{
    Desync, Flag, FlagOutcome, Note, NoteKind, Referee, RefereeEvent, RefereeSettings, RollDieOdds,
    differing_moves, meeple_put, with_rank,
};
pub use settle::SettleRule;
pub use vote::Voter;
