//! Rendered step numbers ("1", "2.1", "2.1.3").

use std::fmt;
use std::str::FromStr;

/// A step's number as the rendered spec shows it, one component per nesting
/// level. The empty number is the algorithm's *header* (the paragraph holding its
/// `<dfn>` and parameters): it is written `0` because no rendered step is `0`,
/// and it lets a digest notice a changed signature or an algorithm without steps.
///
/// Ordering is document order within one algorithm: `0 < 1 < 1.1 < 1.2 < 2`.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Default)]
pub struct StepNumber(Vec<u32>);

impl StepNumber {
    /// The header pseudo-step `0`.
    pub fn header() -> StepNumber {
        StepNumber(Vec::new())
    }

    /// A step number from its components; `None` if any component is 0.
    pub fn new(parts: Vec<u32>) -> Option<StepNumber> {
        if parts.contains(&0) {
            None
        } else {
            Some(StepNumber(parts))
        }
    }

    pub fn is_header(&self) -> bool {
        self.0.is_empty()
    }

    pub fn parts(&self) -> &[u32] {
        &self.0
    }

    /// Nesting depth: 1 for top-level steps, 0 for the header.
    pub fn depth(&self) -> usize {
        self.0.len()
    }

    pub(crate) fn child(&self, n: u32) -> StepNumber {
        let mut parts = self.0.clone();
        parts.push(n);
        StepNumber(parts)
    }
}

impl fmt::Display for StepNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("0");
        }
        for (i, part) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            write!(f, "{part}")?;
        }
        Ok(())
    }
}

/// Why a string is not a step number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadStepNumber(pub String);

impl fmt::Display for BadStepNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} is not a step number (expected 0 or dotted numbers from 1, like 2.1.3)",
            self.0
        )
    }
}

impl std::error::Error for BadStepNumber {}

impl FromStr for StepNumber {
    type Err = BadStepNumber;

    fn from_str(text: &str) -> Result<StepNumber, BadStepNumber> {
        if text == "0" {
            return Ok(StepNumber::header());
        }
        let bad = || BadStepNumber(text.to_string());
        let mut parts = Vec::new();
        for piece in text.split('.') {
            // Digits only: no sign, no spaces, no leading zeros, so that each
            // step has exactly one spelling in a digest.
            if piece.is_empty()
                || !piece.bytes().all(|b| b.is_ascii_digit())
                || piece.starts_with('0')
            {
                return Err(bad());
            }
            parts.push(piece.parse::<u32>().map_err(|_| bad())?);
        }
        StepNumber::new(parts).ok_or_else(bad)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_show() {
        for text in ["0", "1", "2.1", "12.3.10"] {
            let n: StepNumber = text.parse().unwrap();
            assert_eq!(n.to_string(), text);
        }
        for text in ["", "01", "1.", ".1", "1..2", "1.0", "-1", "a", "1 "] {
            assert!(text.parse::<StepNumber>().is_err(), "{text:?}");
        }
    }

    #[test]
    fn document_order() {
        let mut v: Vec<StepNumber> = ["2", "1.1", "0", "1", "10", "1.2"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        v.sort();
        let shown: Vec<String> = v.iter().map(|n| n.to_string()).collect();
        assert_eq!(shown, ["0", "1", "1.1", "1.2", "2", "10"]);
    }
}
