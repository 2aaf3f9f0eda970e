//! Scenario files built from the grammar, valid and nearly valid: every statement, blocks and
//! expressions nested past the bound, numbers past every range, odd Unicode, and the same
//! files with a character dropped, a line repeated or a token replaced.
//!
//! Checked for every file:
//! - nothing panics (proptest reports a panic as a failure);
//! - a file refused names `file:line:col`, with a line and a column inside the file;
//! - a file accepted runs to the same result twice, byte for byte, and exports the same WPT
//!   test twice.
//!
//! A second generator writes runaways (a value doubled line after line, shared or copied; a
//! timer, a tool or a listener that re-arms itself): each is stopped by a budget, the same
//! way on every run.
//!
//! `fuzz/` drives the same path on arbitrary bytes, coverage-guided (`cargo +nightly fuzz`).

use proptest::prelude::*;
use proptest::test_runner::Config;
use webmcp_ref::engine::profile::Profile;
use webmcp_ref::export::export_file;
use webmcp_ref::scenario::suite::parse_bytes;
use webmcp_ref::scenario::{run_file, RunOptions};

const PATH: &str = "gen.scn";

/// Names the generated lines use: two documents, two promises, one thenable, one controller.
const DOCS: &[&str] = &["top", "child"];
const PROMISES: &[&str] = &["p", "q"];

/// Odd text for strings and names: combining marks, right-to-left, astral, zero-width,
/// controls, a lone quote.
const ODD: &[&str] = &[
    "e\u{301}",
    "\u{202e}rtl",
    "\u{1f600}",
    "\u{200b}",
    "\u{feff}",
    "\t",
    "\\\"",
    "\u{10ffff}",
    "ǅ",
    "𝔘",
];

/// Numbers at and past the ranges the language checks.
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "999",
    "86400000",
    "86400001",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "1e308",
    "1e400",
    "-1",
    "0.5",
    "NaN",
];

fn pick(list: &'static [&'static str]) -> impl Strategy<Value = &'static str> + Clone {
    proptest::sample::select(list)
}

fn number() -> impl Strategy<Value = String> + Clone {
    prop_oneof![
        (0u64..5000).prop_map(|n| n.to_string()),
        pick(NUMBERS).prop_map(str::to_owned),
    ]
}

fn text() -> impl Strategy<Value = String> + Clone {
    prop_oneof![
        "[a-z ]{0,12}",
        proptest::collection::vec(pick(ODD), 1..4).prop_map(|v| v.concat()),
    ]
}

/// A line of page script (inside a `task` block).
fn script_line() -> impl Strategy<Value = String> + Clone {
    let doc = pick(DOCS);
    prop_oneof![
        text().prop_map(|t| format!("log \"{t}\"")),
        (doc.clone(), text()).prop_map(|(d, t)| format!(
            "{d}.registerTool({{name: \"{t}\", description: \"d\", execute: returns(1)}})"
        )),
        doc.clone()
            .prop_map(|d| format!("tools = await {d}.getTools()")),
        doc.clone()
            .prop_map(|d| format!("{d}.unregisterTool(\"t\")")),
        (doc.clone(), pick(PROMISES)).prop_map(|(d, p)| format!("{d}.waitForToolsUntil({p})")),
        number().prop_map(|n| format!("x = {n} + 1")),
        doc.clone().prop_map(|d| format!("on {d} toolchange: log \"changed\"")),
        pick(PROMISES).prop_map(|p| format!("on {p} fulfilled: log \"settled\"")),
        number().prop_map(|n| format!("after {n}ms: log \"later\"")),
        Just("throw 1".to_string()),
        Just("return 2".to_string()),
        doc.clone().prop_map(|d| format!("x = {d}.toolsReady")),
        (doc.clone(), text()).prop_map(|(d, t)| format!(
            "{d}.querySelector(\"form\").setAttribute(\"toolname\", \"{t}\")"
        )),
        (doc.clone(), text()).prop_map(|(d, t)| format!("x = {d}.querySelector(\"{t}\")")),
        doc.clone()
            .prop_map(|d| format!("{d}.querySelector(\"form\").removeAttribute(\"tooldescription\")")),
        doc.clone().prop_map(|d| format!("{d}.querySelector(\"form\").remove()")),
        doc.prop_map(|d| format!(
            "on {d}.querySelector(\"form\") submit: event.respondWith(event.preventDefault())"
        )),
    ]
}

/// One subtest line of any statement, with the lines indented under it.
fn statement() -> impl Strategy<Value = Vec<String>> {
    let doc = pick(DOCS);
    let promise = pick(PROMISES);
    prop_oneof![
        text().prop_map(|t| vec![format!("page top https://a.test/{t}")]),
        (doc.clone(), text())
            .prop_map(|(d, t)| vec![format!("frame child in {d} https://b.test/{t}")]),
        (promise.clone(), doc.clone(), 0u8..3).prop_map(|(p, d, k)| {
            let settled = ["", " resolved", " rejected"][k as usize];
            vec![format!("promise {p} in {d}{settled}")]
        }),
        (doc.clone(), 0u8..3).prop_map(|(d, k)| {
            let how = ["resolves", "rejects", "throws"][k as usize];
            vec![format!("thenable th in {d} {how}")]
        }),
        doc.clone()
            .prop_map(|d| vec![format!("controller c in {d}")]),
        (doc.clone(), proptest::collection::vec(script_line(), 1..4)).prop_map(|(d, body)| {
            let mut lines = vec![format!("task in {d}:")];
            lines.extend(body.into_iter().map(|l| format!("  {l}")));
            lines
        }),
        (doc.clone(), text(), any::<bool>()).prop_map(|(d, t, block)| {
            let markup = format!("<form toolname=\"{t}\" tooldescription='{t}'><input name=q></form>");
            if block {
                vec![format!("html in {d}:"), format!("  {markup}"), format!("    {t}")]
            } else {
                vec![format!("html in {d}: {markup}")]
            }
        }),
        (doc.clone(), text()).prop_map(|(d, t)| vec![format!(
            "expect {d}.querySelector(\"[name=q]\").value == \"{t}\""
        )]),
        Just(vec!["run".to_string()]),
        number().prop_map(|n| vec![format!("run {n}ms")]),
        Just(vec!["flush".to_string()]),
        number().prop_map(|n| vec![format!("step {n}")]),
        Just(vec!["remove child".to_string()]),
        (doc.clone(), any::<bool>()).prop_map(|(d, b)| vec![format!(
            "navigate {d} to https://c.test/ as next{}",
            if b { " bfcache" } else { "" }
        )]),
        Just(vec!["back next".to_string()]),
        doc.clone().prop_map(|d| vec![format!("close {d}")]),
        doc.clone().prop_map(|d| vec![format!("load {d}")]),
        doc.clone().prop_map(|d| vec![format!("domcontentloaded {d}")]),
        doc.clone().prop_map(|d| vec![format!("observe {d} as o")]),
        (doc.clone(), number()).prop_map(|(d, n)| vec![format!(
            "observe {d} => ready after {n}ms"
        )]),
        (promise.clone(), number(), doc.clone()).prop_map(|(p, n, d)| vec![format!(
            "resolve {p} with {n} in {d}"
        )]),
        promise.clone().prop_map(|p| vec![format!("reject {p}")]),
        (doc.clone(), any::<bool>()).prop_map(|(d, b)| vec![format!(
            "expect {d}.toolsReady == {b}"
        )]),
        promise.clone().prop_map(|p| vec![format!("expect {p} fulfilled")]),
        Just(vec!["expect o => ready after 0ms".to_string()]),
        Just(vec!["expect no findings".to_string()]),
        (number(), promise.clone())
            .prop_map(|(n, p)| vec![format!("at {n}ms: resolve {p}")]),
        (doc, promise).prop_map(|(d, p)| vec![format!("when {d} exists: reject {p}")]),
    ]
}

/// A line nested `depth` deep, in one of the ways the language nests.
fn deep_line() -> impl Strategy<Value = Vec<String>> {
    (0u8..6, 100usize..200).prop_map(|(kind, depth)| match kind {
        0 => vec![format!(
            "task in top: {}log \"deep\"",
            "after 1ms: ".repeat(depth)
        )],
        1 => vec![format!(
            "task in top: {}log \"deep\"",
            "on p fulfilled: ".repeat(depth)
        )],
        2 => vec![format!("task in top: x = top{}", ".a".repeat(depth))],
        3 => vec![format!("task in top: x = top{}", "[0]".repeat(depth))],
        4 => vec![format!(
            "task in top: x = {}1{}",
            "(".repeat(depth),
            ")".repeat(depth)
        )],
        _ => {
            let mut lines = vec!["task in top:".to_string()];
            for i in 1..depth {
                lines.push(format!("{}after 1ms:", "  ".repeat(i)));
            }
            lines.push(format!("{}log \"deep\"", "  ".repeat(depth)));
            lines
        }
    })
}

/// A whole file: a title, and one or two subtests of generated lines.
fn scenario() -> impl Strategy<Value = String> {
    let body = proptest::collection::vec(
        prop_oneof![8 => statement(), 1 => deep_line()],
        0..10,
    );
    (text(), proptest::collection::vec(body, 1..3)).prop_map(|(title, subtests)| {
        let mut s = format!("title: {title}\n");
        for (i, lines) in subtests.into_iter().enumerate() {
            s.push_str(&format!(
                "\nsubtest \"s{i}\"\n  page top https://a.test/\n  promise p in top\n"
            ));
            for line in lines.into_iter().flatten() {
                s.push_str("  ");
                s.push_str(&line);
                s.push('\n');
            }
        }
        s
    })
}

/// A change that makes a valid file nearly valid.
#[derive(Clone, Debug)]
enum Damage {
    DropChar(usize),
    RepeatLine(usize),
    Insert(usize, &'static str),
    TruncateAt(usize),
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        any::<usize>().prop_map(Damage::DropChar),
        any::<usize>().prop_map(Damage::RepeatLine),
        (
            any::<usize>(),
            pick(&[
                "\"", "(", "]", ":", "\n    ", "\u{0}", "\u{feff}", "\\", "\t", "é", "9e999"
            ])
        )
            .prop_map(|(at, s)| Damage::Insert(at, s)),
        any::<usize>().prop_map(Damage::TruncateAt),
    ]
}

fn damaged(text: &str, d: &Damage) -> Vec<u8> {
    let chars: Vec<char> = text.chars().collect();
    let at = |i: usize| i % chars.len().max(1);
    let s: String = match d {
        Damage::DropChar(i) => {
            let i = at(*i);
            chars
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, c)| c)
                .collect()
        }
        Damage::RepeatLine(i) => {
            let lines: Vec<&str> = text.lines().collect();
            let i = i % lines.len().max(1);
            let mut out = Vec::new();
            for (j, l) in lines.iter().enumerate() {
                out.push(*l);
                if j == i {
                    out.push(*l);
                }
            }
            out.join("\n")
        }
        Damage::Insert(i, s) => {
            let i = at(*i);
            let mut out: String = chars[..i].iter().collect();
            out.push_str(s);
            out.extend(&chars[i..]);
            out
        }
        Damage::TruncateAt(i) => chars[..at(*i)].iter().collect(),
    };
    s.into_bytes()
}

/// The checks every file gets.
fn check(bytes: &[u8]) -> Result<(), TestCaseError> {
    let file = match parse_bytes(PATH, bytes) {
        Ok(file) => file,
        Err(e) => {
            let lines = bytes.split(|b| *b == b'\n').count() as u32;
            let shown = e.to_string();
            let place = format!("{PATH}:{}:{}: ", e.line, e.column);
            prop_assert!(shown.starts_with(&place), "{shown}");
            prop_assert!(e.line >= 1 && e.line <= lines.max(1), "{shown}");
            prop_assert!(e.column >= 1, "{shown}");
            prop_assert!(shown.len() < 2000, "a message of {} bytes", shown.len());
            return Ok(());
        }
    };
    let first = run_file(&file, &RunOptions::default());
    let again = run_file(&file, &RunOptions::default());
    prop_assert_eq!(
        serde_json::to_string(&first).ok(),
        serde_json::to_string(&again).ok()
    );
    let exported = format!("{:?}", export_file(&file, &Profile::spec()));
    prop_assert_eq!(exported, format!("{:?}", export_file(&file, &Profile::spec())));
    Ok(())
}

/// Files are checked on a thread with the stack of the binary's main thread, so that a
/// nesting the bounds missed is a stack overflow here as it would be there.
fn on_main_sized_stack(bytes: Vec<u8>) -> Result<(), TestCaseError> {
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || check(&bytes))
        .map_err(|e| TestCaseError::fail(e.to_string()))?
        .join()
        .unwrap_or_else(|_| Err(TestCaseError::fail("panicked")))
}

proptest! {
    #![proptest_config(Config { cases: 96, failure_persistence: None, ..Config::default() })]

    #[test]
    fn a_generated_scenario_parses_or_names_its_place_and_runs_the_same_twice(s in scenario()) {
        on_main_sized_stack(s.into_bytes())?;
    }

    #[test]
    fn a_damaged_scenario_parses_or_names_its_place_and_runs_the_same_twice(
        s in scenario(),
        d in proptest::collection::vec(damage(), 1..4),
    ) {
        let mut bytes = s.into_bytes();
        for d in &d {
            bytes = damaged(&String::from_utf8_lossy(&bytes), d);
        }
        on_main_sized_stack(bytes)?;
    }

    #[test]
    fn arbitrary_bytes_after_a_title_never_panic(
        tail in proptest::collection::vec(any::<u8>(), 0..400),
    ) {
        let mut bytes = b"title: t\n\nsubtest \"s\"\n  page top https://a.test/\n  ".to_vec();
        bytes.extend(tail);
        on_main_sized_stack(bytes)?;
    }
}

/// Work that never ends or a value that never stops growing, in one of the ways a page can
/// write them, after some ordinary lines.
fn runaway() -> impl Strategy<Value = Vec<String>> {
    (0u8..7, 20usize..45).prop_map(|(kind, n)| match kind {
        0 => {
            let mut lines = vec!["task in top:".to_string(), "  x = \"ab\"".to_string()];
            lines.extend((0..n).map(|_| "  x = `${x}${x}`".to_string()));
            lines
        }
        1 => {
            let mut lines = vec!["task in top:".to_string(), "  a = [1]".to_string()];
            lines.extend((0..n).map(|_| "  a = [a, a, a]".to_string()));
            lines
        }
        2 => {
            let mut lines = vec!["task in top:".to_string(), "  a = {v: 1}".to_string()];
            lines.extend((0..n).map(|_| "  a = {l: a, r: a}".to_string()));
            lines
        }
        3 => vec![
            "script tick:".into(),
            "  after 1ms:".into(),
            "    ts = await top.getTools()".into(),
            "    top.executeTool(ts[0])".into(),
            "  return 1".into(),
            "task in top: top.registerTool({name: \"tick\", description: \"d\", execute: tick})".into(),
            "run".into(),
            "task in top:".into(),
            "  ts = await top.getTools()".into(),
            "  top.executeTool(ts[0])".into(),
        ],
        4 => vec![
            "script again:".into(),
            "  ts = await top.getTools()".into(),
            "  x = await top.executeTool(ts[0])".into(),
            "  return x".into(),
            "task in top: top.registerTool({name: \"self\", description: \"d\", execute: again})".into(),
            "run".into(),
            "task in top:".into(),
            "  ts = await top.getTools()".into(),
            "  r = top.executeTool(ts[0])".into(),
        ],
        5 => vec![
            "task in top:".into(),
            "  on top toolchange:".into(),
            "    c = AbortController()".into(),
            "    top.registerTool({name: \"t\", description: \"d\", execute: returns(1)}, {signal: c.signal})".into(),
            "    c.abort()".into(),
            "  top.registerTool({name: \"t0\", description: \"d\", execute: returns(1)})".into(),
        ],
        _ => {
            let mut lines = vec!["task in top:".to_string(), format!("  y = \"{}\"", "y".repeat(n * 100))];
            lines.extend((0..n * 50).map(|_| "  x = `${y}${y}`".to_string()));
            lines
        }
    })
}

/// Budgets small enough that a runaway case ends in a few milliseconds.
fn small_budgets() -> RunOptions {
    RunOptions {
        budgets: webmcp_ref::host::budget::Budgets {
            max_units: 20_000,
            max_fuel: 400_000,
            max_unit_fuel: 100_000,
            max_value_size: 50_000,
            max_trace_entries: 50_000,
        },
        ..RunOptions::default()
    }
}

proptest! {
    #![proptest_config(Config { cases: 48, failure_persistence: None, ..Config::default() })]

    /// A runaway is stopped by a budget, at the same statement with the same message on
    /// every run, and the message names the flag that raises it.
    #[test]
    fn runaway_work_and_growing_values_are_stopped_by_a_budget_the_same_way_twice(
        wild in runaway(),
    ) {
        let mut s = String::from("title: t\n\nsubtest \"s\"\n  page top https://a.test/\n");
        for line in wild.into_iter().chain(["run".to_string()]) {
            s.push_str("  ");
            s.push_str(&line);
            s.push('\n');
        }
        let file = parse_bytes(PATH, s.as_bytes()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let first = run_file(&file, &small_budgets());
        let again = run_file(&file, &small_budgets());
        prop_assert_eq!(
            serde_json::to_string(&first).ok(),
            serde_json::to_string(&again).ok()
        );
        let m = first.subtests[0].messages.join("\n");
        prop_assert!(first.out_of_budget(), "{}", m);
        prop_assert!(m.contains("raise it with --max-"), "{}", m);
    }
}
