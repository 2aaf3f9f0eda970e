//! Runs a scenario file's subtests under a profile and checks their expectations.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::Serialize;

use super::ast::*;
use crate::platform::event_loop::{Candidate, UNIT_BUDGET};
use crate::platform::keys::{DocumentKey, ObservationKey};
use crate::platform::navigable::{DocumentOptions, Lifecycle};
use crate::platform::promise::{PromiseState, ThenBehaviour};
use crate::platform::script::Expr;
use crate::platform::value::Value;
use crate::profile::Profile;
use crate::schedule::Schedule;
use crate::trace::{Coverage, Finding, TraceEntry};
use crate::world::{LogEntry, World};

/// How to run.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    pub profile: Profile,
    /// A schedule to replay (the default order otherwise).
    pub schedule: Option<Schedule>,
    /// Keep the step trace.
    pub trace: bool,
    /// Only the subtests whose name contains this.
    pub subtest: Option<String>,
}

/// A subtest's status, as testharness.js reports them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Status {
    Pass,
    Fail,
    /// The scenario could not be carried out (a harness action failed, a schedule did not
    /// fit, the world never became idle).
    Error,
}

/// One expectation's verdict.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct ExpectationResult {
    pub line: u32,
    pub column: u32,
    pub text: String,
    /// An `expect sometimes`: a single run does not fail on it.
    pub sometimes: bool,
    /// For `expect log in [...]`: the orders it permits, which `explore` must all reach.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub permitted: Vec<String>,
    pub passed: bool,
    pub expected: String,
    pub actual: String,
}

/// A subtest's result under one profile.
#[derive(Clone, Debug, Serialize)]
pub struct SubtestResult {
    pub name: String,
    pub line: u32,
    pub status: Status,
    /// Why it failed or errored, a line each.
    pub messages: Vec<String>,
    pub expectations: Vec<ExpectationResult>,
    /// The choices the run made that differ from the default order.
    pub schedule: String,
    pub choice_points: u64,
    pub units: u64,
    pub time: u64,
    pub findings: Vec<Finding>,
    pub log: Vec<LogEntry>,
    #[serde(skip)]
    pub coverage: Coverage,
    #[serde(skip)]
    pub trace: Vec<TraceEntry>,
    /// What the run observed, for comparing profiles: toolsReady of each document, each
    /// observation's outcome, each named promise's state, the log.
    pub outcome: Vec<(String, String)>,
}

/// A file's results under one profile.
#[derive(Clone, Debug, Serialize)]
pub struct FileResult {
    pub path: String,
    pub title: String,
    pub profile: String,
    pub subtests: Vec<SubtestResult>,
}

impl FileResult {
    pub fn passed(&self) -> bool {
        self.subtests.iter().all(|s| s.status == Status::Pass)
    }
}

/// Runs every subtest of a file (or those `options.subtest` picks).
pub fn run_file(file: &ScenarioFile, options: &RunOptions) -> FileResult {
    let subtests = file
        .subtests
        .iter()
        .filter(|s| {
            options
                .subtest
                .as_ref()
                .is_none_or(|f| s.name.contains(f.as_str()))
        })
        .map(|s| run_subtest(file, s, options))
        .collect();
    FileResult {
        path: file.path.clone(),
        title: file.title.clone(),
        profile: options.profile.name.clone(),
        subtests,
    }
}

/// Whether an expectation's tags include the profile.
pub fn applies(tags: &[Tag], profile: &Profile) -> bool {
    if tags.is_empty() {
        return true;
    }
    let values = profile.values();
    fn matches(t: &Tag, profile: &Profile, values: &[(&str, String)]) -> bool {
        match t {
            Tag::Profile(name) => *name == profile.name,
            Tag::Switch(name, value) => values.iter().any(|(n, v)| n == name && v == value),
            Tag::All(all) => all.iter().all(|t| matches(t, profile, values)),
        }
    }
    tags.iter().any(|t| matches(t, profile, &values))
}

/// A subtest part-way through: between lines, or driving the simulation for one. The
/// explorer clones it at choice points.
#[derive(Clone)]
pub struct SubtestRun<'a> {
    file: &'a ScenarioFile,
    subtest: &'a Subtest,
    replaying: bool,
    pub world: World,
    /// The next line to act on.
    index: usize,
    drive: Option<Drive>,
    observations: BTreeMap<String, ObservationKey>,
    expectations: Vec<ExpectationResult>,
    /// (anchor, step) pairs an applicable `expect finding` covers.
    expected_findings: BTreeSet<(String, String)>,
    expected_uncaught: BTreeSet<String>,
    messages: Vec<String>,
    errored: bool,
    /// Checks run after every unit of work (the explorer's invariants).
    after_unit: Option<UnitCheck>,
    /// `at`/`when` blocks whose trigger has not held yet, in the order their lines came.
    triggers: Vec<&'a Action>,
    /// The lines acted on end here: the subtest's end, or its serve point when serving.
    end: usize,
}

/// A check run after every unit: `Some(message)` when it does not hold.
pub type UnitCheck = fn(&World) -> Vec<String>;

/// The simulation being driven for a line (`run`, `flush`, `step`, `observe ... =>`).
#[derive(Clone, Copy, Debug)]
struct Drive {
    /// How far the clock may jump (`None`: not at all).
    limit: Option<u64>,
    /// Where the clock ends (`run 100ms`).
    ends_at: Option<u64>,
    /// How many units are left (`step N`).
    steps_left: Option<u64>,
    units: u64,
    /// `observe DOC => outcome`: check the observation made by this line when the drive ends.
    then_observe: Option<(ObservationKey, usize)>,
}

/// What a subtest needs next.
pub enum Next {
    /// Several units may run: somebody must choose.
    Choice(Vec<Candidate>),
    Done,
}

/// Runs one subtest in a fresh world.
pub fn run_subtest(file: &ScenarioFile, subtest: &Subtest, options: &RunOptions) -> SubtestResult {
    let mut run = SubtestRun::new(file, subtest, options);
    while let Next::Choice(candidates) = run.advance() {
        run.take(&candidates, None);
    }
    run.finish()
}

impl<'a> SubtestRun<'a> {
    pub fn new(
        file: &'a ScenarioFile,
        subtest: &'a Subtest,
        options: &RunOptions,
    ) -> SubtestRun<'a> {
        let mut world = World::new(options.profile.clone());
        world.set_tracing(options.trace);
        if let Some(s) = &options.schedule {
            world.set_schedule(s.clone());
        }
        SubtestRun {
            file,
            subtest,
            replaying: options.schedule.is_some(),
            world,
            index: 0,
            drive: None,
            observations: BTreeMap::new(),
            expectations: Vec::new(),
            expected_findings: BTreeSet::new(),
            expected_uncaught: BTreeSet::new(),
            messages: Vec::new(),
            errored: false,
            after_unit: None,
            triggers: Vec::new(),
            end: subtest.actions.len(),
        }
    }

    /// Runs `check` after every unit of work; what it reports is added to the run's messages
    /// (once per message) and fails the subtest.
    pub fn check_after_every_unit(&mut self, check: UnitCheck) {
        self.after_unit = Some(check);
    }

    /// The profile this run is under.
    pub fn profile(&self) -> &Profile {
        &self.world.profile
    }

    /// A hash of the run's state: the world's (see [`World::hash_state`]) and where the
    /// subtest is (line, drive, expectation results so far, messages).
    pub fn state_hash(&self) -> u128 {
        use std::hash::Hash;
        let mut h = crate::explore::state::StateHasher::default();
        self.world.hash_state(&mut h);
        self.index.hash(&mut h);
        if let Some(d) = &self.drive {
            (d.limit, d.ends_at, d.steps_left, d.units, d.then_observe).hash(&mut h);
        }
        self.observations.hash(&mut h);
        self.expectations.hash(&mut h);
        self.expected_findings.hash(&mut h);
        self.expected_uncaught.hash(&mut h);
        self.messages.hash(&mut h);
        self.errored.hash(&mut h);
        for t in &self.triggers {
            t.line.hash(&mut h);
        }
        h.finish128()
    }

    fn unit_ran(&mut self) {
        if let Some(check) = self.after_unit {
            for m in check(&self.world) {
                let m = format!("invariant violated: {m}");
                if !self.messages.contains(&m) {
                    self.messages.push(m);
                }
            }
        }
    }

    /// Acts on lines and drives the simulation until a choice must be made or the subtest ends.
    pub fn advance(&mut self) -> Next {
        loop {
            if self.errored {
                return Next::Done;
            }
            if let Err(message) = self.fire_due_triggers() {
                self.messages.push(message);
                self.errored = true;
                return Next::Done;
            }
            if let Some(drive) = self.drive {
                if drive.steps_left == Some(0) {
                    self.finish_drive();
                    continue;
                }
                if drive.units >= UNIT_BUDGET {
                    let e = crate::RunError::Budget {
                        units: UNIT_BUDGET,
                        time: self.world.now(),
                    };
                    self.fail_line(e.to_string());
                    return Next::Done;
                }
                if self.clock_to_next_at(drive.limit) {
                    continue;
                }
                let candidates = self.world.next_candidates(drive.limit);
                match candidates.len() {
                    0 => self.finish_drive(),
                    1 => {
                        self.world.run_unit(candidates[0].unit, None);
                        self.count_unit();
                        self.unit_ran();
                    }
                    _ => return Next::Choice(candidates),
                }
                continue;
            }
            if self.index >= self.end {
                return Next::Done;
            }
            let Some(action) = self.subtest.actions.get(self.index) else {
                return Next::Done;
            };
            if let Err(message) = self.act(action) {
                self.fail_line(message);
                return Next::Done;
            }
            if self.drive.is_none() {
                self.index += 1;
            }
        }
    }

    /// Runs one of the candidates `advance` offered: the schedule's choice, or `forced`.
    pub fn take(&mut self, candidates: &[Candidate], forced: Option<usize>) {
        match self.world.choose(candidates.len(), forced) {
            Ok(note) => {
                self.world.run_unit(candidates[note.taken].unit, Some(note));
                self.count_unit();
                self.unit_ran();
            }
            Err(e) => self.fail_line(e.to_string()),
        }
    }

    fn count_unit(&mut self) {
        if let Some(d) = self.drive.as_mut() {
            d.units += 1;
            if let Some(n) = d.steps_left.as_mut() {
                *n -= 1;
            }
        }
    }

    fn fail_line(&mut self, message: String) {
        let line = self
            .subtest
            .actions
            .get(self.index)
            .map(|a| a.line)
            .unwrap_or(self.subtest.line);
        self.messages
            .push(format!("{}:{line}: {message}", self.file.path));
        self.errored = true;
    }

    fn start_drive(&mut self, kind: RunKind, then_observe: Option<(ObservationKey, usize)>) {
        let (limit, ends_at, steps_left) = match kind {
            RunKind::Idle => (Some(u64::MAX), None, None),
            RunKind::For(ms) => {
                let until = self.world.now().saturating_add(ms);
                (Some(until), Some(until), None)
            }
            RunKind::Flush => (None, None, None),
            RunKind::Steps(n) => (Some(u64::MAX), None, Some(n)),
        };
        self.drive = Some(Drive {
            limit,
            ends_at,
            steps_left,
            units: 0,
            then_observe,
        });
    }

    fn finish_drive(&mut self) {
        let Some(drive) = self.drive.take() else {
            return;
        };
        if let Some(until) = drive.ends_at {
            self.world.advance_clock_to(until);
        }
        if let Some((o, index)) = drive.then_observe {
            let action = &self.subtest.actions[index];
            if let ActionKind::Observe {
                expect: Some((outcome, _)),
                ..
            } = &action.kind
            {
                let actual = self
                    .world
                    .observation_result(o)
                    .map(|r| r.outcome.name())
                    .unwrap_or("not finished");
                self.record(
                    action,
                    actual == outcome.name(),
                    outcome.name().into(),
                    actual.into(),
                );
            }
        }
        // The line that drove the simulation is done: the next line follows.
        self.index += 1;
    }

    /// Ends the run: findings and uncaught errors no expectation acknowledged fail it.
    pub fn finish(mut self) -> SubtestResult {
        if !self.errored && self.replaying {
            if let Err(e) = self.world.check_schedule_used() {
                self.messages.push(e.to_string());
                self.errored = true;
            }
        }
        let mut unexpected = false;
        for f in self.world.findings() {
            if !self
                .expected_findings
                .contains(&(f.anchor.to_string(), f.step.to_string()))
            {
                self.messages.push(format!(
                    "unexpected finding: {f} (acknowledge it with `expect finding {} {}`)",
                    f.anchor, f.step
                ));
                unexpected = true;
            }
        }
        for u in self.world.uncaught_errors() {
            let name = u.error.split(':').next().unwrap_or("").to_string();
            if !self.expected_uncaught.contains(&name) {
                self.messages.push(format!(
                    "{}:{}: uncaught {} in a script of {}",
                    self.file.path, u.line, u.error, u.realm
                ));
                unexpected = true;
            }
        }
        if let Some(check) = self.after_unit {
            for m in check(&self.world) {
                let m = format!("invariant violated at the end: {m}");
                if !self.messages.contains(&m) {
                    self.messages.push(m);
                }
            }
        }
        let unexpected = unexpected
            || self
                .messages
                .iter()
                .any(|m| m.starts_with("invariant violated"));
        let failed = self.expectations.iter().any(|e| !e.passed && !e.sometimes) || unexpected;
        let status = if self.errored {
            Status::Error
        } else if failed {
            Status::Fail
        } else {
            Status::Pass
        };
        let outcome = self.outcome();
        let world = self.world;
        SubtestResult {
            name: self.subtest.name.clone(),
            line: self.subtest.line,
            status,
            messages: self.messages,
            expectations: self.expectations,
            schedule: world.recorded_schedule().to_string(),
            choice_points: world.choice_points(),
            units: world.units_run(),
            time: world.now(),
            findings: world.findings().to_vec(),
            log: world.log().to_vec(),
            coverage: world.coverage().clone(),
            trace: world.trace.entries.clone(),
            outcome,
        }
    }

    /// Runs the actions of every `at`/`when` block whose trigger holds now: `at` blocks in
    /// time order, then `when` blocks, each in the order its line came. A failing action is
    /// reported as `file:line: message` (its own line).
    fn fire_due_triggers(&mut self) -> Result<bool, String> {
        let mut fired = false;
        loop {
            let now = self.world.now();
            let due = self
                .triggers
                .iter()
                .enumerate()
                .filter_map(|(i, a)| match &a.kind {
                    ActionKind::Trigger {
                        when: Trigger::At(ms),
                        ..
                    } if *ms <= now => Some((*ms, 0, i)),
                    ActionKind::Trigger {
                        when: Trigger::Exists(doc),
                        ..
                    } if matches!(self.world.lookup(doc), Some(Value::Window(_))) => {
                        Some((0, 1, i))
                    }
                    _ => None,
                })
                .min();
            let Some((_, _, i)) = due else {
                return Ok(fired);
            };
            let trigger = self.triggers.remove(i);
            fired = true;
            if let ActionKind::Trigger { when, actions } = &trigger.kind {
                let what = match when {
                    Trigger::At(ms) => format!("at {ms}ms"),
                    Trigger::Exists(doc) => format!("when {doc} exists"),
                };
                self.world
                    .harness_note(|_| format!("the block of line {} runs ({what})", trigger.line));
                for a in actions {
                    self.act(a)
                        .map_err(|m| format!("{}:{}: {m}", self.file.path, a.line))?;
                }
            }
        }
    }

    /// The earliest `at` block still to come.
    fn next_at(&self) -> Option<u64> {
        self.triggers
            .iter()
            .filter_map(|a| match &a.kind {
                ActionKind::Trigger {
                    when: Trigger::At(ms),
                    ..
                } => Some(*ms),
                _ => None,
            })
            .min()
    }

    /// When nothing can run now and an `at` block is due within `limit`, no later than the
    /// page's next timer, moves the clock to it (the block then runs before that timer).
    fn clock_to_next_at(&mut self, limit: Option<u64>) -> bool {
        let Some(at) = self.next_at() else {
            return false;
        };
        let within = limit.is_some_and(|l| at <= l);
        let before_timers = self.world.next_timer_due().is_none_or(|t| at <= t);
        if within && before_timers && self.world.candidates().is_empty() {
            self.world.advance_clock_to(at);
            return true;
        }
        false
    }

    /// Where `webmcp-ref serve` starts serving a subtest: at its `serve` line, or, without
    /// one, at its first line that drives the simulation or expects something.
    pub fn serve_point(subtest: &Subtest) -> usize {
        subtest
            .actions
            .iter()
            .position(|a| matches!(a.kind, ActionKind::Serve))
            .or_else(|| {
                subtest.actions.iter().position(|a| {
                    matches!(
                        a.kind,
                        ActionKind::Run(_)
                            | ActionKind::Expect(_)
                            | ActionKind::Observe {
                                expect: Some(_),
                                ..
                            }
                    )
                })
            })
            .unwrap_or(subtest.actions.len())
    }

    /// Serving: acts on the subtest's lines up to its serve point (driving the simulation
    /// and checking expectations as `run` does). An error, or an expectation that does not
    /// hold, is returned as the lines a report would print.
    pub fn run_to_serve_point(&mut self) -> Result<(), Vec<String>> {
        self.end = Self::serve_point(self.subtest);
        while let Next::Choice(candidates) = self.advance() {
            self.take(&candidates, None);
        }
        let mut problems = self.messages.clone();
        for e in &self.expectations {
            if !e.passed && !e.sometimes {
                problems.push(format!(
                    "{}:{}:{}: {} (expected {}, actual {})",
                    self.file.path, e.line, e.column, e.text, e.expected, e.actual
                ));
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems)
        }
    }

    /// Serving: runs one unit of work, or the actions of one due `at`/`when` block, letting
    /// the clock move no further than `limit` (`None`: not at all). `Ok(false)` when nothing
    /// is left to do within it. A failing block action is an `Err` with its `file:line`; the
    /// block is gone and serving can go on.
    pub fn serve_step(&mut self, limit: Option<u64>) -> Result<bool, String> {
        if self.fire_due_triggers()? {
            return Ok(true);
        }
        if self.clock_to_next_at(limit) {
            self.fire_due_triggers()?;
            return Ok(true);
        }
        let candidates = self.world.next_candidates(limit);
        match candidates.len() {
            0 => return Ok(false),
            1 => {
                self.world.run_unit(candidates[0].unit, None);
                self.unit_ran();
            }
            _ => self.take(&candidates, None),
        }
        Ok(true)
    }

    /// The earliest time something is due: one of the page's timers, or an `at` block.
    pub fn next_due(&self) -> Option<u64> {
        match (self.world.next_timer_due(), self.next_at()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The subtest being run.
    pub fn subtest(&self) -> &'a Subtest {
        self.subtest
    }

    /// The file being run.
    pub fn file(&self) -> &'a ScenarioFile {
        self.file
    }

    fn doc(&self, name: &str) -> Result<DocumentKey, String> {
        match self.world.lookup(name) {
            Some(Value::Window(d)) => Ok(*d),
            Some(_) => Err(format!("`{name}` is not a document")),
            None => Err(format!("no document named `{name}` exists at this point")),
        }
    }

    /// Acts on one line. A line that drives the simulation starts a drive; the drive's end
    /// moves on to the next line.
    fn act(&mut self, action: &'a Action) -> Result<(), String> {
        let profile = self.world.profile.clone();
        let w = &mut self.world;
        match &action.kind {
            ActionKind::Page {
                name,
                url,
                loading,
                policy,
                site_keyed,
            } => {
                let options = DocumentOptions {
                    loading: *loading,
                    tools_policy: policy.as_ref().map(|p| p.allowlist.clone()),
                    origin_keyed: site_keyed.then_some(false),
                };
                w.open_page_with(name, url, options)
                    .map_err(|e| e.to_string())?;
            }
            ActionKind::Frame {
                name,
                parent,
                url,
                allow,
                loading,
                policy,
            } => {
                let parent = self.doc(parent)?;
                let options = DocumentOptions {
                    loading: *loading,
                    tools_policy: policy.as_ref().map(|p| p.allowlist.clone()),
                    origin_keyed: None,
                };
                self.world
                    .add_iframe(parent, name, url, allow.as_deref(), options)
                    .map_err(|e| e.to_string())?;
            }
            ActionKind::Promise {
                name,
                realm,
                settled,
            } => {
                let realm = self.doc(realm)?;
                let p = self.world.new_promise(realm);
                self.world.name_promise(p, name);
                self.world.bind(name, Value::Promise(p));
                if let Some((fulfilled, e)) = settled {
                    let v = self.eval(e)?;
                    if *fulfilled {
                        self.world.resolve_promise(p, v);
                    } else {
                        self.world.reject_promise(p, v);
                    }
                }
            }
            ActionKind::Thenable { name, realm, kind } => {
                let realm = self.doc(realm)?;
                let behaviour = match kind {
                    ThenableKind::Keep => ThenBehaviour::Keep,
                    ThenableKind::Resolves(e) => ThenBehaviour::Resolve(self.eval(e)?),
                    ThenableKind::Rejects(e) => ThenBehaviour::Reject(self.eval(e)?),
                    ThenableKind::Throws(e) => ThenBehaviour::Throw(self.eval(e)?),
                };
                let t = self.world.new_thenable(realm, name, behaviour);
                self.world.bind(name, Value::Thenable(t));
            }
            ActionKind::Controller { name, realm } => {
                let realm = self.doc(realm)?;
                let s = self.world.new_abort_controller(realm, name);
                self.world.bind(name, Value::Controller(s));
            }
            ActionKind::Task {
                realm,
                completion,
                block,
            } => {
                let doc = if realm.is_empty() {
                    self.realm_of_settled(block)?
                } else {
                    self.doc(realm)?
                };
                let completion = completion.as_ref().map(|name| {
                    let p = self.world.new_promise(doc);
                    self.world.name_promise(p, name);
                    self.world.bind(name, Value::Promise(p));
                    p
                });
                self.world.queue_task(doc, block.clone(), completion);
            }
            ActionKind::Run(kind) => self.start_drive(*kind, None),
            ActionKind::Remove(name) => {
                let d = self.doc(name)?;
                self.world.remove_iframe(d).map_err(|e| e.to_string())?;
            }
            ActionKind::Navigate {
                from,
                url,
                label,
                keep_in_bfcache,
            } => {
                let d = self.doc(from)?;
                self.world
                    .navigate(d, url, label, *keep_in_bfcache)
                    .map_err(|e| e.to_string())?;
            }
            ActionKind::Back(name) => {
                let d = self.doc(name)?;
                self.world.go_back(d).map_err(|e| e.to_string())?;
            }
            ActionKind::Close(name) => {
                let d = self.doc(name)?;
                self.world.close(d).map_err(|e| e.to_string())?;
            }
            ActionKind::Lifecycle { doc, load } => {
                let d = self.doc(doc)?;
                let stage = if *load {
                    Lifecycle::Complete
                } else {
                    Lifecycle::Interactive
                };
                self.world.queue_lifecycle(d, stage);
            }
            ActionKind::Observe { doc, name, expect } => {
                // `observe top => outcome [tags]` is a line for the tagged profiles only.
                if let Some((_, tags)) = expect {
                    if !applies(tags, &profile) {
                        return Ok(());
                    }
                }
                let d = self.doc(doc)?;
                let o = self.world.observe(d, name);
                self.observations.insert(name.clone(), o);
                if expect.is_some() {
                    self.start_drive(RunKind::Idle, Some((o, self.index)));
                }
            }
            // Serving starts here; under `run`, the lines after it go on.
            ActionKind::Serve => {}
            ActionKind::Trigger { .. } => self.triggers.push(action),
            ActionKind::Expect(e) => {
                if applies(&e.tags, &profile) {
                    let before = self.expectations.len();
                    self.check(action, &e.kind)?;
                    if let Some(r) = self.expectations.get_mut(before) {
                        r.sometimes = e.sometimes;
                        if let ExpectKind::Log(LogExpect::OneOf(orders)) = &e.kind {
                            r.permitted = orders.iter().map(|o| format!("{o:?}")).collect();
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The realm of the promise or thenable a `resolve p` line settles.
    fn realm_of_settled(
        &self,
        block: &Arc<crate::platform::script::Block>,
    ) -> Result<DocumentKey, String> {
        use crate::platform::script::StmtKind;
        let target = match block.stmts.first().map(|s| &s.kind) {
            Some(StmtKind::Resolve { target, .. }) | Some(StmtKind::Reject { target, .. }) => {
                target
            }
            _ => return Err("internal: a task without a realm".into()),
        };
        match self.eval(target)? {
            Value::Promise(p) => Ok(self.world.promise(p).realm),
            Value::Thenable(t) => Ok(self.world.thenable_realm(t)),
            other => Err(format!(
                "{} is not a promise or thenable",
                self.world.describe_value(&other)
            )),
        }
    }

    fn record(&mut self, action: &Action, passed: bool, expected: String, actual: String) {
        self.expectations.push(ExpectationResult {
            line: action.line,
            column: action.column,
            text: action.text.clone(),
            sometimes: false,
            permitted: Vec::new(),
            passed,
            expected,
            actual,
        });
    }

    fn check(&mut self, action: &Action, kind: &ExpectKind) -> Result<(), String> {
        match kind {
            ExpectKind::Value {
                actual,
                expected,
                equal,
            } => {
                let a = self.eval(actual)?;
                let e = self.eval(expected)?;
                let same = values_match(&a, &e);
                let expected = if *equal {
                    self.show(&e)
                } else {
                    format!("not {}", self.show(&e))
                };
                let actual = self.show(&a);
                self.record(action, same == *equal, expected, actual);
            }
            ExpectKind::Promise { promise, state } => {
                let v = self.eval(promise)?;
                let Value::Promise(p) = v else {
                    return Err(format!(
                        "{} is not a promise",
                        self.world.describe_value(&v)
                    ));
                };
                let actual_state = self.world.promise_state(p).clone();
                let actual = self.show_state(&actual_state);
                let (passed, expected) = match (state, &actual_state) {
                    (PromiseExpect::Pending, PromiseState::Pending) => {
                        (true, "pending".to_string())
                    }
                    (PromiseExpect::Pending, _) => (false, "pending".to_string()),
                    (PromiseExpect::Fulfilled(None), s) => {
                        (matches!(s, PromiseState::Fulfilled(_)), "fulfilled".into())
                    }
                    (PromiseExpect::Fulfilled(Some(e)), s) => {
                        let ev = self.eval(e)?;
                        let ok = matches!(s, PromiseState::Fulfilled(v) if values_match(v, &ev));
                        (ok, format!("fulfilled with {}", self.show(&ev)))
                    }
                    (PromiseExpect::Rejected(None), s) => {
                        (matches!(s, PromiseState::Rejected(_)), "rejected".into())
                    }
                    (PromiseExpect::Rejected(Some(name)), s) => {
                        let ok = matches!(s, PromiseState::Rejected(v) if error_name(v).as_deref() == Some(name.as_str()));
                        (ok, format!("rejected with {name}"))
                    }
                };
                self.record(action, passed, expected, actual);
            }
            ExpectKind::Log(expect) => {
                let lines: Vec<String> = self.world.log().iter().map(|l| l.text.clone()).collect();
                let actual = format!("{lines:?}");
                let (passed, expected) = match expect {
                    LogExpect::Exactly(want) => (lines == *want, format!("{want:?}")),
                    LogExpect::OneOf(orders) => (
                        orders.contains(&lines),
                        format!(
                            "one of {}",
                            orders
                                .iter()
                                .map(|o| format!("{o:?}"))
                                .collect::<Vec<_>>()
                                .join(" or ")
                        ),
                    ),
                    LogExpect::Contains(s) => {
                        (lines.iter().any(|l| l == s), format!("a line {s:?}"))
                    }
                    LogExpect::Lacks(s) => {
                        (!lines.iter().any(|l| l == s), format!("no line {s:?}"))
                    }
                };
                self.record(action, passed, expected, actual);
            }
            ExpectKind::Observation {
                name,
                outcome,
                after,
            } => {
                let o = self.observation(name)?;
                let expected = match after {
                    Some(ms) => format!("{} after {ms}ms", outcome.name()),
                    None => outcome.name().to_string(),
                };
                let (passed, actual) = match self.world.observation_result(o) {
                    None => (false, "not finished".to_string()),
                    Some(r) => (
                        r.outcome == *outcome && after.is_none_or(|ms| ms == r.waited_ms),
                        format!("{} after {}ms", r.outcome.name(), r.waited_ms),
                    ),
                };
                self.record(action, passed, expected, actual);
            }
            ExpectKind::ObservationTools { name, tools } => {
                let o = self.observation(name)?;
                let expected = show_tool_map(tools);
                let actual_map: Option<Vec<(String, Vec<String>)>> =
                    self.world.observation_result(o).map(|r| {
                        r.tool_map
                            .as_ref()
                            .map(|m| {
                                m.iter()
                                    .map(|d| {
                                        (
                                            d.document.clone(),
                                            d.tools.iter().map(|t| t.name.clone()).collect(),
                                        )
                                    })
                                    .collect()
                            })
                            .unwrap_or_default()
                    });
                let (passed, actual) = match actual_map {
                    None => (false, "not finished".into()),
                    Some(m) => {
                        let mut a = m.clone();
                        let mut b = tools.clone();
                        a.sort();
                        b.sort();
                        (a == b, show_tool_map(&m))
                    }
                };
                self.record(action, passed, expected, actual);
            }
            ExpectKind::Finding { anchor, step } => {
                self.expected_findings
                    .insert((anchor.clone(), step.clone()));
                let found = self
                    .world
                    .findings()
                    .iter()
                    .any(|f| f.anchor == anchor && f.step == step);
                let actual = if found {
                    format!("finding at {anchor} step {step}")
                } else {
                    self.show_findings()
                };
                self.record(
                    action,
                    found,
                    format!("finding at {anchor} step {step}"),
                    actual,
                );
            }
            ExpectKind::NoFindings => {
                let none = self.world.findings().is_empty();
                let actual = self.show_findings();
                self.record(action, none, "no findings".into(), actual);
            }
            ExpectKind::Uncaught(name) => {
                self.expected_uncaught.insert(name.clone());
                let found = self
                    .world
                    .uncaught_errors()
                    .iter()
                    .any(|u| u.error.split(':').next() == Some(name));
                let actual: Vec<String> = self
                    .world
                    .uncaught_errors()
                    .iter()
                    .map(|u| u.error.clone())
                    .collect();
                self.record(
                    action,
                    found,
                    format!("uncaught {name}"),
                    format!("{actual:?}"),
                );
            }
            ExpectKind::Time(ms) => {
                let now = self.world.now();
                self.record(action, now == *ms, format!("{ms}ms"), format!("{now}ms"));
            }
        }
        Ok(())
    }

    fn observation(&self, name: &str) -> Result<ObservationKey, String> {
        self.observations
            .get(name)
            .copied()
            .ok_or_else(|| format!("no observation named `{name}` has been made at this point"))
    }

    fn show_findings(&self) -> String {
        let f: Vec<String> = self
            .world
            .findings()
            .iter()
            .map(|f| f.to_string())
            .collect();
        if f.is_empty() {
            "no findings".into()
        } else {
            f.join("; ")
        }
    }

    fn show(&self, v: &Value) -> String {
        match v {
            Value::Array(items) => format!(
                "[{}]",
                items
                    .iter()
                    .map(|i| self.show(i))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            other => self.world.describe_value(other),
        }
    }

    fn show_state(&self, s: &PromiseState) -> String {
        match s {
            PromiseState::Pending => "pending".into(),
            PromiseState::Fulfilled(v) => format!("fulfilled with {}", self.show(v)),
            PromiseState::Rejected(v) => format!("rejected with {}", self.world.display_value(v)),
        }
    }

    /// Reads a value for an expectation, without running any algorithm step.
    fn eval(&self, e: &Expr) -> Result<Value, String> {
        Ok(match e {
            Expr::Literal(v) => v.clone(),
            Expr::Name(n) => self
                .world
                .lookup(n)
                .cloned()
                .ok_or_else(|| format!("`{n}` has no value at this point"))?,
            Expr::Member(target, prop) => {
                let t = self.eval(target)?;
                match (&t, prop.as_str()) {
                    (Value::Window(d), "toolsReady") => Value::Bool(self.world.tools_ready(*d)),
                    (Value::Window(d), "tools") => {
                        Value::Array(self.world.tool_names(*d).into_iter().map(Value::String).collect())
                    }
                    (Value::Window(d), "pending") => Value::number(self.world.pending_tool_readiness_promises(*d) as f64),
                    (Value::Window(d), "origin") => Value::string(self.world.document(*d).origin.serialize()),
                    (Value::Window(d), "fullyActive") => Value::Bool(self.world.is_fully_active(*d)),
                    (Value::Window(_), "modelContext" | "window") => t.clone(),
                    (Value::Controller(s), "signal") => Value::Signal(*s),
                    (Value::Signal(s), "aborted") => Value::Bool(self.world.signal(*s).aborted),
                    (Value::Signal(s), "reason") => self.world.signal(*s).reason.clone(),
                    (Value::Error(err), "name") => Value::string(&err.name),
                    (Value::Error(err), "message") => Value::string(&err.message),
                    (Value::Array(items), "length") => Value::number(items.len() as f64),
                    (Value::Promise(p), "state") => Value::string(self.world.promise_state(*p).name()),
                    (Value::Object(_), _) => t.get(prop).cloned().unwrap_or(Value::Undefined),
                    _ => return Err(format!("{} has no property `{prop}` an expectation can read", self.world.describe_value(&t))),
                }
            }
            Expr::Index(target, index) => {
                let t = self.eval(target)?;
                let i = self.eval(index)?;
                match (&t, &i) {
                    (Value::Array(items), Value::Number(n)) => items.get(n.0 as usize).cloned().unwrap_or(Value::Undefined),
                    (Value::Array(items), Value::String(s)) => items
                        .iter()
                        .find(|it| it.get("name") == Some(&Value::String(s.clone())))
                        .cloned()
                        .unwrap_or(Value::Undefined),
                    (Value::Object(_), Value::String(s)) => t.get(s).cloned().unwrap_or(Value::Undefined),
                    _ => return Err(format!("cannot index {} with {}", self.world.describe_value(&t), self.world.describe_value(&i))),
                }
            }
            Expr::Array(items) => Value::Array(items.iter().map(|i| self.eval(i)).collect::<Result<_, _>>()?),
            Expr::Object(props) => Value::Object(
                props
                    .iter()
                    .map(|(k, v)| Ok((k.clone(), self.eval(v)?)))
                    .collect::<Result<_, String>>()?,
            ),
            Expr::Global { name, args } if name == "DOMException" || name.ends_with("Error") => {
                let text = |v: Option<&Expr>| -> Result<String, String> {
                    match v.map(|e| self.eval(e)).transpose()? {
                        None | Some(Value::Undefined) => Ok(String::new()),
                        Some(Value::String(s)) => Ok(s),
                        Some(other) => Ok(self.world.display_value(&other)),
                    }
                };
                let message = text(args.first())?;
                if name == "DOMException" {
                    let n = text(args.get(1))?;
                    Value::error(crate::platform::value::ErrorValue::dom(if n.is_empty() { "Error" } else { &n }, message))
                } else {
                    Value::error(crate::platform::value::ErrorValue::named(name, message))
                }
            }
            Expr::Global { name, .. } if name == "Cyclic" => Value::Unserializable(crate::platform::value::Unserializable::Circular),
            Expr::Global { name, .. } if name == "ToJSONUndefined" => {
                Value::Unserializable(crate::platform::value::Unserializable::ToJsonUndefined)
            }
            Expr::Call { .. } | Expr::Global { .. } | Expr::Callback(_) => {
                return Err("this line reads values: it can build errors, but not call methods, make promises or callbacks (do that in a task)".into())
            }
        })
    }

    /// What the run came to, for the side-by-side table of `run --profile a,b`.
    fn outcome(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for name in self.world.names() {
            let v = self.world.lookup(name).cloned().unwrap_or(Value::Undefined);
            match v {
                Value::Window(d) => {
                    out.push((
                        format!("{name}.toolsReady"),
                        self.world.tools_ready(d).to_string(),
                    ));
                    out.push((
                        format!("{name}.tools"),
                        format!("{:?}", self.world.tool_names(d)),
                    ));
                }
                Value::Promise(p) => out.push((
                    name.to_string(),
                    self.show_state(self.world.promise_state(p)),
                )),
                _ => {}
            }
        }
        for (name, o) in &self.observations {
            let r = match self.world.observation_result(*o) {
                Some(r) => format!("{} after {}ms", r.outcome.name(), r.waited_ms),
                None => "not finished".into(),
            };
            out.push((format!("observation {name}"), r));
        }
        let log: Vec<&str> = self.world.log().iter().map(|l| l.text.as_str()).collect();
        out.push(("log".into(), format!("{log:?}")));
        let findings: Vec<String> = self
            .world
            .findings()
            .iter()
            .map(|f| format!("{} {}", f.anchor, f.step))
            .collect();
        out.push(("findings".into(), format!("{findings:?}")));
        out
    }
}

fn error_name(v: &Value) -> Option<String> {
    match v {
        Value::Error(e) => Some(e.name.clone()),
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// Value equality for expectations: an expected error with no message matches any error of
/// that name.
fn values_match(actual: &Value, expected: &Value) -> bool {
    match (actual, expected) {
        (Value::Error(a), Value::Error(e)) if e.message.is_empty() => a.name == e.name,
        (Value::Array(a), Value::Array(e)) => {
            a.len() == e.len() && a.iter().zip(e).all(|(x, y)| values_match(x, y))
        }
        (Value::Object(a), Value::Object(e)) => {
            a.len() == e.len()
                && e.iter()
                    .all(|(k, ev)| a.iter().any(|(ak, av)| ak == k && values_match(av, ev)))
        }
        _ => actual == expected,
    }
}

fn show_tool_map(m: &[(String, Vec<String>)]) -> String {
    let parts: Vec<String> = m.iter().map(|(d, t)| format!("{d}: {t:?}")).collect();
    format!("{{{}}}", parts.join(", "))
}
