//! An installed binary needs nothing from the checkout it was built from: run from a folder
//! with no wpt-mirror/ and no browser-diff/, it runs the bundled suite built into it (written
//! out to the user's cache folder, byte for byte the checkout's), and diff-browser reads the
//! profile's known-differences list built into it, or says clearly that there is none.

use std::path::{Path, PathBuf};
use std::process::Command;
use webmcp_ref::browser::{default_known_differences, KnownList};
use webmcp_ref::scenario::bundled;

const BIN: &str = env!("CARGO_BIN_EXE_webmcp-ref");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn empty_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("webmcp-ref-install-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn files_under(dir: &Path, under: &str, into: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        let relative = if under.is_empty() { name } else { format!("{under}/{name}") };
        if entry.path().is_dir() {
            files_under(&entry.path(), &relative, into);
        } else {
            into.push(relative);
        }
    }
}

#[test]
fn outside_a_checkout_run_runs_the_built_in_suite_byte_for_byte() {
    let dir = empty_dir("run");
    let cache = dir.join("cache");
    let out = Command::new(BIN)
        .arg("run")
        .current_dir(&dir)
        .env("XDG_CACHE_HOME", &cache)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let mut expected = Vec::new();
    files_under(&Path::new(ROOT).join("wpt-mirror"), "", &mut expected);
    expected.sort();
    let scenarios = expected.iter().filter(|f| f.ends_with(".scn")).count();
    assert!(
        stdout.contains(&format!("profile spec: {scenarios} files,")),
        "{stdout}"
    );
    // Written out under the cache folder, every file the checkout's.
    let written = cache.join("webmcp-ref");
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&written)
        .unwrap()
        .flatten()
        .map(|e| e.path().join("wpt-mirror"))
        .collect();
    assert_eq!(folders.len(), 1, "{folders:?}");
    let folder = folders.remove(0);
    assert!(stdout.contains(&folder.display().to_string()), "{stdout}");
    let mut got = Vec::new();
    files_under(&folder, "", &mut got);
    got.sort();
    assert_eq!(got, expected);
    for f in &expected {
        assert_eq!(
            std::fs::read(folder.join(f)).unwrap(),
            std::fs::read(Path::new(ROOT).join("wpt-mirror").join(f)).unwrap(),
            "{f}"
        );
    }
    // A file changed in the copy is put back by the next run.
    let first = folder.join(expected.iter().find(|f| f.ends_with(".scn")).unwrap());
    std::fs::write(&first, "not a scenario").unwrap();
    let again = Command::new(BIN)
        .arg("run")
        .current_dir(&dir)
        .env("XDG_CACHE_HOME", &cache)
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(bundled::mirror_files().len(), expected.len());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_known_differences_lists_are_built_in() {
    for profile in ["chromium-156", "spec"] {
        let file = Path::new(ROOT).join(format!("browser-diff/{profile}.txt"));
        let built_in = KnownList::BuiltIn(profile.to_string());
        assert_eq!(built_in.read().unwrap(), std::fs::read_to_string(&file).unwrap());
        assert_eq!(built_in.name(), format!("browser-diff/{profile}.txt (built in)"));
    }
    let none = KnownList::BuiltIn("literal".into()).read().unwrap_err().to_string();
    assert!(none.contains("`literal`") && none.contains("--known FILE"), "{none}");
    // The tests run in the checkout: its list is the one read, where it is edited.
    assert!(matches!(
        default_known_differences("chromium-156"),
        KnownList::File(_)
    ));
}

#[test]
fn outside_a_checkout_diff_browser_reads_the_built_in_list_or_says_there_is_none() {
    let dir = empty_dir("diff");
    let run = |profile: &str| {
        let out = Command::new(BIN)
            .args(["diff-browser", "--profile", profile, "--browser"])
            .arg(dir.join("no-browser"))
            .current_dir(&dir)
            .env("XDG_CACHE_HOME", dir.join("cache"))
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).to_string())
    };
    // The list is read before the browser is looked for: the error is the browser's.
    let (code, stderr) = run("chromium-156");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("the browser:") && stderr.contains("no-browser"), "{stderr}");
    let (code, stderr) = run("literal");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("no known-differences list is built in for the `literal` profile")
            && stderr.contains("chromium-156, spec")
            && stderr.contains("--known FILE"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
