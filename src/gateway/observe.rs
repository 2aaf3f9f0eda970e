//! `webmcp_observe`: the browser agent's observation of a page (perform an observation,
//! which waits for its tools to be ready first), answered when the engine has its result.
//!
//! Observations queue: the browser agent performs them one at a time on its one AI agent
//! queue, so one asked for while another waits for a page's tools to be ready starts only when
//! that one ends. The request's `timeoutMs` bounds the whole, queueing included; when it
//! passes, or when the agent cancels the request, the browser agent abandons the observation
//! (the engine's "abandon an observation"), and the ones behind it do not wait for it.

use std::time::Instant;

use serde_json::json;

use super::answers::{Answer, Reply};
use super::arguments::ObserveArgs;
use super::driver::{Deadline, Driver};
use super::keeper::Slot;
use crate::host::keys::NavigableKey;
use crate::prelude::*;
use crate::webmcp::readiness::WaitOutcome;
use crate::webmcp::ObservationKey;

/// An observation under way, answered once the engine has its result.
pub(super) struct PendingObservation {
    pub(super) key: ObservationKey,
    pub(super) page: NavigableKey,
    pub(super) page_id: usize,
    pub(super) timeout_ms: u64,
    pub(super) deadline: u64,
    pub(super) asked_at: Instant,
    pub(super) reply: Slot<Reply>,
}

/// The answer of an observation whose deadline passed while the page was inside one unit of
/// work that had not ended (see `keeper`): the browser agent abandons it when the unit ends.
pub(super) fn busy_answer(timeout_ms: u64) -> Reply {
    let mut a = Answer::new();
    a.line(format!(
        "No observation within {timeout_ms} ms: the page was running one unit of work (a script that had not returned) when the time was up. The browser agent abandons the observation when that unit ends; observe again later."
    ));
    a.field("outcome", "no-observation");
    a.field("busy", true);
    a.field("waitedMs", timeout_ms);
    a.finish()
}

impl Driver<'_> {
    pub(super) fn start_observation(&mut self, id: u64, args: ObserveArgs, reply: Slot<Reply>) {
        let (page, page_id) = match self.resolve_page(&args.page) {
            Ok(p) => p,
            Err(answer) => {
                let _ = reply.send(answer);
                return;
            }
        };
        let Some(top) = self.top_of(page) else {
            let _ = reply.send(self.page_problem("The page has no document."));
            return;
        };
        let label = format!("agent observation {id}");
        let key = self.run.world.observe(top, &label);
        let deadline = self.add_deadline(Deadline::Observation(id), args.timeout_ms);
        self.observations.insert(
            id,
            PendingObservation {
                key,
                page,
                page_id,
                timeout_ms: args.timeout_ms,
                deadline,
                asked_at: Instant::now(),
                reply,
            },
        );
    }

    pub(super) fn check_observations(&mut self) {
        if self.observations.is_empty() {
            return;
        }
        let done: Vec<u64> = self
            .observations
            .iter()
            .filter(|(_, o)| self.world().observation_result(o.key).is_some())
            .map(|(&id, _)| id)
            .collect();
        if !done.is_empty() {
            self.all_page_tools(); // every tool has its MCP name
        }
        for id in done {
            if let Some(o) = self.observations.remove(&id) {
                self.remove_deadline(o.deadline);
                let answer = self.observation_answer(&o);
                let _ = o.reply.send(answer);
            }
        }
    }

    /// The agent cancelled the request: the browser agent abandons the observation.
    pub(super) fn cancel_observation(&mut self, id: u64) {
        if let Some(o) = self.observations.remove(&id) {
            self.remove_deadline(o.deadline);
            self.run.world.abandon_an_observation(o.key);
        }
    }

    /// The request's deadline passed first: the browser agent abandons the observation.
    pub(super) fn observation_timed_out(&mut self, id: u64) {
        let Some(o) = self.observations.remove(&id) else {
            return;
        };
        let queued = self.world().observation(o.key).started_at.is_none();
        let ahead = self
            .observations
            .values()
            .filter(|other| other.asked_at < o.asked_at)
            .count();
        self.run.world.abandon_an_observation(o.key);
        let mut a = Answer::new();
        let why = if queued {
            format!("it was still queued on the browser agent's AI agent queue, behind {ahead} other observation(s) still under way (observations run one at a time)")
        } else {
            "the browser agent was still waiting for the page's tools to be ready".to_string()
        };
        a.line(format!(
            "No observation of page {} within {} ms: {why}. The browser agent abandoned it; observe again, or wait for `tools-ready` first.",
            o.page_id, o.timeout_ms
        ));
        a.field("outcome", "no-observation");
        a.field("pageId", o.page_id as u64);
        a.field("queued", queued);
        a.field("waitedMs", o.timeout_ms);
        let _ = o.reply.send(a.finish());
    }

    pub(super) fn observation_answer(&self, o: &PendingObservation) -> Reply {
        let w = self.world();
        let mut a = Answer::new();
        let Some(result) = w.observation_result(o.key) else {
            return a.finish();
        };
        let page = a.page(&w.navigables[o.page].label);
        let waited = result.waited_ms;
        a.field("outcome", result.outcome.name());
        a.field("pageId", o.page_id as u64);
        a.field("waitedMs", waited);
        match result.outcome {
            WaitOutcome::Ready => a.line(format!(
                "Observation of page {page} (id {}): its tools were ready (the wait took {waited} ms).",
                o.page_id
            )),
            WaitOutcome::TimedOut => a.line(format!(
                "Observation of page {page} (id {}): its tools were still not ready after {waited} ms, the engine's timeout; the browser agent observes the page anyway, as the spec says.",
                o.page_id
            )),
            WaitOutcome::Navigated => {
                let now = self
                    .top_of(o.page)
                    .map(|d| a.page(w.documents[d].url.as_str()))
                    .unwrap_or_default();
                a.line(format!(
                    "No observation: page {page} (id {}) navigated while the browser agent waited for its tools to be ready (after {waited} ms). Its top document is now at {now}; observe again.",
                    o.page_id
                ));
            }
            WaitOutcome::Destroyed => a.line(format!(
                "No observation: page {page} (id {}) was destroyed while the browser agent waited for its tools to be ready (after {waited} ms).",
                o.page_id
            )),
        }
        let Some(map) = &result.tool_map else {
            a.untrusted("page", w.navigables[o.page].label.clone());
            return a.finish();
        };
        let mut documents = Vec::new();
        for doc in map {
            a.blank();
            let key = w.document_named(&doc.document);
            let url = key
                .map(|d| w.documents[d].url.to_string())
                .unwrap_or_default();
            let nav = key.and_then(|d| w.documents[d].navigable);
            a.line(format!(
                "### Document {} at {} (unique ID {})",
                a.page(&doc.document),
                a.page(&url),
                doc.unique_id
            ));
            if doc.tools.is_empty() {
                a.line("- no tools");
            }
            let mut tools = Vec::new();
            for t in &doc.tools {
                let mcp = nav
                    .and_then(|n| self.names.known(n, &t.name))
                    .unwrap_or_default();
                let line = format!("- {} (MCP tool {})", a.page(&t.name), a.quote(&mcp));
                a.line(line);
                if let Some(title) = &t.title {
                    let line = format!("  - title: {}", a.page(title));
                    a.line(line);
                }
                let line = format!("  - description: {}", a.page(&t.description));
                a.line(line);
                let line = format!("  - origin: {}", a.page(&doc.origin));
                a.line(line);
                let hints = t.annotations.unwrap_or_default();
                a.line(format!(
                    "  - annotations: readOnlyHint={}, untrustedContentHint={}",
                    hints.read_only_hint, hints.untrusted_content_hint
                ));
                if t.input_schema.is_empty() {
                    a.line("  - input schema: none");
                } else {
                    a.line("  - input schema:");
                    let block = a.page_block("json", &t.input_schema);
                    for l in block.lines() {
                        a.line(format!("    {l}"));
                    }
                }
                tools.push(json!({
                    "name": t.name,
                    "mcpName": mcp,
                    "title": t.title,
                    "description": t.description,
                    "inputSchema": t.input_schema,
                    "readOnlyHint": hints.read_only_hint,
                    "untrustedContentHint": hints.untrusted_content_hint,
                }));
            }
            documents.push(json!({
                "document": doc.document,
                "uniqueId": doc.unique_id,
                "url": url,
                "origin": doc.origin,
                "tools": tools,
            }));
        }
        a.untrusted("page", w.navigables[o.page].label.clone());
        a.untrusted("documents", documents);
        a.finish()
    }
}
