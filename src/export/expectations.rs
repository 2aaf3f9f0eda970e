//! An expectation as a check of the exported test: `w.check(line, text, () => assertion)`,
//! the assertion written with testharness.js's asserts or the world's (for patterns, promise
//! states, logs). An expectation a page cannot check is left out.

use super::origins::string_mapped;
use super::translate::Translator;
use crate::scenario::ast::{Action, ExpectKind, Expectation, LogExpect, PromiseExpect};
use crate::script::emit::{omit, Emit, Mode, Omit};
use crate::script::js;

impl Translator<'_> {
    pub(super) fn expectation(&mut self, action: &Action, e: &Expectation) -> Result<(), Omit> {
        let check = self.check_body(&e.kind)?;
        let asynchronous = check.contains("await ");
        let options = if e.sometimes {
            ", {sometimes: true}"
        } else {
            ""
        };
        self.code.line(format!(
            "await w.check({}, {}, {}() => {check}{options});",
            action.line,
            js::string(&action.text.split_whitespace().collect::<Vec<_>>().join(" ")),
            if asynchronous { "async " } else { "" }
        ));
        self.checks += 1;
        Ok(())
    }

    fn check_body(&self, kind: &ExpectKind) -> Result<String, Omit> {
        Ok(match kind {
            ExpectKind::Value {
                actual,
                expected,
                equal,
            } => {
                if root_name(actual).is_some_and(|n| self.scene.observations.contains(n)) {
                    return Err(omit(
                        "observe",
                        "the browser agent's observation has no page API",
                    ));
                }
                let a = self.scene.expr(actual, &[], Mode::Actual)?;
                let x = self.scene.expr(expected, &[], Mode::Expected)?;
                format!("w.assert_value({a}, {x}, {equal})")
            }
            ExpectKind::Promise { promise, state } => {
                let p = self.scene.expr(promise, &[], Mode::Actual)?;
                match state {
                    PromiseExpect::Pending => format!("w.assert_promise({p}, \"pending\")"),
                    PromiseExpect::Fulfilled(None) => {
                        format!("w.assert_promise({p}, \"fulfilled\")")
                    }
                    PromiseExpect::Fulfilled(Some(v)) => format!(
                        "w.assert_promise({p}, \"fulfilled\", {})",
                        self.scene.expr(v, &[], Mode::Expected)?
                    ),
                    PromiseExpect::Rejected(None) => format!("w.assert_promise({p}, \"rejected\")"),
                    PromiseExpect::Rejected(Some(name)) => format!(
                        "w.assert_promise({p}, \"rejected\", {})",
                        string_mapped(name)
                    ),
                }
            }
            ExpectKind::Log(expect) => match expect {
                LogExpect::Exactly(lines) => format!(
                    "w.assert_log([{}])",
                    lines
                        .iter()
                        .map(|l| js::string(l))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                LogExpect::OneOf(orders) => format!(
                    "w.assert_log_in([{}])",
                    orders
                        .iter()
                        .map(|o| format!(
                            "[{}]",
                            o.iter()
                                .map(|l| js::string(l))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                LogExpect::Contains(l) => format!("w.assert_log_has({})", js::string(l)),
                LogExpect::Lacks(l) => format!("w.assert_log_lacks({})", js::string(l)),
            },
            ExpectKind::Observation { .. }
            | ExpectKind::ObservationTools { .. }
            | ExpectKind::ObservationOrigins { .. }
            | ExpectKind::ObservationPending { .. }
            | ExpectKind::ObservationTime { .. } => {
                return Err(omit(
                    "observe",
                    "the browser agent's observation has no page API",
                ))
            }
            ExpectKind::Finding { .. } | ExpectKind::NoFindings => {
                return Err(omit(
                    "findings",
                    "a finding is about the spec's text, which no page can see",
                ))
            }
            ExpectKind::Uncaught(name) => format!("w.assert_uncaught({})", js::string(name)),
            ExpectKind::Time(_) => {
                return Err(omit(
                    "time",
                    "the virtual clock: the exported test runs in real time",
                ))
            }
        })
    }
}

/// The name a path of members and indices starts from (`o` in `o.tools.top[0]`).
fn root_name(e: &crate::script::ast::Expr) -> Option<&str> {
    use crate::script::ast::Expr;
    match e {
        Expr::Name(n) => Some(n),
        Expr::Member(t, _) | Expr::Index(t, _) => root_name(t),
        _ => None,
    }
}
