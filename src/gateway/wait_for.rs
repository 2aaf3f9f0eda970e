//! `webmcp_wait_for`: a wait registers one listener (checked after every unit of work) and two
//! timers (its deadline, and a periodic re-read), and answers when its condition holds, its
//! page closes or its deadline passes; all three are removed before it answers.

use std::time::Instant;

use tokio::sync::oneshot;

use super::answers::{Answer, Reply};
use super::arguments::WaitArgs;
use super::conditions::{Condition, PageState, Verdict, WaitStart, REREAD_MS};
use super::driver::{Driver, TimerPurpose};
use super::handle::WaitReply;
use crate::host::keys::NavigableKey;

/// A wait under way: what it waits for, on which page, what the page was at its start, its
/// two timers, and where its answer goes.
pub(super) struct Wait {
    pub(super) args: WaitArgs,
    pub(super) page: NavigableKey,
    pub(super) page_id: usize,
    pub(super) start: WaitStart,
    pub(super) deadline: u64,
    pub(super) reread: u64,
    pub(super) reply: oneshot::Sender<WaitReply>,
}

impl Driver<'_> {
    pub(super) fn start_wait(
        &mut self,
        id: u64,
        args: WaitArgs,
        reply: oneshot::Sender<WaitReply>,
    ) {
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
        let now = start.at;
        let state = PageState::read(self.world(), page, page_id, &start);
        let verdict = state.verdict(&args.condition);
        if verdict != Verdict::NotYet {
            let _ = reply.send(WaitReply {
                reply: wait_answer(&args.condition, &state, verdict, 0),
                held_at: (verdict == Verdict::Holds).then(Instant::now),
            });
            return;
        }
        let deadline = self.add_timer(now + args.timeout_ms, TimerPurpose::Deadline(id));
        let reread = self.add_timer(now + REREAD_MS, TimerPurpose::Reread(id));
        self.listeners.insert(id);
        self.waits.insert(
            id,
            Wait {
                args,
                page,
                page_id,
                start,
                deadline,
                reread,
                reply,
            },
        );
    }

    /// Removes a wait with its listener and timers; returns it.
    pub(super) fn end_wait(&mut self, id: u64) -> Option<Wait> {
        let w = self.waits.remove(&id)?;
        self.listeners.remove(&id);
        for timer in [w.deadline, w.reread] {
            let due = self
                .timers
                .iter()
                .find(|&&(_, t)| t == timer)
                .map(|&(due, _)| due);
            if let Some(due) = due {
                self.remove_timer(timer, due);
            }
        }
        Some(w)
    }

    /// Re-reads a wait's page; answers it when its condition holds (or never can). Returns
    /// whether it has answered.
    pub(super) fn check_wait(&mut self, id: u64, seen_at: Instant) -> bool {
        let Some(w) = self.waits.get(&id) else {
            return true;
        };
        let state = PageState::read(self.world(), w.page, w.page_id, &w.start);
        let verdict = state.verdict(&w.args.condition);
        if verdict == Verdict::NotYet {
            return false;
        }
        let waited = self.world().now() - w.start.at;
        let Some(w) = self.end_wait(id) else {
            return true;
        };
        let held_at = (verdict == Verdict::Holds).then_some(seen_at);
        let reply = wait_answer(&w.args.condition, &state, verdict, waited);
        let _ = w.reply.send(WaitReply { reply, held_at });
        if let (Some(at), Ok(mut m)) = (held_at, self.matches.lock()) {
            if m.len() >= 1000 {
                m.remove(0);
            }
            m.push(at);
        }
        true
    }

    pub(super) fn time_out(&mut self, id: u64) {
        let Some(w) = self.waits.get(&id) else {
            return;
        };
        let state = PageState::read(self.world(), w.page, w.page_id, &w.start);
        // A condition that holds at the deadline wins over the timeout.
        if state.verdict(&w.args.condition) == Verdict::Holds {
            self.check_wait(id, Instant::now());
            return;
        }
        let waited = self.world().now() - w.start.at;
        let Some(w) = self.end_wait(id) else {
            return;
        };
        let mut a = Answer::new();
        let what = w.args.condition.describe(&a);
        a.line(format!("Timed out after {waited} ms waiting for {what}."));
        a.blank();
        a.line("Last state:");
        state.write_state(&mut a);
        let _ = w.reply.send(WaitReply {
            reply: a.finish(),
            held_at: None,
        });
    }

    /// The periodic re-read: check the wait, and re-arm the timer while it goes on.
    pub(super) fn reread(&mut self, wait: u64, now: u64) {
        if self.check_wait(wait, Instant::now()) {
            return;
        }
        let timer = self.add_timer(now + REREAD_MS, TimerPurpose::Reread(wait));
        if let Some(w) = self.waits.get_mut(&wait) {
            w.reread = timer;
        }
    }
}

/// The answer of a wait that ended: its condition held, or its page was closed.
fn wait_answer(condition: &Condition, state: &PageState, verdict: Verdict, waited: u64) -> Reply {
    match verdict {
        Verdict::PageClosed => {
            let mut a = Answer::error();
            let what = condition.describe(&a);
            a.line(format!(
                "**Page {} (id {}) was closed** while waiting for {what} (after {waited} ms): the condition can no longer hold.",
                a.quote(&state.name),
                state.id
            ));
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
            a.finish()
        }
    }
}
