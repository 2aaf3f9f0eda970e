//! The Markdown report of one traced subtest for a spec issue: the report layer's page
//! (`report::markdown`) with the subtest's exported WPT test, its replay commands and the
//! playground link that opens it in a page. `trace --format markdown`, the findings' reports
//! and the playground all write it here.

use crate::engine::profile::Profile;
use crate::report::{link::Link, markdown, replay_command};
use crate::scenario::{FileResult, ScenarioFile, SubtestResult};

use super::export_file;

/// What a report names besides the runs: the profiles and switches as asked for, and where
/// the playground is.
pub struct Asked<'a> {
    /// The profiles as named (each once).
    pub profiles: &'a [String],
    /// The switch assignments (`SWITCH=VALUE`).
    pub sets: &'a [String],
    /// The playground's address for the link; `None`: no link.
    pub playground: Option<&'a str>,
    /// A sentence or two said before the rest (the finding the report is about).
    pub intro: Option<&'a str>,
}

/// The report of a traced subtest (the first of each run), its text `text`; the exported test
/// is written under the first profile. Empty when no run has a subtest.
pub fn markdown_report(
    scenario: &ScenarioFile,
    text: &str,
    built: &[Profile],
    runs: &[(String, FileResult)],
    asked: &Asked,
) -> String {
    let subs: Vec<(String, &SubtestResult)> = runs
        .iter()
        .filter_map(|(p, r)| r.subtests.first().map(|s| (p.clone(), s)))
        .collect();
    let Some((_, first)) = subs.first() else {
        return String::new();
    };
    let source = markdown::subtest_source(text, first.line);
    let cmd = replay_command(
        &scenario.path,
        &first.name,
        &asked.profiles.join(","),
        asked.sets,
        &first.schedule,
    );
    let replay = format!("{cmd} --format markdown");
    // The exported test of this subtest alone.
    let alone = ScenarioFile {
        subtests: scenario
            .subtests
            .iter()
            .filter(|s| s.name == first.name)
            .cloned()
            .collect(),
        ..scenario.clone()
    };
    let exported = built.first().map(|p| export_file(&alone, p));
    let exported_ref = exported
        .as_ref()
        .filter(|e| {
            e.subtests
                .iter()
                .any(|s| s.name == first.name && s.exported_name.is_some())
        })
        .map(|e| (e.test_path.as_str(), e.html.as_str()));
    let link = asked.playground.map(|base| {
        Link {
            path: scenario.path.clone(),
            text: text.to_string(),
            profiles: asked.profiles.to_vec(),
            sets: asked.sets.to_vec(),
            subtest: Some(first.name.clone()),
            view: Some("timeline".into()),
        }
        .url(base)
    });
    let r = markdown::Report {
        path: &scenario.path,
        source: &source,
        title: &scenario.title,
        replay: &replay,
        trace: &cmd,
        exported: exported_ref,
        intro: asked.intro,
        link: link.as_deref(),
    };
    markdown::report(&r, &subs)
}
