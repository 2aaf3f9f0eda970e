//! A world's state as the explorer compares it: what decides its future and what it has
//! observed, and nothing that only records how it got there.

use std::hash::{Hash, Hasher};

use crate::platform::event_loop::TASK_SOURCES;
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
        self.b = (self.b.rotate_left(23) ^ word.rotate_left(32)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
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

/// Where a sequence number lives, for renumbering.
enum SeqSlot {
    Task(crate::platform::keys::EventLoopKey, usize, usize),
    Microtask(crate::platform::keys::EventLoopKey, usize),
    Step(crate::platform::keys::ParallelQueueKey, usize),
    Timer(crate::platform::keys::TimerKey),
    Waiter(crate::platform::keys::WaiterKey),
}

impl World {
    /// Renumbers the sequence numbers of every pending unit by rank, keeping their order. The
    /// scheduler reads only their order, so the world's behaviour is unchanged; two states
    /// that differ only in how many numbers were handed out on the way then compare equal.
    pub fn normalize_sequence_numbers(&mut self) {
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
        slots.sort_by_key(|(seq, _)| *seq);
        for (rank, (_, slot)) in slots.iter().enumerate() {
            let seq = rank as u64 + 1;
            match *slot {
                SeqSlot::Task(l, s, i) => self.event_loops[l].queues[s][i].seq = seq,
                SeqSlot::Microtask(l, i) => self.event_loops[l].microtasks[i].seq = seq,
                SeqSlot::Step(q, i) => self.parallel_queues[q].steps[i].seq = seq,
                SeqSlot::Timer(t) => self.timers[t].seq = seq,
                SeqSlot::Waiter(w) => {
                    if let WaitState::Woken { seq: s, .. } = &mut self.waiters[w].state {
                        *s = seq;
                    }
                }
            }
        }
        self.seq = slots.len() as u64;
        self.timer_index = self
            .timers
            .iter()
            .map(|(k, t)| (t.due, t.seq, k))
            .collect();
    }

    /// Hashes everything that decides the world's future or records what it observed: the
    /// arenas, the clock, the units run so far (so the explored graph has no cycles), the log,
    /// the findings. Not hashed: the trace, coverage, the schedule record and counters that
    /// only name things (call [`World::normalize_sequence_numbers`] first).
    pub fn hash_state<H: Hasher>(&self, h: &mut H) {
        fn arena<K: slotmap::Key + Hash, V: Hash, H: Hasher>(map: &slotmap::SlotMap<K, V>, h: &mut H) {
            map.len().hash(h);
            for (k, v) in map {
                k.hash(h);
                v.hash(h);
            }
        }
        arena(&self.navigables, h);
        arena(&self.documents, h);
        arena(&self.model_contexts, h);
        arena(&self.event_loops, h);
        arena(&self.parallel_queues, h);
        arena(&self.promises, h);
        arena(&self.resolvers, h);
        arena(&self.thenables, h);
        arena(&self.signals, h);
        arena(&self.listeners, h);
        arena(&self.timers, h);
        arena(&self.waiters, h);
        arena(&self.observations, h);
        arena(&self.executions, h);
        self.env.hash(h);
        self.promise_labels.hash(h);
        self.now.hash(h);
        self.unit.hash(h);
        self.log.hash(h);
        self.findings.hash(h);
        self.uncaught.hash(h);
    }
}
