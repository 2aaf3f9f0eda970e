//! Page lookup: the top-level traversables served, in the order they were opened (a page's
//! id is its place + 1), which page a request names, and the tools of every open page.

use std::collections::BTreeSet;
use std::hash::{Hash, Hasher};

use super::answers::{Answer, Reply};
use super::arguments::PageRef;
use super::conditions::page_tools;
use super::driver::Driver;
use super::tools::PageTool;
use crate::host::keys::{DocumentKey, NavigableKey};
use crate::prelude::*;
use crate::text::js_string::{to_scalar_values, unescape_lone_surrogates_in_json};

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
                    "`page` and `pageId` name different pages ({} is page {}, not {id}).",
                    super::answers::quote(wanted.name.as_deref().unwrap_or("")),
                    i + 1
                );
                return Err(self.page_problem(&problem));
            }
            (Some(None), _) => {
                let problem = format!(
                    "Unknown page {}.",
                    super::answers::quote(wanted.name.as_deref().unwrap_or(""))
                );
                return Err(self.page_problem(&problem));
            }
            (None, Some(id)) => {
                return Err(self.page_problem(&format!("Unknown page id {id}.")));
            }
        };
        let page = self.pages[index];
        if !self.page_is_open(page) {
            return Err(self.page_problem(&format!("Page {} was closed.", index + 1)));
        }
        Ok((page, index + 1))
    }

    /// An answer for a page that cannot be used, listing the pages there are. `problem` is
    /// the gateway's words (with the agent's own quoted).
    pub(super) fn page_problem(&self, problem: &str) -> Reply {
        let mut a = Answer::error();
        a.line(format!("**{problem}**"));
        a.blank();
        a.line("Pages (pick one with `page` or `pageId`):");
        let mut listed = Vec::new();
        for (i, &p) in self.pages.iter().enumerate() {
            let n = &self.world().navigables[p];
            let url = self
                .top_of(p)
                .map(|top| self.world().documents[top].url.to_string());
            let line = match &url {
                Some(url) => format!("- {}: {} at {}", i + 1, a.page(&n.label), a.page(url)),
                None => format!("- {}: {} (closed)", i + 1, a.page(&n.label)),
            };
            a.line(line);
            listed.push(serde_json::json!({"pageId": i + 1, "page": n.label, "url": url}));
        }
        a.field("outcome", "bad-page");
        a.untrusted("pages", listed);
        a.finish()
    }

    /// Every tool of every open page, under the one visibility rule (`page_tools`): its
    /// page's id, navigable, document, WebMCP name and MCP name.
    pub(super) fn all_page_tools(&mut self) -> Vec<ListedTool> {
        self.refresh_pages();
        let mut out = Vec::new();
        let mut present = BTreeSet::new();
        for (i, &page) in self.pages.iter().enumerate() {
            for (nav, doc, t) in page_tools(&self.run.world, page) {
                let mcp = self.names.name(i + 1, nav, &t.name);
                present.insert((nav, t.name.clone()));
                out.push(ListedTool {
                    page_id: i + 1,
                    nav,
                    doc,
                    name: t.name.clone(),
                    mcp,
                });
            }
        }
        self.names.forget_all_but(&present);
        out
    }

    pub(super) fn tool_signature(&mut self) -> u64 {
        let tools = self.all_page_tools();
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for l in tools {
            (l.page_id, l.nav, &l.mcp).hash(&mut h);
            let t = &self.world().model_context(l.doc).tool_map[l.name.as_str()];
            (&t.name, &t.title, &t.description, &t.input_schema).hash(&mut h);
            t.annotations.hash(&mut h);
        }
        h.finish()
    }

    pub(super) fn page_tools(&mut self) -> Vec<PageTool> {
        let tools = self.all_page_tools();
        let w = self.world();
        tools
            .into_iter()
            .map(|l| {
                let d = &w.documents[l.doc];
                let t = &w.model_context(l.doc).tool_map[l.name.as_str()];
                PageTool {
                    mcp_name: l.mcp,
                    page: w.navigables[w.navigables[l.nav].traversable].label.clone(),
                    page_id: l.page_id,
                    frame: w.navigables[l.nav].label.clone(),
                    document: d.label.clone(),
                    name: for_agent(&t.name),
                    title: t.title.as_deref().map(for_agent),
                    description: for_agent(&t.description),
                    input_schema: for_agent(&unescape_lone_surrogates_in_json(&t.input_schema)),
                    read_only: t.annotations.is_some_and(|a| a.read_only_hint),
                    untrusted_content: t.annotations.is_some_and(|a| a.untrusted_content_hint),
                    origin: d.origin.serialize(),
                    url: d.url.to_string(),
                }
            })
            .collect()
    }
}

/// A page's string as the agent gets it: in UTF-8, where a lone surrogate (text::js_string)
/// is U+FFFD, as a browser's conversion of a page's string to UTF-8 makes it.
pub(super) fn for_agent(s: &str) -> String {
    to_scalar_values(s).into_owned()
}

/// A tool of an open page, as the gateway lists it.
pub(super) struct ListedTool {
    pub(super) page_id: usize,
    pub(super) nav: NavigableKey,
    pub(super) doc: DocumentKey,
    pub(super) name: String,
    pub(super) mcp: String,
}
