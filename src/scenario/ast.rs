//! A parsed scenario file.

use std::sync::Arc;

use crate::script::ast::{Block, Expr};
use crate::webmcp::readiness::WaitOutcome;

/// A scenario file: metadata and subtests, each with a fresh world.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioFile {
    /// The path it was read from (as given).
    pub path: String,
    pub title: String,
    /// The upstream WPT files or spec cases it mirrors.
    pub mirrors: Vec<String>,
    /// Spec anchors it is about.
    pub spec: Vec<String>,
    /// `requires:`: the profiles its subtests run under (tags, any of which a profile must
    /// match); under any other, each subtest is PRECONDITION_FAILED, as a WPT test of an
    /// optional feature the browser lacks. Empty: every profile.
    pub requires: Vec<Tag>,
    pub subtests: Vec<Subtest>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Subtest {
    pub name: String,
    pub line: u32,
    pub actions: Vec<Action>,
    /// Whether its script or expectations compare objects by identity (`===`, `!==`): the
    /// explorer then tells states apart by which objects they share (see
    /// `host::shared::identity`).
    pub compares_identity: bool,
}

/// One line of a subtest.
#[derive(Clone, Debug, PartialEq)]
pub struct Action {
    pub line: u32,
    pub column: u32,
    /// The line as written, for messages.
    pub text: String,
    pub kind: ActionKind,
}

/// What the simulation is driven by until the next line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunKind {
    /// Until nothing is left, moving the clock as needed.
    Idle,
    /// For this many milliseconds of virtual time.
    For(u64),
    /// Everything that can run without the clock moving.
    Flush,
    /// This many units of work.
    Steps(u64),
}

/// A document's `Permissions-Policy` header for "tools", as written and as parsed.
#[derive(Clone, Debug, PartialEq)]
pub struct Policy {
    pub header: String,
    pub allowlist: crate::host::permissions::Allowlist,
}

/// A document's `Content-Security-Policy` header, as written and as parsed.
#[derive(Clone, Debug, PartialEq)]
pub struct Csp {
    pub header: String,
    pub policy: crate::host::csp::CspPolicy,
}

/// How a scenario's thenable answers `then`.
#[derive(Clone, Debug, PartialEq)]
pub enum ThenableKind {
    /// Keeps the resolving functions for a later `resolve NAME`.
    Keep,
    /// Resolves at once, or (with a delay) from a timer its `then` sets.
    Resolves(Expr, Option<u64>),
    /// Rejects at once, or from a timer.
    Rejects(Expr, Option<u64>),
    Throws(Expr),
}

#[derive(Clone, Debug, PartialEq)]
pub enum ActionKind {
    Page {
        name: String,
        url: String,
        loading: bool,
        policy: Option<Policy>,
        csp: Option<Csp>,
        site_keyed: bool,
        /// `opened by DOC`: the page is an auxiliary browsing context of DOC's page, in its
        /// browsing context group.
        opener: Option<String>,
    },
    Frame {
        name: String,
        parent: String,
        url: String,
        allow: Option<String>,
        loading: bool,
        policy: Option<Policy>,
        csp: Option<Csp>,
        /// Its response has `Origin-Agent-Cluster: ?0`.
        site_keyed: bool,
    },
    Promise {
        name: String,
        realm: String,
        /// Created already fulfilled (true) or rejected (false) with a value.
        settled: Option<(bool, Expr)>,
    },
    Thenable {
        name: String,
        realm: String,
        kind: ThenableKind,
    },
    Controller {
        name: String,
        realm: String,
    },
    Task {
        realm: String,
        completion: Option<String>,
        block: Arc<Block>,
    },
    /// `html in DOC:` + markup: a networking task of DOC parses the markup into its document
    /// (as its parser's next chunk while it is loading).
    Html {
        doc: String,
        markup: String,
    },
    Run(RunKind),
    Remove(String),
    Navigate {
        from: String,
        url: String,
        label: String,
        keep_in_bfcache: bool,
    },
    Back(String),
    Close(String),
    /// `DOMContentLoaded` (false) or `load` (true) of a loading document.
    Lifecycle {
        doc: String,
        load: bool,
    },
    Observe {
        doc: String,
        name: String,
        /// `observe top => timed-out [after 5000ms]`: run, then expect this outcome (and how
        /// long the wait took).
        expect: Option<ObserveExpect>,
    },
    Expect(Expectation),
    /// `serve`: where `webmcp-ref serve` hands the world to agents; nothing under `run`.
    Serve,
    /// `at 2s:` / `when DOC exists:` + actions: they happen when the trigger holds, between
    /// units of work.
    Trigger {
        when: Trigger,
        actions: Vec<Action>,
    },
}

/// When a trigger block's actions happen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// `at 2s`: when the virtual clock reaches this time (from the subtest's start), before
    /// the page's own timers due at the same moment.
    At(u64),
    /// `when DOC exists`: once a document of that name has been created (by a navigation, an
    /// iframe, or a page opened later).
    Exists(String),
}

/// An expectation's profile tags: a profile name, or a switch with a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tag {
    Profile(String),
    Switch(String, String),
    /// `a=b & c=d`: all of them.
    All(Vec<Tag>),
}

impl Tag {
    /// The switches the tag names.
    pub fn switches(&self) -> Vec<&str> {
        match self {
            Tag::Profile(_) => Vec::new(),
            Tag::Switch(name, _) => vec![name.as_str()],
            Tag::All(all) => all.iter().flat_map(Tag::switches).collect(),
        }
    }
}

impl std::fmt::Display for Tag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tag::Profile(name) => write!(f, "profile {name}"),
            Tag::Switch(name, value) => write!(f, "{name}={value}"),
            Tag::All(all) => {
                let parts: Vec<String> = all.iter().map(ToString::to_string).collect();
                f.write_str(&parts.join(" & "))
            }
        }
    }
}

/// A promise's expected state.
#[derive(Clone, Debug, PartialEq)]
pub enum PromiseExpect {
    Pending,
    Fulfilled(Option<Expr>),
    Rejected(Option<String>),
}

/// What the scenario's log should be.
#[derive(Clone, Debug, PartialEq)]
pub enum LogExpect {
    Exactly(Vec<String>),
    /// `expect log in [[...], [...]]`: one of these orders; under `explore`, exactly this set
    /// of orders across all schedules.
    OneOf(Vec<Vec<String>>),
    Contains(String),
    Lacks(String),
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExpectKind {
    /// `expect X == V` / `expect X != V`
    Value {
        actual: Expr,
        expected: Expr,
        equal: bool,
    },
    /// `expect p fulfilled`, `expect p rejected AbortError`, `expect p pending`
    Promise {
        promise: Expr,
        state: PromiseExpect,
    },
    Log(LogExpect),
    /// `expect o => timed-out [after 5000ms]`
    Observation {
        name: String,
        outcome: WaitOutcome,
        after: Option<u64>,
    },
    /// `expect o.tools == {top: ["a"], child: []}`, or `== none`: the observation returned
    /// early, with no tool map (`None`).
    ObservationTools {
        name: String,
        tools: Option<Vec<(String, Vec<String>)>>,
    },
    /// `expect o.origins == {top: "https://a.test", child: "https://b.test"}`: the origin of
    /// each observed tool collection, by document.
    ObservationOrigins {
        name: String,
        origins: Vec<(String, String)>,
    },
    /// `expect o pending`: the observation has not finished (its wait goes on, or it has not
    /// started).
    ObservationPending {
        name: String,
    },
    /// `expect o started at 100ms` / `expect o ended at 5100ms`: when the AI agent queue began
    /// and finished it.
    ObservationTime {
        name: String,
        which: ObservationMoment,
        ms: u64,
    },
    /// `expect finding perform-an-observation 2`
    Finding {
        anchor: String,
        step: String,
    },
    NoFindings,
    /// `expect uncaught TypeError`
    Uncaught(String),
    /// `expect time == 5000ms`
    Time(u64),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expectation {
    pub tags: Vec<Tag>,
    /// `expect sometimes ...`: allowed, not required: under `explore` it must hold on some
    /// schedule; a single run does not fail on it.
    pub sometimes: bool,
    pub kind: ExpectKind,
}

/// What an `observe DOC => OUTCOME [after Nms] [tags]` line expects.
#[derive(Clone, Debug, PartialEq)]
pub struct ObserveExpect {
    pub outcome: WaitOutcome,
    /// How long the wait must have taken.
    pub after: Option<u64>,
    pub tags: Vec<Tag>,
}

/// Which moment of an observation an expectation reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObservationMoment {
    Started,
    Ended,
}

impl ObservationMoment {
    pub fn name(self) -> &'static str {
        match self {
            ObservationMoment::Started => "started",
            ObservationMoment::Ended => "ended",
        }
    }
}
