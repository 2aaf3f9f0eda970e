//! A world's state as the explorer compares it: what decides its future and what it has
//! observed, and nothing that only records how it got there.

use std::hash::{Hash, Hasher};

use slotmap::{Key, SecondaryMap};

use super::World;
use crate::host::event_loop::TASK_SOURCES;
use crate::host::keys::{EventLoopKey, ParallelQueueKey, TimerKey};
use crate::host::parallel::QueueState;
use crate::host::shared::{identity, Arena, Counts, SecondaryArena, Shared, StateHasher};

/// Where a pending unit lives: what the order of sequence numbers is hashed as.
#[derive(Hash)]
enum SeqSlot {
    Task(EventLoopKey, usize, usize),
    Microtask(EventLoopKey, usize),
    Step(ParallelQueueKey, usize),
    Timer(TimerKey),
    Woken(ParallelQueueKey),
}

impl World {
    /// The pending units in the order of their sequence numbers. The scheduler reads only
    /// this order (never the numbers), so two states with the same contents and the same
    /// order have the same futures, with the same candidate lists.
    fn pending_order(&self) -> Vec<(u64, SeqSlot)> {
        let mut slots: Vec<(u64, SeqSlot)> = Vec::new();
        for (l, el) in &self.host.event_loops {
            for source in TASK_SOURCES {
                for (i, t) in el.queues[source as usize].iter().enumerate() {
                    slots.push((t.seq, SeqSlot::Task(l, source as usize, i)));
                }
            }
            for (i, m) in el.microtasks.iter().enumerate() {
                slots.push((m.seq, SeqSlot::Microtask(l, i)));
            }
        }
        for (q, queue) in &self.host.parallel_queues {
            for (i, s) in queue.steps.iter().enumerate() {
                slots.push((s.seq, SeqSlot::Step(q, i)));
            }
            if let QueueState::Woken { seq } = queue.state {
                slots.push((seq, SeqSlot::Woken(q)));
            }
        }
        for (t, timer) in &self.host.timers {
            slots.push((timer.seq, SeqSlot::Timer(t)));
        }
        slots.sort_unstable_by_key(|(seq, _)| *seq);
        slots
    }

    /// Which of the state's objects are shared, and where (see `host::shared::identity`):
    /// what a scenario that compares objects by identity can tell apart and the state hash
    /// cannot. A walk of everything [`World::hash_state`] hashes, with no remembered hash.
    pub fn identity_digest(&self) -> u64 {
        identity::digest(|| {
            let mut h = StateHasher::default();
            self.hash_state(&mut h);
            Hasher::finish(&h)
        })
    }

    /// Hashes everything that decides the world's future or records what it observed: the
    /// arenas, the order of the pending units, the clock, the units run so far (so the
    /// explored graph has no cycles), the log, the findings. Not hashed: the trace, coverage,
    /// the schedule record, and sequence numbers themselves (only their order matters).
    pub fn hash_state<H: Hasher>(&self, h: &mut H) {
        // Each arena's hash is remembered until it changes, and copies of a world share their
        // unchanged arenas: hashing a state costs about what changed since its parent.
        fn arena<K: Key + Hash, V: Clone + Hash>(map: &Arena<K, V>) -> u64 {
            map.hash_with(|k, v, h| {
                k.hash(h);
                v.hash(h);
            })
        }
        fn entries<K: Key + Hash, V: Hash>(m: &SecondaryMap<K, V>) -> u64 {
            let mut h = StateHasher::default();
            m.len().hash(&mut h);
            for (k, v) in m {
                k.hash(&mut h);
                v.hash(&mut h);
            }
            Hasher::finish(&h)
        }
        fn secondary<K: Key + Hash, V: Clone + Hash>(map: &SecondaryArena<K, V>) -> u64 {
            map.hash_with(entries)
        }
        fn counts<K: Key + Hash>(counts: &Counts<K>) -> u64 {
            counts.hash_with(entries)
        }
        fn value<T: Hash>(x: &Shared<T>) -> u64 {
            x.hash_with(|v| {
                let mut h = StateHasher::default();
                v.hash(&mut h);
                Hasher::finish(&h)
            })
        }
        let (host, webmcp, script) = (&self.host, &self.webmcp, &self.script);
        arena(&host.navigables).hash(h);
        arena(&host.documents).hash(h);
        arena(&host.event_loops).hash(h);
        arena(&host.parallel_queues).hash(h);
        arena(&host.promises).hash(h);
        arena(&host.resolvers).hash(h);
        arena(&host.thenables).hash(h);
        arena(&host.signals).hash(h);
        arena(&host.listeners).hash(h);
        arena(&host.timers).hash(h);
        value(&host.promise_labels).hash(h);
        arena(&host.dom.nodes).hash(h);
        secondary(&host.dom.document_nodes).hash(h);
        arena(&host.dom.events).hash(h);
        secondary(&host.dom.parsers).hash(h);
        secondary(&host.dom.requests).hash(h);
        value(&host.dom.pending_requests).hash(h);
        value(&host.dom.pending_srcdoc).hash(h);
        value(&host.dom.pseudo_classes).hash(h);
        arena(&webmcp.model_contexts).hash(h);
        secondary(&webmcp.documents).hash(h);
        secondary(&webmcp.tools_ready).hash(h);
        secondary(&webmcp.pending_tool_readiness_promises).hash(h);
        secondary(&webmcp.listeners).hash(h);
        counts(&webmcp.not_ready).hash(h);
        arena(&webmcp.waiters).hash(h);
        arena(&webmcp.observations).hash(h);
        arena(&webmcp.executions).hash(h);
        secondary(&webmcp.declarative_forms).hash(h);
        value(&script.env).hash(h);
        value(&script.log).hash(h);
        value(&script.uncaught).hash(h);
        value(&self.findings).hash(h);
        for (_, slot) in self.pending_order() {
            slot.hash(h);
        }
        host.now.hash(h);
        host.unit.hash(h);
        // Last: in an identity digest its entries are numbered by where the rest is held.
        crate::script::heap::hash_heap(&script.heap, h);
    }
}
