//! The explorer: every schedule a subtest permits, its distinct outcomes, and the shortest
//! schedule that breaks each expectation or invariant.
//!
//! A subtest runs until the world offers more than one runnable unit (a choice point); the
//! explorer then runs each candidate in a copy of the run, depth first, to the end of the
//! subtest. A complete schedule is one path from the start to the end.
//!
//! ## The reduction, and why it loses no outcome
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
//! The one way the reduction could merge two different states is a collision of the 128-bit
//! hash. `spec-tests/explore.rs` checks, on small scenarios, that the reduced and the naive
//! enumeration give the same outcomes with the same counts.

pub mod invariants;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::engine::profile::Profile;
use crate::engine::schedule::{ScheduleError, Scheduler};
use crate::scenario::ast::{ScenarioFile, Subtest};
use crate::scenario::runner::{unmet_requirement, ExpectationResult, Next, SubtestRun};
use crate::scenario::RunOptions;

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

/// How to explore.
#[derive(Clone, Debug)]
pub struct ExploreOptions {
    pub profile: Profile,
    pub subtest: Option<String>,
    /// Stop after this many complete schedules have been run (merged ones are not run).
    pub max_schedules: Option<u64>,
    /// Stop after this much wall-clock time.
    pub max_seconds: Option<f64>,
    /// Identify states already explored (the reduction above); off: the naive enumeration.
    pub reduce: bool,
    /// Check the invariants after every unit.
    pub invariants: bool,
}

impl Default for ExploreOptions {
    fn default() -> Self {
        ExploreOptions {
            profile: Profile::spec(),
            subtest: None,
            max_schedules: None,
            max_seconds: None,
            reduce: true,
            invariants: true,
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

/// How the schedules from one state reach one outcome.
#[derive(Clone, Debug)]
struct Reach {
    count: u128,
    /// The best continuation.
    best: Option<Arc<Path>>,
}

/// For each outcome (by index), the schedules reaching it.
type Summary = Vec<(u32, Reach)>;

/// One subtest's exploration.
#[derive(Clone, Debug, Serialize)]
pub struct Exploration {
    pub file: String,
    pub subtest: String,
    pub line: u32,
    pub profile: String,
    /// Complete schedules (paths from start to end), counting those the reduction merged.
    pub schedules: u128,
    /// Distinct states met at choice points.
    pub states: u64,
    /// Times a state already explored was met again.
    pub merged: u64,
    /// Units of work run in all.
    pub units: u64,
    /// Complete schedules actually run to their end.
    pub leaves_run: u64,
    pub complete: bool,
    pub outcomes: Vec<OutcomeReport>,
    pub expectations: Vec<ExpectationVerdict>,
    pub errors: Vec<String>,
    /// Why the profile does not run the subtest (its file's `requires:`): nothing explored.
    pub not_run: Option<String>,
}

/// A distinct outcome and how many schedules reach it.
#[derive(Clone, Debug, Serialize)]
pub struct OutcomeReport {
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
            schedules: 0,
            states: 0,
            merged: 0,
            units: 0,
            leaves_run: 0,
            complete: error.is_empty(),
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

/// Progress shared with the reporter thread.
#[derive(Default)]
pub struct Progress {
    pub states: AtomicU64,
    pub schedules: AtomicU64,
    pub stop: AtomicBool,
}

struct Explorer<'a> {
    file: &'a ScenarioFile,
    subtest: &'a Subtest,
    options: &'a ExploreOptions,
    memo: HashMap<u128, Arc<Summary>>,
    leaves: Vec<Leaf>,
    leaf_ids: HashMap<Leaf, u32>,
    /// One example `SubtestResult` per outcome, for expectation texts.
    examples: Vec<Vec<ExpectationResult>>,
    states: u64,
    merged: u64,
    units: u64,
    leaves_run: u64,
    deadline: Option<Instant>,
    stopped: bool,
    progress: &'a Progress,
}

/// Explores every subtest of a file (or those `options.subtest` picks).
pub fn explore_file(
    file: &ScenarioFile,
    options: &ExploreOptions,
    progress: &Progress,
) -> Vec<Exploration> {
    file.subtests
        .iter()
        .filter(|s| {
            options
                .subtest
                .as_ref()
                .is_none_or(|f| s.name.contains(f.as_str()))
        })
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
    let run_options = RunOptions {
        profile: options.profile.clone(),
        ..RunOptions::default()
    };
    let mut run = SubtestRun::new(file, subtest, &run_options);
    if options.invariants {
        run.check_after_every_unit(invariants::check_all);
    }
    let mut explorer = Explorer {
        file,
        subtest,
        options,
        memo: HashMap::new(),
        leaves: Vec::new(),
        leaf_ids: HashMap::new(),
        examples: Vec::new(),
        states: 0,
        merged: 0,
        units: 0,
        leaves_run: 0,
        deadline: options
            .max_seconds
            .map(|s| Instant::now() + Duration::from_secs_f64(s.max(0.0))),
        stopped: false,
        progress,
    };
    let summary = explorer.explore(run);
    explorer.report(&summary)
}

impl Explorer<'_> {
    fn explore(&mut self, mut run: SubtestRun) -> Arc<Summary> {
        let before = run.world.units_run();
        let next = run.advance();
        self.units += run.world.units_run() - before;
        let candidates = match next {
            // The schedule budget stops the search only at a schedule left to run.
            Next::Done if self.schedules_spent() => {
                self.stopped = true;
                return Arc::new(Summary::default());
            }
            Next::Done => return Arc::new(self.leaf(run)),
            Next::Choice(c) => c,
        };
        let key = if self.options.reduce {
            let key = run.state_hash();
            if let Some(s) = self.memo.get(&key) {
                self.merged += 1;
                return s.clone();
            }
            Some(key)
        } else {
            None
        };
        self.states += 1;
        self.progress.states.fetch_add(1, Ordering::Relaxed);
        if self.states.is_multiple_of(256) && self.out_of_budget() {
            self.stopped = true;
        }
        let mut summary: BTreeMap<u32, Reach> = BTreeMap::new();
        let n = candidates.len();
        let mut last = Some(run);
        for i in 0..n {
            if self.stopped {
                break;
            }
            // The last candidate takes the run itself; the others a copy.
            let mut child = match (i + 1 == n, last.as_ref()) {
                (false, Some(r)) => r.clone(),
                _ => match last.take() {
                    Some(r) => r,
                    None => break,
                },
            };
            let before = child.world.units_run();
            child.take(&candidates, Some(&mut Take(i)));
            self.units += child.world.units_run() - before;
            let sub = self.explore(child);
            for (id, reach) in sub.iter() {
                let path = prefixed(i as u32, &reach.best);
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
        let summary = Arc::new(summary.into_iter().collect::<Summary>());
        if let (Some(key), false) = (key, self.stopped) {
            self.memo.insert(key, summary.clone());
        }
        summary
    }

    fn schedules_spent(&self) -> bool {
        self.options
            .max_schedules
            .is_some_and(|max| self.leaves_run >= max)
    }

    fn out_of_budget(&self) -> bool {
        if self.progress.stop.load(Ordering::Relaxed) {
            return true;
        }
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    fn leaf(&mut self, run: SubtestRun) -> Summary {
        self.leaves_run += 1;
        self.progress.schedules.fetch_add(1, Ordering::Relaxed);
        let result = run.finish();
        let leaf = Leaf {
            status: result.status.name(),
            expectations: result
                .expectations
                .iter()
                .map(|e| (e.line, e.passed, e.actual.clone()))
                .collect(),
            messages: result.messages.clone(),
            values: result.outcome.clone(),
        };
        let id = match self.leaf_ids.get(&leaf) {
            Some(id) => *id,
            None => {
                let id = self.leaves.len() as u32;
                self.leaf_ids.insert(leaf.clone(), id);
                self.leaves.push(leaf);
                self.examples.push(result.expectations);
                id
            }
        };
        vec![(
            id,
            Reach {
                count: 1,
                best: None,
            },
        )]
    }

    fn report(&self, summary: &Summary) -> Exploration {
        let schedules: u128 = summary.iter().map(|(_, r)| r.count).sum();
        let token = |path: &Option<Arc<Path>>| -> String {
            let mut s = crate::engine::schedule::Schedule::default();
            for (point, choice) in path_vec(path).iter().enumerate() {
                if *choice != 0 {
                    s.choices.insert(point as u64, *choice);
                }
            }
            s.to_string()
        };
        let mut outcomes: Vec<OutcomeReport> = summary
            .iter()
            .map(|(id, reach)| {
                let leaf = &self.leaves[*id as usize];
                OutcomeReport {
                    schedules: reach.count,
                    schedule: token(&reach.best),
                    status: leaf.status,
                    values: leaf.values.clone(),
                    messages: leaf.messages.clone(),
                }
            })
            .collect();
        outcomes.sort_by(|a, b| {
            b.schedules
                .cmp(&a.schedules)
                .then(a.schedule.cmp(&b.schedule))
        });

        // Expectations, by line: a schedule that ended early (an error) may lack some.
        if summary.is_empty() {
            return self.empty_report(schedules);
        }
        let mut lines: BTreeMap<u32, &ExpectationResult> = BTreeMap::new();
        for (id, _) in summary {
            for e in &self.examples[*id as usize] {
                lines.entry(e.line).or_insert(e);
            }
        }
        let mut verdicts: Vec<ExpectationVerdict> = Vec::new();
        for (line, e) in lines {
            let mut passing = 0u128;
            let mut failing = 0u128;
            let mut best_fail: Option<Option<Arc<Path>>> = None;
            let mut seen: Vec<String> = Vec::new();
            for (id, reach) in summary {
                let leaf = &self.leaves[*id as usize];
                let Some((_, passed, actual)) = leaf.expectations.iter().find(|x| x.0 == line)
                else {
                    continue;
                };
                if !seen.contains(actual) {
                    seen.push(actual.clone());
                }
                if *passed {
                    passing += reach.count;
                } else {
                    failing += reach.count;
                    if best_fail.as_ref().is_none_or(|b| better(&reach.best, b)) {
                        best_fail = Some(reach.best.clone());
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
                    best_fail.map(|p| token(&p))
                },
                expected: e.expected.clone(),
                seen,
                unreached,
            });
        }
        self.counted(Exploration {
            schedules,
            outcomes,
            expectations: verdicts,
            ..Exploration::empty(self.file, self.subtest, self.options, "")
        })
    }

    /// An exploration carrying this explorer's counts.
    fn counted(&self, e: Exploration) -> Exploration {
        Exploration {
            states: self.states,
            merged: self.merged,
            units: self.units,
            leaves_run: self.leaves_run,
            complete: !self.stopped,
            ..e
        }
    }

    fn empty_report(&self, schedules: u128) -> Exploration {
        self.counted(Exploration {
            schedules,
            ..Exploration::empty(
                self.file,
                self.subtest,
                self.options,
                "the search stopped before any schedule ended",
            )
        })
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
            for s in &f.subtests {
                if o.subtest
                    .as_ref()
                    .is_none_or(|n| s.name.contains(n.as_str()))
                {
                    items.push((f, s, o));
                }
            }
        }
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
