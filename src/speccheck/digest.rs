//! The digest: what the engine last matched, as facts only.
//!
//! ```text
//! speccheck-digest 1 source=0023abdadad292a5017093c325894d0146fc4566
//! # ANCHOR STEP HASH, in document order; step 0 is the algorithm's header.
//! cancel-a-pending-tool-execution 0 8c1e0f2b9d3a4c55
//! cancel-a-pending-tool-execution 1 0d9a1b7e6f2c3a11
//! ```
//!
//! The first line names the format version and the source (a commit id or any
//! token without spaces). Blank lines and lines starting with `#` are comments.
//! Every other line is `ANCHOR STEP HASH`: the step number as rendered (`0` for
//! the header) and the 16-hex-digit hash of the step's normalized text. No
//! sentence of the spec is stored, so the file can live in the project's git.

use std::collections::HashMap;
use std::fmt;

use super::error::DigestError;
use super::hash::TextHash;
use super::parse::Spec;
use super::step::StepNumber;

const MAGIC: &str = "speccheck-digest";
const VERSION: &str = "1";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DigestEntry {
    pub anchor: String,
    pub step: StepNumber,
    pub hash: TextHash,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Digest {
    /// Where the digested text came from (normally a commit id).
    pub source: String,
    /// Entries in document order.
    pub entries: Vec<DigestEntry>,
}

impl Digest {
    /// The digest of a parsed text: each algorithm's header, then its steps.
    pub fn from_spec(spec: &Spec, source: &str) -> Digest {
        let mut entries = Vec::new();
        for a in &spec.algorithms {
            entries.push(DigestEntry {
                anchor: a.anchor.clone(),
                step: StepNumber::header(),
                hash: a.header_hash,
            });
            for s in &a.steps {
                entries.push(DigestEntry {
                    anchor: a.anchor.clone(),
                    step: s.number.clone(),
                    hash: s.hash,
                });
            }
        }
        Digest {
            source: source.split_whitespace().collect::<Vec<_>>().join("-"),
            entries,
        }
    }

    /// The hash recorded for one step.
    pub fn get(&self, anchor: &str, step: &StepNumber) -> Option<TextHash> {
        self.entries
            .iter()
            .find(|e| e.anchor == anchor && &e.step == step)
            .map(|e| e.hash)
    }

    /// Anchors in first-appearance order.
    pub fn anchors(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for e in &self.entries {
            if out.last() != Some(&e.anchor.as_str()) && !out.contains(&e.anchor.as_str()) {
                out.push(&e.anchor);
            }
        }
        out
    }

    /// Reads a digest; every error names its line.
    pub fn parse(text: &str) -> Result<Digest, DigestError> {
        let mut source = None;
        let mut entries: Vec<DigestEntry> = Vec::new();
        let mut seen: HashMap<(String, StepNumber), usize> = HashMap::new();
        for (index, raw) in text.lines().enumerate() {
            let number = index + 1;
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = line.split_whitespace().collect();
            if source.is_none() {
                source = Some(parse_header(&fields, number)?);
                continue;
            }
            let [anchor, step, hash] = fields[..] else {
                return Err(DigestError::new(
                    number,
                    format!("expected ANCHOR STEP HASH, found {} field(s)", fields.len()),
                ));
            };
            if anchor.starts_with(MAGIC) {
                return Err(DigestError::new(number, "a second header line"));
            }
            let step: StepNumber = step
                .parse()
                .map_err(|e| DigestError::new(number, format!("{e}")))?;
            let hash = TextHash::from_hex(hash).ok_or_else(|| {
                DigestError::new(
                    number,
                    format!("{hash:?} is not a hash (16 lowercase hex digits)"),
                )
            })?;
            if let Some(first) = seen.insert((anchor.to_string(), step.clone()), number) {
                return Err(DigestError::new(
                    number,
                    format!("{anchor} {step} is already listed at line {first}"),
                ));
            }
            entries.push(DigestEntry {
                anchor: anchor.to_string(),
                step,
                hash,
            });
        }
        match source {
            Some(source) => Ok(Digest { source, entries }),
            None => Err(DigestError::new(
                text.lines().count().max(1),
                format!("no `{MAGIC} {VERSION} source=...` header line"),
            )),
        }
    }
}

fn parse_header(fields: &[&str], number: usize) -> Result<String, DigestError> {
    match fields {
        [MAGIC, VERSION, source] => match source.strip_prefix("source=") {
            Some(s) if !s.is_empty() => Ok(s.to_string()),
            _ => Err(DigestError::new(
                number,
                "the header's third field must be source=SOURCE",
            )),
        },
        [MAGIC, version, ..] => Err(DigestError::new(
            number,
            format!("unsupported digest version {version}"),
        )),
        _ => Err(DigestError::new(
            number,
            format!("the first line must be `{MAGIC} {VERSION} source=...`"),
        )),
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{MAGIC} {VERSION} source={}",
            if self.source.is_empty() {
                "unknown"
            } else {
                &self.source
            }
        )?;
        writeln!(
            f,
            "# ANCHOR STEP HASH, in document order; step 0 is the algorithm's header."
        )?;
        for e in &self.entries {
            writeln!(f, "{} {} {}", e.anchor, e.step, e.hash)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let text = "speccheck-digest 1 source=abc\n# c\n\nfoo 0 0000000000000001\nfoo 1.2 00000000000000ff\n";
        let d = Digest::parse(text).unwrap();
        assert_eq!(d.source, "abc");
        assert_eq!(d.entries.len(), 2);
        assert_eq!(Digest::parse(&d.to_string()).unwrap(), d);
        assert_eq!(d.get("foo", &"1.2".parse().unwrap()), Some(TextHash(255)));
    }

    #[test]
    fn errors_name_their_line() {
        let cases = [
            ("nope\n", 1),
            ("speccheck-digest 2 source=x\n", 1),
            ("speccheck-digest 1 source=x\nfoo 1\n", 2),
            (
                "speccheck-digest 1 source=x\nfoo 1 0000000000000001\n\nfoo 1.0 0000000000000001\n",
                4,
            ),
            ("speccheck-digest 1 source=x\nfoo 1 XYZ\n", 2),
            (
                "speccheck-digest 1 source=x\nfoo 1 0000000000000001\nfoo 1 0000000000000002\n",
                3,
            ),
            ("# only comments\n", 1),
        ];
        for (text, line) in cases {
            let err = Digest::parse(text).unwrap_err();
            assert_eq!(err.line, line, "{text:?}: {err}");
        }
    }
}
