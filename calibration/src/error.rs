//! What can go wrong when tying the camera to the table.

/// Why a calibration could not be made or used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CalibrationError {
    #[error(
        "only {found} mat points agree with each other; at least {needed} are needed (are enough markers in view?)"
    )]
    TooFewPoints { found: usize, needed: usize },
    #[error("the visible markers do not fix the camera (all in a line, or too small to measure)")]
    Degenerate,
    #[error("the mat layout file cannot be read: {0}")]
    LayoutFormat(String),
    #[error("marker detection failed: {0}")]
    Detector(String),
    #[error("the calibration file cannot be read: {0}")]
    FileFormat(String),
    #[error("the saved calibration does not fit this view: {0}")]
    DoesNotFit(String),
    #[error("unknown paper \"{0}\"; choose A4, A3, A2 or Letter")]
    UnknownPaper(String),
    #[error("the mat layout has problems:\n{}", .0.join("\n"))]
    InvalidLayout(Vec<String>),
}
