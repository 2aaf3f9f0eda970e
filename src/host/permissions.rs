//! Permissions Policy, for the one policy-controlled feature WebMCP defines: "tools", whose
//! default allowlist is 'self'.
//!
//! <https://webmachinelearning.github.io/webmcp/#permissions-policy>

use serde::Serialize;
use url::Url;

use thiserror::Error;

use super::keys::{DocumentKey, NavigableKey};
use super::origin::Origin;
use super::seam::Upper;
use super::HostState;

/// A `Permissions-Policy` header the engine cannot read.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum PolicyError {
    #[error("expected `tools=...`, found `{0}`")]
    NotTools(String),
    #[error("expected `*` or a list in parentheses, found `{0}`")]
    NotAList(String),
    #[error("expected `self` or a quoted origin, found `{0}`")]
    NotAnOrigin(String),
    #[error("`{url}` is not a URL: {reason}")]
    BadUrl { url: String, reason: String },
}

/// <https://w3c.github.io/webappsec-permissions-policy/#allowlists>
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Allowlist {
    /// `*`
    All,
    /// A list of origins; `'self'` and `'src'` are resolved to origins when parsed.
    Origins(Vec<Origin>),
}

impl Allowlist {
    /// <https://w3c.github.io/webappsec-permissions-policy/#matches>
    pub fn matches(&self, origin: &Origin) -> bool {
        match self {
            Allowlist::All => true,
            Allowlist::Origins(list) => list.iter().any(|o| o.same_origin(origin)),
        }
    }
}

/// Enabled or Disabled, as the Permissions Policy algorithms return.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum FeatureState {
    Enabled,
    Disabled,
}

/// Parses the "tools" directive of an `allow` attribute, resolving `'self'` to `self_origin`
/// and `'src'` (and a bare `tools`) to `src_origin`. Returns `None` when the attribute does not
/// mention "tools".
///
/// <https://w3c.github.io/webappsec-permissions-policy/#algo-parse-policy-directive>
pub fn parse_allow_attribute(
    allow: &str,
    self_origin: &Origin,
    src_origin: &Origin,
) -> Option<Allowlist> {
    for directive in allow.split(';') {
        let mut tokens = directive.split_ascii_whitespace();
        let Some(feature) = tokens.next() else {
            continue;
        };
        if feature != "tools" {
            continue;
        }
        let rest: Vec<&str> = tokens.collect();
        if rest.is_empty() {
            return Some(Allowlist::Origins(vec![src_origin.clone()]));
        }
        let mut origins = Vec::new();
        for token in rest {
            match token {
                "*" => return Some(Allowlist::All),
                "'self'" => origins.push(self_origin.clone()),
                "'src'" => origins.push(src_origin.clone()),
                "'none'" => {}
                other => {
                    if let Ok(url) = Url::parse(other) {
                        let mut n = 0;
                        let origin = Origin::of_url(&url, &mut n);
                        if !matches!(origin, Origin::Opaque(_)) {
                            origins.push(origin);
                        }
                    }
                }
            }
        }
        return Some(Allowlist::Origins(origins));
    }
    None
}

/// Parses a `Permissions-Policy` header's "tools" member: `tools=*`, `tools=()`,
/// `tools=(self "https://b.test")`.
pub fn parse_policy_header(header: &str, self_origin: &Origin) -> Result<Allowlist, PolicyError> {
    let value = header
        .trim()
        .strip_prefix("tools=")
        .ok_or_else(|| PolicyError::NotTools(header.into()))?
        .trim();
    if value == "*" {
        return Ok(Allowlist::All);
    }
    let inner = value
        .strip_prefix('(')
        .and_then(|v| v.strip_suffix(')'))
        .ok_or_else(|| PolicyError::NotAList(value.into()))?;
    let mut origins = Vec::new();
    for token in inner.split_ascii_whitespace() {
        if token == "self" {
            origins.push(self_origin.clone());
            continue;
        }
        let quoted = token
            .strip_prefix('"')
            .and_then(|t| t.strip_suffix('"'))
            .ok_or_else(|| PolicyError::NotAnOrigin(token.into()))?;
        let url = Url::parse(quoted).map_err(|e| PolicyError::BadUrl {
            url: quoted.into(),
            reason: e.to_string(),
        })?;
        let mut n = 0;
        origins.push(Origin::of_url(&url, &mut n));
    }
    Ok(Allowlist::Origins(origins))
}

impl<U: Upper> HostState<U> {
    /// <https://w3c.github.io/webappsec-permissions-policy/#algo-define-inherited-policy-in-container>
    /// for "tools", computed when a document is created in `nav` at `origin`.
    pub(crate) fn inherited_tools_policy(
        &self,
        nav: NavigableKey,
        origin: &Origin,
    ) -> FeatureState {
        let n = &self.navigables[nav];
        // 1. A top-level traversable has no container: Enabled.
        let Some(parent) = n.container_document else {
            return FeatureState::Enabled;
        };
        let parent_origin = self.documents[parent].origin.clone();
        // 2. If the feature is disabled in the container's document for that document's own
        //    origin, Disabled.
        if self.is_feature_enabled_in_document_for_origin(parent, &parent_origin)
            == FeatureState::Disabled
        {
            return FeatureState::Disabled;
        }
        // 3. If it is disabled in the container's document for the new document's origin (the
        //    container document's declared policy does not name that origin), Disabled: an
        //    `allow` attribute cannot give what the embedder's own policy withholds.
        if self.is_feature_enabled_in_document_for_origin(parent, origin) == FeatureState::Disabled
        {
            return FeatureState::Disabled;
        }
        // 4-5. The container policy (the `allow` attribute) decides when it names the feature.
        let src = n.src_origin.clone().unwrap_or_else(|| origin.clone());
        if let Some(allowlist) = n
            .allow
            .as_deref()
            .and_then(|a| parse_allow_attribute(a, &parent_origin, &src))
        {
            return if allowlist.matches(origin) {
                FeatureState::Enabled
            } else {
                FeatureState::Disabled
            };
        }
        // 6-8. Otherwise the feature's default allowlist, 'self': Enabled only for an origin
        //      same origin with the container's document.
        if origin.same_origin(&parent_origin) {
            FeatureState::Enabled
        } else {
            FeatureState::Disabled
        }
    }

    /// <https://w3c.github.io/webappsec-permissions-policy/#algo-is-feature-enabled>
    pub(crate) fn is_feature_enabled_in_document_for_origin(
        &self,
        doc: DocumentKey,
        origin: &Origin,
    ) -> FeatureState {
        let d = &self.documents[doc];
        // 1-2. A feature the document inherited as disabled stays disabled.
        if d.tools_inherited_policy == FeatureState::Disabled {
            return FeatureState::Disabled;
        }
        // 3. A declared policy decides when it names the feature.
        if let Some(declared) = &d.tools_declared_policy {
            return if declared.matches(origin) {
                FeatureState::Enabled
            } else {
                FeatureState::Disabled
            };
        }
        // 4. Otherwise Enabled (the default allowlist was applied by the inherited policy).
        FeatureState::Enabled
    }

    /// <https://html.spec.whatwg.org/multipage/iframe-embed-object.html#allowed-to-use>, for
    /// the "tools" feature.
    pub fn is_allowed_to_use_tools(&self, doc: DocumentKey) -> bool {
        // 1-2. A document that is not fully active is not allowed to use any feature.
        if !self.is_fully_active(doc) {
            return false;
        }
        let origin = self.documents[doc].origin.clone();
        self.is_feature_enabled_in_document_for_origin(doc, &origin) == FeatureState::Enabled
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn o(s: &str) -> Origin {
        let mut n = 0;
        Origin::of_url(&Url::parse(s).unwrap(), &mut n)
    }

    #[test]
    fn allow_attribute_forms() {
        let (me, src) = (o("https://a.test/"), o("https://b.test/"));
        assert_eq!(parse_allow_attribute("camera", &me, &src), None);
        assert_eq!(
            parse_allow_attribute("tools", &me, &src),
            Some(Allowlist::Origins(vec![src.clone()]))
        );
        assert_eq!(
            parse_allow_attribute("camera; tools *", &me, &src),
            Some(Allowlist::All)
        );
        assert_eq!(
            parse_allow_attribute("tools 'none'", &me, &src),
            Some(Allowlist::Origins(vec![]))
        );
        assert_eq!(
            parse_allow_attribute("tools 'self' https://c.test", &me, &src),
            Some(Allowlist::Origins(vec![me.clone(), o("https://c.test/")]))
        );
    }

    #[test]
    fn policy_header_forms() {
        let me = o("https://a.test/");
        assert_eq!(parse_policy_header("tools=*", &me), Ok(Allowlist::All));
        assert_eq!(
            parse_policy_header("tools=()", &me),
            Ok(Allowlist::Origins(vec![]))
        );
        assert_eq!(
            parse_policy_header("tools=(self \"https://b.test\")", &me),
            Ok(Allowlist::Origins(vec![me.clone(), o("https://b.test/")]))
        );
        assert!(parse_policy_header("camera=()", &me).is_err());
    }
}
