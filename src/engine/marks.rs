//! The timeline's marks: while the trace is on, the world compares what a timeline shows
//! (documents and their tools-ready, promises, waits, observations) with what it was at the
//! entry before, and records each change as a [`Mark`].

use std::collections::BTreeMap;

use super::trace::{Mark, TraceEntry};
use super::world::World;
use crate::host::keys::{DocumentKey, PromiseKey};
use crate::host::promise::PromiseState;
use crate::webmcp::{ObservationKey, WaiterKey};

/// What the trace last saw.
#[derive(Clone, Debug, Default)]
pub struct Watched {
    /// Each document's (tools-ready, fully active).
    documents: BTreeMap<DocumentKey, (bool, bool)>,
    /// The promises seen settled.
    settled: BTreeMap<PromiseKey, bool>,
    /// Each wait seen, and whether it was seen ending.
    waits: BTreeMap<WaiterKey, bool>,
    /// Each observation seen: (begun, ended).
    observations: BTreeMap<ObservationKey, (bool, bool)>,
}

fn id_of(k: impl slotmap::Key) -> u64 {
    k.data().as_ffi()
}

/// Keys journaled, each once, in the order of their arena's slots (the order a walk of the
/// arena gives).
fn in_slot_order<K: slotmap::Key>(mut keys: Vec<K>) -> Vec<K> {
    keys.sort_by_key(|k| (id_of(*k) & 0xffff_ffff, id_of(*k)));
    keys.dedup();
    keys
}

impl World {
    /// Records, as marks, what changed since the last entry of the trace (nothing when the
    /// trace is off). It looks only at what the journals say changed (see `host::Journal`),
    /// in the order of the arenas' slots, so that a unit costs what it changed, however large
    /// the world.
    pub fn note_changes(&mut self) {
        if !self.trace.enabled {
            return;
        }
        let mut marks = Vec::new();
        let mut seen = std::mem::take(&mut self.watched);
        let journal = std::mem::take(&mut self.host.journal);
        self.host.journal = crate::host::Journal {
            enabled: true,
            ..Default::default()
        };
        let webmcp_journal = std::mem::take(&mut self.webmcp.journal);
        self.webmcp.journal.enabled = true;

        let docs: Vec<DocumentKey> = if journal.everything {
            self.host.documents.keys().collect()
        } else {
            in_slot_order(journal.documents)
        };
        for d in docs {
            if !self.host.documents.contains_key(d) {
                continue;
            }
            let ready = self.webmcp.tools_ready.get(d).copied().unwrap_or(false);
            let active = self.is_fully_active(d);
            match seen.documents.insert(d, (ready, active)) {
                None => marks.push(Mark::Document {
                    document: self.label(d),
                    event_loop: self.host.event_loops[self.host.documents[d].event_loop]
                        .label
                        .clone(),
                    ready,
                    active,
                }),
                Some((was_ready, was_active)) => {
                    if was_active != active {
                        marks.push(Mark::FullyActive {
                            document: self.label(d),
                            active,
                        });
                    }
                    if was_ready != ready {
                        marks.push(Mark::ToolsReady {
                            document: self.label(d),
                            ready,
                        });
                    }
                }
            }
        }

        for k in in_slot_order(journal.promises) {
            let Some(p) = self.host.promises.get(k) else {
                continue;
            };
            let fulfilled = match p.state {
                PromiseState::Pending => continue,
                PromiseState::Fulfilled(_) => true,
                PromiseState::Rejected(_) => false,
            };
            if seen.settled.contains_key(&k) {
                continue;
            }
            let realm = p.realm;
            seen.settled.insert(k, fulfilled);
            marks.push(Mark::Settled {
                promise: self.promise_label(k),
                realm: self.label(realm),
                fulfilled,
            });
        }

        let mut gone = Vec::new();
        for k in in_slot_order(webmcp_journal.waiters) {
            let Some(w) = self.webmcp.waiters.get(k) else {
                gone.push(k);
                continue;
            };
            let ended = w.outcome.is_some();
            if let std::collections::btree_map::Entry::Vacant(e) = seen.waits.entry(k) {
                e.insert(false);
                marks.push(Mark::WaitBegan {
                    wait: id_of(k),
                    document: self.label(w.captured),
                    caller: self.host.parallel_queues[w.queue].label.clone(),
                });
            }
            if ended && seen.waits.insert(k, true) == Some(false) {
                let outcome = w.outcome.map(|o| o.name()).unwrap_or("");
                marks.push(Mark::WaitEnded {
                    wait: id_of(k),
                    outcome: outcome.into(),
                });
            }
        }
        // A wait that went before it was seen ending ended when its queue went on.
        gone.sort();
        for k in gone {
            if seen.waits.get(&k) == Some(&false) {
                seen.waits.insert(k, true);
                marks.push(Mark::WaitEnded {
                    wait: id_of(k),
                    outcome: "ended".into(),
                });
            }
        }

        for o in in_slot_order(webmcp_journal.observations) {
            let Some(obs) = self.webmcp.observations.get(o) else {
                continue;
            };
            let label = obs.label.clone();
            let now = (obs.started_at.is_some(), obs.result.is_some());
            let was = seen.observations.insert(o, now);
            if was.is_none() {
                marks.push(Mark::ObservationAsked {
                    observation: label.clone(),
                });
            }
            let (was_begun, was_ended) = was.unwrap_or((false, false));
            if now.0 && !was_begun {
                marks.push(Mark::ObservationBegan {
                    observation: label.clone(),
                });
            }
            if now.1 && !was_ended {
                if let Some(r) = &obs.result {
                    marks.push(Mark::ObservationEnded {
                        observation: label,
                        outcome: r.outcome.name().into(),
                        waited_ms: r.waited_ms,
                        observed: r.tool_map.is_some(),
                    });
                }
            }
        }

        self.watched = seen;
        let (unit, time) = (self.host.unit, self.host.now);
        self.trace
            .entries
            .extend(
                marks
                    .into_iter()
                    .map(|mark| TraceEntry::Mark { unit, time, mark }),
            );
    }

    /// Records a mark of the harness's (an expectation checked), after the changes before it.
    pub fn mark(&mut self, mark: Mark) {
        if !self.trace.enabled {
            return;
        }
        self.note_changes();
        self.trace.entries.push(TraceEntry::Mark {
            unit: self.host.unit,
            time: self.host.now,
            mark,
        });
    }
}
