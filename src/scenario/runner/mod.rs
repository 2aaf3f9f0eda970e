//! Runs a scenario file's subtests under a profile and checks their expectations.
//!
//! - this file: a subtest's run, stepping it, and its result;
//! - [`act`]: what each line does to the world;
//! - [`check`]: expectations, and what a run came to;
//! - [`triggers`]: `at`/`when` blocks, and the hooks a served subtest is driven through.

mod act;
mod check;
mod triggers;

pub use triggers::{NotServable, TriggerError};

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use thiserror::Error;

use super::ast::*;
use crate::engine::profile::Profile;
use crate::engine::schedule::{Schedule, Scheduler};
use crate::engine::trace::{Coverage, Finding, TraceEntry};
use crate::engine::world::World;
use crate::engine::RunError;
use crate::host::budget::{BudgetStop, Budgets, Interrupt};
use crate::host::event_loop::Candidate;
use crate::host::keys::DocumentKey;
use crate::host::shared::footprint::{self, Footprint};
use crate::host::shared::StateHasher;
use crate::host::value::Value;
use crate::host::HostError;
use crate::prelude::*;
use crate::script::bindings::HarnessReadError;
use crate::script::LogEntry;
use crate::webmcp::ObservationKey;

/// Why a line of a subtest could not be carried out (reported as that line's ERROR).
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum LineError {
    #[error("no document named `{0}` exists at this point")]
    NoDocument(String),
    #[error("`{0}` is not a document")]
    NotADocument(String),
    #[error("`{0}` has no value at this point")]
    Unbound(String),
    #[error("{0} is not a promise")]
    NotAPromise(String),
    #[error("{0} is not a promise or thenable")]
    NotSettleable(String),
    #[error("no observation named `{0}` has been made at this point")]
    NoObservation(String),
    #[error(transparent)]
    Unreadable(#[from] HarnessReadError),
    #[error("a task that settles a promise names no promise to settle")]
    NothingToSettle,
    #[error("cannot index {0} with {1}")]
    BadIndex(String, String),
    #[error("this line reads values: it can build errors, but not call methods, make promises or callbacks (do that in a task)")]
    NotAReading,
    /// `===` in an expectation, of a value without identity.
    #[error("{}", crate::script::interpreter::NO_IDENTITY)]
    NoIdentity,
    /// A value whose objects' current versions nest deeper than values may.
    #[error(
        "the value nests deeper than {} arrays and objects",
        crate::host::value::MAX_VALUE_DEPTH
    )]
    TooDeep,
    /// `instanceof DOC.Interface` in an expectation, where DOC is not a document.
    #[error("{0} is not a document: `instanceof X.Interface` takes a document's interface object")]
    NotAWindow(String),
    /// `DOC.querySelector(...)` in an expectation, with selectors that do not parse.
    #[error("{0}")]
    Selector(String),
    /// `html in DOC:` that cannot be carried out.
    #[error("the markup cannot be loaded: {0}")]
    Markup(String),
    /// `task in DOC` where DOC is sandboxed without `allow-scripts`: no script of it runs.
    #[error("scripting is disabled in {0} (it is sandboxed without allow-scripts), so no task of its script can run")]
    ScriptingDisabled(String),
    #[error(transparent)]
    Host(#[from] HostError),
    #[error(transparent)]
    Run(#[from] RunError),
}

/// How to run.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    pub profile: Profile,
    /// A schedule to replay (the default order otherwise).
    pub schedule: Option<Schedule>,
    /// Keep the step trace.
    pub trace: bool,
    /// Only the subtest named this, or, when none is, those whose name contains it.
    pub subtest: Option<String>,
    /// What one line, one unit and one value may spend (see `host::budget`).
    pub budgets: Budgets,
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
    /// Not run: the profile does not meet the file's `requires:` (an optional feature the
    /// profile lacks, as testharness.js's `assert_implements_optional`).
    PreconditionFailed,
}

impl Status {
    /// testharness.js's name for it.
    pub fn name(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::Error => "ERROR",
            Status::PreconditionFailed => "PRECONDITION_FAILED",
        }
    }

    /// Whether the subtest held, or did not apply.
    pub fn held(self) -> bool {
        matches!(self, Status::Pass | Status::PreconditionFailed)
    }
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
    /// What the expectation read, as a page's check of it reads it (`Value::canonical` for a
    /// value; a promise's state, with its value or error name where the expectation names
    /// one; the log): diff-browser compares it with the browser's. `None` for what no page
    /// can read (observations, findings, the clock).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observed: Option<String>,
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
    /// A budget stopped the run (see `host::budget`): the subtest is an ERROR that a budget,
    /// not the file, decided.
    #[serde(skip)]
    pub out_of_budget: bool,
}

/// A file's results under one profile.
#[derive(Clone, Debug, Serialize)]
pub struct FileResult {
    pub path: String,
    pub title: String,
    pub profile: String,
    pub subtests: Vec<SubtestResult>,
    /// Why the file could not be run at all (it could not be read, or does not parse): it
    /// has no subtests, and its test is an ERROR.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The file asserts what the published text does not say ([`asserts_beyond_the_text`]):
    /// its WPT name is `.tentative`.
    #[serde(skip)]
    pub tentative: bool,
}

impl SubtestResult {
    /// A subtest the profile does not run (its file's `requires:`).
    pub fn not_run(subtest: &Subtest, why: String) -> SubtestResult {
        SubtestResult {
            name: subtest.name.clone(),
            line: subtest.line,
            status: Status::PreconditionFailed,
            messages: vec![why],
            expectations: Vec::new(),
            schedule: Schedule::default().to_string(),
            choice_points: 0,
            units: 0,
            time: 0,
            findings: Vec::new(),
            log: Vec::new(),
            coverage: Coverage::default(),
            trace: Vec::new(),
            outcome: Vec::new(),
            out_of_budget: false,
        }
    }
}

impl FileResult {
    /// A file that could not be read or parsed, under a profile: its error, and no subtests.
    pub fn unloadable(path: &str, profile: &str, error: String) -> FileResult {
        FileResult {
            path: path.into(),
            title: String::new(),
            profile: profile.into(),
            subtests: Vec::new(),
            error: Some(error),
            tentative: false,
        }
    }

    pub fn passed(&self) -> bool {
        self.error.is_none() && self.subtests.iter().all(|s| s.status.held())
    }

    /// Whether a subtest ran out of its budget of units.
    pub fn out_of_budget(&self) -> bool {
        self.subtests.iter().any(|s| s.out_of_budget)
    }
}

/// The subtests of a file that `--subtest NAME` picks: the one named exactly NAME when there
/// is one (so that a subtest whose whole name is part of another's can be picked), else every
/// subtest whose name contains NAME; every subtest without a name.
pub fn picked_subtests<'a>(file: &'a ScenarioFile, wanted: Option<&str>) -> Vec<&'a Subtest> {
    let Some(wanted) = wanted else {
        return file.subtests.iter().collect();
    };
    // A lone surrogate in a name is typed as its escape (text::js_string).
    let wanted = &*crate::text::js_string::unescape_typed(wanted);
    let exact: Vec<&Subtest> = file.subtests.iter().filter(|s| s.name == wanted).collect();
    if !exact.is_empty() {
        return exact;
    }
    file.subtests
        .iter()
        .filter(|s| s.name.contains(wanted))
        .collect()
}

/// Runs every subtest of a file (or those `options.subtest` picks: [`picked_subtests`]).
pub fn run_file(file: &ScenarioFile, options: &RunOptions) -> FileResult {
    let subtests = picked_subtests(file, options.subtest.as_deref())
        .into_iter()
        .map(|s| run_subtest(file, s, options))
        .collect();
    FileResult {
        path: file.path.clone(),
        title: file.title.clone(),
        profile: options.profile.name.clone(),
        subtests,
        error: None,
        tentative: asserts_beyond_the_text(file),
    }
}

/// Whether a file asserts what the published text (profile `text`) does not say, as the test
/// it exports under `spec` (the text with PR #373's readiness model): its `requires:` is
/// something the text lacks, or one of its expectations holds under `spec` and not under
/// `text` (a tag only PR #373 meets). WPT names such a test `.tentative`.
///
/// The engine's choice: a property of the file, not of the profile it is run or exported
/// under, so that a test has one name in every report. A file whose expectations are tagged
/// only for other proposals (a profile or switch value `spec` does not have) asserts the text
/// under `spec`, and is not tentative.
pub fn asserts_beyond_the_text(file: &ScenarioFile) -> bool {
    let (Ok(spec), Ok(text)) = (Profile::named("spec"), Profile::named("text")) else {
        return false;
    };
    if !applies(&file.requires, &text) {
        return true;
    }
    fn beyond(actions: &[Action], spec: &Profile, text: &Profile) -> bool {
        actions.iter().any(|a| match &a.kind {
            ActionKind::Expect(e) => applies(&e.tags, spec) && !applies(&e.tags, text),
            ActionKind::Trigger { actions, .. } => beyond(actions, spec, text),
            _ => false,
        })
    }
    file.subtests
        .iter()
        .any(|s| beyond(&s.actions, &spec, &text))
}

/// Why a file's subtests do not run under a profile: its `requires:` tags, none of which the
/// profile matches.
pub fn unmet_requirement(file: &ScenarioFile, profile: &Profile) -> Option<String> {
    if applies(&file.requires, profile) {
        return None;
    }
    let wanted: Vec<String> = file.requires.iter().map(Tag::to_string).collect();
    let values = profile.values();
    let has: Vec<String> = file
        .requires
        .iter()
        .flat_map(Tag::switches)
        .filter_map(|name| {
            values
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(n, v)| format!("{n}={v}"))
        })
        .collect();
    Some(format!(
        "not run: {} requires {}; profile {} has {}",
        file.path,
        wanted.join(" or "),
        profile.name,
        if has.is_empty() {
            "neither".to_string()
        } else {
            has.join(", ")
        }
    ))
}

/// Whether an expectation's tags include the profile.
pub fn applies(tags: &[Tag], profile: &Profile) -> bool {
    if tags.is_empty() {
        return true;
    }
    let values = profile.values();
    pub(super) fn matches(t: &Tag, profile: &Profile, values: &[(&str, String)]) -> bool {
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
    /// `at`/`when` blocks whose trigger has not held yet.
    triggers: triggers::PendingTriggers<'a>,
    /// The lines acted on end here: the subtest's end, or its serve point when serving.
    end: usize,
    /// A line ran out of its budget of units.
    out_of_budget: bool,
    /// While the explorer reduces: what happened since it last looked, each unit with its
    /// footprint, and each harness action between units.
    events: Option<Vec<UnitEvent>>,
    /// Whether `advance` hands every choice point to its caller (the explorer's); else the
    /// world's own schedule chooses as the run goes.
    offer_choices: bool,
    /// Serving: the units run since the page was last idle.
    busy_units: u64,
}

/// Something that happened in a run, as the explorer's partial-order reduction sees it.
#[derive(Clone, Debug)]
pub struct UnitEvent {
    /// The unit that ran (`None`: the harness acted between units, on everything).
    pub unit: Option<Candidate>,
    pub footprint: Footprint,
    /// The world's last sequence number before and after it: the units it made runnable
    /// have the numbers in between.
    pub seqs: (u64, u64),
    /// The units that could run just before it and just after it (a harness action: none
    /// told; the explorer takes the set after the unit before it). What it enabled and
    /// disabled is the difference, whatever the footprints say.
    pub runnable: (Vec<Candidate>, Vec<Candidate>),
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
    if let Some(why) = unmet_requirement(file, &options.profile) {
        return SubtestResult::not_run(subtest, why);
    }
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
        world.budgets = options.budgets;
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
            triggers: Default::default(),
            end: subtest.actions.len(),
            out_of_budget: false,
            events: None,
            offer_choices: false,
            busy_units: 0,
        }
    }

    /// From now on, `advance` returns at every choice point with the candidates, for the
    /// caller's scheduler to choose (the explorer). Otherwise the world's own schedule (the
    /// default order, or a replayed token) chooses without listing them.
    pub fn offer_every_choice(&mut self) {
        self.offer_choices = true;
    }

    /// Records, from now on, the footprint of every unit and every harness action (see
    /// [`SubtestRun::take_events`]).
    pub fn record_footprints(&mut self) {
        self.events = Some(Vec::new());
    }

    /// What happened since the last call.
    pub fn take_events(&mut self) -> Vec<UnitEvent> {
        self.events.as_mut().map(std::mem::take).unwrap_or_default()
    }

    fn harness_event(&mut self) {
        if let Some(events) = self.events.as_mut() {
            if events.last().is_none_or(|e| e.unit.is_some()) {
                let seq = self.world.seq;
                events.push(UnitEvent {
                    unit: None,
                    footprint: Footprint::everything(),
                    seqs: (seq, seq),
                    runnable: (Vec::new(), Vec::new()),
                });
            }
        }
    }

    /// Runs a unit, and what follows it within the unit (the count, the checks), noting its
    /// footprint when recording.
    fn run_one(&mut self, candidate: Candidate, note: Option<crate::engine::trace::ChoiceNote>) {
        if self.events.is_none() {
            self.world.run_unit(candidate, note);
            self.count_unit();
            self.unit_ran();
            return;
        }
        let seq_before = self.world.seq;
        let runnable_before = footprint::untracked(|| self.world.candidates());
        let (fires, mut fp) = footprint::record(|| {
            self.world.note_runnable(candidate.unit);
            self.world.run_unit(candidate, note);
            self.count_unit();
            self.unit_ran();
            // A `when DOC exists:` block is checked after every unit: the unit that makes
            // one fire is ordered with everything (the block acts as the harness does).
            footprint::post_check(|| self.exists_trigger_due())
        });
        fp.global |= fires;
        let runnable_after = footprint::untracked(|| self.world.candidates());
        if let Some(events) = self.events.as_mut() {
            events.push(UnitEvent {
                unit: Some(candidate),
                footprint: fp,
                seqs: (seq_before, self.world.seq),
                runnable: (runnable_before, runnable_after),
            });
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
        let mut h = StateHasher::default();
        self.world.hash_state(&mut h);
        // A changed object is known by its identity, so a state whose heap holds one compares
        // identities too (see `script::heap`).
        if self.subtest.compares_identity || !self.world.script.heap.is_empty() {
            self.world.identity_digest().hash(&mut h);
        }
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
        for line in self.triggers.lines() {
            line.hash(&mut h);
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

    /// Gives the run's world a check of the tool running it (see `host::budget::Interrupt`),
    /// polled between units and inside them.
    pub fn set_interrupt(&mut self, interrupt: Interrupt) {
        self.world.set_interrupt(Some(interrupt));
    }

    /// Why a budget stopped the run, if one did.
    pub fn budget_stop(&self) -> Option<&BudgetStop> {
        self.world.budget_stop()
    }

    /// A budget is spent: the line fails with its message, at the statement that spent it.
    fn stopped_by_budget(&mut self) {
        let Some(stop) = self.world.budget_stop().cloned() else {
            return;
        };
        self.out_of_budget = true;
        self.errored = true;
        let line = stop.line.unwrap_or_else(|| self.line_number());
        self.messages
            .push(format!("{}:{line}: {stop}", self.file.path));
    }

    /// Acts on lines and drives the simulation until a choice must be made or the subtest ends.
    pub fn advance(&mut self) -> Next {
        loop {
            if self.errored {
                return Next::Done;
            }
            if self.world.poll_interrupt() {
                self.stopped_by_budget();
                return Next::Done;
            }
            match self.fire_due_triggers() {
                Err(e) => {
                    self.messages.push(e.to_string());
                    self.errored = true;
                    return Next::Done;
                }
                Ok(true) => self.harness_event(),
                Ok(false) => {}
            }
            if let Some(drive) = self.drive {
                if drive.steps_left == Some(0) {
                    self.harness_event();
                    self.finish_drive();
                    continue;
                }
                if drive.units >= self.world.budgets.max_units {
                    self.world.stop_for_units(drive.units);
                    self.stopped_by_budget();
                    return Next::Done;
                }
                if self.clock_to_next_at(drive.limit) {
                    self.harness_event();
                    continue;
                }
                let before = self.world.now();
                if !self.offer_choices {
                    match self.world.next_candidate(drive.limit) {
                        None => self.finish_drive(),
                        Some((first, 1)) => self.run_one(first, None),
                        Some((first, width)) => self.choose_inline(first, width),
                    }
                    continue;
                }
                let candidates = self.world.next_candidates(drive.limit);
                if self.world.now() != before {
                    // The clock moved: nothing could run before it did.
                    self.harness_event();
                }
                match candidates.len() {
                    0 => {
                        self.harness_event();
                        self.finish_drive()
                    }
                    1 => self.run_one(candidates[0], None),
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
            self.harness_event();
            if let Err(e) = self.act(action) {
                self.fail_line(e.to_string());
                return Next::Done;
            }
            if self.drive.is_none() {
                self.index += 1;
            }
        }
    }

    /// A choice point the world's own schedule decides: the oldest candidate is `first`, and
    /// the others are listed only when the schedule takes one of them.
    pub(super) fn choose_inline(&mut self, first: Candidate, width: usize) {
        match self.world.choose(width, None) {
            Ok(note) if note.taken == 0 => self.run_one(first, Some(note)),
            Ok(note) => match self.world.candidates().get(note.taken) {
                Some(&c) => self.run_one(c, Some(note)),
                None => self.fail_line(format!(
                    "choice point {}: the schedule takes candidate {} of {width}, which is not there",
                    note.point, note.taken
                )),
            },
            Err(e) => self.fail_line(e.to_string()),
        }
    }

    /// Runs one of the candidates `advance` offered, chosen by `scheduler` (the explorer's),
    /// or by the world's own schedule.
    pub fn take(&mut self, candidates: &[Candidate], scheduler: Option<&mut dyn Scheduler>) {
        match self.world.choose(candidates.len(), scheduler) {
            Ok(note) => self.run_one(candidates[note.taken], Some(note)),
            Err(e) => self.fail_line(e.to_string()),
        }
    }

    pub(super) fn count_unit(&mut self) {
        if let Some(d) = self.drive.as_mut() {
            d.units += 1;
            if let Some(n) = d.steps_left.as_mut() {
                *n -= 1;
            }
        }
    }

    /// The line of the action being carried out.
    fn line_number(&self) -> u32 {
        self.subtest
            .actions
            .get(self.index)
            .map(|a| a.line)
            .unwrap_or(self.subtest.line)
    }

    pub(super) fn fail_line(&mut self, message: String) {
        if self.world.is_stopped() {
            return self.stopped_by_budget();
        }
        let line = self.line_number();
        self.messages
            .push(format!("{}:{line}: {message}", self.file.path));
        self.errored = true;
    }

    pub(super) fn start_drive(
        &mut self,
        kind: RunKind,
        then_observe: Option<(ObservationKey, usize)>,
    ) {
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
        self.world.begin_line();
    }

    pub(super) fn finish_drive(&mut self) {
        let Some(drive) = self.drive.take() else {
            return;
        };
        self.world.end_line();
        if let Some(until) = drive.ends_at {
            self.world.advance_clock_to(until);
        }
        if let Some((o, index)) = drive.then_observe {
            let action = &self.subtest.actions[index];
            if let ActionKind::Observe {
                expect: Some(e), ..
            } = &action.kind
            {
                let (passed, actual) = match self.world.observation_result(o) {
                    None => (false, "not finished".to_string()),
                    Some(r) => (
                        r.outcome == e.outcome && e.after.is_none_or(|ms| ms == r.waited_ms),
                        match e.after {
                            Some(_) => format!("{} after {}ms", r.outcome.name(), r.waited_ms),
                            None => r.outcome.name().to_string(),
                        },
                    ),
                };
                let expected = match e.after {
                    Some(ms) => format!("{} after {ms}ms", e.outcome.name()),
                    None => e.outcome.name().to_string(),
                };
                self.record(action, passed, expected, actual);
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
        self.world.note_changes();
        let mut world = self.world;
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
            trace: std::mem::take(&mut world.trace.entries),
            outcome,
            out_of_budget: self.out_of_budget,
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

    pub(super) fn doc(&self, name: &str) -> Result<DocumentKey, LineError> {
        match self.world.lookup(name) {
            Some(Value::Window(d, _)) => Ok(*d),
            Some(_) => Err(LineError::NotADocument(name.into())),
            None => Err(LineError::NoDocument(name.into())),
        }
    }
}
