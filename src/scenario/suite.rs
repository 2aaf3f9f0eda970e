//! Finding and loading scenario files.

use std::path::{Path, PathBuf};

use thiserror::Error;

use super::ast::ScenarioFile;
use super::parser::parse_file;
use crate::script::syntax::ParseError;

/// The extension of scenario files.
pub const EXTENSION: &str = "scn";

#[derive(Debug, Error)]
pub enum LoadError {
    #[error("{path}: {reason}")]
    Io { path: String, reason: String },
    #[error("{0}")]
    Parse(#[from] ParseError),
    #[error("{0}: no scenario files (*.{EXTENSION}) found there")]
    Empty(String),
}

/// The bundled wpt-mirror/ folder: the one in the current directory if there is one, else the
/// one this build came from.
pub fn bundled_mirror() -> PathBuf {
    let here = PathBuf::from("wpt-mirror");
    if here.is_dir() {
        return here;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("wpt-mirror")
}

/// Every scenario file named by `paths` (files, or folders searched recursively), sorted.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<PathBuf>, LoadError> {
    let mut out = Vec::new();
    for p in paths {
        let meta = std::fs::metadata(p).map_err(|e| LoadError::Io {
            path: p.display().to_string(),
            reason: e.to_string(),
        })?;
        if meta.is_dir() {
            let before = out.len();
            walk(p, &mut out)?;
            if out.len() == before {
                return Err(LoadError::Empty(p.display().to_string()));
            }
        } else {
            out.push(p.clone());
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), LoadError> {
    let entries = std::fs::read_dir(dir).map_err(|e| LoadError::Io {
        path: dir.display().to_string(),
        reason: e.to_string(),
    })?;
    for entry in entries {
        let entry = entry.map_err(|e| LoadError::Io {
            path: dir.display().to_string(),
            reason: e.to_string(),
        })?;
        let path = entry.path();
        if path.is_dir() {
            walk(&path, out)?;
        } else if path.extension().is_some_and(|e| e == EXTENSION) {
            out.push(path);
        }
    }
    Ok(())
}

/// Reads and parses one file.
pub fn load(path: &Path) -> Result<ScenarioFile, LoadError> {
    let text = std::fs::read_to_string(path).map_err(|e| LoadError::Io {
        path: path.display().to_string(),
        reason: e.to_string(),
    })?;
    Ok(parse_file(&path.display().to_string(), &text)?)
}
