//! The explorer: every schedule a subtest permits, its distinct outcomes, and the shortest
//! schedule that breaks each expectation or invariant; or, for subtests too large to
//! exhaust, a sample of schedules drawn at random or by probabilistic concurrency testing
//! ([`sample`]).
//!
//! A subtest runs until the world offers more than one runnable unit (a choice point); the
//! explorer then runs candidates in copies of the run, depth first, to the end of the
//! subtest. A complete schedule is one path from the start to the end. Three searches:
//!
//! - **naive** (`reduce: false`): every candidate at every choice point, every schedule run
//!   to its end;
//! - **merging** (`partial_order: false`): the same schedules, each state explored once;
//! - **reduced** (the default): merging, and dynamic partial-order reduction, which runs
//!   one schedule of each class of schedules that differ only in the order of independent
//!   units (a Mazurkiewicz trace), or a few.
//!
//! ## Merging states, and why it loses no outcome
//!
//! At every choice point the explorer hashes the run's state: the world's arenas, clock, log
//! and findings, the number of units run, and where the subtest is (its line, the drive in
//! progress, the expectation results so far, its messages); sequence numbers are first
//! renumbered by rank, since only their order is ever read. Everything that decides what can
//! happen next is in that state: the scenario's remaining lines are fixed, the candidates and
//! what each unit does are functions of the world, and the expectation results already
//! recorded are part of it. So two paths that reach the same state have the same set of
//! continuations, with the same outcomes, and the same candidate list in the same order (the
//! order is part of the state), so a continuation's choices mean the same thing from either
//! path. The explorer therefore explores a state once and keeps its summary: for each distinct
//! outcome, how many complete schedules from that state reach it and the best continuation.
//! A path that meets the state again adds the summary's counts to its own. Counts of
//! schedules stay exact; only the work shrinks. Because the number of units run is part of the
//! state, no state can be met again on its own path, so the explored graph has no cycles.
//! The one way merging could merge two different states is a collision of the 128-bit
//! hash. What is kept of a state is its hash (a fingerprint), never a copy.
//!
//! ## Partial-order reduction, and why it loses no outcome
//!
//! **Dependence.** As each unit runs, the world notes its footprint: every object it read,
//! wrote or added to (see `host::shared::footprint`): each document, navigable, event
//! loop's task queue (one per task source) and microtask queue, parallel queue, promise,
//! timer, signal, listener, model context (its tool map; its pending set and its listeners,
//! each apart), waiter, observation, execution,
//! traversable's execution map, the log, the script's names, the findings, the numbering
//! of promises and opaque origins, and each arena's set of keys. Nothing is listed per
//! kind of unit: the containers note what any algorithm touches. A unit's footprint also
//! holds what made it runnable (its task's document being fully active), and the checks run
//! after it (a wait's condition, the invariants) when they matter (below). Two units are
//! *dependent* when one wrote what the other read or wrote; two additions to one count or
//! set of keys are not (they commute), and a count's test for zero reads the count, so it
//! depends on every addition: whether an addition moves the count to or from zero depends
//! on the order, and a footprint recorded in one order is compared with units of another
//! (from a count of 1, a settle and another frame's wait pass through zero in one order
//! only). A footprint notes what its unit may do in any order, not only in the one it ran
//! in, and of what it read, what decides what it does: a wait's first step that finds a
//! document not ready notes that document's tools-ready alone (while that one is not ready,
//! the answer is the same whatever the others are, and the wait begins the same way), so it
//! is ordered with that document's waits and settles and not with those of the documents it
//! found ready before it; finding every document ready, it notes every one. The count of a tree's documents that are not ready is the one count a check after a
//! unit reads (a wait's condition), and its additions note their direction: a unit that
//! raised it leaves the test out of its footprint (after an increase the count is not zero,
//! in any order, and the wait goes on as it did before the unit); a unit that lowered it
//! keeps the test, which orders it with every increase but with no other decrease (two
//! decreases that can both run next take away two documents that are not ready, so the
//! count is at 2 at least and neither alone brings it to zero; after both, the same test
//! ends the same wait in either order). For that, a wait that ends because its tree became
//! ready is noted on the count, not on the waiter (whichever of the last decreases runs
//! last ends it), and what else reads whether a wait ended (its timeout) reads the count.
//! Appending to a task or microtask queue commutes with taking from it a unit that was
//! there (the queue ends the same, in the same order), and with appending an equal unit
//! (two frames' notifications that fire the same `toolchange` at one document), so a
//! frame's notification queued on another frame's event loop is not ordered with that
//! loop's own tasks; two appends of different units to one queue are. Both units that
//! append to the log write it, so
//! they are dependent: `expect log in [...]` sees every order of the lines. The harness,
//! acting between units (a line of the subtest, the clock moving, an `at`/`when` block
//! firing), is dependent on everything. Independent units commute: run in either order from
//! one state they reach the same state, up to the names of what they created (keys,
//! sequence numbers, which only name objects and order candidates) and the unit number a
//! finding records; no outcome reads those (an outcome is the names, values, log,
//! observations, findings' steps and messages the scenario sees), and the engine never
//! iterates an arena where the order of its elements would change what a unit does.
//!
//! **Enabling and disabling.** Commuting also needs that a unit runnable before an
//! independent one runs is still runnable after it, and the same unit. Footprints cannot be
//! trusted to say so (a commit discards the old document's tasks without those tasks ever
//! running, so no footprint of theirs is ever met), so the runner records the runnable set
//! (each unit by its queue and sequence number) just before and just after every unit, and
//! the difference decides, whatever kind of unit it was: a unit that *disabled* another
//! (runnable before it, gone after it) is dependent with it, and since the disabled unit
//! was runnable at the choice point before the disabler, that choice point is to try it
//! first; a unit that *enabled* another is dependent with it and happens before it, and the
//! two are not a race (the other cannot run first). "Enabled" is read in the one order
//! run, so a unit that queues another also reads what decides whether the new one can run
//! at once (a task: its event loop has no microtask pending, and its document is fully
//! active): it is then dependent with a unit that would keep the new one waiting (one that
//! queues a microtask on that loop first), and the order in which the new one runs at once
//! is explored too, not only the one where it waits for a unit that then "enables" it.
//! A sleeping unit that is disabled wakes
//! (its queue may offer another unit next). A unit run without a choice was the only one
//! runnable, so it disabled none. The harness's actions change runnability too: one that
//! comes while units could run (a `step` ends, a block fires) is a point fixed by the count
//! of units, not by which ran, so each unit that could run then is raced as if it ran next
//! and touched everything (and kept so in the state's summary for merging, below). With
//! these, independent units do commute: neither changes the other's runnability, and each
//! does the same from either order.
//!
//! **The search** is dynamic partial-order reduction with sleep sets (Flanagan and
//! Godefroid, POPL 2005; Godefroid's sleep sets): along the schedule being run, each unit's
//! happens-before set is kept as a bit set, and for every pair of dependent units that are
//! not ordered through others (a race) the explorer adds, at the choice point before the
//! first, the second unit if it was a candidate there and can begin the reversed order (no
//! unit the order puts before it happens before it), or else every candidate together
//! with the reversed order itself (the units after the first that do not happen after it,
//! then the second: a wakeup sequence, after Abdulla, Aronis, Jonsson and Sagonas, POPL
//! 2014), which the path below its first unit follows before it chooses freely; and for a
//! unit that disabled another, the disabled unit's queue at the choice point before it. A
//! candidate explored at a choice point sleeps in its siblings' subtrees until a unit
//! dependent on it runs. Following the whole order matters because what a unit does depends
//! on the state it runs in: a sleeping observation woken by another frame's wait reads no
//! frame's tools, so a path that chose that wait first would never race the observation with
//! the registration the reversal was for. Every schedule is then equivalent (by swapping adjacent independent units) to one
//! the search runs: its final state is the same up to names, so its outcome is one the search
//! reports. Expectations are judged from outcomes: `expect sometimes` holds when some
//! explored schedule passes, which is exactly when some schedule passes; `expect log in
//! [...]` is judged from the set of logs reached, which is the full set because the log's
//! order is an order of dependent units. Invariants are judged per object after every unit;
//! an object's check reads objects that only units dependent with its writers change, so
//! its verdict is the same in every order of a trace (the readiness index's self-check reads
//! every document of a tree and is judged on the states visited).
//!
//! **With merging**, a state met again is not explored again, so the races between the
//! schedule that meets it and the units of its subtree are found from the state's summary:
//! for each queue, the union of the footprints of its units anywhere in the subtree, raced
//! against the whole schedule so far as if they came next (fewer units order them so, so
//! more races are found, never fewer). A state met with a sleep set that does not contain the
//! one it was explored with is explored again.
//!
//! **Counts.** The reduced search runs some schedules of each class and not others, so its
//! counts are of the schedules it explored (each complete path through the explored graph:
//! at least one per Mazurkiewicz trace), not of all schedules; the naive and merging searches
//! count every schedule exactly. The output says which.
//!
//! `spec-tests/explore.rs` checks, on every bundled subtest under every named profile and on
//! generated scenarios, that the reduced, merging and naive searches find the same outcomes
//! and expectation verdicts.

pub mod invariants;
pub mod sample;
pub(crate) mod search;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
// std's Instant::now() panics in WebAssembly; web_time's is std's elsewhere.
use web_time::Instant;

use serde::Serialize;

use crate::engine::profile::Profile;
use crate::engine::schedule::{ScheduleError, Scheduler};
use crate::host::budget::{Budget as Spent, Budgets, Interrupt};
use crate::scenario::ast::{ScenarioFile, Subtest};
use crate::scenario::runner::{
    picked_subtests, unmet_requirement, ExpectationResult, SubtestResult,
};

/// The explorer's scheduler at one choice point: it takes the candidate the search is
/// exploring, through the same door as `run`'s schedule and a replay.
struct Take(usize);

impl Scheduler for Take {
    fn choose(&mut self, point: u64, candidates: usize) -> Result<usize, ScheduleError> {
        if self.0 < candidates {
            Ok(self.0)
        } else {
            Err(ScheduleError::OutOfRange {
                point,
                choice: self.0 as u32,
                candidates,
            })
        }
    }
}

/// Which schedules to run.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Mode {
    /// Every schedule (or one of each class, reduced).
    #[default]
    Exhaustive,
    /// `runs` schedules, each choice drawn uniformly from the candidates.
    Random { runs: u64, seed: u64 },
    /// `runs` schedules of probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi
    /// and Nagarakatte, ASPLOS 2010) for bugs of depth `depth`.
    Pct { runs: u64, seed: u64, depth: u32 },
}

/// How to explore.
#[derive(Clone, Debug)]
pub struct ExploreOptions {
    pub profile: Profile,
    pub subtest: Option<String>,
    /// Stop after this many complete schedules have been run (merged ones are not run).
    pub max_schedules: Option<u64>,
    /// Stop after this much wall-clock time.
    pub max_seconds: Option<f64>,
    /// Identify states already explored, and reduce by partial order; off: the naive
    /// enumeration.
    pub reduce: bool,
    /// With `reduce`: the partial-order reduction on top of merging states (off: merging
    /// only, which counts every schedule exactly).
    pub partial_order: bool,
    /// Check the invariants after every unit.
    pub invariants: bool,
    /// Stop cleanly before the process's resident memory reaches this many bytes: the search
    /// stops at three quarters of it ([`MEMORY_FOR_THE_SEARCH`]).
    pub max_memory: Option<u64>,
    pub mode: Mode,
    /// What one line, one unit and one value may spend in each schedule (see
    /// `host::budget`).
    pub budgets: Budgets,
}

impl Default for ExploreOptions {
    fn default() -> Self {
        ExploreOptions {
            profile: Profile::spec(),
            subtest: None,
            max_schedules: None,
            max_seconds: None,
            reduce: true,
            partial_order: true,
            invariants: true,
            max_memory: None,
            mode: Mode::Exhaustive,
            budgets: Budgets::default(),
        }
    }
}

/// What a complete schedule came to.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Leaf {
    status: &'static str,
    /// Each expectation's line, verdict and what it saw.
    expectations: Vec<(u32, bool, String)>,
    messages: Vec<String>,
    /// The run's observable values (documents' tools-ready and tools, named promises,
    /// observations, the log, the findings).
    values: Vec<(String, String)>,
}

impl Leaf {
    fn of(result: &SubtestResult) -> Leaf {
        Leaf {
            status: result.status.name(),
            expectations: result
                .expectations
                .iter()
                .map(|e| (e.line, e.passed, e.actual.clone()))
                .collect(),
            messages: result.messages.clone(),
            values: result.outcome.clone(),
        }
    }

    fn fingerprint(&self) -> u128 {
        use std::hash::Hash;
        let mut h = crate::host::shared::StateHasher::default();
        self.hash(&mut h);
        h.finish128()
    }

    fn bytes(&self) -> usize {
        let strings: usize = self
            .expectations
            .iter()
            .map(|e| e.2.len() + 40)
            .chain(self.messages.iter().map(|m| m.len() + 24))
            .chain(self.values.iter().map(|(k, v)| k.len() + v.len() + 48))
            .sum();
        std::mem::size_of::<Leaf>() + strings
    }
}

/// The distinct outcomes met so far, each kept once, found by fingerprint.
#[derive(Default)]
struct Outcomes {
    leaves: Vec<Leaf>,
    by_fingerprint: HashMap<u128, Vec<u32>>,
    /// One example result per outcome, for expectation texts.
    examples: Vec<Vec<ExpectationResult>>,
    bytes: usize,
    /// Some schedule's run was stopped by one of its own budgets (see `host::budget`).
    out_of_budget: bool,
}

impl Outcomes {
    fn id_of(&mut self, result: SubtestResult) -> u32 {
        self.out_of_budget |= result.out_of_budget;
        let leaf = Leaf::of(&result);
        let ids = self.by_fingerprint.entry(leaf.fingerprint()).or_default();
        if let Some(id) = ids.iter().find(|i| self.leaves[**i as usize] == leaf) {
            return *id;
        }
        let id = self.leaves.len() as u32;
        ids.push(id);
        self.bytes += leaf.bytes() + 32;
        self.leaves.push(leaf);
        self.examples.push(result.expectations);
        id
    }
}

/// A continuation: the choices from a state on, as a list that shares its tail, so that
/// prefixing a choice costs one node.
#[derive(Debug)]
struct Path {
    choice: u32,
    len: u32,
    nonzero: u32,
    rest: Option<Arc<Path>>,
}

fn prefixed(choice: u32, rest: &Option<Arc<Path>>) -> Option<Arc<Path>> {
    let (len, nonzero) = rest.as_ref().map(|r| (r.len, r.nonzero)).unwrap_or((0, 0));
    Some(Arc::new(Path {
        choice,
        len: len + 1,
        nonzero: nonzero + u32::from(choice != 0),
        rest: rest.clone(),
    }))
}

fn path_vec(mut p: &Option<Arc<Path>>) -> Vec<u32> {
    let mut out = Vec::new();
    while let Some(node) = p {
        out.push(node.choice);
        p = &node.rest;
    }
    out
}

/// Fewest non-default choices, then fewest choices, then the first in choice order.
fn better(a: &Option<Arc<Path>>, b: &Option<Arc<Path>>) -> bool {
    let key = |p: &Option<Arc<Path>>| p.as_ref().map(|n| (n.nonzero, n.len)).unwrap_or((0, 0));
    match key(a).cmp(&key(b)) {
        std::cmp::Ordering::Less => true,
        std::cmp::Ordering::Greater => false,
        std::cmp::Ordering::Equal => path_vec(a) < path_vec(b),
    }
}

/// The token `run --schedule` replays for a path from the start.
fn token_of(path: &Option<Arc<Path>>) -> String {
    let mut s = crate::engine::schedule::Schedule::default();
    for (point, choice) in path_vec(path).iter().enumerate() {
        if *choice != 0 {
            s.choices.insert(point as u64, *choice);
        }
    }
    s.to_string()
}

/// How the schedules from one state reach one outcome.
#[derive(Clone, Debug)]
struct Reach {
    count: u128,
    /// The best continuation.
    best: Option<Arc<Path>>,
}

/// For each outcome (by index), the schedules reaching it.
type Summary = Vec<(u32, Reach)>;

/// Adds the schedules of a child (reached by `choice`) to a state's.
fn add_child(summary: &mut BTreeMap<u32, Reach>, choice: u32, child: &Summary) {
    for (id, reach) in child.iter() {
        let path = prefixed(choice, &reach.best);
        match summary.entry(*id) {
            std::collections::btree_map::Entry::Vacant(v) => {
                v.insert(Reach {
                    count: reach.count,
                    best: path,
                });
            }
            std::collections::btree_map::Entry::Occupied(mut o) => {
                let entry = o.get_mut();
                entry.count += reach.count;
                if better(&path, &entry.best) {
                    entry.best = path;
                }
            }
        }
    }
}

/// What the counts of an exploration count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Counted {
    /// Every schedule, exactly (the naive and merging searches).
    Schedules,
    /// The schedules the partial-order reduction explored: at least one of each class of
    /// schedules that differ only in the order of independent units.
    Traces,
    /// Schedules drawn at random, or by PCT: how many runs reached each outcome.
    Samples,
}

impl Counted {
    /// The noun for a count of them, in the output.
    pub fn noun(self) -> &'static str {
        match self {
            Counted::Schedules => "schedule(s)",
            Counted::Traces => "trace(s)",
            Counted::Samples => "sampled run(s)",
        }
    }
}

/// One subtest's exploration.
#[derive(Clone, Debug, Serialize)]
pub struct Exploration {
    pub file: String,
    pub subtest: String,
    pub line: u32,
    pub profile: String,
    /// What `schedules` and each outcome's count are counts of.
    pub counted: Counted,
    /// Complete schedules (paths from start to end), counting those merging reached without
    /// running them: every schedule (`counted: schedules`), the schedules the reduction
    /// explored (`traces`), or the runs sampled (`samples`).
    pub schedules: u128,
    /// Distinct states met at choice points.
    pub states: u64,
    /// Times a state already explored was met again.
    pub merged: u64,
    /// Units of work run in all.
    pub units: u64,
    /// Complete schedules actually run to their end.
    pub leaves_run: u64,
    /// Bytes the search kept per distinct state (its fingerprint, summary and, reduced, the
    /// footprints of its subtree, one shared with other subtrees counted in shares), on
    /// average.
    pub bytes_per_state: u64,
    /// For `--random` and `--pct`: the seed the sample was drawn with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    pub complete: bool,
    /// A schedule ran out of one of the run's budgets (`--max-units`, `--max-fuel`...): its
    /// outcome is an ERROR that a budget decided.
    pub out_of_budget: bool,
    /// Why the search stopped early, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_by: Option<String>,
    pub outcomes: Vec<OutcomeReport>,
    pub expectations: Vec<ExpectationVerdict>,
    pub errors: Vec<String>,
    /// Why the profile does not run the subtest (its file's `requires:`): nothing explored.
    pub not_run: Option<String>,
}

/// A distinct outcome and how many schedules reach it.
#[derive(Clone, Debug, Serialize)]
pub struct OutcomeReport {
    /// Counted as the exploration's `counted` says.
    pub schedules: u128,
    /// The simplest schedule reaching it, as a token for `run --schedule`.
    pub schedule: String,
    pub status: &'static str,
    pub values: Vec<(String, String)>,
    pub messages: Vec<String>,
}

/// An expectation's verdict over all schedules.
#[derive(Clone, Debug, Serialize)]
pub struct ExpectationVerdict {
    pub line: u32,
    pub text: String,
    pub sometimes: bool,
    pub holds: bool,
    pub passing_schedules: u128,
    pub failing_schedules: u128,
    /// For a failure: the shortest schedule that breaks it (or, for `sometimes`, the one
    /// that comes nearest).
    pub counterexample: Option<String>,
    pub expected: String,
    /// The distinct values it saw.
    pub seen: Vec<String>,
    /// For `expect log in [...]`: permitted orders no schedule reached.
    pub unreached: Vec<String>,
}

impl Exploration {
    /// An exploration with nothing explored; `error`, when not empty, says why.
    fn empty(
        file: &ScenarioFile,
        subtest: &Subtest,
        options: &ExploreOptions,
        error: &str,
    ) -> Exploration {
        Exploration {
            file: file.path.clone(),
            subtest: subtest.name.clone(),
            line: subtest.line,
            profile: options.profile.name.clone(),
            counted: counted(options),
            schedules: 0,
            states: 0,
            merged: 0,
            units: 0,
            leaves_run: 0,
            bytes_per_state: 0,
            seed: match options.mode {
                Mode::Exhaustive => None,
                Mode::Random { seed, .. } | Mode::Pct { seed, .. } => Some(seed),
            },
            complete: error.is_empty(),
            out_of_budget: false,
            stopped_by: None,
            outcomes: Vec::new(),
            expectations: Vec::new(),
            errors: if error.is_empty() {
                Vec::new()
            } else {
                vec![error.to_string()]
            },
            not_run: None,
        }
    }

    /// Every expectation held, no invariant failed, and the search was complete.
    pub fn passed(&self) -> bool {
        self.complete
            && self.errors.is_empty()
            && self.expectations.iter().all(|e| e.holds)
            && self.outcomes.iter().all(|o| o.messages.is_empty())
    }
}

fn counted(options: &ExploreOptions) -> Counted {
    match options.mode {
        Mode::Exhaustive if options.reduce && options.partial_order => Counted::Traces,
        Mode::Exhaustive => Counted::Schedules,
        _ => Counted::Samples,
    }
}

/// Progress shared with the reporter thread.
#[derive(Default)]
pub struct Progress {
    pub states: AtomicU64,
    pub schedules: AtomicU64,
    pub stop: AtomicBool,
}

/// The budgets of one search, checked as it goes: between schedules, and inside each through
/// the run's interrupt (see [`Budget::interrupt`]).
struct Budget<'a> {
    options: &'a ExploreOptions,
    deadline: Option<Instant>,
    progress: &'a Progress,
    /// Why it stopped (none: it has not).
    stopped: Option<String>,
    /// Set by the interrupt when the memory budget is spent inside a schedule.
    memory_spent: Arc<AtomicBool>,
}

impl<'a> Budget<'a> {
    fn new(options: &'a ExploreOptions, progress: &'a Progress) -> Budget<'a> {
        Budget {
            options,
            deadline: options
                .max_seconds
                .filter(|s| s.is_finite() && *s >= 0.0)
                .and_then(|s| Instant::now().checked_add(Duration::try_from_secs_f64(s).ok()?)),
            progress,
            stopped: None,
            memory_spent: Arc::new(AtomicBool::new(false)),
        }
    }

    /// The check a run's world polls between units and inside them (see
    /// `host::budget::Interrupt`): `--max-seconds`, `--max-memory`, and a stop of the whole
    /// exploration, so that no schedule runs on past them. It reads the process's memory
    /// once in [`MEMORY_POLLS`] polls.
    fn interrupt(&self) -> Interrupt {
        let deadline = self.deadline;
        let max_memory = self.options.max_memory.map(|max| {
            let (num, den) = MEMORY_FOR_THE_SEARCH;
            max / den * num
        });
        let memory_spent = self.memory_spent.clone();
        let polls = std::cell::Cell::new(0u32);
        std::rc::Rc::new(move || {
            if memory_spent.load(Ordering::Relaxed) {
                return Some("--max-memory".into());
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Some("--max-seconds".into());
            }
            let n = polls.get();
            polls.set(n.wrapping_add(1));
            if n.is_multiple_of(MEMORY_POLLS) {
                if let Some(max) = max_memory {
                    if resident_bytes().is_some_and(|r| r >= max) {
                        memory_spent.store(true, Ordering::Relaxed);
                        return Some("--max-memory".into());
                    }
                }
            }
            None
        })
    }

    /// A run that one of the search's own budgets stopped inside a schedule: the search stops
    /// there (what that schedule would have come to is not an outcome). True if it was.
    fn stopped_inside(&mut self, run: &crate::scenario::runner::SubtestRun) -> bool {
        let Some(Spent::Interrupted(why)) = run.budget_stop().map(|s| &s.budget) else {
            return false;
        };
        if self.stopped.is_none() {
            self.stopped = Some(why.clone());
        }
        if why == "--max-memory" {
            // Every other search of this process stops too: the memory is the process's.
            self.progress.stop.store(true, Ordering::Relaxed);
        }
        true
    }

    /// Checks the budgets; true once one is spent.
    fn check(&mut self, leaves_run: u64) -> bool {
        if self.stopped.is_some() {
            return true;
        }
        if self.memory_spent.load(Ordering::Relaxed) {
            self.stopped = Some("--max-memory".into());
            self.progress.stop.store(true, Ordering::Relaxed);
        } else if self.progress.stop.load(Ordering::Relaxed) {
            self.memory_spent.store(true, Ordering::Relaxed);
            self.stopped = Some("stopped".into());
        } else if self
            .options
            .max_schedules
            .is_some_and(|max| leaves_run >= max && self.options.mode != Mode::Exhaustive)
        {
            self.stopped = Some("--max-schedules".into());
        } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.stopped = Some("--max-seconds".into());
        } else if let Some(max) = self.options.max_memory {
            let (num, den) = MEMORY_FOR_THE_SEARCH;
            if resident_bytes().is_some_and(|r| r >= max / den * num) {
                self.stopped = Some("--max-memory".into());
                // Every other search of this process stops too: the memory is the process's.
                self.progress.stop.store(true, Ordering::Relaxed);
            }
        }
        self.stopped.is_some()
    }
}

/// How many polls of a run's interrupt read the process's memory once (a read costs a few
/// microseconds; a poll comes every unit, and every `host::budget::POLL_EVERY` fuel).
const MEMORY_POLLS: u32 = 256;

/// The share of `--max-memory` the search may reach before it stops. The rest is for what
/// follows the stop: the search's stack unwinding (each level merges what its subtree found),
/// the report, and its output, which grow with the outcomes found (on seven frames that log,
/// about a quarter of what the search held).
pub const MEMORY_FOR_THE_SEARCH: (u64, u64) = (3, 4);

/// The process's resident memory, in bytes (Linux; elsewhere unknown).
pub fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// The machine's memory, in bytes (Linux; elsewhere unknown).
pub fn machine_bytes() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Explores every subtest of a file (or those `options.subtest` picks).
pub fn explore_file(
    file: &ScenarioFile,
    options: &ExploreOptions,
    progress: &Progress,
) -> Vec<Exploration> {
    picked_subtests(file, options.subtest.as_deref())
        .into_iter()
        .map(|s| explore_subtest(file, s, options, progress))
        .collect()
}

/// The stack of an exploring thread: the search recurses once per choice point of a schedule.
const EXPLORER_STACK: usize = 1 << 30;

/// Explores one subtest, on a thread of its own with a stack deep enough for long schedules.
pub fn explore_subtest(
    file: &ScenarioFile,
    subtest: &Subtest,
    options: &ExploreOptions,
    progress: &Progress,
) -> Exploration {
    // A WebAssembly page has no threads of its own (a Web Worker runs the whole module): the
    // search runs on the caller's stack, which the playground's module makes deep enough.
    if cfg!(target_family = "wasm") {
        return explore_subtest_here(file, subtest, options, progress);
    }
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("explore".into())
            .stack_size(EXPLORER_STACK)
            .spawn_scoped(scope, || {
                explore_subtest_here(file, subtest, options, progress)
            });
        match worker.map(|w| w.join()) {
            Ok(Ok(e)) => e,
            // Spawning failed or the search panicked: say so rather than bring the run down.
            Ok(Err(_)) | Err(_) => Exploration::empty(
                file,
                subtest,
                options,
                "the exploration could not run to its end (internal error)",
            ),
        }
    })
}

fn explore_subtest_here(
    file: &ScenarioFile,
    subtest: &Subtest,
    options: &ExploreOptions,
    progress: &Progress,
) -> Exploration {
    if let Some(why) = unmet_requirement(file, &options.profile) {
        return Exploration {
            not_run: Some(why),
            ..Exploration::empty(file, subtest, options, "")
        };
    }
    match options.mode {
        Mode::Exhaustive => search::explore(file, subtest, options, progress),
        _ => sample::explore(file, subtest, options, progress),
    }
}

/// What a search found, turned into the report.
struct Found<'a> {
    file: &'a ScenarioFile,
    subtest: &'a Subtest,
    options: &'a ExploreOptions,
    /// The outcomes met (the report moves their values out rather than copy them: they can be
    /// most of what a large search holds).
    outcomes: Outcomes,
    /// Each outcome reached, with its count and best schedule.
    reached: Vec<Reached>,
}

/// An outcome reached: how often, and its simplest schedule.
struct Reached {
    id: u32,
    count: u128,
    token: String,
    /// Non-default choices, choices, then the choices themselves: the smaller, the simpler.
    rank: (u32, u32, Vec<u32>),
}

impl Reached {
    fn of_path(id: u32, count: u128, path: &Option<Arc<Path>>) -> Reached {
        let choices = path_vec(path);
        Reached {
            id,
            count,
            token: token_of(path),
            rank: (
                choices.iter().filter(|c| **c != 0).count() as u32,
                choices.len() as u32,
                choices,
            ),
        }
    }
}

impl Found<'_> {
    fn report(mut self) -> Exploration {
        let schedules: u128 = self.reached.iter().map(|r| r.count).sum();
        // Each outcome is reached once in `reached`, so its values can be moved out.
        let leaves = &mut self.outcomes.leaves;
        let mut outcomes: Vec<OutcomeReport> = self
            .reached
            .iter()
            .map(|r| {
                let leaf = &mut leaves[r.id as usize];
                OutcomeReport {
                    schedules: r.count,
                    schedule: r.token.clone(),
                    status: leaf.status,
                    values: std::mem::take(&mut leaf.values),
                    messages: std::mem::take(&mut leaf.messages),
                }
            })
            .collect();
        outcomes.sort_by(|a, b| {
            b.schedules
                .cmp(&a.schedules)
                .then(a.schedule.cmp(&b.schedule))
        });
        let empty = Exploration::empty(self.file, self.subtest, self.options, "");
        if self.reached.is_empty() {
            return Exploration {
                errors: vec!["the search stopped before any schedule ended".into()],
                ..empty
            };
        }
        // Expectations, by line: a schedule that ended early (an error) may lack some.
        let mut lines: BTreeMap<u32, &ExpectationResult> = BTreeMap::new();
        for r in &self.reached {
            for e in &self.outcomes.examples[r.id as usize] {
                lines.entry(e.line).or_insert(e);
            }
        }
        let mut verdicts: Vec<ExpectationVerdict> = Vec::new();
        for (line, e) in lines {
            let mut passing = 0u128;
            let mut failing = 0u128;
            let mut best_fail: Option<&Reached> = None;
            let mut seen: Vec<String> = Vec::new();
            for r in &self.reached {
                let leaf = &self.outcomes.leaves[r.id as usize];
                let Some((_, passed, actual)) = leaf.expectations.iter().find(|x| x.0 == line)
                else {
                    continue;
                };
                if !seen.contains(actual) {
                    seen.push(actual.clone());
                }
                if *passed {
                    passing += r.count;
                } else {
                    failing += r.count;
                    if best_fail.is_none_or(|b| r.rank < b.rank) {
                        best_fail = Some(r);
                    }
                }
            }
            let unreached: Vec<String> = e
                .permitted
                .iter()
                .filter(|order| !seen.contains(order))
                .cloned()
                .collect();
            let holds = if e.sometimes {
                passing > 0
            } else {
                failing == 0 && unreached.is_empty()
            };
            verdicts.push(ExpectationVerdict {
                line,
                text: e.text.clone(),
                sometimes: e.sometimes,
                holds,
                passing_schedules: passing,
                failing_schedules: failing,
                counterexample: if holds {
                    None
                } else {
                    best_fail.map(|r| r.token.clone())
                },
                expected: e.expected.clone(),
                seen,
                unreached,
            });
        }
        Exploration {
            schedules,
            outcomes,
            expectations: verdicts,
            out_of_budget: self.outcomes.out_of_budget,
            ..empty
        }
    }
}

/// Explores many (file, subtest) items on `threads` worker threads; the results come back in
/// the items' order, whatever the number of threads.
pub fn explore_all(
    files: &[ScenarioFile],
    options: &[ExploreOptions],
    threads: usize,
    progress: &Progress,
) -> Vec<Exploration> {
    let mut items: Vec<(&ScenarioFile, &Subtest, &ExploreOptions)> = Vec::new();
    for o in options {
        for f in files {
            for s in picked_subtests(f, o.subtest.as_deref()) {
                items.push((f, s, o));
            }
        }
    }
    if cfg!(target_family = "wasm") {
        // No threads in a page: one subtest after another on the caller's stack.
        return items
            .into_iter()
            .map(|(f, s, o)| explore_subtest_here(f, s, o, progress))
            .collect();
    }
    let next = AtomicU64::new(0);
    let results: Vec<std::sync::Mutex<Option<Exploration>>> =
        items.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            // Each worker has the deep stack the search needs, and explores subtest after
            // subtest on it.
            let worker = std::thread::Builder::new()
                .name("explore".into())
                .stack_size(EXPLORER_STACK)
                .spawn_scoped(scope, || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed) as usize;
                    let Some((f, s, o)) = items.get(i) else {
                        break;
                    };
                    let e = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        explore_subtest_here(f, s, o, progress)
                    }));
                    if let (Ok(e), Ok(mut slot)) = (e, results[i].lock()) {
                        *slot = Some(e);
                    }
                });
            if worker.is_err() {
                break;
            }
        }
    });
    // A subtest no worker reached (a thread could not start, or its search panicked) is
    // reported as such, never dropped.
    results
        .into_iter()
        .zip(&items)
        .map(|(m, (f, s, o))| {
            m.into_inner().ok().flatten().unwrap_or_else(|| {
                Exploration::empty(
                    f,
                    s,
                    o,
                    "the exploration could not run to its end (internal error)",
                )
            })
        })
        .collect()
}
