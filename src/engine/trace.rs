//! The step trace: which algorithm steps ran, in which unit of work, for which document, and
//! the coverage a run reached. Algorithms and their steps are declared where they are
//! implemented (`crate::host::spec`, `crate::webmcp::algorithms`); every layer records a step
//! through the host's `record_step`, which the world implements here.
//!
//! For a timeline of the run, each unit also records where it ran ([`Place`]: its event loop
//! or parallel queue, its task source, and which earlier unit made it runnable), and the trace
//! holds [`Mark`]s: what changed between entries (a document's tools-ready, a promise settled,
//! a wait or an observation began or ended, an expectation was checked). Neither is part of
//! the trace's text: the human and JSON-lines traces print the entries they always did.

use std::fmt;

use serde::Serialize;

/// A spec assertion that failed, or a step the spec's text cannot carry out in the state the
/// run reached: reported, never a panic.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Finding {
    pub algorithm: &'static str,
    pub anchor: &'static str,
    pub step: &'static str,
    pub document: Option<String>,
    pub message: String,
    /// Virtual time, in milliseconds.
    pub time: u64,
    /// The unit of work it happened in.
    pub unit: u64,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} step {}", self.anchor, self.step)?;
        if let Some(d) = &self.document {
            write!(f, " ({d})")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// One line of the trace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum TraceEntry {
    /// A unit of work begins.
    Unit {
        unit: u64,
        time: u64,
        what: String,
        /// The choice point that picked it, when there was a choice.
        #[serde(skip_serializing_if = "Option::is_none")]
        choice: Option<ChoiceNote>,
        /// Where it ran, for a timeline (not part of the trace's text).
        #[serde(skip)]
        place: Place,
    },
    /// An algorithm step ran.
    Step {
        unit: u64,
        time: u64,
        algorithm: &'static str,
        anchor: &'static str,
        step: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        document: Option<String>,
        #[serde(skip_serializing_if = "String::is_empty")]
        detail: String,
    },
    /// A spec assertion failed or a step could not be carried out.
    Finding { unit: u64, finding: Finding },
    /// A scenario action done by the harness between units.
    Harness {
        unit: u64,
        time: u64,
        what: String,
        /// The last sequence number given before the action: what the action makes runnable
        /// comes after it (not part of the trace's text).
        #[serde(skip)]
        seq: u64,
        /// Done by the script of the unit that is running (`remove child` in a task), not
        /// between units (not part of the trace's text).
        #[serde(skip)]
        within: bool,
    },
    /// A `log` statement of the scenario's script.
    Log { unit: u64, time: u64, text: String },
    /// What changed since the entry before, for a timeline; not printed in the human or
    /// JSON-lines trace.
    Mark { unit: u64, time: u64, mark: Mark },
}

impl TraceEntry {
    /// Whether the entry is a line of the trace's text (human and JSON lines); a [`Mark`] is
    /// for timelines only.
    pub fn is_printed(&self) -> bool {
        !matches!(self, TraceEntry::Mark { .. })
    }
}

/// Which lane of a timeline a unit of work runs on.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(tag = "lane", content = "label", rename_all = "kebab-case")]
pub enum Lane {
    /// The scenario's own actions, between units.
    #[default]
    Harness,
    /// An event loop (its label names the traversable and the agent's origin or site).
    EventLoop(String),
    /// A parallel queue (the AI agent queue, or the one an "in parallel" started).
    ParallelQueue(String),
    /// Timers expiring.
    Timers,
}

impl Lane {
    /// The lane's name, as a timeline heads it.
    pub fn title(&self) -> String {
        match self {
            Lane::Harness => "harness".into(),
            Lane::EventLoop(l) => format!("event loop {l}"),
            Lane::ParallelQueue(l) => format!("parallel queue: {l}"),
            Lane::Timers => "timers".into(),
        }
    }
}

/// What kind of unit of work it was.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum UnitKind {
    /// A task, with the name of its task source.
    Task(&'static str),
    #[default]
    Microtask,
    /// Steps of a parallel queue.
    Parallel,
    Timer,
}

impl UnitKind {
    /// A short label: `task (webmcp)`, `microtask`, `in parallel`, `timer`.
    pub fn label(&self) -> String {
        match self {
            UnitKind::Task(source) => format!("task ({source})"),
            UnitKind::Microtask => "microtask".into(),
            UnitKind::Parallel => "in parallel".into(),
            UnitKind::Timer => "timer".into(),
        }
    }
}

/// Where a unit of work ran, and what made it runnable.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Place {
    pub lane: Lane,
    pub kind: UnitKind,
    /// The sequence number it became runnable with: the entry (unit or harness action) that
    /// was running when that number was given is the one that queued it, set its timer or
    /// woke its queue.
    pub queued: u64,
    /// The last sequence number given before it began.
    pub seq: u64,
}

/// A change a timeline shows, noticed between two entries of the trace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "mark", rename_all = "kebab-case")]
pub enum Mark {
    /// A document was created, on an event loop, with its tools-ready.
    Document {
        document: String,
        event_loop: String,
        ready: bool,
        active: bool,
    },
    /// A document's tools-ready changed.
    ToolsReady { document: String, ready: bool },
    /// A document became fully active, or stopped being so (removed, in the bfcache,
    /// navigated away from, destroyed).
    FullyActive { document: String, active: bool },
    /// A promise settled.
    Settled {
        promise: String,
        realm: String,
        fulfilled: bool,
    },
    /// A caller began to wait for tools to be ready.
    WaitBegan {
        wait: u64,
        /// The captured active document.
        document: String,
        caller: String,
    },
    /// A wait for tools to be ready ended.
    WaitEnded { wait: u64, outcome: String },
    /// The browser agent was asked for an observation.
    ObservationAsked { observation: String },
    /// The AI agent queue began an observation.
    ObservationBegan { observation: String },
    /// An observation ended (its wait's outcome, and whether it made an observation).
    ObservationEnded {
        observation: String,
        outcome: String,
        waited_ms: u64,
        observed: bool,
    },
    /// An expectation was checked: the index of its result among the subtest's.
    Expectation {
        index: usize,
        line: u32,
        text: String,
        passed: bool,
    },
}

impl fmt::Display for Mark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mark::Document {
                document,
                event_loop,
                ready,
                ..
            } => write!(
                f,
                "document {document} on event loop {event_loop}, tools-ready {ready}"
            ),
            Mark::ToolsReady { document, ready } => {
                write!(f, "tools-ready of {document} is now {ready}")
            }
            Mark::FullyActive { document, active } => write!(
                f,
                "{document} is {}fully active",
                if *active { "" } else { "no longer " }
            ),
            Mark::Settled {
                promise,
                realm,
                fulfilled,
            } => write!(
                f,
                "{promise} (realm {realm}) {}",
                if *fulfilled { "fulfilled" } else { "rejected" }
            ),
            Mark::WaitBegan {
                document, caller, ..
            } => write!(f, "{caller} waits for tools to be ready ({document})"),
            Mark::WaitEnded { outcome, .. } => write!(f, "the wait ended: {outcome}"),
            Mark::ObservationAsked { observation } => {
                write!(f, "observation {observation} asked for")
            }
            Mark::ObservationBegan { observation } => {
                write!(f, "observation {observation} begins")
            }
            Mark::ObservationEnded {
                observation,
                outcome,
                waited_ms,
                observed,
            } => write!(
                f,
                "observation {observation}: {outcome} after {waited_ms} ms{}",
                if *observed {
                    ""
                } else {
                    ", no observation made"
                }
            ),
            Mark::Expectation {
                line, text, passed, ..
            } => write!(
                f,
                "line {line}: {text}: {}",
                if *passed { "holds" } else { "FAILS" }
            ),
        }
    }
}

/// How a unit was chosen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChoiceNote {
    pub point: u64,
    pub candidates: usize,
    pub taken: usize,
}

impl fmt::Display for TraceEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceEntry::Unit {
                unit,
                time,
                what,
                choice,
                ..
            } => {
                write!(f, "[{time:>6}ms] #{unit:<4} {what}")?;
                if let Some(c) = choice {
                    write!(
                        f,
                        "   (choice point {}: {} of {} runnable)",
                        c.point,
                        c.taken + 1,
                        c.candidates
                    )?;
                }
                Ok(())
            }
            TraceEntry::Step {
                algorithm,
                step,
                document,
                detail,
                ..
            } => {
                write!(f, "              {algorithm} step {step}")?;
                if let Some(d) = document {
                    write!(f, " [{d}]")?;
                }
                if !detail.is_empty() {
                    write!(f, ": {detail}")?;
                }
                Ok(())
            }
            TraceEntry::Finding { finding, .. } => write!(f, "              FINDING {finding}"),
            TraceEntry::Harness { time, what, .. } => {
                write!(f, "[{time:>6}ms]       harness: {what}")
            }
            TraceEntry::Log { text, .. } => write!(f, "              log: {text}"),
            TraceEntry::Mark { mark, .. } => write!(f, "              ({mark})"),
        }
    }
}

/// The set of (algorithm, step) pairs a run reached: one bit per step.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Coverage {
    bits: Vec<u64>,
}

impl Coverage {
    pub fn mark(&mut self, algorithm: usize, step: usize) {
        if self.bits.len() <= algorithm {
            self.bits.resize(algorithm + 1, 0);
        }
        self.bits[algorithm] |= 1 << step;
    }

    pub fn reached(&self, algorithm: usize, step: usize) -> bool {
        self.bits
            .get(algorithm)
            .is_some_and(|b| b & (1 << step) != 0)
    }

    pub fn merge(&mut self, other: &Coverage) {
        if self.bits.len() < other.bits.len() {
            self.bits.resize(other.bits.len(), 0);
        }
        for (mine, theirs) in self.bits.iter_mut().zip(&other.bits) {
            *mine |= theirs;
        }
    }
}

/// Whether the trace keeps its entries; coverage and findings are always kept.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub enabled: bool,
    pub entries: Vec<TraceEntry>,
}
