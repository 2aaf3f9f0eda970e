//! Lists the spec-tests: every file of spec-tests/ becomes a module of the one test binary
//! spec-tests/main.rs includes, so that adding a file adds its tests with no Cargo.toml edit.
//! A file with a `fn main` of its own (wpt_mirror.rs) has its own harness and its own
//! `[[test]]` target instead.

use std::path::Path;

// The library's reader of a checkout's commit; `head` is the library's alone.
#[allow(dead_code)]
#[path = "src/report/git.rs"]
mod git;

/// The commit this crate is built from, for a wptreport's `revision` when the tests run are
/// the ones built in: the checkout's HEAD, or, for a package from crates.io, the commit
/// `cargo publish` recorded in `.cargo_vcs_info.json`.
fn built_from(manifest_dir: &Path) {
    let vcs_info = manifest_dir.join(".cargo_vcs_info.json");
    println!("cargo:rerun-if-changed={}", vcs_info.display());
    let commit = match git::head_and_sources(manifest_dir) {
        Some((commit, sources)) => {
            for s in sources {
                println!("cargo:rerun-if-changed={}", s.display());
            }
            Some(commit)
        }
        None => std::fs::read_to_string(&vcs_info).ok().and_then(|text| {
            let after = text.split("\"sha1\"").nth(1)?;
            let commit: String = after
                .chars()
                .skip_while(|c| !c.is_ascii_hexdigit())
                .take_while(char::is_ascii_hexdigit)
                .collect();
            (commit.len() == 40).then_some(commit)
        }),
    };
    if let Some(commit) = commit {
        println!("cargo:rustc-env=WEBMCP_REF_COMMIT={commit}");
    }
}

fn main() {
    // Read when the script runs (not when it is compiled), so that a build script reused
    // from another checkout's target directory lists this checkout's files.
    let Ok(manifest_dir) = std::env::var("CARGO_MANIFEST_DIR") else {
        panic!("cargo sets CARGO_MANIFEST_DIR for build scripts");
    };
    built_from(Path::new(&manifest_dir));
    let root = Path::new(&manifest_dir).join("spec-tests");
    println!("cargo:rerun-if-changed={}", root.display());
    let Ok(out_dir) = std::env::var("OUT_DIR") else {
        panic!("cargo sets OUT_DIR for build scripts");
    };
    let mut names = Vec::new();
    if let Ok(entries) = std::fs::read_dir(&root) {
        for entry in entries.flatten() {
            let path = entry.path();
            let Some(name) = path.file_stem().and_then(|s| s.to_str()) else {
                continue;
            };
            if path.extension().is_none_or(|e| e != "rs") || name == "main" {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            if text.lines().any(|l| l.starts_with("fn main(")) {
                continue;
            }
            let identifier = name
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !identifier {
                panic!(
                    "{}: a spec-test file's name names its module, so it must be a Rust identifier",
                    path.display()
                );
            }
            names.push((name.to_string(), path.display().to_string()));
        }
    }
    names.sort();
    let mut list = String::new();
    for (name, path) in names {
        list.push_str(&format!("#[path = {path:?}]\nmod {name};\n"));
    }
    let target = Path::new(&out_dir).join("spec_tests.rs");
    if std::fs::read_to_string(&target).ok().as_deref() != Some(list.as_str()) {
        if let Err(e) = std::fs::write(&target, list) {
            panic!("{}: {e}", target.display());
        }
    }
}
