//! Timers on the virtual clock: `setTimeout()`, and the timeouts other specifications set.
//!
//! <https://html.spec.whatwg.org/multipage/timers-and-user-prompts.html#timers>

use std::collections::BTreeSet;

use super::callback::Callback;
use super::event_loop::{EventLoops, TaskAction, TaskSource};
use super::keys::{DocumentKey, ResolverKey, TimerKey};
use super::seam::Upper;
use super::value::Value;
use super::{Host, HostState};

/// What a timer does when it expires.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TimerKind<U: Upper> {
    /// `setTimeout()`: queues a task on the timer task source that calls the callback.
    SetTimeout {
        document: DocumentKey,
        callback: Callback,
    },
    /// The timer a scenario's thenable sets in its `then` (`thenable t in d resolves v after
    /// 100ms`): a `setTimeout()` of its realm whose callback calls one of the resolving
    /// functions `then` was given.
    ThenCallback {
        document: DocumentKey,
        resolver: ResolverKey,
        reject: bool,
        value: Value,
    },
    /// A timeout the specification above set (the seam).
    Webmcp(U::Timer),
}

impl<U: Upper> TimerKind<U> {
    /// The document of a timer the page's script set (`setTimeout()` counts only while its
    /// document is fully active, and goes with it).
    fn script_document(&self) -> Option<DocumentKey> {
        match self {
            TimerKind::SetTimeout { document, .. } | TimerKind::ThenCallback { document, .. } => {
                Some(*document)
            }
            TimerKind::Webmcp(_) => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timer<U: Upper> {
    /// Virtual time, in milliseconds, at which it expires (while it is counting).
    pub due: u64,
    pub seq: u64,
    pub kind: TimerKind<U>,
    /// A `setTimeout()` timer of a document that is not fully active does not count: how
    /// many milliseconds it still has to wait once the document is fully active again.
    pub paused: Option<u64>,
}

// The sequence number is left out, as for tasks.
impl<U: Upper> std::hash::Hash for Timer<U> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        (self.due, &self.kind, self.paused).hash(h);
    }
}

impl<U: Upper> HostState<U> {
    /// Adds a timer that expires `delay` milliseconds from now.
    pub(crate) fn add_timer(&mut self, delay: u64, kind: TimerKind<U>) -> TimerKey {
        let seq = self.next_seq();
        let due = self.now.saturating_add(delay);
        let key = self.timers.insert(Timer {
            due,
            seq,
            kind,
            paused: None,
        });
        self.index_timer(due, seq, key);
        key
    }

    /// Adds a counting timer to the scheduler's indexes.
    fn index_timer(&mut self, due: u64, seq: u64, key: TimerKey) {
        self.timer_index.insert((due, seq, key));
        if due <= self.due_until {
            self.due_timers.insert((seq, key));
        }
    }

    /// Takes a timer out of the scheduler's indexes.
    fn unindex_timer(&mut self, due: u64, seq: u64, key: TimerKey) {
        self.timer_index.remove(&(due, seq, key));
        if due <= self.due_until {
            self.due_timers.remove(&(seq, key));
        }
    }

    /// Brings the index of timers due up to the clock: each timer enters it once, when the
    /// clock reaches it.
    pub(crate) fn catch_up_due_timers(&mut self) {
        let now = self.now;
        if now == self.due_until {
            return;
        }
        if now < self.due_until {
            // The clock went back (only a test sets it so): the index is made again.
            let due: BTreeSet<(u64, TimerKey)> = self
                .timer_index
                .iter()
                .take_while(|(due, _, _)| *due <= now)
                .map(|&(_, seq, key)| (seq, key))
                .collect();
            *self.due_timers = due;
        } else {
            let from = (self.due_until + 1, 0, TimerKey::default());
            let newly: Vec<(u64, TimerKey)> = self
                .timer_index
                .range(from..)
                .take_while(|(due, _, _)| *due <= now)
                .map(|&(_, seq, key)| (seq, key))
                .collect();
            self.due_timers.extend(newly);
        }
        self.due_until = now;
    }

    /// HTML's "run steps after a timeout" waits until the document has been fully active for
    /// the timeout, not necessarily consecutively: a timer of a document that stops being fully
    /// active (it enters the back/forward cache, or a document it is in does) stops counting,
    /// and counts on from where it was when the document is fully active again.
    ///
    /// <https://html.spec.whatwg.org/multipage/timers-and-user-prompts.html#run-steps-after-a-timeout>
    pub(crate) fn pause_or_resume_timers(&mut self) {
        let changes: Vec<(TimerKey, bool)> = self
            .timers
            .iter()
            .filter_map(|(key, t)| {
                let active = self.is_fully_active(t.kind.script_document()?);
                match (t.paused.is_some(), active) {
                    (false, false) => Some((key, false)),
                    (true, true) => Some((key, true)),
                    _ => None,
                }
            })
            .collect();
        for (key, resume) in changes {
            let now = self.now;
            let t = &mut self.timers[key];
            let (due, seq) = (t.due, t.seq);
            if resume {
                let remaining = t.paused.take().unwrap_or(0);
                t.due = now.saturating_add(remaining);
                let due = t.due;
                self.index_timer(due, seq, key);
            } else {
                t.paused = Some(due.saturating_sub(now));
                self.unindex_timer(due, seq, key);
            }
        }
    }

    pub(crate) fn remove_timer(&mut self, key: TimerKey) {
        if let Some(t) = self.timers.remove(key) {
            if t.paused.is_none() {
                self.unindex_timer(t.due, t.seq, key);
            }
        }
    }

    /// HTML clears a destroyed document's timers.
    pub(crate) fn cancel_timers_of(&mut self, doc: DocumentKey) {
        let gone: Vec<TimerKey> = self
            .timers
            .iter()
            .filter(|(_, t)| t.kind.script_document() == Some(doc))
            .map(|(k, _)| k)
            .collect();
        for t in gone {
            self.remove_timer(t);
        }
    }

    /// When the next timer expires, in virtual milliseconds.
    pub fn next_timer_due(&self) -> Option<u64> {
        self.timer_index.first().map(|&(due, _, _)| due)
    }
}

/// Timers expiring.
pub trait Timers: Host {
    fn describe_timer(&self, kind: &TimerKind<Self::Upper>) -> String {
        match kind {
            TimerKind::SetTimeout { document, .. } => {
                format!("timer of {} expires", self.label(*document))
            }
            TimerKind::ThenCallback { document, .. } => {
                format!("timer a thenable of {} set expires", self.label(*document))
            }
            TimerKind::Webmcp(step) => self.describe_timer_step(step),
        }
    }

    fn expire_timer(&mut self, key: TimerKey) {
        let Some(timer) = self.timers.get(key).cloned() else {
            return;
        };
        self.remove_timer(key);
        match timer.kind {
            TimerKind::SetTimeout { document, callback } => {
                self.queue_global_task(document, TaskSource::Timer, TaskAction::Script(callback))
            }
            TimerKind::ThenCallback {
                document,
                resolver,
                reject,
                value,
            } => self.queue_global_task(
                document,
                TaskSource::Timer,
                TaskAction::CallResolver {
                    resolver,
                    reject,
                    value,
                },
            ),
            TimerKind::Webmcp(step) => self.run_timer_step(step),
        }
    }
}

impl<H: Host> Timers for H {}
