//! Acting on a subtest's lines: building the world, queueing its tasks, driving it.

use std::sync::Arc;

use super::*;
use crate::host::navigable::{DocumentOptions, Lifecycle};
use crate::host::promise::ThenBehaviour;

/// The sandboxing flags a line's `csp="..."` forces on its document.
fn forced_sandboxing(csp: &Option<Csp>) -> crate::host::iframe::SandboxFlags {
    csp.as_ref()
        .and_then(|c| c.policy.forced_sandboxing)
        .unwrap_or_default()
}

impl<'a> SubtestRun<'a> {
    /// Acts on one line. A line that drives the simulation starts a drive; the drive's end
    /// moves on to the next line.
    pub(super) fn act(&mut self, action: &'a Action) -> Result<(), LineError> {
        let profile = self.world.profile.clone();
        match &action.kind {
            ActionKind::Page {
                name,
                url,
                loading,
                policy,
                csp,
                site_keyed,
                opener,
            } => {
                let options = DocumentOptions {
                    loading: *loading,
                    tools_policy: policy.as_ref().map(|p| p.allowlist.clone()),
                    origin_keyed: site_keyed.then_some(false),
                    forced_sandboxing: forced_sandboxing(csp),
                };
                let opener = opener.as_deref().map(|o| self.doc(o)).transpose()?;
                self.world.open_page_in_group(name, url, opener, options)?;
            }
            ActionKind::Frame {
                name,
                parent,
                url,
                allow,
                loading,
                policy,
                csp,
                site_keyed,
            } => {
                let parent = self.doc(parent)?;
                let options = DocumentOptions {
                    loading: *loading,
                    tools_policy: policy.as_ref().map(|p| p.allowlist.clone()),
                    origin_keyed: site_keyed.then_some(false),
                    forced_sandboxing: forced_sandboxing(csp),
                };
                self.world
                    .add_iframe(parent, name, url, allow.as_deref(), options)?;
            }
            ActionKind::Promise {
                name,
                realm,
                settled,
            } => {
                let realm = self.doc(realm)?;
                let p = self.world.new_promise(realm);
                self.world.name_promise(p, name);
                self.world.bind(name, Value::Promise(p));
                if let Some((fulfilled, e)) = settled {
                    let v = self.eval(e)?;
                    if *fulfilled {
                        self.world.resolve_promise(p, v);
                    } else {
                        self.world.reject_promise(p, v);
                    }
                }
            }
            ActionKind::Thenable { name, realm, kind } => {
                let realm = self.doc(realm)?;
                let behaviour = match kind {
                    ThenableKind::Keep => ThenBehaviour::Keep,
                    ThenableKind::Resolves(e, None) => ThenBehaviour::Resolve(self.eval(e)?),
                    ThenableKind::Rejects(e, None) => ThenBehaviour::Reject(self.eval(e)?),
                    ThenableKind::Resolves(e, Some(delay)) => ThenBehaviour::Later {
                        reject: false,
                        value: self.eval(e)?,
                        delay: *delay,
                    },
                    ThenableKind::Rejects(e, Some(delay)) => ThenBehaviour::Later {
                        reject: true,
                        value: self.eval(e)?,
                        delay: *delay,
                    },
                    ThenableKind::Throws(e) => ThenBehaviour::Throw(self.eval(e)?),
                };
                let t = self.world.new_thenable(realm, name, behaviour);
                self.world.bind(name, Value::Thenable(t));
            }
            ActionKind::Controller { name, realm } => {
                let realm = self.doc(realm)?;
                let s = self.world.new_abort_controller(realm, name);
                self.world.bind(name, Value::Controller(s));
            }
            ActionKind::Task {
                realm,
                completion,
                block,
            } => {
                let doc = if realm.is_empty() {
                    self.realm_of_settled(block)?
                } else {
                    self.doc(realm)?
                };
                if self.world.scripting_is_disabled(doc) {
                    return Err(LineError::ScriptingDisabled(self.world.label(doc)));
                }
                let completion = completion.as_ref().map(|name| {
                    let p = self.world.new_promise(doc);
                    self.world.name_promise(p, name);
                    self.world.bind(name, Value::Promise(p));
                    p
                });
                self.world.queue_task(doc, block.clone(), completion);
            }
            ActionKind::Html { doc, markup } => {
                let d = self.doc(doc)?;
                // A document's markup is given once: a second block, even one queued while
                // the first has not been parsed yet, is an error at its line.
                let earlier = self.subtest.actions[..self.index].iter().find(
                    |a| matches!(&a.kind, ActionKind::Html { doc: other, .. } if other == doc),
                );
                if let Some(first) = earlier {
                    return Err(LineError::Markup(format!(
                        "{doc} was given its markup at line {}; a document's markup is given once",
                        first.line
                    )));
                }
                self.world
                    .queue_document_markup(d, markup)
                    .map_err(|e| LineError::Markup(e.to_string()))?;
            }
            ActionKind::Run(kind) => self.start_drive(*kind, None),
            ActionKind::Remove(name) => {
                let d = self.doc(name)?;
                self.world.remove_iframe(d)?;
            }
            ActionKind::Navigate {
                from,
                url,
                label,
                keep_in_bfcache,
            } => {
                let d = self.doc(from)?;
                self.world.navigate(d, url, label, *keep_in_bfcache)?;
            }
            ActionKind::Back(name) => {
                let d = self.doc(name)?;
                self.world.go_back(d)?;
            }
            ActionKind::Close(name) => {
                let d = self.doc(name)?;
                self.world.close(d)?;
            }
            ActionKind::Lifecycle { doc, load } => {
                let d = self.doc(doc)?;
                let stage = if *load {
                    Lifecycle::Complete
                } else {
                    Lifecycle::Interactive
                };
                self.world.queue_lifecycle(d, stage);
            }
            ActionKind::Observe { doc, name, expect } => {
                // `observe top => outcome [tags]` is a line for the tagged profiles only.
                if let Some(e) = expect {
                    if !applies(&e.tags, &profile) {
                        return Ok(());
                    }
                }
                let d = self.doc(doc)?;
                let o = self.world.observe(d, name);
                self.observations.insert(name.clone(), o);
                if expect.is_some() {
                    self.start_drive(RunKind::Idle, Some((o, self.index)));
                }
            }
            // Serving starts here; under `run`, the lines after it go on.
            ActionKind::Serve => {}
            ActionKind::Trigger { .. } => self.add_trigger(action),
            ActionKind::Expect(e) => {
                if applies(&e.tags, &profile) {
                    let before = self.expectations.len();
                    self.check(action, &e.kind)?;
                    if let Some(r) = self.expectations.get_mut(before) {
                        r.sometimes = e.sometimes;
                        if let ExpectKind::Log(LogExpect::OneOf(orders)) = &e.kind {
                            r.permitted = orders.iter().map(|o| format!("{o:?}")).collect();
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The realm of the promise or thenable a `resolve p` line settles.
    pub(super) fn realm_of_settled(
        &self,
        block: &Arc<crate::script::ast::Block>,
    ) -> Result<DocumentKey, LineError> {
        use crate::script::ast::StmtKind;
        let Some(StmtKind::Resolve { target, .. } | StmtKind::Reject { target, .. }) =
            block.stmts.first().map(|s| &s.kind)
        else {
            return Err(LineError::NothingToSettle);
        };
        match self.eval(target)? {
            Value::Promise(p) => Ok(self.world.promise(p).realm),
            Value::Thenable(t) => Ok(self.world.thenable_realm(t)),
            other => Err(LineError::NotSettleable(self.world.describe_value(&other))),
        }
    }
}
