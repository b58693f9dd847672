//! Parsing of the JSON files (tile catalogue, game record, snapshot) with errors that name
//! the place in the file. Parsing works on strings: reading files is the caller's business.

use std::fmt;

use serde::de::DeserializeOwned;

/// A file that is not valid JSON, or not of the expected shape.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct FormatError {
    /// Where in the document, as a path such as `towers[2].top[0].die.color`.
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)?;
        if !self.path.is_empty() && self.path != "." {
            write!(f, ", at {}", self.path)?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Parses `json` into `T`, reporting the path, line and column of the first problem.
pub fn parse_json<T: DeserializeOwned>(json: &str) -> Result<T, FormatError> {
    let deserializer = &mut serde_json::Deserializer::from_str(json);
    let result: Result<T, _> = serde_path_to_error::deserialize(deserializer);
    result.map_err(|error| {
        // A key that could not be read shows as a last segment `?`: the place is its map.
        let path = error.path().to_string();
        let path = match path.strip_suffix('?') {
            Some(map) => map.trim_end_matches('.').to_owned(),
            None => path,
        };
        let inner = error.into_inner();
        // serde_json appends " at line L column C" to its message; we print those apart.
        let message = inner.to_string();
        let message = match message.rfind(" at line ") {
            Some(cut) => message[..cut].to_owned(),
            None => message,
        };
        FormatError {
            path,
            line: inner.line(),
            column: inner.column(),
            message,
        }
    })
}

/// Checks the `format` and `version` fields every Tablesight file begins with.
pub fn check_header(
    found_format: &str,
    found_version: u32,
    format: &str,
    version: u32,
    problems: &mut Vec<String>,
) {
    if found_format != format {
        problems.push(format!(
            "format: expected \"{format}\", found \"{found_format}\""
        ));
    }
    if found_version != version {
        problems.push(format!(
            "version: this Tablesight reads version {version}, the file is version {found_version}"
        ));
    }
}
