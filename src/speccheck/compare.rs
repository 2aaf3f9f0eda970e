//! Comparing the text, the engine's algorithm tables and the last digest.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;

use super::digest::Digest;
use super::hash::TextHash;
use super::parse::Spec;
use super::step::StepNumber;

/// Where an engine algorithm (or part of one) comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Origin {
    /// From the spec text: every step should be in the text.
    Text,
    /// Added by PR #373, not in the text yet.
    Pr373,
    /// From a proposal, not in the text.
    Proposal,
    /// The engine's own glue, not in the text.
    EngineDefined,
    /// In the text, and deliberately not run by the engine (the reason is the engine's to
    /// give): its steps are not held against the engine, but changes to them are still
    /// reported against the digest.
    NotRun,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Origin::Text => "text",
            Origin::Pr373 => "PR #373",
            Origin::Proposal => "proposal",
            Origin::EngineDefined => "engine-defined",
            Origin::NotRun => "not run",
        })
    }
}

/// One entry of the engine's algorithm table. An anchor may appear in several
/// entries with different origins (a text algorithm plus steps PR #373 adds);
/// only `Text` entries are held against the text.
#[derive(Clone, Copy, Debug)]
pub struct EngineAlgorithm<'a> {
    pub anchor: &'a str,
    pub origin: Origin,
    /// Step numbers as rendered ("1", "2.1").
    pub steps: &'a [&'a str],
}

/// One thing spec-check has to say about an algorithm.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finding {
    /// The text has this algorithm; the engine has no entry for it at all.
    AlgorithmNotInEngine { steps: usize },
    /// The text has this algorithm; the engine only has it with another origin.
    AlgorithmNotMarkedText { origins: Vec<Origin> },
    /// A `Text` entry whose anchor the text does not have.
    EngineAlgorithmNotInText,
    /// A step of the text that no `Text` entry lists.
    StepNotInEngine { step: StepNumber },
    /// A step a `Text` entry lists that the text does not have.
    EngineStepNotInText { step: StepNumber },
    /// An engine step label that is not a step number.
    BadEngineStep { label: String },
    /// The step's text changed since the digest.
    StepChanged {
        step: StepNumber,
        was: TextHash,
        now: TextHash,
    },
    /// The step's text is in the digest under another number.
    StepRenumbered { step: StepNumber, was: StepNumber },
    /// The step is not in the digest.
    StepAddedSinceDigest { step: StepNumber },
    /// The digest has a step the text no longer has.
    StepRemovedSinceDigest { step: StepNumber },
    /// The digest does not know the algorithm.
    AlgorithmAddedSinceDigest,
    /// The digest has an algorithm the text no longer has.
    AlgorithmRemovedSinceDigest,
}

impl Finding {
    /// Sort key inside one algorithm: algorithm-level findings first, then by step.
    fn sort_key(&self) -> (Option<&StepNumber>, u8) {
        match self {
            Finding::AlgorithmNotInEngine { .. } => (None, 0),
            Finding::AlgorithmNotMarkedText { .. } => (None, 1),
            Finding::EngineAlgorithmNotInText => (None, 2),
            Finding::AlgorithmAddedSinceDigest => (None, 3),
            Finding::AlgorithmRemovedSinceDigest => (None, 4),
            Finding::BadEngineStep { .. } => (None, 5),
            Finding::StepChanged { step, .. } => (Some(step), 0),
            Finding::StepRenumbered { step, .. } => (Some(step), 1),
            Finding::StepAddedSinceDigest { step } => (Some(step), 2),
            Finding::StepRemovedSinceDigest { step } => (Some(step), 3),
            Finding::StepNotInEngine { step } => (Some(step), 4),
            Finding::EngineStepNotInText { step } => (Some(step), 5),
        }
    }
}

fn show_step(step: &StepNumber) -> String {
    if step.is_header() {
        "header".to_string()
    } else {
        format!("step {step}")
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::AlgorithmNotInEngine { steps } => {
                write!(f, "in the text ({steps} steps) but not in the engine")
            }
            Finding::AlgorithmNotMarkedText { origins } => {
                let list: Vec<String> = origins.iter().map(Origin::to_string).collect();
                write!(
                    f,
                    "in the text, but the engine marks it {} only",
                    list.join(", ")
                )
            }
            Finding::EngineAlgorithmNotInText => {
                write!(f, "the engine has it as text, but the text does not")
            }
            Finding::StepNotInEngine { step } => {
                write!(f, "{}: in the text, no code", show_step(step))
            }
            Finding::EngineStepNotInText { step } => {
                write!(f, "{}: in the engine, not in the text", show_step(step))
            }
            Finding::BadEngineStep { label } => {
                write!(f, "engine step {label:?} is not a step number")
            }
            Finding::StepChanged { step, was, now } => write!(
                f,
                "{}: changed since the digest ({was} -> {now})",
                show_step(step)
            ),
            Finding::StepRenumbered { step, was } => write!(
                f,
                "{}: same text as {} in the digest",
                show_step(step),
                show_step(was)
            ),
            Finding::StepAddedSinceDigest { step } => {
                write!(f, "{}: new since the digest", show_step(step))
            }
            Finding::StepRemovedSinceDigest { step } => {
                write!(f, "{}: in the digest, gone from the text", show_step(step))
            }
            Finding::AlgorithmAddedSinceDigest => write!(f, "new since the digest"),
            Finding::AlgorithmRemovedSinceDigest => write!(f, "in the digest, gone from the text"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AlgorithmFindings {
    pub anchor: String,
    /// Line of the algorithm in the text, when the text has it.
    pub line: Option<usize>,
    pub findings: Vec<Finding>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The digest's source.
    pub digest_source: String,
    /// Algorithms with findings: the text's in document order, then the others
    /// by anchor.
    pub algorithms: Vec<AlgorithmFindings>,
    /// Engine algorithms not expected in the text and not in it (information only).
    pub outside_text: Vec<(String, Origin)>,
}

impl Report {
    pub fn is_clean(&self) -> bool {
        self.algorithms.iter().all(|a| a.findings.is_empty())
    }

    /// The findings about one anchor.
    pub fn findings(&self, anchor: &str) -> &[Finding] {
        self.algorithms
            .iter()
            .find(|a| a.anchor == anchor)
            .map_or(&[], |a| a.findings.as_slice())
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count: usize = self.algorithms.iter().map(|a| a.findings.len()).sum();
        if count == 0 {
            writeln!(
                f,
                "spec-check: clean (digest source {})",
                self.digest_source
            )?;
        } else {
            writeln!(
                f,
                "spec-check: {count} finding(s) against digest source {}",
                self.digest_source
            )?;
        }
        for a in self.algorithms.iter().filter(|a| !a.findings.is_empty()) {
            match a.line {
                Some(line) => writeln!(f, "\n#{} (line {line})", a.anchor)?,
                None => writeln!(f, "\n#{}", a.anchor)?,
            }
            for finding in &a.findings {
                writeln!(f, "  {finding}")?;
            }
        }
        if !self.outside_text.is_empty() {
            writeln!(f, "\nnot expected in the text (not checked):")?;
            for (anchor, origin) in &self.outside_text {
                writeln!(f, "  #{anchor} ({origin})")?;
            }
        }
        Ok(())
    }
}

/// Compares the text with the engine's tables and with the digest the engine
/// last matched.
pub fn compare(spec: &Spec, engine: &[EngineAlgorithm<'_>], digest: &Digest) -> Report {
    // Engine entries grouped by anchor: Text steps, and the other origins seen.
    let mut text_steps: HashMap<&str, BTreeSet<StepNumber>> = HashMap::new();
    let mut other_origins: BTreeMap<&str, BTreeSet<Origin>> = BTreeMap::new();
    let mut bad_labels: HashMap<&str, Vec<String>> = HashMap::new();
    for entry in engine {
        if entry.origin != Origin::Text {
            other_origins
                .entry(entry.anchor)
                .or_default()
                .insert(entry.origin);
            continue;
        }
        let steps = text_steps.entry(entry.anchor).or_default();
        for label in entry.steps {
            match label.parse::<StepNumber>() {
                Ok(n) if !n.is_header() => {
                    steps.insert(n);
                }
                _ => bad_labels
                    .entry(entry.anchor)
                    .or_default()
                    .push((*label).to_string()),
            }
        }
    }
    let digest_anchors: BTreeSet<&str> = digest.anchors().into_iter().collect();
    let mut digest_steps: HashMap<&str, Vec<(&StepNumber, TextHash)>> = HashMap::new();
    for e in &digest.entries {
        digest_steps
            .entry(e.anchor.as_str())
            .or_default()
            .push((&e.step, e.hash));
    }

    let mut algorithms = Vec::new();
    for a in &spec.algorithms {
        let mut findings = Vec::new();
        let anchor = a.anchor.as_str();
        // Engine side.
        let not_run = other_origins
            .get(anchor)
            .is_some_and(|o| o.contains(&Origin::NotRun));
        match text_steps.get(anchor) {
            None if not_run => {}
            None => match other_origins.get(anchor) {
                Some(origins) => findings.push(Finding::AlgorithmNotMarkedText {
                    origins: origins.iter().copied().collect(),
                }),
                None => findings.push(Finding::AlgorithmNotInEngine {
                    steps: a.steps.len(),
                }),
            },
            Some(claimed) => {
                for s in &a.steps {
                    if !claimed.contains(&s.number) {
                        findings.push(Finding::StepNotInEngine {
                            step: s.number.clone(),
                        });
                    }
                }
                for n in claimed {
                    if a.step(n).is_none() {
                        findings.push(Finding::EngineStepNotInText { step: n.clone() });
                    }
                }
            }
        }
        for label in bad_labels.get(anchor).into_iter().flatten() {
            findings.push(Finding::BadEngineStep {
                label: label.clone(),
            });
        }
        // Digest side.
        match digest_steps.get(anchor) {
            None => findings.push(Finding::AlgorithmAddedSinceDigest),
            Some(recorded) => {
                let current: Vec<(StepNumber, TextHash)> =
                    std::iter::once((StepNumber::header(), a.header_hash))
                        .chain(a.steps.iter().map(|s| (s.number.clone(), s.hash)))
                        .collect();
                findings.extend(digest_findings(&current, recorded));
            }
        }
        findings.sort_by(|x, y| x.sort_key().cmp(&y.sort_key()));
        algorithms.push(AlgorithmFindings {
            anchor: a.anchor.clone(),
            line: Some(a.line),
            findings,
        });
    }

    // Anchors the text does not have.
    let mut others: BTreeMap<String, Vec<Finding>> = BTreeMap::new();
    for (&anchor, _) in text_steps
        .iter()
        .filter(|(anchor, _)| spec.algorithm(anchor).is_none())
    {
        others
            .entry(anchor.to_string())
            .or_default()
            .push(Finding::EngineAlgorithmNotInText);
    }
    for (&anchor, labels) in bad_labels
        .iter()
        .filter(|(anchor, _)| spec.algorithm(anchor).is_none())
    {
        let entry = others.entry(anchor.to_string()).or_default();
        entry.extend(
            labels
                .iter()
                .map(|l| Finding::BadEngineStep { label: l.clone() }),
        );
    }
    for anchor in digest_anchors
        .iter()
        .filter(|anchor| spec.algorithm(anchor).is_none())
    {
        others
            .entry((*anchor).to_string())
            .or_default()
            .push(Finding::AlgorithmRemovedSinceDigest);
    }
    for (anchor, mut findings) in others {
        findings.sort_by(|x, y| x.sort_key().cmp(&y.sort_key()));
        algorithms.push(AlgorithmFindings {
            anchor,
            line: None,
            findings,
        });
    }
    let outside_text = other_origins
        .iter()
        .filter(|(anchor, _)| spec.algorithm(anchor).is_none())
        .flat_map(|(anchor, origins)| origins.iter().map(move |o| ((*anchor).to_string(), *o)))
        .collect();
    Report {
        digest_source: digest.source.clone(),
        algorithms,
        outside_text,
    }
}

/// Steps of one algorithm against its digest entries, in three passes so the
/// result does not depend on step order: unchanged steps (same number, same
/// hash); then renumbered ones (a hash still unpaired in the digest under
/// another number); then the rest, which changed if the digest's step of that
/// number is still unpaired and are new otherwise.
fn digest_findings(
    current: &[(StepNumber, TextHash)],
    recorded: &[(&StepNumber, TextHash)],
) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut paired_old: BTreeSet<&StepNumber> = BTreeSet::new();
    let mut pending: Vec<&(StepNumber, TextHash)> = Vec::new();
    for entry in current {
        if recorded
            .iter()
            .any(|(rn, rh)| *rn == &entry.0 && *rh == entry.1)
        {
            paired_old.insert(&entry.0);
        } else {
            pending.push(entry);
        }
    }
    let mut unexplained = Vec::new();
    for entry @ (n, h) in pending {
        let moved = recorded.iter().find(|(rn, rh)| {
            rh == h && !rn.is_header() && !n.is_header() && !paired_old.contains(*rn)
        });
        match moved {
            Some((was, _)) => {
                paired_old.insert(was);
                findings.push(Finding::StepRenumbered {
                    step: n.clone(),
                    was: (*was).clone(),
                });
            }
            None => unexplained.push(entry),
        }
    }
    for (n, h) in unexplained {
        match recorded.iter().find(|(rn, _)| *rn == n) {
            Some((rn, was)) if !paired_old.contains(*rn) => {
                paired_old.insert(rn);
                findings.push(Finding::StepChanged {
                    step: n.clone(),
                    was: *was,
                    now: *h,
                });
            }
            _ => findings.push(Finding::StepAddedSinceDigest { step: n.clone() }),
        }
    }
    for (rn, _) in recorded {
        if !paired_old.contains(*rn) {
            findings.push(Finding::StepRemovedSinceDigest {
                step: (*rn).clone(),
            });
        }
    }
    findings
}
