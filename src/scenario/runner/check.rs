//! Checking a subtest's expectations: reading values as the harness does (no algorithm step
//! runs), comparing them, and what a run came to.

use super::*;
use crate::host::promise::PromiseState;
use crate::script::ast::{Expr, LogPart};
use crate::script::bindings;

/// An observation's tool map as an expectation compares it: each document's label and its
/// tools' names.
type ToolNames = Vec<(String, Vec<String>)>;

impl<'a> SubtestRun<'a> {
    pub(super) fn record(
        &mut self,
        action: &Action,
        passed: bool,
        expected: String,
        actual: String,
    ) {
        self.record_observed(action, passed, expected, actual, None);
    }

    /// Records an expectation a page can check too, with what it read.
    pub(super) fn record_observed(
        &mut self,
        action: &Action,
        passed: bool,
        expected: String,
        actual: String,
        observed: Option<String>,
    ) {
        self.world.mark(crate::engine::trace::Mark::Expectation {
            index: self.expectations.len(),
            line: action.line,
            text: action.text.clone(),
            passed,
        });
        self.expectations.push(ExpectationResult {
            line: action.line,
            column: action.column,
            text: action.text.clone(),
            sometimes: false,
            permitted: Vec::new(),
            passed,
            expected,
            actual,
            observed,
        });
    }

    pub(super) fn check(&mut self, action: &Action, kind: &ExpectKind) -> Result<(), LineError> {
        match kind {
            ExpectKind::Value {
                actual,
                expected,
                equal,
            } => {
                let a = self.eval(actual)?;
                let e = self.eval(expected)?;
                let same = values_match(&a, &e);
                let expected = if *equal {
                    self.show(&e)
                } else {
                    format!("not {}", self.show(&e))
                };
                let actual = self.show(&a);
                let observed = Some(a.canonical());
                self.record_observed(action, same == *equal, expected, actual, observed);
            }
            // `expect o pending` for an observation `o`.
            ExpectKind::Promise {
                promise: Expr::Name(n),
                state: PromiseExpect::Pending,
            } if self.observations.contains_key(n) => {
                return self.check(action, &ExpectKind::ObservationPending { name: n.clone() });
            }
            ExpectKind::Promise { promise, state } => {
                let v = self.eval(promise)?;
                let Value::Promise(p) = v else {
                    return Err(LineError::NotAPromise(self.world.describe_value(&v)));
                };
                // Its value as it is now: a script may have changed an object after settling
                // the promise with it (see `script::heap`).
                let actual_state = match self.world.promise_state(p) {
                    PromiseState::Fulfilled(v) => PromiseState::Fulfilled(self.now(v)?),
                    PromiseState::Rejected(v) => PromiseState::Rejected(self.now(v)?),
                    PromiseState::Pending => PromiseState::Pending,
                };
                let actual = self.show_state(&actual_state);
                // What a page's check reads: the state, and the value or the error's name
                // where the expectation names one and the state is the one expected.
                let observed = match (state, &actual_state) {
                    (PromiseExpect::Fulfilled(Some(_)), PromiseState::Fulfilled(v)) => {
                        format!("fulfilled {}", v.canonical())
                    }
                    (PromiseExpect::Rejected(Some(_)), PromiseState::Rejected(v)) => format!(
                        "rejected {}",
                        error_name(v).unwrap_or_else(|| "undefined".into())
                    ),
                    (_, PromiseState::Pending) => "pending".into(),
                    (_, PromiseState::Fulfilled(_)) => "fulfilled".into(),
                    (_, PromiseState::Rejected(_)) => "rejected".into(),
                };
                let (passed, expected) = match (state, &actual_state) {
                    (PromiseExpect::Pending, PromiseState::Pending) => {
                        (true, "pending".to_string())
                    }
                    (PromiseExpect::Pending, _) => (false, "pending".to_string()),
                    (PromiseExpect::Fulfilled(None), s) => {
                        (matches!(s, PromiseState::Fulfilled(_)), "fulfilled".into())
                    }
                    (PromiseExpect::Fulfilled(Some(e)), s) => {
                        let ev = self.eval(e)?;
                        let ok = matches!(s, PromiseState::Fulfilled(v) if values_match(v, &ev));
                        (ok, format!("fulfilled with {}", self.show(&ev)))
                    }
                    (PromiseExpect::Rejected(None), s) => {
                        (matches!(s, PromiseState::Rejected(_)), "rejected".into())
                    }
                    (PromiseExpect::Rejected(Some(name)), s) => {
                        let ok = matches!(s, PromiseState::Rejected(v) if error_name(v).as_deref() == Some(name.as_str()));
                        (ok, format!("rejected with {name}"))
                    }
                };
                self.record_observed(action, passed, expected, actual, Some(observed));
            }
            ExpectKind::Log(expect) => {
                let lines: Vec<String> = self.world.log().iter().map(|l| l.text.clone()).collect();
                let actual = format!("{lines:?}");
                let observed = match expect {
                    LogExpect::Exactly(_) | LogExpect::OneOf(_) => {
                        Value::Array(lines.iter().map(Value::string).collect()).canonical()
                    }
                    LogExpect::Contains(s) | LogExpect::Lacks(s) => if lines.contains(s) {
                        "present"
                    } else {
                        "absent"
                    }
                    .to_string(),
                };
                let (passed, expected) = match expect {
                    LogExpect::Exactly(want) => (lines == *want, format!("{want:?}")),
                    LogExpect::OneOf(orders) => (
                        orders.contains(&lines),
                        format!(
                            "one of {}",
                            orders
                                .iter()
                                .map(|o| format!("{o:?}"))
                                .collect::<Vec<_>>()
                                .join(" or ")
                        ),
                    ),
                    LogExpect::Contains(s) => {
                        (lines.iter().any(|l| l == s), format!("a line {s:?}"))
                    }
                    LogExpect::Lacks(s) => {
                        (!lines.iter().any(|l| l == s), format!("no line {s:?}"))
                    }
                };
                self.record_observed(action, passed, expected, actual, Some(observed));
            }
            ExpectKind::Observation {
                name,
                outcome,
                after,
            } => {
                let o = self.observation(name)?;
                let expected = match after {
                    Some(ms) => format!("{} after {ms}ms", outcome.name()),
                    None => outcome.name().to_string(),
                };
                let (passed, actual) = match self.world.observation_result(o) {
                    None => (false, "not finished".to_string()),
                    Some(r) => (
                        r.outcome == *outcome && after.is_none_or(|ms| ms == r.waited_ms),
                        format!("{} after {}ms", r.outcome.name(), r.waited_ms),
                    ),
                };
                self.record(action, passed, expected, actual);
            }
            ExpectKind::ObservationTools { name, tools } => {
                let o = self.observation(name)?;
                let expected = show_tool_map(tools.as_deref());
                // Not finished; finished with no tool map (it returned early); or its map.
                let actual_map = self.observed_tool_names(o);
                let (passed, actual) = match actual_map {
                    None => (false, "not finished".into()),
                    Some(m) => {
                        let sorted = |m: &Option<ToolNames>| {
                            m.clone().map(|mut v| {
                                v.sort();
                                v
                            })
                        };
                        (sorted(&m) == sorted(tools), show_tool_map(m.as_deref()))
                    }
                };
                self.record(action, passed, expected, actual);
            }
            ExpectKind::ObservationOrigins { name, origins } => {
                let o = self.observation(name)?;
                let show = |m: &[(String, String)]| {
                    let mut m = m.to_vec();
                    m.sort();
                    let parts: Vec<String> = m.iter().map(|(d, o)| format!("{d}: {o:?}")).collect();
                    format!("{{{}}}", parts.join(", "))
                };
                let expected = show(origins);
                let actual = match self.world.observation_result(o) {
                    None => "not finished".to_string(),
                    Some(r) => match &r.tool_map {
                        None => "none (no tool map: the observation returned early)".into(),
                        Some(m) => show(
                            &m.iter()
                                .map(|d| (d.document.clone(), d.origin.clone()))
                                .collect::<Vec<_>>(),
                        ),
                    },
                };
                self.record(action, actual == expected, expected, actual);
            }
            ExpectKind::ObservationPending { name } => {
                let o = self.observation(name)?;
                let actual = match self.world.observation_result(o) {
                    None => "pending".to_string(),
                    Some(r) => format!(
                        "finished {} after {}ms at {}ms",
                        r.outcome.name(),
                        r.waited_ms,
                        r.ended_at
                    ),
                };
                self.record(action, actual == "pending", "pending".into(), actual);
            }
            ExpectKind::ObservationTime { name, which, ms } => {
                let o = self.observation(name)?;
                let expected = format!("{} at {ms}ms", which.name());
                let actual = match self.world.observation_result(o) {
                    None => match (which, self.world.observation(o).started_at) {
                        (ObservationMoment::Started, Some(t)) => Some(t),
                        _ => None,
                    },
                    Some(r) => Some(match which {
                        ObservationMoment::Started => r.started_at,
                        ObservationMoment::Ended => r.ended_at,
                    }),
                };
                let (passed, actual) = match actual {
                    Some(t) => (t == *ms, format!("{} at {t}ms", which.name())),
                    None => (false, format!("not {} yet", which.name())),
                };
                self.record(action, passed, expected, actual);
            }
            ExpectKind::Finding { anchor, step } => {
                self.expected_findings
                    .insert((anchor.clone(), step.clone()));
                let found = self
                    .world
                    .findings()
                    .iter()
                    .any(|f| f.anchor == anchor && f.step == step);
                let actual = if found {
                    format!("finding at {anchor} step {step}")
                } else {
                    self.show_findings()
                };
                self.record(
                    action,
                    found,
                    format!("finding at {anchor} step {step}"),
                    actual,
                );
            }
            ExpectKind::NoFindings => {
                let none = self.world.findings().is_empty();
                let actual = self.show_findings();
                self.record(action, none, "no findings".into(), actual);
            }
            ExpectKind::Uncaught(name) => {
                self.expected_uncaught.insert(name.clone());
                let found = self
                    .world
                    .uncaught_errors()
                    .iter()
                    .any(|u| u.error.split(':').next() == Some(name));
                let actual: Vec<String> = self
                    .world
                    .uncaught_errors()
                    .iter()
                    .map(|u| u.error.clone())
                    .collect();
                self.record_observed(
                    action,
                    found,
                    format!("uncaught {name}"),
                    format!("{actual:?}"),
                    Some(if found { "uncaught" } else { "none" }.into()),
                );
            }
            ExpectKind::Time(ms) => {
                let now = self.world.now();
                self.record(action, now == *ms, format!("{ms}ms"), format!("{now}ms"));
            }
        }
        Ok(())
    }

    pub(super) fn observation(&self, name: &str) -> Result<ObservationKey, LineError> {
        self.observations
            .get(name)
            .copied()
            .ok_or_else(|| LineError::NoObservation(name.into()))
    }

    pub(super) fn show_findings(&self) -> String {
        let f: Vec<String> = self
            .world
            .findings()
            .iter()
            .map(|f| f.to_string())
            .collect();
        if f.is_empty() {
            "no findings".into()
        } else {
            f.join("; ")
        }
    }

    pub(super) fn show(&self, v: &Value) -> String {
        match v {
            Value::Array(items) => format!(
                "[{}]",
                items
                    .iter()
                    .map(|i| self.show(i))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            other => self.world.describe_value(other),
        }
    }

    pub(super) fn show_state(&self, s: &PromiseState) -> String {
        match s {
            PromiseState::Pending => "pending".into(),
            PromiseState::Fulfilled(v) => format!("fulfilled with {}", self.show(v)),
            PromiseState::Rejected(v) => format!("rejected with {}", self.world.display_value(v)),
        }
    }

    /// A value with its objects as they are now (see `script::heap`), within the budgets a
    /// value the script makes is held to.
    fn now(&self, v: &Value) -> Result<Value, LineError> {
        let out = self
            .world
            .script
            .heap
            .resolved(v)
            .ok_or(LineError::TooDeep)?;
        if !out.ptr_eq_top(v)
            && crate::host::budget::check_value(&out, &self.world.budgets).is_err()
        {
            return Err(LineError::TooDeep);
        }
        Ok(out)
    }

    /// Reads a value for an expectation, without running any algorithm step.
    pub(super) fn eval(&self, e: &Expr) -> Result<Value, LineError> {
        Ok(match e {
            Expr::Literal(v) => v.fresh(),
            // The harness reads objects as their current versions (see `script::heap`).
            Expr::Name(n) => match self.world.lookup(n) {
                Some(v) => self.now(v)?,
                None => match self.observations.get(n) {
                    Some(o) => self.observation_value(*o),
                    None => return Err(LineError::Unbound(n.clone())),
                },
            },
            Expr::Member(target, prop) => {
                let t = self.eval(target)?;
                let t = self.world.version_of(&t);
                bindings::harness_get(&self.world, &t, prop)?
            }
            Expr::Index(target, index) => {
                let t = self.eval(target)?;
                let t = self.world.version_of(&t);
                let i = self.eval(index)?;
                bindings::index(&t, &i).ok_or_else(|| {
                    LineError::BadIndex(
                        self.world.describe_value(&t),
                        self.world.describe_value(&i),
                    )
                })?
            }
            Expr::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|i| self.eval(i))
                    .collect::<Result<_, _>>()?,
            ),
            Expr::Template(parts) => {
                let mut text = String::new();
                for part in parts {
                    match part {
                        LogPart::Text(t) => text.push_str(t),
                        LogPart::Expr(e) => text.push_str(&self.eval(e)?.to_js_string()),
                    }
                }
                Value::String(text)
            }
            Expr::Not(e) => Value::Bool(!crate::host::webidl::to_boolean(&self.eval(e)?)),
            Expr::StrictEquals {
                left,
                right,
                negated,
            } => {
                let (l, r) = (self.eval(left)?, self.eval(right)?);
                match self.world.is_strictly_equal(&l, &r) {
                    Some(same) => Value::Bool(same != *negated),
                    None => return Err(LineError::NoIdentity),
                }
            }
            // The harness runs in the test page (the first page's realm), as the export does.
            Expr::InstanceOf {
                value,
                realm,
                interface,
            } => {
                let v = self.eval(value)?;
                let Some(current) = crate::script::instance::harness_realm(&self.world) else {
                    return Err(LineError::NotAReading);
                };
                let realm = match realm {
                    None => current,
                    Some(e) => match self.eval(e)? {
                        Value::Window(d, _) => self.world.window_proxy_window(d),
                        other => {
                            return Err(LineError::NotAWindow(self.world.describe_value(&other)))
                        }
                    },
                };
                Value::Bool(crate::script::instance::instance_of(
                    &self.world,
                    &v,
                    current,
                    realm,
                    interface,
                ))
            }
            Expr::Object(props) => Value::Object(
                props
                    .iter()
                    .map(|(k, v)| Ok((k.clone(), self.eval(v)?)))
                    .collect::<Result<_, LineError>>()?,
            ),
            Expr::Global { name, args } => {
                let args = args
                    .iter()
                    .map(|a| self.eval(a))
                    .collect::<Result<Vec<_>, _>>()?;
                bindings::build_value(&self.world, name, &args).ok_or(LineError::NotAReading)?
            }
            // `DOC.querySelector(selectors)` runs no step: the harness reads it as a page would.
            Expr::Call {
                target,
                method,
                args,
            } if method == "querySelector" => {
                let Value::Window(d, _) = self.eval(target)? else {
                    return Err(LineError::NotAReading);
                };
                let selectors = match args.first() {
                    Some(a) => self.eval(a)?,
                    None => Value::Undefined,
                };
                bindings::query_selector(&self.world, d, &selectors)
                    .map_err(|e| LineError::Selector(self.world.display_value(&e)))?
            }
            Expr::Call { .. } | Expr::Callback(_) => return Err(LineError::NotAReading),
        })
    }

    /// An observation as an expectation reads it (`o.tools.top[0].description`,
    /// `o.tools.child["search"].inputSchema`): `{finished: false}` until it has finished, then
    /// `{finished, outcome, waited, startedAt, endedAt, tools, origins}`, where `tools` maps
    /// each observed document's name to its tools' definitions as the agent was given them
    /// (`name`, `title` or null, `description`, `inputSchema` as an object or undefined,
    /// `annotations` when given) and `origins` each document's serialized origin; both are
    /// null when the observation returned early, with no tool map.
    fn observation_value(&self, o: ObservationKey) -> Value {
        let Some(r) = self.world.observation_result(o) else {
            return Value::object(vec![("finished".into(), Value::Bool(false))]);
        };
        let tool = |t: &crate::webmcp::observation::ObservedTool| {
            let mut props = vec![
                ("name".to_string(), Value::string(&t.name)),
                (
                    "title".into(),
                    t.title.as_deref().map_or(Value::Null, Value::string),
                ),
                ("description".into(), Value::string(&t.description)),
                (
                    "inputSchema".into(),
                    Value::from_json_str(&t.input_schema).unwrap_or(Value::Undefined),
                ),
            ];
            if let Some(a) = &t.annotations {
                if let Ok(json) = serde_json::to_value(a) {
                    props.push(("annotations".into(), Value::from_json(&json)));
                }
            }
            Value::object(props)
        };
        let (tools, origins) = match &r.tool_map {
            None => (Value::Null, Value::Null),
            Some(m) => (
                Value::object(
                    m.iter()
                        .map(|d| {
                            (
                                d.document.clone(),
                                Value::array(d.tools.iter().map(tool).collect()),
                            )
                        })
                        .collect(),
                ),
                Value::object(
                    m.iter()
                        .map(|d| (d.document.clone(), Value::string(&d.origin)))
                        .collect(),
                ),
            ),
        };
        Value::object(vec![
            ("finished".into(), Value::Bool(true)),
            ("outcome".into(), Value::string(r.outcome.name())),
            ("waited".into(), Value::number(r.waited_ms as f64)),
            ("startedAt".into(), Value::number(r.started_at as f64)),
            ("endedAt".into(), Value::number(r.ended_at as f64)),
            ("tools".into(), tools),
            ("origins".into(), origins),
        ])
    }

    /// What a finished observation saw: each document's tool names (none when it returned
    /// early); none when it has not finished.
    fn observed_tool_names(&self, o: ObservationKey) -> Option<Option<ToolNames>> {
        self.world.observation_result(o).map(|r| {
            r.tool_map.as_ref().map(|m| {
                m.iter()
                    .map(|d| {
                        (
                            d.document.clone(),
                            d.tools.iter().map(|t| t.name.clone()).collect(),
                        )
                    })
                    .collect()
            })
        })
    }

    /// What the run came to, for the side-by-side table of `run --profile a,b`.
    pub(super) fn outcome(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for name in self.world.names() {
            let v = self.world.lookup(name).cloned().unwrap_or(Value::Undefined);
            match v {
                Value::Window(d, _) => {
                    out.push((
                        format!("{name}.toolsReady"),
                        self.world.tools_ready(d).to_string(),
                    ));
                    out.push((
                        format!("{name}.tools"),
                        format!("{:?}", self.world.tool_names(d)),
                    ));
                }
                Value::Promise(p) => out.push((
                    name.to_string(),
                    self.show_state(self.world.promise_state(p)),
                )),
                _ => {}
            }
        }
        for (name, o) in &self.observations {
            // How it ended, and what it saw: the tools of each document, in the order of the
            // tree.
            let r = match (
                self.world.observation_result(*o),
                self.observed_tool_names(*o),
            ) {
                (Some(r), Some(m)) => format!(
                    "{} after {}ms: {}",
                    r.outcome.name(),
                    r.waited_ms,
                    show_tool_map(m.as_deref())
                ),
                _ => "not finished".into(),
            };
            out.push((format!("observation {name}"), r));
        }
        let log: Vec<&str> = self.world.log().iter().map(|l| l.text.as_str()).collect();
        out.push(("log".into(), format!("{log:?}")));
        let findings: Vec<String> = self
            .world
            .findings()
            .iter()
            .map(|f| format!("{} {}", f.anchor, f.step))
            .collect();
        out.push(("findings".into(), format!("{findings:?}")));
        out
    }
}

fn error_name(v: &Value) -> Option<String> {
    match v {
        Value::Error(e) => Some(e.name.clone()),
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// Value equality for expectations: an expected error with no message matches any error of
/// that name.
fn values_match(actual: &Value, expected: &Value) -> bool {
    match (actual, expected) {
        (Value::Error(a), Value::Error(e)) if e.message.is_empty() => a.name == e.name,
        // Errors, arrays and objects compare as values, whatever realm made them.
        (Value::Error(a), Value::Error(e)) => **a == **e,
        (Value::Array(a), Value::Array(e)) => {
            a.len() == e.len() && a.iter().zip(e).all(|(x, y)| values_match(x, y))
        }
        (Value::Object(a), Value::Object(e)) => {
            a.len() == e.len()
                && e.iter()
                    .all(|(k, ev)| a.iter().any(|(ak, av)| ak == k && values_match(av, ev)))
        }
        _ => actual == expected,
    }
}

fn show_tool_map(m: Option<&[(String, Vec<String>)]>) -> String {
    match m {
        None => "none (no tool map: the observation returned early)".into(),
        Some(m) => {
            let parts: Vec<String> = m.iter().map(|(d, t)| format!("{d}: {t:?}")).collect();
            format!("{{{}}}", parts.join(", "))
        }
    }
}
