use std::path::PathBuf;

/// What can go wrong while rendering or writing the synthetic table.
#[derive(Debug, thiserror::Error)]
pub enum SynthError {
    #[error("the sprites cannot be read: {0}")]
    Sprites(String),
    #[error("the table cannot be laid out: {0}")]
    Layout(String),
    #[error("the game cannot be replayed: {0}")]
    Game(String),
    #[error("cannot write {path}: {reason}")]
    Write { path: PathBuf, reason: String },
    #[error("cannot encode the image: {0}")]
    Encode(String),
}
