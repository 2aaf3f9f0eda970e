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

/// Every file of wpt-mirror/, under its path there, sorted.
fn mirror_files(dir: &Path, under: &str, into: &mut Vec<(String, std::path::PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        panic!("{}: the bundled suite must be readable", dir.display());
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(name) = path.file_name().and_then(|s| s.to_str()) else {
            panic!("{}: a bundled file's name must be UTF-8", path.display());
        };
        let relative = if under.is_empty() {
            name.to_string()
        } else {
            format!("{under}/{name}")
        };
        if path.is_dir() {
            mirror_files(&path, &relative, into);
        } else if path.is_file() {
            into.push((relative, path));
        }
    }
}

/// The bundled suite (wpt-mirror/) and the known-differences lists (browser-diff/) built into
/// the binary, so that an installed `webmcp-ref` runs them without the checkout it came from:
/// `$OUT_DIR/bundled.rs` includes each file, and names the suite's content by a hash (FNV-1a
/// over the paths and bytes), which names the folder the binary writes it to.
fn bundled_suite(manifest_dir: &Path, out_dir: &Path) {
    let mut generated = String::new();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut mix = |bytes: &[u8]| {
        for b in bytes {
            hash ^= u64::from(*b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for (folder, constant) in [("wpt-mirror", "MIRROR"), ("browser-diff", "KNOWN_LISTS")] {
        let dir = manifest_dir.join(folder);
        println!("cargo:rerun-if-changed={}", dir.display());
        let mut files = Vec::new();
        mirror_files(&dir, "", &mut files);
        files.sort();
        generated.push_str(&format!("pub const {constant}: &[(&str, &[u8])] = &[\n"));
        for (relative, path) in files {
            if folder == "wpt-mirror" {
                mix(relative.as_bytes());
                mix(&[0]);
                mix(&std::fs::read(&path).unwrap_or_default());
                mix(&[0]);
            }
            generated.push_str(&format!(
                "    ({relative:?}, include_bytes!({:?})),\n",
                path.display().to_string()
            ));
        }
        generated.push_str("];\n");
    }
    generated.push_str(&format!("pub const MIRROR_HASH: &str = \"{hash:016x}\";\n"));
    let target = out_dir.join("bundled.rs");
    if std::fs::read_to_string(&target).ok().as_deref() != Some(generated.as_str()) {
        if let Err(e) = std::fs::write(&target, generated) {
            panic!("{}: {e}", target.display());
        }
    }
}

fn main() {
    // Read when the script runs (not when it is compiled), so that a build script reused
    // from another checkout's target directory lists this checkout's files.
    let Ok(manifest_dir) = std::env::var("CARGO_MANIFEST_DIR") else {
        panic!("cargo sets CARGO_MANIFEST_DIR for build scripts");
    };
    built_from(Path::new(&manifest_dir));
    let Ok(out_dir) = std::env::var("OUT_DIR") else {
        panic!("cargo sets OUT_DIR for build scripts");
    };
    bundled_suite(Path::new(&manifest_dir), Path::new(&out_dir));
    let root = Path::new(&manifest_dir).join("spec-tests");
    println!("cargo:rerun-if-changed={}", root.display());
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
