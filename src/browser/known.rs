//! The checked-in lists of known differences between the engine and the browser, one per
//! profile (browser-diff/PROFILE.txt): every disagreement `diff-browser --profile PROFILE`
//! finds must be listed there with which side is right and why, and every entry must still
//! disagree.
//!
//! The format, line by line (`#` starts a comment line):
//!
//! ```text
//! [webmcp/readiness/child-frames.https.html :: a same-origin iframe that is not ready]
//! [webmcp/readiness/child-frames.https.html :: two iframes: ready when the last one is]
//! right: engine
//! why: Chromium 156 does not implement PR #373: document.modelContext has no
//!   waitForToolsUntil() and no toolsReady.
//! message: waitForToolsUntil is not a function
//! ```
//!
//! One or more `[FILE :: SUBTEST]` lines (FILE as WPT names the test, SUBTEST the scenario's
//! name for the subtest) share the fields that follow. `right:` is `engine` (the engine, and
//! the spec it implements, are right: the browser differs), `chromium` (the browser is right:
//! the engine has a bug to fix, or its browser profile lacks a switch), or `export` (neither:
//! the exported test cannot show the scenario faithfully). `why:` says why, and may go on on
//! indented lines. `message:` is optional: the browser's failure message (or the engine's,
//! or the log) must contain this text, so an entry does not cover a new reason to differ.
//! `intermittent: 3 of 10 runs` marks a difference that shows on some runs only (a race in the
//! browser), with the rate measured by `diff-browser --repeat N`: it explains the
//! disagreement when there is one, and is not stale when the subtest happens to agree.
//! `step:` names the step of the text the difference concerns (`#imperative-execute-steps
//! 10.1.4`), for the table of where the browser departs from the text.

use std::fmt;

use serde::Serialize;

/// Which side of a difference is right.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Right {
    Engine,
    Chromium,
    Export,
}

impl fmt::Display for Right {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Right::Engine => "engine",
            Right::Chromium => "chromium",
            Right::Export => "export",
        })
    }
}

/// One listed difference.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KnownDifference {
    pub file: String,
    pub subtest: String,
    pub right: Right,
    pub why: String,
    pub message: Option<String>,
    /// Shows on some runs only, at the rate measured: not stale when the subtest agrees.
    pub intermittent: Option<Rate>,
    /// The step of the text it concerns.
    pub step: Option<String>,
    /// Where the entry is, for messages.
    pub line: u32,
}

/// How often an intermittent difference showed: in `seen` of `runs` runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Rate {
    pub seen: usize,
    pub runs: usize,
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} of {} runs", self.seen, self.runs)
    }
}

impl std::str::FromStr for Rate {
    type Err = String;
    /// `3 of 10 runs` (or `3 of 10`).
    fn from_str(s: &str) -> Result<Rate, String> {
        let bad = || {
            format!(
                "`{s}`: expected the measured rate, as `3 of 10 runs` (diff-browser --repeat 10)"
            )
        };
        let words: Vec<&str> = s.split_whitespace().collect();
        let (seen, runs) = match words[..] {
            [seen, "of", runs] | [seen, "of", runs, "runs"] => (seen, runs),
            _ => return Err(bad()),
        };
        let seen: usize = seen.parse().map_err(|_| bad())?;
        let runs: usize = runs.parse().map_err(|_| bad())?;
        if runs == 0 || seen == 0 || seen > runs {
            return Err(format!(
                "`{s}`: an intermittent difference shows in at least one run and at most in all of them"
            ));
        }
        Ok(Rate { seen, runs })
    }
}

/// A malformed list.
#[derive(Debug, thiserror::Error)]
#[error("{path}:{line}: {message}")]
pub struct KnownError {
    pub path: String,
    pub line: u32,
    pub message: String,
}

/// Parses a known-differences list.
pub fn parse(path: &str, text: &str) -> Result<Vec<KnownDifference>, KnownError> {
    let err = |line: u32, message: String| KnownError {
        path: path.to_string(),
        line,
        message,
    };
    let mut out = Vec::new();
    // Entries whose fields are being read: (file, subtest, line).
    let mut heads: Vec<(String, String, u32)> = Vec::new();
    let mut right: Option<Right> = None;
    let mut why: Option<String> = None;
    let mut message: Option<String> = None;
    let mut intermittent: Option<Rate> = None;
    let mut step: Option<String> = None;
    let mut reading_fields = false;
    let mut last_key = "";
    let flush = |heads: &mut Vec<(String, String, u32)>,
                 right: &mut Option<Right>,
                 why: &mut Option<String>,
                 message: &mut Option<String>,
                 intermittent: &mut Option<Rate>,
                 step: &mut Option<String>,
                 out: &mut Vec<KnownDifference>|
     -> Result<(), KnownError> {
        if heads.is_empty() {
            return Ok(());
        }
        let first = heads[0].2;
        let r = right.take().ok_or_else(|| {
            err(
                first,
                "this entry has no `right:` line (engine, chromium or export)".into(),
            )
        })?;
        let w = why
            .take()
            .filter(|w| !w.trim().is_empty())
            .ok_or_else(|| err(first, "this entry has no `why:` line".into()))?;
        for (file, subtest, line) in heads.drain(..) {
            out.push(KnownDifference {
                file,
                subtest,
                right: r,
                why: w.clone(),
                message: message.clone(),
                intermittent: *intermittent,
                step: step.clone(),
                line,
            });
        }
        *message = None;
        *intermittent = None;
        *step = None;
        Ok(())
    };
    for (i, raw) in text.lines().enumerate() {
        let n = i as u32 + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if let Some(inner) = trimmed.strip_prefix('[') {
            if reading_fields {
                flush(
                    &mut heads,
                    &mut right,
                    &mut why,
                    &mut message,
                    &mut intermittent,
                    &mut step,
                    &mut out,
                )?;
                reading_fields = false;
            }
            let inner = inner
                .strip_suffix(']')
                .ok_or_else(|| err(n, "expected `]` at the end of the line".into()))?;
            let (file, subtest) = inner
                .split_once(" :: ")
                .ok_or_else(|| err(n, "expected `[FILE :: SUBTEST]`".into()))?;
            heads.push((file.trim().to_string(), subtest.trim().to_string(), n));
            continue;
        }
        if heads.is_empty() {
            return Err(err(n, "a field before any `[FILE :: SUBTEST]` line".into()));
        }
        reading_fields = true;
        if raw.starts_with(' ') || raw.starts_with('\t') {
            // A continuation of the last field.
            let target = match last_key {
                "why" => why.as_mut(),
                "message" => message.as_mut(),
                "step" => step.as_mut(),
                _ => None,
            };
            match target {
                Some(t) => {
                    t.push(' ');
                    t.push_str(trimmed);
                }
                None => return Err(err(n, "an indented line that continues nothing".into())),
            }
            continue;
        }
        let (key, value) = trimmed.split_once(':').ok_or_else(|| {
            err(
                n,
                "expected `right:`, `why:`, `message:`, `step:` or `intermittent:`".into(),
            )
        })?;
        let value = value.trim().to_string();
        match key.trim() {
            "right" => {
                right = Some(match value.as_str() {
                    "engine" => Right::Engine,
                    "chromium" => Right::Chromium,
                    "export" => Right::Export,
                    other => {
                        return Err(err(
                            n,
                            format!("`right: {other}`: expected engine, chromium or export"),
                        ))
                    }
                });
                last_key = "right";
            }
            "why" => {
                why = Some(value);
                last_key = "why";
            }
            "message" => {
                message = Some(value);
                last_key = "message";
            }
            "intermittent" => {
                intermittent = Some(
                    value
                        .parse::<Rate>()
                        .map_err(|m| err(n, format!("intermittent: {m}")))?,
                );
                last_key = "intermittent";
            }
            "step" => {
                step = Some(value);
                last_key = "step";
            }
            other => {
                return Err(err(
                    n,
                    format!(
                    "unknown field `{other}`: expected right, why, message, step or intermittent"
                ),
                ))
            }
        }
    }
    flush(
        &mut heads,
        &mut right,
        &mut why,
        &mut message,
        &mut intermittent,
        &mut step,
        &mut out,
    )?;
    let mut seen = std::collections::BTreeMap::new();
    for k in &out {
        if let Some(first) = seen.insert((k.file.clone(), k.subtest.clone()), k.line) {
            return Err(err(
                k.line,
                format!(
                    "{} :: {} is listed already at line {first}",
                    k.file, k.subtest
                ),
            ));
        }
    }
    Ok(out)
}

/// An entry to paste into the list for a disagreement nobody has explained yet.
pub fn suggestion(
    file: &str,
    subtest: &str,
    message: Option<&str>,
    intermittent: Option<Rate>,
) -> String {
    let mut s = format!("[{file} :: {subtest}]\nright: \nwhy: \nstep: \n");
    if let Some(rate) = intermittent {
        s.push_str(&format!("intermittent: {rate}\n"));
    }
    if let Some(m) = message {
        let m: String = m.lines().next().unwrap_or("").chars().take(100).collect();
        s.push_str(&format!("message: {m}\n"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_share_the_fields_after_their_heads() {
        let text = "# comment\n[a.html :: one]\n[a.html :: two]\nright: engine\nwhy: first part\n  second part\nmessage: not a function\nstep: #x 1\n\n[b.html :: three]\nright: export\nwhy: timing\nintermittent: 3 of 10 runs\n";
        let k = parse("k.txt", text).unwrap();
        assert_eq!(k.len(), 3);
        assert_eq!(k[1].subtest, "two");
        assert_eq!(k[1].why, "first part second part");
        assert_eq!(k[1].message.as_deref(), Some("not a function"));
        assert_eq!(k[2].right, Right::Export);
        assert_eq!(k[2].message, None);
        assert_eq!(k[2].intermittent, Some(Rate { seen: 3, runs: 10 }));
        assert_eq!(k[0].intermittent, None);
        assert_eq!(k[0].step.as_deref(), Some("#x 1"));
        assert_eq!(k[2].step, None);
    }

    #[test]
    fn malformed_lists_say_where() {
        let e = parse("k.txt", "[a.html :: one]\nright: maybe\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "k.txt:2: `right: maybe`: expected engine, chromium or export"
        );
        let e = parse("k.txt", "[a.html :: one]\nright: engine\n").unwrap_err();
        assert!(e.to_string().contains("no `why:`"), "{e}");
        let e = parse(
            "k.txt",
            "[a :: x]\nright: engine\nwhy: w\n[a :: x]\nright: engine\nwhy: w\n",
        )
        .unwrap_err();
        assert!(e.to_string().contains("listed already at line 1"), "{e}");
        let e = parse(
            "k.txt",
            "[a :: x]\nright: engine\nwhy: w\nintermittent: yes\n",
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("k.txt:4: intermittent: `yes`: expected the measured rate"),
            "{e}"
        );
        let e = parse(
            "k.txt",
            "[a :: x]\nright: engine\nwhy: w\nintermittent: 0 of 5\n",
        )
        .unwrap_err();
        assert!(e.to_string().contains("at least one run"), "{e}");
    }
}
