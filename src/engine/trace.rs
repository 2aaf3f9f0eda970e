//! The step trace: which algorithm steps ran, in which unit of work, for which document, and
//! the coverage a run reached. Algorithms and their steps are declared where they are
//! implemented (`crate::host::spec`, `crate::webmcp::algorithms`); every layer records a step
//! through the host's `record_step`, which the world implements here.

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
    Harness { unit: u64, time: u64, what: String },
    /// A `log` statement of the scenario's script.
    Log { unit: u64, time: u64, text: String },
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
