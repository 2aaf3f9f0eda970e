//! webmcp-ref in a web page: the engine built for WebAssembly, answering the playground's
//! requests (web/playground/). Every request and answer is JSON, so that the page's worker
//! passes them through unchanged and the same calls run natively in this crate's tests.
//!
//! A request is `{"op": OP, ...}`; every answer has `ok`. What each op reads and answers:
//!
//! - `examples`: the bundled wpt-mirror scenarios, `{path, text}` each;
//! - `profiles`: the named profiles and every switch with its values;
//! - `parse` (`path`, `text`): the subtests' names and lines, or the error at its line;
//! - `run` (`path`, `text`, `profiles`, `sets`): every subtest under each profile, as
//!   `webmcp-ref run --format json` writes them (`runs`), the human report and the table of
//!   where the profiles differ;
//! - `suite` (`profiles`, `sets`): every bundled scenario run, counted, with each failure;
//! - `timeline` (and `subtest`, optional `schedule`): the timeline page `trace --format html`
//!   writes;
//! - `markdown` (and `subtest`, `base`): the report `trace --format markdown` writes, with the
//!   link of this state;
//! - `explore` (and optional `subtest`, `max_schedules`, `max_seconds`, `random`, `seed`):
//!   what `explore --format json` writes (`explorations`) and its human report;
//! - `export` (`profiles`' first): the exported WPT test and the files it needs;
//! - `link` (`base` and the state) and `open` (`link`): a playground link written and read.

use serde_json::{json, Value};

use webmcp_ref::engine::profile::{switches, Profile, NAMED_PROFILES};
use webmcp_ref::explore::{explore_all, ExploreOptions, Mode, Progress};
use webmcp_ref::export::issue_report::{markdown_report, Asked};
use webmcp_ref::export::{export_file, RESOURCES, RESOURCE_FOLDER};
use webmcp_ref::report::{self, html, link::Link};
use webmcp_ref::scenario::{
    bundled, parser::parse_file, picked_subtests, run_file, FileResult, RunOptions, ScenarioFile,
    SubtestResult,
};
use webmcp_ref::Schedule;

/// The largest scenario a request or a link may carry, as the CLI reads a file.
const MAX_TEXT: usize = webmcp_ref::scenario::suite::MAX_FILE_BYTES as usize;

/// Why a request was not carried out; said to the page as `{ok: false, ...}`.
enum Refusal {
    /// The scenario does not parse: where, and what was expected.
    Parse(webmcp_ref::scenario::ParseError),
    /// Anything else: a message naming the part of the request at fault.
    Bad(String),
}

impl Refusal {
    fn answer(self) -> Value {
        match self {
            Refusal::Parse(e) => json!({
                "ok": false,
                "error": e.to_string(),
                "at": {"path": e.path, "line": e.line, "column": e.column, "message": e.message},
            }),
            Refusal::Bad(message) => json!({"ok": false, "error": message}),
        }
    }
}

type Answer = Result<Value, Refusal>;

/// Answers one request (JSON text) with JSON text; never panics on what a page sends.
pub fn call(request: &str) -> String {
    let answer = match serde_json::from_str::<Value>(request) {
        Ok(r) => dispatch(&r).unwrap_or_else(Refusal::answer),
        Err(e) => Refusal::Bad(format!("the request is not JSON: {e}")).answer(),
    };
    answer.to_string()
}

fn dispatch(r: &Value) -> Answer {
    match str_of(r, "op")? {
        "examples" => Ok(examples()),
        "profiles" => Ok(profiles()),
        "parse" => parse(r),
        "run" => run(r),
        "timeline" => timeline(r),
        "markdown" => markdown(r),
        "explore" => explore(r),
        "export" => export(r),
        "link" => link(r),
        "suite" => suite(r),
        "open" => open(r),
        other => Err(Refusal::Bad(format!(
            "unknown op {other:?}: expected examples, profiles, parse, run, suite, timeline, markdown, explore, export, link or open"
        ))),
    }
}

fn str_of<'a>(r: &'a Value, key: &str) -> Result<&'a str, Refusal> {
    r.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| Refusal::Bad(format!("the request has no string {key:?}")))
}

fn opt_str(r: &Value, key: &str) -> Result<Option<String>, Refusal> {
    match r.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.is_empty() => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(Refusal::Bad(format!("{key:?} must be a string"))),
    }
}

fn strings(r: &Value, key: &str) -> Result<Vec<String>, Refusal> {
    match r.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| Refusal::Bad(format!("{key:?} must be a list of strings")))
            })
            .collect(),
        Some(_) => Err(Refusal::Bad(format!("{key:?} must be a list of strings"))),
    }
}

fn opt_u64(r: &Value, key: &str) -> Result<Option<u64>, Refusal> {
    match r.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .filter(|n| *n > 0)
            .map(Some)
            .ok_or_else(|| Refusal::Bad(format!("{key:?} must be a whole number above 0"))),
    }
}

/// The scenario a request carries, parsed.
fn scenario(r: &Value) -> Result<ScenarioFile, Refusal> {
    let path = opt_str(r, "path")?.unwrap_or_else(|| "scenario.scn".into());
    let text = str_of(r, "text")?;
    if text.len() > MAX_TEXT {
        return Err(Refusal::Bad(format!(
            "the scenario is {} bytes; a scenario may be at most {MAX_TEXT}",
            text.len()
        )));
    }
    parse_file(&path, text).map_err(Refusal::Parse)
}

/// The profiles a request asks for: their names (spec when none), each once; the switch
/// assignments; and the profiles built with them.
struct Profiles {
    names: Vec<String>,
    sets: Vec<String>,
    built: Vec<Profile>,
}

/// A subtest traced under each profile asked for, each run keeping only it.
struct Traced {
    file: ScenarioFile,
    profiles: Profiles,
    runs: Vec<(String, FileResult)>,
}

fn built(r: &Value) -> Result<Profiles, Refusal> {
    let mut names = strings(r, "profiles")?;
    if names.is_empty() {
        names.push("spec".into());
    }
    let mut seen = std::collections::BTreeSet::new();
    names.retain(|n| seen.insert(n.clone()));
    let sets = strings(r, "sets")?;
    let mut out = Vec::new();
    for n in &names {
        let mut p = Profile::named(n).map_err(|e| Refusal::Bad(e.to_string()))?;
        for s in &sets {
            p.apply_assignment(s)
                .map_err(|e| Refusal::Bad(format!("--set {s}: {e}")))?;
        }
        out.push(p);
    }
    Ok(Profiles {
        names,
        sets,
        built: out,
    })
}

fn schedule(r: &Value) -> Result<Option<Schedule>, Refusal> {
    opt_str(r, "schedule")?
        .filter(|s| s != "default")
        .map(|s| s.parse::<Schedule>())
        .transpose()
        .map_err(|e| Refusal::Bad(format!("schedule: {e}")))
}

/// The one subtest a request picks (the exact name first, as the CLI's `--subtest`).
fn one_subtest(file: &ScenarioFile, r: &Value) -> Result<String, Refusal> {
    let wanted = opt_str(r, "subtest")?;
    let picked = picked_subtests(file, wanted.as_deref());
    match picked.as_slice() {
        [one] => Ok(one.name.clone()),
        [] => Err(Refusal::Bad(format!(
            "no subtest is named {:?}",
            wanted.unwrap_or_default()
        ))),
        several => Err(Refusal::Bad(format!(
            "{} subtests match; pick one: {}",
            several.len(),
            several
                .iter()
                .map(|s| format!("{:?}", s.name))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

fn examples() -> Value {
    let list: Vec<Value> = bundled::mirror_files()
        .iter()
        .filter(|(p, _)| p.ends_with(".scn"))
        .filter_map(|(p, bytes)| {
            let text = std::str::from_utf8(bytes).ok()?;
            Some(json!({"path": format!("wpt-mirror/{p}"), "text": text}))
        })
        .collect();
    json!({"ok": true, "examples": list})
}

fn profiles() -> Value {
    let named: Vec<Value> = NAMED_PROFILES
        .iter()
        .map(|p| json!({"name": p.name, "about": p.about}))
        .collect();
    let switches: Vec<Value> = switches()
        .map(|s| {
            json!({
                "name": s.name,
                "source": s.source,
                "values": s.values.iter().map(|v| json!({"name": v.name, "meaning": v.meaning})).collect::<Vec<_>>(),
                "numeric": s.numeric.map(|(default, min, max)| json!({"default": default, "min": min, "max": max})),
            })
        })
        .collect();
    json!({"ok": true, "profiles": named, "switches": switches})
}

fn parse(r: &Value) -> Answer {
    let file = scenario(r)?;
    let subtests: Vec<Value> = file
        .subtests
        .iter()
        .map(|s| json!({"name": s.name, "line": s.line}))
        .collect();
    Ok(json!({"ok": true, "title": file.title, "subtests": subtests}))
}

fn runs_of(
    file: &ScenarioFile,
    built: &[Profile],
    trace: bool,
    subtest: Option<String>,
    schedule: Option<Schedule>,
) -> Vec<(String, FileResult)> {
    built
        .iter()
        .map(|p| {
            let options = RunOptions {
                profile: p.clone(),
                schedule: schedule.clone(),
                trace,
                subtest: subtest.clone(),
                budgets: Default::default(),
            };
            (p.name.clone(), run_file(file, &options))
        })
        .collect()
}

fn run(r: &Value) -> Answer {
    let file = scenario(r)?;
    let Profiles { sets, built, .. } = built(r)?;
    let runs = runs_of(&file, &built, false, None, schedule(r)?);
    let as_lists: Vec<(String, Vec<FileResult>)> = runs
        .iter()
        .map(|(p, f)| (p.clone(), vec![f.clone()]))
        .collect();
    let human: String = as_lists
        .iter()
        .map(|(_, f)| report::human(f, &sets, true))
        .collect();
    let differences = if runs.len() > 1 {
        report::differences(&as_lists)
    } else {
        String::new()
    };
    let json_runs: Vec<Value> = runs
        .iter()
        .map(|(p, f)| json!({"profile": p, "files": [f]}))
        .collect();
    Ok(json!({
        "ok": true,
        "runs": json_runs,
        "human": human,
        "differences": differences,
        "passed": runs.iter().all(|(_, f)| f.passed()),
    }))
}

/// The subtest a request picks, traced under each profile.
fn traced(r: &Value) -> Result<Traced, Refusal> {
    let file = scenario(r)?;
    let profiles = built(r)?;
    let name = one_subtest(&file, r)?;
    let mut runs = runs_of(
        &file,
        &profiles.built,
        true,
        Some(name.clone()),
        schedule(r)?,
    );
    for (_, f) in &mut runs {
        f.subtests.retain(|s| s.name == name);
    }
    Ok(Traced {
        file,
        profiles,
        runs,
    })
}

fn timeline(r: &Value) -> Answer {
    let Traced {
        file,
        profiles: Profiles { names, sets, .. },
        runs,
    } = traced(r)?;
    let subs: Vec<(String, &SubtestResult)> = runs
        .iter()
        .filter_map(|(p, f)| f.subtests.first().map(|s| (p.clone(), s)))
        .collect();
    let Some((_, first)) = subs.first() else {
        return Err(Refusal::Bad("the subtest did not run".into()));
    };
    let command = format!(
        "{} --format html",
        report::replay_command(
            &file.path,
            &first.name,
            &names.join(","),
            &sets,
            &first.schedule
        )
    );
    Ok(json!({
        "ok": true,
        "subtest": first.name,
        "html": html::timeline_page(&file.path, &subs, &command),
    }))
}

fn markdown(r: &Value) -> Answer {
    let Traced {
        file,
        profiles: Profiles { names, sets, built },
        runs,
    } = traced(r)?;
    let base = opt_str(r, "base")?;
    let text = str_of(r, "text")?;
    let asked = Asked {
        profiles: &names,
        sets: &sets,
        playground: Some(base.as_deref().unwrap_or(report::link::DEFAULT_BASE)),
        intro: None,
    };
    Ok(json!({"ok": true, "markdown": markdown_report(&file, text, &built, &runs, &asked)}))
}

fn explore(r: &Value) -> Answer {
    let file = scenario(r)?;
    let Profiles { sets, built, .. } = built(r)?;
    let subtest = opt_str(r, "subtest")?;
    if let Some(name) = &subtest {
        if picked_subtests(&file, Some(name)).is_empty() {
            return Err(Refusal::Bad(format!("no subtest is named {name:?}")));
        }
    }
    let max_seconds = match r.get("max_seconds") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_f64()
                .filter(|s| s.is_finite() && *s > 0.0 && *s <= 1e9)
                .ok_or_else(|| {
                    Refusal::Bad("\"max_seconds\" must be a number of seconds above 0".into())
                })?,
        ),
    };
    let max_schedules = opt_u64(r, "max_schedules")?;
    let seed = opt_u64(r, "seed")?.unwrap_or(0);
    let mode = match opt_u64(r, "random")? {
        Some(runs) => Mode::Random { runs, seed },
        None => Mode::Exhaustive,
    };
    let options: Vec<ExploreOptions> = built
        .iter()
        .map(|p| ExploreOptions {
            profile: p.clone(),
            subtest: subtest.clone(),
            max_schedules,
            max_seconds,
            mode: mode.clone(),
            ..ExploreOptions::default()
        })
        .collect();
    let results = explore_all(
        std::slice::from_ref(&file),
        &options,
        1,
        &Progress::default(),
    );
    let differences = if built.len() > 1 {
        report::exploration_differences(&results)
    } else {
        String::new()
    };
    Ok(json!({
        "ok": true,
        "explorations": results,
        "human": report::explorations_human(&results, &sets),
        "differences": differences,
    }))
}

fn export(r: &Value) -> Answer {
    let file = scenario(r)?;
    let Profiles { built, .. } = built(r)?;
    let profile = &built[0];
    let e = export_file(&file, profile);
    let resources: Vec<Value> = RESOURCES
        .iter()
        .map(|(name, text)| json!({"path": format!("{RESOURCE_FOLDER}/{name}"), "text": text}))
        .collect();
    Ok(json!({
        "ok": true,
        "has_test": e.has_test(),
        "path": e.test_path,
        "html": e.html,
        "profile": profile.name,
        "subtests": e.subtests,
        "resources": resources,
    }))
}

fn suite(r: &Value) -> Answer {
    let Profiles { names, built, .. } = built(r)?;
    let (mut files, mut subtests, mut passed) = (0, 0, 0);
    let mut failures = Vec::new();
    for (path, bytes) in bundled::mirror_files() {
        if !path.ends_with(".scn") {
            continue;
        }
        files += 1;
        let path = format!("wpt-mirror/{path}");
        let file = match std::str::from_utf8(bytes)
            .map_err(|e| e.to_string())
            .and_then(|t| parse_file(&path, t).map_err(|e| e.to_string()))
        {
            Ok(f) => f,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        for (profile, result) in runs_of(&file, &built, false, None, None) {
            for s in &result.subtests {
                subtests += 1;
                if s.status.held() {
                    passed += 1;
                } else {
                    failures.push(format!(
                        "{path} {:?} under {profile}: {:?}",
                        s.name, s.status
                    ));
                }
            }
        }
    }
    Ok(json!({
        "ok": true,
        "profiles": names,
        "files": files,
        "subtests": subtests,
        "passed": passed,
        "failed": subtests - passed,
        "failures": failures,
    }))
}

fn link(r: &Value) -> Answer {
    let l = Link {
        path: opt_str(r, "path")?.unwrap_or_else(|| "scenario.scn".into()),
        text: str_of(r, "text")?.to_string(),
        profiles: strings(r, "profiles")?,
        sets: strings(r, "sets")?,
        subtest: opt_str(r, "subtest")?,
        view: opt_str(r, "view")?,
    };
    let base = opt_str(r, "base")?.unwrap_or_default();
    Ok(json!({"ok": true, "fragment": l.fragment(), "url": l.url(&base)}))
}

fn open(r: &Value) -> Answer {
    let l = Link::parse(str_of(r, "link")?, MAX_TEXT).map_err(|e| Refusal::Bad(e.to_string()))?;
    Ok(json!({
        "ok": true,
        "path": l.path,
        "text": l.text,
        "profiles": l.profiles,
        "sets": l.sets,
        "subtest": l.subtest,
        "view": l.view,
    }))
}

#[cfg(target_family = "wasm")]
mod web {
    use wasm_bindgen::prelude::*;

    /// The page's one entry: a JSON request in, a JSON answer out (see the crate's comment).
    #[wasm_bindgen]
    pub fn call(request: &str) -> String {
        super::call(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(request: Value) -> Value {
        serde_json::from_str(&call(&request.to_string())).expect("every answer is JSON")
    }

    const SMALL: &str = "title: small\n\nsubtest \"one tool\"\n  page top https://a.test/\n  task in top:\n    await top.registerTool({name: \"x\", description: \"d\", execute: returns(1)})\n    tools = await top.getTools()\n  run\n  expect tools.length == 1\n\nsubtest \"two tools\"\n  page top https://a.test/\n  task in top:\n    await top.registerTool({name: \"x\", description: \"d\", execute: returns(1)})\n    await top.registerTool({name: \"y\", description: \"d\", execute: returns(1)})\n    tools = await top.getTools()\n  run\n  expect tools.length == 2\n";

    #[test]
    fn every_bundled_example_parses() {
        let a = ask(json!({"op": "examples"}));
        let examples = a["examples"].as_array().unwrap();
        assert!(examples.len() > 50, "{}", examples.len());
        for e in examples {
            let p = ask(json!({"op": "parse", "path": e["path"], "text": e["text"]}));
            assert_eq!(p["ok"], true, "{}: {p}", e["path"]);
        }
    }

    #[test]
    fn a_run_answers_what_run_file_gives_under_each_profile() {
        let a = ask(
            json!({"op": "run", "path": "s.scn", "text": SMALL, "profiles": ["spec", "chromium-156", "spec"]}),
        );
        assert_eq!(a["ok"], true, "{a}");
        let runs = a["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 2, "each profile once");
        let file = parse_file("s.scn", SMALL).unwrap();
        for r in runs {
            let profile = Profile::named(r["profile"].as_str().unwrap()).unwrap();
            let direct = run_file(
                &file,
                &RunOptions {
                    profile,
                    schedule: None,
                    trace: false,
                    subtest: None,
                    budgets: Default::default(),
                },
            );
            assert_eq!(r["files"][0], serde_json::to_value(&direct).unwrap());
        }
        assert_eq!(a["passed"], true, "{}", a["human"]);
    }

    #[test]
    fn a_parse_error_says_where() {
        let text = format!("{SMALL}\nsubtest \"bad\"\n  frobnicate\n");
        let a = ask(json!({"op": "run", "path": "s.scn", "text": text}));
        assert_eq!(a["ok"], false);
        let expected = parse_file("s.scn", &text).unwrap_err();
        assert_eq!(a["at"]["line"], expected.line);
        assert_eq!(a["at"]["column"], expected.column);
        assert_eq!(a["error"], expected.to_string());
    }

    #[test]
    fn hostile_requests_are_refused_with_why() {
        let cases = [
            ("not json", "not JSON"),
            ("{\"op\": 3}", "no string \"op\""),
            ("{\"op\": \"frob\"}", "unknown op \"frob\""),
            ("{\"op\": \"run\"}", "no string \"text\""),
            ("{\"op\": \"run\", \"text\": \"title: t\\nsubtest \\\"s\\\"\\n  page top https://a.test/\\n\", \"profiles\": [\"nope\"]}", "nope"),
            ("{\"op\": \"run\", \"text\": \"title: t\\nsubtest \\\"s\\\"\\n  page top https://a.test/\\n\", \"profiles\": \"spec\"}", "list of strings"),
            ("{\"op\": \"run\", \"text\": \"title: t\\nsubtest \\\"s\\\"\\n  page top https://a.test/\\n\", \"sets\": [\"no-such-switch=1\"]}", "no-such-switch"),
            ("{\"op\": \"run\", \"text\": \"title: t\\nsubtest \\\"s\\\"\\n  page top https://a.test/\\n\", \"schedule\": \"zz\"}", "schedule"),
            ("{\"op\": \"explore\", \"text\": \"title: t\\nsubtest \\\"s\\\"\\n  page top https://a.test/\\n\", \"max_seconds\": -1}", "max_seconds"),
            ("{\"op\": \"explore\", \"text\": \"title: t\\nsubtest \\\"s\\\"\\n  page top https://a.test/\\n\", \"random\": 0}", "random"),
            ("{\"op\": \"explore\", \"text\": \"title: t\\nsubtest \\\"s\\\"\\n  page top https://a.test/\\n\", \"max_schedules\": \"many\"}", "max_schedules"),
            ("{\"op\": \"open\", \"link\": \"#v=9&s=AA\"}", "version"),
        ];
        for (request, says) in cases {
            let a: Value = serde_json::from_str(&call(request)).unwrap();
            assert_eq!(a["ok"], false, "{request}");
            let e = a["error"].as_str().unwrap();
            assert!(e.contains(says), "{request}: {e}");
        }
        let huge = "#".repeat(MAX_TEXT + 1);
        let a = ask(json!({"op": "parse", "text": huge}));
        assert!(a["error"].as_str().unwrap().contains("at most"), "{a}");
    }

    #[test]
    fn one_subtest_is_needed_for_a_timeline_and_the_exact_name_wins() {
        let a = ask(json!({"op": "timeline", "text": SMALL}));
        assert!(
            a["error"].as_str().unwrap().contains("2 subtests match"),
            "{a}"
        );
        let a = ask(
            json!({"op": "timeline", "text": SMALL, "subtest": "one tool", "profiles": ["spec", "text"]}),
        );
        assert_eq!(a["ok"], true, "{a}");
        assert!(a["html"].as_str().unwrap().starts_with("<!DOCTYPE html>"));
    }

    #[test]
    fn a_markdown_report_carries_the_link_that_opens_it() {
        let a = ask(
            json!({"op": "markdown", "path": "s.scn", "text": SMALL, "subtest": "two tools", "base": "http://127.0.0.1:9/"}),
        );
        let md = a["markdown"].as_str().unwrap();
        let start = md.find("(http://127.0.0.1:9/#").expect("the link") + 1;
        let end = start + md[start..].find(')').unwrap();
        let opened = ask(json!({"op": "open", "link": &md[start..end]}));
        assert_eq!(opened["text"], SMALL);
        assert_eq!(opened["subtest"], "two tools");
        assert_eq!(opened["view"], "timeline");
        assert_eq!(opened["profiles"], json!(["spec"]));
    }

    #[test]
    fn explore_export_and_the_suite_answer() {
        let a = ask(
            json!({"op": "explore", "text": SMALL, "profiles": ["spec", "chromium-156"], "max_schedules": 50}),
        );
        assert_eq!(a["ok"], true, "{a}");
        let e = a["explorations"].as_array().unwrap();
        assert_eq!(e.len(), 4);
        assert!(e
            .iter()
            .all(|x| x["complete"] == true && !x["outcomes"].as_array().unwrap().is_empty()));
        let x = ask(json!({"op": "export", "path": "webmcp/x/s.https.html.scn", "text": SMALL}));
        assert_eq!(x["ok"], true, "{x}");
        assert!(x["html"].as_str().unwrap().contains("promise_test"));
        assert_eq!(x["resources"].as_array().unwrap().len(), RESOURCES.len());
        let s = ask(json!({"op": "suite", "profiles": ["chromium-156"]}));
        assert_eq!(s["failed"], 0, "{}", s["failures"]);
        assert!(s["subtests"].as_u64().unwrap() > 200);
    }
}
