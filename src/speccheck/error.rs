//! Errors, each carrying the 1-based line it is about.

use thiserror::Error;

/// A problem in the Bikeshed source, at a line and column of that file.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("line {line}, column {column}: {message}")]
pub struct ParseError {
    /// 1-based line in the `.bs` file.
    pub line: usize,
    /// 1-based column, in characters: where the element at fault starts, or the line's first
    /// character that is not white space.
    pub column: usize,
    pub message: String,
}

impl ParseError {
    /// An error about a line; [`super::parse_bs`] places it at the line's first
    /// non-blank character.
    pub(crate) fn new(line: usize, message: impl Into<String>) -> ParseError {
        ParseError {
            line,
            column: 0,
            message: message.into(),
        }
    }

    /// Fills the column from the source when no step knew a better one.
    pub(crate) fn placed(mut self, source: &str) -> ParseError {
        if self.column == 0 {
            self.column = source
                .lines()
                .nth(self.line.saturating_sub(1))
                .map_or(1, |l| {
                    l.chars().take_while(|c| c.is_whitespace()).count() + 1
                });
        }
        self
    }
}

/// A malformed line in a digest file.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("digest line {line}: {message}")]
pub struct DigestError {
    /// 1-based line in the digest.
    pub line: usize,
    pub message: String,
}

impl DigestError {
    pub(crate) fn new(line: usize, message: impl Into<String>) -> DigestError {
        DigestError {
            line,
            message: message.into(),
        }
    }
}
