//! The step trace: which algorithm steps ran, in which unit of work, for which document, and
//! the coverage a run reached.
//!
//! Every algorithm the engine runs is an [`Algorithm`] constant listing its steps as the spec
//! numbers them. Code names a step with [`step!`](crate::step), which checks at compile time
//! that the step exists, so the list of steps and the code cannot drift apart.

use std::fmt;

use serde::Serialize;

/// Which specification an algorithm belongs to, for its anchor's address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Spec {
    WebMcp,
    /// Behaviour that WebMCP's IDL and WPT require but no algorithm text defines yet: the
    /// engine's own steps, each saying what it chose.
    WebMcpEngineDefined,
    Html,
    Dom,
    WebIdl,
    Ecma262,
    PermissionsPolicy,
}

impl Spec {
    pub fn base(self) -> &'static str {
        match self {
            Spec::WebMcp | Spec::WebMcpEngineDefined => {
                "https://webmachinelearning.github.io/webmcp/"
            }
            Spec::Html => "https://html.spec.whatwg.org/",
            Spec::Dom => "https://dom.spec.whatwg.org/",
            Spec::WebIdl => "https://webidl.spec.whatwg.org/",
            Spec::Ecma262 => "https://tc39.es/ecma262/",
            Spec::PermissionsPolicy => "https://w3c.github.io/webappsec-permissions-policy/",
        }
    }
}

/// An algorithm, its anchor, and its steps in the spec's numbering.
#[derive(Debug)]
pub struct Algorithm {
    /// Position in [`crate::ALGORITHMS`](crate::algorithms::ALGORITHMS).
    pub id: usize,
    pub spec: Spec,
    /// The anchor, without `#`.
    pub anchor: &'static str,
    pub name: &'static str,
    /// Step numbers, in document order (`"18.2.1"`).
    pub steps: &'static [&'static str],
}

impl Algorithm {
    /// Where the algorithm is written; an engine-defined one says so instead.
    pub fn url(&self) -> String {
        match self.spec {
            Spec::WebMcpEngineDefined => {
                format!("engine-defined, no spec text yet: #{}", self.anchor)
            }
            _ => format!("{}#{}", self.spec.base(), self.anchor),
        }
    }
}

/// The index of `step` in `alg.steps`; evaluated at compile time by [`step!`](crate::step),
/// so naming a step the algorithm does not have fails the build.
pub const fn step_index(alg: &Algorithm, step: &str) -> usize {
    let mut i = 0;
    while i < alg.steps.len() {
        if str_eq(alg.steps[i], step) {
            return i;
        }
        i += 1;
    }
    panic!("the algorithm has no such step")
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Records that a step ran: `step!(world, ALGORITHM, "3", Some(document))`, optionally with a
/// detail, either `format!` arguments that do not borrow the world or a closure `|w| ...` given
/// the world.
#[macro_export]
macro_rules! step {
    ($world:expr, $alg:expr, $step:literal, $doc:expr) => {{
        const INDEX: usize = $crate::trace::step_index(&$alg, $step);
        $world.record_step(&$alg, INDEX, $doc, |_| String::new())
    }};
    ($world:expr, $alg:expr, $step:literal, $doc:expr, |$w:ident| $detail:expr) => {{
        const INDEX: usize = $crate::trace::step_index(&$alg, $step);
        $world.record_step(&$alg, INDEX, $doc, |$w: &$crate::World| $detail)
    }};
    ($world:expr, $alg:expr, $step:literal, $doc:expr, $($fmt:tt)+) => {{
        const INDEX: usize = $crate::trace::step_index(&$alg, $step);
        $world.record_step(&$alg, INDEX, $doc, |_| format!($($fmt)+))
    }};
}

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
