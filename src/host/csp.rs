//! Content Security Policy, as far as a document's sandboxing goes: a response's
//! `Content-Security-Policy` header whose `sandbox` directive forces sandboxing flags on the
//! document it creates (an `https:` page whose origin is opaque, as WPT's
//! `opaque-origin-tools.https.html.headers` makes one).
//!
//! The engine runs no fetch, script or style that the other directives govern, so a header
//! naming any of them is refused rather than read as if it said nothing: a scenario that needs
//! `script-src` cannot be run faithfully here, and says so at its line.
//!
//! <https://w3c.github.io/webappsec-csp/#parse-serialized-policy>,
//! <https://w3c.github.io/webappsec-csp/#directive-sandbox>

use super::iframe::{parse_a_sandboxing_directive, SandboxFlags};

/// What a header's policy does to the document it comes with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CspPolicy {
    /// The `sandbox` directive's flags (HTML's "forced sandboxing flag set" of the response),
    /// or none when the policy has no such directive.
    pub forced_sandboxing: Option<SandboxFlags>,
}

/// "Parse a serialized CSP" for an enforced header, keeping the `sandbox` directive.
///
/// Steps 2-3: the value is split on `;`, each token trimmed of ASCII whitespace, empty tokens
/// skipped; the directive's name is the token up to the first ASCII whitespace, lowercased;
/// a name seen already in this policy is skipped (the first one counts). The `sandbox`
/// directive's value is a sandboxing directive (HTML's tokens, `allow-scripts`...).
pub fn parse_a_serialized_csp(value: &str) -> Result<CspPolicy, String> {
    let mut seen: Vec<String> = Vec::new();
    let mut policy = CspPolicy::default();
    for token in value.split(';') {
        let token = token.trim_matches(|c: char| c.is_ascii_whitespace());
        if token.is_empty() {
            continue;
        }
        let (name, rest) = match token.find(|c: char| c.is_ascii_whitespace()) {
            Some(at) => (&token[..at], &token[at..]),
            None => (token, ""),
        };
        let name = name.to_ascii_lowercase();
        if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            // Step 3.4: a name outside the directive-name grammar is not a directive.
            continue;
        }
        if seen.contains(&name) {
            continue;
        }
        seen.push(name.clone());
        match name.as_str() {
            "sandbox" => policy.forced_sandboxing = Some(parse_a_sandboxing_directive(rest)),
            other => {
                return Err(format!(
                    "the `{other}` directive governs what the engine does not run (only `sandbox` is read)"
                ))
            }
        }
    }
    Ok(policy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sandbox_directive_forces_its_flags() {
        let p = parse_a_serialized_csp("sandbox allow-scripts").unwrap();
        assert_eq!(
            p.forced_sandboxing,
            Some(SandboxFlags {
                origin: true,
                scripts: false,
                forms: true
            })
        );
        // Every flag, with no tokens; case-insensitive names; empty tokens skipped.
        let all = parse_a_serialized_csp(" ; SANDBOX ;").unwrap();
        assert_eq!(
            all.forced_sandboxing,
            Some(SandboxFlags {
                origin: true,
                scripts: true,
                forms: true
            })
        );
        // The first `sandbox` counts.
        let first = parse_a_serialized_csp("sandbox allow-scripts; sandbox").unwrap();
        assert!(!first.forced_sandboxing.unwrap().scripts);
        assert_eq!(parse_a_serialized_csp("").unwrap().forced_sandboxing, None);
    }

    #[test]
    fn other_directives_are_refused_by_name() {
        let e = parse_a_serialized_csp("sandbox allow-scripts; script-src 'none'").unwrap_err();
        assert!(e.contains("`script-src`"), "{e}");
    }
}
