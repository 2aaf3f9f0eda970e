//! A subtest's lines, as the statements of a `promise_test`.
//!
//! Each line becomes a call on the test's world (`w`, resources/webmcp-ref.js) or plain
//! JavaScript; names the scenario binds live on `s`. A line a page cannot do by itself is left
//! out: an observation or an expectation the page cannot check is left out alone; a line that
//! changes the world (a second page, bfcache, closing the page, a loading document) is left out
//! with every line after it, so that nothing exported tests something else.
//!
//! The subtest's lines are translated here, one by one ([`translate`]); the page script in
//! them is written by the script's own emission (`crate::script::emit`), expectations by
//! `expectations`, and the waits of each drive are timed by `drives`.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::origins::{mapped_origin, SCENARIO_ORIGINS};
use super::scene::{DocInfo, TestScene};
use crate::engine::profile::Profile;
use crate::scenario::ast::{
    Action, ActionKind, RunKind, ScenarioFile, Subtest, ThenableKind, Trigger,
};
use crate::scenario::runner::applies;
use crate::script::ast::{Block, Expr, StmtKind};
use crate::script::emit::{awaits, omit, Emit, JsCode, Mode, Omit, Scene};
use crate::script::js;

/// A line of the scenario that is not in the exported test.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LeftOut {
    pub line: u32,
    pub text: String,
    /// A short word for the subtest's name: `observe`, `findings`, `bfcache`...
    pub kind: &'static str,
    /// Why a page cannot do it.
    pub why: String,
}

/// A translated subtest.
pub struct Translated {
    /// The promise_test's body, a statement a line, indented by two spaces per level.
    pub body: Vec<String>,
    pub left_out: Vec<LeftOut>,
    /// A line that changes the world was left out, and every line after it.
    pub cut: bool,
    /// How many expectations were exported.
    pub checks: usize,
    /// The virtual time the exported lines cover (what the test waits, before its margins).
    pub virtual_ms: u64,
    pub drives: usize,
    pub frames: usize,
    /// The response headers the test page's `page` line asks for (its `csp="..."`), which the
    /// exported file gets from a `.headers` file beside it, as WPT's tests do.
    pub page_headers: Vec<(String, String)>,
}

/// The translation of a subtest, as far as it has come.
pub(super) struct Translator<'a> {
    pub(super) file: &'a ScenarioFile,
    pub(super) profile: &'a Profile,
    /// The test page's documents, as the lines so far have made them.
    pub(super) scene: TestScene,
    /// The document each declared promise or thenable belongs to.
    realms: BTreeMap<String, String>,
    pub(super) code: JsCode,
    left_out: Vec<LeftOut>,
    cut: Option<u32>,
    pub(super) checks: usize,
    frames: usize,
    /// The exported lines that act on the world, for the engine's timing of each drive.
    pub(super) reduced: Vec<Action>,
    /// For each `run`/`flush`: its index in `reduced` and its placeholder in `code`.
    pub(super) drives: Vec<(usize, usize)>,
    /// How many tasks have been exported: each carries its number, in this order, so that a
    /// drive can wait for the ones the engine's run had finished.
    pub(super) tasks: usize,
    /// The test is a crash test: it asserts nothing, so every expectation is left out.
    crash_test: bool,
    page_headers: Vec<(String, String)>,
}

/// Translates one subtest under a profile, for a testharness.js test or (`crash_test`) for a
/// crash test, which asserts nothing.
pub fn translate(
    file: &ScenarioFile,
    subtest: &Subtest,
    profile: &Profile,
    crash_test: bool,
) -> Translated {
    let mut t = Translator {
        file,
        profile,
        scene: TestScene::default(),
        realms: BTreeMap::new(),
        code: JsCode::default(),
        left_out: Vec::new(),
        cut: None,
        checks: 0,
        frames: 0,
        reduced: Vec::new(),
        drives: Vec::new(),
        tasks: 0,
        crash_test,
        page_headers: Vec::new(),
    };
    for action in &subtest.actions {
        if let Some(at) = t.cut {
            t.code.line(format!(
                "//   {}: {}",
                action.line,
                js::comment(action.text.trim())
            ));
            t.left_out.push(LeftOut {
                line: action.line,
                text: action.text.trim().to_string(),
                kind: "after",
                why: format!("follows line {at}, which is left out"),
            });
            continue;
        }
        let mark = t.code.lines.len();
        let reduced = t.reduced.len();
        let drives = t.drives.len();
        let tasks = t.tasks;
        if let Err(o) = t.action(action) {
            // Undo what the line wrote before it failed.
            t.code.lines.truncate(mark);
            t.reduced.truncate(reduced);
            t.drives.truncate(drives);
            t.tasks = tasks;
            let changes_world = !matches!(
                action.kind,
                ActionKind::Expect(_) | ActionKind::Observe { .. }
            );
            t.code.line(format!(
                "// {}: {}",
                action.line,
                js::comment(action.text.trim())
            ));
            if changes_world {
                t.code.line(format!(
                    "// Left out, with every line after it: {}.",
                    js::comment(&o.why)
                ));
                t.cut = Some(action.line);
            } else {
                t.code
                    .line(format!("// Left out: {}.", js::comment(&o.why)));
            }
            t.left_out.push(LeftOut {
                line: action.line,
                text: action.text.trim().to_string(),
                kind: o.kind,
                why: o.why,
            });
        }
    }
    let virtual_ms = t.fill_in_drives(subtest);
    Translated {
        body: t.code.lines,
        left_out: t.left_out,
        cut: t.cut.is_some(),
        checks: t.checks,
        virtual_ms,
        drives: t.drives.len(),
        frames: t.frames,
        page_headers: t.page_headers,
    }
}

impl Translator<'_> {
    fn comment(&mut self, action: &Action) {
        self.code.line(format!(
            "// {}: {}",
            action.line,
            js::comment(action.text.trim())
        ));
    }

    fn action(&mut self, action: &Action) -> Result<(), Omit> {
        match &action.kind {
            ActionKind::Page {
                name,
                url,
                loading,
                policy,
                csp,
                site_keyed,
                opener: _,
            } => {
                if self.scene.page.is_some() {
                    return Err(omit(
                        "a second page",
                        "a second top-level page: the exported test is one page, with its iframes",
                    ));
                }
                if mapped_origin(url) != Some(SCENARIO_ORIGINS[0]) {
                    return Err(omit(
                        "page origin",
                        "the test page's origin is https://a.test in the export",
                    ));
                }
                if *loading {
                    return Err(omit(
                        "loading",
                        "a test page that is still loading: the test's script runs in a page that has loaded",
                    ));
                }
                if *site_keyed {
                    // HTML: `Origin-Agent-Cluster: ?0` asks for a site-keyed agent cluster
                    // (the page's `window.originAgentCluster` is then false).
                    self.page_headers
                        .push(("Origin-Agent-Cluster".into(), "?0".into()));
                }
                if policy.is_some() {
                    return Err(omit(
                        "policy",
                        "a Permissions-Policy header on the test page is the server's, not the page's",
                    ));
                }
                if let Some(csp) = csp {
                    if csp
                        .policy
                        .forced_sandboxing
                        .is_some_and(|flags| flags.scripts)
                    {
                        return Err(omit(
                            "csp",
                            "a test page sandboxed without allow-scripts runs no script, the test's included",
                        ));
                    }
                    self.page_headers
                        .push(("Content-Security-Policy".into(), csp.header.clone()));
                }
                self.comment(action);
                self.code.line(format!("w.page({});", js::string(name)));
                self.scene.page = Some(name.clone());
                self.scene.docs.insert(
                    name.clone(),
                    DocInfo {
                        origin: SCENARIO_ORIGINS[0],
                        parent: None,
                        removed: false,
                    },
                );
                self.reduced.push(action.clone());
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
                if csp.is_some() {
                    return Err(omit(
                        "csp",
                        "an iframe sandboxed by its own header: the export's frame page talks to the test page as an origin it has, not an opaque one",
                    ));
                }
                let parent_origin = self.scene.doc(parent)?.origin;
                // An about:blank iframe has its parent's origin (HTML); the export makes one in
                // a document the test page reaches.
                let origin = match mapped_origin(url) {
                    Some(origin) => origin,
                    None if url == "about:blank" && parent_origin == SCENARIO_ORIGINS[0] => {
                        parent_origin
                    }
                    None => {
                        return Err(omit(
                            "origin",
                            "an origin other than https://a.test, https://b.test, https://c.test and http://b.test",
                        ))
                    }
                };
                if *loading {
                    return Err(omit(
                        "loading",
                        "an iframe whose document stays loading until the scenario says",
                    ));
                }
                self.comment(action);
                // The frame's Permissions-Policy and Origin-Agent-Cluster headers come with its
                // document, through wptserve's `pipe=header(...)`.
                let mut options: Vec<String> = Vec::new();
                if let Some(a) = allow {
                    options.push(format!("allow: {}", js::string(a)));
                }
                if let Some(p) = policy {
                    options.push(format!("policy: {}", js::string(&p.header)));
                }
                if *site_keyed {
                    options.push("site_keyed: true".into());
                }
                let options = if options.is_empty() {
                    String::new()
                } else {
                    format!(", {{{}}}", options.join(", "))
                };
                self.code.line(format!(
                    "await w.frame({}, {}, {}{options});",
                    js::string(name),
                    js::string(parent),
                    js::string(url)
                ));
                self.scene.docs.insert(
                    name.clone(),
                    DocInfo {
                        origin,
                        parent: Some(parent.clone()),
                        removed: false,
                    },
                );
                self.frames += 1;
                self.reduced.push(action.clone());
            }
            ActionKind::Promise {
                name,
                realm,
                settled,
            } => {
                self.scene.doc(realm)?;
                let settle = match settled {
                    None => String::new(),
                    Some((fulfilled, e)) => format!(
                        ", {{{}: {}}}",
                        if *fulfilled { "fulfilled" } else { "rejected" },
                        self.scene.expr(e, &[], Mode::Script)?
                    ),
                };
                self.comment(action);
                self.code.line(format!(
                    "w.promise({}, {}{settle});",
                    js::string(name),
                    js::string(realm)
                ));
                self.realms.insert(name.clone(), realm.clone());
                self.reduced.push(action.clone());
            }
            ActionKind::Thenable { name, realm, kind } => {
                self.scene.doc(realm)?;
                let behaviour = match kind {
                    ThenableKind::Keep => String::new(),
                    ThenableKind::Resolves(e, after) => format!(
                        ", {{resolves: {}{}}}",
                        self.scene.expr(e, &[], Mode::Script)?,
                        after.map_or(String::new(), |ms| format!(", after: {ms}"))
                    ),
                    ThenableKind::Rejects(e, after) => format!(
                        ", {{rejects: {}{}}}",
                        self.scene.expr(e, &[], Mode::Script)?,
                        after.map_or(String::new(), |ms| format!(", after: {ms}"))
                    ),
                    ThenableKind::Throws(e) => {
                        format!(", {{throws: {}}}", self.scene.expr(e, &[], Mode::Script)?)
                    }
                };
                self.comment(action);
                self.code.line(format!(
                    "w.thenable({}, {}{behaviour});",
                    js::string(name),
                    js::string(realm)
                ));
                self.realms.insert(name.clone(), realm.clone());
                self.reduced.push(action.clone());
            }
            ActionKind::Controller { name, realm } => {
                self.scene.doc(realm)?;
                self.comment(action);
                self.code.line(format!(
                    "w.controller({}, {});",
                    js::string(name),
                    js::string(realm)
                ));
                self.reduced.push(action.clone());
            }
            ActionKind::Task {
                realm,
                completion,
                block,
            } => {
                let realm = if realm.is_empty() {
                    self.realm_of_settled(block)?
                } else {
                    realm.clone()
                };
                self.scene.doc(&realm)?;
                let mut body = JsCode::at_depth(self.code.depth + 1);
                self.scene.block(&mut body, block, &[])?;
                self.comment(action);
                let asynchronous = completion.is_some() || awaits(block);
                self.code.line(format!(
                    "w.task({}, {}(s, w) => {{",
                    js::string(&realm),
                    if asynchronous { "async " } else { "" }
                ));
                self.code.lines.extend(body.lines);
                let task = self.tasks;
                self.tasks += 1;
                match completion {
                    Some(name) => self.code.line(format!(
                        "}}, {{as: {}, task: {task}}});",
                        js::string(name)
                    )),
                    None => self.code.line(format!("}}, {{task: {task}}});")),
                }
                self.scene.note_removals(block);
                self.reduced.push(action.clone());
            }
            ActionKind::Html { doc, markup } => {
                self.scene.doc(doc)?;
                // The markup is set where the line's task runs, not written into the test
                // page: the exported subtests share one page, so markup in the page would be
                // parsed before any subtest starts, its forms would be tools of every subtest,
                // and one subtest's changes to them would carry into the next. `w.html` queues
                // a task (a timer of the test page, as `w.task` does) that inserts the markup
                // at the end of DOC's body, so it comes after the tasks queued before the line
                // and before those queued after it, as the engine's networking task does; the
                // cleanup removes it. The page parses it as a fragment (insertAdjacentHTML):
                // its elements are inserted together, where the engine's document parser
                // inserts them one by one, which only changes how many toolchange events a
                // parsed form gives under declarative-registration-timing=sync. A cross-origin
                // frame is sent the markup in a message, in order with its tasks, and inserts it
                // at once (its frame page has no timer of the test page's to queue on).
                self.comment(action);
                self.code.line(format!(
                    "w.html({}, {});",
                    js::string(doc),
                    self.scene.string(markup)
                ));
                self.reduced.push(action.clone());
            }
            ActionKind::Run(kind) => {
                if let RunKind::Steps(_) = kind {
                    return Err(omit(
                        "step",
                        "`step`: a unit of work of the simulation has no equivalent in a page",
                    ));
                }
                self.comment(action);
                self.drives
                    .push((self.reduced.len(), self.code.lines.len()));
                self.code.line("\u{1}");
                self.reduced.push(action.clone());
            }
            ActionKind::Remove(name) => {
                if self.scene.is_page(name) {
                    return Err(omit("remove", "the test page is not in an iframe"));
                }
                self.scene.doc(name)?;
                self.comment(action);
                self.code
                    .line(format!("w.remove({});", js::member("s", name)));
                self.scene.mark_removed(name);
                self.reduced.push(action.clone());
            }
            ActionKind::Navigate {
                from,
                url,
                label,
                keep_in_bfcache,
            } => {
                self.scene.navigate_checks(from, url, *keep_in_bfcache)?;
                self.comment(action);
                self.code.line(format!(
                    "w.navigate({}, {}, {});",
                    js::member("s", from),
                    js::string(url),
                    js::string(label)
                ));
                self.scene.navigated(from, url, label);
                self.reduced.push(action.clone());
            }
            ActionKind::Back(_) => {
                return Err(omit(
                    "back",
                    "`back`: a traversal that restores a document from the back/forward cache",
                ))
            }
            ActionKind::Close(_) => {
                return Err(omit("close", "`close`: destroying a top-level traversable"))
            }
            ActionKind::Lifecycle { .. } => {
                return Err(omit(
                    "loading",
                    "DOMContentLoaded or load of a document that the scenario keeps loading",
                ))
            }
            ActionKind::Observe { name, expect, .. } => {
                if let Some(e) = expect {
                    if !applies(&e.tags, self.profile) {
                        return Ok(());
                    }
                }
                self.scene.observations.insert(name.clone());
                return Err(omit(
                    "observe",
                    "the browser agent's observation (perform an observation) has no page API",
                ));
            }
            ActionKind::Expect(e) => {
                if !applies(&e.tags, self.profile) {
                    return Ok(());
                }
                if self.crash_test {
                    return Err(omit(
                        "crash test",
                        "a crash test reports no assertion: WPT runs it to see that the browser does not crash",
                    ));
                }
                self.expectation(action, e)?;
            }
            ActionKind::Trigger {
                when: Trigger::At(ms),
                actions,
            } => {
                // `at 800ms:` becomes a real timer at that offset from the subtest's start;
                // its lines run in it. The engine times the drives with the block as one line.
                let reduced = self.reduced.len();
                self.code.line(format!("w.at({ms}, async () => {{"));
                self.code.depth += 1;
                for a in actions {
                    if matches!(a.kind, ActionKind::Run { .. }) {
                        return Err(omit(
                            "at",
                            "an `at` block that drives the simulation has no page equivalent",
                        ));
                    }
                    self.action(a)?;
                }
                self.code.depth -= 1;
                self.code.line("});");
                self.reduced.truncate(reduced);
                self.reduced.push(action.clone());
            }
            ActionKind::Trigger {
                when: Trigger::Exists(name),
                ..
            } => {
                return Err(omit(
                    "when",
                    format!("`when {name} exists` waits on the engine's name for a document a navigation makes"),
                ))
            }
            ActionKind::Serve => {
                return Err(omit(
                    "unsupported",
                    format!("`{}` has no equivalent in a page", action.text.trim()),
                ))
            }
        }
        Ok(())
    }

    /// The realm of the promise or thenable a `resolve p` line settles.
    fn realm_of_settled(&self, block: &Arc<Block>) -> Result<String, Omit> {
        let Some(StmtKind::Resolve { target, .. } | StmtKind::Reject { target, .. }) =
            block.stmts.first().map(|s| &s.kind)
        else {
            return Err(omit("unsupported", "a task without a document"));
        };
        // A promise computed by the line: the test page's realm.
        let declared = if let Expr::Name(n) = target {
            self.realms.get(n).cloned()
        } else {
            None
        };
        declared
            .or_else(|| self.scene.page.clone())
            .ok_or_else(|| omit("unsupported", "a resolve before any page"))
    }
}
