//! Why the referee cannot do what it was asked.

use rules::{RecordError, SetupError};

#[derive(Debug, thiserror::Error)]
pub enum RefereeError {
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// Its cause is in its words, not behind it as a source, so that a chain of errors
    /// says it once.
    #[error("the journal's game record cannot be replayed: {0}")]
    Record(RecordError),
    #[error("the journal cannot be read: {0}")]
    Journal(String),
    #[error("no illegal move is flagged")]
    NoFlag,
    #[error("this move cannot be allowed (only dice restrictions can be waived): {0}")]
    CannotOverride(String),
    #[error("{0}: not something the camera was unsure of")]
    NotUnsure(String),
    #[error("{0}")]
    Illegal(String),
}

impl From<RecordError> for RefereeError {
    fn from(error: RecordError) -> Self {
        Self::Record(error)
    }
}

impl From<serde_json::Error> for RefereeError {
    fn from(error: serde_json::Error) -> Self {
        Self::Journal(error.to_string())
    }
}
