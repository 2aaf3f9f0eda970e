//! Steps run in parallel, on parallel queues, and their "wait until".
//!
//! <https://html.spec.whatwg.org/multipage/infrastructure.html#parallel-queue>

use std::collections::VecDeque;

use super::event_loop::{EventLoops, TaskAction, TaskSource};
use super::keys::{DocumentKey, ParallelQueueKey};
use super::seam::Upper;
use super::{Host, HostState};

/// One step run "in parallel".
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ParallelStepKind<U: Upper> {
    /// Queues a global task: the last step of many in-parallel blocks.
    QueueGlobalTask {
        document: DocumentKey,
        source: TaskSource,
        action: TaskAction<U>,
    },
    /// A navigation started by script has its response: queue the task that commits it.
    NavigationResponse {
        from: DocumentKey,
        url: String,
        label: String,
        keep_in_bfcache: bool,
    },
    /// A step of the specification above (the seam).
    Webmcp(U::Parallel),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParallelStep<U: Upper> {
    pub seq: u64,
    pub kind: ParallelStepKind<U>,
}

// The sequence number is left out, as for tasks.
impl<U: Upper> std::hash::Hash for ParallelStep<U> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.kind.hash(h);
    }
}

/// Whether a queue is blocked in a "wait until" of one of its steps. The condition is the
/// specification's own; it tells the host when the wait has ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueState {
    /// Runs its next step when chosen.
    Ready,
    /// Blocked: its next step waits for the wait to end.
    Waiting,
    /// The wait has ended; the queue goes on, ordered by when it was woken.
    Woken { seq: u64 },
}

// The sequence number is left out, as for tasks.
impl std::hash::Hash for QueueState {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        match self {
            QueueState::Ready => 0u8.hash(h),
            QueueState::Waiting => 1u8.hash(h),
            QueueState::Woken { .. } => 2u8.hash(h),
        }
    }
}

/// A parallel queue: the AI agent queue, or the steps of one "in parallel" block.
///
/// <https://html.spec.whatwg.org/multipage/infrastructure.html#parallel-queue>
#[derive(Clone, Debug, Hash)]
pub struct ParallelQueue<U: Upper> {
    pub label: String,
    pub steps: VecDeque<ParallelStep<U>>,
    pub state: QueueState,
    /// A queue that lives as long as the user agent (the AI agent queue); other queues end
    /// when they are empty.
    pub persistent: bool,
}

impl<U: Upper> ParallelQueue<U> {
    /// The sequence number of the queue's next unit, if it may run: a queue in a "wait until"
    /// runs again once its wait has ended.
    pub(crate) fn next_unit(&self) -> Option<u64> {
        match self.state {
            QueueState::Waiting => None,
            QueueState::Woken { seq } => Some(seq),
            QueueState::Ready => self.steps.front().map(|s| s.seq),
        }
    }
}

impl<U: Upper> HostState<U> {
    /// Where `queue` stands in the index of queues that may run, after a change: `before` is
    /// where it stood (see [`ParallelQueue::next_unit`]).
    pub(crate) fn reindex_parallel(&mut self, queue: ParallelQueueKey, before: Option<u64>) {
        let after = super::shared::footprint::untracked(|| {
            self.parallel_queues
                .get(queue)
                .and_then(ParallelQueue::next_unit)
        });
        if before != after {
            if let Some(seq) = before {
                self.ready_parallel.remove(&(seq, queue));
            }
            if let Some(seq) = after {
                self.ready_parallel.insert((seq, queue));
            }
        }
    }

    /// Where `queue` stands in the index now.
    pub(crate) fn indexed_parallel(&self, queue: ParallelQueueKey) -> Option<u64> {
        super::shared::footprint::untracked(|| {
            self.parallel_queues
                .get(queue)
                .and_then(ParallelQueue::next_unit)
        })
    }

    /// <https://html.spec.whatwg.org/multipage/infrastructure.html#starting-a-new-parallel-queue>
    /// that lives as long as the user agent.
    pub fn start_a_new_parallel_queue(&mut self, label: &str) -> ParallelQueueKey {
        self.parallel_queues.insert(ParallelQueue {
            label: label.into(),
            steps: VecDeque::new(),
            state: QueueState::Ready,
            persistent: true,
        })
    }

    /// Starts a new parallel queue for the steps of one "in parallel" block.
    ///
    /// <https://html.spec.whatwg.org/multipage/infrastructure.html#in-parallel>
    pub(crate) fn in_parallel(
        &mut self,
        label: String,
        steps: Vec<ParallelStepKind<U>>,
    ) -> ParallelQueueKey {
        let queue = self.parallel_queues.insert(ParallelQueue {
            label,
            steps: VecDeque::new(),
            state: QueueState::Ready,
            persistent: false,
        });
        for kind in steps {
            self.enqueue_parallel_step(queue, kind);
        }
        queue
    }

    /// <https://html.spec.whatwg.org/multipage/infrastructure.html#enqueue-the-following-steps>
    pub(crate) fn enqueue_parallel_step(
        &mut self,
        queue: ParallelQueueKey,
        kind: ParallelStepKind<U>,
    ) {
        let seq = self.next_seq();
        let before = self.indexed_parallel(queue);
        self.parallel_queues[queue]
            .steps
            .push_back(ParallelStep { seq, kind });
        self.reindex_parallel(queue, before);
    }

    /// The running step of `queue` waits until a condition of the specification's holds;
    /// `then` is what the queue does once the wait has ended (see [`HostState::wake`]).
    pub(crate) fn wait_until(&mut self, queue: ParallelQueueKey, then: U::Parallel) {
        let seq = self.next_seq();
        let before = self.indexed_parallel(queue);
        let q = &mut self.parallel_queues[queue];
        q.state = QueueState::Waiting;
        q.steps.push_front(ParallelStep {
            seq,
            kind: ParallelStepKind::Webmcp(then),
        });
        self.reindex_parallel(queue, before);
    }

    /// Takes the steps of `queue` that `which` picks out of it, unrun; returns how many.
    pub(crate) fn remove_parallel_steps(
        &mut self,
        queue: ParallelQueueKey,
        which: impl Fn(&ParallelStepKind<U>) -> bool,
    ) -> usize {
        let indexed = self.indexed_parallel(queue);
        let q = &mut self.parallel_queues[queue];
        let before = q.steps.len();
        q.steps.retain(|s| !which(&s.kind));
        let removed = before - q.steps.len();
        self.reindex_parallel(queue, indexed);
        removed
    }

    /// A queue blocked in a "wait until" stops waiting without the wait's steps: the caller
    /// has taken them off it (see [`HostState::remove_parallel_steps`]).
    pub(crate) fn stop_waiting(&mut self, queue: ParallelQueueKey) {
        if self.parallel_queues[queue].state != QueueState::Ready {
            let before = self.indexed_parallel(queue);
            self.parallel_queues[queue].state = QueueState::Ready;
            self.reindex_parallel(queue, before);
        }
    }

    /// A queue's wait has ended: it may run again.
    pub(crate) fn wake(&mut self, queue: ParallelQueueKey) {
        if self.parallel_queues[queue].state == QueueState::Waiting {
            let seq = self.next_seq();
            let before = self.indexed_parallel(queue);
            self.parallel_queues[queue].state = QueueState::Woken { seq };
            self.reindex_parallel(queue, before);
        }
    }
}

/// Running parallel queues.
pub trait ParallelQueues: Host {
    fn describe_parallel(&self, kind: &ParallelStepKind<Self::Upper>) -> String {
        match kind {
            ParallelStepKind::QueueGlobalTask {
                document,
                source,
                action,
            } => format!(
                "queue a {} task on {}: {}",
                source.name(),
                self.label(*document),
                self.describe_task_action(action)
            ),
            ParallelStepKind::NavigationResponse { from, url, .. } => {
                format!(
                    "the navigation of {} to {url} has its response",
                    self.label(*from)
                )
            }
            ParallelStepKind::Webmcp(step) => self.describe_parallel_step(step),
        }
    }

    /// Runs a queue's next step (a woken queue first leaves its wait).
    fn run_parallel_queue(&mut self, q: ParallelQueueKey) {
        let indexed = self.indexed_parallel(q);
        if matches!(self.parallel_queues[q].state, QueueState::Woken { .. }) {
            self.parallel_queues[q].state = QueueState::Ready;
        }
        let step = self.parallel_queues[q].steps.pop_front();
        self.reindex_parallel(q, indexed);
        if let Some(step) = step {
            match step.kind {
                ParallelStepKind::QueueGlobalTask {
                    document,
                    source,
                    action,
                } => self.queue_global_task(document, source, action),
                // The new document replaces the old one in a task of the old one's event loop,
                // so the navigation never lands between a task and its microtasks.
                ParallelStepKind::NavigationResponse {
                    from,
                    url,
                    label,
                    keep_in_bfcache,
                } => self.queue_global_task(
                    from,
                    TaskSource::NavigationAndTraversal,
                    TaskAction::CommitNavigation {
                        url,
                        label,
                        keep_in_bfcache,
                    },
                ),
                ParallelStepKind::Webmcp(step) => self.run_parallel_step(step, q),
            }
        }
        let queue = &self.parallel_queues[q];
        if !queue.persistent && queue.steps.is_empty() && queue.state == QueueState::Ready {
            self.parallel_queues.remove(q);
        }
    }
}

impl<H: Host> ParallelQueues for H {}
