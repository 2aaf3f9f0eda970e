//! A world's state as the explorer compares it: what decides its future and what it has
//! observed, and nothing that only records how it got there.

use std::hash::{Hash, Hasher};

use crate::platform::event_loop::TASK_SOURCES;
use crate::platform::shared::Shared;
use crate::webmcp::readiness::WaitState;
use crate::world::World;

/// A 128-bit hash built from two independent multiply-rotate lanes: fast, and wide enough
/// that two distinct states of one subtest sharing a hash is not a practical concern (the
/// explorer would then merge them, the one way its reduction could lose an outcome).
pub struct StateHasher {
    a: u64,
    b: u64,
}

impl Default for StateHasher {
    fn default() -> Self {
        StateHasher {
            a: 0x243f_6a88_85a3_08d3,
            b: 0x1319_8a2e_0370_7344,
        }
    }
}

impl StateHasher {
    #[inline]
    fn mix(&mut self, word: u64) {
        self.a = (self.a.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
        self.b =
            (self.b.rotate_left(23) ^ word.rotate_left(32)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }

    pub fn finish128(&self) -> u128 {
        let a = self.a ^ (self.b >> 29);
        let b = self.b ^ (self.a >> 31);
        ((a as u128) << 64) | b as u128
    }
}

impl Hasher for StateHasher {
    fn finish(&self) -> u64 {
        self.a ^ self.b.rotate_left(17)
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.mix(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(w) ^ ((rest.len() as u64) << 56));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.mix(i as u64);
    }
    fn write_u32(&mut self, i: u32) {
        self.mix(i as u64);
    }
    fn write_u64(&mut self, i: u64) {
        self.mix(i);
    }
    fn write_usize(&mut self, i: usize) {
        self.mix(i as u64);
    }
}

/// Where a pending unit lives: what the order of sequence numbers is hashed as.
#[derive(Hash)]
enum SeqSlot {
    Task(crate::platform::keys::EventLoopKey, usize, usize),
    Microtask(crate::platform::keys::EventLoopKey, usize),
    Step(crate::platform::keys::ParallelQueueKey, usize),
    Timer(crate::platform::keys::TimerKey),
    Waiter(crate::platform::keys::WaiterKey),
}

impl World {
    /// The pending units in the order of their sequence numbers. The scheduler reads only
    /// this order (never the numbers), so two states with the same contents and the same
    /// order have the same futures, with the same candidate lists.
    fn pending_order(&self) -> Vec<(u64, SeqSlot)> {
        let mut slots: Vec<(u64, SeqSlot)> = Vec::new();
        for (l, el) in &self.event_loops {
            for source in TASK_SOURCES {
                for (i, t) in el.queues[source as usize].iter().enumerate() {
                    slots.push((t.seq, SeqSlot::Task(l, source as usize, i)));
                }
            }
            for (i, m) in el.microtasks.iter().enumerate() {
                slots.push((m.seq, SeqSlot::Microtask(l, i)));
            }
        }
        for (q, queue) in &self.parallel_queues {
            for (i, s) in queue.steps.iter().enumerate() {
                slots.push((s.seq, SeqSlot::Step(q, i)));
            }
        }
        for (t, timer) in &self.timers {
            slots.push((timer.seq, SeqSlot::Timer(t)));
        }
        for (w, waiter) in &self.waiters {
            if let WaitState::Woken { seq, .. } = waiter.state {
                slots.push((seq, SeqSlot::Waiter(w)));
            }
        }
        slots.sort_unstable_by_key(|(seq, _)| *seq);
        slots
    }

    /// Hashes everything that decides the world's future or records what it observed: the
    /// arenas, the order of the pending units, the clock, the units run so far (so the
    /// explored graph has no cycles), the log, the findings. Not hashed: the trace, coverage,
    /// the schedule record, and sequence numbers themselves (only their order matters).
    pub fn hash_state<H: Hasher>(&self, h: &mut H) {
        // Each arena's hash is remembered until it changes, and copies of a world share their
        // unchanged arenas: hashing a state costs about what changed since its parent.
        fn arena<K: slotmap::Key + Hash, V: Hash>(map: &Shared<slotmap::SlotMap<K, V>>) -> u64 {
            map.hash_with(|m| {
                let mut h = StateHasher::default();
                m.len().hash(&mut h);
                for (k, v) in m {
                    k.hash(&mut h);
                    v.hash(&mut h);
                }
                Hasher::finish(&h)
            })
        }
        fn value<T: Hash>(x: &Shared<T>) -> u64 {
            x.hash_with(|v| {
                let mut h = StateHasher::default();
                v.hash(&mut h);
                Hasher::finish(&h)
            })
        }
        arena(&self.navigables).hash(h);
        arena(&self.documents).hash(h);
        arena(&self.model_contexts).hash(h);
        arena(&self.event_loops).hash(h);
        arena(&self.parallel_queues).hash(h);
        arena(&self.promises).hash(h);
        arena(&self.resolvers).hash(h);
        arena(&self.thenables).hash(h);
        arena(&self.signals).hash(h);
        arena(&self.listeners).hash(h);
        arena(&self.timers).hash(h);
        arena(&self.waiters).hash(h);
        arena(&self.observations).hash(h);
        arena(&self.executions).hash(h);
        value(&self.env).hash(h);
        value(&self.promise_labels).hash(h);
        value(&self.log).hash(h);
        value(&self.findings).hash(h);
        value(&self.uncaught).hash(h);
        for (_, slot) in self.pending_order() {
            slot.hash(h);
        }
        self.now.hash(h);
        self.unit.hash(h);
    }
}
