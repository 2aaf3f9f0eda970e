//! The browser agent's observation of a page.
//!
//! <https://webmachinelearning.github.io/webmcp/#observations>

use serde::Serialize;

use super::readiness::{Readiness, WaitCaller, WaitOutcome, WaitPhase};
use super::steps::ParallelStep;
use super::switches::Assertions;
use super::{ObservationKey, WebMcpHost, PERFORM_AN_OBSERVATION};
use crate::host::keys::{DocumentKey, NavigableKey, ParallelQueueKey};
use crate::host::parallel::ParallelStepKind;
use crate::host::Running;
use crate::step;

/// A tool as an observation shows it to the browser agent, with the security information the
/// spec's advisement asks implementations to convey (the tool's origin).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ObservedTool {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub description: String,
    pub input_schema: String,
    pub read_only_hint: bool,
    pub untrusted_content_hint: bool,
    pub origin: String,
}

/// One entry of an observation's tool map: a document's unique ID and its tools.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct ObservedDocument {
    /// The scenario's name for the document.
    pub document: String,
    pub unique_id: u64,
    pub tools: Vec<ObservedTool>,
}

/// What an observation came to.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct ObservationResult {
    /// How the wait for tools to be ready ended.
    pub outcome: WaitOutcome,
    /// Virtual time the wait took, in milliseconds.
    pub waited_ms: u64,
    /// The observation's tool map; none when the observation returned early.
    pub tool_map: Option<Vec<ObservedDocument>>,
}

/// An observation the browser agent was asked to perform.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Observation {
    pub label: String,
    pub traversable: NavigableKey,
    pub requested_at: u64,
    pub started_at: Option<u64>,
    pub result: Option<ObservationResult>,
}

/// The browser agent's observations.
pub trait Observations: WebMcpHost {
    /// The browser agent enqueues steps to the AI agent queue to perform an observation of
    /// the top-level traversable whose active document is `top`.
    fn observe(&mut self, top: DocumentKey, label: &str) -> ObservationKey {
        let traversable = self.traversable_of(top);
        let requested_at = self.now;
        let observation = self.webmcp_mut().observations.insert(Observation {
            label: label.into(),
            traversable,
            requested_at,
            started_at: None,
            result: None,
        });
        self.harness_note(|_| format!("the browser agent asks for observation {label}"));
        let queue = self.webmcp().ai_agent_queue;
        self.enqueue_parallel_step(
            queue,
            ParallelStepKind::Webmcp(ParallelStep::PerformAnObservation { observation }),
        );
        observation
    }

    /// The observation's result, once it has finished.
    fn observation_result(&self, observation: ObservationKey) -> Option<&ObservationResult> {
        self.webmcp().observations[observation].result.as_ref()
    }

    fn observation(&self, observation: ObservationKey) -> &Observation {
        &self.webmcp().observations[observation]
    }

    /// <https://webmachinelearning.github.io/webmcp/#perform-an-observation>, steps 1-3, on the
    /// parallel queue `queue`; the rest runs when the wait of step 3 ends.
    fn perform_an_observation(&mut self, queue: ParallelQueueKey, observation: ObservationKey) {
        let traversable = self.webmcp().observations[observation].traversable;
        let now = self.now;
        self.webmcp_mut().observations[observation].started_at = Some(now);
        let active = self.navigables[traversable].active_document;
        // 1. Assert: running in the browser agent's AI agent queue.
        let ai_agent_queue = self.webmcp().ai_agent_queue;
        let on_queue = self.running == Running::Parallel(ai_agent_queue) && queue == ai_agent_queue;
        self.assert_step(
            &PERFORM_AN_OBSERVATION,
            "1",
            active,
            on_queue,
            on_queue,
            "running in the browser agent's AI agent queue",
        );
        step!(self, PERFORM_AN_OBSERVATION, "1", active);
        // 2. Assert: traversable's active document is fully active. The text says "is not
        //    fully active", which would fail for every page that can be observed; the
        //    assertions switch checks it as written.
        let fully_active = active.is_some_and(|d| self.is_fully_active(d));
        self.assert_step(
            &PERFORM_AN_OBSERVATION,
            "2",
            active,
            fully_active,
            !fully_active,
            match self.switches().assertions {
                Assertions::AsIntended => "the traversable's active document is fully active",
                Assertions::AsWritten => {
                    "the traversable's active document is not fully active (as written)"
                }
            },
        );
        step!(self, PERFORM_AN_OBSERVATION, "2", active);
        // 3. Let result be the result of waiting for tools to be ready given traversable.
        step!(self, PERFORM_AN_OBSERVATION, "3", active);
        if let Some(outcome) = self.wait_for_tools_to_be_ready(WaitPhase::Begin {
            traversable,
            queue,
            caller: WaitCaller::Observation(observation),
        }) {
            self.observation_after_wait(observation, outcome);
        }
    }

    /// Steps 4-9, once the wait has ended.
    fn observation_after_wait(&mut self, observation: ObservationKey, outcome: WaitOutcome) {
        let o = &self.webmcp().observations[observation];
        let traversable = o.traversable;
        let waited_ms = self.now - o.started_at.unwrap_or(self.now);
        let active = self.navigables[traversable].active_document;
        // 4. "navigated" (navigation or destruction): return early, with no observation.
        if outcome.spec_value() == "navigated" {
            step!(
                self,
                PERFORM_AN_OBSERVATION,
                "4",
                active,
                "wait ended {}: no observation",
                outcome.name()
            );
            self.webmcp_mut().observations[observation].result = Some(ObservationResult {
                outcome,
                waited_ms,
                tool_map: None,
            });
            return;
        }
        step!(
            self,
            PERFORM_AN_OBSERVATION,
            "4",
            active,
            "wait ended {}",
            outcome.name()
        );
        // 5. Let observation be a new observation.
        step!(self, PERFORM_AN_OBSERVATION, "5", active);
        let mut tool_map = Vec::new();
        // 6. flat descendants: the inclusive descendant navigables of the active document.
        let flat_descendants = active
            .map(|d| self.inclusive_descendant_navigables(d))
            .unwrap_or_default();
        step!(
            self,
            PERFORM_AN_OBSERVATION,
            "6",
            active,
            "{} navigable(s)",
            flat_descendants.len()
        );
        // 7. For each of them:
        for descendant in flat_descendants {
            step!(self, PERFORM_AN_OBSERVATION, "7", active);
            // 7.1. Its active document.
            let Some(document) = self.navigables[descendant].active_document else {
                continue;
            };
            step!(self, PERFORM_AN_OBSERVATION, "7.1", Some(document));
            // 7.2. The document's unique ID.
            let unique_id = self.webmcp().documents[document].unique_id;
            step!(
                self,
                PERFORM_AN_OBSERVATION,
                "7.2",
                Some(document),
                "unique ID {unique_id}"
            );
            // 7.3. The tool map's values.
            let origin = self.documents[document].origin.serialize();
            let tools: Vec<ObservedTool> = self
                .model_context(document)
                .tool_map
                .values()
                .map(|t| ObservedTool {
                    name: t.name.clone(),
                    title: t.title.clone(),
                    description: t.description.clone(),
                    input_schema: t.input_schema.clone(),
                    read_only_hint: t.read_only_hint,
                    untrusted_content_hint: t.untrusted_content_hint,
                    origin: origin.clone(),
                })
                .collect();
            step!(
                self,
                PERFORM_AN_OBSERVATION,
                "7.3",
                Some(document),
                "{} tool(s)",
                tools.len()
            );
            tool_map.push(ObservedDocument {
                document: self.label(document),
                unique_id,
                tools,
            });
        }
        // 8. Implementation-defined additions: the engine adds nothing.
        step!(self, PERFORM_AN_OBSERVATION, "8", active);
        // 9. Expose the observation's tool map to the browser agent.
        step!(self, PERFORM_AN_OBSERVATION, "9", active, |w| format!(
            "observation {} complete",
            w.webmcp().observations[observation].label
        ));
        self.webmcp_mut().observations[observation].result = Some(ObservationResult {
            outcome,
            waited_ms,
            tool_map: Some(tool_map),
        });
    }
}

impl<W: WebMcpHost> Observations for W {}
