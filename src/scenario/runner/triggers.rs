//! The `at` and `when` blocks of a subtest, and the hooks `webmcp-ref serve` drives a subtest
//! with: its serve point, one step at a time, and when something is next due.

use super::*;

/// An action of an `at`/`when` block that could not be carried out, named by its own line
/// (the block is gone; a served world goes on).
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{path}:{line}: {error}")]
pub struct TriggerError {
    pub path: String,
    pub line: u32,
    pub error: LineError,
}

/// Why a served subtest cannot be served: its lines up to the serve point do not hold. Each
/// problem is a line as a report prints it.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{}", problems.join("\n"))]
pub struct NotServable {
    pub problems: Vec<String>,
}

/// The `at`/`when` blocks of a subtest whose trigger has not held yet, kept so that finding
/// the next one due costs no more than a look-up, however many there are.
#[derive(Clone, Debug, Default)]
pub(super) struct PendingTriggers<'a> {
    /// Every block reached, in the order its line was reached: a block's place here orders
    /// it among blocks due at the same moment.
    blocks: Vec<&'a Action>,
    /// `at` blocks to come: when each is due, and its place.
    at: BTreeSet<(u64, usize)>,
    /// `when DOC exists` blocks waiting for their document, by its name.
    waiting: BTreeMap<&'a str, BTreeSet<usize>>,
    /// `when` blocks whose document exists, by place.
    ready: BTreeSet<usize>,
    /// How many of the world's bindings of names to documents have been looked at.
    bindings_seen: usize,
}

impl<'a> PendingTriggers<'a> {
    /// The lines of the blocks still to come, in the order they were reached.
    pub(super) fn lines(&self) -> Vec<u32> {
        let mut places: Vec<usize> = self.at.iter().map(|&(_, i)| i).collect();
        places.extend(self.waiting.values().flatten().copied());
        places.extend(self.ready.iter().copied());
        places.sort_unstable();
        places.into_iter().map(|i| self.blocks[i].line).collect()
    }
}

/// The name a `when` block waits for.
fn awaited(block: &Action) -> Option<&str> {
    match &block.kind {
        ActionKind::Trigger {
            when: Trigger::Exists(doc),
            ..
        } => Some(doc),
        _ => None,
    }
}

impl<'a> SubtestRun<'a> {
    /// A block's line is reached: it waits for its trigger.
    pub(super) fn add_trigger(&mut self, block: &'a Action) {
        let place = self.triggers.blocks.len();
        self.triggers.blocks.push(block);
        match &block.kind {
            ActionKind::Trigger {
                when: Trigger::At(ms),
                ..
            } => {
                self.triggers.at.insert((*ms, place));
            }
            ActionKind::Trigger {
                when: Trigger::Exists(doc),
                ..
            } => {
                if self.exists(doc) {
                    self.triggers.ready.insert(place);
                } else {
                    self.triggers.waiting.entry(doc).or_default().insert(place);
                }
            }
            _ => {}
        }
    }

    fn exists(&self, doc: &str) -> bool {
        matches!(self.world.lookup(doc), Some(Value::Window(..)))
    }

    /// The `when` blocks whose document came to exist since last looked at are ready.
    fn look_at_new_documents(&mut self) {
        let bound = self
            .world
            .documents_bound_since(self.triggers.bindings_seen);
        self.triggers.bindings_seen += bound.len();
        let names: Vec<String> = bound
            .iter()
            .filter(|n| self.triggers.waiting.contains_key(n.as_str()))
            .cloned()
            .collect();
        for name in names {
            if self.exists(&name) {
                if let Some(places) = self.triggers.waiting.remove(name.as_str()) {
                    self.triggers.ready.extend(places);
                }
            }
        }
    }

    /// The next block due now: `at` blocks in time order, then `when` blocks, each in the
    /// order its line came (an `at 0ms` block before every `when` block).
    fn next_due_block(&mut self) -> Option<usize> {
        self.look_at_new_documents();
        let now = self.world.now();
        loop {
            let at = self
                .triggers
                .at
                .first()
                .filter(|(ms, _)| *ms <= now)
                .map(|&(ms, i)| (ms, 0u8, i));
            let when = self.triggers.ready.first().map(|&i| (0u64, 1u8, i));
            let (_, kind, place) = at.into_iter().chain(when).min()?;
            if kind == 0 {
                self.triggers.at.pop_first();
                return Some(place);
            }
            self.triggers.ready.pop_first();
            // A name bound to a document, then to something else, waits again.
            let block = self.triggers.blocks[place];
            match awaited(block) {
                Some(doc) if !self.exists(doc) => {
                    self.triggers.waiting.entry(doc).or_default().insert(place);
                }
                _ => return Some(place),
            }
        }
    }

    /// Whether a `when DOC exists:` block would fire now.
    pub(super) fn exists_trigger_due(&self) -> bool {
        !self.triggers.ready.is_empty() || self.triggers.waiting.keys().any(|doc| self.exists(doc))
    }

    /// Runs the actions of every `at`/`when` block whose trigger holds now: `at` blocks in
    /// time order, then `when` blocks, each in the order its line came. A failing action is
    /// reported with its own line.
    pub(super) fn fire_due_triggers(&mut self) -> Result<bool, TriggerError> {
        let mut fired = false;
        while let Some(place) = self.next_due_block() {
            let trigger = self.triggers.blocks[place];
            fired = true;
            if let ActionKind::Trigger { when, actions } = &trigger.kind {
                let what = match when {
                    Trigger::At(ms) => format!("at {ms}ms"),
                    Trigger::Exists(doc) => format!("when {doc} exists"),
                };
                self.world
                    .harness_note(|_| format!("the block of line {} runs ({what})", trigger.line));
                for a in actions {
                    self.act(a).map_err(|error| TriggerError {
                        path: self.file.path.clone(),
                        line: a.line,
                        error,
                    })?;
                }
            }
        }
        Ok(fired)
    }

    /// The earliest `at` block still to come.
    pub fn next_at(&self) -> Option<u64> {
        self.triggers.at.first().map(|&(ms, _)| ms)
    }

    /// When nothing can run now and an `at` block is due within `limit`, no later than the
    /// page's next timer, moves the clock to it (the block then runs before that timer).
    pub(super) fn clock_to_next_at(&mut self, limit: Option<u64>) -> bool {
        let Some(at) = self.next_at() else {
            return false;
        };
        let within = limit.is_some_and(|l| at <= l);
        let before_timers = self.world.next_timer_due().is_none_or(|t| at <= t);
        if within && before_timers && self.world.candidates().is_empty() {
            self.world.advance_clock_to(at);
            return true;
        }
        false
    }

    /// Where `webmcp-ref serve` starts serving a subtest: at its `serve` line, or, without
    /// one, at its first line that drives the simulation or expects something.
    pub fn serve_point(subtest: &Subtest) -> usize {
        subtest
            .actions
            .iter()
            .position(|a| matches!(a.kind, ActionKind::Serve))
            .or_else(|| {
                subtest.actions.iter().position(|a| {
                    matches!(
                        a.kind,
                        ActionKind::Run(_)
                            | ActionKind::Expect(_)
                            | ActionKind::Observe {
                                expect: Some(_),
                                ..
                            }
                    )
                })
            })
            .unwrap_or(subtest.actions.len())
    }

    /// Serving: acts on the subtest's lines up to its serve point (driving the simulation
    /// and checking expectations as `run` does). An error, or an expectation that does not
    /// hold, is returned as the lines a report would print.
    pub fn run_to_serve_point(&mut self) -> Result<(), NotServable> {
        self.end = Self::serve_point(self.subtest);
        while let Next::Choice(candidates) = self.advance() {
            self.take(&candidates, None);
        }
        let mut problems = self.messages.clone();
        for e in &self.expectations {
            if !e.passed && !e.sometimes {
                problems.push(format!(
                    "{}:{}:{}: {} (expected {}, actual {})",
                    self.file.path, e.line, e.column, e.text, e.expected, e.actual
                ));
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(NotServable { problems })
        }
    }

    /// Serving: runs one unit of work, or the actions of one due `at`/`when` block, letting
    /// the clock move no further than `limit` (`None`: not at all). `Ok(false)` when nothing
    /// is left to do within it. A failing block action is an `Err`; the block is gone and
    /// serving can go on.
    ///
    /// What the page runs until it is next idle shares the budgets of a line (see
    /// `host::budget`): a page that never idles is stopped after `--max-units` units.
    pub fn serve_step(&mut self, limit: Option<u64>) -> Result<bool, TriggerError> {
        if self.world.is_stopped() {
            return Ok(false);
        }
        if self.fire_due_triggers()? {
            return Ok(true);
        }
        if self.clock_to_next_at(limit) {
            self.fire_due_triggers()?;
            return Ok(true);
        }
        let Some((first, width)) = self.world.next_candidate(limit) else {
            // Idle: what runs next begins a budget of its own.
            self.busy_units = 0;
            self.world.end_line();
            return Ok(false);
        };
        if self.busy_units == 0 {
            self.world.begin_line();
        }
        match width {
            1 => {
                self.world.run_unit(first, None);
                self.unit_ran();
            }
            _ => self.choose_inline(first, width),
        }
        self.busy_units += 1;
        if self.busy_units >= self.world.budgets.max_units {
            self.world.stop_for_units(self.busy_units);
        }
        Ok(true)
    }

    /// The earliest time something is due: one of the page's timers, or an `at` block.
    pub fn next_due(&self) -> Option<u64> {
        match (self.world.next_timer_due(), self.next_at()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}
