//! The commit a git checkout is at, read from its files (no `git` needed): what a wptreport's
//! `revision` names when the tests come from a checkout. Also compiled into the build script
//! (build.rs), which records the commit the binary was built from; so it uses `std` alone.

use std::path::{Path, PathBuf};

/// The git folder of the checkout holding `start` (the nearest `.git` above it, a folder, or
/// a file `gitdir: PATH` as a worktree has), and its common folder (where a worktree's refs
/// live).
fn git_dirs(start: &Path) -> Option<(PathBuf, PathBuf)> {
    for dir in start.ancestors() {
        let dot_git = dir.join(".git");
        let git_dir = if dot_git.is_dir() {
            dot_git
        } else if let Ok(text) = std::fs::read_to_string(&dot_git) {
            let target = text.trim().strip_prefix("gitdir:")?.trim().to_string();
            let target = PathBuf::from(target);
            if target.is_absolute() {
                target
            } else {
                dir.join(target)
            }
        } else {
            continue;
        };
        let common = std::fs::read_to_string(git_dir.join("commondir"))
            .ok()
            .map(|c| {
                let c = PathBuf::from(c.trim());
                if c.is_absolute() {
                    c
                } else {
                    git_dir.join(c)
                }
            })
            .unwrap_or_else(|| git_dir.clone());
        return Some((git_dir, common));
    }
    None
}

fn is_commit(s: &str) -> bool {
    s.len() == 40 && s.chars().all(|c| c.is_ascii_hexdigit())
}

/// The commit the checkout holding `start` is at, and the files it was read from (for a build
/// script to watch); `None` outside a checkout.
pub fn head_and_sources(start: &Path) -> Option<(String, Vec<PathBuf>)> {
    let (git_dir, common) = git_dirs(start)?;
    let head_path = git_dir.join("HEAD");
    let head = std::fs::read_to_string(&head_path).ok()?;
    let head = head.trim();
    let Some(reference) = head.strip_prefix("ref:").map(str::trim) else {
        return is_commit(head).then(|| (head.to_lowercase(), vec![head_path]));
    };
    for dir in [&git_dir, &common] {
        let path = dir.join(reference);
        if let Ok(text) = std::fs::read_to_string(&path) {
            let commit = text.trim();
            if is_commit(commit) {
                return Some((commit.to_lowercase(), vec![head_path, path]));
            }
        }
    }
    let packed = common.join("packed-refs");
    let text = std::fs::read_to_string(&packed).ok()?;
    text.lines()
        .filter_map(|l| l.split_once(' '))
        .find(|(_, name)| name.trim() == reference)
        .map(|(commit, _)| commit.trim())
        .filter(|c| is_commit(c))
        .map(|c| (c.to_lowercase(), vec![head_path, packed]))
}

/// The commit the checkout holding `start` is at.
pub fn head(start: &Path) -> Option<String> {
    head_and_sources(start).map(|(commit, _)| commit)
}
