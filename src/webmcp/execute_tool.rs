//! `executeTool()`.
//!
//! <https://webmachinelearning.github.io/webmcp/#dom-modelcontext-executetool>

use super::errors::{Method, Rejection};
use super::execution::ToolExecuteSteps;
use super::pending::PendingExecutions;
use super::registry::Registry;
use super::steps::{AbortStep, ParallelStep};
use super::switches::{
    ExecuteToolInputCheck, ExecuteToolRemovedTarget, InputSchema, RegisteredToolWindow, TextReading,
};
use super::{
    ExecutionKey, PendingToolExecution, Uuid, WebMcpHost, CHECK_INPUT_SCHEMA, CONVERT_DICTIONARY,
    EXECUTE_TOOL,
};
use crate::host::keys::{DocumentKey, NavigableKey, PromiseKey, SignalKey};
use crate::host::origin::Origin;
use crate::host::parallel::ParallelStepKind;
use crate::host::spec::step_index;
use crate::host::value::{ErrorValue, Facet, Value};
use crate::host::webidl::{convert_signal, dictionary_value, member, required_string};
use crate::{return_rejected, step};

/// One call of `executeTool()`: what its in-parallel steps need, and how it ended, for
/// embedders that act as the browser agent (the agent gateway reads `outcome`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Execution {
    pub uuid: Uuid,
    pub caller: DocumentKey,
    pub target: DocumentKey,
    pub promise: PromiseKey,
    pub tool_name: String,
    pub expected_target_origin: Origin,
    /// The input, serialized in the caller's realm.
    pub input_arguments: String,
    /// What the caller's promise was settled with, once it was: the result (null when the
    /// execution navigated the document), or the error.
    pub outcome: Option<Result<Option<String>, ErrorValue>>,
}

/// `executeTool()`'s algorithms.
pub trait ExecuteTool: WebMcpHost {
    /// `executeTool(tool, inputObject, options)` called on the `ModelContext` of `this_doc`.
    fn execute_tool(
        &mut self,
        this_doc: DocumentKey,
        tool: Value,
        input: Value,
        options: Value,
    ) -> PromiseKey {
        // Web IDL converts the arguments first, the whole RegisteredTool dictionary, its members
        // in lexicographic order (annotations, description, inputSchema, name, origin, title,
        // window): each present member is converted to its type, and a required one that is
        // missing is a TypeError (WPT executeTool-invalid-dictionary: a missing origin);
        // `optional object inputObject` takes only an object (WPT object-arguments: every
        // primitive, and null, is a TypeError); then the options' signal.
        const T: &str = "RegisteredTool";
        let input_by_idl = self.switches().executetool_input_check == ExecuteToolInputCheck::WebIdl;
        let converted = (|| {
            let dict = dictionary_value(&tool, T)?;
            if let Some(a) = dict.and_then(|d| member(d, "annotations")) {
                super::registry::convert_annotations(a).map_err(|_| {
                    ErrorValue::type_error(
                        "Failed to read the 'annotations' property from 'RegisteredTool': The provided value is not of type 'ToolAnnotations'.",
                    )
                })?;
            }
            // Converted, and not used further: the tool is found by name and origin.
            required_string(dict, "description", T)?;
            if let Some(schema) = dict.and_then(|d| member(d, "inputSchema")) {
                if !schema.is_object() {
                    return Err(ErrorValue::type_error(
                        "Failed to read the 'inputSchema' property from 'RegisteredTool': The provided value is not of type 'object'.",
                    ));
                }
            }
            let name = required_string(dict, "name", T)?;
            let origin = required_string(dict, "origin", T)?;
            // `origin` is a USVString: each lone surrogate becomes U+FFFD.
            let origin = crate::text::js_string::to_scalar_values(&origin).into_owned();
            let window = match dict.and_then(|d| member(d, "window")) {
                // A Window (or the scenario's name for the document); its Document or
                // ModelContext is no Window, as Web IDL's conversion checks.
                Some(Value::Window(d, Facet::Window | Facet::Name)) => *d,
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
            // executetool-input-check=at-step-9 (Chromium 156) leaves the input to step 9.
            if input != Value::Undefined && !input.is_object() && input_by_idl {
                return Err(ErrorValue::type_error(
                    "parameter 2 is not of type 'object'.",
                ));
            }
            let options_dict = dictionary_value(&options, "ModelContextExecuteToolOptions")?;
            let signal = convert_signal(options_dict, "ModelContextExecuteToolOptions")?;
            Ok((name, origin, window, signal))
        })();
        let (name, origin, held_window, signal) = match converted {
            Ok(c) => c,
            Err(e) => return_rejected!(
                self,
                CONVERT_DICTIONARY,
                "RegisteredTool",
                this_doc,
                self.conversion_rejection(Method::ExecuteTool, e)
            ),
        };
        // Script holds the `window` member as its navigable's WindowProxy, and converting it to
        // `Window` takes the Window that proxy wraps now: after a navigation, the new
        // document's. The text never says whether a RegisteredTool names a document or a
        // navigable, so pinning it to the listed document is the other reading
        // (registered-tool-window).
        let target_window = match self.switches().registered_tool_window {
            RegisteredToolWindow::WindowProxy => self.window_proxy_window(held_window),
            RegisteredToolWindow::Document => held_window,
        };
        step!(self, CONVERT_DICTIONARY, "RegisteredTool", Some(this_doc));
        step!(
            self,
            CONVERT_DICTIONARY,
            "ModelContextExecuteToolOptions",
            Some(this_doc)
        );
        // 1. Let callerDocument be this's relevant global object's associated Document.
        let caller = this_doc;
        step!(self, EXECUTE_TOOL, "1", Some(caller), "{name:?}");
        // 2. A caller that is not fully active is rejected.
        const FULLY_ACTIVE: usize = step_index(&EXECUTE_TOOL, "2");
        if let Err(answer) = self.fully_active_check(&EXECUTE_TOOL, FULLY_ACTIVE, caller) {
            return answer;
        }
        // 3. So is one not allowed to use "tools".
        if !self.is_allowed_to_use_tools(caller) {
            return_rejected!(
                self,
                EXECUTE_TOOL,
                "3",
                caller,
                self.rejection(Rejection::NotAllowedToUseTools)
            );
        }
        step!(self, EXECUTE_TOOL, "3", Some(caller));
        // 4-5. The tool's origin must parse to an origin that is not opaque.
        let parsed = url::Url::parse(&origin)
            .ok()
            .map(|u| self.origin_of_url(&u));
        step!(self, EXECUTE_TOOL, "4", Some(caller), "{origin:?}");
        let expected_target_origin = match parsed {
            Some(o) if !matches!(o, Origin::Opaque(_)) => o,
            Some(_) => return_rejected!(
                self,
                EXECUTE_TOOL,
                "5",
                caller,
                self.rejection(Rejection::OpaqueOrigin(origin.clone()))
            ),
            None => return_rejected!(
                self,
                EXECUTE_TOOL,
                "5",
                caller,
                self.rejection(Rejection::InvalidOrigin(origin.clone()))
            ),
        };
        step!(self, EXECUTE_TOOL, "5", Some(caller));
        // 6-7. expectedTargetOrigin, which is not opaque.
        step!(
            self,
            EXECUTE_TOOL,
            "6",
            Some(caller),
            "{expected_target_origin}"
        );
        step!(self, EXECUTE_TOOL, "7", Some(caller));
        // 8. An omitted input is an empty object.
        let input = if input == Value::Undefined {
            Value::object(Vec::new())
        } else {
            input
        };
        step!(self, EXECUTE_TOOL, "8", Some(caller));
        // 9. Assert: it is an object (Web IDL converted it). Under
        //    executetool-input-check=at-step-9 (Chromium 156, measured:
        //    probes/executeTool-input-order) the method takes any value, and this is where one
        //    that is not an object is refused, after the checks of steps 2-5.
        let is_object = input.is_object();
        if !is_object && self.switches().executetool_input_check == ExecuteToolInputCheck::AtStep9 {
            return_rejected!(
                self,
                EXECUTE_TOOL,
                "9",
                caller,
                self.rejection(Rejection::InputNotAnObject)
            );
        }
        self.assert_step(
            &EXECUTE_TOOL,
            "9",
            Some(caller),
            is_object,
            "inputObject is an object",
        );
        step!(self, EXECUTE_TOOL, "9", Some(caller));
        // 10. Serialize it to JSON in the caller's realm; an exception rejects.
        let input_arguments = match input.to_json_string() {
            Ok(s) => s,
            Err(e) => return_rejected!(self, EXECUTE_TOOL, "10", caller, e),
        };
        step!(self, EXECUTE_TOOL, "10", Some(caller), "{input_arguments}");
        // 11. Let promise be a new promise in this's relevant realm.
        let promise = self.new_promise(this_doc);
        step!(self, EXECUTE_TOOL, "11", Some(caller));
        // 12-13. The tool's Window (as converted above), and its Document.
        let target = target_window;
        step!(self, EXECUTE_TOOL, "12", Some(caller));
        step!(self, EXECUTE_TOOL, "13", Some(target));
        // 14. A new unique internal value names this execution.
        let uuid = self.new_uuid();
        step!(self, EXECUTE_TOOL, "14", Some(caller), "{uuid:?}");
        let execution = self.webmcp_mut().executions.insert(Execution {
            uuid,
            caller,
            target,
            promise,
            tool_name: name.clone(),
            expected_target_origin,
            input_arguments,
            outcome: None,
        });
        self.webmcp_mut().execution_index.insert(uuid, execution);
        self.webmcp_mut()
            .execution_of_promise
            .insert(promise, execution);
        // 15. If options's signal exists:
        if let Some(signal) = signal {
            step!(self, EXECUTE_TOOL, "15", Some(caller));
            step!(self, EXECUTE_TOOL, "15.1", Some(caller));
            // 15.2. An aborted signal rejects at once (WPT executeTool-abort: "synchronously
            //       rejects").
            if self.signals[signal].aborted {
                let reason = self.signals[signal].reason.clone();
                step!(self, EXECUTE_TOOL, "15.2", Some(caller), |w| format!(
                    "signal already aborted: rejected with {}",
                    w.describe_value(&reason)
                ));
                self.settle_execution(execution, Err(reason));
                return promise;
            }
            step!(self, EXECUTE_TOOL, "15.2", Some(caller));
            // 15.3. Let traversable be targetDocument's node navigable's traversable navigable.
            let Some(traversable) =
                self.traversable_of_active_or_last(&EXECUTE_TOOL, "15.3", target)
            else {
                // As written, a detached target leaves the method with no traversable: the
                // rest of its steps cannot run (text-reading=as-written).
                return promise;
            };
            step!(self, EXECUTE_TOOL, "15.3", Some(caller));
            // 15.4. Add abort steps: reject the promise with the abort reason, then, in
            //       parallel, cancel the pending tool execution (see
            //       `execute_tool_abort_steps`).
            self.add_abort_algorithm(
                signal,
                AbortStep::CancelExecution {
                    execution,
                    traversable,
                },
            );
            step!(self, EXECUTE_TOOL, "15.4", Some(caller));
        }
        // 16. In parallel: find the tool and queue the task that runs it.
        step!(self, EXECUTE_TOOL, "16", Some(caller));
        let label = format!("executeTool({name:?}) of {}", self.label(caller));
        self.in_parallel(
            label,
            vec![ParallelStepKind::Webmcp(
                ParallelStep::ExecuteToolInParallel { execution },
            )],
        );
        // 17. Return promise.
        step!(self, EXECUTE_TOOL, "17", Some(caller));
        promise
    }

    /// executeTool() step 15.4's abort steps.
    fn execute_tool_abort_steps(
        &mut self,
        execution: ExecutionKey,
        traversable: NavigableKey,
        signal: SignalKey,
    ) {
        let e = self.webmcp().executions[execution].clone();
        // 15.4.1. Reject promise with the signal's abort reason.
        let reason = self.signals[signal].reason.clone();
        step!(self, EXECUTE_TOOL, "15.4.1", Some(e.caller), |w| format!(
            "rejected with {}",
            w.describe_value(&reason)
        ));
        self.settle_execution(execution, Err(reason));
        // 15.4.2. In parallel, cancel a pending tool execution given traversable and uuid.
        step!(self, EXECUTE_TOOL, "15.4.2", Some(e.caller));
        self.in_parallel(
            format!("cancel {:?}", e.tool_name),
            vec![ParallelStepKind::Webmcp(
                ParallelStep::CancelPendingToolExecution {
                    traversable,
                    uuid: e.uuid,
                },
            )],
        );
    }

    /// executeTool() step 16, in parallel.
    fn execute_tool_in_parallel(&mut self, execution: ExecutionKey) {
        let e = self.webmcp().executions[execution].clone();
        let (caller, target) = (e.caller, e.target);
        // 16.1. The target must be in the caller's traversable navigable (Issue #227: across
        //       top-level documents of one browsing context group is an open question). A
        //       target that is not its navigable's active document has no node navigable
        //       (text-reading): as intended, a document in the back/forward cache is in the
        //       traversable it was last in (the note under step 16.13 expects the execution to
        //       wait for its restore), and a destroyed one is in none.
        let caller_traversable = self.traversable_of(caller);
        let target_traversable = if self.documents[target].destroyed
            && self.switches().text_reading == TextReading::AsIntended
        {
            None
        } else {
            match self.traversable_of_active_or_last(&EXECUTE_TOOL, "16.1", target) {
                Some(t) => Some(t),
                // As written, the step cannot be carried out: the finding says why.
                None if self.switches().text_reading == TextReading::AsWritten => return,
                None => None,
            }
        };
        if target_traversable != Some(caller_traversable) {
            step!(
                self,
                EXECUTE_TOOL,
                "16.1",
                Some(caller),
                "the tool's document is not in the caller's traversable: UnknownError"
            );
            let why = if self.documents[target].destroyed
                && self.switches().executetool_removed_target
                    == ExecuteToolRemovedTarget::InvalidStateError
            {
                Rejection::TargetDetached
            } else {
                Rejection::NotInPage
            };
            let error = self.rejection(why);
            return self.reject_execution(execution, error);
        }
        step!(self, EXECUTE_TOOL, "16.1", Some(caller));
        // 16.2-16.4. The target's origin must be the one the tool names.
        let target_origin = self.documents[target].origin.clone();
        step!(self, EXECUTE_TOOL, "16.2", Some(target));
        let caller_origin = self.documents[caller].origin.clone();
        step!(self, EXECUTE_TOOL, "16.3", Some(caller));
        if !target_origin.same_origin(&e.expected_target_origin) {
            step!(
                self,
                EXECUTE_TOOL,
                "16.4",
                Some(target),
                "the tool's origin does not match its window: UnknownError"
            );
            let error = self.rejection(Rejection::OriginMismatch);
            return self.reject_execution(execution, error);
        }
        step!(self, EXECUTE_TOOL, "16.4", Some(target));
        // 16.5-16.7. The tool must be in the target's tool map.
        step!(self, EXECUTE_TOOL, "16.5", Some(target));
        step!(
            self,
            EXECUTE_TOOL,
            "16.6",
            Some(target),
            "{:?}",
            e.tool_name
        );
        let Some(definition) = self
            .model_context(target)
            .tool_map
            .get(&e.tool_name)
            .cloned()
        else {
            step!(
                self,
                EXECUTE_TOOL,
                "16.7",
                Some(target),
                "no tool {:?}: UnknownError",
                e.tool_name
            );
            let error = self.rejection(Rejection::NoSuchTool(e.tool_name.clone()));
            return self.reject_execution(execution, error);
        };
        step!(self, EXECUTE_TOOL, "16.7", Some(target));
        step!(self, EXECUTE_TOOL, "16.8", Some(target));
        // 16.9. And exposed to the caller's origin; otherwise it is as if it did not exist.
        if !self.tool_is_exposed_to_an_origin(
            &target_origin,
            &definition.exposed_origins,
            &caller_origin,
        ) {
            step!(
                self,
                EXECUTE_TOOL,
                "16.9",
                Some(target),
                "not exposed to the caller: UnknownError"
            );
            let error = self.rejection(Rejection::NoSuchTool(e.tool_name.clone()));
            return self.reject_execution(execution, error);
        }
        step!(self, EXECUTE_TOOL, "16.9", Some(target));
        // (input-schema=tentative-subset, WPT's .tentative test) Input that fails the tool's
        // schema is a DataError whose message names the path, the keyword and the schema
        // path; the tool does not run.
        if self.switches().input_schema == InputSchema::TentativeSubset
            && !definition.input_schema.is_empty()
        {
            // (A lone surrogate's escape, which JSON allows and serde_json refuses, is read
            // first: text::js_string.)
            use crate::text::js_string::unescape_lone_surrogates_in_json as readable;
            let schema =
                serde_json::from_str::<serde_json::Value>(&readable(&definition.input_schema));
            let input = serde_json::from_str::<serde_json::Value>(&readable(&e.input_arguments));
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
                    return self.reject_execution(execution, ErrorValue::dom("DataError", message));
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
        // 16.10. The completion steps (see `completion_steps`).
        step!(self, EXECUTE_TOOL, "16.10", Some(target));
        // 16.11. The pending tool execution.
        step!(self, EXECUTE_TOOL, "16.11", Some(target));
        // 16.12. Record it in the target's traversable's pending tool executions map.
        self.webmcp_mut()
            .pending_tool_executions
            .entry_or_default(caller_traversable)
            .map(|map| {
                map.insert(
                    e.uuid,
                    PendingToolExecution {
                        caller_document: caller,
                        target_document: target,
                        tool_name: e.tool_name.clone(),
                        promise: e.promise,
                        traversable: caller_traversable,
                    },
                )
            });
        step!(self, EXECUTE_TOOL, "16.12", Some(target), "{:?}", e.uuid);
        // 16.13. Queue a webmcp task on the target's Window to run the tool execute steps. A
        //        target that is not fully active runs them when it is again.
        step!(self, EXECUTE_TOOL, "16.13", Some(target));
        self.queue_tool_execute_steps(target, execution);
    }

    /// Settles an execution's promise, in the caller's realm, and remembers how.
    fn settle_execution(&mut self, execution: ExecutionKey, outcome: Result<Value, Value>) {
        let e = &mut self.webmcp_mut().executions[execution];
        e.outcome = Some(match &outcome {
            Ok(Value::String(s)) => Ok(Some(s.clone())),
            Ok(_) => Ok(None),
            Err(Value::Error(err)) => Err((**err).clone()),
            Err(other) => Err(ErrorValue::named("Error", format!("{other:?}"))),
        });
        let promise = e.promise;
        match outcome {
            Ok(v) => self.resolve_promise(promise, v),
            Err(r) => self.reject_promise(promise, r),
        }
    }

    /// Queues a webmcp task on the caller's global to reject the execution's promise with
    /// `error` (steps 16.1, 16.4, 16.7, 16.9, and the completion steps' failure).
    fn reject_execution(&mut self, execution: ExecutionKey, error: ErrorValue) {
        let e = &mut self.webmcp_mut().executions[execution];
        e.outcome = Some(Err(error.clone()));
        let (caller, promise) = (e.caller, e.promise);
        self.queue_settle(caller, promise, Err(Value::error(error)));
    }
}

impl<W: WebMcpHost> ExecuteTool for W {}

/// The UnknownError executeTool() rejects with where the text has no more granular error yet
/// (its Issue boxes).
pub fn unknown_error(message: &str) -> ErrorValue {
    ErrorValue::dom("UnknownError", message)
}

/// executeTool()'s answer for a tool that is not there (or not exposed to the caller: the
/// same answer, so that a caller learns nothing of tools it may not see).
pub fn no_such_tool(name: &str) -> ErrorValue {
    unknown_error(&format!("no tool named {name:?}"))
}
