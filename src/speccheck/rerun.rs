//! Which scenarios to run again after the text changed: the subtests that reach a step the
//! report says changed, moved or went away.
//!
//! The engine's steps are numbered as the digest numbers them (the engine was last made to
//! match it), so a finding is looked up by its number in the digest: a changed or removed
//! step by its own number, a renumbered one by the number it had. A changed header (the
//! algorithm's preamble) or an algorithm gone from the text concerns every step. Only the
//! tables the engine marks as the text's are looked up: PR #373's rewrite of an algorithm
//! numbers its steps its own way.

use std::collections::BTreeMap;

use serde::Serialize;

use super::compare::{Finding, Report};
use super::step::StepNumber;
use crate::engine::profile::Profile;
use crate::engine::trace::Coverage;
use crate::host::spec::{Algorithm, Spec as Text};
use crate::scenario::{run_file, RunOptions, ScenarioFile};

/// A step of the engine's that the text no longer says the same way.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChangedStep {
    pub anchor: String,
    /// The step as the engine (and the digest) numbers it; `None` for every step of the
    /// algorithm.
    pub step: Option<String>,
    /// Why: the findings about it, as spec-check words them.
    pub why: String,
    /// Other tables of the same anchor (PR #373's, a proposal's) whose steps are counted as
    /// reaching it, since their numbering is their own.
    pub also: Vec<String>,
    /// The subtests that reach it, in file order.
    pub reached_by: Vec<Reach>,
}

/// A subtest that reaches a changed step, and the profiles under which it does.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Reach {
    pub file: String,
    pub subtest: String,
    pub profiles: Vec<String>,
}

/// The engine steps a report concerns, with their findings' wording.
pub fn changed_steps(report: &Report) -> Vec<ChangedStep> {
    let mut out = Vec::new();
    for a in &report.algorithms {
        for finding in &a.findings {
            let step: Option<Option<&StepNumber>> = match finding {
                Finding::StepChanged { step, .. } | Finding::StepRemovedSinceDigest { step } => {
                    Some((!step.is_header()).then_some(step))
                }
                Finding::StepRenumbered { was, .. } => Some(Some(was)),
                Finding::EngineStepNotInText { step } => Some(Some(step)),
                Finding::AlgorithmRemovedSinceDigest => Some(None),
                _ => None,
            };
            let Some(step) = step.map(|s| s.map(ToString::to_string)) else {
                continue;
            };
            match out
                .iter_mut()
                .find(|c: &&mut ChangedStep| c.anchor == a.anchor && c.step == step)
            {
                Some(same) => {
                    same.why.push_str("; ");
                    same.why.push_str(&finding.to_string());
                }
                None => out.push(ChangedStep {
                    anchor: a.anchor.clone(),
                    step,
                    why: finding.to_string(),
                    also: Vec::new(),
                    reached_by: Vec::new(),
                }),
            }
        }
    }
    out
}

/// The engine's (algorithm id, step index) pairs a changed step stands for: the step in the
/// tables marked as the text's. Where a profile runs another table of the same anchor instead
/// (PR #373's "perform an observation", numbered its own way), a subtest reaching any step of
/// that table is counted too, and the change says so.
fn engine_steps(change: &mut ChangedStep) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = crate::engine::algorithms()
        .filter(|t: &&'static Algorithm| t.spec == Text::WebMcp && t.anchor == change.anchor)
        .flat_map(|t| {
            t.steps
                .iter()
                .enumerate()
                .filter(|(_, s)| change.step.as_deref().is_none_or(|c| c == **s))
                .map(move |(i, _)| (t.id, i))
        })
        .collect();
    for t in crate::engine::algorithms().filter(|t| {
        t.spec != Text::WebMcp && t.anchor == change.anchor && super::origin_of(t).is_some()
    }) {
        out.extend((0..t.steps.len()).map(|i| (t.id, i)));
        change.also.push(t.name.to_string());
    }
    out
}

/// Runs every file under every profile (in the order given) and fills in which subtests reach each changed step.
pub fn find_reaching(changes: &mut [ChangedStep], files: &[ScenarioFile], profiles: &[Profile]) {
    if changes.is_empty() {
        return;
    }
    let wanted: Vec<Vec<(usize, usize)>> = changes.iter_mut().map(engine_steps).collect();
    let mut reached: Vec<BTreeMap<(usize, String), Vec<String>>> =
        vec![BTreeMap::new(); changes.len()];
    for profile in profiles {
        let options = RunOptions {
            profile: profile.clone(),
            ..RunOptions::default()
        };
        for (f, file) in files.iter().enumerate() {
            for sub in run_file(file, &options).subtests {
                for (i, steps) in wanted.iter().enumerate() {
                    if reaches(&sub.coverage, steps) {
                        reached[i]
                            .entry((f, sub.name.clone()))
                            .or_default()
                            .push(profile.name.clone());
                    }
                }
            }
        }
    }
    for (change, subtests) in changes.iter_mut().zip(reached) {
        change.reached_by = subtests
            .into_iter()
            .map(|((f, subtest), profiles)| Reach {
                file: files[f].path.clone(),
                subtest,
                profiles,
            })
            .collect();
    }
}

fn reaches(coverage: &Coverage, steps: &[(usize, usize)]) -> bool {
    steps.iter().any(|&(a, s)| coverage.reached(a, s))
}
