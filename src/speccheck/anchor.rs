//! Bikeshed's generated anchors (`id`s) for `<dfn>`s.
//!
//! This follows Bikeshed's `classifyDfns` and `config.simplifyText`, checked
//! against the anchors the WebMCP text links to:
//!
//! * the *primary text* is the first `lt=` value, else the dfn's rendered text;
//! * with a `for` value (the dfn's own `for=`, or the nearest `dfn-for=` on an
//!   ancestor) the id is `simplify("FOR-TEXT")`, else `simplify("TEXT")`;
//!   methods, constructors and stringifiers drop their argument list first;
//! * IDL members that use `for` (attribute, method, dict-member, ...) then get
//!   `dom-`, events `eventdef-`, plain dfns and interfaces nothing, other typed
//!   dfns their class prefix (`abstract-opdef-`, `permissiondef-`, ...).
//!
//! `simplify` lowercases, deletes `()`, turns runs of whitespace, `/`, `(` and
//! `,` into `-`, deletes everything but `a-z0-9_-` and trims trailing `-`. So
//! `registerTool(tool, options)` for `ModelContext` is
//! `dom-modelcontext-registertool`, and `unregister a tool` for `model context`
//! is `model-context-unregister-a-tool`.

/// Bikeshed's `config.simplifyText`.
pub fn simplify_text(text: &str) -> String {
    let lowered = text.trim().to_lowercase().replace("()", "");
    let mut dashed = String::with_capacity(lowered.len());
    let mut in_separator_run = false;
    for c in lowered.chars() {
        if c.is_whitespace() || matches!(c, '/' | '(' | ',') {
            if !in_separator_run {
                dashed.push('-');
                in_separator_run = true;
            }
        } else {
            dashed.push(c);
            in_separator_run = false;
        }
    }
    let kept: String = dashed
        .chars()
        .filter(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
        .collect();
    kept.trim_end_matches('-').to_string()
}

/// Dfn types and the class prefix Bikeshed derives their ids from
/// (`config.dfnClassToType`, reversed).
const TYPE_PREFIXES: &[(&str, &str)] = &[
    ("abstract-op", "abstract-opdef"),
    ("property", "propdef"),
    ("value", "valdef"),
    ("at-rule", "at-ruledef"),
    ("descriptor", "descdef"),
    ("type", "typedef"),
    ("function", "funcdef"),
    ("selector", "selectordef"),
    ("element", "elementdef"),
    ("element-attr", "element-attrdef"),
    ("attr-value", "attr-valuedef"),
    ("element-state", "element-statedef"),
    ("event", "eventdef"),
    ("interface", "interfacedef"),
    ("namespace", "namespacedef"),
    ("extended-attribute", "extendedattrdef"),
    ("constructor", "constructordef"),
    ("method", "methoddef"),
    ("argument", "argdef"),
    ("attribute", "attrdef"),
    ("callback", "callbackdef"),
    ("dictionary", "dictdef"),
    ("dict-member", "dict-memberdef"),
    ("enum", "enumdef"),
    ("enum-value", "enum-valuedef"),
    ("exception", "exceptiondef"),
    ("const", "constdef"),
    ("typedef", "typedefdef"),
    ("stringifier", "stringdef"),
    ("serializer", "serialdef"),
    ("iterator", "iterdef"),
    ("maplike", "mapdef"),
    ("setlike", "setdef"),
    ("grammar", "grammardef"),
    ("scheme", "schemedef"),
    ("state", "statedef"),
    ("mode", "modedef"),
    ("context", "contextdef"),
    ("facet", "facetdef"),
    ("http-header", "http-headerdef"),
    ("permission", "permissiondef"),
];

/// IDL dfn types that are members of something and so need `for`
/// (`config.idlTypes ∩ config.typesUsingFor`).
const IDL_MEMBER_TYPES: &[&str] = &[
    "attribute",
    "const",
    "constructor",
    "dict-member",
    "enum-value",
    "event",
    "iterator",
    "maplike",
    "method",
    "serializer",
    "setlike",
    "stringifier",
    "argument",
];

/// Types whose dfn text carries an argument list (IDL part of
/// `config.functionishTypes`).
const IDL_FUNCTION_TYPES: &[&str] = &["method", "constructor", "stringifier"];

/// Types Bikeshed refuses without a `for` (`config.typesUsingFor`).
const TYPES_USING_FOR: &[&str] = &[
    "descriptor",
    "value",
    "element-attr",
    "attr-value",
    "element-state",
    "method",
    "constructor",
    "argument",
    "attribute",
    "const",
    "dict-member",
    "event",
    "enum-value",
    "stringifier",
    "serializer",
    "iterator",
    "maplike",
    "setlike",
    "state",
    "mode",
    "context",
    "facet",
];

/// Whether `name` is a dfn type Bikeshed knows (also usable as a bare attribute:
/// `<dfn method>`).
pub(crate) fn is_dfn_type(name: &str) -> bool {
    name == "dfn" || TYPE_PREFIXES.iter().any(|(t, _)| *t == name)
}

/// What Bikeshed knows about a `<dfn>` when it makes its id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DfnInfo {
    /// An explicit `id=`, used as is.
    pub id: Option<String>,
    /// `dfn`, `method`, `attribute`, ...
    pub dfn_type: String,
    /// The `for` value (own or inherited), possibly several comma-separated ones.
    pub dfn_for: Option<String>,
    /// The `lt=` value, if any.
    pub lt: Option<String>,
    /// The rendered text of the dfn.
    pub text: String,
}

impl DfnInfo {
    /// The linking text Bikeshed calls primary: the first `lt` value, else the text.
    pub fn primary_text(&self) -> String {
        let raw = match &self.lt {
            Some(lt) if !lt.trim().is_empty() => lt.split('|').next().unwrap_or(lt),
            _ => &self.text,
        };
        super::normalize::collapse_whitespace(raw)
    }

    /// The anchor Bikeshed gives this dfn, or why it would refuse the dfn.
    pub fn anchor(&self) -> Result<String, String> {
        if let Some(id) = &self.id {
            return Ok(id.clone());
        }
        let ty = self.dfn_type.as_str();
        let primary = self.primary_text();
        if primary.is_empty() {
            return Err("dfn has no linking text".into());
        }
        let single_for = self
            .dfn_for
            .as_deref()
            .and_then(|f| split_for_values(f).into_iter().next());
        if single_for.is_none() && TYPES_USING_FOR.contains(&ty) {
            return Err(format!("'{ty}' definitions need a for= value"));
        }
        let base = match (&single_for, IDL_FUNCTION_TYPES.contains(&ty)) {
            (Some(f), true) => {
                let parenless = primary.split('(').next().unwrap_or(&primary);
                simplify_text(&format!("{f}-{parenless}()"))
            }
            (Some(f), false) => simplify_text(&format!("{f}-{primary}")),
            (None, _) => simplify_text(&primary),
        };
        let id = match ty {
            "dfn" | "interface" => base,
            "event" => simplify_text(&format!("eventdef-{base}")),
            "attribute" if primary.starts_with("[[") => simplify_text(&format!("dom-{base}-slot")),
            _ if IDL_MEMBER_TYPES.contains(&ty) => simplify_text(&format!("dom-{base}")),
            _ => match TYPE_PREFIXES.iter().find(|(t, _)| *t == ty) {
                Some((_, prefix)) => format!("{prefix}-{base}"),
                None => return Err(format!("unknown dfn type '{ty}'")),
            },
        };
        if id.is_empty() {
            return Err(format!("the dfn text {primary:?} gives an empty anchor"));
        }
        Ok(id)
    }
}

/// Bikeshed's `splitForValues`: commas separate values, except inside parentheses.
pub fn split_for_values(text: &str) -> Vec<String> {
    let mut values = Vec::new();
    let mut depth = 0i32;
    let mut current = String::new();
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if c == ',' && depth <= 0 {
            values.push(std::mem::take(&mut current));
        } else {
            current.push(c);
        }
    }
    values.push(current);
    values
        .into_iter()
        .map(|v| super::normalize::collapse_whitespace(&v))
        .filter(|v| !v.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dfn(ty: &str, dfn_for: Option<&str>, text: &str) -> DfnInfo {
        DfnInfo {
            id: None,
            dfn_type: ty.into(),
            dfn_for: dfn_for.map(Into::into),
            lt: None,
            text: text.into(),
        }
    }

    #[test]
    fn generated_anchors() {
        let cases = [
            (
                dfn("dfn", None, "perform an observation"),
                "perform-an-observation",
            ),
            (
                dfn(
                    "method",
                    Some("ModelContext"),
                    "registerTool(tool, options)",
                ),
                "dom-modelcontext-registertool",
            ),
            (
                dfn("attribute", Some("Document"), "modelContext"),
                "dom-document-modelcontext",
            ),
            (
                dfn("dfn", Some("model context"), "unregister a tool"),
                "model-context-unregister-a-tool",
            ),
            (
                dfn("event", Some("ModelContext"), "toolchange"),
                "eventdef-modelcontext-toolchange",
            ),
            (dfn("permission", None, "tools"), "permissiondef-tools"),
            (dfn("dfn", None, "browser’s agent"), "browsers-agent"),
            (
                dfn("dfn", None, "is origin potentially trustworthy?"),
                "is-origin-potentially-trustworthy",
            ),
            (
                dfn("dfn", Some("Document"), "associated ModelContext"),
                "document-associated-modelcontext",
            ),
        ];
        for (d, want) in cases {
            assert_eq!(d.anchor().unwrap(), want, "{d:?}");
        }
    }

    #[test]
    fn explicit_id_and_lt() {
        let mut d = dfn("dfn", None, "whatever");
        d.lt = Some("first name|second".into());
        assert_eq!(d.anchor().unwrap(), "first-name");
        d.id = Some("my-id".into());
        assert_eq!(d.anchor().unwrap(), "my-id");
    }

    #[test]
    fn member_without_for_is_refused() {
        assert!(dfn("method", None, "f()").anchor().is_err());
    }
}
