//! The arguments of the gateway's own tools (`webmcp_observe`, `webmcp_call`,
//! `webmcp_wait_for`), checked before a request reaches the driver. A problem is said in a
//! sentence the agent can act on.

use serde_json::{Map, Value};
use thiserror::Error;

use super::answers::quote;
use super::conditions::{
    Condition, ConditionName, Pattern, Support, DEFAULT_CALL_TIMEOUT_MS,
    DEFAULT_OBSERVE_TIMEOUT_MS, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, MIN_TIMEOUT_MS,
};

/// Which page a tool acts on: by name (the `page NAME` of the scenario, or its current top
/// document's name) or by id (1 for the first page opened); the first open page by default.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PageRef {
    pub name: Option<String>,
    pub id: Option<u64>,
}

/// A `webmcp_observe` call, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObserveArgs {
    pub timeout_ms: u64,
    pub page: PageRef,
}

/// A `webmcp_call` call, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct CallArgs {
    /// An MCP name of the page's tools, else a WebMCP name.
    pub tool: String,
    pub input: Value,
    pub timeout_ms: u64,
    pub page: PageRef,
}

/// A `webmcp_wait_for` call, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WaitArgs {
    pub condition: Condition,
    pub timeout_ms: u64,
    pub page: PageRef,
}

/// What is wrong with a tool's arguments.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ArgumentError {
    #[error("unknown argument {}; the arguments are `timeoutMs`, `page` and `pageId`", quote(.0))]
    UnknownObserveArgument(String),
    #[error("unknown argument {}; the arguments are `tool`, `input`, `timeoutMs`, `page` and `pageId`", quote(.0))]
    UnknownCallArgument(String),
    #[error("unknown argument {}; the arguments are {}", quote(.given), backquoted(&WAIT_FOR_ARGUMENTS))]
    UnknownWaitArgument { given: String },
    #[error("`tool` is blank: give the tool's name")]
    ToolBlank,
    #[error("`tool` is missing: give the tool's name")]
    ToolMissing,
    #[error("`tool` must be a string, not {}", shown(.0))]
    ToolNotAString(Value),
    #[error("`input` must be an object, not {}", shown(.0))]
    InputNotAnObject(Value),
    #[error("`page` is blank: give a page's name, or leave it out for the first page")]
    PageBlank,
    #[error("`page` must be a string (a page's name), not {}", shown(.0))]
    PageNotAString(Value),
    #[error("`pageId` must be a whole number from 1 (the first page opened), not {}", quote(&.0.to_string()))]
    PageIdOutOfRange(serde_json::Number),
    #[error("`pageId` must be a whole number from 1 (the first page opened), not {}", quote(.0))]
    PageIdText(String),
    #[error("`pageId` must be a whole number, not {}", shown(.0))]
    PageIdNotANumber(Value),
    #[error("`timeoutMs` must be a number of milliseconds (kept between {MIN_TIMEOUT_MS} and {MAX_TIMEOUT_MS}), not {}", shown(.0))]
    TimeoutNotANumber(Value),
    #[error("`{0}` is blank")]
    Blank(&'static str),
    #[error("`{key}` must be a string, not {}", shown(.value))]
    NotAString { key: &'static str, value: Value },
    #[error("`condition` is missing: give one of {}", backquoted(.offered))]
    ConditionMissing { offered: Vec<&'static str> },
    #[error("`condition` must be a string, one of {}; not {}", backquoted(.offered), shown(.value))]
    ConditionNotAString {
        value: Value,
        offered: Vec<&'static str>,
    },
    #[error("unknown condition {}: give one of {}", quote(.condition), backquoted(.offered))]
    UnknownCondition {
        condition: String,
        offered: Vec<&'static str>,
    },
    #[error("the served page does not support `{condition}`: nothing in it navigates (no `navigate`, `back` or `close`), so no navigation can ever be in progress; the conditions offered are {}", backquoted(.offered))]
    NotOffered {
        condition: &'static str,
        offered: Vec<&'static str>,
    },
    #[error("`ready` must be true or false, not {}", shown(.0))]
    ReadyNotABoolean(Value),
    #[error("`name` applies to the `tool` and `tool-gone` conditions only, not to `{0}`")]
    NameNotApplicable(&'static str),
    #[error("`{key}` applies to the `{applies_to}` condition only, not to `{condition}`")]
    NotApplicable {
        key: &'static str,
        applies_to: &'static str,
        condition: &'static str,
    },
    #[error("`ready` is not offered: under the served profile a `toolchange` event carries no `ready` (switch readiness-toolchange=none)")]
    ReadyNotOffered,
    #[error("`name` is blank: `{0}` needs a tool name (`*` matches any run of characters)")]
    NameBlank(&'static str),
    #[error("`name` is missing: `{0}` needs a tool name (`*` matches any run of characters)")]
    NameMissing(&'static str),
}

/// `webmcp_wait_for`'s arguments, in the order its messages list them.
const WAIT_FOR_ARGUMENTS: [&str; 7] = [
    "condition",
    "name",
    "url",
    "ready",
    "timeoutMs",
    "page",
    "pageId",
];

/// A value the agent gave, as JSON in a code span it cannot break out of.
fn shown(value: &Value) -> String {
    quote(&value.to_string())
}

/// "`a`, `b`, `c`", for messages.
fn backquoted(names: &[&str]) -> String {
    names
        .iter()
        .map(|c| format!("`{c}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Checks `webmcp_observe`'s arguments: `timeoutMs`, `page` / `pageId`.
pub fn observe_args(args: &Map<String, Value>) -> Result<ObserveArgs, ArgumentError> {
    const KNOWN: [&str; 3] = ["timeoutMs", "page", "pageId"];
    if let Some(k) = args.keys().find(|k| !KNOWN.contains(&k.as_str())) {
        return Err(ArgumentError::UnknownObserveArgument(k.clone()));
    }
    Ok(ObserveArgs {
        timeout_ms: timeout_ms(args, DEFAULT_OBSERVE_TIMEOUT_MS)?,
        page: page_ref(args)?,
    })
}

/// Checks `webmcp_call`'s arguments: `tool`, `input`, `timeoutMs`, `page` / `pageId`.
pub fn call_args(args: &Map<String, Value>) -> Result<CallArgs, ArgumentError> {
    const KNOWN: [&str; 5] = ["tool", "input", "timeoutMs", "page", "pageId"];
    if let Some(k) = args.keys().find(|k| !KNOWN.contains(&k.as_str())) {
        return Err(ArgumentError::UnknownCallArgument(k.clone()));
    }
    let tool = match args.get("tool") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_string(),
        Some(Value::String(_)) => return Err(ArgumentError::ToolBlank),
        None | Some(Value::Null) => return Err(ArgumentError::ToolMissing),
        Some(other) => return Err(ArgumentError::ToolNotAString(other.clone())),
    };
    let input = match args.get("input") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(o @ Value::Object(_)) => o.clone(),
        Some(other) => return Err(ArgumentError::InputNotAnObject(other.clone())),
    };
    Ok(CallArgs {
        tool,
        input,
        timeout_ms: timeout_ms(args, DEFAULT_CALL_TIMEOUT_MS)?,
        page: page_ref(args)?,
    })
}

/// Reads `page` / `pageId`.
pub fn page_ref(args: &Map<String, Value>) -> Result<PageRef, ArgumentError> {
    let name = match args.get("page") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Some(Value::String(_)) => return Err(ArgumentError::PageBlank),
        Some(other) => return Err(ArgumentError::PageNotAString(other.clone())),
    };
    let id = match args.get("pageId") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => match n.as_u64() {
            Some(id) if id >= 1 => Some(id),
            _ => return Err(ArgumentError::PageIdOutOfRange(n.clone())),
        },
        Some(Value::String(s)) => match s.trim().parse::<u64>() {
            Ok(id) if id >= 1 => Some(id),
            _ => return Err(ArgumentError::PageIdText(s.clone())),
        },
        Some(other) => return Err(ArgumentError::PageIdNotANumber(other.clone())),
    };
    Ok(PageRef { name, id })
}

/// Clamps `timeoutMs` to 100..=30000 (`default` when absent).
pub fn timeout_ms(args: &Map<String, Value>, default: u64) -> Result<u64, ArgumentError> {
    match args.get("timeoutMs") {
        None | Some(Value::Null) => Ok(default),
        Some(Value::Number(n)) => {
            let ms = n.as_f64().unwrap_or(default as f64).round();
            Ok((ms.max(0.0) as u64).clamp(MIN_TIMEOUT_MS, MAX_TIMEOUT_MS))
        }
        Some(other) => Err(ArgumentError::TimeoutNotANumber(other.clone())),
    }
}

fn text_arg(args: &Map<String, Value>, key: &'static str) -> Result<Option<String>, ArgumentError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Err(ArgumentError::Blank(key)),
        Some(Value::String(s)) => Ok(Some(s.trim().to_string())),
        Some(other) => Err(ArgumentError::NotAString {
            key,
            value: other.clone(),
        }),
    }
}

/// Checks a `webmcp_wait_for` call's arguments.
pub fn wait_args(args: &Map<String, Value>, support: &Support) -> Result<WaitArgs, ArgumentError> {
    let offered = support.conditions();
    if let Some(k) = args
        .keys()
        .find(|k| !WAIT_FOR_ARGUMENTS.contains(&k.as_str()))
    {
        return Err(ArgumentError::UnknownWaitArgument { given: k.clone() });
    }
    let condition = match args.get("condition") {
        None | Some(Value::Null) => return Err(ArgumentError::ConditionMissing { offered }),
        Some(Value::String(s)) => s.trim().to_string(),
        Some(other) => {
            return Err(ArgumentError::ConditionNotAString {
                value: other.clone(),
                offered,
            })
        }
    };
    let Some(kind) = ConditionName::parse(&condition) else {
        return Err(ArgumentError::UnknownCondition { condition, offered });
    };
    let condition = kind.name();
    if !support.offers(kind) {
        return Err(ArgumentError::NotOffered { condition, offered });
    }
    let name = text_arg(args, "name")?;
    let url = text_arg(args, "url")?;
    let ready = match args.get("ready") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(other) => return Err(ArgumentError::ReadyNotABoolean(other.clone())),
    };
    let only = |key: &'static str, given: bool, applies_to: ConditionName| {
        if given && kind != applies_to {
            Err(ArgumentError::NotApplicable {
                key,
                applies_to: applies_to.name(),
                condition,
            })
        } else {
            Ok(())
        }
    };
    let names_a_tool = match kind {
        ConditionName::Tool | ConditionName::ToolGone => true,
        ConditionName::ToolsReady | ConditionName::Navigation | ConditionName::Toolchange => false,
    };
    if !names_a_tool && name.is_some() {
        return Err(ArgumentError::NameNotApplicable(condition));
    }
    only("url", url.is_some(), ConditionName::Navigation)?;
    only("ready", ready.is_some(), ConditionName::Toolchange)?;
    if ready.is_some() && !support.toolchange_ready {
        return Err(ArgumentError::ReadyNotOffered);
    }
    let tool_name = || match (&name, args.get("name")) {
        (Some(name), _) => Ok(Pattern(name.clone())),
        (None, Some(Value::String(_))) => Err(ArgumentError::NameBlank(condition)),
        (None, _) => Err(ArgumentError::NameMissing(condition)),
    };
    let condition = match kind {
        ConditionName::ToolsReady => Condition::ToolsReady,
        ConditionName::Tool => Condition::Tool(tool_name()?),
        ConditionName::ToolGone => Condition::ToolGone(tool_name()?),
        ConditionName::Navigation => Condition::Navigation(url.map(Pattern)),
        ConditionName::Toolchange => Condition::Toolchange(ready),
    };
    Ok(WaitArgs {
        condition,
        timeout_ms: timeout_ms(args, DEFAULT_TIMEOUT_MS)?,
        page: page_ref(args)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: serde_json::Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    const ALL: Support = Support {
        navigation: true,
        toolchange_ready: true,
    };

    fn timeout_ms_of(a: &Map<String, Value>) -> Result<u64, ArgumentError> {
        timeout_ms(a, DEFAULT_TIMEOUT_MS)
    }

    #[test]
    fn timeouts_are_clamped() {
        assert_eq!(timeout_ms_of(&args(serde_json::json!({}))), Ok(5000));
        assert_eq!(
            timeout_ms_of(&args(serde_json::json!({"timeoutMs": 10}))),
            Ok(100)
        );
        assert_eq!(
            timeout_ms_of(&args(serde_json::json!({"timeoutMs": -5}))),
            Ok(100)
        );
        assert_eq!(
            timeout_ms_of(&args(serde_json::json!({"timeoutMs": 1e9}))),
            Ok(30000)
        );
        assert_eq!(
            timeout_ms_of(&args(serde_json::json!({"timeoutMs": 250.4}))),
            Ok(250)
        );
        assert_eq!(
            timeout_ms_of(&args(serde_json::json!({"timeoutMs": "5s"})))
                .unwrap_err()
                .to_string(),
            "`timeoutMs` must be a number of milliseconds (kept between 100 and 30000), not `\"5s\"`"
        );
    }

    #[test]
    fn arguments_are_checked() {
        let bad = |v| wait_args(&args(v), &ALL).unwrap_err().to_string();
        assert!(bad(serde_json::json!({})).contains("`condition` is missing"));
        assert!(
            bad(serde_json::json!({"condition": "stable"})).contains("unknown condition `stable`")
        );
        assert!(bad(serde_json::json!({"condition": "tool"})).contains("`name` is missing"));
        assert!(
            bad(serde_json::json!({"condition": "tool", "name": "  "})).contains("`name` is blank")
        );
        assert!(
            bad(serde_json::json!({"condition": "tools-ready", "url": "x"}))
                .contains("`url` applies")
        );
        assert!(
            bad(serde_json::json!({"condition": "tool", "name": "a", "selector": "x"}))
                .contains("unknown argument `selector`")
        );
        let none = Support {
            navigation: false,
            toolchange_ready: false,
        };
        let e = wait_args(&args(serde_json::json!({"condition": "navigation"})), &none)
            .unwrap_err()
            .to_string();
        assert!(e.contains("does not support `navigation`"));
        let e = wait_args(
            &args(serde_json::json!({"condition": "toolchange", "ready": true})),
            &none,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("`ready` is not offered"));
        let ok = wait_args(
            &args(serde_json::json!({"condition": "tool", "name": "search", "page": "top"})),
            &ALL,
        )
        .unwrap();
        assert_eq!(ok.condition, Condition::Tool(Pattern("search".into())));
        assert_eq!(ok.page.name.as_deref(), Some("top"));
    }
}
