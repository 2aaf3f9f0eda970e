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
