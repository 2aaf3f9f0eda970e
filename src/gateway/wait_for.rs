//! `webmcp_wait_for`: a wait is indexed under its page by what can end it, has one deadline,
//! and answers when its condition holds, its page closes or its deadline passes; its index
//! entry and deadline are removed before it answers.
//!
//! After every unit of work the driver reads each waited-on page's [`PageView`] and compares
//! it with the last one: only the waits that the difference concerns are looked at (a tool
//! name that appeared wakes the `tool` waits for that name and the patterns; readiness that
//! became true wakes the `tools-ready` waits; and so on). A change that concerns no wait costs
//! one reading of the page, however many waits there are.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use super::answers::{Answer, Reply};
use super::arguments::WaitArgs;
use super::conditions::{Condition, PageState, PageView, Pattern, Verdict, WaitStart};
use super::driver::{Clock, Deadline, Driver};
use super::handle::WaitReply;
use super::keeper::Slot;
use crate::host::keys::NavigableKey;
use crate::webmcp::ToolchangeCount;

/// A wait under way: what it waits for, on which page, what the page was at its start, its
/// deadline, and where its answer goes.
pub(super) struct Wait {
    pub(super) args: WaitArgs,
    pub(super) page: NavigableKey,
    pub(super) page_id: usize,
    pub(super) start: WaitStart,
    /// The page's `toolchange` counts at the start.
    pub(super) toolchanges_at_start: ToolchangeCount,
    pub(super) deadline: u64,
    pub(super) reply: Slot<WaitReply>,
}

/// A page's waits, by what can end them, and the page as last read.
#[derive(Default)]
pub(super) struct PageWaits {
    view: PageView,
    tools_ready: BTreeSet<u64>,
    /// `tool` with a name without `*`, by that name; with a pattern.
    tool: BTreeMap<String, BTreeSet<u64>>,
    tool_patterns: BTreeSet<u64>,
    gone: BTreeMap<String, BTreeSet<u64>>,
    gone_patterns: BTreeSet<u64>,
    navigation: BTreeSet<u64>,
    /// `toolchange` without `ready`, with `ready: false`, with `ready: true`.
    toolchange: [BTreeSet<u64>; 3],
    all: BTreeSet<u64>,
}

impl PageWaits {
    pub(super) fn len(&self) -> usize {
        self.all.len()
    }

    fn exact(p: &Pattern) -> Option<&str> {
        (!p.0.contains('*')).then_some(p.0.as_str())
    }

    fn insert(&mut self, id: u64, condition: &Condition) {
        self.all.insert(id);
        match condition {
            Condition::ToolsReady => {
                self.tools_ready.insert(id);
            }
            Condition::Tool(p) => match Self::exact(p) {
                Some(name) => {
                    self.tool.entry(name.into()).or_default().insert(id);
                }
                None => {
                    self.tool_patterns.insert(id);
                }
            },
            Condition::ToolGone(p) => match Self::exact(p) {
                Some(name) => {
                    self.gone.entry(name.into()).or_default().insert(id);
                }
                None => {
                    self.gone_patterns.insert(id);
                }
            },
            Condition::Navigation(_) => {
                self.navigation.insert(id);
            }
            Condition::Toolchange(ready) => {
                let slot = match ready {
                    None => 0,
                    Some(false) => 1,
                    Some(true) => 2,
                };
                self.toolchange[slot].insert(id);
            }
        }
    }

    fn remove(&mut self, id: u64, condition: &Condition) {
        self.all.remove(&id);
        let from_map = |m: &mut BTreeMap<String, BTreeSet<u64>>, name: &str| {
            if let Some(set) = m.get_mut(name) {
                set.remove(&id);
                if set.is_empty() {
                    m.remove(name);
                }
            }
        };
        match condition {
            Condition::ToolsReady => {
                self.tools_ready.remove(&id);
            }
            Condition::Tool(p) => match Self::exact(p) {
                Some(name) => from_map(&mut self.tool, name),
                None => {
                    self.tool_patterns.remove(&id);
                }
            },
            Condition::ToolGone(p) => match Self::exact(p) {
                Some(name) => from_map(&mut self.gone, name),
                None => {
                    self.gone_patterns.remove(&id);
                }
            },
            Condition::Navigation(_) => {
                self.navigation.remove(&id);
            }
            Condition::Toolchange(_) => {
                for set in &mut self.toolchange {
                    set.remove(&id);
                }
            }
        }
    }

    /// The waits the change from the last view to `new` can concern.
    fn concerned(&self, new: &PageView) -> Vec<u64> {
        let old = &self.view;
        if new.closed {
            return self.all.iter().copied().collect();
        }
        let mut out: BTreeSet<u64> = BTreeSet::new();
        if new.all_ready && !old.all_ready {
            out.extend(&self.tools_ready);
        }
        let appeared: Vec<&String> = new
            .tool_names
            .keys()
            .filter(|n| !old.tool_names.contains_key(*n))
            .collect();
        let vanished: Vec<&String> = old
            .tool_names
            .keys()
            .filter(|n| !new.tool_names.contains_key(*n))
            .collect();
        for n in &appeared {
            if let Some(ids) = self.tool.get(n.as_str()) {
                out.extend(ids);
            }
        }
        if !appeared.is_empty() {
            out.extend(&self.tool_patterns);
        }
        for n in &vanished {
            if let Some(ids) = self.gone.get(n.as_str()) {
                out.extend(ids);
            }
        }
        if !vanished.is_empty() {
            out.extend(&self.gone_patterns);
        }
        if !new.navigating && (old.navigating || old.url != new.url) {
            out.extend(&self.navigation);
        }
        let (o, n) = (old.toolchanges, new.toolchanges);
        if n.all > o.all {
            out.extend(&self.toolchange[0]);
        }
        if n.with_ready[0] > o.with_ready[0] {
            out.extend(&self.toolchange[1]);
        }
        if n.with_ready[1] > o.with_ready[1] {
            out.extend(&self.toolchange[2]);
        }
        out.into_iter().collect()
    }
}

/// Whether a condition holds on the page as `view` shows it, for a wait that started when
/// the page's `toolchange` counts were `at_start`.
fn verdict(view: &PageView, condition: &Condition, at_start: ToolchangeCount) -> Verdict {
    if view.closed {
        return Verdict::PageClosed;
    }
    let holds = match condition {
        Condition::ToolsReady => view.all_ready,
        Condition::Tool(p) => view.tool_names.keys().any(|n| p.matches(n)),
        Condition::ToolGone(p) => !view.tool_names.keys().any(|n| p.matches(n)),
        Condition::Navigation(url) => {
            !view.navigating && url.as_ref().is_none_or(|p| p.matches(&view.url))
        }
        Condition::Toolchange(ready) => {
            let now = view.toolchanges;
            match ready {
                None => now.all > at_start.all,
                Some(r) => now.with_ready[usize::from(*r)] > at_start.with_ready[usize::from(*r)],
            }
        }
    };
    if holds {
        Verdict::Holds
    } else {
        Verdict::NotYet
    }
}

impl Driver<'_> {
    pub(super) fn start_wait(&mut self, id: u64, args: WaitArgs, reply: Slot<WaitReply>) {
        let (page, page_id) = match self.resolve_page(&args.page) {
            Ok(p) => p,
            Err(answer) => {
                let _ = reply.send(WaitReply {
                    reply: answer,
                    held_at: None,
                });
                return;
            }
        };
        let start = WaitStart::now(self.world(), page);
        let view = PageView::read(self.world(), page);
        let at_start = view.toolchanges;
        let v = verdict(&view, &args.condition, at_start);
        if v != Verdict::NotYet {
            let state = PageState::read(&self.run.world, page, page_id, &start, &mut self.names);
            let _ = reply.send(WaitReply {
                reply: wait_answer(&args.condition, &state, v, 0),
                held_at: (v == Verdict::Holds).then(Instant::now),
            });
            return;
        }
        let deadline = self.add_deadline(Deadline::Wait(id), args.timeout_ms);
        let index = self.page_waits.entry(page).or_default();
        if index.all.is_empty() {
            index.view = view;
        }
        index.insert(id, &args.condition);
        self.waits.insert(
            id,
            Wait {
                args,
                page,
                page_id,
                start,
                toolchanges_at_start: at_start,
                deadline,
                reply,
            },
        );
    }

    /// Removes a wait with its index entry and deadline; returns it.
    pub(super) fn end_wait(&mut self, id: u64) -> Option<Wait> {
        let w = self.waits.remove(&id)?;
        if let Some(index) = self.page_waits.get_mut(&w.page) {
            index.remove(id, &w.args.condition);
            if index.all.is_empty() {
                self.page_waits.remove(&w.page);
            }
        }
        self.remove_deadline(w.deadline);
        Some(w)
    }

    /// Reads each waited-on page again and answers the waits its change ends.
    pub(super) fn check_waits(&mut self, seen_at: Instant) {
        let pages: Vec<NavigableKey> = self.page_waits.keys().copied().collect();
        for page in pages {
            let view = PageView::read(self.world(), page);
            let Some(index) = self.page_waits.get_mut(&page) else {
                continue;
            };
            if index.view == view {
                continue;
            }
            let concerned = index.concerned(&view);
            index.view = view;
            for id in concerned {
                self.check_wait(id, seen_at);
            }
        }
    }

    /// Answers a wait when its condition holds (or never can) on its page's last view.
    /// Returns whether it has answered.
    fn check_wait(&mut self, id: u64, seen_at: Instant) -> bool {
        let Some(w) = self.waits.get(&id) else {
            return true;
        };
        let Some(index) = self.page_waits.get(&w.page) else {
            return true;
        };
        let v = verdict(&index.view, &w.args.condition, w.toolchanges_at_start);
        if v == Verdict::NotYet {
            return false;
        }
        let waited = self.world().now() - w.start.at;
        let Some(w) = self.end_wait(id) else {
            return true;
        };
        let state = PageState::read(
            &self.run.world,
            w.page,
            w.page_id,
            &w.start,
            &mut self.names,
        );
        let held_at = (v == Verdict::Holds).then_some(seen_at);
        let reply = wait_answer(&w.args.condition, &state, v, waited);
        let _ = w.reply.send(WaitReply { reply, held_at });
        if let (Some(at), Ok(mut m)) = (held_at, self.matches.lock()) {
            if m.len() >= 1000 {
                m.remove(0);
            }
            m.push(at);
        }
        true
    }

    /// A wait's deadline passed (on the virtual clock, or in real time).
    pub(super) fn time_out(&mut self, id: u64) {
        let Some(w) = self.waits.get(&id) else {
            return;
        };
        // A condition that holds at the deadline wins over the timeout.
        let view = PageView::read(self.world(), w.page);
        if verdict(&view, &w.args.condition, w.toolchanges_at_start) != Verdict::NotYet {
            if let Some(index) = self.page_waits.get_mut(&w.page) {
                index.view = view;
            }
            self.check_wait(id, Instant::now());
            return;
        }
        let virtual_waited = self.world().now() - w.start.at;
        let Some(w) = self.end_wait(id) else {
            return;
        };
        let state = PageState::read(
            &self.run.world,
            w.page,
            w.page_id,
            &w.start,
            &mut self.names,
        );
        let mut a = Answer::new();
        let what = w.args.condition.describe(&a);
        a.line(format!(
            "Timed out after {} ms waiting for {what}.",
            w.args.timeout_ms
        ));
        if self.clock == Clock::Virtual && virtual_waited < w.args.timeout_ms {
            a.line(format!(
                "(The page's own clock moved {virtual_waited} ms meanwhile: its scripts kept it busy, so the real-time deadline ended the wait.)"
            ));
        }
        a.blank();
        a.line("Last state:");
        state.write_state(&mut a);
        a.field("outcome", "timed-out");
        a.field("condition", w.args.condition.name());
        a.field("waitedMs", w.args.timeout_ms);
        a.field("pageId", w.page_id as u64);
        a.untrusted("state", state.to_json());
        let _ = w.reply.send(WaitReply {
            reply: a.finish(),
            held_at: None,
        });
    }
}

/// The answer of a wait whose deadline passed while the page was inside one unit of work that
/// had not ended (see `keeper`): its state cannot be read until the unit ends.
pub(super) fn busy_answer(condition: &Condition, timeout_ms: u64) -> Reply {
    let mut a = Answer::new();
    let what = condition.describe(&a);
    a.line(format!(
        "Timed out after {timeout_ms} ms waiting for {what}: the page was running one unit of work (a script that had not returned) when the time was up, so its state could not be read."
    ));
    a.field("outcome", "timed-out");
    a.field("condition", condition.name());
    a.field("busy", true);
    a.field("waitedMs", timeout_ms);
    a.finish()
}

/// The answer of a wait that ended: its condition held, or its page was closed.
fn wait_answer(condition: &Condition, state: &PageState, verdict: Verdict, waited: u64) -> Reply {
    match verdict {
        Verdict::PageClosed => {
            let mut a = Answer::error();
            let what = condition.describe(&a);
            a.line(format!(
                "**Page {} (id {}) was closed** while waiting for {what} (after {waited} ms): the condition can no longer hold.",
                a.page(&state.name),
                state.id
            ));
            a.field("outcome", "page-closed");
            a.field("condition", condition.name());
            a.field("waitedMs", waited);
            a.field("pageId", state.id as u64);
            a.untrusted("state", state.to_json());
            a.finish()
        }
        Verdict::Holds | Verdict::NotYet => {
            let mut a = Answer::new();
            let what = condition.describe(&a);
            a.line(format!("Condition {what} holds (after {waited} ms)."));
            state.write_match(condition, &mut a);
            a.blank();
            a.line("State:");
            state.write_state(&mut a);
            a.field("outcome", "holds");
            a.field("condition", condition.name());
            a.field("waitedMs", waited);
            a.field("pageId", state.id as u64);
            a.untrusted("state", state.to_json());
            a.finish()
        }
    }
}
