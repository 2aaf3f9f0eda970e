//! `webmcp_observe`: the browser agent's observation of a page (perform an observation,
//! which waits for its tools to be ready first), answered when the engine has its result.

use tokio::sync::oneshot;

use super::answers::{Answer, Reply};
use super::arguments::PageRef;
use super::driver::Driver;
use super::tools::mcp_tool_name;
use crate::host::keys::NavigableKey;
use crate::prelude::*;
use crate::webmcp::readiness::WaitOutcome;
use crate::webmcp::ObservationKey;

/// An observation under way, answered once the engine has its result.
pub(super) struct PendingObservation {
    pub(super) key: ObservationKey,
    pub(super) page: NavigableKey,
    pub(super) page_id: usize,
    pub(super) reply: oneshot::Sender<Reply>,
}

impl Driver<'_> {
    pub(super) fn start_observation(&mut self, page: PageRef, reply: oneshot::Sender<Reply>) {
        let (page, page_id) = match self.resolve_page(&page) {
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
        let label = format!("agent observation {}", self.observations.len() + 1);
        let key = self.run.world.observe(top, &label);
        self.observations.push(PendingObservation {
            key,
            page,
            page_id,
            reply,
        });
    }

    pub(super) fn check_observations(&mut self) {
        let mut i = 0;
        while i < self.observations.len() {
            if self
                .world()
                .observation_result(self.observations[i].key)
                .is_some()
            {
                let o = self.observations.remove(i);
                let answer = self.observation_answer(&o);
                let _ = o.reply.send(answer);
            } else {
                i += 1;
            }
        }
    }

    pub(super) fn observation_answer(&self, o: &PendingObservation) -> Reply {
        let w = self.world();
        let mut a = Answer::new();
        let Some(result) = w.observation_result(o.key) else {
            return a.finish();
        };
        let page = a.quote(&w.navigables[o.page].label);
        let waited = result.waited_ms;
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
            return a.finish();
        };
        for doc in map {
            a.blank();
            let key = w.document_named(&doc.document);
            let url = key
                .map(|d| a.page(w.documents[d].url.as_str()))
                .unwrap_or_default();
            let frame = key
                .map(|d| w.navigables[w.documents[d].navigable].label.clone())
                .unwrap_or_default();
            a.line(format!(
                "### Document {} at {url} (unique ID {})",
                a.quote(&doc.document),
                doc.unique_id
            ));
            if doc.tools.is_empty() {
                a.line("- no tools");
            }
            for t in &doc.tools {
                let line = format!(
                    "- {} (MCP tool {})",
                    a.page(&t.name),
                    a.page(&mcp_tool_name(&frame, &t.name))
                );
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
            }
        }
        a.finish()
    }
}
