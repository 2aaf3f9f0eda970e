//! `getTools()`, `executeTool()`, and the `toolactivated` / `toolcancel` events.
//!
//! The IDL (reference/webmcp.idl) and WPT's webmcp/ tests define these, but the spec has no
//! algorithm text for them yet. The steps below are the engine's own; each says what it chose
//! and, where WPT pins the behaviour down, which test does.

use super::readiness::{Readiness, WaitCaller, WaitPhase};
use super::registry::Registry;
use super::steps::{AbortStep, ParallelStep, ReactionStep, TaskStep};
use super::switches::{GetToolsWaits, InputSchema};
use super::{
    ExecutionKey, WebMcpHost, CANCEL_A_TOOL, CHECK_INPUT_SCHEMA, CONVERT_DICTIONARY, EXECUTE_TOOL,
    GET_TOOLS, RUN_A_TOOL,
};
use crate::host::abort::Abort;
use crate::host::event_loop::{EventLoops, TaskAction, TaskSource};
use crate::host::events::{Event, EventTargetRef, Events};
use crate::host::keys::{DocumentKey, ParallelQueueKey, PromiseKey, SignalKey};
use crate::host::origin::Origin;
use crate::host::parallel::ParallelStepKind;
use crate::host::promise::Handler;
use crate::host::value::{ErrorValue, Value};
use crate::host::webidl::{
    convert_signal, dictionary_value, member, required_string, to_idl_string,
};
use crate::step;

/// One call of `executeTool()`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Execution {
    pub caller: DocumentKey,
    pub promise: PromiseKey,
    pub tool_name: String,
    /// The tool's document, once found.
    pub target: Option<DocumentKey>,
    pub requested_window: Option<DocumentKey>,
    pub requested_origin: String,
    /// The input, serialized in the caller's realm.
    pub input: String,
    /// The `AbortSignal` the tool's callback was given.
    pub tool_signal: Option<SignalKey>,
    /// The parallel queue of this call's in-parallel steps, while it has steps left: a
    /// cancellation goes through it, so it reaches the tool's document after the dispatch.
    pub channel: Option<ParallelQueueKey>,
    pub started: bool,
    /// The tool's result (or failure) was sent back.
    pub finished: bool,
    pub cancelled: bool,
    /// What was sent back, as the tool's document had it: for embedders that act as the
    /// browser agent (the agent gateway), whose answer does not go through the caller's task.
    pub outcome: Option<Result<String, ErrorValue>>,
}

impl Execution {
    /// The realm of the tool's document (the caller's while it is not known yet).
    pub(crate) fn target_realm(&self) -> DocumentKey {
        self.target.unwrap_or(self.caller)
    }
}

/// `getTools()` and `executeTool()`.
pub trait AgentApi: WebMcpHost {
    /// `getTools(options)` called on the `ModelContext` of `this_doc`.
    fn get_tools(&mut self, this_doc: DocumentKey, options: Value) -> PromiseKey {
        // Web IDL: ModelContextGetToolOptions { sequence<USVString> fromOrigins }.
        let from = match dictionary_value(&options, "ModelContextGetToolOptions") {
            Err(e) => return self.promise_rejected_with(this_doc, e),
            Ok(dict) => match dict.and_then(|d| member(d, "fromOrigins")) {
                None => None,
                Some(Value::Array(items)) => Some(items.iter().map(to_idl_string).collect::<Vec<_>>()),
                Some(_) => {
                    return self.promise_rejected_with(
                        this_doc,
                        ErrorValue::type_error(
                            "Failed to read the 'fromOrigins' property from 'ModelContextGetToolOptions': The provided value cannot be converted to a sequence.",
                        ),
                    )
                }
            },
        };
        step!(
            self,
            CONVERT_DICTIONARY,
            "ModelContextGetToolOptions",
            Some(this_doc)
        );
        // 1. Let document be this's relevant global object's associated Document.
        let document = this_doc;
        step!(self, GET_TOOLS, "1", Some(document));
        // 2. Like registerTool(), a document that is not fully active is rejected.
        if !self.is_fully_active(document) {
            step!(
                self,
                GET_TOOLS,
                "2",
                Some(document),
                "not fully active: InvalidStateError"
            );
            return self.promise_rejected_with(this_doc, super::not_fully_active_error());
        }
        step!(self, GET_TOOLS, "2", Some(document));
        // 3. So is one not allowed to use "tools".
        if !self.is_allowed_to_use_tools(document) {
            step!(
                self,
                GET_TOOLS,
                "3",
                Some(document),
                "not allowed to use \"tools\": NotAllowedError"
            );
            return self.promise_rejected_with(this_doc, super::not_allowed_to_use_tools_error());
        }
        step!(self, GET_TOOLS, "3", Some(document));
        // 4. fromOrigins lists the origins whose tools the caller asks for; by default its own
        //    (WPT: a parent sees a cross-origin child's tool only when it names that origin).
        //    An entry that does not parse as a URL is a TypeError, as the URL constructor's.
        let own = self.documents[document].origin.clone();
        let from_origins = match from {
            None => vec![own],
            Some(entries) => {
                let mut origins = Vec::new();
                for entry in entries {
                    match url::Url::parse(&entry) {
                        Ok(u) => origins.push(Origin::of_url(&u, &mut self.next_opaque)),
                        Err(_) => {
                            step!(
                                self,
                                GET_TOOLS,
                                "4",
                                Some(document),
                                "{entry:?} is not a URL: TypeError"
                            );
                            return self.promise_rejected_with(
                                this_doc,
                                ErrorValue::type_error(format!(
                                    "fromOrigins entry {entry:?} is not a URL"
                                )),
                            );
                        }
                    }
                }
                origins
            }
        };
        step!(
            self,
            GET_TOOLS,
            "4",
            Some(document),
            "{} origin(s)",
            from_origins.len()
        );
        // 5. Let promise be a new promise.
        let promise = self.new_promise(this_doc);
        step!(self, GET_TOOLS, "5", Some(document));
        // 6. The caller's traversable navigable.
        step!(self, GET_TOOLS, "6", Some(document));
        // 7. In parallel: (7.1) wait for tools to be ready if the profile says so, (7.2) collect
        //    the tools, (7.3) resolve the promise from a webmcp task.
        step!(self, GET_TOOLS, "7", Some(document));
        let label = format!("getTools() of {}", self.label(document));
        self.in_parallel(
            label,
            vec![ParallelStepKind::Webmcp(ParallelStep::GetTools {
                caller: document,
                promise,
                from_origins,
            })],
        );
        // 8. Return promise.
        step!(self, GET_TOOLS, "8", Some(document));
        promise
    }

    /// getTools() step 7, on its parallel queue.
    fn get_tools_in_parallel(
        &mut self,
        queue: ParallelQueueKey,
        caller: DocumentKey,
        promise: PromiseKey,
        from_origins: Vec<Origin>,
    ) {
        // 7.1. (gettools-waits=yes, the follow-up PR #373 defers) Wait for tools to be ready.
        if self.switches().gettools_waits == GetToolsWaits::Yes {
            let traversable = self.traversable_of(caller);
            step!(
                self,
                GET_TOOLS,
                "7.1",
                Some(caller),
                "wait for tools to be ready (gettools-waits=yes)"
            );
            let waiter = WaitCaller::GetTools {
                caller,
                promise,
                from_origins: from_origins.clone(),
            };
            if self
                .wait_for_tools_to_be_ready(WaitPhase::Begin {
                    traversable,
                    queue,
                    caller: waiter,
                })
                .is_none()
            {
                return;
            }
        }
        self.get_tools_collect(caller, promise, &from_origins);
    }

    /// getTools() steps 7.2-7.3.
    fn get_tools_collect(
        &mut self,
        caller: DocumentKey,
        promise: PromiseKey,
        from_origins: &[Origin],
    ) {
        // 7.2. Every tool of the caller's tree whose owner is allowed to use "tools", whose
        //      owner's origin is one of fromOrigins, and which is visible to the caller's origin.
        let caller_origin = self.documents[caller].origin.clone();
        let traversable = self.traversable_of(caller);
        let top = self.navigables[traversable].active_document;
        let navigables = top
            .map(|t| self.inclusive_descendant_navigables(t))
            .unwrap_or_default();
        let mut tools = Vec::new();
        for nav in navigables {
            let Some(owner) = self.navigables[nav].active_document else {
                continue;
            };
            if !self.is_allowed_to_use_tools(owner) {
                continue;
            }
            let owner_origin = self.documents[owner].origin.clone();
            if !from_origins.iter().any(|o| o.same_origin(&owner_origin)) {
                continue;
            }
            let definitions: Vec<_> = self
                .model_context(owner)
                .tool_map
                .values()
                .cloned()
                .collect();
            for t in definitions {
                if self.tool_is_visible_to_an_origin(
                    &owner_origin,
                    &t.exposed_origins,
                    &caller_origin,
                ) {
                    tools.push(registered_tool(&t, owner, &owner_origin));
                }
            }
        }
        step!(
            self,
            GET_TOOLS,
            "7.2",
            Some(caller),
            "{} tool(s)",
            tools.len()
        );
        // 7.3. Resolve the promise from a webmcp task.
        step!(self, GET_TOOLS, "7.3", Some(caller));
        self.queue_global_task(
            caller,
            TaskSource::Webmcp,
            TaskAction::SettlePromise {
                promise,
                outcome: Ok(Value::Array(tools)),
                why: "getTools() step 7.3",
            },
        );
    }

    /// `executeTool(tool, inputObject, options)` called on the `ModelContext` of `this_doc`.
    fn execute_tool(
        &mut self,
        this_doc: DocumentKey,
        tool: Value,
        input: Value,
        options: Value,
    ) -> PromiseKey {
        // Web IDL: RegisteredTool requires name, description, window and origin (WPT
        // executeTool-invalid-dictionary: a missing origin is a TypeError).
        const T: &str = "RegisteredTool";
        let converted = (|| {
            let dict = dictionary_value(&tool, T)?;
            // Read (and required) before `name`, in Web IDL's order; not used further.
            required_string(dict, "description", T)?;
            let name = required_string(dict, "name", T)?;
            let origin = required_string(dict, "origin", T)?;
            let window = match dict.and_then(|d| member(d, "window")) {
                Some(Value::Window(d)) => *d,
                Some(_) => {
                    return Err(ErrorValue::type_error(
                        "Failed to read the 'window' property from 'RegisteredTool': Failed to convert value to 'Window'.",
                    ))
                }
                None => {
                    return Err(ErrorValue::type_error(
                        "Failed to read the 'window' property from 'RegisteredTool': Required member is undefined.",
                    ))
                }
            };
            let options_dict = dictionary_value(&options, "ModelContextExecuteToolOptions")?;
            let signal = convert_signal(options_dict, "ModelContextExecuteToolOptions")?;
            Ok((name, origin, window, signal))
        })();
        let (name, origin, window, signal) = match converted {
            Ok(c) => c,
            Err(e) => {
                step!(
                    self,
                    CONVERT_DICTIONARY,
                    "RegisteredTool",
                    Some(this_doc),
                    "{}",
                    e.message
                );
                return self.promise_rejected_with(this_doc, e);
            }
        };
        step!(self, CONVERT_DICTIONARY, "RegisteredTool", Some(this_doc));
        step!(
            self,
            CONVERT_DICTIONARY,
            "ModelContextExecuteToolOptions",
            Some(this_doc)
        );
        // 1. Let caller be this's relevant global object's associated Document.
        let caller = this_doc;
        step!(self, EXECUTE_TOOL, "1", Some(caller), "{name:?}");
        // 2. A caller that is not fully active is rejected.
        if !self.is_fully_active(caller) {
            step!(
                self,
                EXECUTE_TOOL,
                "2",
                Some(caller),
                "not fully active: InvalidStateError"
            );
            return self.promise_rejected_with(this_doc, super::not_fully_active_error());
        }
        step!(self, EXECUTE_TOOL, "2", Some(caller));
        // 3. So is one not allowed to use "tools".
        if !self.is_allowed_to_use_tools(caller) {
            step!(
                self,
                EXECUTE_TOOL,
                "3",
                Some(caller),
                "not allowed to use \"tools\": NotAllowedError"
            );
            return self.promise_rejected_with(this_doc, super::not_allowed_to_use_tools_error());
        }
        step!(self, EXECUTE_TOOL, "3", Some(caller));
        // 4. An omitted input is an empty object (WPT object-arguments).
        let input = if input == Value::Undefined {
            Value::Object(Vec::new())
        } else {
            input
        };
        step!(self, EXECUTE_TOOL, "4", Some(caller));
        // 5. The input must be an object; arrays are objects (WPT object-arguments). An older
        //    WPT file, executeTool-invalid-dictionary, passes JSON strings and expects an
        //    UnknownError for a malformed one; the newer object-arguments test rejects every
        //    primitive with a TypeError, which is what the engine does.
        if !input.is_object() {
            step!(
                self,
                EXECUTE_TOOL,
                "5",
                Some(caller),
                "input is not an object: TypeError"
            );
            return self.promise_rejected_with(
                this_doc,
                ErrorValue::type_error("the tool's input must be an object"),
            );
        }
        step!(self, EXECUTE_TOOL, "5", Some(caller));
        // 6. Serialize it to JSON in the caller's realm; no JSON form is a TypeError.
        let input = match input.to_json_string() {
            Ok(s) => s,
            Err(e) => {
                step!(
                    self,
                    EXECUTE_TOOL,
                    "6",
                    Some(caller),
                    "input has no JSON form: TypeError"
                );
                return self.promise_rejected_with(this_doc, ErrorValue::type_error(e.message));
            }
        };
        step!(self, EXECUTE_TOOL, "6", Some(caller), "{input}");
        // 7. An aborted signal rejects at once, before anything runs in parallel (WPT
        //    executeTool-abort: "synchronously rejects").
        if let Some(s) = signal {
            if self.signals[s].aborted {
                let reason = self.signals[s].reason.clone();
                step!(self, EXECUTE_TOOL, "7", Some(caller), |w| format!(
                    "signal already aborted: rejected with {}",
                    w.describe_value(&reason)
                ));
                let p = self.new_promise(this_doc);
                self.reject_promise(p, reason);
                return p;
            }
        }
        step!(self, EXECUTE_TOOL, "7", Some(caller));
        // 8. Let promise be a new promise.
        let promise = self.new_promise(this_doc);
        step!(self, EXECUTE_TOOL, "8", Some(caller));
        let execution = self.webmcp_mut().executions.insert(Execution {
            caller,
            promise,
            tool_name: name.clone(),
            target: None,
            requested_window: Some(window),
            requested_origin: origin,
            input,
            tool_signal: None,
            channel: None,
            started: false,
            finished: false,
            cancelled: false,
            outcome: None,
        });
        // 9. With a signal, add abort steps (see `execute_tool_abort_steps`).
        if let Some(s) = signal {
            self.add_abort_algorithm(s, AbortStep::CancelExecution { execution });
            step!(self, EXECUTE_TOOL, "9", Some(caller));
        }
        // 10. In parallel, find the tool and queue the task that runs it.
        step!(self, EXECUTE_TOOL, "10", Some(caller));
        let label = format!("executeTool({name:?}) of {}", self.label(caller));
        let channel = self.in_parallel(
            label,
            vec![ParallelStepKind::Webmcp(
                ParallelStep::ExecuteToolDispatch { execution },
            )],
        );
        self.webmcp_mut().executions[execution].channel = Some(channel);
        // 11. Return promise.
        step!(self, EXECUTE_TOOL, "11", Some(caller));
        promise
    }

    /// executeTool() step 9's abort steps.
    fn execute_tool_abort_steps(&mut self, execution: ExecutionKey, signal: SignalKey) {
        let e = self.webmcp().executions[execution].clone();
        // 9.1. A finished execution is not cancelled.
        if e.finished {
            step!(
                self,
                EXECUTE_TOOL,
                "9.1",
                Some(e.caller),
                "already finished"
            );
            return;
        }
        step!(self, EXECUTE_TOOL, "9.1", Some(e.caller));
        // 9.2. Reject the promise with the signal's reason (WPT: the caller sees its own
        //      reason; the tool sees an AbortError).
        let reason = self.signals[signal].reason.clone();
        self.webmcp_mut().executions[execution].cancelled = true;
        step!(self, EXECUTE_TOOL, "9.2", Some(e.caller));
        self.reject_promise(e.promise, reason);
        // 9.3. In parallel, after the dispatch (through the same parallel queue while it has
        //      steps left), tell the tool's document. The tool is not stopped from starting:
        //      WPT executeTool-abort expects a tool whose caller aborted at once to start and
        //      then see its signal aborted.
        step!(
            self,
            EXECUTE_TOOL,
            "9.3",
            Some(e.caller),
            "tell the tool's document"
        );
        let channel = e.channel.filter(|q| self.parallel_queues.contains_key(*q));
        let cancel = ParallelStepKind::Webmcp(ParallelStep::ExecuteToolCancel { execution });
        match channel {
            Some(q) => self.enqueue_parallel_step(q, cancel),
            None => {
                self.in_parallel(format!("cancel {:?}", e.tool_name), vec![cancel]);
            }
        }
    }

    /// executeTool() step 9.3, in parallel: queue the task that cancels the tool in its
    /// document (nothing when the dispatch found no tool).
    fn execute_tool_cancel_in_parallel(&mut self, execution: ExecutionKey) {
        let e = &self.webmcp().executions[execution];
        if let (Some(target), false) = (e.target, e.finished) {
            self.queue_global_task(
                target,
                TaskSource::Webmcp,
                TaskAction::Webmcp(TaskStep::CancelTool { execution }),
            );
        }
    }

    /// executeTool() step 10, in parallel.
    fn execute_tool_dispatch(&mut self, execution: ExecutionKey) {
        let e = self.webmcp().executions[execution].clone();
        // 10.1. The tool's document is the one of the given window.
        let target = e.requested_window;
        step!(self, EXECUTE_TOOL, "10.1", Some(e.caller));
        let caller_tree = self.traversable_of(e.caller);
        // 10.2. It must be a fully active document of the caller's tree.
        let Some(target) =
            target.filter(|t| self.is_fully_active(*t) && self.traversable_of(*t) == caller_tree)
        else {
            step!(
                self,
                EXECUTE_TOOL,
                "10.2",
                Some(e.caller),
                "the window is not a document of the caller's page: UnknownError"
            );
            return self.reply(
                execution,
                Err(ErrorValue::dom(
                    "UnknownError",
                    "the tool's window is not in this page",
                )),
            );
        };
        step!(self, EXECUTE_TOOL, "10.2", Some(target));
        // 10.3. The origin given must be that document's.
        if self.documents[target].origin.serialize() != e.requested_origin {
            step!(
                self,
                EXECUTE_TOOL,
                "10.3",
                Some(target),
                "origin does not match: UnknownError"
            );
            return self.reply(
                execution,
                Err(ErrorValue::dom(
                    "UnknownError",
                    "the tool's origin does not match its window",
                )),
            );
        }
        step!(self, EXECUTE_TOOL, "10.3", Some(target));
        // 10.4. The tool must be registered there (WPT: a made-up tool is an UnknownError).
        let Some(definition) = self
            .model_context(target)
            .tool_map
            .get(&e.tool_name)
            .cloned()
        else {
            step!(
                self,
                EXECUTE_TOOL,
                "10.4",
                Some(target),
                "no tool {:?}: UnknownError",
                e.tool_name
            );
            return self.reply(execution, Err(no_such_tool(&e.tool_name)));
        };
        step!(self, EXECUTE_TOOL, "10.4", Some(target));
        // 10.5. And visible to the caller's origin; otherwise it is as if it did not exist.
        let owner_origin = self.documents[target].origin.clone();
        let caller_origin = self.documents[e.caller].origin.clone();
        if !self.tool_is_visible_to_an_origin(
            &owner_origin,
            &definition.exposed_origins,
            &caller_origin,
        ) {
            step!(
                self,
                EXECUTE_TOOL,
                "10.5",
                Some(target),
                "not visible to the caller: UnknownError"
            );
            return self.reply(execution, Err(no_such_tool(&e.tool_name)));
        }
        step!(self, EXECUTE_TOOL, "10.5", Some(target));
        // (input-schema=tentative-subset, WPT's .tentative test) Input that fails the tool's
        // schema is a DataError whose message names the path, the keyword and the schema
        // path; the tool does not run.
        if self.switches().input_schema == InputSchema::TentativeSubset
            && !definition.input_schema.is_empty()
        {
            let schema = serde_json::from_str::<serde_json::Value>(&definition.input_schema);
            let input = serde_json::from_str::<serde_json::Value>(&e.input);
            if let (Ok(schema), Ok(input)) = (schema, input) {
                if let Err(violation) = super::input_schema::validate(&schema, &input) {
                    let message = violation.to_message();
                    step!(
                        self,
                        CHECK_INPUT_SCHEMA,
                        "2",
                        Some(target),
                        "{message}: DataError"
                    );
                    return self.reply(execution, Err(ErrorValue::dom("DataError", message)));
                }
                step!(
                    self,
                    CHECK_INPUT_SCHEMA,
                    "2",
                    Some(target),
                    "the input matches the schema"
                );
            }
        }
        // 10.6. Queue a webmcp task on the tool's document to run it.
        self.webmcp_mut().executions[execution].target = Some(target);
        step!(self, EXECUTE_TOOL, "10.6", Some(target));
        self.queue_global_task(
            target,
            TaskSource::Webmcp,
            TaskAction::Webmcp(TaskStep::RunTool { execution }),
        );
    }

    /// The task that runs a tool in its document.
    fn run_tool(&mut self, execution: ExecutionKey) {
        let e = self.webmcp().executions[execution].clone();
        let Some(target) = e.target else {
            return;
        };
        // 1. The tool starts even if its caller has aborted already: the cancellation comes in
        //    a later task of this document (WPT executeTool-abort).
        if e.cancelled {
            step!(
                self,
                RUN_A_TOOL,
                "1",
                Some(target),
                "the caller has aborted; the tool starts, and its cancellation follows"
            );
        } else {
            step!(self, RUN_A_TOOL, "1", Some(target));
        }
        // 2. The tool may have been unregistered since: UnknownError.
        let Some(definition) = self
            .model_context(target)
            .tool_map
            .get(&e.tool_name)
            .cloned()
        else {
            step!(
                self,
                RUN_A_TOOL,
                "2",
                Some(target),
                "{:?} is no longer registered: UnknownError",
                e.tool_name
            );
            return self.reply(execution, Err(no_such_tool(&e.tool_name)));
        };
        step!(self, RUN_A_TOOL, "2", Some(target));
        // 3. Parse the input in the tool's realm.
        let input = Value::from_json_str(&e.input).unwrap_or(Value::Object(Vec::new()));
        step!(self, RUN_A_TOOL, "3", Some(target));
        // 4. A new AbortController for this execution (WPT: concurrent executions have
        //    independent signals).
        let signal = self.new_abort_controller(target, &format!("execution of {}", e.tool_name));
        let running = &mut self.webmcp_mut().executions[execution];
        running.tool_signal = Some(signal);
        running.started = true;
        step!(self, RUN_A_TOOL, "4", Some(target));
        // 5. Invoke the execute callback with the input and { signal }; what it throws becomes
        //    a rejected promise, what it returns is converted to Promise<any>.
        let options = Value::Object(vec![("signal".into(), Value::Signal(signal))]);
        let returned = self.call(&definition.execute, vec![input, options]);
        let result = match returned {
            Ok(v) => self.promise_resolve(target, v),
            Err(thrown) => {
                let p = self.new_promise(target);
                self.reject_promise(p, thrown);
                p
            }
        };
        // The callback was called from outside any script, so the microtasks it queued run
        // now ("clean up after running script"), before the steps below.
        if self.script_depth == 0 {
            self.clean_up_after_running_script();
        }
        step!(self, RUN_A_TOOL, "5", Some(target));
        // 6. Fire toolactivated at the tool's Window, then at its ModelContext, after the
        //    callback started (WPT executeTool-abort logs "tool started" first; in
        //    executeTool-events, script resuming after the ModelContext's event has already
        //    seen the Window's).
        step!(self, RUN_A_TOOL, "6", Some(target));
        let context = self.context_of(target);
        let event = Event {
            event_type: "toolactivated".into(),
            interface: "ToolActivatedEvent",
            attributes: vec![("toolName", Value::string(&e.tool_name))],
        };
        self.dispatch_event(EventTargetRef::Window(target), event.clone());
        self.dispatch_event(EventTargetRef::Webmcp(context), event);
        // 7. React to the result (see `execute_tool_result`), in the tool's realm.
        let react = Handler::Webmcp {
            realm: target,
            step: ReactionStep::ExecuteResult { execution },
        };
        self.perform_promise_then(result, react.clone(), react, None);
        step!(self, RUN_A_TOOL, "7", Some(target));
    }

    /// Run a tool step 7.1 / 7.2.
    fn execute_tool_result(&mut self, execution: ExecutionKey, fulfilled: bool, value: Value) {
        let target = self.webmcp().executions[execution].target_realm();
        if fulfilled {
            // 7.1. A string result is given as it is; anything else as its JSON (WPT:
            //      'success' stays 'success', {status} becomes '{"status":...}'). A result
            //      with no JSON form is an UnknownError.
            let text = match &value {
                Value::String(s) => Ok(s.clone()),
                Value::Undefined => Ok(String::new()),
                other => other.to_json_string().map_err(|e| {
                    ErrorValue::dom(
                        "UnknownError",
                        format!("the tool's result has no JSON form: {}", e.message),
                    )
                }),
            };
            step!(self, RUN_A_TOOL, "7.1", Some(target), "{text:?}");
            self.reply(execution, text);
        } else {
            // 7.2. A rejection is reported as an UnknownError naming what was thrown.
            let what = self.display_value(&value);
            step!(
                self,
                RUN_A_TOOL,
                "7.2",
                Some(target),
                "rejected with {what}"
            );
            self.reply(
                execution,
                Err(ErrorValue::dom(
                    "UnknownError",
                    format!("the tool failed: {what}"),
                )),
            );
        }
    }

    /// Settles the caller's promise from a webmcp task in the caller's document.
    fn reply(&mut self, execution: ExecutionKey, outcome: Result<String, ErrorValue>) {
        let e = &mut self.webmcp_mut().executions[execution];
        e.finished = true;
        e.outcome = Some(outcome.clone());
        let (caller, promise, name) = (e.caller, e.promise, e.tool_name.clone());
        let outcome = outcome.map(Value::String).map_err(Value::error);
        self.in_parallel(
            format!("executeTool({name:?}) replies"),
            vec![ParallelStepKind::QueueGlobalTask {
                document: caller,
                source: TaskSource::Webmcp,
                action: TaskAction::SettlePromise {
                    promise,
                    outcome,
                    why: "executeTool() result",
                },
            }],
        );
    }

    /// The task that cancels a running tool.
    fn cancel_tool(&mut self, execution: ExecutionKey) {
        let e = self.webmcp().executions[execution].clone();
        let (Some(target), Some(signal)) = (e.target, e.tool_signal) else {
            return;
        };
        // 1. Only a tool that started and has not sent its result back is cancelled.
        if !e.started || e.finished {
            step!(self, CANCEL_A_TOOL, "1", Some(target), "not running");
            return;
        }
        step!(self, CANCEL_A_TOOL, "1", Some(target));
        // 2. Abort the tool's signal with an AbortError.
        step!(self, CANCEL_A_TOOL, "2", Some(target));
        self.signal_abort(signal, None);
        // 3. Fire toolcancel at the Window, then at the ModelContext, as toolactivated.
        step!(self, CANCEL_A_TOOL, "3", Some(target));
        let context = self.context_of(target);
        let event = Event {
            event_type: "toolcancel".into(),
            interface: "ToolCancelEvent",
            attributes: vec![("toolName", Value::string(&e.tool_name))],
        };
        self.dispatch_event(EventTargetRef::Window(target), event.clone());
        self.dispatch_event(EventTargetRef::Webmcp(context), event);
    }

    /// A document went away: executions of its tools that were still running are rejected
    /// (the engine's choice: the caller should not wait forever on a tool that can never
    /// answer).
    fn executions_lose_document(&mut self, doc: DocumentKey) {
        let running: Vec<ExecutionKey> = self
            .webmcp()
            .executions
            .iter()
            .filter(|(_, e)| e.target == Some(doc) && !e.finished && !e.cancelled)
            .map(|(k, _)| k)
            .collect();
        for execution in running {
            self.reply(
                execution,
                Err(ErrorValue::dom(
                    "UnknownError",
                    "the tool's document was destroyed",
                )),
            );
        }
    }
}

impl<W: WebMcpHost> AgentApi for W {}

/// executeTool()'s answer for a tool that is not there (or not visible to the caller: the
/// same answer, so that a caller learns nothing of tools it may not see).
fn no_such_tool(name: &str) -> ErrorValue {
    ErrorValue::dom("UnknownError", format!("no tool named {name:?}"))
}

/// A `RegisteredTool` dictionary for a tool definition.
fn registered_tool(t: &super::ToolDefinition, owner: DocumentKey, owner_origin: &Origin) -> Value {
    let mut props = vec![("name".to_string(), Value::string(&t.name))];
    if let Some(title) = &t.title {
        props.push(("title".into(), Value::string(title)));
    }
    props.push(("description".into(), Value::string(&t.description)));
    if !t.input_schema.is_empty() {
        props.push(("inputSchema".into(), Value::string(&t.input_schema)));
    }
    props.push(("window".into(), Value::Window(owner)));
    props.push(("origin".into(), Value::string(owner_origin.serialize())));
    if let Some(a) = t.annotations {
        props.push((
            "annotations".into(),
            Value::Object(vec![
                ("readOnlyHint".into(), Value::Bool(a.read_only_hint)),
                (
                    "untrustedContentHint".into(),
                    Value::Bool(a.untrusted_content_hint),
                ),
                (
                    "consequentialHint".into(),
                    Value::Bool(a.consequential_hint),
                ),
                ("debugging".into(), Value::Bool(a.debugging)),
            ]),
        ));
    }
    Value::Object(props)
}
