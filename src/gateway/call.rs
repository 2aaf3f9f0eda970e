//! `webmcp_call` and page tools called by their MCP names: the browser agent's call runs
//! `executeTool()` from the tool's own document, with a signal the agent's cancellation aborts.

use serde_json::Value as Json;

use super::answers::{Answer, Reply};
use super::arguments::PageRef;
use super::driver::{Deadline, Driver};
use super::handle::ToolRef;
use super::keeper::Slot;
use crate::host::keys::{DocumentKey, SignalKey};
use crate::host::promise::PromiseState;
use crate::host::value::{Facet, Value};
use crate::prelude::*;
use crate::webmcp::ExecutionKey;

/// A call under way: its execution in the engine, the signal cancelling it aborts, its
/// deadline, and where its answer goes.
pub(super) struct PendingCall {
    pub(super) execution: ExecutionKey,
    pub(super) signal: SignalKey,
    pub(super) tool: String,
    pub(super) document: String,
    pub(super) timeout_ms: u64,
    pub(super) deadline: u64,
    pub(super) reply: Slot<Reply>,
}

/// The answer of a call whose deadline passed while the page was inside one unit of work that
/// had not ended (see `keeper`): its signal is aborted when the unit ends.
pub(super) fn busy_answer(tool: &str, timeout_ms: u64) -> Reply {
    let mut a = Answer::error();
    let line = format!(
        "**Tool {} did not answer within {timeout_ms} ms:** the page was running one unit of work (a script that had not returned) when the time was up; the gateway aborts the call's signal (the page sees toolcancel) when that unit ends.",
        a.quote(tool),
    );
    a.line(line);
    a.field("outcome", "timed-out");
    a.field("busy", true);
    a.field("waitedMs", timeout_ms);
    a.finish()
}

impl Driver<'_> {
    /// Finds a page tool: by its MCP name (`pageP.toolN`, unique across pages), or (for
    /// `webmcp_call`) by its WebMCP name, in the page named when one is, else in every open
    /// page.
    pub(super) fn find_tool(
        &mut self,
        page: &PageRef,
        tool: &ToolRef,
    ) -> Result<(DocumentKey, String), Reply> {
        let scope = match tool {
            ToolRef::Named(_) if page.name.is_some() || page.id.is_some() => {
                Some(self.resolve_page(page)?.1)
            }
            _ => None,
        };
        let wanted = match tool {
            ToolRef::Mcp(n) | ToolRef::Named(n) => n.clone(),
        };
        let tools = self.all_page_tools();
        if let Some(found) = tools.iter().find(|l| l.mcp == wanted) {
            return Ok((found.doc, found.name.clone()));
        }
        let by_name: Vec<_> = match tool {
            ToolRef::Named(_) => tools
                .iter()
                .filter(|l| l.name == wanted && scope.is_none_or(|id| id == l.page_id))
                .collect(),
            ToolRef::Mcp(_) => Vec::new(),
        };
        match by_name.as_slice() {
            [one] => Ok((one.doc, one.name.clone())),
            [] => {
                let mut a = Answer::error();
                let where_ = match scope {
                    Some(id) => format!("on page {id}"),
                    None => "on the open pages".into(),
                };
                a.line(format!("**No tool {} {where_} now.**", a.quote(&wanted)));
                let names: Vec<String> = tools.iter().map(|l| a.quote(&l.mcp)).collect();
                a.line(format!(
                    "Tools of the open pages (MCP names): {}.",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ));
                a.field("outcome", "no-such-tool");
                a.field(
                    "tools",
                    tools.iter().map(|l| l.mcp.clone()).collect::<Vec<_>>(),
                );
                Err(a.finish())
            }
            many => {
                let mut a = Answer::error();
                let names: Vec<String> = many.iter().map(|l| a.quote(&l.mcp)).collect();
                a.line(format!(
                    "**Several documents have a tool of that name;** name one by its MCP name: {}.",
                    names.join(", ")
                ));
                a.field("outcome", "ambiguous-tool");
                a.field(
                    "tools",
                    many.iter().map(|l| l.mcp.clone()).collect::<Vec<_>>(),
                );
                Err(a.finish())
            }
        }
    }

    pub(super) fn start_call(
        &mut self,
        id: u64,
        page: PageRef,
        tool: ToolRef,
        input: Json,
        timeout_ms: u64,
        reply: Slot<Reply>,
    ) {
        let (doc, name) = match self.find_tool(&page, &tool) {
            Ok(found) => found,
            Err(answer) => {
                let _ = reply.send(answer);
                return;
            }
        };
        // The characters that stand for lone surrogates inside the engine (text::js_string)
        // cannot come from an agent as themselves.
        let input_text = input.to_string();
        if let Some((_, _, c)) = crate::text::js_string::first_reserved(&input_text) {
            let mut a = super::answers::Answer::error();
            a.line(format!(
                "**The arguments of tool {} cannot be given to the page:** {}",
                a.quote(&name),
                crate::text::js_string::reserved_message(c)
            ));
            a.field("outcome", "bad-arguments");
            let _ = reply.send(a.finish());
            return;
        }
        let w = &mut self.run.world;
        let Some(definition) = w.model_context(doc).tool_map.get(&name).cloned() else {
            let _ = reply.send(call_answer(
                &name,
                &w.label(doc),
                CallOutcome::Failed("it is no longer registered".into()),
            ));
            return;
        };
        // The browser agent's call runs executeTool() from the tool's own document: the spec
        // has no algorithm for the agent's invocation, and executeTool() is the nearest.
        let signal = w.new_abort_controller(doc, "the agent's call");
        let registered = Value::object(vec![
            ("name".into(), Value::string(&definition.name)),
            ("description".into(), Value::string(&definition.description)),
            ("window".into(), Value::Window(doc, Facet::Window)),
            (
                "origin".into(),
                Value::string(w.documents[doc].origin.serialize()),
            ),
        ]);
        let input = Value::from_json_str(&input_text).unwrap_or(Value::object(Vec::new()));
        let options = Value::object(vec![("signal".into(), Value::Signal(signal))]);
        w.harness_note(|w| format!("the agent calls {name:?} in {}", w.label(doc)));
        let promise = w.execute_tool(doc, registered, input, options);
        let document = w.label(doc);
        let execution = w.webmcp().execution_of_promise(promise);
        match execution {
            Some(execution) => {
                let deadline = self.add_deadline(Deadline::Call(id), timeout_ms);
                self.calls.insert(
                    id,
                    PendingCall {
                        execution,
                        signal,
                        tool: name,
                        document,
                        timeout_ms,
                        deadline,
                        reply,
                    },
                );
            }
            None => {
                // executeTool() rejected before anything ran in parallel.
                let why = match w.promise_state(promise) {
                    PromiseState::Rejected(v) => w.display_value(v),
                    _ => "it did not run".into(),
                };
                let _ = reply.send(call_answer(&name, &document, CallOutcome::Failed(why)));
            }
        }
    }

    /// Aborts a call's signal and forgets it (the agent cancelled it, or its time ran out).
    pub(super) fn cancel_call(&mut self, id: u64, why: &str) -> Option<PendingCall> {
        let call = self.calls.remove(&id)?;
        self.remove_deadline(call.deadline);
        let reason = Value::error(crate::ErrorValue::dom("AbortError", why));
        self.run.world.signal_abort(call.signal, Some(reason));
        Some(call)
    }

    pub(super) fn call_timed_out(&mut self, id: u64) {
        let Some(call) = self.cancel_call(id, "the agent's call timed out") else {
            return;
        };
        let mut a = Answer::error();
        let line = format!(
            "**Tool {} of document {} did not answer within {} ms;** the gateway aborted its signal (the page sees toolcancel).",
            a.page(&call.tool),
            a.page(&call.document),
            call.timeout_ms
        );
        a.line(line);
        a.field("outcome", "timed-out");
        a.field("waitedMs", call.timeout_ms);
        a.untrusted("tool", call.tool.clone());
        a.untrusted("document", call.document.clone());
        let _ = call.reply.send(a.finish());
    }

    pub(super) fn check_calls(&mut self) {
        if self.calls.is_empty() {
            return;
        }
        let done: Vec<u64> = self
            .calls
            .iter()
            .filter(|(_, c)| {
                self.world().webmcp().executions[c.execution]
                    .outcome
                    .is_some()
            })
            .map(|(&id, _)| id)
            .collect();
        for id in done {
            let Some(call) = self.calls.remove(&id) else {
                continue;
            };
            self.remove_deadline(call.deadline);
            let outcome = match &self.world().webmcp().executions[call.execution].outcome {
                // A null result (the execution navigated its document) reads as an empty one.
                Some(Ok(result)) => CallOutcome::Returned(result.clone().unwrap_or_default()),
                Some(Err(e)) => CallOutcome::Failed(if e.message.is_empty() {
                    e.name.clone()
                } else {
                    format!("{}: {}", e.name, e.message)
                }),
                None => continue,
            };
            let _ = call
                .reply
                .send(call_answer(&call.tool, &call.document, outcome));
        }
    }
}

/// How a call ended, for its answer.
enum CallOutcome {
    /// The tool's result, serialized.
    Returned(String),
    /// Why it failed: an exception's name and message, or why it could not run.
    Failed(String),
}

fn call_answer(tool: &str, document: &str, outcome: CallOutcome) -> Reply {
    match outcome {
        CallOutcome::Returned(result) => {
            let mut a = Answer::new();
            let line = format!(
                "Tool {} of document {} returned:",
                a.page(tool),
                a.page(document)
            );
            a.line(line);
            let block = a.page_block("text", &result);
            a.line(block);
            a.field("outcome", "returned");
            a.untrusted("tool", tool);
            a.untrusted("document", document);
            a.untrusted("result", result);
            a.finish()
        }
        CallOutcome::Failed(why) => {
            let mut a = Answer::error();
            let line = format!(
                "**Tool {} of document {} failed:** {}",
                a.page(tool),
                a.page(document),
                a.page(&why)
            );
            a.line(line);
            a.field("outcome", "failed");
            a.untrusted("tool", tool);
            a.untrusted("document", document);
            a.untrusted("error", why);
            a.finish()
        }
    }
}
