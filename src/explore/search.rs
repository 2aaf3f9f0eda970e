//! The exhaustive search: naive, merging states, or merging states with dynamic
//! partial-order reduction (the argument is in the module above).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::{
    add_child, invariants, Budget, Exploration, ExploreOptions, Found, Outcomes, Progress, Reach,
    Reached, Summary, Take,
};
use crate::host::event_loop::{Candidate, UnitRef};
use crate::host::shared::footprint::Footprint;
use crate::scenario::ast::{ScenarioFile, Subtest};
use crate::scenario::runner::{Next, SubtestRun, UnitEvent};
use crate::scenario::RunOptions;

/// A queue of units: what a unit is "the next unit of" (a task source of an event loop, an
/// event loop's microtasks, a parallel queue, a timer). A sleeping unit and a race's second
/// unit are named by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Queue {
    Microtasks(UnitRefKey),
    Tasks(UnitRefKey, u8),
    Parallel(UnitRefKey),
    Timer(UnitRefKey),
}

/// A key of the host's arenas, as a number (only compared).
type UnitRefKey = u64;

pub(super) fn queue_of(c: &Candidate) -> Queue {
    use slotmap::Key;
    match c.unit {
        UnitRef::Microtask(l) => Queue::Microtasks(l.data().as_ffi()),
        UnitRef::Task {
            event_loop, source, ..
        } => Queue::Tasks(event_loop.data().as_ffi(), source as u8),
        UnitRef::Parallel(q) => Queue::Parallel(q.data().as_ffi()),
        UnitRef::Timer(t) => Queue::Timer(t.data().as_ffi()),
    }
}

/// A set of event indices.
#[derive(Clone, Debug, Default)]
struct Bits(Vec<u64>);

impl Bits {
    fn insert(&mut self, i: usize) {
        let w = i / 64;
        if self.0.len() <= w {
            self.0.resize(w + 1, 0);
        }
        self.0[w] |= 1 << (i % 64);
    }

    fn contains(&self, i: usize) -> bool {
        self.0.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    fn union(&mut self, other: &Bits) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
    }
}

/// A unit (or harness action) of the schedule being run.
struct Event {
    queue: Option<Queue>,
    /// The world's last sequence number before and after it ran.
    seqs: (u64, u64),
    footprint: Arc<Footprint>,
    /// The choice point it was chosen at (an index into the frames), if it was chosen.
    frame: Option<usize>,
    /// The events before it that happen before it.
    before: Bits,
    /// The units it made runnable, and those it left unable to run (each by its queue and
    /// sequence number): the difference between the runnable sets around it.
    enabled: Vec<UnitId>,
    disabled: Vec<UnitId>,
    /// The units that could run just after it (a unit only): those a harness action that
    /// follows it interrupts.
    runnable_after: Vec<UnitId>,
}

/// A unit as the runnable sets name it: its queue and sequence number.
type UnitId = (Queue, u64);

fn ids(candidates: &[Candidate]) -> Vec<UnitId> {
    candidates.iter().map(|c| (queue_of(c), c.seq)).collect()
}

/// What a unit did to the runnable set: the units it enabled and those it disabled (other
/// than itself), from the sets just before and just after it.
fn runnability_changes(event: &UnitEvent) -> (Vec<UnitId>, Vec<UnitId>) {
    let Some(unit) = &event.unit else {
        return (Vec::new(), Vec::new());
    };
    let me = (queue_of(unit), unit.seq);
    let (before, after) = (ids(&event.runnable.0), ids(&event.runnable.1));
    let enabled = after
        .iter()
        .filter(|u| !before.contains(u))
        .copied()
        .collect();
    let disabled = before
        .iter()
        .filter(|u| **u != me && !after.contains(u))
        .copied()
        .collect();
    (enabled, disabled)
}

/// Whether a sleeping unit of `queue` with `footprint` stays asleep when a unit with `fp`
/// that disabled `disabled` runs: it must be independent of it, and still runnable.
fn stays_asleep(
    (queue, footprint): &(Queue, Arc<Footprint>),
    fp: &Footprint,
    disabled: &[UnitId],
) -> bool {
    !footprint.conflicts(fp) && !disabled.iter().any(|(q, _)| q == queue)
}

/// A choice point of the schedule being run.
struct Frame {
    queues: Vec<Queue>,
    /// Each candidate's sequence number: which unit of its queue it is.
    seqs: Vec<u64>,
    /// Candidates to explore (races found later add to it).
    backtrack: Vec<bool>,
    /// Candidates explored (or begun).
    done: Vec<bool>,
    /// Orders to follow, each from a candidate (by index): a reversed race (see `reverse`).
    tails: Vec<(usize, Order)>,
    /// Where each order kept is in `tails`, by its candidate and a hash of it.
    kept: HashMap<(usize, u64), usize>,
}

impl Frame {
    /// Keeps an order to follow from candidate `j`, unless that one has been explored or
    /// the order is kept already.
    fn keep(&mut self, j: usize, order: Order) {
        if self.done[j] {
            return;
        }
        let hash = crate::host::shared::value_hash(&order);
        if let Some(&at) = self.kept.get(&(j, hash)) {
            if self.tails[at].1 == order {
                return;
            }
        }
        self.kept.insert((j, hash), self.tails.len());
        self.tails.push((j, order));
    }
}

/// A unit of an order to follow: its queue, and the queues of the units it made runnable.
/// What a unit creates (a timer, a parallel queue) is named in the order it is created, so
/// a later unit of the order may be named differently on the path that follows it: the
/// names are matched through what each unit of the order made runnable there.
#[derive(Clone, PartialEq, Hash)]
struct Step {
    queue: Queue,
    made: Vec<Queue>,
}

type Order = Vec<Step>;

/// The orders a path is to follow first (see `reverse`).
type Guide = Vec<Order>;

/// A unit of `queue` that made `made` runnable has run: each order whose next unit it was
/// goes on to its next, with the names of what the unit made runnable in the order replaced
/// by those it made here (by position, among queues of one kind).
fn follow(guide: &mut Guide, queue: Queue, made: &[UnitId]) {
    for order in guide.iter_mut() {
        if order.first().is_none_or(|s| s.queue != queue) {
            continue;
        }
        let step = order.remove(0);
        let names: Vec<(Queue, Queue)> = step
            .made
            .iter()
            .zip(made)
            .filter(|(old, (new, _))| old != &new && same_kind(old, new))
            .map(|(old, (new, _))| (*old, *new))
            .collect();
        for later in order.iter_mut() {
            for q in std::iter::once(&mut later.queue).chain(later.made.iter_mut()) {
                if let Some((_, new)) = names.iter().find(|(old, _)| old == q) {
                    *q = *new;
                }
            }
        }
    }
    guide.retain(|o| !o.is_empty());
}

/// Whether two queues are of one kind (timers, parallel queues, one event loop's tasks of
/// one source...).
fn same_kind(a: &Queue, b: &Queue) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
}

/// The sequence number of the first unit of a queue in a run's state, if it has one.
fn front_seq(run: &SubtestRun, queue: Queue) -> Option<u64> {
    use crate::host::parallel::QueueState;
    use slotmap::KeyData;
    let w = &run.world;
    crate::host::shared::footprint::untracked(|| match queue {
        Queue::Microtasks(l) => w
            .event_loops
            .get(KeyData::from_ffi(l).into())
            .and_then(|el| el.microtasks.front().map(|m| m.seq)),
        Queue::Tasks(l, source) => w
            .event_loops
            .get(KeyData::from_ffi(l).into())
            .and_then(|el| el.queues[source as usize].front().map(|t| t.seq)),
        Queue::Parallel(q) => w
            .parallel_queues
            .get(KeyData::from_ffi(q).into())
            .and_then(|pq| match pq.state {
                QueueState::Woken { seq } => Some(seq),
                _ => pq.steps.front().map(|s| s.seq),
            }),
        Queue::Timer(t) => w
            .timers
            .get(KeyData::from_ffi(t).into())
            .map(|timer| timer.seq),
    })
}

/// For each queue, the union of the footprints of its units in a state's subtree. A footprint
/// is shared with the subtrees it came from until a union changes it.
type Subtree = Vec<(Queue, Arc<Footprint>)>;

fn add_to_subtree(sub: &mut Subtree, queue: Queue, footprint: &Arc<Footprint>) {
    match sub.binary_search_by_key(&queue, |(q, _)| *q) {
        Ok(i) => {
            let have = &mut sub[i].1;
            if !Arc::ptr_eq(have, footprint) && !covers(have, footprint) {
                if covers(footprint, have) {
                    *have = footprint.clone();
                } else {
                    Arc::make_mut(have).extend(footprint);
                }
            }
        }
        Err(i) => sub.insert(i, (queue, footprint.clone())),
    }
}

/// Whether `a` already notes every access of `b`, as strongly (joining it changes nothing).
fn covers(a: &Footprint, b: &Footprint) -> bool {
    if b.global && !a.global {
        return false;
    }
    let have = a.accesses();
    b.accesses().iter().all(|(id, acc)| {
        have.binary_search_by_key(id, |(i, _)| *i)
            .is_ok_and(|i| have[i].1.join(*acc) == have[i].1)
    })
}

fn merge_subtrees(into: &mut Subtree, from: &Subtree) {
    if into.is_empty() {
        into.extend(from.iter().cloned());
        return;
    }
    for (q, f) in from {
        add_to_subtree(into, *q, f);
    }
}

/// A state explored: its summary, and for the reduction, the sleep set it was explored with
/// and the footprints of its subtree.
struct Explored {
    summary: Arc<Summary>,
    sleep: Vec<Queue>,
    subtree: Arc<Subtree>,
}

struct Search<'a> {
    options: &'a ExploreOptions,
    partial_order: bool,
    memo: HashMap<u128, Explored>,
    memo_bytes: usize,
    outcomes: Outcomes,
    states: u64,
    merged: u64,
    units: u64,
    leaves_run: u64,
    budget: Budget<'a>,
    progress: &'a Progress,
    // The schedule being run (the reduction only).
    events: Vec<Event>,
    frames: Vec<Frame>,
}

/// What the search of a state (or of the rest of a schedule) found.
struct Visit {
    summary: Arc<Summary>,
    subtree: Arc<Subtree>,
}

pub(super) fn explore(
    file: &ScenarioFile,
    subtest: &Subtest,
    options: &ExploreOptions,
    progress: &Progress,
) -> Exploration {
    let run_options = RunOptions {
        profile: options.profile.clone(),
        budgets: options.budgets,
        ..RunOptions::default()
    };
    let budget = Budget::new(options, progress);
    let mut run = SubtestRun::new(file, subtest, &run_options);
    run.offer_every_choice();
    run.set_interrupt(budget.interrupt());
    if options.invariants {
        run.check_after_every_unit(invariants::check_all);
    }
    let partial_order = options.reduce && options.partial_order;
    if partial_order {
        run.record_footprints();
    }
    let mut search = Search {
        options,
        partial_order,
        memo: HashMap::new(),
        memo_bytes: 0,
        outcomes: Outcomes::default(),
        states: 0,
        merged: 0,
        units: 0,
        leaves_run: 0,
        budget,
        progress,
        events: Vec::new(),
        frames: Vec::new(),
    };
    let visit = search.visit(run, Vec::new(), Vec::new());
    let reached: Vec<Reached> = visit
        .summary
        .iter()
        .map(|(id, r)| Reached::of_path(*id, r.count, &r.best))
        .collect();
    let stored = search.memo_bytes + search.outcomes.bytes;
    let distinct = search.states.max(search.memo.len() as u64);
    // What was explored is no longer needed: its memory goes to the report.
    drop(std::mem::take(&mut search.memo));
    let report = Found {
        file,
        subtest,
        options,
        outcomes: std::mem::take(&mut search.outcomes),
        reached,
    }
    .report();
    Exploration {
        states: search.states,
        merged: search.merged,
        units: search.units,
        leaves_run: search.leaves_run,
        bytes_per_state: (stored as u64).checked_div(distinct).unwrap_or(0),
        complete: search.budget.stopped.is_none(),
        stopped_by: search.budget.stopped.clone(),
        ..report
    }
}

impl Search<'_> {
    /// Runs the subtest on to its next choice point (or its end) and explores from there.
    /// `sleep`: the units asleep; `guide`: the orders to follow first (the reduction only).
    fn visit(
        &mut self,
        mut run: SubtestRun,
        mut sleep: Vec<(Queue, Arc<Footprint>)>,
        mut guide: Guide,
    ) -> Visit {
        let before = run.world.units_run();
        let next = run.advance();
        self.units += run.world.units_run() - before;
        if self.budget.stopped_inside(&run) {
            return Visit {
                summary: Arc::new(Summary::default()),
                subtree: Arc::new(Subtree::new()),
            };
        }
        let mut segment = Subtree::new();
        if self.partial_order {
            let everything = Arc::new(Footprint::everything());
            for mut e in run.take_events() {
                let fp = Arc::new(std::mem::take(&mut e.footprint));
                let (enabled, disabled) = runnability_changes(&e);
                sleep.retain(|s| stays_asleep(s, &fp, &disabled));
                if let Some(c) = &e.unit {
                    add_to_subtree(&mut segment, queue_of(c), &fp);
                    follow(&mut guide, queue_of(c), &enabled);
                }
                // The units a harness action interrupts are raced as if they came next, with
                // every footprint: so are they when a later path meets this state.
                for q in self.push_event(&e, fp, None) {
                    add_to_subtree(&mut segment, q, &everything);
                }
            }
        }
        let candidates = match next {
            Next::Done if self.schedules_spent() => {
                // Another schedule is left to run, and the budget has none (a search whose
                // last schedule that was is complete: the candidates left may all merge into
                // states already explored).
                self.budget.stopped = Some("--max-schedules".into());
                return Visit {
                    summary: Arc::new(Summary::default()),
                    subtree: Arc::new(segment),
                };
            }
            Next::Done => {
                return Visit {
                    summary: Arc::new(self.leaf(run)),
                    subtree: Arc::new(segment),
                }
            }
            Next::Choice(c) => c,
        };
        let visit = self.choose(run, candidates, sleep, guide);
        if segment.is_empty() {
            return visit;
        }
        merge_subtrees(&mut segment, &visit.subtree);
        Visit {
            summary: visit.summary,
            subtree: Arc::new(segment),
        }
    }

    /// Explores a choice point.
    fn choose(
        &mut self,
        run: SubtestRun,
        candidates: Vec<Candidate>,
        sleep: Vec<(Queue, Arc<Footprint>)>,
        guide: Guide,
    ) -> Visit {
        let queues: Vec<Queue> = candidates.iter().map(queue_of).collect();
        let key = if self.options.reduce {
            let key = run.state_hash();
            if let Some(e) = self.memo.get(&key) {
                let asleep = |q: &Queue| sleep.iter().any(|(s, _)| s == q);
                if !self.partial_order || e.sleep.iter().all(asleep) {
                    self.merged += 1;
                    let (summary, subtree) = (e.summary.clone(), e.subtree.clone());
                    if self.partial_order {
                        for (q, f) in subtree.iter() {
                            let front = front_seq(&run, *q);
                            self.races(*q, front, f);
                        }
                    }
                    return Visit { summary, subtree };
                }
            }
            Some(key)
        } else {
            None
        };
        self.states += 1;
        self.progress.states.fetch_add(1, Ordering::Relaxed);
        if self.states.is_multiple_of(256) {
            self.budget.check(self.leaves_run);
        }
        let n = candidates.len();
        let mut summary: BTreeMap<u32, Reach> = BTreeMap::new();
        let mut subtree = Subtree::new();
        let frame = self.frames.len();
        let asleep_at_start: Vec<bool> = queues
            .iter()
            .map(|q| sleep.iter().any(|(s, _)| s == q))
            .collect();
        let mut kept = Vec::new();
        let backtrack = if self.partial_order {
            // The next unit of each order to follow, if it can run here and is awake (an
            // order whose next unit sleeps is one already explored); else the first
            // candidate awake. The races found below add the others needed.
            let mut b = vec![false; n];
            for order in guide {
                let Some(j) = order
                    .first()
                    .and_then(|s| queues.iter().position(|c| *c == s.queue))
                    .filter(|j| !asleep_at_start[*j])
                else {
                    continue;
                };
                b[j] = true;
                kept.push((j, order));
            }
            if !b.contains(&true) {
                if let Some(i) = asleep_at_start.iter().position(|a| !a) {
                    b[i] = true;
                }
            }
            b
        } else {
            vec![true; n]
        };
        self.frames.push(Frame {
            queues: queues.clone(),
            seqs: candidates.iter().map(|c| c.seq).collect(),
            backtrack,
            done: vec![false; n],
            tails: Vec::new(),
            kept: HashMap::new(),
        });
        for (j, order) in kept {
            self.frames[frame].keep(j, order);
        }
        let mut explored: Vec<(Queue, Arc<Footprint>)> = Vec::new();
        let mut last = Some(run);
        let events_at = self.events.len();
        loop {
            if self.budget.stopped.is_some() {
                break;
            }
            let Some(i) = (0..n).find(|i| {
                let f = &self.frames[frame];
                f.backtrack[*i] && !f.done[*i] && !asleep_at_start[*i]
            }) else {
                break;
            };
            self.frames[frame].done[i] = true;
            // The last candidate takes the run itself; the others a copy. (Under the
            // reduction a race found later may still ask for any candidate not explored
            // yet, so the run is kept while one is left.)
            let more = (0..n).any(|j| !asleep_at_start[j] && !self.frames[frame].done[j]);
            let mut child = match (more, last.as_ref()) {
                (true, Some(r)) => r.clone(),
                _ => match last.take() {
                    Some(r) => r,
                    None => break,
                },
            };
            let before = child.world.units_run();
            child.take(&candidates, Some(&mut Take(i)));
            self.units += child.world.units_run() - before;
            let mut child_sleep = Vec::new();
            let mut child_guide: Guide = self.frames[frame]
                .tails
                .iter()
                .filter(|(j, _)| *j == i)
                .map(|(_, order)| order.clone())
                .collect();
            if self.partial_order {
                let mut events = child.take_events().into_iter();
                let mut first = events.next().unwrap_or_else(|| UnitEvent {
                    unit: Some(candidates[i]),
                    footprint: Footprint::everything(),
                    seqs: (0, 0),
                    runnable: (candidates.clone(), Vec::new()),
                });
                let fp = Arc::new(std::mem::take(&mut first.footprint));
                let (enabled, disabled) = runnability_changes(&first);
                follow(&mut child_guide, queues[i], &enabled);
                add_to_subtree(&mut subtree, queues[i], &fp);
                child_sleep = sleep
                    .iter()
                    .chain(explored.iter())
                    .filter(|s| stays_asleep(s, &fp, &disabled))
                    .cloned()
                    .collect();
                self.push_event(&first, fp.clone(), Some(frame));
                explored.push((queues[i], fp));
                // Whatever else the unit's step ran (none: the runner returns right after it).
                for mut e in events {
                    let f = Arc::new(std::mem::take(&mut e.footprint));
                    let (enabled, disabled) = runnability_changes(&e);
                    child_sleep.retain(|s| stays_asleep(s, &f, &disabled));
                    if let Some(c) = &e.unit {
                        follow(&mut child_guide, queue_of(c), &enabled);
                    }
                    self.push_event(&e, f, None);
                }
            }
            let sub = self.visit(child, child_sleep, child_guide);
            self.events.truncate(events_at);
            add_child(&mut summary, i as u32, &sub.summary);
            if self.partial_order {
                merge_subtrees(&mut subtree, &sub.subtree);
            }
            if last.is_none() {
                break;
            }
        }
        self.frames.pop();
        let summary = Arc::new(summary.into_iter().collect::<Summary>());
        let subtree = Arc::new(subtree);
        if let (Some(key), None) = (key, &self.budget.stopped) {
            let sleep: Vec<Queue> = sleep.iter().map(|(q, _)| *q).collect();
            self.memo_bytes += 16
                + 48
                + summary.len() * std::mem::size_of::<(u32, Reach)>()
                + sleep.len() * std::mem::size_of::<Queue>()
                + if self.partial_order {
                    // A footprint shared with other subtrees is counted in shares.
                    subtree
                        .iter()
                        .map(|(_, f)| {
                            std::mem::size_of::<(Queue, Arc<Footprint>)>()
                                + f.bytes() / Arc::strong_count(f)
                        })
                        .sum::<usize>()
                } else {
                    0
                };
            self.memo.insert(
                key,
                Explored {
                    summary: summary.clone(),
                    sleep,
                    subtree: subtree.clone(),
                },
            );
        }
        Visit { summary, subtree }
    }

    /// Adds a unit (or harness action) to the schedule being run, and finds its races: with
    /// the units before it, and with each unit it disabled. For a harness action, returns the
    /// queues of the units it interrupted.
    fn push_event(
        &mut self,
        event: &UnitEvent,
        footprint: Arc<Footprint>,
        frame: Option<usize>,
    ) -> Vec<Queue> {
        let unit = event.unit.as_ref();
        let queue = unit.map(queue_of);
        let mut interrupted = Vec::new();
        let before = match queue {
            Some(q) => self.races(q, unit.map(|c| c.seq), &footprint),
            // The harness acts on everything: every unit so far happens before it. Units that
            // could run when it acted (it ended a `step`, or a block fired) do not run before
            // it in this schedule, whichever they are: each is raced as if it ran next and
            // touched everything, so that the schedules where it ran in another's place are
            // explored too.
            None => {
                let waiting = self
                    .events
                    .last()
                    .filter(|e| e.queue.is_some())
                    .map(|e| e.runnable_after.clone())
                    .unwrap_or_default();
                let everything = Footprint::everything();
                for (q, seq) in waiting {
                    self.races(q, Some(seq), &everything);
                    interrupted.push(q);
                }
                let mut all = Bits::default();
                for i in 0..self.events.len() {
                    all.insert(i);
                }
                all
            }
        };
        let (enabled, disabled) = runnability_changes(event);
        let index = self.events.len();
        self.events.push(Event {
            queue,
            seqs: event.seqs,
            footprint,
            frame,
            before,
            enabled,
            disabled: disabled.clone(),
            runnable_after: if queue.is_some() {
                ids(&event.runnable.1)
            } else {
                Vec::new()
            },
        });
        // A unit it disabled is dependent with it: the choice point before it is to try the
        // disabled unit first (it was runnable there). A unit run without a choice was the only
        // one runnable, so it disabled none.
        for (q, seq) in disabled {
            self.reverse(index, q, Some(seq), &Bits::default());
        }
        interrupted
    }

    /// The races of a unit of `queue` with `footprint` that comes next in the schedule (or,
    /// for the subtree of a merged state, could come: `seq` is then the sequence number of
    /// the queue's first unit there, if it has one). Each earlier unit dependent on it, not
    /// ordered before it through another unit, and not the one that made it runnable, is
    /// a race; the choice point before that unit is to try the unit's queue first (see
    /// `reverse`). Returns the units that happen before it.
    fn races(&mut self, queue: Queue, seq: Option<u64>, footprint: &Footprint) -> Bits {
        let mut covered = Bits::default();
        let mut races: Vec<usize> = Vec::new();
        let unit = seq.map(|s| (queue, s));
        for i in (0..self.events.len()).rev() {
            if covered.contains(i) {
                continue;
            }
            let e = &self.events[i];
            // Enabling and disabling order two units whatever their footprints say.
            let enabled_it = unit.is_some_and(|u| e.enabled.contains(&u));
            let disabled_it = unit.is_some_and(|u| e.disabled.contains(&u));
            if !(enabled_it || disabled_it || e.footprint.conflicts(footprint)) {
                continue;
            }
            // A unit the earlier one made runnable cannot run before it.
            let made_by_it = enabled_it || seq.is_some_and(|s| e.seqs.0 < s && s <= e.seqs.1);
            if e.frame.is_some() && !made_by_it && e.queue != Some(queue) {
                races.push(i);
            }
            covered.insert(i);
            covered.union(&self.events[i].before);
        }
        for i in races {
            self.reverse(i, queue, seq, &covered);
        }
        covered
    }

    /// Makes the choice point before unit `i` try a unit of `queue` first: that unit, if it
    /// could run there and begin the reversed order, or else every candidate (Flanagan and
    /// Godefroid's rule) and the reversed order itself. `racer_after`: the units the racer
    /// happens after.
    ///
    /// The racer must be the unit itself, not the one in front of it in its queue (two tasks
    /// of one queue: trying the queue there runs the first, and nothing asks for the rest,
    /// `a_racer_queued_behind_another_task_of_its_queue_is_reached_through_the_one_in_front`),
    /// and it must not happen after a unit the reversed order puts before it: it cannot run
    /// first then, and where it sleeps (explored already from there) trying it does nothing,
    /// while the schedules that run those units first and then it were never explored
    /// (`a_racer_that_happens_after_a_unit_of_the_reversed_order_does_not_begin_it`). That is
    /// the source-set rule's condition (Abdulla et al.): the unit tried must be an initial of
    /// the reversed order.
    ///
    /// Source sets would be content with any first unit of the reversed order already to be
    /// tried there. That is not enough here, because what a unit reads depends on the state
    /// it runs in: the observation's first step, run while every frame is ready, reads every
    /// document's tools, and run after a frame's wait, only the frames' tools-ready. In the
    /// schedule where it runs first and sees all ready, it races a registration in one frame
    /// and a wait in another; the first unit of the registration's reversal (an earlier task
    /// of the waiting frame, independent of both) was already to be tried for the wait's, and
    /// below it the observation sleeps until the wait runs, then reads no frame's tools. The
    /// order "the registration, the observation, then the wait" was never run
    /// (`a_registration_before_an_observation_that_finds_every_frame_ready_is_kept`).
    ///
    /// When the queue could not run there, every candidate is not enough either: below the
    /// first unit of the reversed order, the search may choose a unit that changes what a
    /// sleeping one would do (the observation, asleep after a frame's task that is the
    /// reversal's first unit, wakes after the other frame's wait and then reads no frame's
    /// tools), and no race of that path asks for the rest of the reversed order
    /// (`an_observation_that_sees_a_late_timers_registration_before_a_wait_is_kept`). So the
    /// reversed order itself is kept (Abdulla, Aronis, Jonsson and Sagonas's wakeup sequences,
    /// POPL 2014): the units after `i` that do not happen after it, then the racer, in the
    /// order they ran; the path below the first of them follows the rest before it chooses
    /// freely.
    fn reverse(&mut self, i: usize, queue: Queue, seq: Option<u64>, racer_after: &Bits) {
        let Some(f) = self.events[i].frame else {
            return;
        };
        // The racer is tried first only if it can begin the reversed order: it is a candidate
        // there (the unit itself, not one in front of it in its queue: a task queued behind
        // another cannot run first), and none of the units the order puts before it happens
        // before it (else it cannot run before them, and a racer asleep there would leave the
        // order unexplored). Otherwise the order is kept, below.
        let frame = &self.frames[f];
        let first_in_order = !(i + 1..self.events.len())
            .any(|k| racer_after.contains(k) && !self.events[k].before.contains(i));
        if let Some(j) = (0..frame.queues.len())
            .find(|&j| frame.queues[j] == queue && seq.is_none_or(|s| frame.seqs[j] == s))
            .filter(|_| first_in_order)
        {
            self.frames[f].backtrack[j] = true;
            return;
        }
        self.frames[f].backtrack.iter_mut().for_each(|b| *b = true);
        let later = &self.events[i + 1..];
        let Some(first) = later.iter().position(|e| !e.before.contains(i)) else {
            return;
        };
        let Some(j) = later[first]
            .queue
            .and_then(|q| self.frames[f].queues.iter().position(|c| *c == q))
            .filter(|j| !self.frames[f].done[*j])
        else {
            return;
        };
        let mut order: Order = later[first..]
            .iter()
            .filter(|e| !e.before.contains(i))
            .filter_map(|e| {
                e.queue.map(|queue| Step {
                    queue,
                    made: e.enabled.iter().map(|(q, _)| *q).collect(),
                })
            })
            .collect();
        order.push(Step {
            queue,
            made: Vec::new(),
        });
        self.frames[f].keep(j, order);
    }

    /// Whether `--max-schedules` schedules have run: the search stops before the next one
    /// (a search whose last schedule that was is complete).
    fn schedules_spent(&self) -> bool {
        self.options
            .max_schedules
            .is_some_and(|max| self.leaves_run >= max)
    }

    fn leaf(&mut self, run: SubtestRun) -> Summary {
        self.leaves_run += 1;
        self.progress.schedules.fetch_add(1, Ordering::Relaxed);
        let id = self.outcomes.id_of(run.finish());
        vec![(
            id,
            Reach {
                count: 1,
                best: None,
            },
        )]
    }
}
