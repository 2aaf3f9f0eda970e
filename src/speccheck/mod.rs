//! spec-check: keeping the engine in step with the WebMCP text.
//!
//! [`parse_bs`] reads a Bikeshed source (the spec's `index.bs`): each algorithm (algorithm
//! blocks, method and getter steps), its anchor, and its numbered steps with their nesting and a
//! hash of each step's normalized text. [`compare`] holds that against the engine's algorithm
//! tables ([`engine_tables`]: the published text's tables must list exactly the text's steps;
//! PR #373's, the proposals' and the engine's own are not expected in it) and against the
//! [`Digest`] of the text the engine last matched (kept in this folder: anchors, step numbers
//! and hashes, facts and never the spec's sentences), so that an edited text shows which steps
//! changed. The command (`webmcp-ref spec-check FILE.bs`) also names the bundled scenarios that
//! reach each changed step, the ones to run again.
//!
//! The layer sits above the engine, whose algorithm tables it reads.

mod anchor;
mod compare;
mod digest;
mod error;
mod hash;
mod markdown;
mod normalize;
mod parse;
mod rerun;
mod scan;
mod step;
mod tag;

pub use anchor::{simplify_text, split_for_values, DfnInfo};
pub use compare::{compare, AlgorithmFindings, EngineAlgorithm, Finding, Origin, Report};
pub use digest::{Digest, DigestEntry};
pub use error::{DigestError, ParseError};
pub use hash::{fnv1a64, TextHash};
pub use normalize::{extract_ids, normalize};
pub use parse::{parse_bs, Algorithm, IssueBox, Spec, Step, StepKind};
pub use rerun::{changed_steps, find_reaching, ChangedStep, Reach};
pub use step::{BadStepNumber, StepNumber};

use crate::host::spec::{Algorithm as EngineTable, Spec as Text};

/// The digest of the text the engine implements: webmachinelearning/webmcp `index.bs` at
/// 0023abda.
pub const DIGEST: &str = include_str!("webmcp-0023abda.digest");

/// Algorithms of the text the engine knows of and does not run, and why.
pub const NOT_RUN: &[(&str, &str)] = &[
    (
        "synthesize-a-declarative-json-schema-object-algorithm",
        "declarative WebMCP: the simulation has no <form> elements",
    ),
    (
        "declarative-execute-steps",
        "declarative WebMCP: the text has no steps for it yet",
    ),
];

/// The digest the engine last matched.
pub fn digest() -> Result<Digest, DigestError> {
    Digest::parse(DIGEST)
}

/// Where one of the engine's tables comes from, for spec-check; `None` for the host's
/// specifications (HTML, DOM, ECMAScript, Web IDL), which spec-check does not read.
pub fn origin_of(table: &EngineTable) -> Option<Origin> {
    match table.spec {
        Text::WebMcp => Some(Origin::Text),
        Text::WebMcpPr373 => Some(Origin::Pr373),
        Text::WebMcpProposal => Some(Origin::Proposal),
        Text::WebMcpEngineDefined => Some(Origin::EngineDefined),
        Text::Html | Text::Dom | Text::WebIdl | Text::Ecma262 | Text::PermissionsPolicy => None,
    }
}

/// The engine's WebMCP tables as spec-check compares them, and the algorithms it does not run.
pub fn engine_tables() -> Vec<EngineAlgorithm<'static>> {
    let mut out: Vec<EngineAlgorithm<'static>> = crate::engine::algorithms()
        .filter_map(|table| {
            origin_of(table).map(|origin| EngineAlgorithm {
                anchor: table.anchor,
                origin,
                steps: table.steps,
            })
        })
        .collect();
    out.extend(NOT_RUN.iter().map(|(anchor, _)| EngineAlgorithm {
        anchor,
        origin: Origin::NotRun,
        steps: &[],
    }));
    out
}

/// Compares a Bikeshed source with the engine's tables and the digest.
pub fn check(source: &str) -> Result<Report, CheckError> {
    check_against(source, &digest()?)
}

/// Compares a Bikeshed source with the engine's tables and another digest.
pub fn check_against(source: &str, digest: &Digest) -> Result<Report, CheckError> {
    let spec = parse_bs(source)?;
    Ok(compare(&spec, &engine_tables(), digest))
}

/// The report as JSON: each algorithm's findings in spec-check's words, the engine's
/// algorithms outside the text, and the steps to run again with the subtests reaching them.
pub fn report_json(report: &Report, changes: &[ChangedStep]) -> serde_json::Value {
    serde_json::json!({
        "clean": report.is_clean(),
        "digest_source": report.digest_source,
        "algorithms": report
            .algorithms
            .iter()
            .filter(|a| !a.findings.is_empty())
            .map(|a| serde_json::json!({
                "anchor": a.anchor,
                "line": a.line,
                "findings": a.findings.iter().map(ToString::to_string).collect::<Vec<_>>(),
            }))
            .collect::<Vec<_>>(),
        "outside_text": report
            .outside_text
            .iter()
            .map(|(anchor, origin)| serde_json::json!({"anchor": anchor, "origin": origin.to_string()}))
            .collect::<Vec<_>>(),
        "run_again": changes,
    })
}

/// The steps to run again, for a person; `profiles` is how many profiles were run, so that a
/// subtest reaching a step under all of them says so briefly.
pub fn changes_human(changes: &[ChangedStep], profiles: usize) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    if changes.is_empty() {
        return out;
    }
    let _ = writeln!(out, "\nscenarios to run again:");
    for c in changes {
        let step = c
            .step
            .as_deref()
            .map_or("every step".to_string(), |s| format!("step {s}"));
        let _ = writeln!(out, "  #{} {step} ({})", c.anchor, c.why);
        if !c.also.is_empty() {
            let _ = writeln!(out, "    counting every step of: {}", c.also.join("; "));
        }
        if c.reached_by.is_empty() {
            let _ = writeln!(out, "    no subtest reaches it");
        }
        for r in &c.reached_by {
            let under = if r.profiles.len() == profiles {
                "every profile".to_string()
            } else {
                r.profiles.join(", ")
            };
            let _ = writeln!(out, "    {} :: {:?} ({under})", r.file, r.subtest);
        }
    }
    let mut files: Vec<&str> = changes
        .iter()
        .flat_map(|c| c.reached_by.iter().map(|r| r.file.as_str()))
        .collect();
    files.sort_unstable();
    files.dedup();
    let _ = writeln!(
        out,
        "\n{} scenario file(s) reach a changed step:",
        files.len()
    );
    for f in files {
        let _ = writeln!(out, "  {f}");
    }
    out
}

/// Why spec-check could not compare.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error("the Bikeshed source: {0}")]
    Source(#[from] ParseError),
    #[error("the engine's digest: {0}")]
    Digest(#[from] DigestError),
}
