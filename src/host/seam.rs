//! The seam: the one place where the host meets the specification built on it.
//!
//! HTML, DOM and Web IDL let other specifications hand them steps to run later: a task's steps
//! (queued on a task source the other specification defines), steps run in parallel, the
//! handlers of "react to a promise", abort algorithms added to an `AbortSignal`, the steps a
//! timer runs, and event targets of their own. WebMCP does all of these. The host keeps such a
//! step as an opaque value of one of the types below, compares and hashes it with the rest of
//! the world, and hands it back through the `run_*` methods of [`Host`](super::Host), which the
//! engine dispatches in one place. Each host continuation type has exactly one variant that
//! carries one of these (`TaskAction::Webmcp`, `ParallelStepKind::Webmcp`, `Handler::Webmcp`,
//! `TimerKind::Webmcp`, `EventTargetRef::Webmcp`; an abort signal's algorithms are all
//! WebMCP's), so the compiler points at every place a new kind of step needs.

use std::fmt::Debug;
use std::hash::Hash;

/// The types of the steps that the specification above the host (WebMCP) gives it to keep.
pub trait Upper: Copy + Debug + Default + PartialEq + Eq + Hash + 'static {
    /// The steps of a task that the specification queues (on the webmcp task source).
    type Task: Clone + Debug + PartialEq + Eq + Hash;
    /// One step run in parallel, on a parallel queue.
    type Parallel: Clone + Debug + PartialEq + Eq + Hash;
    /// The steps of a promise reaction that "react to a promise" created.
    type Reaction: Clone + Debug + PartialEq + Eq + Hash;
    /// An abort algorithm added to an `AbortSignal`.
    type Abort: Clone + Debug + PartialEq + Eq + Hash;
    /// What a timer the specification set does when it expires.
    type Timer: Clone + Debug + PartialEq + Eq + Hash;
    /// An event target the specification defines (WebMCP's `ModelContext`).
    type EventTarget: Copy + Debug + PartialEq + Eq + Hash;
}

/// The task steps of the specification above `H`'s host.
pub type TaskStep<H> = <<H as super::Host>::Upper as Upper>::Task;
/// A parallel step of the specification above `H`'s host.
pub type ParallelStep<H> = <<H as super::Host>::Upper as Upper>::Parallel;
/// Reaction steps of the specification above `H`'s host.
pub type ReactionStep<H> = <<H as super::Host>::Upper as Upper>::Reaction;
/// An abort algorithm of the specification above `H`'s host.
pub type AbortStep<H> = <<H as super::Host>::Upper as Upper>::Abort;
/// A timer's steps of the specification above `H`'s host.
pub type TimerStep<H> = <<H as super::Host>::Upper as Upper>::Timer;
/// An event target of the specification above `H`'s host.
pub type EventTargetOf<H> = <<H as super::Host>::Upper as Upper>::EventTarget;

/// Which of a document's objects a `Value::Window` is. The `modelContext` WebMCP's partial
/// interface adds to Document is one of them, so the host names it here, at the seam.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Facet {
    /// The name a scenario binds to the document (`top`, `child`): no JavaScript object (the
    /// export makes it a record of the three below).
    Name,
    /// `DOC.window`: the WindowProxy of the document's navigable. It is the same object
    /// whichever document its navigable shows (HTML), so two are `===` when their documents
    /// share a navigable.
    Window,
    /// `DOC.document`.
    Document,
    /// `DOC.modelContext`: the document's one `ModelContext` (its getter is `[SameObject]`).
    ModelContext,
}

impl Facet {
    /// The object's class, as `Object.prototype.toString` shows it (the scenario's name for
    /// a document reads as its Window).
    pub fn class(self) -> &'static str {
        match self {
            Facet::Name | Facet::Window => "Window",
            Facet::Document => "HTMLDocument",
            Facet::ModelContext => "ModelContext",
        }
    }
}
