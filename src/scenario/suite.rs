//! Finding and loading scenario files: each file once however it is reached (two names for one
//! folder, a link to a folder it is in), only regular files, and none larger than
//! [`MAX_FILE_BYTES`]; its text must be UTF-8, and a byte that is not is named by line and
//! column.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::ast::ScenarioFile;
use super::parser::parse_file;
use crate::script::syntax::ParseError;
use crate::text::file::kind_of;

/// The extension of scenario files.
pub const EXTENSION: &str = "scn";

/// The largest scenario file read: the bundled ones are a few kilobytes.
pub const MAX_FILE_BYTES: u64 = 16 << 20;

#[derive(Debug, Error)]
pub enum LoadError {
    #[error("{path}: {reason}")]
    Io { path: String, reason: String },
    #[error("{path}: not a regular file ({kind}): a scenario file is read from a regular file")]
    NotAFile { path: String, kind: &'static str },
    #[error("{path}: {bytes} bytes: a scenario file is at most {MAX_FILE_BYTES} bytes (16 MiB)")]
    TooLarge { path: String, bytes: u64 },
    #[error("{0}")]
    Parse(#[from] ParseError),
    #[error("{0}: no scenario files (*.{EXTENSION}) found there")]
    Empty(String),
}

impl LoadError {
    /// The file the error is about.
    pub fn path(&self) -> &str {
        match self {
            LoadError::Io { path, .. }
            | LoadError::NotAFile { path, .. }
            | LoadError::TooLarge { path, .. }
            | LoadError::Empty(path) => path,
            LoadError::Parse(e) => &e.path,
        }
    }
}

/// The bundled wpt-mirror/ folder: the one in the current directory if there is one (a
/// checkout), else the copy built into the binary, written out to the user's cache folder
/// (see [`super::bundled`]).
pub fn bundled_mirror() -> Result<PathBuf, LoadError> {
    let here = PathBuf::from("wpt-mirror");
    if here.is_dir() {
        return Ok(here);
    }
    super::bundled::write_mirror()
}

/// The scenario files under some paths, and what was passed over.
#[derive(Debug, Default)]
pub struct Discovery {
    /// Each file once, by the first of its names in sorted order.
    pub files: Vec<PathBuf>,
    /// Entries named `*.scn` in a folder that are not regular files (a FIFO, a socket, a
    /// device, a link that leads nowhere), each with why it was passed over.
    pub skipped: Vec<String>,
}

/// Every scenario file named by `paths` (files, or folders searched recursively), sorted, each
/// once.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<PathBuf>, LoadError> {
    Ok(discover_all(paths)?.files)
}

/// Every scenario file named by `paths` (files, or folders searched recursively), sorted, each
/// once however many names reach it, and the entries passed over. A path given that does not
/// exist, or a folder with no scenario file, is an error; a file given that is not a regular
/// file is listed, for [`load`] to say so.
pub fn discover_all(paths: &[PathBuf]) -> Result<Discovery, LoadError> {
    let mut found: Vec<PathBuf> = Vec::new();
    let mut skipped = Vec::new();
    let mut folders = BTreeSet::new();
    for p in paths {
        let meta = std::fs::metadata(p).map_err(|e| io_error(p, e))?;
        if meta.is_dir() {
            let canonical = std::fs::canonicalize(p).map_err(|e| io_error(p, e))?;
            if folders.contains(&canonical) {
                continue;
            }
            let before = found.len();
            walk(p, &mut found, &mut skipped, &mut folders)?;
            if found.len() == before {
                return Err(LoadError::Empty(p.display().to_string()));
            }
        } else {
            found.push(p.clone());
        }
    }
    found.sort();
    // One file reached by two names (`wpt-mirror` and `./wpt-mirror`, a link) runs once.
    let mut seen = BTreeSet::new();
    found.retain(|p| seen.insert(std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())));
    Ok(Discovery {
        files: found,
        skipped,
    })
}

fn io_error(path: &Path, e: std::io::Error) -> LoadError {
    LoadError::Io {
        path: path.display().to_string(),
        reason: e.to_string(),
    }
}

/// The scenario files in `dir` and the folders below it. A folder already walked (reached
/// again through a link) is not walked again.
fn walk(
    dir: &Path,
    out: &mut Vec<PathBuf>,
    skipped: &mut Vec<String>,
    folders: &mut BTreeSet<PathBuf>,
) -> Result<(), LoadError> {
    let canonical = std::fs::canonicalize(dir).map_err(|e| io_error(dir, e))?;
    if !folders.insert(canonical) {
        return Ok(());
    }
    let entries = std::fs::read_dir(dir).map_err(|e| io_error(dir, e))?;
    let mut paths = Vec::new();
    for entry in entries {
        paths.push(entry.map_err(|e| io_error(dir, e))?.path());
    }
    paths.sort();
    for path in paths {
        let named_scenario = path.extension().is_some_and(|e| e == EXTENSION);
        match std::fs::metadata(&path) {
            Ok(meta) if meta.is_dir() => walk(&path, out, skipped, folders)?,
            Ok(meta) if meta.is_file() => {
                if named_scenario {
                    out.push(path);
                }
            }
            Ok(meta) => {
                if named_scenario {
                    skipped.push(format!(
                        "{}: skipped: {}, not a regular file",
                        path.display(),
                        kind_of(meta.file_type())
                    ));
                }
            }
            Err(e) => {
                if named_scenario {
                    skipped.push(format!("{}: skipped: {e}", path.display()));
                }
            }
        }
    }
    Ok(())
}

/// Reads and parses one file: a regular file of at most [`MAX_FILE_BYTES`].
pub fn load(path: &Path) -> Result<ScenarioFile, LoadError> {
    let bytes = read(path)?;
    Ok(parse_bytes(&path.display().to_string(), &bytes)?)
}

/// A regular file's bytes, opened without blocking (a FIFO put in its place is not waited on)
/// and read no further than the size limit.
fn read(path: &Path) -> Result<Vec<u8>, LoadError> {
    use crate::text::file::{read_bytes, ReadError};
    read_bytes(path, MAX_FILE_BYTES, "a scenario file").map_err(|e| match e {
        ReadError::NotAFile { path, kind, .. } => LoadError::NotAFile { path, kind },
        ReadError::TooLarge { path, bytes, .. } => LoadError::TooLarge { path, bytes },
        other => LoadError::Io {
            path: other.path().to_string(),
            reason: match other {
                ReadError::Io { reason, .. } => reason,
                e => e.to_string(),
            },
        },
    })
}

/// Parses a scenario file's bytes: UTF-8, with or without a byte order mark. A byte that is not
/// UTF-8 is an error at its line and column.
pub fn parse_bytes(path: &str, bytes: &[u8]) -> Result<ScenarioFile, ParseError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = std::str::from_utf8(bytes).map_err(|_| {
        let (line, column, byte) = crate::text::file::first_bad_byte(bytes).unwrap_or((1, 1, 0));
        ParseError {
            path: path.into(),
            line: line as u32,
            column: column as u32,
            message: format!("byte 0x{byte:02X} is not UTF-8: a scenario file is UTF-8 text"),
        }
    })?;
    parse_file(path, text)
}
