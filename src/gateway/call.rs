//! `webmcp_call` and page tools called by their MCP names: the browser agent's call runs
//! `executeTool()` from the tool's own document, with a signal the agent's cancellation aborts.

use serde_json::Value as Json;
use tokio::sync::oneshot;

use super::answers::{Answer, Reply};
use super::arguments::PageRef;
use super::driver::Driver;
use super::handle::ToolRef;
use super::tools::mcp_tool_name;
use crate::host::keys::{DocumentKey, SignalKey};
use crate::host::promise::PromiseState;
use crate::host::value::Value;
use crate::prelude::*;
use crate::webmcp::ExecutionKey;

/// A call under way: its execution in the engine, the signal cancelling it aborts, and
/// where its answer goes.
pub(super) struct PendingCall {
    pub(super) execution: ExecutionKey,
    pub(super) signal: SignalKey,
    pub(super) tool: String,
    pub(super) document: String,
    pub(super) reply: oneshot::Sender<Reply>,
}

impl Driver<'_> {
    /// Finds a page tool: by MCP name, or (for `webmcp_call`) by WebMCP name in the page.
    pub(super) fn find_tool(
        &mut self,
        page: &PageRef,
        tool: &ToolRef,
    ) -> Result<(DocumentKey, String), Reply> {
        let mut by_mcp = Vec::new();
        let mut by_name = Vec::new();
        let scope = match tool {
            ToolRef::Mcp(_) => None,
            ToolRef::Named(_) => Some(self.resolve_page(page)?),
        };
        self.for_each_page_tool(|page_id, nav, doc, t| {
            if scope.is_some_and(|(_, id)| id != page_id) {
                return;
            }
            let mcp = mcp_tool_name(&self.world().navigables[nav].label, &t.name);
            let wanted = match tool {
                ToolRef::Mcp(n) | ToolRef::Named(n) => n,
            };
            if mcp == *wanted {
                by_mcp.push((doc, t.name.clone()));
            }
            if matches!(tool, ToolRef::Named(_)) && t.name == *wanted {
                by_name.push((doc, t.name.clone(), mcp));
            }
        });
        if let Some(found) = by_mcp.into_iter().next() {
            return Ok(found);
        }
        match by_name.len() {
            1 => {
                let (doc, name, _) = by_name.remove(0);
                Ok((doc, name))
            }
            0 => {
                let mut a = Answer::error();
                let wanted = match tool {
                    ToolRef::Mcp(n) | ToolRef::Named(n) => n,
                };
                let line = format!("**No tool {} on the page now.**", a.page(wanted));
                a.line(line);
                let tools: Vec<String> = self
                    .page_tools()
                    .iter()
                    .map(|t| a.page(&t.mcp_name))
                    .collect();
                a.line(format!(
                    "Tools of the open pages (MCP names): {}.",
                    if tools.is_empty() {
                        "none".to_string()
                    } else {
                        tools.join(", ")
                    }
                ));
                Err(a.finish())
            }
            _ => {
                let mut a = Answer::error();
                let names: Vec<String> = by_name.iter().map(|(_, _, m)| a.page(m)).collect();
                a.line(format!(
                    "**Several documents have a tool of that name;** name one by its MCP name: {}.",
                    names.join(", ")
                ));
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
        reply: oneshot::Sender<Reply>,
    ) {
        let (doc, name) = match self.find_tool(&page, &tool) {
            Ok(found) => found,
            Err(answer) => {
                let _ = reply.send(answer);
                return;
            }
        };
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
        let registered = Value::Object(vec![
            ("name".into(), Value::string(&definition.name)),
            ("description".into(), Value::string(&definition.description)),
            ("window".into(), Value::Window(doc)),
            (
                "origin".into(),
                Value::string(w.documents[doc].origin.serialize()),
            ),
        ]);
        let input = Value::from_json_str(&input.to_string()).unwrap_or(Value::Object(Vec::new()));
        let options = Value::Object(vec![("signal".into(), Value::Signal(signal))]);
        w.harness_note(|w| format!("the agent calls {name:?} in {}", w.label(doc)));
        let promise = w.execute_tool(doc, registered, input, options);
        let document = w.label(doc);
        let execution = w
            .webmcp()
            .executions
            .iter()
            .find(|(_, e)| e.promise == promise)
            .map(|(k, _)| k);
        match execution {
            Some(execution) => {
                self.calls.insert(
                    id,
                    PendingCall {
                        execution,
                        signal,
                        tool: name,
                        document,
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

    pub(super) fn check_calls(&mut self) {
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
                a.quote(document)
            );
            a.line(line);
            let block = a.page_block("text", &result);
            a.line(block);
            a.finish()
        }
        CallOutcome::Failed(why) => {
            let mut a = Answer::error();
            let line = format!(
                "**Tool {} of document {} failed:** {}",
                a.page(tool),
                a.quote(document),
                a.page(&why)
            );
            a.line(line);
            a.finish()
        }
    }
}
