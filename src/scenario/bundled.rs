//! The bundled suite (wpt-mirror/) and the known-differences lists (browser-diff/), built into
//! the binary by build.rs, so that an installed `webmcp-ref` needs nothing from the checkout it
//! was built from. A scenario is read from a file (its reports, replay commands and exports
//! name that file), so the suite is written out once, to a folder named by its content under
//! the user's cache folder, and run from there; a `wpt-mirror/` in the current folder (a
//! checkout) is run in its place.

use std::path::{Path, PathBuf};

use super::suite::LoadError;

mod files {
    include!(concat!(env!("OUT_DIR"), "/bundled.rs"));
}

/// The built-in known-differences list of a profile (browser-diff/PROFILE.txt as built).
pub fn known_list(profile: &str) -> Option<&'static str> {
    let name = format!("{profile}.txt");
    files::KNOWN_LISTS
        .iter()
        .find(|(n, _)| *n == name)
        .and_then(|(_, bytes)| std::str::from_utf8(bytes).ok())
}

/// The profiles with a built-in known-differences list.
pub fn known_list_profiles() -> Vec<&'static str> {
    files::KNOWN_LISTS
        .iter()
        .filter_map(|(n, _)| n.strip_suffix(".txt"))
        .collect()
}

/// The bundled suite's files: each path below wpt-mirror/, and its bytes.
pub fn mirror_files() -> &'static [(&'static str, &'static [u8])] {
    files::MIRROR
}

/// The folder the built-in suite is written to: `webmcp-ref/wpt-mirror-HASH/wpt-mirror` in
/// `$XDG_CACHE_HOME`, else `$HOME/.cache`, else the temporary folder.
pub fn mirror_cache_dir() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".cache"))
        })
        .unwrap_or_else(std::env::temp_dir);
    base.join("webmcp-ref")
        .join(format!("wpt-mirror-{}", files::MIRROR_HASH))
        .join("wpt-mirror")
}

/// Writes the built-in suite to [`mirror_cache_dir`] (each file whose content is not already
/// there, through a temporary name so that a run reading it at the same time never sees half
/// a file), and returns the folder.
pub fn write_mirror() -> Result<PathBuf, LoadError> {
    let root = mirror_cache_dir();
    write_mirror_to(&root)?;
    Ok(root)
}

fn write_mirror_to(root: &Path) -> Result<(), LoadError> {
    let io = |path: &Path, e: std::io::Error| LoadError::Io {
        path: path.display().to_string(),
        reason: format!("writing the built-in copy of the bundled suite: {e}"),
    };
    for (relative, bytes) in files::MIRROR {
        let path = root.join(relative);
        if std::fs::read(&path).is_ok_and(|there| there == *bytes) {
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
        }
        let partial = path.with_extension(format!("partial-{}", std::process::id()));
        std::fs::write(&partial, bytes).map_err(|e| io(&partial, e))?;
        std::fs::rename(&partial, &path).map_err(|e| io(&path, e))?;
    }
    Ok(())
}
