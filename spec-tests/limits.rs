//! What no input may exhaust: every kind of nesting the parser accepts is bounded, and what it
//! accepts at the bound parses, runs, explores and exports on a small stack; past the bound it
//! is an error that names the file, line and column and the limit.

use webmcp_ref::engine::profile::Profile;
use webmcp_ref::explore::{explore_file, ExploreOptions, Progress};
use webmcp_ref::export::export_file;
use webmcp_ref::scenario::{parse_file, run_file, RunOptions};

const LIMIT: usize = webmcp_ref::script::syntax::MAX_NESTING as usize;

fn subtest(lines: &str) -> String {
    format!("title: t\n\nsubtest \"s\"\n  page top https://a.test/\n  promise p in top\n{lines}")
}

fn error(text: &str) -> String {
    match parse_file("deep.scn", text) {
        Ok(_) => panic!("parsed: {}", &text[..text.len().min(200)]),
        Err(e) => e.to_string(),
    }
}

/// Runs `f` on a thread with a stack of `kib` KiB: what the tools do at the bound fits in a
/// megabyte even in a debug build (the binary's main thread has eight).
fn on_small_stack(kib: usize, f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(kib * 1024)
        .spawn(f)
        .expect("a thread")
        .join()
        .expect("no panic");
}

/// Everything a file goes through: its run, a small exploration, and its export.
fn everything(text: String) {
    let file = parse_file("deep.scn", &text).expect("parses at the bound");
    let result = run_file(&file, &RunOptions::default());
    assert!(result.passed(), "{:#?}", result.subtests);
    let options = ExploreOptions {
        max_schedules: Some(4),
        ..ExploreOptions::default()
    };
    let _ = explore_file(&file, &options, &Progress::default());
    let _ = export_file(&file, &Profile::spec());
}

#[test]
fn inline_blocks_nest_up_to_the_bound() {
    let at_bound = subtest(&format!(
        "  task in top: {}log \"deep\"\n  run\n  expect log == [\"deep\"]\n",
        "after 1ms: ".repeat(LIMIT - 1)
    ));
    on_small_stack(1024, move || everything(at_bound));
    let e = error(&subtest(&format!(
        "  task in top: {}log \"deep\"\n",
        "after 1ms: ".repeat(8000)
    )));
    assert!(e.starts_with("deep.scn:6:"), "{e}");
    assert!(e.contains("blocks nest more than 128 deep"), "{e}");
    let e = error(&subtest(&format!(
        "  task in top: {}log \"deep\"\n",
        "on p fulfilled: ".repeat(10_000)
    )));
    assert!(e.contains("blocks nest more than 128 deep"), "{e}");
}

#[test]
fn indented_and_inline_blocks_count_together() {
    let mut text = subtest("  task in top:\n");
    for depth in 0..100 {
        text.push_str(&" ".repeat(4 + 2 * depth));
        text.push_str("after 1ms:\n");
    }
    text.push_str(&" ".repeat(4 + 200));
    text.push_str(&"after 1ms: ".repeat(40));
    text.push_str("log \"deep\"\n");
    let e = error(&text);
    assert!(e.contains("blocks nest more than 128 deep"), "{e}");
    assert!(e.starts_with("deep.scn:107:"), "{e}");
}

#[test]
fn expressions_nest_up_to_the_bound() {
    // Brackets, argument lists, and the links of member and index chains are each a level.
    let brackets = format!("{}1{}", "[".repeat(LIMIT - 1), "]".repeat(LIMIT - 1));
    let chain = format!("top{}", ".window".repeat(LIMIT - 1));
    let at_bound = subtest(&format!(
        "  task in top:\n    x = {brackets}\n    w = {chain}\n  run\n  expect w.toolsReady == true\n"
    ));
    on_small_stack(1024, move || everything(at_bound));
    for deep in [
        format!("x = top{}", ".a".repeat(20_000)),
        format!("x = top{}", "[0]".repeat(20_000)),
        format!("x = {}1{}", "top.f(".repeat(5000), ")".repeat(5000)),
        format!("x = {}1{}", "top[".repeat(5000), "]".repeat(5000)),
        format!("x = {}1{}", "{a: ".repeat(5000), "}".repeat(5000)),
        format!("x = {}x{}", "`${".repeat(3000), "}`".repeat(3000)),
    ] {
        let e = error(&subtest(&format!("  task in top: {deep}\n")));
        assert!(e.starts_with("deep.scn:6:"), "{e}");
        assert!(
            e.contains("an expression nests more than 128 deep")
                || e.contains("template literals nested more than 16 deep"),
            "{e}"
        );
    }
    // An expectation's chain, too.
    let e = error(&subtest(&format!(
        "  expect top{} == 1\n",
        ".window".repeat(20_000)
    )));
    assert!(e.contains("an expression nests more than 128 deep"), "{e}");
}

#[test]
fn trigger_blocks_in_trigger_blocks_are_refused_before_they_are_parsed() {
    let e = error(&subtest(&format!(
        "  {}resolve p\n",
        "at 1ms: ".repeat(100_000)
    )));
    assert!(e.starts_with("deep.scn:6:11:"), "{e}");
    assert!(e.contains("trigger blocks do not nest"), "{e}");
    let e = error(&subtest("  at 1ms:\n    when top exists: resolve p\n"));
    assert!(e.starts_with("deep.scn:7:5:"), "{e}");
}

#[test]
fn durations_past_the_limit_and_steps_past_the_budget_are_errors() {
    let e = error(&subtest("  run 18446744073709551615s\n"));
    assert!(e.starts_with("deep.scn:6:7:"), "{e}");
    assert!(e.contains("a duration is at most 1000000000000ms"), "{e}");
    let e = error(&subtest("  task in top: after 1e30ms: log \"x\"\n"));
    assert!(e.contains("a duration is at most"), "{e}");
    let e = error(&subtest("  step 1e20\n"));
    assert!(e.starts_with("deep.scn:6:8:"), "{e}");
    assert!(e.contains("`step` runs at most 1000000 units"), "{e}");
    let file = parse_file("ok.scn", &subtest("  run 1000000000000ms\n  expect time == 1000000000000ms\n"))
        .expect("the longest duration parses");
    assert!(run_file(&file, &RunOptions::default()).passed());
}

#[test]
fn a_message_quotes_a_little_of_a_long_word() {
    let long = "x".repeat(10_000_000);
    let e = error(&subtest(&format!("  {long}\n")));
    assert!(e.len() < 1000, "{} bytes", e.len());
    assert!(e.contains("... (9999940 more characters)"), "{}", &e[..300]);
    let e = error(&subtest(&format!("  task in top: log {long}\n")));
    assert!(e.len() < 1000, "{} bytes", e.len());
}

#[test]
fn bytes_that_are_not_utf8_are_named_by_line_and_column() {
    use webmcp_ref::scenario::suite::parse_bytes;
    let e = parse_bytes("bad.scn", b"title: t\n\nsubtest \"s\"\n  page top https://a.test/\n  log \"\xc3\xa9\xff\"\n")
        .unwrap_err()
        .to_string();
    assert_eq!(e, "bad.scn:5:9: byte 0xFF is not UTF-8: a scenario file is UTF-8 text");
    // A byte order mark is no part of the text.
    let with_bom = format!("\u{feff}{}", subtest("  expect top.toolsReady == true\n"));
    let file = parse_bytes("bom.scn", with_bom.as_bytes()).expect("a BOM is accepted");
    assert!(run_file(&file, &RunOptions::default()).passed());
}

#[test]
fn a_string_left_open_is_reported_as_a_string() {
    let e = error(&subtest("  task in top: top.registerTool({name: \"t\n  run\n"));
    assert!(e.starts_with("deep.scn:6:40:"), "{e}");
    assert!(e.contains("a string started here is not closed with \" on its line"), "{e}");
}

/// A folder of its own under the system's temporary folder.
fn folder(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("webmcp-ref-limits-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

const GOOD: &str = "title: t\n\nsubtest \"s\"\n  page top https://a.test/\n  expect top.toolsReady == true\n";

#[test]
fn each_file_is_found_once_however_it_is_reached() {
    use webmcp_ref::scenario::suite::discover_all;
    let dir = folder("once");
    std::fs::write(dir.join("a.scn"), GOOD).unwrap();
    std::fs::create_dir(dir.join("sub")).unwrap();
    std::fs::write(dir.join("sub/b.scn"), GOOD).unwrap();
    // A link to the folder itself, a link to a file, and the folder named twice.
    std::os::unix::fs::symlink(&dir, dir.join("sub/loop")).unwrap();
    std::os::unix::fs::symlink(dir.join("a.scn"), dir.join("also-a.scn")).unwrap();
    let again = dir.join("sub/..");
    let found = discover_all(&[dir.clone(), again, dir.join("a.scn")]).unwrap();
    assert_eq!(found.files.len(), 2, "{:?}", found.files);
    assert!(found.skipped.is_empty(), "{:?}", found.skipped);
}

#[test]
fn what_is_not_a_regular_file_is_passed_over_or_refused() {
    use webmcp_ref::scenario::suite::{discover_all, load, LoadError};
    let dir = folder("fifo");
    std::fs::write(dir.join("a.scn"), GOOD).unwrap();
    let fifo = dir.join("b.scn");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    std::os::unix::fs::symlink(dir.join("nowhere"), dir.join("c.scn")).unwrap();
    let found = discover_all(std::slice::from_ref(&dir)).unwrap();
    assert_eq!(found.files, [dir.join("a.scn")]);
    assert_eq!(found.skipped.len(), 2, "{:?}", found.skipped);
    assert!(found.skipped[0].contains("b.scn: skipped: a FIFO"), "{:?}", found.skipped);
    // Named on its own, it is refused without waiting for a writer.
    let e = load(&fifo).unwrap_err();
    assert!(matches!(e, LoadError::NotAFile { kind: "a FIFO", .. }), "{e}");
    let e = load(std::path::Path::new("/dev/zero")).unwrap_err();
    assert!(matches!(e, LoadError::NotAFile { kind: "a device", .. }), "{e}");
}

#[test]
fn a_file_over_the_size_limit_is_refused() {
    use webmcp_ref::scenario::suite::{load, LoadError, MAX_FILE_BYTES};
    let dir = folder("large");
    let path = dir.join("large.scn");
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(MAX_FILE_BYTES + 1).unwrap();
    let e = load(&path).unwrap_err();
    assert!(matches!(e, LoadError::TooLarge { .. }), "{e}");
    assert!(e.to_string().ends_with("a scenario file is at most 16777216 bytes (16 MiB)"), "{e}");
}

#[test]
fn iframes_nest_up_to_a_bound() {
    use webmcp_ref::host::MAX_IFRAME_DEPTH;
    let frames = |n: usize| {
        let mut lines = String::from("  frame f1 in top https://a.test/1\n");
        for i in 2..=n {
            lines.push_str(&format!("  frame f{i} in f{} https://a.test/{i}\n", i - 1));
        }
        lines.push_str("  observe top => ready\n");
        parse_file("deep.scn", &subtest(&lines)).expect("parses")
    };
    let at_bound = run_file(&frames(MAX_IFRAME_DEPTH), &RunOptions::default());
    assert!(at_bound.passed(), "{:?}", at_bound.subtests[0].messages);
    let past = run_file(&frames(MAX_IFRAME_DEPTH + 1), &RunOptions::default());
    assert_eq!(
        past.subtests[0].messages,
        ["deep.scn:70: f64 is in iframes nested 64 deep, so it cannot hold another"]
    );
}
