//! Output: human text and JSON of runs, explorations and coverage; [`wpt`]: test IDs and
//! wptreport JSON (what wptrunner writes and wpt.fyi reads); [`metadata`]: WPT expectation
//! `.ini` files; [`trace`]: a subtest's step trace.

pub mod git;
pub mod html;
pub mod link;
pub mod markdown;
pub mod metadata;
pub mod timeline;
pub mod trace;
pub mod wpt;

pub use wpt::{test_id, wptreport, WptRun};

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::text::escape::{cut, READABLE_CHARS};
use crate::text::js_string::quoted;

use serde_json::json;

use crate::engine::trace::Coverage;
use crate::scenario::{FileResult, Status};
use crate::webmcp::{ALGORITHMS, FULLY_COVERED};

/// The command that replays a subtest with its trace.
pub fn replay_command(
    path: &str,
    subtest: &str,
    profile: &str,
    sets: &[String],
    schedule: &str,
) -> String {
    use crate::text::escape::{shell, shell_quoted};
    // Every word the scenario or the command line chose is quoted for the shell: the command
    // is printed to be pasted, and a name may hold `$(...)`.
    let mut cmd = format!(
        "webmcp-ref trace {} --subtest {} --profile {}",
        shell(path),
        // A lone surrogate as the escape `--subtest` reads (text::js_string).
        shell_quoted(&crate::text::js_string::escape_lone_surrogates(subtest)),
        shell(profile)
    );
    for s in sets {
        let _ = write!(cmd, " --set {}", shell(s));
    }
    if schedule != "default" {
        let _ = write!(cmd, " --schedule {}", shell(schedule));
    }
    cmd
}

/// How long a message may be, in characters, before the human output cuts it (the JSON has
/// it whole).
const MESSAGE_CHARS: usize = 2000;

/// Human-readable results of one profile's run: a line per file, details for every failure.
pub fn human(results: &[FileResult], sets: &[String], verbose: bool) -> String {
    let mut out = String::new();
    for file in results {
        if let Some(error) = &file.error {
            let _ = writeln!(out, "ERROR {}  [{}]", file.path, file.profile);
            for line in error.lines() {
                let _ = writeln!(out, "    {line}");
            }
            continue;
        }
        let passed = file
            .subtests
            .iter()
            .filter(|s| s.status == Status::Pass)
            .count();
        let mark = if file.passed() { "PASS " } else { "FAIL " };
        let _ = writeln!(
            out,
            "{mark} {}  ({passed}/{} subtests) [{}]",
            file.path,
            file.subtests.len(),
            file.profile
        );
        for sub in &file.subtests {
            if sub.status == Status::Pass && !verbose {
                continue;
            }
            let status = sub.status.name();
            let _ = writeln!(
                out,
                "    {status}  {} (line {})",
                quoted(&sub.name),
                sub.line
            );
            for e in sub
                .expectations
                .iter()
                .filter(|e| !e.passed && !e.sometimes)
            {
                let _ = writeln!(
                    out,
                    "        {}:{}:{}: {}",
                    file.path, e.line, e.column, e.text
                );
                // A value too long to read is cut here; `--format json` has it whole.
                let _ = writeln!(
                    out,
                    "            expected: {}",
                    cut(&e.expected, READABLE_CHARS)
                );
                let _ = writeln!(
                    out,
                    "            actual:   {}",
                    cut(&e.actual, READABLE_CHARS)
                );
            }
            for m in &sub.messages {
                let _ = writeln!(out, "        {}", cut(m, MESSAGE_CHARS));
            }
            if !sub.status.held() {
                let _ = writeln!(
                    out,
                    "        replay with its trace: {}",
                    replay_command(&file.path, &sub.name, &file.profile, sets, &sub.schedule)
                );
            }
        }
    }
    out
}

/// A run's totals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub files: usize,
    pub subtests: usize,
    pub passed: usize,
    pub failed: usize,
    pub errors: usize,
    /// Subtests the profile does not run (their file's `requires:`).
    pub not_run: usize,
    /// Files that could not be read or parsed.
    pub unloadable: usize,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} files, {} subtests: {} passed, {} failed, {} errors",
            self.files, self.subtests, self.passed, self.failed, self.errors
        )?;
        if self.not_run > 0 {
            write!(f, ", {} not run (PRECONDITION_FAILED)", self.not_run)?;
        }
        if self.unloadable > 0 {
            write!(f, "; {} files could not be run (ERROR)", self.unloadable)?;
        }
        Ok(())
    }
}

/// Totals: files, subtests, and how each ended.
pub fn summary(results: &[FileResult]) -> Summary {
    let mut s = Summary {
        files: results.len(),
        unloadable: results.iter().filter(|f| f.error.is_some()).count(),
        ..Summary::default()
    };
    for sub in results.iter().flat_map(|f| &f.subtests) {
        s.subtests += 1;
        match sub.status {
            Status::Pass => s.passed += 1,
            Status::Fail => s.failed += 1,
            Status::Error => s.errors += 1,
            Status::PreconditionFailed => s.not_run += 1,
        }
    }
    s
}

/// A subtest's outcome under several profiles, as rows: each key any run has, in order, with
/// each run's value ("-" where a run has none) and whether the values differ. The one table
/// `differences`, the timeline page and the Markdown report all show.
///
/// An expectation written once per profile (`observe top => ready [spec]` on one line,
/// `observe top => timed-out [chromium-156]` on the next) gives each run a key of its own
/// (`observation at line 16`, `observation at line 17`); keys that differ only in their line,
/// and that no run has two of, are one row (`observation at lines 16 / 17`), each value with
/// its line, so that the profiles' outcomes sit side by side.
pub(crate) fn outcome_rows(outcomes: &[&[(String, String)]]) -> Vec<(String, Vec<String>, bool)> {
    use std::collections::BTreeSet;
    // Each outcome read once, by name, and the keys gathered by family once: a wide world has
    // many values, and every step below is a look-up, not a scan.
    let by_name: Vec<BTreeMap<&str, &str>> = outcomes.iter().map(|o| values_by_name(o)).collect();
    let keys: BTreeSet<&str> = by_name.iter().flat_map(|o| o.keys().copied()).collect();
    // The keys that differ only in their line, gathered by what precedes " at line N".
    fn family(k: &str) -> Option<(&str, &str)> {
        let (head, line) = k.rsplit_once(" at line ")?;
        line.chars()
            .all(|c| c.is_ascii_digit())
            .then_some((head, line))
    }
    let mut families: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for &k in &keys {
        if let Some((head, _)) = family(k) {
            families.entry(head).or_default().push(k);
        }
    }
    let mut rows: Vec<(String, Vec<String>, bool)> = Vec::new();
    let mut done: BTreeSet<&str> = BTreeSet::new();
    for &k in &keys {
        if done.contains(k) {
            continue;
        }
        let group: &[&str] = match family(k) {
            Some((head, _)) => &families[head],
            None => std::slice::from_ref(&k),
        };
        // One row only where no run has two of the group's keys.
        let mergeable = group.len() > 1
            && by_name
                .iter()
                .all(|o| group.iter().filter(|g| o.contains_key(*g)).count() <= 1);
        if !mergeable {
            let vals: Vec<String> = by_name
                .iter()
                .map(|o| o.get(k).copied().unwrap_or("-").to_string())
                .collect();
            let differs = vals.windows(2).any(|w| w[0] != w[1]);
            rows.push((k.to_string(), vals, differs));
            done.insert(k);
            continue;
        }
        let lines: Vec<&str> = group
            .iter()
            .filter_map(|g| family(g).map(|(_, l)| l))
            .collect();
        let head = family(k).map(|(h, _)| h).unwrap_or_default();
        let mut shown = Vec::new();
        let mut plain = Vec::new();
        for o in &by_name {
            let found = group
                .iter()
                .find_map(|g| o.get(g).map(|v| (family(g).map(|(_, l)| l), *v)));
            match found {
                Some((Some(line), v)) => {
                    shown.push(format!("{v} (line {line})"));
                    plain.push(v);
                }
                _ => {
                    shown.push("-".into());
                    plain.push("-");
                }
            }
        }
        let differs = plain.windows(2).any(|w| w[0] != w[1]);
        rows.push((
            format!("{head} at lines {}", lines.join(" / ")),
            shown,
            differs,
        ));
        done.extend(group.iter().copied());
    }
    rows
}

/// Where the outcomes of several profiles' runs of the same files differ: for each subtest, the
/// values that are not the same under every profile.
pub fn differences(runs: &[(String, Vec<FileResult>)]) -> String {
    let mut out = String::new();
    let Some((_, first)) = runs.first() else {
        return out;
    };
    let names: Vec<&str> = runs.iter().map(|(p, _)| p.as_str()).collect();
    let mut any = false;
    for (fi, file) in first.iter().enumerate() {
        for (si, sub) in file.subtests.iter().enumerate() {
            let outcomes: Vec<&[(String, String)]> = runs
                .iter()
                .map(|(_, files)| files[fi].subtests[si].outcome.as_slice())
                .collect();
            let owned = outcome_rows(&outcomes);
            let rows: Vec<(&str, Vec<&str>)> = owned
                .iter()
                .filter(|(_, _, differs)| *differs)
                .map(|(k, vals, _)| (k.as_str(), vals.iter().map(String::as_str).collect()))
                .collect();
            if rows.is_empty() {
                continue;
            }
            any = true;
            let _ = writeln!(out, "{} :: {}", file.path, quoted(&sub.name));
            write_table(&mut out, &names, &rows, 5);
        }
    }
    if !any {
        out.push_str("The profiles' outcomes do not differ on these scenarios.\n");
    }
    out
}

/// Coverage report: per algorithm, the steps reached and those never reached.
pub fn coverage_human(coverage: &Coverage) -> String {
    let mut out = String::new();
    for alg in ALGORITHMS {
        let reached = (0..alg.steps.len())
            .filter(|i| coverage.reached(alg.id, *i))
            .count();
        let required = FULLY_COVERED.iter().any(|a| a.id == alg.id);
        let pct = 100.0 * reached as f64 / alg.steps.len() as f64;
        let _ = writeln!(
            out,
            "{:>5.1}%  {reached:>2}/{:<2}  {}{}  ({})",
            pct,
            alg.steps.len(),
            alg.name,
            if required { "  [must be 100%]" } else { "" },
            alg.url()
        );
        let missing: Vec<&str> = (0..alg.steps.len())
            .filter(|i| !coverage.reached(alg.id, *i))
            .map(|i| alg.steps[i])
            .collect();
        if !missing.is_empty() {
            let _ = writeln!(
                out,
                "                never reached: step {}",
                missing.join(", ")
            );
        }
    }
    out
}

pub fn coverage_json(coverage: &Coverage) -> serde_json::Value {
    let algs: Vec<serde_json::Value> = ALGORITHMS
        .iter()
        .map(|alg| {
            let steps: Vec<serde_json::Value> = alg
                .steps
                .iter()
                .enumerate()
                .map(|(i, s)| json!({"step": s, "reached": coverage.reached(alg.id, i)}))
                .collect();
            json!({
                "algorithm": alg.name,
                "url": alg.url(),
                "required": FULLY_COVERED.iter().any(|a| a.id == alg.id),
                "steps": steps,
            })
        })
        .collect();
    json!({ "algorithms": algs })
}

/// The required algorithms' steps that were never reached.
pub fn missing_required(coverage: &Coverage) -> Vec<String> {
    FULLY_COVERED
        .iter()
        .flat_map(|alg| {
            (0..alg.steps.len())
                .filter(|i| !coverage.reached(alg.id, *i))
                .map(move |i| format!("{} step {}", alg.name, alg.steps[i]))
        })
        .collect()
}

/// What an expectation came to over every schedule, in words that agree with its counts:
/// `holds on every schedule (4 of 4)`, `FAILS on 1 of 4 schedules`, `FAILS on every schedule
/// (0 of 4 held)`; for `expect sometimes`, `holds on some schedule (1 of 4)` or `FAILS: held on
/// no schedule (0 of 4)`.
pub fn verdict_label(v: &crate::explore::ExpectationVerdict) -> String {
    let total = v.passing_schedules + v.failing_schedules;
    match (v.sometimes, v.holds) {
        (false, true) => format!("holds on every schedule ({total} of {total})"),
        (true, true) => format!(
            "holds on some schedule ({} of {total})",
            v.passing_schedules
        ),
        (false, false) if v.passing_schedules == 0 => {
            format!("FAILS on every schedule (0 of {total} held)")
        }
        (false, false) => format!(
            "FAILS on {} of {total} schedules (held on {})",
            v.failing_schedules, v.passing_schedules
        ),
        (true, false) => format!("FAILS: held on no schedule (0 of {total})"),
    }
}

/// Where several profiles' explorations of the same subtests differ: for each subtest, its
/// verdict and the values its outcomes took under each profile, a row per value whose set of
/// values reached (on any schedule) is not the same under every profile.
pub fn exploration_differences(results: &[crate::explore::Exploration]) -> String {
    let mut profiles: Vec<&str> = Vec::new();
    for e in results {
        if !profiles.contains(&e.profile.as_str()) {
            profiles.push(&e.profile);
        }
    }
    let mut out = String::new();
    if profiles.len() < 2 {
        return out;
    }
    // The subtests in the order first explored; each profile's exploration of it.
    let mut subtests: Vec<(&str, &str)> = Vec::new();
    for e in results {
        if !subtests.contains(&(e.file.as_str(), e.subtest.as_str())) {
            subtests.push((&e.file, &e.subtest));
        }
    }
    let mut any = false;
    for (file, subtest) in subtests {
        let per: Vec<Option<&crate::explore::Exploration>> = profiles
            .iter()
            .map(|p| {
                results
                    .iter()
                    .find(|e| e.file == file && e.subtest == subtest && e.profile == *p)
            })
            .collect();
        // Each outcome's values, by name (a wide world has many).
        let by_name: Vec<Vec<BTreeMap<&str, &str>>> = per
            .iter()
            .map(|e| e.map(outcome_values).unwrap_or_default())
            .collect();
        let cell = |i: usize, key: &str| -> String {
            let Some(e) = per[i] else { return "-".into() };
            if e.not_run.is_some() {
                // Said once, on the verdict's row; its values are not compared.
                return if key == "verdict" { "not run" } else { "" }.into();
            }
            if key == "verdict" {
                return if !e.complete {
                    "INCOMPLETE"
                } else if e.passed() {
                    "PASS"
                } else {
                    "FAIL"
                }
                .into();
            }
            let seen: std::collections::BTreeSet<&str> = by_name[i]
                .iter()
                .map(|o| o.get(key).copied().unwrap_or("-"))
                .collect();
            seen.into_iter().collect::<Vec<_>>().join(" or ")
        };
        let names: std::collections::BTreeSet<&str> = by_name
            .iter()
            .flatten()
            .flat_map(|o| o.keys().copied())
            .collect();
        let keys = std::iter::once("verdict").chain(names);
        let rows: Vec<(&str, Vec<String>)> = keys
            .map(|k| (k, (0..per.len()).map(|i| cell(i, k)).collect::<Vec<_>>()))
            .filter(|(k, vals)| {
                let ran: Vec<&String> = vals
                    .iter()
                    .zip(&per)
                    .filter(|(_, e)| *k == "verdict" || e.is_some_and(|e| e.not_run.is_none()))
                    .map(|(v, _)| v)
                    .collect();
                ran.windows(2).any(|w| w[0] != w[1])
            })
            .collect();
        if rows.is_empty() {
            continue;
        }
        any = true;
        let _ = writeln!(out, "{file} :: {subtest:?}");
        write_table(&mut out, &profiles, &rows, 7);
    }
    if !any {
        out.push_str("The profiles' outcomes do not differ on these subtests.\n");
    }
    out
}

/// What an exploration's counts count, as its first line says it.
fn counted_as(e: &crate::explore::Exploration) -> &'static str {
    match e.counted {
        crate::explore::Counted::Schedules => "schedules (every one, exactly)",
        crate::explore::Counted::Traces => {
            "traces explored (schedules up to the order of independent units: one or more of each)"
        }
        crate::explore::Counted::Samples => "schedules sampled",
    }
}

/// Human-readable explorations.
pub fn explorations_human(results: &[crate::explore::Exploration], sets: &[String]) -> String {
    let mut out = String::new();
    for e in results {
        if let Some(why) = &e.not_run {
            let _ = writeln!(
                out,
                "{:<10} {} :: {} [{}]\n           {why}",
                "NOT RUN",
                e.file,
                quoted(&e.subtest),
                e.profile
            );
            continue;
        }
        let verdict = if !e.complete {
            "INCOMPLETE"
        } else if e.passed() {
            "PASS"
        } else {
            "FAIL"
        };
        let _ = writeln!(
            out,
            "{verdict:<10} {} :: {} [{}]\n           {} {}, {} distinct states ({} met again), {} units run, {} schedules run to the end{}",
            e.file, quoted(&e.subtest), e.profile, e.schedules, counted_as(e), e.states, e.merged, e.units, e.leaves_run,
            match (e.seed, &e.stopped_by) {
                (Some(seed), _) => format!(" (seed {seed})"),
                (None, Some(why)) => format!(" (stopped by {why})"),
                (None, None) => String::new(),
            }
        );
        // Only the values that differ between outcomes say anything (each outcome's values
        // read once, by name: a wide world has many).
        let keys: std::collections::BTreeSet<&str> = {
            let by_outcome = outcome_values(e);
            let all: std::collections::BTreeSet<&str> =
                by_outcome.iter().flat_map(|m| m.keys().copied()).collect();
            all.into_iter()
                .filter(|key| {
                    by_outcome
                        .windows(2)
                        .any(|w| w[0].get(key) != w[1].get(key))
                })
                .collect()
        };
        let _ = writeln!(out, "           {} distinct outcome(s):", e.outcomes.len());
        for o in &e.outcomes {
            let _ = write!(
                out,
                "           {:>8} {}, e.g. {:<12}",
                o.schedules,
                e.counted.noun(),
                o.schedule
            );
            let shown: Vec<String> = o
                .values
                .iter()
                .filter(|(k, _)| keys.contains(&k.as_str()))
                .map(|(k, v)| format!("{k} = {}", cut(v, READABLE_CHARS)))
                .collect();
            if shown.is_empty() {
                let _ = write!(out, " (the only outcome)");
            } else {
                let _ = write!(out, " {}", shown.join("; "));
            }
            out.push('\n');
            for m in &o.messages {
                let _ = writeln!(out, "                    {}", cut(m, MESSAGE_CHARS));
            }
        }
        for v in &e.expectations {
            let label = verdict_label(v);
            if v.holds {
                let _ = writeln!(out, "           {label}: line {}: {}", v.line, v.text);
                continue;
            }
            let _ = writeln!(out, "           {label}: {}:{}: {}", e.file, v.line, v.text);
            let _ = writeln!(out, "               expected: {}", v.expected);
            let _ = writeln!(out, "               seen: {}", v.seen.join(" | "));
            for u in &v.unreached {
                let _ = writeln!(
                    out,
                    "               no schedule reaches the permitted order {u}"
                );
            }
            if let Some(c) = &v.counterexample {
                let _ = writeln!(out, "               shortest counterexample: {c}");
                let _ = writeln!(
                    out,
                    "               replay: {}",
                    replay_command(&e.file, &e.subtest, &e.profile, sets, c)
                );
            }
        }
        for m in &e.errors {
            let _ = writeln!(out, "           {m}");
        }
    }
    out
}

/// A table of values per profile: a header of the profiles' names, then a row per key, each
/// cell cut to at most 48 characters.
fn write_table<N: AsRef<str>, V: AsRef<str>>(
    out: &mut String,
    names: &[N],
    rows: &[(&str, Vec<V>)],
    min_key: usize,
) {
    let key_width = rows
        .iter()
        .map(|(k, _)| k.len())
        .max()
        .unwrap_or(0)
        .max(min_key);
    let col_width = rows
        .iter()
        .flat_map(|(_, v)| v.iter().map(|s| s.as_ref().chars().count()))
        .chain(names.iter().map(|n| n.as_ref().len()))
        .max()
        .unwrap_or(8)
        .min(48);
    let _ = write!(out, "    {:key_width$}", "");
    for n in names {
        let _ = write!(out, " | {:col_width$}", n.as_ref());
    }
    out.push('\n');
    for (k, vals) in rows {
        let _ = write!(out, "    {k:key_width$}");
        for v in vals {
            let v = v.as_ref();
            let v = if v.chars().count() > col_width {
                let cut: String = v.chars().take(col_width - 1).collect();
                format!("{cut}…")
            } else {
                v.to_string()
            };
            let _ = write!(out, " | {v:col_width$}");
        }
        out.push('\n');
    }
}

/// An outcome's values, by name.
fn values_by_name(values: &[(String, String)]) -> BTreeMap<&str, &str> {
    values
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect()
}

/// Each outcome of an exploration, its values by name (a wide world has many).
fn outcome_values(e: &crate::explore::Exploration) -> Vec<BTreeMap<&str, &str>> {
    e.outcomes
        .iter()
        .map(|o| values_by_name(&o.values))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::outcome_rows;

    fn run(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn keys_that_differ_only_in_their_line_are_one_row_when_no_run_has_two() {
        let a = run(&[("observation at line 16", "timed-out"), ("p", "pending")]);
        let b = run(&[("observation at line 17", "ready"), ("p", "pending")]);
        let rows = outcome_rows(&[&a, &b]);
        assert_eq!(
            rows,
            vec![
                (
                    "observation at lines 16 / 17".to_string(),
                    vec![
                        "timed-out (line 16)".to_string(),
                        "ready (line 17)".to_string()
                    ],
                    true
                ),
                (
                    "p".to_string(),
                    vec!["pending".into(), "pending".into()],
                    false
                ),
            ]
        );
        // The same value on both lines: one row, and it does not differ.
        let b = run(&[("observation at line 17", "timed-out")]);
        let rows = outcome_rows(&[&a, &b]);
        assert!(!rows[0].2, "{rows:?}");
        // A run with both keys: they stay two rows.
        let c = run(&[
            ("observation at line 16", "ready"),
            ("observation at line 17", "ready"),
        ]);
        let rows = outcome_rows(&[&a, &c]);
        assert_eq!(rows[0].0, "observation at line 16");
        assert_eq!(rows[1].0, "observation at line 17");
        assert_eq!(rows[1].1, vec!["-".to_string(), "ready".to_string()]);
    }
}
