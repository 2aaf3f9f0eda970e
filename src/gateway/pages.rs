//! Page lookup: the top-level traversables served, in the order they were opened (a page's
//! id is its place + 1), which page a request names, and the tools of every open page.

use std::collections::BTreeSet;
use std::hash::{Hash, Hasher};

use super::answers::{Answer, Reply};
use super::arguments::PageRef;
use super::driver::Driver;
use super::tools::{mcp_tool_name, PageTool};
use crate::host::keys::{DocumentKey, NavigableKey};
use crate::prelude::*;

impl Driver<'_> {
    pub(super) fn refresh_pages(&mut self) {
        let known: BTreeSet<NavigableKey> = self.pages.iter().copied().collect();
        let new: Vec<NavigableKey> = self
            .world()
            .navigables
            .iter()
            .filter(|(k, n)| n.parent.is_none() && !known.contains(k))
            .map(|(k, _)| k)
            .collect();
        self.pages.extend(new);
    }

    pub(super) fn page_is_open(&self, page: NavigableKey) -> bool {
        let n = &self.world().navigables[page];
        !n.destroyed && n.active_document.is_some()
    }

    pub(super) fn top_of(&self, page: NavigableKey) -> Option<DocumentKey> {
        let n = &self.world().navigables[page];
        n.active_document.filter(|_| !n.destroyed)
    }

    /// The page a request names, with its id; an answer saying what is wrong otherwise.
    pub(super) fn resolve_page(
        &mut self,
        wanted: &PageRef,
    ) -> Result<(NavigableKey, usize), Reply> {
        self.refresh_pages();
        let by_name = wanted.name.as_ref().map(|name| {
            self.pages.iter().position(|&p| {
                let n = &self.world().navigables[p];
                n.label == *name
                    || n.active_document
                        .is_some_and(|d| self.world().documents[d].label == *name)
            })
        });
        let index = match (by_name, wanted.id) {
            (None, None) => match self.pages.iter().position(|&p| self.page_is_open(p)) {
                Some(i) => i,
                None => return Err(self.page_problem("No page is open.")),
            },
            (Some(Some(i)), None) => i,
            (None, Some(id)) if (id as usize) <= self.pages.len() => id as usize - 1,
            (Some(Some(i)), Some(id)) if i + 1 == id as usize => i,
            (Some(Some(i)), Some(id)) => {
                let problem = format!(
                    "`page` and `pageId` name different pages (`{}` is page {}, not {id}).",
                    wanted.name.as_deref().unwrap_or(""),
                    i + 1
                );
                return Err(self.page_problem(&problem));
            }
            (Some(None), _) => {
                let problem = format!("Unknown page `{}`.", wanted.name.as_deref().unwrap_or(""));
                return Err(self.page_problem(&problem));
            }
            (None, Some(id)) => {
                return Err(self.page_problem(&format!("Unknown page id {id}.")));
            }
        };
        let page = self.pages[index];
        if !self.page_is_open(page) {
            let label = self.world().navigables[page].label.clone();
            return Err(
                self.page_problem(&format!("Page `{label}` (id {}) was closed.", index + 1))
            );
        }
        Ok((page, index + 1))
    }

    /// An answer for a page that cannot be used, listing the pages there are.
    pub(super) fn page_problem(&self, problem: &str) -> Reply {
        let mut a = Answer::error();
        a.line(format!("**{problem}**"));
        a.blank();
        a.line("Pages (pick one with `page` or `pageId`):");
        for (i, &p) in self.pages.iter().enumerate() {
            let n = &self.world().navigables[p];
            let line = match self.top_of(p) {
                Some(top) => format!(
                    "- {}: {} at {}",
                    i + 1,
                    a.quote(&n.label),
                    a.page(self.world().documents[top].url.as_str())
                ),
                None => format!("- {}: {} (closed)", i + 1, a.quote(&n.label)),
            };
            a.line(line);
        }
        a.finish()
    }

    pub(super) fn for_each_page_tool(
        &self,
        mut f: impl FnMut(usize, NavigableKey, DocumentKey, &crate::webmcp::ToolDefinition),
    ) {
        for (i, &page) in self.pages.iter().enumerate() {
            let Some(top) = self.top_of(page) else {
                continue;
            };
            for nav in self.world().inclusive_descendant_navigables(top) {
                let Some(doc) = self.world().navigables[nav].active_document else {
                    continue;
                };
                for t in self.world().model_context(doc).tool_map.values() {
                    f(i + 1, nav, doc, t);
                }
            }
        }
    }

    pub(super) fn tool_signature(&mut self) -> u64 {
        self.refresh_pages();
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.for_each_page_tool(|page, nav, _doc, t| {
            (
                page,
                nav,
                &t.name,
                &t.title,
                &t.description,
                &t.input_schema,
            )
                .hash(&mut h);
            t.annotations.hash(&mut h);
        });
        h.finish()
    }

    pub(super) fn page_tools(&mut self) -> Vec<PageTool> {
        self.refresh_pages();
        let mut out = Vec::new();
        let w = self.world();
        self.for_each_page_tool(|page_id, nav, doc, t| {
            let d = &w.documents[doc];
            out.push(PageTool {
                mcp_name: mcp_tool_name(&w.navigables[nav].label, &t.name),
                page: w.navigables[w.navigables[nav].traversable].label.clone(),
                page_id,
                document: d.label.clone(),
                name: t.name.clone(),
                title: t.title.clone(),
                description: t.description.clone(),
                input_schema: t.input_schema.clone(),
                read_only: t.annotations.is_some_and(|a| a.read_only_hint),
                untrusted_content: t.annotations.is_some_and(|a| a.untrusted_content_hint),
                origin: d.origin.serialize(),
                url: d.url.to_string(),
            });
        });
        out
    }
}
