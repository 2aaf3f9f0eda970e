//! `webmcp_wait_for`'s conditions: their arguments, what the page looks like to them, and
//! whether they hold.
//!
//! The tool is the seed's `wait-for` (seeds/wait-for-agent-tool-pr.txt) rebuilt for WebMCP:
//! its conditions read the simulated page (tools-ready, the tool maps, navigations, the
//! `toolchange` events) instead of a devtools collector's pushes.

use std::collections::BTreeMap;

use super::answers::Answer;
use super::tools::ToolNames;
use crate::engine::profile::Profile;
use crate::engine::world::World;
use crate::host::event_loop::TaskAction;
use crate::host::keys::{DocumentKey, NavigableKey};
use crate::host::parallel::ParallelStepKind;
use crate::prelude::*;
use crate::scenario::ast::{Action, ActionKind, Subtest};
use crate::scenario::runner::SubtestRun;
use crate::script::ast::{Block, CallbackBody, Expr, LogPart, StmtKind};
use crate::webmcp::switches::ReadinessToolchange;
use crate::webmcp::{ModelContextKey, ToolchangeCount};

/// The name of each condition, in the order the tool's schema lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConditionName {
    ToolsReady,
    Tool,
    ToolGone,
    Navigation,
    Toolchange,
}

impl ConditionName {
    pub const ALL: [ConditionName; 5] = [
        ConditionName::ToolsReady,
        ConditionName::Tool,
        ConditionName::ToolGone,
        ConditionName::Navigation,
        ConditionName::Toolchange,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ConditionName::ToolsReady => "tools-ready",
            ConditionName::Tool => "tool",
            ConditionName::ToolGone => "tool-gone",
            ConditionName::Navigation => "navigation",
            ConditionName::Toolchange => "toolchange",
        }
    }

    pub fn parse(name: &str) -> Option<ConditionName> {
        ConditionName::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// The default wait, and the range a given `timeoutMs` is clamped to.
pub const DEFAULT_TIMEOUT_MS: u64 = 5000;
/// An observation's default: room for the engine's own wait for tools to be ready (5 s)
/// and a little queueing behind other observations.
pub const DEFAULT_OBSERVE_TIMEOUT_MS: u64 = 10_000;
/// A page tool call's default.
pub const DEFAULT_CALL_TIMEOUT_MS: u64 = 30_000;
pub const MIN_TIMEOUT_MS: u64 = 100;
pub const MAX_TIMEOUT_MS: u64 = 30_000;

/// A name or URL pattern: `*` matches any run of characters; anything else matches itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern(pub String);

impl Pattern {
    pub fn matches(&self, text: &str) -> bool {
        glob(self.0.as_bytes(), text.as_bytes())
    }
}

fn glob(pattern: &[u8], text: &[u8]) -> bool {
    // Iterative wildcard matching with one backtrack point.
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && pattern[p] == b'*' {
            star = Some((p, t));
            p += 1;
        } else if p < pattern.len() && pattern[p] == text[t] {
            p += 1;
            t += 1;
        } else if let Some((sp, st)) = star {
            p = sp + 1;
            t = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

/// A condition a wait blocks on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Condition {
    /// Every document of the page has tools-ready true.
    ToolsReady,
    /// A tool whose name matches is in the page (see [`page_tools`]).
    Tool(Pattern),
    /// No tool whose name matches is in the page.
    ToolGone(Pattern),
    /// No navigation is in progress, and the top document's URL matches when a pattern is
    /// given.
    Navigation(Option<Pattern>),
    /// A `toolchange` event was fired at a document of the page after the wait started (with
    /// this `ready`, when given).
    Toolchange(Option<bool>),
}

impl Condition {
    pub fn name(&self) -> &'static str {
        let name = match self {
            Condition::ToolsReady => ConditionName::ToolsReady,
            Condition::Tool(_) => ConditionName::Tool,
            Condition::ToolGone(_) => ConditionName::ToolGone,
            Condition::Navigation(_) => ConditionName::Navigation,
            Condition::Toolchange(_) => ConditionName::Toolchange,
        };
        name.name()
    }

    /// The condition in the agent's own words (its arguments), for answers.
    pub fn describe(&self, a: &Answer) -> String {
        let name = a.quote(self.name());
        match self {
            Condition::ToolsReady => name,
            Condition::Tool(p) | Condition::ToolGone(p) => {
                format!("{name} with name {}", a.quote(&p.0))
            }
            Condition::Navigation(None) => name,
            Condition::Navigation(Some(p)) => format!("{name} with url {}", a.quote(&p.0)),
            Condition::Toolchange(None) => name,
            Condition::Toolchange(Some(r)) => {
                format!("{name} with ready {}", a.quote(&r.to_string()))
            }
        }
    }
}

/// Which conditions the served world supports: the schema offers only these.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Support {
    /// Something the served world runs can navigate a page (`navigate`, `back` or `close`,
    /// as a line before the serve point, in an `at`/`when` block, or in any script written
    /// before it): otherwise no navigation can ever be in progress, and `navigation` is not
    /// offered. The lines after the serve point do not count: serving never runs them.
    pub navigation: bool,
    /// The profile's `toolchange` events carry `ready` (switch readiness-toolchange): only
    /// then is `toolchange`'s `ready` offered.
    pub toolchange_ready: bool,
}

impl Support {
    pub fn of(subtest: &Subtest, profile: &Profile) -> Support {
        Support {
            navigation: actions_navigate(&subtest.actions[..SubtestRun::serve_point(subtest)]),
            toolchange_ready: profile.webmcp.readiness_toolchange != ReadinessToolchange::None,
        }
    }

    /// Whether the served world offers a condition.
    pub fn offers(&self, condition: ConditionName) -> bool {
        match condition {
            ConditionName::Navigation => self.navigation,
            ConditionName::ToolsReady
            | ConditionName::Tool
            | ConditionName::ToolGone
            | ConditionName::Toolchange => true,
        }
    }

    /// The names of the conditions offered, in schema order.
    pub fn conditions(&self) -> Vec<&'static str> {
        ConditionName::ALL
            .into_iter()
            .filter(|c| self.offers(*c))
            .map(ConditionName::name)
            .collect()
    }
}

/// Whether any of the lines can navigate a page: a navigation line, or a script that can.
fn actions_navigate(actions: &[Action]) -> bool {
    actions.iter().any(|a| match &a.kind {
        ActionKind::Navigate { .. } | ActionKind::Back(_) | ActionKind::Close(_) => true,
        ActionKind::Task { block, .. } => block_navigates(block),
        ActionKind::Trigger { actions, .. } => actions_navigate(actions),
        // The values these lines build cannot hold a script (no callback is written in them).
        ActionKind::Page { .. }
        | ActionKind::Frame { .. }
        | ActionKind::Promise { .. }
        | ActionKind::Thenable { .. }
        | ActionKind::Controller { .. }
        | ActionKind::Html { .. }
        | ActionKind::Run(_)
        | ActionKind::Remove(_)
        | ActionKind::Lifecycle { .. }
        | ActionKind::Observe { .. }
        | ActionKind::Expect(_)
        | ActionKind::Serve => false,
    })
}

/// Whether a script, or a callback written in it, can start a navigation.
fn block_navigates(block: &Block) -> bool {
    block.stmts.iter().any(|s| match &s.kind {
        StmtKind::Navigate { .. } => true,
        StmtKind::After { body, .. } | StmtKind::On { body, .. } | StmtKind::Then { body, .. } => {
            block_navigates(body)
        }
        StmtKind::SetHandler {
            body: Some(body), ..
        } => block_navigates(body),
        StmtKind::SetHandler { body: None, .. } => false,
        StmtKind::If {
            test,
            then,
            otherwise,
        } => {
            expr_navigates(test)
                || block_navigates(then)
                || otherwise.as_deref().is_some_and(block_navigates)
        }
        StmtKind::Eval { expr, .. }
        | StmtKind::SetMember { value: expr, .. }
        | StmtKind::Return(expr)
        | StmtKind::Throw(expr) => expr_navigates(expr),
        // The values settled and removed are read, not run.
        StmtKind::Log(_)
        | StmtKind::Resolve { .. }
        | StmtKind::Reject { .. }
        | StmtKind::Remove(_) => false,
    })
}

/// Whether an expression holds a callback whose script can start a navigation.
fn expr_navigates(e: &Expr) -> bool {
    match e {
        Expr::Callback(CallbackBody::Script(block)) => block_navigates(block),
        Expr::Callback(
            CallbackBody::Returns(_) | CallbackBody::Throws(_) | CallbackBody::Pending,
        ) => false,
        Expr::Call { target, args, .. } => {
            expr_navigates(target) || args.iter().any(expr_navigates)
        }
        Expr::Global { args, .. } | Expr::Array(args) => args.iter().any(expr_navigates),
        Expr::Object(props) => props.iter().any(|(_, e)| expr_navigates(e)),
        Expr::Member(target, _) => expr_navigates(target),
        Expr::Index(a, b) => expr_navigates(a) || expr_navigates(b),
        Expr::Template(parts) => parts.iter().any(|part| match part {
            LogPart::Expr(e) => expr_navigates(e),
            LogPart::Text(_) => false,
        }),
        Expr::Not(e) => expr_navigates(e),
        Expr::StrictEquals { left, right, .. } => expr_navigates(left) || expr_navigates(right),
        Expr::InstanceOf { value, realm, .. } => {
            expr_navigates(value) || realm.as_deref().is_some_and(expr_navigates)
        }
        Expr::Literal(_) | Expr::Name(_) => false,
    }
}

/// The tools of a page, under the gateway's one visibility rule: every tool in the tool map
/// of every active document of the page's tree (the top document's inclusive descendant
/// navigables), whatever its origin: what an observation shows the browser agent ("perform an
/// observation" step 5), so what `tools/list`, `webmcp_observe`, `webmcp_call` and the
/// `tool`/`tool-gone` conditions all see. In tree order, each document's in registration
/// order.
pub fn page_tools(
    world: &World,
    page: NavigableKey,
) -> Vec<(NavigableKey, DocumentKey, &crate::webmcp::ToolDefinition)> {
    let nav = &world.navigables[page];
    let Some(top) = nav.active_document.filter(|_| !nav.destroyed) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for n in world.inclusive_descendant_navigables(top) {
        let Some(d) = world.navigables[n].active_document else {
            continue;
        };
        for t in world.model_context(d).tool_map.values() {
            out.push((n, d, t));
        }
    }
    out
}

/// What a wait remembers from its start: when, and how many `toolchange` events each model
/// context of the page had seen.
#[derive(Clone, Debug, Default)]
pub struct WaitStart {
    pub at: u64,
    toolchanges: BTreeMap<ModelContextKey, ToolchangeCount>,
}

impl WaitStart {
    pub fn now(world: &World, page: NavigableKey) -> WaitStart {
        WaitStart {
            at: world.now(),
            toolchanges: documents_of_page(world, page)
                .map(|(_, d)| {
                    let c = world.context_of(d);
                    (c, world.webmcp().model_contexts[c].toolchanges_fired)
                })
                .collect(),
        }
    }
}

/// Every document ever created in a page (its traversable), in creation order.
fn documents_of_page(
    world: &World,
    page: NavigableKey,
) -> impl Iterator<Item = (usize, DocumentKey)> + '_ {
    world
        .documents
        .iter()
        .filter(move |(_, d)| {
            d.navigable
                .is_some_and(|n| world.navigables[n].traversable == page)
        })
        .map(|(k, _)| k)
        .enumerate()
}

/// What the conditions of a page's waits depend on, in a form cheap to compare: after every
/// unit of work the driver reads it again, and only what differs from the last reading wakes
/// the waits that depend on it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PageView {
    pub closed: bool,
    pub navigating: bool,
    pub url: String,
    pub all_ready: bool,
    /// How many tools of each name the page has (the one visibility rule).
    pub tool_names: BTreeMap<String, usize>,
    /// `toolchange` events fired at the page's documents so far.
    pub toolchanges: ToolchangeCount,
}

impl PageView {
    pub fn read(world: &World, page: NavigableKey) -> PageView {
        let nav = &world.navigables[page];
        let Some(top) = nav.active_document.filter(|_| !nav.destroyed) else {
            return PageView {
                closed: true,
                ..PageView::default()
            };
        };
        let mut tool_names = BTreeMap::new();
        for (_, _, t) in page_tools(world, page) {
            *tool_names.entry(t.name.clone()).or_insert(0) += 1;
        }
        let mut toolchanges = ToolchangeCount::default();
        for (_, d) in documents_of_page(world, page) {
            let c = world.webmcp().model_contexts[world.context_of(d)].toolchanges_fired;
            toolchanges.all += c.all;
            toolchanges.with_ready[0] += c.with_ready[0];
            toolchanges.with_ready[1] += c.with_ready[1];
        }
        let all_ready = world
            .inclusive_descendant_navigables(top)
            .into_iter()
            .filter_map(|n| world.navigables[n].active_document)
            .all(|d| world.tools_ready(d));
        PageView {
            closed: false,
            navigating: navigation_in_progress(world, page),
            url: world.documents[top].url.to_string(),
            all_ready,
            tool_names,
            toolchanges,
        }
    }
}

/// Where a wait's condition stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Holds,
    NotYet,
    /// The page was closed: the condition can never hold.
    PageClosed,
}

/// A tool as the page shows it to a wait.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolState {
    pub name: String,
    pub mcp_name: String,
}

/// One document of the page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocState {
    pub label: String,
    pub url: String,
    pub origin: String,
    pub tools_ready: bool,
    pub pending: usize,
    pub tools: Vec<ToolState>,
}

/// `toolchange` events fired at one document since the wait started.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fired {
    pub document: String,
    pub count: ToolchangeCount,
}

/// The page as a wait reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageState {
    pub name: String,
    pub id: usize,
    pub closed: bool,
    pub navigating: bool,
    /// The active documents of the page's tree, top first, in tree order.
    pub documents: Vec<DocState>,
    pub toolchanges: Vec<Fired>,
}

impl PageState {
    pub fn read(
        world: &World,
        page: NavigableKey,
        id: usize,
        start: &WaitStart,
        names: &mut ToolNames,
    ) -> PageState {
        let nav = &world.navigables[page];
        let top = nav.active_document.filter(|_| !nav.destroyed);
        let mut documents = Vec::new();
        if let Some(top) = top {
            let tools = page_tools(world, page);
            for n in world.inclusive_descendant_navigables(top) {
                let Some(d) = world.navigables[n].active_document else {
                    continue;
                };
                let doc = &world.documents[d];
                documents.push(DocState {
                    label: doc.label.clone(),
                    url: doc.url.to_string(),
                    origin: doc.origin.serialize(),
                    tools_ready: world.tools_ready(d),
                    pending: world.pending_tool_readiness_promises(d),
                    tools: tools
                        .iter()
                        .filter(|(_, td, _)| *td == d)
                        .map(|(tn, _, t)| ToolState {
                            name: t.name.clone(),
                            mcp_name: names.name(id, *tn, &t.name),
                        })
                        .collect(),
                });
            }
        }
        let toolchanges = documents_of_page(world, page)
            .filter_map(|(_, d)| {
                let c = world.context_of(d);
                let now = world.webmcp().model_contexts[c].toolchanges_fired;
                let before = start.toolchanges.get(&c).copied().unwrap_or_default();
                let count = ToolchangeCount {
                    all: now.all - before.all,
                    with_ready: [
                        now.with_ready[0] - before.with_ready[0],
                        now.with_ready[1] - before.with_ready[1],
                    ],
                };
                (count.all > 0).then(|| Fired {
                    document: world.documents[d].label.clone(),
                    count,
                })
            })
            .collect();
        PageState {
            name: nav.label.clone(),
            id,
            closed: top.is_none(),
            navigating: navigation_in_progress(world, page),
            documents,
            toolchanges,
        }
    }

    pub fn url(&self) -> Option<&str> {
        self.documents.first().map(|d| d.url.as_str())
    }

    /// The state as structured content (all of it page-provided or about the page).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "page": self.name,
            "pageId": self.id,
            "closed": self.closed,
            "navigating": self.navigating,
            "url": self.url(),
            "documents": self.documents.iter().map(|d| serde_json::json!({
                "document": d.label,
                "url": d.url,
                "origin": d.origin,
                "toolsReady": d.tools_ready,
                "pendingReadinessPromises": d.pending,
                "tools": d.tools.iter().map(|t| serde_json::json!({
                    "name": t.name,
                    "mcpName": t.mcp_name,
                })).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "toolchanges": self.toolchanges.iter().map(|f| serde_json::json!({
                "document": f.document,
                "count": f.count.all,
                "readyFalse": f.count.with_ready[0],
                "readyTrue": f.count.with_ready[1],
            })).collect::<Vec<_>>(),
        })
    }

    fn matching<'s>(
        &'s self,
        p: &'s Pattern,
    ) -> impl Iterator<Item = (&'s DocState, &'s ToolState)> + 's {
        self.documents.iter().flat_map(move |d| {
            d.tools
                .iter()
                .filter(move |t| p.matches(&t.name))
                .map(move |t| (d, t))
        })
    }

    /// Whether the condition holds.
    pub fn verdict(&self, condition: &Condition) -> Verdict {
        if self.closed {
            return Verdict::PageClosed;
        }
        let holds = match condition {
            Condition::ToolsReady => self.documents.iter().all(|d| d.tools_ready),
            Condition::Tool(p) => self.matching(p).next().is_some(),
            Condition::ToolGone(p) => self.matching(p).next().is_none(),
            Condition::Navigation(url) => {
                !self.navigating
                    && url
                        .as_ref()
                        .is_none_or(|p| self.url().is_some_and(|u| p.matches(u)))
            }
            Condition::Toolchange(ready) => self.toolchanges.iter().any(|f| match ready {
                None => f.count.all > 0,
                Some(r) => f.count.with_ready[usize::from(*r)] > 0,
            }),
        };
        if holds {
            Verdict::Holds
        } else {
            Verdict::NotYet
        }
    }

    /// What made the condition hold, in a few lines.
    pub fn write_match(&self, condition: &Condition, a: &mut Answer) {
        match condition {
            Condition::ToolsReady => {
                let docs: Vec<String> = self.documents.iter().map(|d| a.page(&d.label)).collect();
                a.line(format!(
                    "Every document of the page is ready: {}.",
                    docs.join(", ")
                ));
            }
            Condition::Tool(p) => {
                a.line("Matching tools of the page:");
                for (d, t) in self.matching(p) {
                    let line = format!(
                        "- {} in document {} (MCP tool {})",
                        a.page(&t.name),
                        a.page(&d.label),
                        a.quote(&t.mcp_name)
                    );
                    a.line(line);
                }
            }
            Condition::ToolGone(p) => {
                let line = format!(
                    "No tool whose name matches {} is in the page.",
                    a.quote(&p.0)
                );
                a.line(line);
            }
            Condition::Navigation(_) => {
                let line = format!(
                    "No navigation is in progress; the top document is at {}.",
                    a.page(self.url().unwrap_or(""))
                );
                a.line(line);
            }
            Condition::Toolchange(_) => {
                a.line("`toolchange` fired after the wait started:");
                for f in &self.toolchanges {
                    let line = format!("- {}", describe_fired(f, a));
                    a.line(line);
                }
            }
        }
    }

    /// The page as last read: URL, navigation, each document's readiness and tools, and the
    /// `toolchange` events since the wait started.
    pub fn write_state(&self, a: &mut Answer) {
        if self.closed {
            let line = format!("Page {} (id {}) is closed.", a.page(&self.name), self.id);
            a.line(line);
            return;
        }
        let line = format!(
            "Page {} (id {}) at {}; navigation in progress: {}.",
            a.page(&self.name),
            self.id,
            a.page(self.url().unwrap_or("")),
            if self.navigating { "yes" } else { "no" }
        );
        a.line(line);
        for d in &self.documents {
            let tools = if d.tools.is_empty() {
                "none".to_string()
            } else {
                d.tools
                    .iter()
                    .map(|t| format!("{} ({})", a.page(&t.name), a.quote(&t.mcp_name)))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let ready = if d.tools_ready {
                "yes".to_string()
            } else {
                format!("no ({} pending readiness promise(s))", d.pending)
            };
            let line = format!(
                "- document {} at {} (origin {}): tools ready: {ready}; tools: {tools}",
                a.page(&d.label),
                a.page(&d.url),
                a.page(&d.origin)
            );
            a.line(line);
        }
        if self.toolchanges.is_empty() {
            a.line("- `toolchange` events since the wait started: none");
        } else {
            let fired: Vec<String> = self
                .toolchanges
                .iter()
                .map(|f| describe_fired(f, a))
                .collect();
            a.line(format!(
                "- `toolchange` events since the wait started: {}",
                fired.join("; ")
            ));
        }
    }
}

fn describe_fired(f: &Fired, a: &Answer) -> String {
    let mut s = format!("{} at document {}", f.count.all, a.page(&f.document));
    let [not_ready, ready] = f.count.with_ready;
    if not_ready + ready > 0 {
        s.push_str(&format!(" (ready=false: {not_ready}, ready=true: {ready})"));
    }
    s
}

/// Whether a navigation of one of the page's navigables has started and not committed yet:
/// its response step is queued in parallel, or its commit task on an event loop.
pub fn navigation_in_progress(world: &World, page: NavigableKey) -> bool {
    let in_page = |d: DocumentKey| {
        world.documents.get(d).is_some_and(|doc| {
            doc.navigable
                .is_some_and(|n| world.navigables[n].traversable == page)
        })
    };
    let responding = world.parallel_queues.values().any(|q| {
        q.steps.iter().any(|s| {
            matches!(&s.kind, ParallelStepKind::NavigationResponse { from, .. } if in_page(*from))
        })
    });
    responding
        || world.event_loops.values().any(|l| {
            l.queues.iter().flatten().any(|t| {
                matches!(t.action, TaskAction::CommitNavigation { .. }) && in_page(t.document)
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        assert!(Pattern("search".into()).matches("search"));
        assert!(!Pattern("search".into()).matches("search2"));
        assert!(Pattern("*/checkout".into()).matches("https://shop.test/checkout"));
        assert!(Pattern("cart.*".into()).matches("cart.add"));
        assert!(Pattern("*".into()).matches(""));
        assert!(Pattern("a*b*c".into()).matches("aXbYbZc"));
        assert!(!Pattern("a*b*c".into()).matches("aXbYbZ"));
    }
}
