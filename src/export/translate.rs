//! A subtest's lines, as the statements of a `promise_test`.
//!
//! Each line becomes a call on the test's world (`w`, resources/webmcp-ref.js) or plain
//! JavaScript; names the scenario binds live on `s`. A line a page cannot do by itself is left
//! out: an observation or an expectation the page cannot check is left out alone; a line that
//! changes the world (a second page, bfcache, closing the page, a loading document) is left out
//! with every line after it, so that nothing exported tests something else.

use crate::host::value::ECMA_ERRORS;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::js;
use crate::engine::profile::Profile;
use crate::host::value::{ErrorKind, Value};
use crate::scenario::ast::{
    Action, ActionKind, ExpectKind, Expectation, LogExpect, PromiseExpect, RunKind, ScenarioFile,
    Subtest, ThenableKind,
};
use crate::scenario::runner::{applies, Next, RunOptions, SubtestRun};
use crate::script::ast::{Block, Branch, CallbackBody, Expr, LogPart, StmtKind};

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

/// Why a line is not exported.
struct Omit {
    kind: &'static str,
    why: String,
}

fn omit(kind: &'static str, why: impl Into<String>) -> Omit {
    Omit {
        kind,
        why: why.into(),
    }
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
}

#[derive(Clone, Debug)]
struct DocInfo {
    /// One of js::SCENARIO_ORIGINS.
    origin: &'static str,
    parent: Option<String>,
    removed: bool,
}

/// The statements written so far, with their indentation.
#[derive(Default)]
struct Code {
    lines: Vec<String>,
    depth: usize,
}

impl Code {
    /// Adds a statement; a text of several lines (a function written in an expression) keeps
    /// its own indentation under this one.
    fn line(&mut self, text: impl AsRef<str>) {
        let indent = "  ".repeat(self.depth);
        for l in text.as_ref().split('\n') {
            self.lines.push(format!("{indent}{l}"));
        }
    }
}

/// Where an expression is: in a script block, the value an expectation reads, or the value it
/// expects.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Script,
    Actual,
    Expected,
}

struct Translator<'a> {
    file: &'a ScenarioFile,
    profile: &'a Profile,
    docs: BTreeMap<String, DocInfo>,
    page: Option<String>,
    /// The document each declared promise or thenable belongs to.
    realms: BTreeMap<String, String>,
    observations: BTreeSet<String>,
    code: Code,
    left_out: Vec<LeftOut>,
    cut: Option<u32>,
    checks: usize,
    frames: usize,
    /// The exported lines that act on the world, for the engine's timing of each drive.
    reduced: Vec<Action>,
    /// For each `run`/`flush`: its index in `reduced` and its placeholder in `code`.
    drives: Vec<(usize, usize)>,
}

/// Translates one subtest under a profile.
pub fn translate(file: &ScenarioFile, subtest: &Subtest, profile: &Profile) -> Translated {
    let mut t = Translator {
        file,
        profile,
        docs: BTreeMap::new(),
        page: None,
        realms: BTreeMap::new(),
        observations: BTreeSet::new(),
        code: Code::default(),
        left_out: Vec::new(),
        cut: None,
        checks: 0,
        frames: 0,
        reduced: Vec::new(),
        drives: Vec::new(),
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
        if let Err(o) = t.action(action) {
            // Undo what the line wrote before it failed.
            t.code.lines.truncate(mark);
            t.reduced.truncate(reduced);
            t.drives.truncate(drives);
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
    }
}

/// The origin of a scenario URL, if it is one the export maps.
fn mapped_origin(url: &str) -> Option<&'static str> {
    let parsed = url::Url::parse(url).ok()?;
    let origin = parsed.origin().ascii_serialization();
    js::SCENARIO_ORIGINS.iter().copied().find(|o| *o == origin)
}

/// Whether a block (not its nested callbacks) awaits.
fn awaits(block: &Block) -> bool {
    block
        .stmts
        .iter()
        .any(|s| matches!(s.kind, StmtKind::Eval { awaited: true, .. }))
}

/// Whether an expression names any of `names`.
fn mentions(e: &Expr, names: &[&str]) -> bool {
    match e {
        Expr::Name(n) => names.contains(&n.as_str()),
        Expr::Member(t, _) => mentions(t, names),
        Expr::Index(t, i) => mentions(t, names) || mentions(i, names),
        Expr::Call { target, args, .. } => {
            mentions(target, names) || args.iter().any(|a| mentions(a, names))
        }
        Expr::Global { args, .. } => args.iter().any(|a| mentions(a, names)),
        Expr::Object(props) => props.iter().any(|(_, v)| mentions(v, names)),
        Expr::Array(items) => items.iter().any(|i| mentions(i, names)),
        Expr::Callback(CallbackBody::Returns(e) | CallbackBody::Throws(e)) => mentions(e, names),
        _ => false,
    }
}

impl<'a> Translator<'a> {
    fn comment(&mut self, action: &Action) {
        self.code.line(format!(
            "// {}: {}",
            action.line,
            js::comment(action.text.trim())
        ));
    }

    fn doc(&self, name: &str) -> Result<&DocInfo, Omit> {
        self.docs.get(name).ok_or_else(|| {
            omit(
                "unsupported",
                format!("`{name}` is not a document of the exported test"),
            )
        })
    }

    fn is_page(&self, name: &str) -> bool {
        self.page.as_deref() == Some(name)
    }

    /// Whether a document is on the test page's origin (its script reaches it directly).
    fn same_origin(&self, name: &str) -> bool {
        self.docs
            .get(name)
            .is_some_and(|d| d.origin == js::SCENARIO_ORIGINS[0])
    }

    fn mark_removed(&mut self, name: &str) {
        let mut gone = vec![name.to_string()];
        while let Some(n) = gone.pop() {
            if let Some(d) = self.docs.get_mut(&n) {
                d.removed = true;
            }
            for (child, d) in &self.docs {
                if d.parent.as_deref() == Some(n.as_str()) && !d.removed {
                    gone.push(child.clone());
                }
            }
        }
    }

    fn action(&mut self, action: &Action) -> Result<(), Omit> {
        match &action.kind {
            ActionKind::Page {
                name,
                url,
                loading,
                policy,
                site_keyed,
            } => {
                if self.page.is_some() {
                    return Err(omit(
                        "a second page",
                        "a second top-level page: the exported test is one page, with its iframes",
                    ));
                }
                if mapped_origin(url) != Some(js::SCENARIO_ORIGINS[0]) {
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
                    return Err(omit(
                        "site-keyed",
                        "a site-keyed agent cluster is set by the server's headers, not by the page",
                    ));
                }
                if policy.is_some() {
                    return Err(omit(
                        "policy",
                        "a Permissions-Policy header on the test page is the server's, not the page's",
                    ));
                }
                self.comment(action);
                self.code.line(format!("w.page({});", js::string(name)));
                self.page = Some(name.clone());
                self.docs.insert(
                    name.clone(),
                    DocInfo {
                        origin: js::SCENARIO_ORIGINS[0],
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
            } => {
                self.doc(parent)?;
                let Some(origin) = mapped_origin(url) else {
                    return Err(omit(
                        "origin",
                        "an origin other than https://a.test, https://b.test and https://c.test",
                    ));
                };
                if *loading {
                    return Err(omit(
                        "loading",
                        "an iframe whose document stays loading until the scenario says",
                    ));
                }
                if policy.is_some() {
                    return Err(omit(
                        "policy",
                        "a Permissions-Policy header on the iframe's document",
                    ));
                }
                self.comment(action);
                let options = match allow {
                    Some(a) => format!(", {{allow: {}}}", js::string(a)),
                    None => String::new(),
                };
                self.code.line(format!(
                    "await w.frame({}, {}, {}{options});",
                    js::string(name),
                    js::string(parent),
                    js::string(url)
                ));
                self.docs.insert(
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
                self.doc(realm)?;
                let settle = match settled {
                    None => String::new(),
                    Some((fulfilled, e)) => format!(
                        ", {{{}: {}}}",
                        if *fulfilled { "fulfilled" } else { "rejected" },
                        self.expr(e, &[], Mode::Script)?
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
                self.doc(realm)?;
                let behaviour = match kind {
                    ThenableKind::Keep => String::new(),
                    ThenableKind::Resolves(e, after) => format!(
                        ", {{resolves: {}{}}}",
                        self.expr(e, &[], Mode::Script)?,
                        after.map_or(String::new(), |ms| format!(", after: {ms}"))
                    ),
                    ThenableKind::Rejects(e, after) => format!(
                        ", {{rejects: {}{}}}",
                        self.expr(e, &[], Mode::Script)?,
                        after.map_or(String::new(), |ms| format!(", after: {ms}"))
                    ),
                    ThenableKind::Throws(e) => {
                        format!(", {{throws: {}}}", self.expr(e, &[], Mode::Script)?)
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
                self.doc(realm)?;
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
                self.doc(&realm)?;
                let mut body = Code {
                    lines: Vec::new(),
                    depth: self.code.depth + 1,
                };
                std::mem::swap(&mut body, &mut self.code);
                let result = self.block(block, &[]);
                std::mem::swap(&mut body, &mut self.code);
                result?;
                self.comment(action);
                let asynchronous = completion.is_some() || awaits(block);
                self.code.line(format!(
                    "w.task({}, {}(s, w) => {{",
                    js::string(&realm),
                    if asynchronous { "async " } else { "" }
                ));
                self.code.lines.extend(body.lines);
                match completion {
                    Some(name) => self
                        .code
                        .line(format!("}}, {{as: {}}});", js::string(name))),
                    None => self.code.line("});"),
                }
                self.note_removals(block);
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
                if self.is_page(name) {
                    return Err(omit("remove", "the test page is not in an iframe"));
                }
                self.doc(name)?;
                self.comment(action);
                self.code
                    .line(format!("w.remove({});", js::member("s", name)));
                self.mark_removed(name);
                self.reduced.push(action.clone());
            }
            ActionKind::Navigate {
                from,
                url,
                label,
                keep_in_bfcache,
            } => {
                self.navigate_checks(from, url, *keep_in_bfcache)?;
                self.comment(action);
                self.code.line(format!(
                    "w.navigate({}, {}, {});",
                    js::member("s", from),
                    js::string(url),
                    js::string(label)
                ));
                self.navigated(from, url, label);
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
                self.observations.insert(name.clone());
                return Err(omit(
                    "observe",
                    "the browser agent's observation (perform an observation) has no page API",
                ));
            }
            ActionKind::Expect(e) => {
                if !applies(&e.tags, self.profile) {
                    return Ok(());
                }
                self.expectation(action, e)?;
            }
            #[allow(unreachable_patterns)]
            _ => {
                return Err(omit(
                    "unsupported",
                    format!("`{}` has no equivalent in a page", action.text.trim()),
                ))
            }
        }
        Ok(())
    }

    fn navigate_checks(&self, from: &str, url: &str, bfcache: bool) -> Result<(), Omit> {
        if self.is_page(from) {
            return Err(omit(
                "navigate the page",
                "navigating the test page away from the test",
            ));
        }
        if bfcache {
            return Err(omit("bfcache", "a document kept in the back/forward cache"));
        }
        self.doc(from)?;
        if mapped_origin(url).is_none() {
            return Err(omit(
                "origin",
                "an origin other than https://a.test, https://b.test and https://c.test",
            ));
        }
        Ok(())
    }

    fn navigated(&mut self, from: &str, url: &str, label: &str) {
        let parent = self.docs.get(from).and_then(|d| d.parent.clone());
        if let Some(d) = self.docs.get_mut(from) {
            d.removed = true;
        }
        if let Some(origin) = mapped_origin(url) {
            self.docs.insert(
                label.to_string(),
                DocInfo {
                    origin,
                    parent,
                    removed: false,
                },
            );
        }
    }

    /// Removals and navigations a task's script makes, so that later expectations know.
    fn note_removals(&mut self, block: &Block) {
        for s in &block.stmts {
            match &s.kind {
                StmtKind::Remove(Expr::Name(n)) => self.mark_removed(n),
                StmtKind::Navigate {
                    from: Expr::Name(n),
                    url,
                    label,
                    ..
                } => {
                    let (n, url, label) = (n.clone(), url.clone(), label.clone());
                    self.navigated(&n, &url, &label);
                }
                _ => {}
            }
        }
    }

    /// The realm of the promise or thenable a `resolve p` line settles.
    fn realm_of_settled(&self, block: &Arc<Block>) -> Result<String, Omit> {
        let target = match block.stmts.first().map(|s| &s.kind) {
            Some(StmtKind::Resolve { target, .. } | StmtKind::Reject { target, .. }) => target,
            _ => return Err(omit("unsupported", "a task without a document")),
        };
        match target {
            Expr::Name(n) => self
                .realms
                .get(n)
                .cloned()
                .or_else(|| self.page.clone())
                .ok_or_else(|| omit("unsupported", "a resolve before any page")),
            _ => self
                .page
                .clone()
                .ok_or_else(|| omit("unsupported", "a resolve before any page")),
        }
    }

    /// Writes a block's statements (the caller has opened the function).
    fn block(&mut self, block: &Block, locals: &[String]) -> Result<(), Omit> {
        for stmt in &block.stmts {
            self.statement(&stmt.kind, locals)?;
        }
        Ok(())
    }

    /// Writes a function whose body is `block`: `head` is `w.guard(event => {` or the like,
    /// `tail` what closes it.
    fn function(
        &mut self,
        head: String,
        params: &[&str],
        block: &Block,
        locals: &[String],
        tail: &str,
    ) -> Result<(), Omit> {
        let mut inner = locals.to_vec();
        inner.extend(params.iter().map(|p| p.to_string()));
        self.code.line(head);
        self.code.depth += 1;
        let r = self.block(block, &inner);
        self.code.depth -= 1;
        r?;
        self.code.line(tail);
        Ok(())
    }

    fn arrow(params: &[String], block: &Block) -> String {
        let list = match params.len() {
            1 => params[0].clone(),
            _ => format!("({})", params.join(", ")),
        };
        format!("{}{list} => {{", if awaits(block) { "async " } else { "" })
    }

    fn name_ref(&self, name: &str, locals: &[String]) -> String {
        if locals.iter().any(|l| l == name) {
            js::local(name)
        } else {
            js::member("s", name)
        }
    }

    fn statement(&mut self, stmt: &StmtKind, locals: &[String]) -> Result<(), Omit> {
        #[allow(unreachable_patterns)]
        match stmt {
            StmtKind::Eval {
                bind,
                awaited,
                expr,
            } => {
                let value = self.expr(expr, locals, Mode::Script)?;
                let value = if *awaited {
                    format!("await {value}")
                } else {
                    value
                };
                match bind {
                    Some(name) => {
                        let target = self.name_ref(name, locals);
                        self.code.line(format!("{target} = {value};"));
                    }
                    None => self.code.line(format!("{value};")),
                }
            }
            StmtKind::Log(parts) => {
                let mut text = String::new();
                for part in parts {
                    match part {
                        LogPart::Text(t) => text.push_str(&js::template_text(t)),
                        LogPart::Expr(e) => {
                            text.push_str(&format!(
                                "${{w.show({})}}",
                                self.expr(e, locals, Mode::Script)?
                            ));
                        }
                    }
                }
                self.code.line(format!("w.log(`{text}`);"));
            }
            StmtKind::Return(e) => {
                let v = self.expr(e, locals, Mode::Script)?;
                self.code.line(format!("return {v};"));
            }
            StmtKind::Throw(e) => {
                let v = self.expr(e, locals, Mode::Script)?;
                self.code.line(format!("throw {v};"));
            }
            StmtKind::Resolve { target, value } | StmtKind::Reject { target, value } => {
                let which = if matches!(stmt, StmtKind::Resolve { .. }) {
                    "resolve"
                } else {
                    "reject"
                };
                let t = self.expr(target, locals, Mode::Script)?;
                match value {
                    Expr::Literal(Value::Undefined) => self.code.line(format!("w.{which}({t});")),
                    v => {
                        let v = self.expr(v, locals, Mode::Script)?;
                        self.code.line(format!("w.{which}({t}, {v});"));
                    }
                }
            }
            StmtKind::Remove(e) => {
                if let Expr::Name(n) = e {
                    if self.is_page(n) {
                        return Err(omit("remove", "the test page is not in an iframe"));
                    }
                }
                let d = self.expr(e, locals, Mode::Script)?;
                self.code.line(format!("w.remove({d});"));
            }
            StmtKind::Navigate {
                from,
                url,
                label,
                keep_in_bfcache,
            } => {
                let Expr::Name(n) = from else {
                    return Err(omit("unsupported", "a navigation of a computed document"));
                };
                self.navigate_checks(n, url, *keep_in_bfcache)?;
                let d = self.expr(from, locals, Mode::Script)?;
                self.code.line(format!(
                    "w.navigate({d}, {}, {});",
                    js::string(url),
                    js::string(label)
                ));
                let label = label.clone();
                let origin = mapped_origin(url);
                if let Some(origin) = origin {
                    let parent = self.docs.get(n).and_then(|d| d.parent.clone());
                    self.docs.entry(label).or_insert(DocInfo {
                        origin,
                        parent,
                        removed: false,
                    });
                }
            }
            StmtKind::After { ms, body } => {
                let head = format!("setTimeout(w.guard({}", Self::arrow(&[], body));
                self.function(head, &[], body, locals, &format!("}}), {ms});"))?;
            }
            StmtKind::On {
                target,
                event,
                once,
                body,
            } => {
                let t = self.event_target(target, locals)?;
                let head = format!(
                    "{t}.addEventListener({}, w.guard({}",
                    js::string(event),
                    Self::arrow(&["event".to_string()], body)
                );
                let tail = if *once { "}), {once: true});" } else { "}));" };
                self.function(head, &["event"], body, locals, tail)?;
            }
            StmtKind::SetHandler {
                target,
                event,
                body,
            } => {
                let t = self.event_target(target, locals)?;
                let attribute = js::member(&t, &format!("on{event}"));
                match body {
                    None => self.code.line(format!("{attribute} = null;")),
                    Some(body) => {
                        let head = format!(
                            "{attribute} = w.guard({}",
                            Self::arrow(&["event".to_string()], body)
                        );
                        self.function(head, &["event"], body, locals, "});")?;
                    }
                }
            }
            StmtKind::Then {
                promise,
                branch,
                bind,
                body,
            } => {
                let p = self.expr(promise, locals, Mode::Script)?;
                let param = bind.clone().unwrap_or_else(|| "value".into());
                let arrow = Self::arrow(&[js::local(&param)], body);
                match branch {
                    Branch::Fulfilled => self.function(
                        format!("Promise.resolve({p}).then(w.guard({arrow}"),
                        &[&param],
                        body,
                        locals,
                        "}));",
                    )?,
                    Branch::Rejected => self.function(
                        format!("Promise.resolve({p}).then(undefined, w.guard({arrow}"),
                        &[&param],
                        body,
                        locals,
                        "}));",
                    )?,
                    Branch::Settled => {
                        self.code.line("{");
                        self.code.depth += 1;
                        self.function(
                            format!("const settled = w.guard({arrow}"),
                            &[&param],
                            body,
                            locals,
                            "});",
                        )?;
                        self.code
                            .line(format!("Promise.resolve({p}).then(settled, settled);"));
                        self.code.depth -= 1;
                        self.code.line("}");
                    }
                }
            }
            _ => {
                return Err(omit(
                    "unsupported",
                    "a script statement the export does not know",
                ))
            }
        }
        Ok(())
    }

    /// An event target: a document names its ModelContext, `DOC.window` its Window.
    fn event_target(&self, target: &Expr, locals: &[String]) -> Result<String, Omit> {
        let is_doc = |n: &String| self.docs.contains_key(n) && !locals.contains(n);
        match target {
            Expr::Name(n) if is_doc(n) => Ok(format!("{}.modelContext", js::member("s", n))),
            Expr::Member(inner, prop) => match (inner.as_ref(), prop.as_str()) {
                (Expr::Name(n), "window") if is_doc(n) => {
                    Ok(format!("{}.window", js::member("s", n)))
                }
                (Expr::Name(n), "modelContext") if is_doc(n) => {
                    Ok(format!("{}.modelContext", js::member("s", n)))
                }
                _ => self.expr(target, locals, Mode::Script),
            },
            _ => self.expr(target, locals, Mode::Script),
        }
    }

    /// A document name, unless a local of that name hides it.
    fn doc_name<'e>(&self, e: &'e Expr, locals: &[String]) -> Option<&'e str> {
        match e {
            Expr::Name(n) if self.docs.contains_key(n) && !locals.contains(n) => Some(n),
            // `top.modelContext` and `top.window` name the same document.
            Expr::Member(inner, p) if p == "modelContext" || p == "window" => {
                match inner.as_ref() {
                    Expr::Name(n) if self.docs.contains_key(n) && !locals.contains(n) => Some(n),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn expr(&self, e: &Expr, locals: &[String], mode: Mode) -> Result<String, Omit> {
        #[allow(unreachable_patterns)]
        Ok(match e {
            Expr::Literal(v) => self.value(v, mode)?,
            Expr::Name(n) => {
                if locals.contains(n) {
                    js::local(n)
                } else if self.observations.contains(n) {
                    return Err(omit("observe", format!("it reads the observation `{n}`")));
                } else {
                    js::member("s", n)
                }
            }
            Expr::Member(target, prop) => {
                if let Some(doc) = self.doc_name(target, locals) {
                    return self.document_member(doc, prop, mode);
                }
                let t = self.expr(target, locals, mode)?;
                match prop.as_str() {
                    "state" if mode != Mode::Script => format!("w.state({t})"),
                    "interface" => format!("w.interface_of({t})"),
                    "target" => format!("w.target_label({t})"),
                    _ => js::member(&t, prop),
                }
            }
            Expr::Index(target, index) => {
                let t = self.expr(target, locals, mode)?;
                match index.as_ref() {
                    Expr::Literal(Value::Number(n)) if n.0 >= 0.0 && n.0.fract() == 0.0 => {
                        format!("{t}[{}]", js::number(n.0))
                    }
                    other => format!("w.index({t}, {})", self.expr(other, locals, mode)?),
                }
            }
            Expr::Call {
                target,
                method,
                args,
            } => {
                if mode != Mode::Script {
                    return Err(omit("unsupported", "an expectation that calls a method"));
                }
                let mut values = Vec::new();
                for a in args {
                    values.push(self.expr(a, locals, mode)?);
                }
                if let Some(doc) = self.doc_name(target, locals) {
                    if method == "registerTool" && self.is_page(doc) {
                        values = self.with_cleanup_signal(args, values, locals)?;
                    }
                    format!(
                        "{}.modelContext.{}({})",
                        js::member("s", doc),
                        method,
                        values.join(", ")
                    )
                } else {
                    let t = self.expr(target, locals, mode)?;
                    format!("{}({})", js::member(&t, method), values.join(", "))
                }
            }
            Expr::Global { name, args } => self.global(name, args, locals, mode)?,
            Expr::Object(props) => {
                let mut parts = Vec::new();
                for (k, v) in props {
                    parts.push(format!("{}: {}", js::key(k), self.expr(v, locals, mode)?));
                }
                format!("{{{}}}", parts.join(", "))
            }
            Expr::Array(items) => {
                let mut parts = Vec::new();
                for i in items {
                    parts.push(self.expr(i, locals, mode)?);
                }
                format!("[{}]", parts.join(", "))
            }
            Expr::Callback(body) => {
                if mode != Mode::Script {
                    return Err(omit("unsupported", "a callback outside a script"));
                }
                self.callback(body, locals)?
            }
            _ => {
                return Err(omit(
                    "unsupported",
                    "an expression the export does not know",
                ))
            }
        })
    }

    /// A registration on the test page without a signal gets the subtest's cleanup signal, so
    /// that the next subtest starts with no tool (each scenario subtest has a fresh world;
    /// the exported subtests share one page). It is never aborted while the subtest runs.
    fn with_cleanup_signal(
        &self,
        args: &[Expr],
        mut values: Vec<String>,
        locals: &[String],
    ) -> Result<Vec<String>, Omit> {
        let has_signal = |props: &[(String, bool)]| props.iter().any(|(k, _)| k == "signal");
        match args.get(1) {
            None => {
                if values.is_empty() {
                    values.push("undefined".into());
                }
                values.push("{signal: w.cleanup_signal}".into());
            }
            Some(Expr::Object(props)) => {
                let keys: Vec<(String, bool)> =
                    props.iter().map(|(k, _)| (k.clone(), true)).collect();
                if !has_signal(&keys) {
                    let mut parts = Vec::new();
                    for (k, v) in props {
                        parts.push(format!(
                            "{}: {}",
                            js::key(k),
                            self.expr(v, locals, Mode::Script)?
                        ));
                    }
                    parts.push("signal: w.cleanup_signal".into());
                    values[1] = format!("{{{}}}", parts.join(", "));
                }
            }
            Some(Expr::Literal(Value::Object(props))) => {
                if !props.iter().any(|(k, _)| k == "signal") {
                    let mut parts = Vec::new();
                    for (k, v) in props {
                        parts.push(format!("{}: {}", js::key(k), self.value(v, Mode::Script)?));
                    }
                    parts.push("signal: w.cleanup_signal".into());
                    values[1] = format!("{{{}}}", parts.join(", "));
                }
            }
            Some(Expr::Literal(Value::Undefined)) => {
                values[1] = "{signal: w.cleanup_signal}".into();
            }
            Some(_) => {
                values[1] = format!("w.with_cleanup_signal({})", values[1]);
            }
        }
        Ok(values)
    }

    /// What an expectation (or a script) reads of a document.
    fn document_member(&self, doc: &str, prop: &str, mode: Mode) -> Result<String, Omit> {
        let info = self.doc(doc)?;
        let d = js::member("s", doc);
        let direct = self.same_origin(doc);
        if mode == Mode::Script {
            return Ok(match prop {
                "toolsReady" => format!("{d}.modelContext.toolsReady"),
                "modelContext" => format!("{d}.modelContext"),
                "window" => format!("{d}.window"),
                "document" => format!("{d}.document"),
                "origin" => format!("{d}.window.origin"),
                _ => return Err(omit("unsupported", format!("`{doc}.{prop}` in a script"))),
            });
        }
        Ok(match prop {
            "toolsReady" if direct => format!("{d}.modelContext.toolsReady"),
            "toolsReady" if info.removed => {
                return Err(omit(
                    "removed",
                    format!("`{doc}` is a removed cross-origin document, which nothing can ask"),
                ))
            }
            "toolsReady" => format!("(await w.read({d}, \"toolsReady\"))"),
            "tools" if info.removed => {
                return Err(omit(
                    "removed",
                    format!("the tool map of `{doc}`, a document no longer fully active, is not visible to a page"),
                ))
            }
            "tools" => format!("(await w.tool_names({d}))"),
            "pending" => {
                return Err(omit(
                    "pending",
                    "a document's pending tool readiness promises are not visible to a page",
                ))
            }
            "origin" => format!("w.doc_origin({d})"),
            "fullyActive" => format!("w.fully_active({d})"),
            "modelContext" => format!("{d}.modelContext"),
            "window" => format!("{d}.window"),
            _ => {
                return Err(omit(
                    "unsupported",
                    format!("`{doc}.{prop}` is not something a page can read"),
                ))
            }
        })
    }

    fn global(
        &self,
        name: &str,
        args: &[Expr],
        locals: &[String],
        mode: Mode,
    ) -> Result<String, Omit> {
        let mut values = Vec::new();
        for a in args {
            values.push(self.expr(a, locals, mode)?);
        }
        let arg = |i: usize| values.get(i).cloned().unwrap_or_else(|| "undefined".into());
        let is_error = name == "DOMException" || name.ends_with("Error");
        if mode == Mode::Expected {
            if !is_error {
                return Err(omit("unsupported", format!("`{name}()` in an expectation")));
            }
            // A pattern: an error of that name (and that message, when one is given).
            let (error_name, message) = if name == "DOMException" {
                (
                    values
                        .get(1)
                        .cloned()
                        .unwrap_or_else(|| js::string("Error")),
                    arg(0),
                )
            } else {
                (js::string(name), arg(0))
            };
            return Ok(if values.is_empty() {
                format!("webmcpRef.error({error_name})")
            } else {
                format!("webmcpRef.error({error_name}, {message})")
            });
        }
        if mode == Mode::Actual {
            return Err(omit(
                "unsupported",
                format!("`{name}()` read by an expectation"),
            ));
        }
        Ok(match name {
            "AbortController" => "new AbortController()".into(),
            "AbortSignal.abort" | "Promise.resolve" | "Promise.reject" => {
                format!("{name}({})", values.join(", "))
            }
            "DOMException" => format!("new DOMException({})", values.join(", ")),
            "Pending" => "new Promise(() => {})".into(),
            "Cyclic" => {
                "(() => { const cyclic = {}; cyclic.self = cyclic; return cyclic; })()".into()
            }
            "ToJSONUndefined" => "({toJSON() { return undefined; }})".into(),
            "Thenable" => "w.kept_thenable()".into(),
            n if n.ends_with("Error") => {
                if ECMA_ERRORS.contains(&n) {
                    format!("new {n}({})", values.join(", "))
                } else {
                    // An error name that is no ECMAScript constructor is a DOMException.
                    format!("new DOMException({}, {})", arg(0), js::string(n))
                }
            }
            other => {
                return Err(omit(
                    "unsupported",
                    format!("`{other}()` has no JavaScript equivalent in the export"),
                ))
            }
        })
    }

    fn callback(&self, body: &CallbackBody, locals: &[String]) -> Result<String, Omit> {
        const PARAMS: [&str; 3] = ["input", "options", "signal"];
        let mut inner = locals.to_vec();
        inner.extend(PARAMS.iter().map(|p| p.to_string()));
        #[allow(unreachable_patterns)]
        Ok(match body {
            CallbackBody::Returns(e) => {
                if mentions(e, &PARAMS) {
                    format!(
                        "(input, options) => {{ const signal = options.signal; return {}; }}",
                        self.expr(e, &inner, Mode::Script)?
                    )
                } else {
                    format!(
                        "() => {}",
                        self.wrap_object(self.expr(e, locals, Mode::Script)?)
                    )
                }
            }
            CallbackBody::Throws(e) => {
                if mentions(e, &PARAMS) {
                    format!(
                        "(input, options) => {{ const signal = options.signal; throw {}; }}",
                        self.expr(e, &inner, Mode::Script)?
                    )
                } else {
                    format!("() => {{ throw {}; }}", self.expr(e, locals, Mode::Script)?)
                }
            }
            CallbackBody::Pending => "() => new Promise(() => {})".into(),
            CallbackBody::Script(block) => {
                // A named script runs as an async function of (input, options), with
                // `signal` = options.signal; written on one level so it reads as a function.
                let mut sub = Translator {
                    file: self.file,
                    profile: self.profile,
                    docs: self.docs.clone(),
                    page: self.page.clone(),
                    realms: self.realms.clone(),
                    observations: self.observations.clone(),
                    code: Code::default(),
                    left_out: Vec::new(),
                    cut: None,
                    checks: 0,
                    frames: 0,
                    reduced: Vec::new(),
                    drives: Vec::new(),
                };
                sub.code.depth = 1;
                sub.block(block, &inner)?;
                let mut text = String::from("async (input, options) => {\n");
                text.push_str("  const signal = options.signal;\n");
                for l in sub.code.lines {
                    text.push_str(&l);
                    text.push('\n');
                }
                text.push('}');
                text
            }
            _ => return Err(omit("unsupported", "a callback the export does not know")),
        })
    }

    /// An arrow function's concise body cannot start with `{`.
    fn wrap_object(&self, e: String) -> String {
        if e.starts_with('{') {
            format!("({e})")
        } else {
            e
        }
    }

    fn value(&self, v: &Value, mode: Mode) -> Result<String, Omit> {
        #[allow(unreachable_patterns)]
        Ok(match v {
            Value::Undefined => "undefined".into(),
            Value::Null => "null".into(),
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => js::number(n.0),
            Value::String(s) => js::string_mapped(s),
            Value::Array(items) => {
                let mut parts = Vec::new();
                for i in items {
                    parts.push(self.value(i, mode)?);
                }
                format!("[{}]", parts.join(", "))
            }
            Value::Object(props) => {
                let mut parts = Vec::new();
                for (k, v) in props {
                    parts.push(format!("{}: {}", js::key(k), self.value(v, mode)?));
                }
                format!("{{{}}}", parts.join(", "))
            }
            Value::Error(e) => match mode {
                Mode::Expected | Mode::Actual => {
                    if e.message.is_empty() {
                        format!("webmcpRef.error({})", js::string(&e.name))
                    } else {
                        format!(
                            "webmcpRef.error({}, {})",
                            js::string(&e.name),
                            js::string(&e.message)
                        )
                    }
                }
                Mode::Script => match e.kind {
                    ErrorKind::DomException => format!(
                        "new DOMException({}, {})",
                        js::string(&e.message),
                        js::string(&e.name)
                    ),
                    ErrorKind::Ecma => {
                        if e.message.is_empty() {
                            format!("new {}()", e.name)
                        } else {
                            format!("new {}({})", e.name, js::string(&e.message))
                        }
                    }
                },
            },
            _ => return Err(omit("unsupported", "a value that has no literal form")),
        })
    }

    fn expectation(&mut self, action: &Action, e: &Expectation) -> Result<(), Omit> {
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
        #[allow(unreachable_patterns)]
        Ok(match kind {
            ExpectKind::Value {
                actual,
                expected,
                equal,
            } => {
                let a = self.expr(actual, &[], Mode::Actual)?;
                let x = self.expr(expected, &[], Mode::Expected)?;
                let primitive = matches!(
                    expected,
                    Expr::Literal(
                        Value::Undefined
                            | Value::Null
                            | Value::Bool(_)
                            | Value::Number(_)
                            | Value::String(_)
                    )
                );
                match (primitive, equal) {
                    (true, true) => format!("assert_equals({a}, {x})"),
                    (true, false) => format!("assert_not_equals({a}, {x})"),
                    (false, true) => format!("w.assert_matches({a}, {x})"),
                    (false, false) => format!("w.assert_not_matches({a}, {x})"),
                }
            }
            ExpectKind::Promise { promise, state } => {
                let p = self.expr(promise, &[], Mode::Actual)?;
                match state {
                    PromiseExpect::Pending => format!("w.assert_promise({p}, \"pending\")"),
                    PromiseExpect::Fulfilled(None) => {
                        format!("w.assert_promise({p}, \"fulfilled\")")
                    }
                    PromiseExpect::Fulfilled(Some(v)) => format!(
                        "w.assert_promise({p}, \"fulfilled\", {})",
                        self.expr(v, &[], Mode::Expected)?
                    ),
                    PromiseExpect::Rejected(None) => format!("w.assert_promise({p}, \"rejected\")"),
                    PromiseExpect::Rejected(Some(name)) => format!(
                        "w.assert_promise({p}, \"rejected\", {})",
                        js::string_mapped(name)
                    ),
                }
            }
            ExpectKind::Log(expect) => match expect {
                LogExpect::Exactly(lines) => format!(
                    "assert_array_equals(w.log_lines(), [{}])",
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
                LogExpect::Contains(l) => {
                    format!("assert_in_array({}, w.log_lines())", js::string(l))
                }
                LogExpect::Lacks(l) => format!("w.assert_log_lacks({})", js::string(l)),
            },
            ExpectKind::Observation { .. } | ExpectKind::ObservationTools { .. } => {
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
            _ => {
                return Err(omit(
                    "unsupported",
                    "an expectation the export does not know",
                ))
            }
        })
    }

    /// Runs the exported lines in the engine (its default schedule, this profile) to learn
    /// how much virtual time each `run` covers and when the next timer is due after it, and
    /// writes each drive's call. Returns the virtual time at the end.
    fn fill_in_drives(&mut self, subtest: &Subtest) -> u64 {
        let mut from = 0;
        let options = RunOptions {
            profile: self.profile.clone(),
            ..RunOptions::default()
        };
        for i in 0..self.drives.len() {
            let (index, placeholder) = self.drives[i];
            let prefix = Subtest {
                name: subtest.name.clone(),
                line: subtest.line,
                actions: self.reduced[..=index].to_vec(),
            };
            let mut run = SubtestRun::new(self.file, &prefix, &options);
            while let Next::Choice(candidates) = run.advance() {
                run.take(&candidates, None);
            }
            let until = run.world.now();
            let next = run.world.next_timer_due();
            let indent = self.code.lines[placeholder]
                .chars()
                .take_while(|c| *c == ' ')
                .collect::<String>();
            let next_js = next.map_or("null".to_string(), |n| n.to_string());
            self.code.lines[placeholder] = format!(
                "{indent}await w.run({{from: {from}, until: {until}, next_timer: {next_js}}});"
            );
            from = until;
        }
        from
    }
}
