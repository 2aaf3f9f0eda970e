//! What the exported test's page holds at a line of the subtest: the test page, its iframes
//! (their origins, parents, and whether they are gone), and the observations made so far,
//! which no page can read. The page script's emission asks it what only the scenario knows.

use std::collections::{BTreeMap, BTreeSet};

use super::origins::{mapped_origin, string_mapped, SCENARIO_ORIGINS};
use crate::script::ast::{Block, Expr, StmtKind};
use crate::script::emit::{omit, Omit, Scene, SceneDocument};
use crate::script::js;

#[derive(Clone, Debug)]
pub(super) struct DocInfo {
    /// One of [`SCENARIO_ORIGINS`].
    pub(super) origin: &'static str,
    pub(super) parent: Option<String>,
    pub(super) removed: bool,
}

/// The documents of the exported test, by the scenario's names.
#[derive(Clone, Debug, Default)]
pub(super) struct TestScene {
    pub(super) docs: BTreeMap<String, DocInfo>,
    /// The scenario's first page: the test page.
    pub(super) page: Option<String>,
    pub(super) observations: BTreeSet<String>,
}

impl TestScene {
    pub(super) fn doc(&self, name: &str) -> Result<&DocInfo, Omit> {
        self.docs.get(name).ok_or_else(|| {
            omit(
                "unsupported",
                format!("`{name}` is not a document of the exported test"),
            )
        })
    }

    pub(super) fn is_page(&self, name: &str) -> bool {
        self.page.as_deref() == Some(name)
    }

    /// Marks a document removed, and every document of its iframes.
    pub(super) fn mark_removed(&mut self, name: &str) {
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

    /// Whether a navigation can be exported: of an iframe, to a mapped origin, not kept in
    /// the back/forward cache.
    pub(super) fn navigate_checks(&self, from: &str, url: &str, bfcache: bool) -> Result<(), Omit> {
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
                "an origin other than https://a.test, https://b.test, https://c.test and http://b.test",
            ));
        }
        Ok(())
    }

    /// A navigation line: the old document is gone, the new one takes its place.
    pub(super) fn navigated(&mut self, from: &str, url: &str, label: &str) {
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

    /// Removals and navigations a task's script makes, so that later expectations know. Only
    /// the block's own statements: a callback's run when something calls it, which the export
    /// does not follow.
    pub(super) fn note_removals(&mut self, block: &Block) {
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
                // A computed document is not exported (the script's emission said so).
                StmtKind::Remove(_) | StmtKind::Navigate { .. } => {}
                StmtKind::Eval { .. }
                | StmtKind::SetMember { .. }
                | StmtKind::Log(_)
                | StmtKind::Return(_)
                | StmtKind::Throw(_)
                | StmtKind::Resolve { .. }
                | StmtKind::Reject { .. }
                | StmtKind::After { .. }
                | StmtKind::On { .. }
                | StmtKind::SetHandler { .. }
                | StmtKind::Then { .. } => {}
                // Which branch runs is the page's to find out: like a callback's block, a
                // branch's removals and navigations are not followed.
                StmtKind::If { .. } => {}
            }
        }
    }
}

impl Scene for TestScene {
    fn document(&self, name: &str) -> Option<SceneDocument> {
        self.docs.get(name).map(|d| SceneDocument {
            same_origin: d.origin == SCENARIO_ORIGINS[0],
            removed: d.removed,
        })
    }

    fn is_test_page(&self, name: &str) -> bool {
        self.is_page(name)
    }

    fn is_observation(&self, name: &str) -> bool {
        self.observations.contains(name)
    }

    fn string(&self, s: &str) -> String {
        string_mapped(s)
    }

    fn check_navigation(&self, from: &str, url: &str, keep_in_bfcache: bool) -> Result<(), Omit> {
        self.navigate_checks(from, url, keep_in_bfcache)
    }

    fn navigated_by_script(&mut self, from: &str, url: &str, label: &str) {
        // The document it leaves is marked gone by `note_removals`, when the task's own block
        // starts the navigation.
        if let Some(origin) = mapped_origin(url) {
            let parent = self.docs.get(from).and_then(|d| d.parent.clone());
            self.docs.entry(label.to_string()).or_insert(DocInfo {
                origin,
                parent,
                removed: false,
            });
        }
    }

    fn read_across_origins(&self, document: &str, attribute: &str) -> String {
        format!("(await w.read({document}, {}))", js::string(attribute))
    }
}
