//! What every spec-test file shares: a world with tracing on, and short names for the actions a
//! test takes (open a page, add an iframe, queue a task of script, run) and for what it reads
//! back (toolsReady, the pending set, promise states, the log, coverage).

use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use webmcp_ref::host::keys::ThenableKey;
use webmcp_ref::host::navigable::DocumentOptions;
use webmcp_ref::host::promise::{PromiseState, ThenBehaviour};
use webmcp_ref::host::spec::{step_index, Algorithm};
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::script::ast::{CallbackBody, Function};
use webmcp_ref::{DocumentKey, ObservationResult, Profile, PromiseKey, Value, World};

/// A world under test, with the scripts it queued, so that a script that throws (a typo in a
/// test, an unexpected rejection) fails the test instead of passing silently.
pub struct Sim {
    pub w: World,
    scripts: Vec<(PromiseKey, String)>,
}

impl Deref for Sim {
    type Target = World;
    fn deref(&self) -> &World {
        &self.w
    }
}

impl DerefMut for Sim {
    fn deref_mut(&mut self) -> &mut World {
        &mut self.w
    }
}

/// A named profile.
pub fn profile(name: &str) -> Profile {
    Profile::named(name).unwrap_or_else(|e| panic!("{e}"))
}

/// A named profile with some switches set.
pub fn profile_with(name: &str, switches: &[(&str, &str)]) -> Profile {
    let mut p = profile(name);
    for (switch, value) in switches {
        p.set(switch, value).unwrap_or_else(|e| panic!("{e}"));
    }
    p
}

impl Sim {
    pub fn new(name: &str) -> Sim {
        Sim::with_profile(profile(name))
    }

    pub fn with(name: &str, switches: &[(&str, &str)]) -> Sim {
        Sim::with_profile(profile_with(name, switches))
    }

    pub fn with_profile(p: Profile) -> Sim {
        let mut w = World::new(p);
        w.set_tracing(true);
        Sim {
            w,
            scripts: Vec::new(),
        }
    }

    pub fn page(&mut self, label: &str, url: &str) -> DocumentKey {
        self.w.open_page(label, url).unwrap()
    }

    pub fn page_with(&mut self, label: &str, url: &str, options: DocumentOptions) -> DocumentKey {
        self.w.open_page_with(label, url, options).unwrap()
    }

    pub fn frame(&mut self, parent: DocumentKey, label: &str, url: &str) -> DocumentKey {
        self.w
            .add_iframe(parent, label, url, None, DocumentOptions::default())
            .unwrap()
    }

    pub fn frame_allow(
        &mut self,
        parent: DocumentKey,
        label: &str,
        url: &str,
        allow: &str,
    ) -> DocumentKey {
        self.w
            .add_iframe(parent, label, url, Some(allow), DocumentOptions::default())
            .unwrap()
    }

    /// A pending promise of `realm`'s realm, bound to `name` for scripts.
    pub fn promise_in(&mut self, realm: DocumentKey, name: &str) -> PromiseKey {
        let p = self.w.new_promise(realm);
        self.w.name_promise(p, name);
        self.w.bind(name, Value::Promise(p));
        p
    }

    /// A thenable of `realm`'s realm, bound to `name` for scripts.
    pub fn thenable(
        &mut self,
        realm: DocumentKey,
        name: &str,
        behaviour: ThenBehaviour,
    ) -> ThenableKey {
        let t = self.w.new_thenable(realm, name, behaviour);
        self.w.bind(name, Value::Thenable(t));
        t
    }

    /// A function of `realm`'s realm whose body is `source`, run as an async function with
    /// `input`, `options` and `signal` bound (a tool's `execute`), bound to `name` for scripts.
    pub fn function(&mut self, realm: DocumentKey, name: &str, source: &str) {
        let block = webmcp_ref::scenario::parse_script(source)
            .unwrap_or_else(|e| panic!("script does not parse: {e}\n{source}"));
        let f = Function {
            realm,
            body: CallbackBody::Script(Arc::new(block)),
            captured: Vec::new(),
        };
        self.w.bind(
            name,
            Value::Function(webmcp_ref::script::code::Code::Function(f).callback()),
        );
    }

    /// Queues one task of `doc` that runs `source`; returns the task's completion promise.
    pub fn task(&mut self, doc: DocumentKey, source: &str) -> PromiseKey {
        let c = self
            .w
            .queue_script(doc, source)
            .unwrap_or_else(|e| panic!("script does not parse: {e}\n{source}"));
        self.scripts.push((c, source.to_string()));
        c
    }

    /// Fails the test if a script threw.
    pub fn check_scripts(&self) {
        for (c, source) in &self.scripts {
            if let PromiseState::Rejected(e) = self.w.promise_state(*c) {
                panic!("a script threw {}:\n{source}", self.w.display_value(e));
            }
        }
        assert!(
            self.w.uncaught_errors().is_empty(),
            "uncaught: {:?}",
            self.w.uncaught_errors()
        );
    }

    /// Runs until nothing is left, moving the clock as needed.
    pub fn run(&mut self) {
        self.w.run_until_idle().unwrap();
        self.check_scripts();
    }

    /// Runs what can run without moving the clock.
    pub fn flush(&mut self) {
        self.w.flush().unwrap();
        self.check_scripts();
    }

    /// Runs `ms` milliseconds of virtual time.
    pub fn run_for(&mut self, ms: u64) {
        self.w.run_for(ms).unwrap();
        self.check_scripts();
    }

    /// Runs one unit of work; false when nothing could run.
    pub fn step(&mut self) -> bool {
        self.w.step().unwrap()
    }

    /// Runs units until one of them is a microtask (parallel steps and other event loops' tasks
    /// may run first); returns that microtask's description.
    pub fn step_microtask(&mut self) -> String {
        loop {
            assert!(self.step(), "no microtask left to run");
            let last = self.units().pop().unwrap_or_default();
            if last.starts_with("microtask") {
                return last;
            }
        }
    }

    /// Asks the browser agent for an observation of `top`'s traversable and runs until idle.
    pub fn observe_now(&mut self, top: DocumentKey) -> ObservationResult {
        let o = self.w.observe(top, "o");
        self.run();
        self.w
            .observation_result(o)
            .cloned()
            .expect("the observation finished")
    }

    pub fn ready(&self, doc: DocumentKey) -> bool {
        self.w.tools_ready(doc)
    }

    pub fn pending(&self, doc: DocumentKey) -> usize {
        self.w.pending_tool_readiness_promises(doc)
    }

    /// "pending", "fulfilled" or "rejected".
    pub fn state(&self, p: PromiseKey) -> &'static str {
        self.w.promise_state(p).name()
    }

    /// The promise a script bound to `name`.
    pub fn promise_named(&self, name: &str) -> PromiseKey {
        match self.w.lookup(name) {
            Some(Value::Promise(p)) => *p,
            other => panic!("{name} is not a promise: {other:?}"),
        }
    }

    pub fn value(&self, name: &str) -> Value {
        self.w
            .lookup(name)
            .cloned()
            .unwrap_or_else(|| panic!("{name} is not bound"))
    }

    /// The state of the promise a script bound to `name`.
    pub fn state_of(&self, name: &str) -> &'static str {
        self.state(self.promise_named(name))
    }

    /// The value a fulfilled promise holds.
    pub fn fulfilled_value(&self, p: PromiseKey) -> Value {
        match self.w.promise_state(p) {
            PromiseState::Fulfilled(v) => v.clone(),
            other => panic!("{} is {}", self.w.promise_label(p), other.name()),
        }
    }

    /// The name of the error a rejected promise holds (or the displayed value when it is not
    /// an error).
    pub fn rejection(&self, p: PromiseKey) -> String {
        match self.w.promise_state(p) {
            PromiseState::Rejected(Value::Error(e)) => e.name.clone(),
            PromiseState::Rejected(v) => self.w.display_value(v),
            other => panic!("{} is {}", self.w.promise_label(p), other.name()),
        }
    }

    /// The rejection of the promise a script bound to `name`.
    pub fn rejection_of(&self, name: &str) -> String {
        self.rejection(self.promise_named(name))
    }

    /// How the promise a script bound to `name` settled: `Ok` with the string it was fulfilled
    /// with (`executeTool()`'s result), `Err` with its rejection (see `rejection`).
    pub fn outcome_of(&self, name: &str) -> Result<String, String> {
        let p = self.promise_named(name);
        match self.w.promise_state(p) {
            PromiseState::Fulfilled(Value::String(s)) => Ok(s.clone()),
            PromiseState::Fulfilled(other) => Ok(self.w.display_value(other)),
            PromiseState::Rejected(_) => Err(self.rejection(p)),
            PromiseState::Pending => panic!("{name} is still pending"),
        }
    }

    /// The log's lines, in order.
    pub fn logged(&self) -> Vec<String> {
        self.w.log().iter().map(|l| l.text.clone()).collect()
    }

    /// The log's lines with the virtual time each was written at.
    pub fn logged_at(&self) -> Vec<(String, u64)> {
        self.w
            .log()
            .iter()
            .map(|l| (l.text.clone(), l.time))
            .collect()
    }

    /// Whether a run reached an algorithm's step.
    pub fn reached(&self, alg: &Algorithm, step: &str) -> bool {
        self.w.coverage().reached(alg.id, step_index(alg, step))
    }

    /// The trace, as the human output prints it.
    pub fn trace_text(&self) -> String {
        self.w
            .trace
            .entries
            .iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The descriptions of the units of work that ran, in order.
    pub fn units(&self) -> Vec<String> {
        self.w
            .trace
            .entries
            .iter()
            .filter_map(|e| match e {
                webmcp_ref::engine::trace::TraceEntry::Unit { what, .. } => Some(what.clone()),
                _ => None,
            })
            .collect()
    }

    /// The anchors and steps of the findings so far.
    pub fn findings_at(&self) -> Vec<(String, String)> {
        self.w
            .findings()
            .iter()
            .map(|f| (f.anchor.to_string(), f.step.to_string()))
            .collect()
    }

    /// The names of a document's tools, in registration order.
    pub fn tools(&self, doc: DocumentKey) -> Vec<String> {
        self.w.tool_names(doc)
    }
}

/// A tool literal for scripts: `{name, description, execute: returns("ok")}` plus `extra`
/// members (written as script, e.g. `inputSchema: {type: "object"}`).
pub fn tool(name: &str, extra: &str) -> String {
    let extra = if extra.is_empty() {
        String::new()
    } else {
        format!(", {extra}")
    };
    format!("{{name: {name:?}, description: \"d\", execute: returns(\"ok\"){extra}}}")
}

/// The `RegisteredTool` dictionary `getTools()` gives for tool `name` of the document scripts
/// name `window`, whose origin is `origin`.
pub fn registered(name: &str, window: &str, origin: &str) -> String {
    format!("{{name: {name:?}, description: \"d\", window: {window}, origin: {origin:?}}}")
}

/// The names of the tools an observation showed for each document, in tree order.
pub fn observed_tools(result: &ObservationResult) -> Vec<(String, Vec<String>)> {
    result
        .tool_map
        .as_ref()
        .expect("the observation has a tool map")
        .iter()
        .map(|d| {
            (
                d.document.clone(),
                d.tools.iter().map(|t| t.name.clone()).collect(),
            )
        })
        .collect()
}

/// Runs the built `webmcp-ref` in `dir`: its exit status, standard output and standard error.
pub fn webmcp_ref_in(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_webmcp-ref"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs the built `webmcp-ref` at the repository's root.
pub fn webmcp_ref(args: &[&str]) -> (i32, String, String) {
    webmcp_ref_in(std::path::Path::new(env!("CARGO_MANIFEST_DIR")), args)
}

/// `webmcp-ref serve --http 0` on served/shop.scn's subtest "late", with `flags`: the child and
/// the address it says it listens on.
pub fn http_server(flags: &[&str]) -> (std::process::Child, String) {
    use std::io::BufRead as _;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_webmcp-ref"))
        .args([
            "serve",
            "served/shop.scn",
            "--subtest",
            "late",
            "--http",
            "0",
        ])
        .args(flags)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("starts");
    let mut line = String::new();
    std::io::BufReader::new(child.stderr.take().expect("stderr"))
        .read_line(&mut line)
        .expect("a line");
    let address = line
        .split("http://")
        .nth(1)
        .and_then(|s| s.strip_suffix("/mcp\n"))
        .unwrap_or_else(|| panic!("{line}"))
        .to_string();
    (child, address)
}

/// The browser the real-browser tests start: WEBMCP_REF_BROWSER, else Debian's chromium.
pub fn browser_path() -> std::path::PathBuf {
    std::env::var_os("WEBMCP_REF_BROWSER")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from("/usr/bin/chromium"))
}

/// Explores the file's first subtest under `spec` three ways (with both reductions, without
/// the partial order, with neither) and gives, for each, how it was explored and whether each
/// expectation line held in some schedule: what a test that the explorer keeps two outcomes
/// apart checks.
pub fn explored_three_ways(
    file: &webmcp_ref::scenario::ScenarioFile,
) -> Vec<(String, std::collections::BTreeMap<u32, bool>)> {
    use webmcp_ref::explore::{explore_subtest, ExploreOptions, Progress};
    [(true, true), (true, false), (false, false)]
        .into_iter()
        .map(|(reduce, partial_order)| {
            let options = ExploreOptions {
                profile: Profile::spec(),
                reduce,
                partial_order,
                ..ExploreOptions::default()
            };
            let e = explore_subtest(file, &file.subtests[0], &options, &Progress::default());
            let by_line = e.expectations.iter().map(|v| (v.line, v.holds)).collect();
            (
                format!("reduce {reduce}, partial order {partial_order}"),
                by_line,
            )
        })
        .collect()
}

/// Parses `text` (after a `title:` line) as a scenario file named `name` and runs it under the
/// default options.
pub fn run_text(name: &str, text: &str) -> webmcp_ref::scenario::FileResult {
    let f = webmcp_ref::scenario::parse_file(name, &format!("title: t\n{text}"))
        .unwrap_or_else(|e| panic!("{e}"));
    webmcp_ref::scenario::run_file(&f, &webmcp_ref::scenario::RunOptions::default())
}

/// Every subtest of the run passed (and there was one).
pub fn assert_all_pass(r: &webmcp_ref::scenario::FileResult) {
    assert!(!r.subtests.is_empty());
    for s in &r.subtests {
        assert_eq!(
            s.status,
            webmcp_ref::scenario::Status::Pass,
            "{}: {:?}",
            s.name,
            s.messages
        );
    }
}
