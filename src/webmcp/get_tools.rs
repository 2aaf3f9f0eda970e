//! `getTools()`.
//!
//! <https://webmachinelearning.github.io/webmcp/#dom-modelcontext-gettools>

use super::errors::{Method, Rejection};
use super::readiness::{Readiness, WaitCaller, WaitPhase};
use super::registry::Registry;
use super::steps::ParallelStep;
use super::switches::{GetToolsSnapshot, GetToolsWaits};
use super::{ToolDefinition, WebMcpHost, CONVERT_DICTIONARY, GET_TOOLS, GET_TOOLS_WAITS};
use crate::host::event_loop::{EventLoops, TaskAction, TaskSource};
use crate::host::keys::{DocumentKey, ParallelQueueKey, PromiseKey};
use crate::host::origin::Origin;
use crate::host::parallel::ParallelStepKind;
use crate::host::spec::step_index;
use crate::host::value::{ErrorValue, Facet, Members, Value};
use crate::host::webidl::{dictionary_value, member, to_usv_string};
use crate::{return_rejected, step};

/// `getTools()`'s algorithms.
pub trait GetTools: WebMcpHost {
    /// `getTools(options)` called on the `ModelContext` of `this_doc`.
    fn get_tools(&mut self, this_doc: DocumentKey, options: Value) -> PromiseKey {
        // Web IDL: ModelContextGetToolOptions { sequence<USVString> fromOrigins }.
        let requested = match dictionary_value(&options, "ModelContextGetToolOptions") {
            Err(e) => return_rejected!(
                self,
                CONVERT_DICTIONARY,
                "ModelContextGetToolOptions",
                this_doc,
                self.conversion_rejection(Method::GetTools, e)
            ),
            Ok(dict) => match dict.and_then(|d| member(d, "fromOrigins")) {
                None => None,
                Some(Value::Array(items)) => Some(items.iter().map(to_usv_string).collect::<Vec<_>>()),
                Some(_) => return_rejected!(
                    self,
                    CONVERT_DICTIONARY,
                    "ModelContextGetToolOptions",
                    this_doc,
                    self.conversion_rejection(
                        Method::GetTools,
                        ErrorValue::type_error(
                            "Failed to read the 'fromOrigins' property from 'ModelContextGetToolOptions': The provided value cannot be converted to a sequence.",
                        )
                    )
                ),
            },
        };
        step!(
            self,
            CONVERT_DICTIONARY,
            "ModelContextGetToolOptions",
            Some(this_doc)
        );
        // 1-2. The tool requestor is this's relevant global object's associated Document.
        step!(self, GET_TOOLS, "1", Some(this_doc));
        let tool_requestor = this_doc;
        step!(self, GET_TOOLS, "2", Some(tool_requestor));
        // 3. A requestor that is not fully active is rejected.
        const FULLY_ACTIVE: usize = step_index(&GET_TOOLS, "3");
        if let Err(answer) = self.fully_active_check(&GET_TOOLS, FULLY_ACTIVE, tool_requestor) {
            return answer;
        }
        // 4. So is one not allowed to use "tools".
        if !self.is_allowed_to_use_tools(tool_requestor) {
            return_rejected!(
                self,
                GET_TOOLS,
                "4",
                tool_requestor,
                self.rejection(Rejection::NotAllowedToUseTools)
            );
        }
        step!(self, GET_TOOLS, "4", Some(tool_requestor));
        // 5. Let from origins be an empty list.
        let mut from_origins = Vec::new();
        step!(self, GET_TOOLS, "5", Some(tool_requestor));
        // 6. If fromOrigins exists:
        if let Some(entries) = requested {
            step!(self, GET_TOOLS, "6", Some(tool_requestor));
            // 6.1. For each of its entries:
            for entry in entries {
                step!(self, GET_TOOLS, "6.1", Some(tool_requestor), "{entry:?}");
                // 6.1.1. Parse it as a URL.
                let parsed = url::Url::parse(&entry);
                step!(self, GET_TOOLS, "6.1.1", Some(tool_requestor));
                // 6.1.2. Failure, or an origin that is not potentially trustworthy, is a
                //        SecurityError.
                let origin = parsed
                    .ok()
                    .map(|u| self.origin_of_url(&u))
                    .filter(Origin::is_potentially_trustworthy);
                let Some(origin) = origin else {
                    return_rejected!(
                        self,
                        GET_TOOLS,
                        "6.1.2",
                        tool_requestor,
                        self.rejection(Rejection::BadFromOrigins(entry.clone()))
                    );
                };
                step!(self, GET_TOOLS, "6.1.2", Some(tool_requestor));
                // 6.1.3. Append its origin.
                step!(self, GET_TOOLS, "6.1.3", Some(tool_requestor), "{origin}");
                from_origins.push(origin);
            }
        }
        // 7. Let promise be a new promise.
        let promise = self.new_promise(this_doc);
        step!(self, GET_TOOLS, "7", Some(tool_requestor));
        // 8. In parallel, collect the tools and resolve the promise from a webmcp task.
        //    (gettools-snapshot=at-call, Chromium 156: the tools are collected now, in the
        //    calling task; only the resolution goes in parallel.)
        step!(self, GET_TOOLS, "8", Some(tool_requestor));
        let label = format!("getTools() of {}", self.label(tool_requestor));
        match self.switches().gettools_snapshot {
            GetToolsSnapshot::InParallel => {
                self.in_parallel(
                    label,
                    vec![ParallelStepKind::Webmcp(ParallelStep::GetTools {
                        caller: tool_requestor,
                        promise,
                        from_origins,
                    })],
                );
            }
            GetToolsSnapshot::AtCall => {
                let tools = self.get_tools_collect(tool_requestor, &from_origins);
                self.in_parallel(
                    label,
                    vec![ParallelStepKind::Webmcp(ParallelStep::GetToolsResolve {
                        caller: tool_requestor,
                        promise,
                        tools,
                    })],
                );
            }
        }
        // 9. Return promise.
        step!(self, GET_TOOLS, "9", Some(tool_requestor));
        promise
    }

    /// getTools() step 8, on its parallel queue. (gettools-waits=yes, the follow-up PR #373
    /// defers: it first waits for tools to be ready.)
    fn get_tools_in_parallel(
        &mut self,
        queue: ParallelQueueKey,
        caller: DocumentKey,
        promise: PromiseKey,
        from_origins: Vec<Origin>,
    ) {
        if self.switches().gettools_waits == GetToolsWaits::Yes {
            step!(
                self,
                GET_TOOLS_WAITS,
                "8.0",
                Some(caller),
                "wait for tools to be ready"
            );
            let traversable = self.traversable_of(caller);
            let waiting = WaitCaller::GetTools {
                caller,
                promise,
                from_origins: from_origins.clone(),
            };
            if self
                .wait_for_tools_to_be_ready(WaitPhase::Begin {
                    traversable,
                    queue,
                    caller: waiting,
                })
                .is_none()
            {
                return;
            }
        }
        let tools = self.get_tools_collect(caller, &from_origins);
        self.get_tools_resolve(caller, promise, tools);
    }

    /// getTools() steps 8.1-8.4: every tool of the requestor's tree that it may see, sorted
    /// by name.
    fn get_tools_collect(
        &mut self,
        tool_requestor: DocumentKey,
        from_origins: &[Origin],
    ) -> Vec<Value> {
        // 8.1. Let tools be an empty list.
        let mut tools: Vec<(String, Value)> = Vec::new();
        step!(self, GET_TOOLS, "8.1", Some(tool_requestor));
        // 8.2. The inclusive descendant navigables of the active document of the requestor's
        //      node navigable's traversable navigable (a requestor that has stopped being
        //      active has no node navigable: see text-reading).
        let navigables = match self.traversable_of_active_or_last(&GET_TOOLS, "8.2", tool_requestor)
        {
            Some(t) => self.navigables[t]
                .active_document
                .map(|top| self.inclusive_descendant_navigables(top))
                .unwrap_or_default(),
            None => Vec::new(),
        };
        step!(
            self,
            GET_TOOLS,
            "8.2",
            Some(tool_requestor),
            "{} navigable(s)",
            navigables.len()
        );
        // 8.3. For each navigable:
        for navigable in navigables {
            step!(self, GET_TOOLS, "8.3", Some(tool_requestor));
            // 8.3.1. Its active document.
            let Some(target) = self.navigables[navigable].active_document else {
                continue;
            };
            step!(self, GET_TOOLS, "8.3.1", Some(target));
            // 8.3.2. Skip a document not allowed to use "tools".
            if !self.is_allowed_to_use_tools(target) {
                step!(
                    self,
                    GET_TOOLS,
                    "8.3.2",
                    Some(target),
                    "not allowed to use \"tools\": skipped"
                );
                continue;
            }
            step!(self, GET_TOOLS, "8.3.2", Some(target));
            // 8.3.3-8.3.4. The two origins.
            let target_origin = self.documents[target].origin.clone();
            step!(self, GET_TOOLS, "8.3.3", Some(target));
            let caller_origin = self.documents[tool_requestor].origin.clone();
            step!(self, GET_TOOLS, "8.3.4", Some(target));
            // 8.3.5-8.3.6. Its tools are asked for when it is same origin with the requestor,
            //              or its origin is one of from origins.
            let requested = target_origin.same_origin(&caller_origin)
                || from_origins.iter().any(|o| o.same_origin(&target_origin));
            step!(self, GET_TOOLS, "8.3.5", Some(target), "{requested}");
            if !requested {
                step!(
                    self,
                    GET_TOOLS,
                    "8.3.6",
                    Some(target),
                    "not asked for: skipped"
                );
                continue;
            }
            step!(self, GET_TOOLS, "8.3.6", Some(target));
            // 8.3.7. Its tool map (each definition's name, exposure and RegisteredTool, the
            //        last made when it was registered: see `ToolDefinition::registered`).
            let definitions: Vec<(String, Vec<Origin>, Value)> = self
                .model_context(target)
                .tool_map
                .values()
                .map(|d| {
                    (
                        d.name.clone(),
                        d.exposed_origins.clone(),
                        d.registered.clone(),
                    )
                })
                .collect();
            step!(self, GET_TOOLS, "8.3.7", Some(target));
            // 8.3.8. For each tool definition:
            for (name, exposed_origins, registered) in definitions {
                step!(self, GET_TOOLS, "8.3.8", Some(target), "{name:?}");
                // 8.3.8.1. Skip a tool not exposed to the requestor's origin.
                if !self.tool_is_exposed_to_an_origin(
                    &target_origin,
                    &exposed_origins,
                    &caller_origin,
                ) {
                    step!(
                        self,
                        GET_TOOLS,
                        "8.3.8.1",
                        Some(target),
                        "not exposed: skipped"
                    );
                    continue;
                }
                step!(self, GET_TOOLS, "8.3.8.1", Some(target));
                // 8.3.8.2. A RegisteredTool for it.
                step!(self, GET_TOOLS, "8.3.8.2", Some(target));
                // 8.3.8.3. Append it.
                tools.push((name, registered));
                step!(self, GET_TOOLS, "8.3.8.3", Some(target));
            }
        }
        // 8.4. Sort by name, in code unit order.
        tools.sort_by(|(a, _), (b, _)| crate::text::js_string::cmp_code_units(a, b));
        step!(
            self,
            GET_TOOLS,
            "8.4",
            Some(tool_requestor),
            "{:?}",
            tools.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>()
        );
        tools.into_iter().map(|(_, t)| t).collect()
    }

    /// getTools() step 8.5: queue a webmcp task to resolve the promise with the tools.
    fn get_tools_resolve(
        &mut self,
        tool_requestor: DocumentKey,
        promise: PromiseKey,
        tools: Vec<Value>,
    ) {
        step!(
            self,
            GET_TOOLS,
            "8.5",
            Some(tool_requestor),
            "{} tool(s)",
            tools.len()
        );
        // Web IDL converts the sequence to a new Array, and each RegisteredTool to a new
        // object, at every call: a page can tell (`===`). They are made in the realm of the
        // promise (this ModelContext's relevant realm), as `instanceof` can tell.
        let list = Value::Array(Members::in_realm(
            tools.iter().map(|t| t.fresh_in(tool_requestor)).collect(),
            tool_requestor,
        ));
        self.queue_global_task(
            tool_requestor,
            TaskSource::Webmcp,
            TaskAction::SettlePromise {
                promise,
                outcome: Ok(list),
                why: "getTools() step 8.5",
            },
        );
    }
}

impl<W: WebMcpHost> GetTools for W {}

/// getTools() step 8.3.8.2: the `RegisteredTool` dictionary for a tool definition, as Web IDL
/// converts it to a JavaScript object: its members in lexicographic order (annotations,
/// description, inputSchema, name, origin, title, window), and so are `ToolAnnotations`'s.
///
/// <https://webidl.spec.whatwg.org/#es-dictionary>
pub(super) fn registered_tool(
    t: &ToolDefinition,
    owner: DocumentKey,
    owner_origin: &Origin,
) -> Value {
    let mut props = Vec::new();
    if let Some(a) = t.annotations {
        props.push((
            "annotations".to_string(),
            Value::object(vec![
                (
                    "consequentialHint".into(),
                    Value::Bool(a.consequential_hint),
                ),
                ("debugging".into(), Value::Bool(a.debugging)),
                ("readOnlyHint".into(), Value::Bool(a.read_only_hint)),
                (
                    "untrustedContentHint".into(),
                    Value::Bool(a.untrusted_content_hint),
                ),
            ]),
        ));
    }
    props.push(("description".into(), Value::string(&t.description)));
    // The stored schema is always valid JSON: it is parsed back to an object.
    if !t.input_schema.is_empty() {
        if let Ok(schema) = Value::from_json_str(&t.input_schema) {
            props.push(("inputSchema".into(), schema));
        }
    }
    props.push(("name".into(), Value::string(&t.name)));
    props.push(("origin".into(), Value::string(owner_origin.serialize())));
    // A tool with no title gives the empty string (Issue #224 asks whether to leave it out).
    props.push((
        "title".into(),
        Value::string(t.title.clone().unwrap_or_default()),
    ));
    props.push(("window".into(), Value::Window(owner, Facet::Window)));
    Value::object(props)
}
