//! The game journal: two files, each written whole and atomically by the caller after
//! every change.
//!
//! - the record (`tablesight-game` v1): the setup and every confirmed action, a valid game
//!   record for `tablesight replay` at every moment;
//! - the notes beside it (`tablesight-referee-notes` v1): where the referee stood (the frame
//!   of its last change, when each action was confirmed, its flags, desyncs and notes).
//!
//! The notes are written first and keep the version before the last one too, so that after
//! a crash between the two writes one of them still matches the record on disk; the
//! referee resumes from the record and the matching notes.

use rules::GameRecord;
use serde::{Deserialize, Serialize};

use crate::error::RefereeError;
use crate::referee::{Desync, Flag, Note};

const NOTES_FORMAT: &str = "tablesight-referee-notes";
const NOTES_VERSION: u32 = 1;

/// Where the referee stood after a number of confirmed actions.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JournalNotes {
    /// The number of actions of the record these notes go with.
    pub actions: usize,
    /// A fingerprint of that record's actions (moves taken back change them without
    /// changing their number).
    #[serde(default)]
    pub digest: String,
    /// The frame of the last change written: frames after it are still to be refereed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<u64>,
    /// The frame where each action of the record was confirmed.
    #[serde(default)]
    pub confirmed_at: Vec<u64>,
    #[serde(default)]
    pub flags: Vec<Flag>,
    #[serde(default)]
    pub desyncs: Vec<Desync>,
    #[serde(default)]
    pub notes: Vec<Note>,
    /// Explanations of the last table the referee could not yet choose between, each a list
    /// of actions after the record's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub undecided: Vec<Vec<rules::Action>>,
}

/// The notes file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NotesFile {
    pub format: String,
    pub version: u32,
    pub current: JournalNotes,
    /// The notes written before `current`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous: Option<JournalNotes>,
}

impl NotesFile {
    pub fn from_json(json: &str) -> Result<Self, RefereeError> {
        let file: Self =
            serde_json::from_str(json).map_err(|e| RefereeError::Journal(e.to_string()))?;
        if file.format != NOTES_FORMAT || file.version != NOTES_VERSION {
            return Err(RefereeError::Journal(format!(
                "the notes are \"{}\" version {}; this referee reads \"{NOTES_FORMAT}\" version {NOTES_VERSION}",
                file.format, file.version
            )));
        }
        Ok(file)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The notes that go with `record`.
    pub fn matching(&self, record: &GameRecord) -> Option<&JournalNotes> {
        let digest = digest(record);
        std::iter::once(&self.current)
            .chain(&self.previous)
            .find(|notes| notes.actions == record.actions.len() && notes.digest == digest)
    }
}

/// What to write after a change, in this order, each file atomically (written aside,
/// flushed to disk, renamed over the old one).
#[derive(Clone, Debug, PartialEq)]
pub struct JournalWrite {
    pub notes_json: String,
    /// The record, when it changed.
    pub record_json: Option<String>,
}

/// Keeps the last notes written, to make the next write safe.
#[derive(Clone, Debug, Default)]
pub struct JournalWriter {
    last: Option<JournalNotes>,
}

impl JournalWriter {
    /// A writer that continues the notes found when resuming (`None` for a new journal).
    pub fn new(last: Option<JournalNotes>) -> Self {
        Self { last }
    }

    /// The files to write for `notes` and `record`.
    pub fn next(&mut self, notes: JournalNotes, record: &GameRecord) -> JournalWrite {
        let record_changed = self
            .last
            .as_ref()
            .is_none_or(|last| last.actions != notes.actions || last.digest != notes.digest);
        let file = NotesFile {
            format: NOTES_FORMAT.to_owned(),
            version: NOTES_VERSION,
            current: notes.clone(),
            previous: self.last.take(),
        };
        self.last = Some(notes);
        JournalWrite {
            notes_json: file.to_json(),
            record_json: record_changed.then(|| record.to_json()),
        }
    }
}

/// The fingerprint of a record's actions: 64-bit FNV-1a of their JSON, in hexadecimal
/// (stable across platforms and compiler versions, unlike the standard hasher).
pub(crate) fn digest(record: &GameRecord) -> String {
    let text = serde_json::to_string(&(&record.actions, &record.overridden)).unwrap_or_default();
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{hash:016x}")
}

#[cfg(test)]
mod tests {
    use rules::{GameSetup, PlayerColor, TileCatalogue};

    use super::*;

    #[test]
    fn the_notes_keep_the_version_that_matches_the_record_on_disk() {
        let catalogue = TileCatalogue::arkhanos();
        let mut rng = rules::rng_from_seed(3);
        let setup = GameSetup::random(&[PlayerColor::Red, PlayerColor::Blue], &catalogue, &mut rng);
        let (full, _) = rules::random_game(setup.clone(), &catalogue, &mut rng)
            .unwrap_or_else(|e| panic!("{e}"));
        let mut record = GameRecord::new(full.setup.clone());
        let notes = |record: &GameRecord, frame| JournalNotes {
            actions: record.actions.len(),
            digest: digest(record),
            frame: Some(frame),
            confirmed_at: vec![frame; record.actions.len()],
            ..JournalNotes::default()
        };
        let mut writer = JournalWriter::new(None);
        let first = writer.next(notes(&record, 0), &record);
        assert!(first.record_json.is_some());
        let on_disk = record.clone();
        record.actions.push(full.actions[0].clone());
        let second = writer.next(notes(&record, 5), &record);
        // Killed after the notes and before the record: the old record matches `previous`.
        let file = NotesFile::from_json(&second.notes_json).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(file.matching(&on_disk).and_then(|n| n.frame), Some(0));
        assert_eq!(file.matching(&record).and_then(|n| n.frame), Some(5));
        // The same number of actions but other ones (a move taken back, another made).
        let mut other = record.clone();
        other.actions[0] = full.actions[1].clone();
        assert!(file.matching(&other).is_none());
        let third = writer.next(notes(&other, 9), &other);
        assert!(
            third.record_json.is_some(),
            "a changed record must be written"
        );
        let unchanged = writer.next(notes(&other, 12), &other);
        assert!(unchanged.record_json.is_none());
    }
}
