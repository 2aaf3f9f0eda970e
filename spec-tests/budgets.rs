//! Every budget holds inside one unit of work as well as between units: a value that grows
//! without end, script that never stops, work that re-arms itself, a trace of a run that never
//! idles, an exploration stuck inside one schedule. Each is stopped with status 3 and a
//! message that names the budget, the line of the statement and the flag that raises it, and
//! the process's memory stays bounded (measured by the test, from the child's own rusage).

use std::process::{Command, Stdio};

use webmcp_ref::host::budget::Budgets;
use webmcp_ref::scenario::{parse_file, run_file, RunOptions, Status};

/// A scratch file of this test file's own.
fn scratch(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("webmcp-ref-budgets-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("a scratch file");
    path.display().to_string()
}

/// What a run of the binary came to: its exit status, output, and the most memory it held
/// (KiB, from `wait4`'s rusage of that one child).
struct Ran {
    code: i32,
    out: String,
    err: String,
    max_rss_kib: i64,
}

// The child is waited for by `wait4` (for its rusage), which clippy does not see.
#[allow(clippy::zombie_processes)]
fn run_binary(args: &[&str]) -> Ran {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out_path = scratch(&format!("out-{n}"), "");
    let err_path = format!("{out_path}.err");
    let child = Command::new(env!("CARGO_BIN_EXE_webmcp-ref"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).expect("an output file"))
        .stderr(std::fs::File::create(&err_path).expect("an error file"))
        .spawn()
        .expect("the binary runs");
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for the child just spawned, which nothing else waits for.
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32, "waited for the child");
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    Ran {
        code,
        out: std::fs::read_to_string(&out_path).unwrap_or_default(),
        err: std::fs::read_to_string(&err_path).unwrap_or_default(),
        max_rss_kib: usage.ru_maxrss,
    }
}

/// A subtest of one page whose task runs `lines`, then runs until idle.
fn task(lines: &[String]) -> String {
    let body: String = lines.iter().map(|l| format!("    {l}\n")).collect();
    format!("title: t\n\nsubtest \"s\"\n  page top https://a.test/\n  task in top:\n{body}  run\n")
}

const MIB: i64 = 1024;

/// Less memory than any of the hostile runs took before they were bounded (3 GB and more).
const BOUNDED_KIB: i64 = 700 * MIB;

#[test]
fn a_string_that_doubles_is_stopped_at_its_statement_by_a_budget() {
    let mut lines = vec!["x = \"ab\"".to_string()];
    lines.extend((0..40).map(|_| "x = `${x}${x}`".to_string()));
    let path = scratch("doubling-string.scn", &task(&lines));
    let r = run_binary(&["run", &path]);
    assert_eq!(r.code, 3, "{}{}", r.out, r.err);
    assert!(r.out.contains(&format!("{path}:")), "{}", r.out);
    assert!(
        r.out.contains("raise it with --max-unit-fuel N")
            || r.out.contains("raise it with --max-value-size N"),
        "{}",
        r.out
    );
    assert!(r.max_rss_kib < 200 * MIB, "{} KiB", r.max_rss_kib);
}

#[test]
fn arrays_and_objects_that_hold_themselves_twice_are_shared_not_copied() {
    // Each statement makes one new array of two references to the old one: 40 arrays in
    // memory, 2^40 elements as JSON would write it.
    for (name, start, grow) in [
        ("arrays", "a = [1]", "a = [a, a]"),
        ("objects", "a = {v: 1}", "a = {l: a, r: a}"),
    ] {
        let mut lines = vec![start.to_string()];
        lines.extend((0..40).map(|_| grow.to_string()));
        let path = scratch(&format!("doubling-{name}.scn"), &task(&lines));
        // Within the value budget's default, the size is spent at once, at its statement.
        let r = run_binary(&["run", &path]);
        assert_eq!(r.code, 3, "{}{}", r.out, r.err);
        assert!(r.out.contains("a value would reach size"), "{}", r.out);
        assert!(r.out.contains("raise it with --max-value-size N"), "{}", r.out);
        assert!(r.max_rss_kib < 100 * MIB, "{name}: {} KiB", r.max_rss_kib);
        // With the budget raised past what the value reaches, the run holds, and the memory
        // is what 40 arrays hold.
        let mut lines = lines.clone();
        lines.push("done = true".into());
        let text = format!("{}  expect done == true\n", task(&lines));
        let path = scratch(&format!("doubling-{name}-raised.scn"), &text);
        let r = run_binary(&["run", &path, "--max-value-size", "1000000000000000000"]);
        assert_eq!(r.code, 0, "{name}: {}{}", r.out, r.err);
        assert!(r.max_rss_kib < 100 * MIB, "{name}: {} KiB", r.max_rss_kib);
    }
}

#[test]
fn a_value_nested_past_the_bound_is_stopped() {
    let mut lines = vec!["a = 1".to_string()];
    lines.extend((0..200).map(|_| "a = [a]".to_string()));
    let file = parse_file("deep.scn", &task(&lines)).expect("parses");
    let result = run_file(&file, &RunOptions::default());
    let sub = &result.subtests[0];
    assert_eq!(sub.status, Status::Error);
    assert!(result.out_of_budget());
    let m = sub.messages.join("\n");
    // The 129th `a = [a]` (line 6 + 129) nests 129 deep.
    assert!(m.starts_with("deep.scn:135: a value would nest arrays and objects 129 deep"), "{m}");
}

#[test]
fn a_unit_that_runs_on_and_on_is_stopped_by_its_fuel_at_its_statement() {
    // One unit: a script of 50,000 statements, each copying a 100,000-byte string.
    let y = "a".repeat(100_000);
    let mut lines = vec![format!("y = \"{y}\"")];
    lines.extend((0..50_000).map(|_| "x = `${y}`".to_string()));
    let file = parse_file("long.scn", &task(&lines)).expect("parses");
    let result = run_file(&file, &RunOptions::default());
    let m = result.subtests[0].messages.join("\n");
    assert!(result.out_of_budget(), "{m}");
    assert!(m.contains("one unit of work spent its budget of 2000000 fuel"), "{m}");
    assert!(m.contains("raise it with --max-unit-fuel N"), "{m}");
    // `y` costs 100,002 fuel (line 6), each copy 200,003 (a read of `y` and the string
    // made): the read of the tenth copy, on line 16, spends the last.
    assert!(m.starts_with("long.scn:16: one unit of work"), "{m}");
    // Raised, it runs, and the line's own budget then stops it.
    let options = RunOptions {
        budgets: Budgets {
            max_unit_fuel: u64::MAX,
            ..Budgets::default()
        },
        ..RunOptions::default()
    };
    let result = run_file(&file, &options);
    let m = result.subtests[0].messages.join("\n");
    assert!(m.contains("raise it with --max-fuel N"), "{m}");
}

/// A page that re-arms its own work, three ways.
fn rearming(kind: &str) -> String {
    let head = "title: t\n\nsubtest \"s\"\n  page top https://a.test/\n";
    match kind {
        "timer" => format!(
            "{head}  script tick:\n    after 1ms:\n      ts = await top.getTools()\n      top.executeTool(ts[0])\n    return 1\n  task in top: top.registerTool({{name: \"tick\", description: \"d\", execute: tick}})\n  run\n  task in top:\n    ts = await top.getTools()\n    top.executeTool(ts[0])\n  run\n"
        ),
        "listener" => format!(
            "{head}  task in top:\n    on top toolchange:\n      c = AbortController()\n      top.registerTool({{name: \"t\", description: \"d\", execute: returns(1)}}, {{signal: c.signal}})\n      c.abort()\n    top.registerTool({{name: \"t0\", description: \"d\", execute: returns(1)}})\n  run\n"
        ),
        _ => format!(
            "{head}  script again:\n    ts = await top.getTools()\n    x = await top.executeTool(ts[0])\n    return x\n  task in top: top.registerTool({{name: \"self\", description: \"d\", execute: again}})\n  run\n  task in top:\n    ts = await top.getTools()\n    r = top.executeTool(ts[0])\n  run\n"
        ),
    }
}

#[test]
fn work_that_re_arms_itself_is_stopped_by_the_line_budget_of_units() {
    for kind in ["timer", "listener", "self-call"] {
        let path = scratch(&format!("rearm-{kind}.scn"), &rearming(kind));
        let r = run_binary(&["run", &path, "--max-units", "200000"]);
        assert_eq!(r.code, 3, "{kind}: {}{}", r.out, r.err);
        assert!(
            r.out.contains("the world did not become idle within 200000 units of work")
                && r.out.contains("raise it with --max-units N"),
            "{kind}: {}",
            r.out
        );
        assert!(r.max_rss_kib < BOUNDED_KIB, "{kind}: {} KiB", r.max_rss_kib);
    }
}

#[test]
fn the_trace_every_failure_points_to_is_bounded_too() {
    let path = scratch("trace-self-call.scn", &rearming("self-call"));
    let r = run_binary(&["trace", &path, "--max-trace-entries", "100000"]);
    assert_eq!(r.code, 3, "{}", r.err);
    assert!(
        r.out.contains("the step trace reached its budget of 100000 entries")
            && r.out.contains("raise it with --max-trace-entries N"),
        "{}",
        &r.out[r.out.len().saturating_sub(2000)..]
    );
    assert!(r.max_rss_kib < BOUNDED_KIB, "{} KiB", r.max_rss_kib);
}

#[test]
fn explore_checks_its_budgets_inside_a_schedule() {
    // Each of these spends its budget inside its first schedule.
    let mut lines = vec!["a = [1]".to_string()];
    lines.extend((0..40).map(|_| "a = [a, a]".to_string()));
    let cases = [
        ("self-call", rearming("self-call")),
        ("timer", rearming("timer")),
        (
            "growth",
            format!("{}  step\n", task(&lines).trim_end_matches("  run\n")),
        ),
    ];
    for (name, text) in cases {
        let path = scratch(&format!("explore-{name}.scn"), &text);
        let r = run_binary(&[
            "explore",
            &path,
            "--max-seconds",
            "2",
            "--max-memory",
            "400M",
            "--threads",
            "1",
        ]);
        assert_eq!(r.code, 3, "{name}: {}{}", r.out, r.err);
        assert!(
            r.out.contains("stopped by --max-seconds")
                || r.out.contains("stopped by --max-memory")
                || r.out.contains("raise it with --max-value-size N"),
            "{name}: {}",
            r.out
        );
        assert!(r.max_rss_kib < 450 * MIB, "{name}: {} KiB", r.max_rss_kib);
    }
}

#[test]
fn a_budget_stop_names_the_flag_and_a_raised_budget_lets_the_run_hold() {
    let path = scratch(
        "units.scn",
        "title: t\n\nsubtest \"s\"\n  page top https://a.test/\n  task in top:\n    after 1ms: x = 1\n    after 2ms: x = 2\n    after 3ms: x = 3\n  run\n  expect x == 3\n",
    );
    let r = run_binary(&["run", &path, "--max-units", "2"]);
    assert_eq!(r.code, 3, "{}", r.out);
    assert!(
        r.out.contains(&format!("{path}:9: the world did not become idle within 2 units")),
        "{}",
        r.out
    );
    let r = run_binary(&["run", &path, "--max-units", "10"]);
    assert_eq!(r.code, 0, "{}", r.out);
    for flag in [
        "--max-units",
        "--max-fuel",
        "--max-unit-fuel",
        "--max-value-size",
        "--max-trace-entries",
    ] {
        let r = run_binary(&["run", &path, flag, "0"]);
        assert_eq!(r.code, 2, "{flag} 0: {}", r.err);
        assert!(r.err.contains(flag), "{flag}: {}", r.err);
    }
}
