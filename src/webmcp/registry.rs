//! The tool registry: `registerTool()`, unregistering, and the `toolchange` notification.

use url::Url;

use super::readiness::Readiness;
use super::steps::{AbortStep, ParallelStep, TaskStep};
use super::switches::{
    InputSchema, NotifyTargets, ReadinessToolchange, RegisterAbortSteps, RegistryToolchange,
};
use super::{
    Exposure, ModelContextKey, ToolAnnotations, ToolDefinition, WebMcpHost, CHECK_INPUT_SCHEMA,
    CONVERT_DICTIONARY, NOTIFY_DOCUMENTS_OF_A_TOOL_CHANGE, REGISTER_TOOL, REGISTRY_NOTIFICATION,
    TOOLCHANGE_EVENT, TOOL_IS_VISIBLE_TO_AN_ORIGIN, UNREGISTER_A_TOOL,
};
use crate::host::callback::Callback;
use crate::host::event_loop::{EventLoops, TaskAction, TaskSource};
use crate::host::events::{Event, EventTargetRef, Events};
use crate::host::keys::{DocumentKey, PromiseKey, SignalKey};
use crate::host::origin::Origin;
use crate::host::parallel::ParallelStepKind;
use crate::host::spec::Algorithm;
use crate::host::value::{ErrorValue, Value};
use crate::host::webidl::{
    convert_signal, dictionary_value, member, required_string, to_boolean, to_idl_string,
};
use crate::host::Running;
use crate::step;

/// A `ModelContextTool` dictionary after Web IDL conversion.
pub(crate) struct ModelContextTool {
    pub name: String,
    pub title: Option<String>,
    pub description: String,
    pub input_schema: Option<Value>,
    pub execute: Callback,
    pub annotations: Option<ToolAnnotations>,
}

/// A `ModelContextRegisterToolOptions` dictionary after Web IDL conversion.
pub(crate) struct RegisterToolOptions {
    pub exposed_to: Option<Vec<String>>,
    pub signal: Option<SignalKey>,
}

/// The tool registry's algorithms.
pub trait Registry: WebMcpHost {
    /// <https://webmachinelearning.github.io/webmcp/#dom-modelcontext-registertool>, called on
    /// the `ModelContext` of `this_doc`.
    fn register_tool(&mut self, this_doc: DocumentKey, tool: Value, options: Value) -> PromiseKey {
        // Web IDL converts the arguments before the method steps; for an operation returning a
        // promise, a conversion exception becomes a rejected promise.
        let converted = convert_model_context_tool(&tool).and_then(|tool| {
            step!(self, CONVERT_DICTIONARY, "ModelContextTool", Some(this_doc));
            let options = convert_register_tool_options(&options)?;
            step!(
                self,
                CONVERT_DICTIONARY,
                "ModelContextRegisterToolOptions",
                Some(this_doc)
            );
            Ok((tool, options))
        });
        let (tool, options) = match converted {
            Ok(c) => c,
            Err(e) => {
                step!(
                    self,
                    CONVERT_DICTIONARY,
                    "ModelContextTool",
                    Some(this_doc),
                    "{}",
                    e.message
                );
                return self.promise_rejected_with(this_doc, e);
            }
        };
        let this = self.context_of(this_doc);

        // 1. Let global be this's relevant global object.
        step!(self, REGISTER_TOOL, "1", Some(this_doc));
        // 2. Let tool owner be global's associated Document.
        let tool_owner = this_doc;
        step!(self, REGISTER_TOOL, "2", Some(tool_owner));
        // 3. A tool owner that is not fully active cannot register.
        if !self.is_fully_active(tool_owner) {
            step!(
                self,
                REGISTER_TOOL,
                "3",
                Some(tool_owner),
                "not fully active: InvalidStateError"
            );
            return self.promise_rejected_with(this_doc, super::not_fully_active_error());
        }
        step!(self, REGISTER_TOOL, "3", Some(tool_owner));
        // 4. The surrounding agent's agent cluster must be origin-keyed, unless the origin's
        //    scheme is "file".
        let origin_keyed = self.navigables[self.traversable_of(tool_owner)].origin_keyed;
        let scheme_is_file = self.documents[tool_owner].origin.scheme() == Some("file");
        if !origin_keyed && !scheme_is_file {
            step!(
                self,
                REGISTER_TOOL,
                "4",
                Some(tool_owner),
                "agent cluster is not origin-keyed: SecurityError"
            );
            return self.promise_rejected_with(
                this_doc,
                ErrorValue::dom("SecurityError", "the agent cluster is not origin-keyed"),
            );
        }
        step!(self, REGISTER_TOOL, "4", Some(tool_owner));
        // 5. The tool owner must be allowed to use "tools".
        if !self.is_allowed_to_use_tools(tool_owner) {
            step!(
                self,
                REGISTER_TOOL,
                "5",
                Some(tool_owner),
                "not allowed to use \"tools\": NotAllowedError"
            );
            return self.promise_rejected_with(this_doc, super::not_allowed_to_use_tools_error());
        }
        step!(self, REGISTER_TOOL, "5", Some(tool_owner));
        // 6-8. The tool map, the tool's name and title.
        step!(self, REGISTER_TOOL, "6", Some(tool_owner));
        let tool_name = tool.name.clone();
        step!(self, REGISTER_TOOL, "7", Some(tool_owner), "{tool_name:?}");
        let tool_title = tool.title.clone();
        step!(self, REGISTER_TOOL, "8", Some(tool_owner));
        // 9. A name already in the tool map is rejected.
        if self.webmcp().model_contexts[this]
            .tool_map
            .contains_key(&tool_name)
        {
            step!(
                self,
                REGISTER_TOOL,
                "9",
                Some(tool_owner),
                "{tool_name:?} is already registered: InvalidStateError"
            );
            return self.promise_rejected_with(
                this_doc,
                ErrorValue::dom(
                    "InvalidStateError",
                    format!("a tool named {tool_name:?} is already registered"),
                ),
            );
        }
        step!(self, REGISTER_TOOL, "9", Some(tool_owner));
        // 10. So is an empty name or description.
        if tool_name.is_empty() || tool.description.is_empty() {
            step!(
                self,
                REGISTER_TOOL,
                "10",
                Some(tool_owner),
                "empty name or description: InvalidStateError"
            );
            return self.promise_rejected_with(
                this_doc,
                ErrorValue::dom(
                    "InvalidStateError",
                    "the tool's name and description must not be empty",
                ),
            );
        }
        step!(self, REGISTER_TOOL, "10", Some(tool_owner));
        // 11. The name is 1 to 128 code units of ASCII alphanumerics, "_", "-" and ".".
        let length = tool_name.encode_utf16().count();
        let bad_code_point = tool_name
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')));
        if length == 0 || length > 128 || bad_code_point.is_some() {
            let why = match bad_code_point {
                Some(c) => format!("contains {c:?}"),
                None => format!("is {length} long"),
            };
            step!(
                self,
                REGISTER_TOOL,
                "11",
                Some(tool_owner),
                "name {why}: InvalidStateError"
            );
            return self.promise_rejected_with(
                this_doc,
                ErrorValue::dom("InvalidStateError", format!("the tool's name {why}")),
            );
        }
        step!(self, REGISTER_TOOL, "11", Some(tool_owner));
        // 12. Let stringified input schema be the empty string.
        let mut stringified_input_schema = String::new();
        step!(self, REGISTER_TOOL, "12", Some(tool_owner));
        // 13. Serialize the input schema to JSON; an exception rejects the promise.
        if let Some(schema) = &tool.input_schema {
            match schema.to_json_string() {
                Ok(s) => stringified_input_schema = s,
                Err(e) => {
                    step!(
                        self,
                        REGISTER_TOOL,
                        "13",
                        Some(tool_owner),
                        "serialization threw {}",
                        e.name
                    );
                    return self.promise_rejected_with(this_doc, e);
                }
            }
        }
        step!(
            self,
            REGISTER_TOOL,
            "13",
            Some(tool_owner),
            "{stringified_input_schema:?}"
        );
        // (input-schema=tentative-subset, WPT's .tentative test) A schema outside the
        // supported JSON Schema subset is a TypeError.
        if self.switches().input_schema == InputSchema::TentativeSubset
            && !stringified_input_schema.is_empty()
        {
            let checked = serde_json::from_str::<serde_json::Value>(&stringified_input_schema)
                .map_err(|e| e.to_string())
                .and_then(|schema| {
                    super::input_schema::check_supported_subset(&schema).map_err(|e| e.to_string())
                });
            if let Err(why) = checked {
                step!(
                    self,
                    CHECK_INPUT_SCHEMA,
                    "1",
                    Some(tool_owner),
                    "{why}: TypeError"
                );
                return self.promise_rejected_with(this_doc, ErrorValue::type_error(why));
            }
            step!(
                self,
                CHECK_INPUT_SCHEMA,
                "1",
                Some(tool_owner),
                "the schema is in the supported subset"
            );
        }
        // 14-15. The hints.
        let read_only_hint = tool.annotations.is_some_and(|a| a.read_only_hint);
        step!(
            self,
            REGISTER_TOOL,
            "14",
            Some(tool_owner),
            "{read_only_hint}"
        );
        let untrusted_content_hint = tool.annotations.is_some_and(|a| a.untrusted_content_hint);
        step!(
            self,
            REGISTER_TOOL,
            "15",
            Some(tool_owner),
            "{untrusted_content_hint}"
        );
        // 16. Let promise be a new promise in this's relevant realm.
        let promise = self.new_promise(this_doc);
        step!(self, REGISTER_TOOL, "16", Some(tool_owner), |w| w
            .promise_label(promise));
        // 17. Let signal be options's signal.
        let signal = options.signal;
        step!(self, REGISTER_TOOL, "17", Some(tool_owner));
        // 18. If signal exists:
        if let Some(signal) = signal {
            step!(self, REGISTER_TOOL, "18", Some(tool_owner));
            // 18.1. An aborted signal rejects with its abort reason.
            if self.signals[signal].aborted {
                let reason = self.signals[signal].reason.clone();
                step!(self, REGISTER_TOOL, "18.1", Some(tool_owner), |w| format!(
                    "signal already aborted: rejected with {}",
                    w.describe_value(&reason)
                ));
                let p = self.new_promise(this_doc);
                self.reject_promise(p, reason);
                return p;
            }
            step!(self, REGISTER_TOOL, "18.1", Some(tool_owner));
            // 18.2. Add abort steps that unregister the tool and reject the promise. As
            //       written they are added here, before the exposedTo checks of step 20, which
            //       can still reject: the abort steps then stay on the signal (see
            //       `register_tool_abort_steps`). Switch register-abort-steps=on-success
            //       (Chromium) adds them only once step 20 has passed.
            match self.switches().register_abort_steps {
                RegisterAbortSteps::AsWritten => {
                    self.add_abort_algorithm(signal, abort_steps(this, &tool_name, promise));
                    step!(self, REGISTER_TOOL, "18.2", Some(tool_owner));
                }
                RegisterAbortSteps::OnSuccess => {
                    step!(
                        self,
                        REGISTER_TOOL,
                        "18.2",
                        Some(tool_owner),
                        "added once step 20 passes (register-abort-steps=on-success)"
                    );
                }
            }
        }
        // 19. Let exposed origins be an empty list.
        let mut exposed_origins: Vec<Origin> = Vec::new();
        step!(self, REGISTER_TOOL, "19", Some(tool_owner));
        // 20. If options's exposedTo exists:
        if let Some(exposed_to) = &options.exposed_to {
            step!(self, REGISTER_TOOL, "20", Some(tool_owner));
            // 20.1. For each origin of exposedTo:
            for entry in exposed_to {
                step!(self, REGISTER_TOOL, "20.1", Some(tool_owner), "{entry:?}");
                // 20.1.1. Run the URL parser on it.
                let parsed = Url::parse(entry);
                step!(self, REGISTER_TOOL, "20.1.1", Some(tool_owner));
                // 20.1.2. Failure, or an origin that is not potentially trustworthy, rejects.
                let origin = parsed
                    .ok()
                    .map(|u| Origin::of_url(&u, &mut self.next_opaque));
                let Some(origin) = origin.filter(Origin::is_potentially_trustworthy) else {
                    step!(self, REGISTER_TOOL, "20.1.2", Some(tool_owner),
                        "{entry:?} is not a URL with a potentially trustworthy origin: SecurityError");
                    return self.promise_rejected_with(
                        this_doc,
                        ErrorValue::dom(
                            "SecurityError",
                            format!(
                                "exposedTo entry {entry:?} is not a potentially trustworthy origin"
                            ),
                        ),
                    );
                };
                step!(self, REGISTER_TOOL, "20.1.2", Some(tool_owner));
                // 20.1.3. Append its origin.
                step!(self, REGISTER_TOOL, "20.1.3", Some(tool_owner), "{origin}");
                exposed_origins.push(origin);
            }
        }
        // (register-abort-steps=on-success) The abort steps of step 18.2, now that nothing can
        // reject the registration any more.
        if let (Some(signal), RegisterAbortSteps::OnSuccess) =
            (options.signal, self.switches().register_abort_steps)
        {
            self.add_abort_algorithm(signal, abort_steps(this, &tool_name, promise));
            step!(
                self,
                REGISTER_TOOL,
                "18.2",
                Some(tool_owner),
                "abort steps added now (register-abort-steps=on-success)"
            );
        }
        // 21. The tool definition.
        let definition = ToolDefinition {
            name: tool_name.clone(),
            title: tool_title,
            description: tool.description,
            input_schema: stringified_input_schema,
            execute: tool.execute,
            read_only_hint,
            untrusted_content_hint,
            annotations: tool.annotations,
            exposed_origins: exposed_origins.clone(),
        };
        step!(self, REGISTER_TOOL, "21", Some(tool_owner));
        // 22. Set this's internal context's tool map[tool name] to it.
        self.webmcp_mut().model_contexts[this]
            .tool_map
            .insert(tool_name.clone(), definition);
        step!(
            self,
            REGISTER_TOOL,
            "22",
            Some(tool_owner),
            "{tool_name:?} registered"
        );
        // 23. In parallel: notify documents of the change, then queue a task that resolves
        //     the promise.
        step!(self, REGISTER_TOOL, "23", Some(tool_owner));
        let mut steps: Vec<ParallelStepKind<Self::Upper>> = Vec::new();
        let exposure = Exposure::Origins(exposed_origins);
        if let Some(notify) =
            self.registry_change_notification(tool_owner, exposure, &REGISTER_TOOL)
        {
            steps.push(notify);
        }
        steps.push(ParallelStepKind::Webmcp(
            ParallelStep::QueueRegistrationResolve {
                tool_owner,
                promise,
            },
        ));
        let label = format!("registerTool({tool_name:?}) of {}", self.label(tool_owner));
        self.in_parallel(label, steps);
        // 24. Return promise.
        step!(self, REGISTER_TOOL, "24", Some(tool_owner));
        promise
    }

    /// registerTool() step 23.2, in parallel: queue a webmcp task that resolves the promise.
    fn register_tool_queue_resolve(&mut self, tool_owner: DocumentKey, promise: PromiseKey) {
        step!(self, REGISTER_TOOL, "23.2", Some(tool_owner), |w| format!(
            "queue a webmcp task to resolve {}",
            w.promise_label(promise)
        ));
        self.queue_global_task(
            tool_owner,
            TaskSource::Webmcp,
            TaskAction::SettlePromise {
                promise,
                outcome: Ok(Value::Undefined),
                why: "registerTool() step 23.2",
            },
        );
    }

    /// The notification a registry change makes, as the switches shape it: step 23.1 of
    /// registerTool() and step 6.1 of unregister a tool. Returns the in-parallel step to run, if
    /// the change is notified now.
    fn registry_change_notification(
        &mut self,
        tool_owner: DocumentKey,
        exposure: Exposure,
        alg: &'static Algorithm,
    ) -> Option<ParallelStepKind<Self::Upper>> {
        let registering = std::ptr::eq(alg, &REGISTER_TOOL);
        let record = |w: &mut Self, detail: &str| {
            if registering {
                step!(w, REGISTER_TOOL, "23.1", Some(tool_owner), "{detail}");
            } else {
                step!(w, UNREGISTER_A_TOOL, "6.1", Some(tool_owner), "{detail}");
            }
        };
        // readiness-toolchange=ready-events (PR #373's first revision): while the owner's
        // tools are not ready, registry changes are not notified at all.
        let ready = self.tools_ready(tool_owner);
        if self.switches().readiness_toolchange == ReadinessToolchange::ReadyEvents && !ready {
            record(
                self,
                "tools are not ready: notification suppressed (readiness-toolchange=ready-events)",
            );
            return None;
        }
        let ready_attr = (self.switches().readiness_toolchange == ReadinessToolchange::ReadyEvents)
            .then_some(true);
        match self.switches().registry_toolchange {
            RegistryToolchange::PerCall => {
                record(self, "notify documents of a tool change");
                Some(ParallelStepKind::Webmcp(
                    ParallelStep::NotifyDocumentsOfAToolChange {
                        tool_owner,
                        exposed: exposure,
                        ready: ready_attr,
                    },
                ))
            }
            // webmcp#374: the task's changes are gathered and notified once, from a task.
            RegistryToolchange::PerTask => {
                let context = self.context_of(tool_owner);
                let pending = self.webmcp_mut().model_contexts[context]
                    .registry_change
                    .take();
                let first = pending.is_none();
                self.webmcp_mut().model_contexts[context].registry_change = Some(match pending {
                    Some(p) => p.union(exposure),
                    None => exposure,
                });
                if first {
                    self.queue_global_task(
                        tool_owner,
                        TaskSource::Webmcp,
                        TaskAction::Webmcp(TaskStep::RegistryNotification),
                    );
                    record(
                        self,
                        "change recorded; a task will notify it (registry-toolchange=per-task)",
                    );
                } else {
                    record(
                        self,
                        "change joins the one already queued (registry-toolchange=per-task)",
                    );
                }
                None
            }
        }
    }

    /// webmcp#374's coalesced notification: the task the first change of a task queued.
    fn registry_notification(&mut self, doc: DocumentKey) {
        let context = self.context_of(doc);
        // 1-2. Take the gathered exposure.
        let Some(exposure) = self.webmcp_mut().model_contexts[context]
            .registry_change
            .take()
        else {
            return;
        };
        step!(self, REGISTRY_NOTIFICATION, "1", Some(doc));
        step!(self, REGISTRY_NOTIFICATION, "2", Some(doc));
        // 3. Notify once, in parallel.
        step!(self, REGISTRY_NOTIFICATION, "3", Some(doc));
        let ready = (self.switches().readiness_toolchange == ReadinessToolchange::ReadyEvents)
            .then_some(true);
        let label = format!("coalesced notification of {}", self.label(doc));
        self.in_parallel(
            label,
            vec![ParallelStepKind::Webmcp(
                ParallelStep::NotifyDocumentsOfAToolChange {
                    tool_owner: doc,
                    exposed: exposure,
                    ready,
                },
            )],
        );
    }

    /// registerTool() step 18.2's abort steps.
    fn register_tool_abort_steps(
        &mut self,
        this: ModelContextKey,
        tool_name: &str,
        promise: PromiseKey,
        signal: SignalKey,
    ) {
        let doc = self.webmcp().model_contexts[this].document;
        // 18.2.1. Unregister a tool given this and tool name. Should step 20 have rejected the
        //         registration, these steps still run and unregister whatever tool has that
        //         name by now: the text adds them before it knows the registration succeeds.
        step!(self, REGISTER_TOOL, "18.2.1", Some(doc), "{tool_name:?}");
        self.unregister_a_tool(this, tool_name);
        // 18.2.2. Reject promise with the signal's abort reason.
        let reason = self.signals[signal].reason.clone();
        step!(self, REGISTER_TOOL, "18.2.2", Some(doc), |w| format!(
            "{} rejected with {}",
            w.promise_label(promise),
            w.describe_value(&reason)
        ));
        self.reject_promise(promise, reason);
    }

    /// <https://webmachinelearning.github.io/webmcp/#model-context-unregister-a-tool>
    fn unregister_a_tool(&mut self, model_context: ModelContextKey, tool_name: &str) {
        let doc = self.webmcp().model_contexts[model_context].document;
        // 1. Assert: running on modelContext's relevant agent's event loop.
        let on_its_loop = self.running == Running::EventLoop(self.documents[doc].event_loop);
        self.assert_step(
            &UNREGISTER_A_TOOL,
            "1",
            Some(doc),
            on_its_loop,
            on_its_loop,
            "running on the model context's relevant agent's event loop",
        );
        step!(self, UNREGISTER_A_TOOL, "1", Some(doc));
        // 2. Let tool map be modelContext's tool map.
        step!(self, UNREGISTER_A_TOOL, "2", Some(doc));
        // 3. A name not in the map: nothing to do.
        let Some(exposed) = self.webmcp().model_contexts[model_context]
            .tool_map
            .get(tool_name)
            .map(|definition| definition.exposed_origins.clone())
        else {
            step!(
                self,
                UNREGISTER_A_TOOL,
                "3",
                Some(doc),
                "{tool_name:?} is not registered"
            );
            return;
        };
        step!(self, UNREGISTER_A_TOOL, "3", Some(doc));
        // 4. Let exposed origins be the tool's exposed origins.
        step!(self, UNREGISTER_A_TOOL, "4", Some(doc));
        // 5. Remove it.
        self.webmcp_mut().model_contexts[model_context]
            .tool_map
            .shift_remove(tool_name);
        step!(
            self,
            UNREGISTER_A_TOOL,
            "5",
            Some(doc),
            "{tool_name:?} removed"
        );
        // 6. In parallel, notify documents of a tool change.
        step!(self, UNREGISTER_A_TOOL, "6", Some(doc));
        if let Some(notify) =
            self.registry_change_notification(doc, Exposure::Origins(exposed), &UNREGISTER_A_TOOL)
        {
            let label = format!("unregister {tool_name:?} of {}", self.label(doc));
            self.in_parallel(label, vec![notify]);
        }
    }

    /// <https://webmachinelearning.github.io/webmcp/#notify-documents-of-a-tool-change>.
    /// `ready` is the readiness a `ToolChangeEvent` carries, where a profile dispatches one.
    fn notify_documents_of_a_tool_change(
        &mut self,
        tool_owner: DocumentKey,
        exposed: &Exposure,
        ready: Option<bool>,
    ) {
        // 1. Assert: running in parallel.
        let in_parallel = matches!(self.running, Running::Parallel(_));
        self.assert_step(
            &NOTIFY_DOCUMENTS_OF_A_TOOL_CHANGE,
            "1",
            Some(tool_owner),
            in_parallel,
            in_parallel,
            "these steps are running in parallel",
        );
        step!(
            self,
            NOTIFY_DOCUMENTS_OF_A_TOOL_CHANGE,
            "1",
            Some(tool_owner)
        );
        // 2. The navigables to notify: those of the tool owner's traversable navigable. The
        //    text names "descendant navigables", which leaves the top-level document out; WPT
        //    expects it notified (switch notify-targets).
        let Some(node_navigable) = self.node_navigable(tool_owner) else {
            self.finding(&NOTIFY_DOCUMENTS_OF_A_TOOL_CHANGE, "2", Some(tool_owner),
                "the tool owner has no node navigable (it is no longer its navigable's active document), so \"its node navigable's traversable navigable\" does not exist".into());
            return;
        };
        let traversable = self.navigables[node_navigable].traversable;
        let Some(top) = self.navigables[traversable].active_document else {
            self.finding(
                &NOTIFY_DOCUMENTS_OF_A_TOOL_CHANGE,
                "2",
                Some(tool_owner),
                "the traversable navigable has no active document".into(),
            );
            return;
        };
        let navigables_to_notify = match self.switches().notify_targets {
            NotifyTargets::Inclusive => self.inclusive_descendant_navigables(top),
            NotifyTargets::Descendants => self.descendant_navigables(top),
        };
        step!(
            self,
            NOTIFY_DOCUMENTS_OF_A_TOOL_CHANGE,
            "2",
            Some(tool_owner),
            "{} navigable(s)",
            navigables_to_notify.len()
        );
        // 3. For each navigable:
        let owner_origin = self.documents[tool_owner].origin.clone();
        for navigable in navigables_to_notify {
            step!(
                self,
                NOTIFY_DOCUMENTS_OF_A_TOOL_CHANGE,
                "3",
                Some(tool_owner)
            );
            // 3.1. Its active document.
            let Some(target) = self.navigables[navigable].active_document else {
                continue;
            };
            step!(self, NOTIFY_DOCUMENTS_OF_A_TOOL_CHANGE, "3.1", Some(target));
            // 3.2. Skip a document not allowed to use "tools".
            if !self.is_allowed_to_use_tools(target) {
                step!(
                    self,
                    NOTIFY_DOCUMENTS_OF_A_TOOL_CHANGE,
                    "3.2",
                    Some(target),
                    "not allowed to use \"tools\": skipped"
                );
                continue;
            }
            step!(self, NOTIFY_DOCUMENTS_OF_A_TOOL_CHANGE, "3.2", Some(target));
            // 3.3. If the tool is visible to its origin ("*" in PR #373's first revision),
            //      queue a task to fire toolchange at its ModelContext.
            let target_origin = self.documents[target].origin.clone();
            let visible = match exposed {
                Exposure::All => true,
                Exposure::Origins(list) => {
                    self.tool_is_visible_to_an_origin(&owner_origin, list, &target_origin)
                }
            };
            if visible {
                step!(
                    self,
                    NOTIFY_DOCUMENTS_OF_A_TOOL_CHANGE,
                    "3.3",
                    Some(target),
                    "queue a task to fire toolchange"
                );
                let context = self.context_of(target);
                self.queue_global_task(
                    target,
                    TaskSource::Webmcp,
                    TaskAction::Webmcp(TaskStep::FireToolchange { context, ready }),
                );
            } else {
                step!(
                    self,
                    NOTIFY_DOCUMENTS_OF_A_TOOL_CHANGE,
                    "3.3",
                    Some(target),
                    "not visible to {target_origin}"
                );
            }
        }
    }

    /// <https://webmachinelearning.github.io/webmcp/#tool-is-visible-to-an-origin>
    fn tool_is_visible_to_an_origin(
        &mut self,
        tool_owner_origin: &Origin,
        exposed_origins: &[Origin],
        target_origin: &Origin,
    ) -> bool {
        // 1. Same origin: visible.
        if tool_owner_origin.same_origin(target_origin) {
            step!(
                self,
                TOOL_IS_VISIBLE_TO_AN_ORIGIN,
                "1",
                None,
                "{target_origin} is the owner's origin"
            );
            return true;
        }
        step!(self, TOOL_IS_VISIBLE_TO_AN_ORIGIN, "1", None);
        // 2. Exposed to it: visible.
        for origin in exposed_origins {
            step!(self, TOOL_IS_VISIBLE_TO_AN_ORIGIN, "2", None);
            if target_origin.same_origin(origin) {
                step!(
                    self,
                    TOOL_IS_VISIBLE_TO_AN_ORIGIN,
                    "2.1",
                    None,
                    "exposed to {target_origin}"
                );
                return true;
            }
        }
        // 3. Otherwise not.
        step!(
            self,
            TOOL_IS_VISIBLE_TO_AN_ORIGIN,
            "3",
            None,
            "not visible to {target_origin}"
        );
        false
    }

    /// The task "notify documents of a tool change" queues: fire an event named `toolchange`
    /// at the ModelContext (a `ToolChangeEvent` carrying `ready` where a profile sends one).
    fn fire_toolchange(&mut self, context: ModelContextKey, ready: Option<bool>) {
        let doc = self.webmcp().model_contexts[context].document;
        step!(
            self,
            TOOLCHANGE_EVENT,
            "1",
            Some(doc),
            "{}",
            match ready {
                Some(r) => format!("ToolChangeEvent ready={r}"),
                None => "Event".into(),
            }
        );
        let count = &mut self.webmcp_mut().model_contexts[context].toolchanges_fired;
        count.all += 1;
        if let Some(r) = ready {
            count.with_ready[usize::from(r)] += 1;
        }
        let event = match ready {
            Some(r) => Event {
                event_type: "toolchange".into(),
                interface: "ToolChangeEvent",
                attributes: vec![("ready", Value::Bool(r))],
            },
            None => Event::plain("toolchange"),
        };
        self.dispatch_event(EventTargetRef::Webmcp(context), event);
    }
}

impl<W: WebMcpHost> Registry for W {}

/// registerTool() step 18.2's abort steps for one registration.
fn abort_steps(context: ModelContextKey, tool_name: &str, promise: PromiseKey) -> AbortStep {
    AbortStep::UnregisterTool {
        context,
        tool_name: tool_name.into(),
        promise,
    }
}

/// Converts `tool` to a `ModelContextTool`, reading members in the lexicographic order Web IDL
/// uses (so the first missing required member in that order is the one reported).
///
/// <https://webidl.spec.whatwg.org/#es-dictionary>
pub(crate) fn convert_model_context_tool(tool: &Value) -> Result<ModelContextTool, ErrorValue> {
    const T: &str = "ModelContextTool";
    let dict = dictionary_value(tool, T)?;
    let annotations = match dict.and_then(|d| member(d, "annotations")) {
        None => None,
        Some(a) => Some(convert_annotations(a)?),
    };
    let description = required_string(dict, "description", T)?;
    let execute = match dict.and_then(|d| member(d, "execute")) {
        Some(Value::Function(f)) => f.clone(),
        Some(_) => {
            return Err(ErrorValue::type_error(
                "Failed to read the 'execute' property from 'ModelContextTool': The provided value is not a function.",
            ))
        }
        None => {
            return Err(ErrorValue::type_error(
                "Failed to read the 'execute' property from 'ModelContextTool': Required member is undefined.",
            ))
        }
    };
    let input_schema = match dict.and_then(|d| member(d, "inputSchema")) {
        None => None,
        Some(v) if v.is_object() => Some(v.clone()),
        Some(_) => {
            return Err(ErrorValue::type_error(
                "Failed to read the 'inputSchema' property from 'ModelContextTool': The provided value is not of type 'object'.",
            ))
        }
    };
    let name = required_string(dict, "name", T)?;
    let title = dict.and_then(|d| member(d, "title")).map(to_idl_string);
    Ok(ModelContextTool {
        name,
        title,
        description,
        input_schema,
        execute,
        annotations,
    })
}

fn convert_annotations(v: &Value) -> Result<ToolAnnotations, ErrorValue> {
    let dict = dictionary_value(v, "ToolAnnotations")?;
    let flag = |key: &str| dict.and_then(|d| member(d, key)).is_some_and(to_boolean);
    Ok(ToolAnnotations {
        consequential_hint: flag("consequentialHint"),
        debugging: flag("debugging"),
        read_only_hint: flag("readOnlyHint"),
        untrusted_content_hint: flag("untrustedContentHint"),
    })
}

/// Converts `options` to a `ModelContextRegisterToolOptions`.
pub(crate) fn convert_register_tool_options(
    options: &Value,
) -> Result<RegisterToolOptions, ErrorValue> {
    const T: &str = "ModelContextRegisterToolOptions";
    let dict = dictionary_value(options, T)?;
    let exposed_to = match dict.and_then(|d| member(d, "exposedTo")) {
        None => None,
        Some(Value::Array(items)) => Some(items.iter().map(to_idl_string).collect()),
        Some(_) => {
            return Err(ErrorValue::type_error(format!(
                "Failed to read the 'exposedTo' property from '{T}': The provided value cannot be converted to a sequence."
            )))
        }
    };
    let signal = convert_signal(dict, T)?;
    Ok(RegisterToolOptions { exposed_to, signal })
}
