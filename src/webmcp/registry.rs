//! The tool registry: `registerTool()`, unregister a tool, notify documents of a tool change,
//! tool is exposed to an origin, and the `toolchange` event.

use url::Url;

use super::errors::{Method, Rejection};
use super::readiness::Readiness;
use super::steps::{AbortStep, ParallelStep, TaskStep};
use super::switches::{InputSchema, ReadinessToolchange, RegistryToolchange, TextReading};
use super::{
    Exposure, ModelContextKey, ToolAnnotations, ToolDefinition, WebMcpHost, CHECK_INPUT_SCHEMA,
    CONVERT_DICTIONARY, NOTIFY_DOCUMENTS_OF_A_TOOL_CHANGE, NOTIFY_DOCUMENTS_OF_A_TOOL_CHANGE_R1,
    REGISTER_TOOL, REGISTER_TOOL_R1, REGISTRY_NOTIFICATION, TOOLCHANGE_EVENT,
    TOOL_IS_EXPOSED_TO_AN_ORIGIN, UNREGISTER_A_TOOL, UNREGISTER_A_TOOL_R1,
};
use crate::host::callback::Callback;
use crate::host::event_loop::{EventLoops, TaskAction, TaskSource};
use crate::host::events::{Event, EventTargetRef, Events};
use crate::host::keys::{DocumentKey, NavigableKey, PromiseKey, SignalKey};
use crate::host::origin::Origin;
use crate::host::parallel::ParallelStepKind;
use crate::host::spec::step_index;
use crate::host::value::{ErrorValue, Value};
use crate::host::webidl::{
    convert_signal, dictionary_value, member, required_string, to_boolean, to_usv_string,
};
use crate::host::Running;
use crate::{return_rejected, step};

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

/// Whether a tool name has the form the text allows: 1 to 128 code units, each an ASCII
/// alphanumeric, `_`, `-` or `.`. `Err` says what is wrong with it.
pub fn check_tool_name(name: &str) -> Result<(), String> {
    let length = crate::text::js_string::length(name);
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        return Err(format!("contains {c:?}"));
    }
    if length == 0 || length > 128 {
        return Err(format!("is {length} code units long"));
    }
    Ok(())
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
            Err(e) => return_rejected!(
                self,
                CONVERT_DICTIONARY,
                "ModelContextTool",
                this_doc,
                self.conversion_rejection(Method::RegisterTool, e)
            ),
        };
        let this = self.context_of(this_doc);
        // 1. Let global be this's relevant global object.
        step!(self, REGISTER_TOOL, "1", Some(this_doc));
        // 2. Let tool owner be global's associated Document.
        let tool_owner = this_doc;
        step!(self, REGISTER_TOOL, "2", Some(tool_owner));
        // 3. A tool owner that is not fully active cannot register.
        const FULLY_ACTIVE: usize = step_index(&REGISTER_TOOL, "3");
        if let Err(answer) = self.fully_active_check(&REGISTER_TOOL, FULLY_ACTIVE, tool_owner) {
            return answer;
        }
        // 4. Nor one that may not use the "tools" feature.
        if !self.is_allowed_to_use_tools(tool_owner) {
            return_rejected!(
                self,
                REGISTER_TOOL,
                "4",
                tool_owner,
                self.rejection(Rejection::NotAllowedToUseTools)
            );
        }
        step!(self, REGISTER_TOOL, "4", Some(tool_owner));
        // 5-7. The tool map, the tool's name and title.
        step!(self, REGISTER_TOOL, "5", Some(tool_owner));
        let tool_name = tool.name.clone();
        step!(self, REGISTER_TOOL, "6", Some(tool_owner), "{tool_name:?}");
        let tool_title = tool.title.clone();
        step!(self, REGISTER_TOOL, "7", Some(tool_owner));
        // 8. A name already in the tool map is rejected.
        if self.webmcp().model_contexts[this]
            .tool_map
            .contains_key(&tool_name)
        {
            return_rejected!(
                self,
                REGISTER_TOOL,
                "8",
                tool_owner,
                self.rejection(Rejection::DuplicateName(tool_name.clone()))
            );
        }
        step!(self, REGISTER_TOOL, "8", Some(tool_owner));
        // 9. So is a name that is empty, longer than 128 code units, or has a code point
        //    other than ASCII alphanumerics, "_", "-" and ".". (The name is checked before the
        //    description: `{name: "a b", description: ""}` reports the name.)
        if let Err(why) = check_tool_name(&tool_name) {
            return_rejected!(
                self,
                REGISTER_TOOL,
                "9",
                tool_owner,
                self.rejection(Rejection::InvalidName {
                    name: tool_name.clone(),
                    why: why.to_string(),
                })
            );
        }
        step!(self, REGISTER_TOOL, "9", Some(tool_owner));
        // 10. And an empty description.
        if tool.description.is_empty() {
            return_rejected!(
                self,
                REGISTER_TOOL,
                "10",
                tool_owner,
                self.rejection(Rejection::EmptyDescription)
            );
        }
        step!(self, REGISTER_TOOL, "10", Some(tool_owner));
        // 11. Let stringified input schema be the empty string.
        let mut stringified_input_schema = String::new();
        step!(self, REGISTER_TOOL, "11", Some(tool_owner));
        // 12. Serialize the input schema to JSON; an exception rejects the promise.
        if let Some(schema) = &tool.input_schema {
            match schema.to_json_string() {
                Ok(s) => stringified_input_schema = s,
                Err(e) => return_rejected!(self, REGISTER_TOOL, "12", tool_owner, e),
            }
        }
        step!(
            self,
            REGISTER_TOOL,
            "12",
            Some(tool_owner),
            "{stringified_input_schema:?}"
        );
        // (input-schema=tentative-subset, WPT's .tentative test) A schema outside the
        // supported JSON Schema subset is a TypeError.
        if self.switches().input_schema == InputSchema::TentativeSubset
            && !stringified_input_schema.is_empty()
        {
            // (A lone surrogate's escape, which JSON allows and serde_json refuses, is read
            // first: text::js_string.)
            let checked = serde_json::from_str::<serde_json::Value>(
                &crate::text::js_string::unescape_lone_surrogates_in_json(
                    &stringified_input_schema,
                ),
            )
            .map_err(|e| e.to_string())
            .and_then(|schema| {
                super::input_schema::check_supported_subset(&schema).map_err(|e| e.to_string())
            });
            if let Err(why) = checked {
                return_rejected!(
                    self,
                    CHECK_INPUT_SCHEMA,
                    "1",
                    tool_owner,
                    ErrorValue::type_error(why)
                );
            }
            step!(
                self,
                CHECK_INPUT_SCHEMA,
                "1",
                Some(tool_owner),
                "the schema is in the supported subset"
            );
        }
        // 13. An aborted signal rejects with its abort reason.
        if let Some(signal) = options.signal.filter(|s| self.signals[*s].aborted) {
            let reason = self.signals[signal].reason.clone();
            step!(self, REGISTER_TOOL, "13", Some(tool_owner), |w| format!(
                "signal already aborted: rejected with {}",
                w.describe_value(&reason)
            ));
            let p = self.new_promise(this_doc);
            self.reject_promise(p, reason);
            return p;
        }
        step!(self, REGISTER_TOOL, "13", Some(tool_owner));
        // 14. Let exposed origins be an empty list.
        let mut exposed_origins: Vec<Origin> = Vec::new();
        step!(self, REGISTER_TOOL, "14", Some(tool_owner));
        // 15. If options's exposedTo exists:
        if let Some(exposed_to) = &options.exposed_to {
            step!(self, REGISTER_TOOL, "15", Some(tool_owner));
            // 15.1. For each origin of exposedTo:
            for entry in exposed_to {
                step!(self, REGISTER_TOOL, "15.1", Some(tool_owner), "{entry:?}");
                // 15.1.1. Run the URL parser on it.
                let parsed = Url::parse(entry);
                step!(self, REGISTER_TOOL, "15.1.1", Some(tool_owner));
                // 15.1.2. Failure, or an origin that is not potentially trustworthy, rejects.
                let origin = parsed
                    .ok()
                    .map(|u| self.origin_of_url(&u))
                    .filter(Origin::is_potentially_trustworthy);
                let Some(origin) = origin else {
                    return_rejected!(
                        self,
                        REGISTER_TOOL,
                        "15.1.2",
                        tool_owner,
                        self.rejection(Rejection::BadExposedTo(entry.clone()))
                    );
                };
                step!(self, REGISTER_TOOL, "15.1.2", Some(tool_owner));
                // 15.1.3. Append its origin.
                step!(self, REGISTER_TOOL, "15.1.3", Some(tool_owner), "{origin}");
                exposed_origins.push(origin);
            }
        }
        // 16. Let promise be a new promise in this's relevant realm.
        let promise = self.new_promise(this_doc);
        step!(self, REGISTER_TOOL, "16", Some(tool_owner), |w| w
            .promise_label(promise));
        // 17. If options's signal exists:
        if let Some(signal) = options.signal {
            // 17.1. Let signal be options's signal.
            step!(self, REGISTER_TOOL, "17", Some(tool_owner));
            step!(self, REGISTER_TOOL, "17.1", Some(tool_owner));
            // 17.2. An aborted signal rejects (step 13 already did: nothing can abort it in
            //       between).
            if self.signals[signal].aborted {
                let reason = self.signals[signal].reason.clone();
                step!(self, REGISTER_TOOL, "17.2", Some(tool_owner), "aborted");
                let p = self.new_promise(this_doc);
                self.reject_promise(p, reason);
                return p;
            }
            step!(self, REGISTER_TOOL, "17.2", Some(tool_owner));
            // 17.3. Add abort steps that unregister the tool and reject the promise (see
            //       `register_tool_abort_steps`). They come after every check that can reject,
            //       so a rejected registration leaves nothing on its signal.
            self.add_abort_algorithm(
                signal,
                AbortStep::UnregisterTool {
                    context: this,
                    tool_name: tool_name.clone(),
                    promise,
                },
            );
            step!(self, REGISTER_TOOL, "17.3", Some(tool_owner));
        }
        // 18. The tool definition.
        let mut definition = ToolDefinition {
            name: tool_name.clone(),
            title: tool_title,
            description: tool.description,
            input_schema: stringified_input_schema,
            execute: super::ExecuteSteps::Imperative(tool.execute),
            annotations: tool.annotations,
            exposed_origins: exposed_origins.clone(),
            registered: Value::Undefined,
        };
        let owner_origin = self.documents[tool_owner].origin.clone();
        definition.registered =
            super::get_tools::registered_tool(&definition, tool_owner, &owner_origin);
        step!(self, REGISTER_TOOL, "18", Some(tool_owner));
        // 19. Set this's internal context's tool map[tool name] to it.
        self.webmcp_mut().model_contexts[this]
            .tool_map
            .insert(tool_name.clone(), definition);
        step!(
            self,
            REGISTER_TOOL,
            "19",
            Some(tool_owner),
            "{tool_name:?} registered"
        );
        // 20. In parallel: (20.1) notify documents of the change, (20.2) queue a task that
        //     resolves the promise. PR #373's first revision (readiness-toolchange=ready-events)
        //     reads tools-ready first and notifies only when it is true (its steps 20-22).
        let mut steps: Vec<ParallelStepKind<Self::Upper>> = Vec::new();
        let first_revision =
            self.switches().readiness_toolchange == ReadinessToolchange::ReadyEvents;
        if first_revision {
            let tools_ready = self.tools_ready(tool_owner);
            step!(
                self,
                REGISTER_TOOL_R1,
                "20",
                Some(tool_owner),
                "tools-ready {tools_ready}"
            );
            step!(self, REGISTER_TOOL_R1, "21", Some(tool_owner));
            if tools_ready {
                step!(self, REGISTER_TOOL_R1, "21.1", Some(tool_owner));
                steps.extend(self.registry_change(tool_owner, exposed_origins, Some(true)));
            } else {
                step!(
                    self,
                    REGISTER_TOOL_R1,
                    "21.1",
                    Some(tool_owner),
                    "tools are not ready: not notified"
                );
            }
        } else {
            step!(self, REGISTER_TOOL, "20", Some(tool_owner));
            step!(self, REGISTER_TOOL, "20.1", Some(tool_owner));
            steps.extend(self.registry_change(tool_owner, exposed_origins, None));
        }
        steps.push(ParallelStepKind::Webmcp(
            ParallelStep::QueueRegistrationResolve {
                tool_owner,
                promise,
            },
        ));
        let label = format!("registerTool({tool_name:?}) of {}", self.label(tool_owner));
        self.in_parallel(label, steps);
        // 21. Return promise.
        if first_revision {
            step!(self, REGISTER_TOOL_R1, "22", Some(tool_owner));
        } else {
            step!(self, REGISTER_TOOL, "21", Some(tool_owner));
        }
        promise
    }

    /// registerTool() step 20.2, in parallel: queue a webmcp task that resolves the promise.
    fn register_tool_queue_resolve(&mut self, tool_owner: DocumentKey, promise: PromiseKey) {
        let detail = |w: &Self| {
            format!(
                "queue a webmcp task to resolve {}",
                w.promise_label(promise)
            )
        };
        if self.switches().readiness_toolchange == ReadinessToolchange::ReadyEvents {
            step!(
                self,
                REGISTER_TOOL_R1,
                "21.2",
                Some(tool_owner),
                |w| detail(w)
            );
        } else {
            step!(self, REGISTER_TOOL, "20.2", Some(tool_owner), |w| detail(w));
        }
        self.queue_global_task(
            tool_owner,
            TaskSource::Webmcp,
            TaskAction::SettlePromise {
                promise,
                outcome: Ok(Value::Undefined),
                why: "registerTool() step 20.2",
            },
        );
    }

    /// How a registry change (registerTool() step 20.1, unregister a tool step 7) is notified:
    /// the in-parallel "notify documents of a tool change" step to run now, or none when
    /// webmcp#374's coalescing (registry-toolchange=per-task) gathers it for a task of its own.
    fn registry_change(
        &mut self,
        tool_owner: DocumentKey,
        exposed_origins: Vec<Origin>,
        ready: Option<bool>,
    ) -> Option<ParallelStepKind<Self::Upper>> {
        let exposure = Exposure::Origins(exposed_origins);
        match self.switches().registry_toolchange {
            RegistryToolchange::PerCall => Some(ParallelStepKind::Webmcp(
                ParallelStep::NotifyDocumentsOfAToolChange {
                    tool_owner,
                    exposed: exposure,
                    ready,
                },
            )),
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
                    step!(
                        self,
                        REGISTRY_NOTIFICATION,
                        "1",
                        Some(tool_owner),
                        "change recorded; a task will notify it"
                    );
                } else {
                    step!(
                        self,
                        REGISTRY_NOTIFICATION,
                        "1",
                        Some(tool_owner),
                        "change joins the one already queued"
                    );
                }
                None
            }
        }
    }

    /// webmcp#374's coalesced notification: the task the first change of a task queued.
    fn registry_notification(&mut self, doc: DocumentKey) {
        let context = self.context_of(doc);
        // 2. Take the gathered exposure.
        let Some(exposure) = self.webmcp_mut().model_contexts[context]
            .registry_change
            .take()
        else {
            return;
        };
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

    /// registerTool() step 17.3's abort steps.
    fn register_tool_abort_steps(
        &mut self,
        this: ModelContextKey,
        tool_name: &str,
        promise: PromiseKey,
        signal: SignalKey,
    ) {
        let doc = self.document_of(this);
        // 17.3.1. Unregister a tool given this and tool name.
        step!(self, REGISTER_TOOL, "17.3.1", Some(doc), "{tool_name:?}");
        self.unregister_a_tool(this, tool_name);
        // 17.3.2. Reject promise with the signal's abort reason.
        let reason = self.signals[signal].reason.clone();
        step!(self, REGISTER_TOOL, "17.3.2", Some(doc), |w| format!(
            "{} rejected with {}",
            w.promise_label(promise),
            w.describe_value(&reason)
        ));
        self.reject_promise(promise, reason);
    }

    /// <https://webmachinelearning.github.io/webmcp/#model-context-unregister-a-tool>
    fn unregister_a_tool(&mut self, model_context: ModelContextKey, tool_name: &str) {
        let doc = self.document_of(model_context);
        // 1. Assert: running on modelContext's relevant agent's event loop.
        let on_its_loop = self.running == Running::EventLoop(self.documents[doc].event_loop);
        self.assert_step(
            &UNREGISTER_A_TOOL,
            "1",
            Some(doc),
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
        // 5. Remove it. An execution that already invoked the tool's callback goes on.
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
        // 6. Let targetDocument be modelContext's document.
        step!(self, UNREGISTER_A_TOOL, "6", Some(doc));
        // 7. In parallel, notify documents of a tool change. PR #373's first revision
        //    (readiness-toolchange=ready-events) returns first while tools are not ready
        //    (its steps 7-8).
        let ready = if self.switches().readiness_toolchange == ReadinessToolchange::ReadyEvents {
            if !self.tools_ready(doc) {
                step!(
                    self,
                    UNREGISTER_A_TOOL_R1,
                    "7",
                    Some(doc),
                    "tools are not ready: not notified"
                );
                return;
            }
            step!(self, UNREGISTER_A_TOOL_R1, "7", Some(doc));
            step!(self, UNREGISTER_A_TOOL_R1, "8", Some(doc));
            Some(true)
        } else {
            step!(self, UNREGISTER_A_TOOL, "7", Some(doc));
            None
        };
        if let Some(notify) = self.registry_change(doc, exposed, ready) {
            let label = format!("unregister {tool_name:?} of {}", self.label(doc));
            self.in_parallel(label, vec![notify]);
        }
    }

    /// <https://webmachinelearning.github.io/webmcp/#notify-documents-of-a-tool-change>.
    /// `ready` is the readiness a `ToolChangeEvent` carries under PR #373's first revision,
    /// whose step 3.3 also lets "*" expose a readiness change to every origin.
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
            "these steps are running in parallel",
        );
        step!(
            self,
            NOTIFY_DOCUMENTS_OF_A_TOOL_CHANGE,
            "1",
            Some(tool_owner)
        );
        // 2. The navigables to notify: the inclusive descendant navigables of the active
        //    document of the tool owner's node navigable's traversable navigable. A tool owner
        //    that is no longer its navigable's active document (an iframe removed, a document
        //    in the bfcache, a navigation racing the notification) has no node navigable.
        let Some(traversable) =
            self.traversable_of_active_or_last(&NOTIFY_DOCUMENTS_OF_A_TOOL_CHANGE, "2", tool_owner)
        else {
            return;
        };
        let Some(top) = self.navigables[traversable].active_document else {
            self.finding(
                &NOTIFY_DOCUMENTS_OF_A_TOOL_CHANGE,
                "2",
                Some(tool_owner),
                "the traversable navigable has no active document".into(),
            );
            return;
        };
        let navigables_to_notify = self.inclusive_descendant_navigables(top);
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
            // 3.3. If the tool is exposed to its origin ("*" in PR #373's first revision),
            //      queue a task to fire toolchange at its ModelContext.
            let target_origin = self.documents[target].origin.clone();
            let exposed_to_target = match exposed {
                Exposure::All => true,
                Exposure::Origins(list) => {
                    self.tool_is_exposed_to_an_origin(&owner_origin, list, &target_origin)
                }
            };
            let alg = if ready.is_some() {
                &NOTIFY_DOCUMENTS_OF_A_TOOL_CHANGE_R1
            } else {
                &NOTIFY_DOCUMENTS_OF_A_TOOL_CHANGE
            };
            // Step 3.3 is the last step of both tables.
            let last = alg.steps.len() - 1;
            if exposed_to_target {
                self.record_step(alg, last, Some(target), |_| {
                    "queue a task to fire toolchange".into()
                });
                let context = self.context_of(target);
                self.queue_global_task(
                    target,
                    TaskSource::Webmcp,
                    TaskAction::Webmcp(TaskStep::FireToolchange { context, ready }),
                );
            } else {
                self.record_step(alg, last, Some(target), |_| {
                    format!("not exposed to {target_origin}")
                });
            }
        }
    }

    /// A document's node navigable's traversable navigable, which algorithms running after the
    /// document stopped being active still ask for. Under text-reading=as-intended, the
    /// traversable of the navigable the document was last in stands for it (unless that one
    /// is gone too); as written, a document without a node navigable is a finding and the
    /// step stops (`None`).
    fn traversable_of_active_or_last(
        &mut self,
        alg: &'static crate::host::spec::Algorithm,
        step: &'static str,
        doc: DocumentKey,
    ) -> Option<NavigableKey> {
        if let Some(nav) = self.node_navigable(doc) {
            return Some(self.navigables[nav].traversable);
        }
        let last = self.traversable_of(doc);
        match self.switches().text_reading {
            TextReading::AsIntended if !self.navigables[last].destroyed => Some(last),
            _ => {
                self.finding(alg, step, Some(doc), format!(
                    "{} has no node navigable (it is no longer its navigable's active document), so \"its node navigable's traversable navigable\" does not exist",
                    self.label(doc)
                ));
                None
            }
        }
    }

    /// <https://webmachinelearning.github.io/webmcp/#tool-is-exposed-to-an-origin>
    fn tool_is_exposed_to_an_origin(
        &mut self,
        tool_owner_origin: &Origin,
        exposed_origins: &[Origin],
        accessing_origin: &Origin,
    ) -> bool {
        // 1. Same origin: exposed.
        if tool_owner_origin.same_origin(accessing_origin) {
            step!(
                self,
                TOOL_IS_EXPOSED_TO_AN_ORIGIN,
                "1",
                None,
                "{accessing_origin} is the owner's origin"
            );
            return true;
        }
        step!(self, TOOL_IS_EXPOSED_TO_AN_ORIGIN, "1", None);
        // 2. Exposed to it: exposed.
        for origin in exposed_origins {
            step!(self, TOOL_IS_EXPOSED_TO_AN_ORIGIN, "2", None);
            if accessing_origin.same_origin(origin) {
                step!(
                    self,
                    TOOL_IS_EXPOSED_TO_AN_ORIGIN,
                    "2.1",
                    None,
                    "exposed to {accessing_origin}"
                );
                return true;
            }
        }
        // 3. Otherwise not.
        step!(
            self,
            TOOL_IS_EXPOSED_TO_AN_ORIGIN,
            "3",
            None,
            "not exposed to {accessing_origin}"
        );
        false
    }

    /// The task "notify documents of a tool change" queues: fire an event named `toolchange`
    /// at the ModelContext (a `ToolChangeEvent` carrying `ready` under PR #373's first
    /// revision).
    fn fire_toolchange(&mut self, context: ModelContextKey, ready: Option<bool>) {
        let doc = self.document_of(context);
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
        // A count for embedders watching the page: no unit reads it, so footprints leave it
        // out (and the explorer's state does too).
        crate::host::shared::footprint::untracked(|| {
            let count = &mut self.webmcp_mut().model_contexts[context].toolchanges_fired;
            count.all += 1;
            if let Some(r) = ready {
                count.with_ready[usize::from(r)] += 1;
            }
        });
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
    let title = dict.and_then(|d| member(d, "title")).map(to_usv_string);
    Ok(ModelContextTool {
        name,
        title,
        description,
        input_schema,
        execute,
        annotations,
    })
}

pub(crate) fn convert_annotations(v: &Value) -> Result<ToolAnnotations, ErrorValue> {
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
        Some(Value::Array(items)) => Some(items.iter().map(to_usv_string).collect()),
        Some(_) => {
            return Err(ErrorValue::type_error(format!(
                "Failed to read the 'exposedTo' property from '{T}': The provided value cannot be converted to a sequence."
            )))
        }
    };
    let signal = convert_signal(dict, T)?;
    Ok(RegisterToolOptions { exposed_to, signal })
}
