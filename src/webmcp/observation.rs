//! The browser agent's observation of a page.
//!
//! <https://webmachinelearning.github.io/webmcp/#observations>
//!
//! The text's "perform an observation" does not wait. PR #373 has it wait for tools to be ready
//! after its two assertions, and return early on "navigated"; the text's later steps then come
//! two numbers later. Under readiness-api=none (no PR #373) the text's table is recorded, under
//! readiness-api=pr373 the PR's.

use serde::Serialize;

use super::readiness::{Readiness, WaitCaller, WaitOutcome, WaitPhase};
use super::steps::ParallelStep;
use super::switches::ReadinessApi;
use super::{
    ObservationKey, ToolAnnotations, WebMcpHost, ABANDON_AN_OBSERVATION, PERFORM_AN_OBSERVATION,
    PERFORM_AN_OBSERVATION_PR373,
};
use crate::host::keys::{DocumentKey, NavigableKey, ParallelQueueKey};
use crate::host::parallel::ParallelStepKind;
use crate::host::Running;
use crate::step;

/// A tool definition as an observation shows it to the browser agent.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ObservedTool {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub description: String,
    /// The stringified input schema ("" when the tool has none).
    pub input_schema: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
}

/// One entry of an observation's tool map: a document's unique ID, and its observed tool
/// collection (the document's origin, and its tools).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ObservedDocument {
    /// The scenario's name for the document.
    pub document: String,
    pub unique_id: u64,
    /// The document's origin, serialized: the text expects it shown with the tools.
    pub origin: String,
    pub tools: Vec<ObservedTool>,
}

/// What an observation came to.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ObservationResult {
    /// How the wait for tools to be ready ended (`ready` when the observation did not wait:
    /// readiness-api=none).
    pub outcome: WaitOutcome,
    /// Virtual time the wait took, in milliseconds.
    pub waited_ms: u64,
    /// When the AI agent queue began and finished the observation, in virtual milliseconds.
    pub started_at: u64,
    pub ended_at: u64,
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
    /// The browser agent gave it up before it had a result (see `abandon_an_observation`).
    pub abandoned: bool,
}

/// Records a step of "perform an observation": `$text` as the text numbers it, `$pr` as
/// PR #373 does.
macro_rules! observation_step {
    ($w:expr, $pr373:expr, $text:literal / $pr:literal, $doc:expr $(, $($detail:tt)+)?) => {
        if $pr373 {
            step!($w, PERFORM_AN_OBSERVATION_PR373, $pr, $doc $(, $($detail)+)?)
        } else {
            step!($w, PERFORM_AN_OBSERVATION, $text, $doc $(, $($detail)+)?)
        }
    };
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
            abandoned: false,
        });
        self.webmcp_mut().journal_observation(observation);
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

    /// Abandon an observation (engine-defined): the browser agent no longer wants an
    /// observation it asked for (the agent that asked stopped waiting). The text lets the
    /// browser agent enqueue an observation and says nothing of taking one back; the engine's
    /// browser agent does what a browser would, and keeps the AI agent queue moving: the
    /// observations queued behind this one do not wait for it. Returns whether anything was
    /// undone.
    fn abandon_an_observation(&mut self, observation: ObservationKey) -> bool {
        let o = &self.webmcp().observations[observation];
        if o.result.is_some() || o.abandoned {
            // 3. Done already: nothing to undo.
            let active = self.navigables[o.traversable].active_document;
            step!(
                self,
                ABANDON_AN_OBSERVATION,
                "3",
                active,
                "already complete"
            );
            return false;
        }
        let active = self.navigables[o.traversable].active_document;
        let label = o.label.clone();
        self.webmcp_mut().observations[observation].abandoned = true;
        self.harness_note(|_| format!("the browser agent abandons observation {label}"));
        // 1. Not begun: its steps leave the AI agent queue, unrun.
        let queue = self.webmcp().ai_agent_queue;
        let removed = self.remove_parallel_steps(queue, |kind| {
            matches!(kind, ParallelStepKind::Webmcp(ParallelStep::PerformAnObservation { observation: o }) if *o == observation)
        });
        if removed > 0 {
            step!(
                self,
                ABANDON_AN_OBSERVATION,
                "1",
                active,
                "removed before it began"
            );
            return true;
        }
        // 2. Waiting for tools to be ready: the wait ends here (readiness's own step).
        step!(self, ABANDON_AN_OBSERVATION, "2", active);
        self.abandon_the_wait_of(observation)
    }

    /// <https://webmachinelearning.github.io/webmcp/#perform-an-observation>, on the parallel
    /// queue `queue`: steps 1-2, PR #373's wait, and (once it ends) the rest.
    fn perform_an_observation(&mut self, queue: ParallelQueueKey, observation: ObservationKey) {
        let pr373 = self.switches().readiness_api == ReadinessApi::Pr373;
        let traversable = self.webmcp().observations[observation].traversable;
        let now = self.now;
        self.webmcp_mut().observations[observation].started_at = Some(now);
        self.webmcp_mut().journal_observation(observation);
        let active = self.navigables[traversable].active_document;
        // 1. Assert: running in the browser agent's AI agent queue.
        let ai_agent_queue = self.webmcp().ai_agent_queue;
        let on_queue = self.running == Running::Parallel(ai_agent_queue) && queue == ai_agent_queue;
        let alg = if pr373 {
            &PERFORM_AN_OBSERVATION_PR373
        } else {
            &PERFORM_AN_OBSERVATION
        };
        self.assert_step(
            alg,
            "1",
            active,
            on_queue,
            "running in the browser agent's AI agent queue",
        );
        observation_step!(self, pr373, "1" / "1", active);
        // 2. Assert: traversable's active document is fully active.
        let fully_active = active.is_some_and(|d| self.is_fully_active(d));
        self.assert_step(
            alg,
            "2",
            active,
            fully_active,
            "the traversable's active document is fully active",
        );
        observation_step!(self, pr373, "2" / "2", active);
        if !pr373 {
            return self.observation_after_wait(observation, WaitOutcome::Ready);
        }
        // (PR #373) 3. Let result be the result of waiting for tools to be ready.
        step!(self, PERFORM_AN_OBSERVATION_PR373, "3", active);
        if let Some(outcome) = self.wait_for_tools_to_be_ready(WaitPhase::Begin {
            traversable,
            queue,
            caller: WaitCaller::Observation(observation),
        }) {
            self.observation_after_wait(observation, outcome);
        }
    }

    /// The rest, once the wait has ended (at once without PR #373).
    fn observation_after_wait(&mut self, observation: ObservationKey, outcome: WaitOutcome) {
        let pr373 = self.switches().readiness_api == ReadinessApi::Pr373;
        let o = &self.webmcp().observations[observation];
        let traversable = o.traversable;
        let started_at = o.started_at.unwrap_or(self.now);
        let waited_ms = self.now - started_at;
        let active = self.navigables[traversable].active_document;
        let result = |tool_map, ended_at| ObservationResult {
            outcome,
            waited_ms,
            started_at,
            ended_at,
            tool_map,
        };
        if pr373 {
            // (PR #373) 4. "navigated" (navigation or destruction): return early, with no
            //    observation.
            if outcome.spec_value() == "navigated" {
                step!(
                    self,
                    PERFORM_AN_OBSERVATION_PR373,
                    "4",
                    active,
                    "wait ended {}: no observation",
                    outcome.name()
                );
                let now = self.now;
                self.webmcp_mut().observations[observation].result = Some(result(None, now));
                self.webmcp_mut().journal_observation(observation);
                return;
            }
            step!(
                self,
                PERFORM_AN_OBSERVATION_PR373,
                "4",
                active,
                "wait ended {}",
                outcome.name()
            );
        }
        // 3 (5). Let observation be a new observation.
        observation_step!(self, pr373, "3" / "5", active);
        let mut tool_map = Vec::new();
        // 4 (6). flat descendants: the inclusive descendant navigables of the active document.
        let flat_descendants = active
            .map(|d| self.inclusive_descendant_navigables(d))
            .unwrap_or_default();
        observation_step!(
            self,
            pr373,
            "4" / "6",
            active,
            "{} navigable(s)",
            flat_descendants.len()
        );
        // 5 (7). For each of them:
        for descendant in flat_descendants {
            observation_step!(self, pr373, "5" / "7", active);
            // 5.1. Its active document.
            let Some(document) = self.navigables[descendant].active_document else {
                continue;
            };
            observation_step!(self, pr373, "5.1" / "7.1", Some(document));
            // 5.2. The document's unique ID.
            let unique_id = self.webmcp().documents[document].unique_id;
            observation_step!(
                self,
                pr373,
                "5.2" / "7.2",
                Some(document),
                "unique ID {unique_id}"
            );
            // 5.3. The tool map's values.
            let tools: Vec<ObservedTool> = self
                .model_context(document)
                .tool_map
                .values()
                .map(|t| ObservedTool {
                    name: t.name.clone(),
                    title: t.title.clone(),
                    description: t.description.clone(),
                    input_schema: t.input_schema.clone(),
                    annotations: t.annotations,
                })
                .collect();
            observation_step!(
                self,
                pr373,
                "5.3" / "7.3",
                Some(document),
                "{} tool(s)",
                tools.len()
            );
            // 5.4. The observed tool collection: the document's origin, and its tools.
            let origin = self.documents[document].origin.serialize();
            observation_step!(self, pr373, "5.4" / "7.4", Some(document), "{origin}");
            // 5.5. observation's tool map[unique ID] = the collection.
            tool_map.push(ObservedDocument {
                document: self.label(document),
                unique_id,
                origin,
                tools,
            });
            observation_step!(self, pr373, "5.5" / "7.5", Some(document));
        }
        // 6 (8). Implementation-defined additions: the engine adds nothing.
        observation_step!(self, pr373, "6" / "8", active);
        // 7 (9). Expose the observation's tool map to the browser agent.
        let label = self.webmcp().observations[observation].label.clone();
        observation_step!(
            self,
            pr373,
            "7" / "9",
            active,
            "observation {label} complete"
        );
        let now = self.now;
        self.webmcp_mut().observations[observation].result = Some(result(Some(tool_map), now));
        self.webmcp_mut().journal_observation(observation);
    }
}

impl<W: WebMcpHost> Observations for W {}
