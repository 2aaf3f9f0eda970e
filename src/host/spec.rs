//! Algorithms as data: every algorithm the engine runs is an [`Algorithm`] constant listing its
//! steps as its text numbers them. Code names a step with [`step!`](crate::step), which checks
//! at compile time that the step exists, so the list of steps and the code cannot drift apart.
//!
//! This file also names the host's own algorithms (HTML, DOM, ECMAScript, Web IDL) whose steps
//! the engine records.

use serde::Serialize;

/// Which text an algorithm belongs to, for its anchor's address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Spec {
    /// The published WebMCP text the engine implements.
    WebMcp,
    /// WebMCP PR #373, on top of the published text (its final revision).
    WebMcpPr373,
    /// An earlier revision of PR #373, or a proposal made in its review or a follow-up: steps
    /// no published text has, numbered as that revision or proposal numbers them.
    WebMcpProposal,
    /// Behaviour that WebMCP's IDL, WPT or an implementation require but no text defines: the
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
            Spec::WebMcp | Spec::WebMcpPr373 | Spec::WebMcpProposal | Spec::WebMcpEngineDefined => {
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

/// An algorithm, its anchor, and its steps in its text's numbering.
#[derive(Debug)]
pub struct Algorithm {
    /// Position in the engine's list of every algorithm (the engine's `algorithms()`): the
    /// host's come first, then each layer's in turn.
    pub id: usize,
    pub spec: Spec,
    /// The anchor, without `#`.
    pub anchor: &'static str,
    pub name: &'static str,
    /// Step numbers, in document order (`"18.2.1"`).
    pub steps: &'static [&'static str],
}

impl Algorithm {
    /// Where the algorithm is written; one no text has yet says so instead.
    pub fn url(&self) -> String {
        match self.spec {
            Spec::WebMcpEngineDefined => {
                format!("engine-defined, no spec text yet: #{}", self.anchor)
            }
            Spec::WebMcpPr373 => format!("WebMCP PR #373: {}#{}", self.spec.base(), self.anchor),
            Spec::WebMcpProposal => format!("proposal, not in any text: #{}", self.anchor),
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
        const INDEX: usize = $crate::host::spec::step_index(&$alg, $step);
        $world.record_step(&$alg, INDEX, $doc, |_| String::new())
    }};
    ($world:expr, $alg:expr, $step:literal, $doc:expr, |$w:ident| $detail:expr) => {{
        const INDEX: usize = $crate::host::spec::step_index(&$alg, $step);
        $world.record_step(&$alg, INDEX, $doc, |$w| $detail)
    }};
    ($world:expr, $alg:expr, $step:literal, $doc:expr, $($fmt:tt)+) => {{
        const INDEX: usize = $crate::host::spec::step_index(&$alg, $step);
        $world.record_step(&$alg, INDEX, $doc, |_| format!($($fmt)+))
    }};
}

/// Declares an algorithm constant: its id, text, anchor, name and steps.
#[macro_export]
macro_rules! algorithm {
    ($(#[$meta:meta])* $name:ident, $id:expr, $spec:ident, $anchor:literal, $title:literal, [$($step:literal),+ $(,)?]) => {
        $(#[$meta])*
        pub const $name: $crate::host::spec::Algorithm = $crate::host::spec::Algorithm {
            id: $id,
            spec: $crate::host::spec::Spec::$spec,
            anchor: $anchor,
            name: $title,
            steps: &[$($step),+],
        };
    };
}

algorithm!(
    /// <https://html.spec.whatwg.org/multipage/webappapis.html#hostenqueuepromisejob>
    HOST_ENQUEUE_PROMISE_JOB,
    0,
    Html,
    "hostenqueuepromisejob",
    "HostEnqueuePromiseJob",
    ["2.1"]
);
algorithm!(
    /// <https://tc39.es/ecma262/#sec-newpromiseresolvethenablejob>
    PROMISE_RESOLVE_THENABLE_JOB,
    1,
    Ecma262,
    "sec-newpromiseresolvethenablejob",
    "PromiseResolveThenableJob",
    ["1"]
);
algorithm!(
    /// <https://dom.spec.whatwg.org/#abortsignal-signal-abort>
    SIGNAL_ABORT,
    2,
    Dom,
    "abortsignal-signal-abort",
    "signal abort",
    ["1", "2", "5", "6"]
);
algorithm!(
    /// <https://webidl.spec.whatwg.org/#call-a-user-objects-operation>
    CALL_A_USER_OBJECTS_OPERATION,
    3,
    WebIdl,
    "call-a-user-objects-operation",
    "call a user object's operation",
    ["1"]
);
algorithm!(
    /// <https://html.spec.whatwg.org/multipage/webappapis.html#clean-up-after-running-script>
    CLEAN_UP_AFTER_RUNNING_SCRIPT,
    4,
    Html,
    "clean-up-after-running-script",
    "clean up after running script",
    ["3"]
);
algorithm!(
    /// <https://dom.spec.whatwg.org/#concept-event-dispatch>, at a node.
    DISPATCH,
    5,
    Dom,
    "concept-event-dispatch",
    "dispatch",
    ["11.1", "12"]
);
algorithm!(
    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#reset-the-form-owner>
    RESET_THE_FORM_OWNER,
    6,
    Html,
    "reset-the-form-owner",
    "reset the form owner",
    ["2", "3", "4.1", "5"]
);
algorithm!(
    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#concept-form-submit>
    FORM_SUBMISSION_ALGORITHM,
    7,
    Html,
    "concept-form-submit",
    "form submission algorithm",
    [
        "1", "2", "4", "5.1", "5.4.2", "5.6", "5.8", "5.9", "7", "9", "11.1", "11.6", "15",
        "23", "25", "26"
    ]
);
algorithm!(
    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#constructing-the-form-data-set>
    CONSTRUCTING_THE_ENTRY_LIST,
    8,
    Html,
    "constructing-the-form-data-set",
    "constructing the entry list",
    ["1", "7", "9"]
);
algorithm!(
    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#plan-to-navigate>
    PLAN_TO_NAVIGATE,
    9,
    Html,
    "plan-to-navigate",
    "plan to navigate",
    ["3", "4", "4.2"]
);
algorithm!(
    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#concept-form-reset>
    RESET_A_FORM,
    10,
    Html,
    "concept-form-reset",
    "reset a form",
    ["1", "2"]
);
algorithm!(
    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#statically-validate-the-constraints>
    STATICALLY_VALIDATE_THE_CONSTRAINTS,
    11,
    Html,
    "statically-validate-the-constraints",
    "statically validate the constraints",
    ["4", "6.1", "7"]
);
algorithm!(
    /// <https://html.spec.whatwg.org/multipage/parsing.html#tree-construction>: the parser
    /// hands the tree builder a chunk of input (a networking task).
    TREE_CONSTRUCTION,
    12,
    Html,
    "tree-construction",
    "tree construction",
    ["1"]
);
algorithm!(
    /// <https://html.spec.whatwg.org/multipage/parsing.html#the-end>
    THE_END,
    13,
    Html,
    "the-end",
    "the end",
    ["1", "6", "7"]
);
algorithm!(
    /// <https://html.spec.whatwg.org/multipage/iframe-embed-object.html#the-iframe-element>:
    /// an `iframe` that becomes connected to a document with a browsing context gets a content
    /// navigable (1), whose attributes are then processed as an initial insertion (3).
    IFRAME_POST_CONNECTION_STEPS,
    14,
    Html,
    "the-iframe-element:html-element-post-connection-steps",
    "the iframe HTML element post-connection steps",
    ["1", "2", "3"]
);
algorithm!(
    /// <https://html.spec.whatwg.org/multipage/iframe-embed-object.html#process-the-iframe-attributes>
    PROCESS_THE_IFRAME_ATTRIBUTES,
    15,
    Html,
    "process-the-iframe-attributes",
    "process the iframe attributes",
    ["1.3", "2.1", "2.2", "2.3", "2.7"]
);
algorithm!(
    /// <https://html.spec.whatwg.org/multipage/iframe-embed-object.html#iframe-load-event-steps>
    IFRAME_LOAD_EVENT_STEPS,
    16,
    Html,
    "iframe-load-event-steps",
    "iframe load event steps",
    ["6"]
);
algorithm!(
    /// <https://html.spec.whatwg.org/multipage/document-sequences.html#destroy-a-child-navigable>:
    /// the `iframe` HTML element removing steps.
    DESTROY_A_CHILD_NAVIGABLE,
    17,
    Html,
    "destroy-a-child-navigable",
    "destroy a child navigable",
    ["1", "2"]
);
/// The host's algorithms, indexed by id.
pub const ALGORITHMS: &[&Algorithm] = &[
    &HOST_ENQUEUE_PROMISE_JOB,
    &PROMISE_RESOLVE_THENABLE_JOB,
    &SIGNAL_ABORT,
    &CALL_A_USER_OBJECTS_OPERATION,
    &CLEAN_UP_AFTER_RUNNING_SCRIPT,
    &DISPATCH,
    &RESET_THE_FORM_OWNER,
    &FORM_SUBMISSION_ALGORITHM,
    &CONSTRUCTING_THE_ENTRY_LIST,
    &PLAN_TO_NAVIGATE,
    &RESET_A_FORM,
    &STATICALLY_VALIDATE_THE_CONSTRAINTS,
    &TREE_CONSTRUCTION,
    &THE_END,
    &IFRAME_POST_CONNECTION_STEPS,
    &PROCESS_THE_IFRAME_ATTRIBUTES,
    &IFRAME_LOAD_EVENT_STEPS,
    &DESTROY_A_CHILD_NAVIGABLE,
];
