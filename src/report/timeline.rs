//! A subtest's run laid out in time, for the HTML timeline and the Markdown report: a lane per
//! event loop, per parallel queue, for timers and for the harness; each unit of work a box in
//! a column of its own (its slot), in the order the units ran, each slot at the virtual time
//! it ran; each document's tools-ready over the slots; observations and waits from start to
//! outcome; promises settling; expectations where they were checked.
//!
//! Built from the trace alone: its units (with where each ran and what made it runnable), its
//! steps, and its marks (see `crate::engine::trace`).

use std::collections::BTreeMap;

use crate::engine::trace::{ChoiceNote, Lane, Mark, TraceEntry};
use crate::scenario::SubtestResult;

/// What a box holds besides its steps, in the order it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// An action of the harness (between units), or of the unit's script (`remove child`).
    Action(String),
    /// An expectation checked: its index in [`Timeline::checks`].
    Check(usize),
}

/// A box: a unit of work, or the harness's actions between two units.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unit {
    pub slot: usize,
    pub lane: usize,
    /// The unit's number in the run (`#3`); none for the harness.
    pub number: Option<u64>,
    /// `task (webmcp)`, `microtask`, `in parallel`, `timer`, `harness`.
    pub kind: String,
    /// What the unit was (the trace's description), or the harness's actions.
    pub what: String,
    /// The algorithm steps it ran, one line per algorithm in the order they ran
    /// (`registerTool() steps 1-21`).
    pub steps: Vec<String>,
    /// The trace's lines for it.
    pub lines: Vec<String>,
    /// The box that made it runnable: queued it, set its timer, or woke its queue.
    pub cause: Option<usize>,
    pub choice: Option<ChoiceNote>,
    /// It had a finding (a failed assertion of the text, a step that cannot be carried out).
    pub finding: bool,
    /// The actions and checks in it, in order.
    pub items: Vec<Item>,
}

/// A stretch of slots over which a document's tools-ready (and whether it was fully active)
/// stayed the same.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    pub from: usize,
    /// The last slot it covers.
    pub to: usize,
    pub ready: bool,
    pub active: bool,
}

/// A document and its tools-ready over time, under the lane of its event loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Document {
    pub name: String,
    pub lane: usize,
    pub segments: Vec<Segment>,
}

/// An observation, or a caller's wait for tools to be ready, from its start to its outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    pub lane: usize,
    /// `observation o`, `wait for tools to be ready (top)`.
    pub label: String,
    /// When it was asked for, and when it began (an observation waits for its queue).
    pub asked: usize,
    pub from: usize,
    /// The slot it ended in; none when the run ended first.
    pub to: Option<usize>,
    /// `ready`, `timed-out`, `navigated`, `destroyed`, with how long it waited.
    pub outcome: Option<String>,
    pub observation: bool,
}

/// A promise settling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settle {
    pub slot: usize,
    pub lane: usize,
    pub promise: String,
    pub realm: String,
    pub fulfilled: bool,
}

/// An expectation, where it was checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    pub slot: usize,
    pub line: u32,
    pub text: String,
    pub passed: bool,
    pub sometimes: bool,
    pub expected: String,
    pub actual: String,
}

/// A subtest's run, laid out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Timeline {
    pub lanes: Vec<Lane>,
    /// The virtual time of each slot, in milliseconds.
    pub slots: Vec<u64>,
    pub units: Vec<Unit>,
    pub documents: Vec<Document>,
    pub spans: Vec<Span>,
    pub settles: Vec<Settle>,
    pub checks: Vec<Check>,
    /// Findings, each with the slot it was reported in.
    pub findings: Vec<(usize, String)>,
}

/// One line per algorithm, in the order the steps ran: `registerTool() steps 1-21`.
fn summarize_steps(steps: &[(&str, &str)]) -> Vec<String> {
    let mut out: Vec<(String, Vec<&str>)> = Vec::new();
    for &(alg, step) in steps {
        match out.last_mut() {
            Some((a, s)) if a == alg => s.push(step),
            _ => out.push((alg.to_string(), vec![step])),
        }
    }
    out.into_iter()
        .map(|(alg, steps)| {
            // "the unloading document cleanup steps 2.1-2.3", not "... steps steps".
            let (one, many) = if alg.ends_with(" steps") {
                ("", "")
            } else {
                (" step", " steps")
            };
            match steps.as_slice() {
                [only] => format!("{alg}{one} {only}"),
                [first, .., last] => format!("{alg}{many} {first}-{last}"),
                [] => alg,
            }
        })
        .collect()
}

struct Builder {
    t: Timeline,
    lane_ids: BTreeMap<Lane, usize>,
    /// For each box, the last sequence number given before it began, in order.
    seqs: Vec<(u64, usize)>,
    /// The steps of the box being filled.
    steps: Vec<(&'static str, &'static str)>,
    current: Option<usize>,
    current_is_harness: bool,
    time: u64,
    /// Each document's state as last seen, by name (index into t.documents).
    doc_ids: BTreeMap<String, usize>,
    /// Open spans: observations by label, waits by id.
    observations: BTreeMap<String, usize>,
    waits: BTreeMap<u64, usize>,
}

impl Builder {
    fn lane(&mut self, lane: &Lane) -> usize {
        if let Some(i) = self.lane_ids.get(lane) {
            return *i;
        }
        self.t.lanes.push(lane.clone());
        let i = self.t.lanes.len() - 1;
        self.lane_ids.insert(lane.clone(), i);
        i
    }

    fn end_box(&mut self) {
        if let Some(b) = self.current {
            let steps = std::mem::take(&mut self.steps);
            self.t.units[b].steps = summarize_steps(&steps);
        }
    }

    fn new_slot(&mut self, time: u64) -> usize {
        self.t.slots.push(time);
        self.t.slots.len() - 1
    }

    /// The box the harness's next action goes in: the current one if it is the harness's.
    fn harness_box(&mut self, time: u64) -> usize {
        if self.current_is_harness {
            if let Some(b) = self.current {
                return b;
            }
        }
        self.end_box();
        let slot = self.new_slot(time);
        let lane = self.lane(&Lane::Harness);
        self.t.units.push(Unit {
            slot,
            lane,
            number: None,
            kind: "harness".into(),
            what: String::new(),
            steps: Vec::new(),
            lines: Vec::new(),
            cause: None,
            choice: None,
            finding: false,
            items: Vec::new(),
        });
        let b = self.t.units.len() - 1;
        self.current = Some(b);
        self.current_is_harness = true;
        b
    }

    fn slot(&mut self) -> usize {
        match self.current {
            Some(b) => self.t.units[b].slot,
            None => {
                let time = self.time;
                let b = self.harness_box(time);
                self.t.units[b].slot
            }
        }
    }

    fn current_lane(&self) -> usize {
        self.current.map(|b| self.t.units[b].lane).unwrap_or(0)
    }

    fn cause_of(&self, queued: u64) -> Option<usize> {
        // The box that was running when `queued` was given: the last one that began with a
        // smaller sequence number.
        let i = self.seqs.partition_point(|(s, _)| *s < queued);
        i.checked_sub(1).map(|i| self.seqs[i].1)
    }

    fn push_line(&mut self, line: String) {
        if let Some(b) = self.current {
            self.t.units[b].lines.push(line);
        }
    }

    fn mark(&mut self, mark: &Mark, sub: &SubtestResult) {
        match mark {
            Mark::Document {
                document,
                event_loop,
                ready,
                active,
            } => {
                let slot = self.slot();
                let lane = self.lane(&Lane::EventLoop(event_loop.clone()));
                self.t.documents.push(Document {
                    name: document.clone(),
                    lane,
                    segments: vec![Segment {
                        from: slot,
                        to: slot,
                        ready: *ready,
                        active: *active,
                    }],
                });
                self.doc_ids
                    .insert(document.clone(), self.t.documents.len() - 1);
            }
            Mark::ToolsReady { document, ready } => {
                let slot = self.slot();
                self.change_document(document, slot, Some(*ready), None);
            }
            Mark::FullyActive { document, active } => {
                let slot = self.slot();
                self.change_document(document, slot, None, Some(*active));
            }
            Mark::Settled {
                promise,
                realm,
                fulfilled,
            } => {
                let slot = self.slot();
                let lane = self.current_lane();
                self.t.settles.push(Settle {
                    slot,
                    lane,
                    promise: promise.clone(),
                    realm: realm.clone(),
                    fulfilled: *fulfilled,
                });
            }
            Mark::WaitBegan {
                wait,
                document,
                caller,
            } => {
                let slot = self.slot();
                let lane = self.lane(&Lane::ParallelQueue(caller.clone()));
                self.t.spans.push(Span {
                    lane,
                    label: format!("wait for tools to be ready ({document})"),
                    asked: slot,
                    from: slot,
                    to: None,
                    outcome: None,
                    observation: false,
                });
                self.waits.insert(*wait, self.t.spans.len() - 1);
            }
            Mark::WaitEnded { wait, outcome } => {
                let slot = self.slot();
                let time = self.t.slots[slot];
                if let Some(&i) = self.waits.get(wait) {
                    let began = self.t.slots[self.t.spans[i].from];
                    self.t.spans[i].to = Some(slot);
                    self.t.spans[i].outcome =
                        Some(format!("{outcome} after {} ms", time.saturating_sub(began)));
                }
            }
            Mark::ObservationAsked { observation } => {
                let slot = self.slot();
                let lane = self.lane(&Lane::ParallelQueue("AI agent queue".into()));
                self.t.spans.push(Span {
                    lane,
                    label: format!("observation {observation}"),
                    asked: slot,
                    from: slot,
                    to: None,
                    outcome: None,
                    observation: true,
                });
                self.observations
                    .insert(observation.clone(), self.t.spans.len() - 1);
            }
            Mark::ObservationBegan { observation } => {
                let slot = self.slot();
                if let Some(&i) = self.observations.get(observation) {
                    self.t.spans[i].from = slot;
                }
            }
            Mark::ObservationEnded {
                observation,
                outcome,
                waited_ms,
                observed,
            } => {
                let slot = self.slot();
                if let Some(&i) = self.observations.get(observation) {
                    self.t.spans[i].to = Some(slot);
                    self.t.spans[i].outcome = Some(format!(
                        "{outcome} after {waited_ms} ms{}",
                        if *observed { "" } else { ": no observation" }
                    ));
                }
            }
            Mark::Expectation {
                index,
                line,
                text,
                passed,
            } => {
                let time = self.time;
                let b = self.harness_box(time);
                let slot = self.t.units[b].slot;
                let result = sub.expectations.get(*index);
                self.t.units[b].lines.push(format!(
                    "check line {line}: {text}: {}",
                    if *passed { "holds" } else { "FAILS" }
                ));
                self.t.units[b].items.push(Item::Check(self.t.checks.len()));
                self.t.checks.push(Check {
                    slot,
                    line: *line,
                    text: text.clone(),
                    passed: *passed,
                    sometimes: result.is_some_and(|r| r.sometimes),
                    expected: result.map(|r| r.expected.clone()).unwrap_or_default(),
                    actual: result.map(|r| r.actual.clone()).unwrap_or_default(),
                });
            }
        }
    }

    fn change_document(
        &mut self,
        name: &str,
        slot: usize,
        ready: Option<bool>,
        active: Option<bool>,
    ) {
        let Some(&d) = self.doc_ids.get(name) else {
            return;
        };
        let segments = &mut self.t.documents[d].segments;
        let Some(last) = segments.last().cloned() else {
            return;
        };
        let next = Segment {
            from: slot,
            to: slot,
            ready: ready.unwrap_or(last.ready),
            active: active.unwrap_or(last.active),
        };
        if last.from == slot {
            // Changed again in the slot it began: the slot shows where it ended up.
            if let Some(l) = segments.last_mut() {
                l.ready = next.ready;
                l.active = next.active;
            }
        } else {
            if let Some(l) = segments.last_mut() {
                l.to = slot - 1;
            }
            segments.push(next);
        }
    }
}

impl Timeline {
    /// Lays out a subtest's run (a run with the trace on: `RunOptions::trace`).
    pub fn of(sub: &SubtestResult) -> Timeline {
        let mut b = Builder {
            t: Timeline::default(),
            lane_ids: BTreeMap::new(),
            seqs: Vec::new(),
            steps: Vec::new(),
            current: None,
            current_is_harness: false,
            time: 0,
            doc_ids: BTreeMap::new(),
            observations: BTreeMap::new(),
            waits: BTreeMap::new(),
        };
        b.lane(&Lane::Harness);
        for e in &sub.trace {
            match e {
                TraceEntry::Unit {
                    unit,
                    time,
                    what,
                    choice,
                    place,
                } => {
                    b.end_box();
                    b.time = *time;
                    let slot = b.new_slot(*time);
                    let lane = b.lane(&place.lane);
                    let cause = b.cause_of(place.queued);
                    b.t.units.push(Unit {
                        slot,
                        lane,
                        number: Some(*unit),
                        kind: place.kind.label(),
                        what: what.clone(),
                        steps: Vec::new(),
                        lines: vec![e.to_string()],
                        cause,
                        choice: choice.clone(),
                        finding: false,
                        items: Vec::new(),
                    });
                    let i = b.t.units.len() - 1;
                    b.seqs.push((place.seq, i));
                    b.current = Some(i);
                    b.current_is_harness = false;
                }
                TraceEntry::Harness {
                    what, within: true, ..
                } if b.current.is_some() && !b.current_is_harness => {
                    if let Some(c) = b.current {
                        b.t.units[c].items.push(Item::Action(what.clone()));
                    }
                    b.push_line(e.to_string());
                }
                TraceEntry::Harness {
                    time, what, seq, ..
                } => {
                    b.time = *time;
                    let i = b.harness_box(*time);
                    let unit = &mut b.t.units[i];
                    if unit.what.is_empty() {
                        unit.what = what.clone();
                    } else {
                        unit.what = format!("{}; {what}", unit.what);
                    }
                    unit.lines.push(e.to_string());
                    unit.items.push(Item::Action(what.clone()));
                    if b.seqs.last().is_none_or(|(_, last)| *last != i) {
                        b.seqs.push((*seq, i));
                    }
                }
                TraceEntry::Step {
                    algorithm, step, ..
                } => {
                    b.steps.push((algorithm, step));
                    b.push_line(e.to_string());
                }
                TraceEntry::Finding { finding, .. } => {
                    let slot = b.slot();
                    if let Some(c) = b.current {
                        b.t.units[c].finding = true;
                    }
                    b.t.findings.push((slot, finding.to_string()));
                    b.push_line(e.to_string());
                }
                TraceEntry::Log { .. } => b.push_line(e.to_string()),
                TraceEntry::Mark { mark, .. } => b.mark(mark, sub),
            }
        }
        b.end_box();
        let last = b.t.slots.len().saturating_sub(1);
        for d in &mut b.t.documents {
            if let Some(s) = d.segments.last_mut() {
                s.to = last;
            }
        }
        b.t.order_lanes();
        b.t
    }

    /// Lanes in the order a reader looks for them: the harness, the event loops, the AI agent
    /// queue, the other parallel queues, timers; each group in the order it first appeared.
    fn order_lanes(&mut self) {
        let rank = |l: &Lane| match l {
            Lane::Harness => 0,
            Lane::EventLoop(_) => 1,
            Lane::ParallelQueue(q) if q == "AI agent queue" => 2,
            Lane::ParallelQueue(_) => 3,
            Lane::Timers => 4,
        };
        let mut order: Vec<usize> = (0..self.lanes.len()).collect();
        order.sort_by_key(|&i| (rank(&self.lanes[i]), i));
        let mut new_index = vec![0; self.lanes.len()];
        for (new, &old) in order.iter().enumerate() {
            new_index[old] = new;
        }
        self.lanes = order.iter().map(|&i| self.lanes[i].clone()).collect();
        for u in &mut self.units {
            u.lane = new_index[u.lane];
        }
        for d in &mut self.documents {
            d.lane = new_index[d.lane];
        }
        for s in &mut self.spans {
            s.lane = new_index[s.lane];
        }
        for s in &mut self.settles {
            s.lane = new_index[s.lane];
        }
    }

    /// A key for a unit that another profile's run can be matched with: its lane and what it
    /// was.
    pub fn unit_key(&self, u: &Unit) -> String {
        format!("{} | {}", self.lanes[u.lane].title(), u.what)
    }
}
