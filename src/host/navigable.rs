//! Navigables, documents, and the tree they form: creating pages and iframes, removing an
//! iframe, navigating, the back/forward cache, closing a traversable, and "fully active".
//!
//! <https://html.spec.whatwg.org/multipage/document-sequences.html#navigables>

use serde::Serialize;
use url::Url;

use super::dom::parser::Parsing;
use super::dom::{Dispatch, DomTask, EventInit};
use super::event_loop::{EventLoops, TaskAction, TaskSource};
use super::iframe::SandboxFlags;
use super::keys::{DocumentKey, EventLoopKey, ListenerKey, NavigableKey, NodeKey};
use super::origin::{is_url_potentially_trustworthy, Origin};
use super::permissions::{Allowlist, FeatureState};
use super::seam::Facet;
use super::seam::Upper;
use super::shared::footprint;
use super::switches::SecureContext;
use super::value::Value;
use super::{Host, HostError, HostState, MAX_IFRAME_DEPTH};

/// A navigable. A top-level traversable is one without a parent.
///
/// <https://html.spec.whatwg.org/multipage/document-sequences.html#navigable>
#[derive(Clone, Debug, Hash)]
pub struct Navigable {
    /// The frame's name in the scenario (the page's name for a top-level traversable).
    pub label: String,
    pub parent: Option<NavigableKey>,
    /// The document whose `<iframe>` element is this navigable's container.
    pub container_document: Option<DocumentKey>,
    /// The container's `allow` attribute.
    pub allow: Option<String>,
    /// The origin of the container's `src` URL, which the `'src'` allowlist names.
    pub src_origin: Option<Origin>,
    /// The `<iframe>` element of the container document's tree whose content navigable this
    /// is, for an iframe of a document's markup (a scenario's `frame` line has none: its
    /// container is the document alone).
    pub container_element: Option<NodeKey>,
    /// The container iframe's sandboxing flag set (from its `sandbox` attribute), which the
    /// navigable's next document is created with.
    pub iframe_sandbox: SandboxFlags,
    pub active_document: Option<DocumentKey>,
    /// <https://html.spec.whatwg.org/multipage/document-sequences.html#nav-traversable>
    pub traversable: NavigableKey,
    /// The documents of its session history entries, and which one is current.
    pub history: Vec<DocumentKey>,
    pub history_index: usize,
    pub destroyed: bool,
    /// <https://html.spec.whatwg.org/multipage/document-sequences.html#historical-agent-cluster-key-map>,
    /// on the navigable that names a browsing context group (empty on the others): for each
    /// origin whose agent was obtained in the group, whether its agent cluster was keyed by the
    /// origin (else by its site). The first document of an origin decides, for the group's life.
    pub agent_cluster_keys: std::collections::BTreeMap<Origin, bool>,
    /// <https://html.spec.whatwg.org/multipage/document-sequences.html#browsing-context-group>:
    /// the group of this navigable's browsing context, named by the first top-level traversable
    /// in it. A page opened by another joins its opener's group (an auxiliary browsing
    /// context); any other page starts a group of its own.
    pub group: NavigableKey,
}

/// Where a document is in its loading.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Lifecycle {
    Loading,
    /// `DOMContentLoaded` has fired.
    Interactive,
    /// `load` has fired.
    Complete,
}

/// A `Document` (with its `Window`, its realm and its environment settings object).
#[derive(Clone, Debug, Hash)]
pub struct Document {
    pub label: String,
    pub url: Url,
    pub origin: Origin,
    /// The navigable it was loaded in; its node navigable while it is active. `None` for a
    /// document that has no browsing context (DOM's `createHTMLDocument()`, `DOMParser`): it
    /// is never any navigable's document, so never fully active.
    pub navigable: Option<NavigableKey>,
    /// For a document without a browsing context, the document whose script created it: its
    /// relevant realm is that document's (DOM: `createHTMLDocument()` and `DOMParser` make
    /// the new document in the realm of the caller).
    pub created_by: Option<DocumentKey>,
    /// The navigables of its `<iframe>` elements, in tree order.
    pub child_navigables: Vec<NavigableKey>,
    pub event_loop: EventLoopKey,
    pub lifecycle: Lifecycle,
    /// Set when the document is destroyed; it is never fully active again.
    pub destroyed: bool,
    /// Whether it sits in the back/forward cache.
    pub in_bfcache: bool,
    /// The inherited policy for "tools", fixed when the document was created.
    pub tools_inherited_policy: FeatureState,
    /// A `Permissions-Policy` header's allowlist for "tools", if the document declared one.
    pub tools_declared_policy: Option<Allowlist>,
    /// The `Window`'s event listeners.
    pub window_listeners: Vec<ListenerKey>,
    /// Whether its environment is a secure context, fixed when it was created: HTML decides by
    /// the top-level creation URL (the top-level document's URL for a document in an iframe),
    /// and `[SecureContext]` members (`document.modelContext`) exist only in one.
    ///
    /// <https://html.spec.whatwg.org/multipage/webappapis.html#secure-context>
    pub secure_context: bool,
    /// Its active sandboxing flag set, fixed when it was created.
    ///
    /// <https://html.spec.whatwg.org/multipage/browsers.html#active-sandboxing-flag-set>
    pub sandbox: SandboxFlags,
}

/// What a new document needs to know beyond its URL.
#[derive(Clone, Debug, Default)]
pub struct DocumentOptions {
    /// Leave the document loading: its `DOMContentLoaded` and `load` come when the scenario
    /// says so.
    pub loading: bool,
    /// A `Permissions-Policy: tools=(...)` header.
    pub tools_policy: Option<Allowlist>,
    /// Whether its response asks for an origin-keyed agent cluster (`Origin-Agent-Cluster:
    /// ?1`, `Some(true)`) or a site-keyed one (`?0`, `Some(false)`); without the header, the
    /// world's setting. It counts only for the first document of its origin in the browsing
    /// context group (HTML's historical agent cluster key map).
    pub origin_keyed: Option<bool>,
    /// The sandboxing flags its response's `Content-Security-Policy` forces (a `sandbox`
    /// directive), none by default.
    pub forced_sandboxing: SandboxFlags,
}

/// What a new child navigable is made with besides its container document and first URL.
pub struct ChildNavigable<'a> {
    /// Its name in traces, and its first document's label.
    pub label: &'a str,
    /// The container's `allow` attribute.
    pub allow: Option<&'a str>,
    /// The container's declared origin, which the `'src'` allowlist names.
    pub src_origin: Origin,
    /// The container `<iframe>` element, for an iframe of a document's markup.
    pub container_element: Option<NodeKey>,
    /// The container's iframe sandboxing flag set.
    pub sandbox: SandboxFlags,
}

/// Navigables and documents: the harness's actions on the tree, navigation, the back/forward
/// cache, and the lifecycle of a loading document.
pub trait Navigables: Host {
    /// Opens a new top-level traversable whose active document is loaded from `url`.
    fn open_page(&mut self, label: &str, url: &str) -> Result<DocumentKey, HostError> {
        self.open_page_with(label, url, DocumentOptions::default())
    }

    fn open_page_with(
        &mut self,
        label: &str,
        url: &str,
        options: DocumentOptions,
    ) -> Result<DocumentKey, HostError> {
        self.open_page_in_group(label, url, None, options)
    }

    /// Opens a new top-level traversable; with an `opener`, in the opener's browsing context
    /// group, as `window.open()` makes an auxiliary browsing context (HTML, "create a new
    /// auxiliary browsing context"): its documents share an agent, so an event loop, with the
    /// opener's documents of the same site (or origin, when the group's agent clusters are
    /// origin-keyed), and their scripts reach each other's objects. The group's keying is the
    /// opener's, whatever `options` says.
    fn open_page_in_group(
        &mut self,
        label: &str,
        url: &str,
        opener: Option<DocumentKey>,
        options: DocumentOptions,
    ) -> Result<DocumentKey, HostError> {
        let url = parse_url(url)?;
        let opener_group = opener.map(|d| self.browsing_context_group(d));
        let nav = self.navigables.insert_with_key(|key| Navigable {
            label: label.into(),
            parent: None,
            container_document: None,
            allow: None,
            src_origin: None,
            container_element: None,
            iframe_sandbox: SandboxFlags::default(),
            active_document: None,
            traversable: key,
            history: Vec::new(),
            history_index: 0,
            destroyed: false,
            agent_cluster_keys: Default::default(),
            group: opener_group.unwrap_or(key),
        });
        let doc = self.create_document(nav, label, url, options);
        self.make_active(nav, doc);
        let opened_by = opener.map_or(String::new(), |o| format!(", opened by {}", self.label(o)));
        self.harness_note(|_| format!("open page {label}{opened_by}"));
        Ok(doc)
    }

    /// Inserts an `<iframe>` whose `src` is `url` into `parent`, with an optional `allow`
    /// attribute, and returns the document loaded in it.
    fn add_iframe(
        &mut self,
        parent: DocumentKey,
        label: &str,
        url: &str,
        allow: Option<&str>,
        options: DocumentOptions,
    ) -> Result<DocumentKey, HostError> {
        let url = parse_url(url)?;
        let src_origin = self.origin_of_url(&url);
        let child = ChildNavigable {
            label,
            allow,
            src_origin,
            container_element: None,
            sandbox: SandboxFlags::default(),
        };
        let doc = self.create_a_child_navigable(parent, child, url, options)?;
        self.harness_note(|w| format!("insert iframe {label} in {}", w.label(parent)));
        Ok(doc)
    }

    /// <https://html.spec.whatwg.org/multipage/document-sequences.html#create-a-new-child-navigable>,
    /// with its first document loaded from `url` at once (a scenario's `frame` line: the
    /// document it names is there when the line has run) or, for an iframe of a document's
    /// markup, `about:blank` (its `src` is then navigated to, as HTML does).
    fn create_a_child_navigable(
        &mut self,
        parent: DocumentKey,
        child: ChildNavigable<'_>,
        url: Url,
        options: DocumentOptions,
    ) -> Result<DocumentKey, HostError> {
        if !self.is_fully_active(parent) {
            return Err(HostError::NotFullyActive(self.label(parent)));
        }
        let Some(parent_nav) = self.documents[parent].navigable else {
            return Err(HostError::NotFullyActive(self.label(parent)));
        };
        let mut depth = 0;
        let mut up = Some(parent_nav);
        while let Some(n) = up {
            depth += 1;
            if depth > MAX_IFRAME_DEPTH {
                return Err(HostError::NestedTooDeep(self.label(parent)));
            }
            up = self.navigables[n].parent;
        }
        let traversable = self.navigables[parent_nav].traversable;
        let group = self.navigables[traversable].group;
        let nav = self.navigables.insert(Navigable {
            label: child.label.into(),
            parent: Some(parent_nav),
            container_document: Some(parent),
            allow: child.allow.map(str::to_owned),
            src_origin: Some(child.src_origin),
            container_element: child.container_element,
            iframe_sandbox: child.sandbox,
            active_document: None,
            traversable,
            history: Vec::new(),
            history_index: 0,
            destroyed: false,
            agent_cluster_keys: Default::default(),
            group,
        });
        self.documents[parent].child_navigables.push(nav);
        let doc = self.create_document(nav, child.label, url, options);
        // Only the new document became fully active, and it has no timers yet: the tree is
        // told of one document added rather than re-walked, so many iframes cost linear time.
        self.push_to_history(nav, doc);
        self.document_added(traversable, doc);
        Ok(doc)
    }

    /// Creates a document in `nav`, on the event loop of its agent; the specifications above
    /// add their own state to it (WebMCP: its `ModelContext`).
    fn create_document(
        &mut self,
        nav: NavigableKey,
        label: &str,
        url: Url,
        options: DocumentOptions,
    ) -> DocumentKey {
        // An iframe's about:blank (or about:srcdoc) document takes the origin of the document
        // that created it, its container's document (HTML, "create a new child navigable" and
        // "determine the origin"); elsewhere a URL without a tuple origin gets a new opaque
        // one. (A navigation to about:blank takes its initiator's origin; the scenario's
        // navigations of an iframe stand for its container's, so the same rule is used.)
        let container = self.navigables[nav].container_document;
        // The creation sandboxing flags: the container iframe's, with its document's own
        // (HTML, "determine the creation sandboxing flags"); then the navigation's final
        // sandboxing flag set adds what the response's CSP forces ("create and initialize a
        // Document object": the `sandbox` directive). A sandboxed origin gets a new opaque
        // origin ("determine the origin", step 1), so an `https:` page sandboxed by its own
        // header has one.
        let sandbox = self.navigables[nav]
            .iframe_sandbox
            .union(
                container
                    .map(|c| self.documents[c].sandbox)
                    .unwrap_or_default(),
            )
            .union(options.forced_sandboxing);
        let unsandboxed = match container {
            Some(creator) if matches!(url.as_str(), "about:blank" | "about:srcdoc") => {
                self.documents[creator].origin.clone()
            }
            _ => self.origin_of_url(&url),
        };
        let origin = if sandbox.origin {
            self.new_opaque_origin()
        } else {
            unsandboxed.clone()
        };
        let traversable = self.navigables[nav].traversable;
        let event_loop = self.event_loop_for(traversable, &origin, options.origin_keyed);
        let inherited = self.inherited_tools_policy(nav, &origin);
        let secure_context = self.is_secure_context_at_creation(nav, &url, &unsandboxed);
        let lifecycle = if options.loading {
            Lifecycle::Loading
        } else {
            Lifecycle::Complete
        };
        let doc = self.documents.insert(Document {
            label: label.into(),
            url,
            origin,
            navigable: Some(nav),
            created_by: None,
            child_navigables: Vec::new(),
            event_loop,
            lifecycle,
            destroyed: false,
            in_bfcache: false,
            tools_inherited_policy: inherited,
            tools_declared_policy: options.tools_policy,
            window_listeners: Vec::new(),
            secure_context,
            sandbox,
        });
        self.document_created(doc);
        doc
    }

    /// Whether a document created in `nav` from `url` is a secure context. `unsandboxed` is
    /// the origin it has, or would have without the sandboxed origin flag (the opaque origin a
    /// sandbox gives it has this one as its precursor, in Chromium's terms).
    ///
    /// <https://html.spec.whatwg.org/multipage/webappapis.html#secure-context>
    fn is_secure_context_at_creation(
        &self,
        nav: NavigableKey,
        url: &Url,
        unsandboxed: &Origin,
    ) -> bool {
        let n = &self.navigables[nav];
        // The top-level creation URL: the document's own for a top-level traversable, else
        // the top-level traversable's active document's.
        let top_level_url = match n.parent {
            None => url.clone(),
            Some(_) => match self.navigables[n.traversable].active_document {
                Some(top) => self.documents[top].url.clone(),
                None => url.clone(),
            },
        };
        match self.host_switches().secure_context {
            // 2. Potentially trustworthy top-level creation URL: a secure context. 3. Else not.
            SecureContext::TopLevelCreationUrl => is_url_potentially_trustworthy(&top_level_url),
            // The older Secure Contexts text, which Chromium follows: the document's own origin
            // and the origin of every document above it must be potentially trustworthy. A
            // document sandboxed into an opaque origin is judged by the origin it would have
            // had: Chromium 156 gives an https page sandboxed by its own CSP a modelContext
            // (measured: imperative/opaque-origin-tools). The container's own answer already
            // covers every document above it.
            SecureContext::EveryAncestor => {
                if !(unsandboxed.is_potentially_trustworthy() || url.scheme() == "data") {
                    return false;
                }
                match n.container_document {
                    Some(d) => self.documents[d].secure_context,
                    None => true,
                }
            }
        }
    }

    /// The event loop of the agent a document of `origin` in `traversable`'s browsing context
    /// group belongs to (HTML's "obtain a similar-origin window agent"): the group's historical
    /// agent cluster key map decides whether it is keyed by the origin or by its site; an
    /// origin new to the group is keyed as its response asks (`requested`, the
    /// `Origin-Agent-Cluster` header), or by the world's default. An opaque origin is its own
    /// site, so its cluster is keyed by it either way.
    fn event_loop_for(
        &mut self,
        traversable: NavigableKey,
        origin: &Origin,
        requested: Option<bool>,
    ) -> EventLoopKey {
        let group = self.navigables[traversable].group;
        let default = requested.unwrap_or(self.settings.origin_keyed_agent_clusters);
        let by_origin = *self.navigables[group]
            .agent_cluster_keys
            .entry(origin.clone())
            .or_insert(default);
        let key = if by_origin {
            origin.clone()
        } else {
            origin.site()
        };
        if let Some(l) = self.agent_event_loops.get(&(group, key.clone())) {
            return *l;
        }
        let label = format!("{} {}", self.navigables[group].label, key);
        let l = self.new_event_loop(label);
        self.agent_event_loops.insert((group, key), l);
        l
    }

    /// Whether a script running in `realm` can reach an object made in `owner`'s realm. HTML
    /// hands script objects only within one agent: documents of one browsing context group
    /// and one agent cluster (site, or origin when origin-keyed) share it, and with it their
    /// event loop. A WindowProxy reaches further: any window of the same browsing context
    /// group (cross-origin access is limited, not absent).
    fn can_reach(&self, realm: DocumentKey, owner: DocumentKey, window: bool) -> bool {
        if window {
            self.browsing_context_group(realm) == self.browsing_context_group(owner)
        } else {
            self.documents[realm].event_loop == self.documents[owner].event_loop
        }
    }

    fn make_active(&mut self, nav: NavigableKey, doc: DocumentKey) {
        let traversable = self.push_to_history(nav, doc);
        self.activity_changed(traversable);
    }

    /// Makes `doc` the active document of `nav`, at the end of its history; returns the
    /// traversable whose tree it is in.
    fn push_to_history(&mut self, nav: NavigableKey, doc: DocumentKey) -> NavigableKey {
        let n = &mut self.navigables[nav];
        n.history.truncate(if n.history.is_empty() {
            0
        } else {
            n.history_index + 1
        });
        n.history.push(doc);
        n.history_index = n.history.len() - 1;
        n.active_document = Some(doc);
        n.traversable
    }

    /// Removes the `<iframe>` whose content document is `doc`: its navigable is destroyed,
    /// with every document in it and below it.
    ///
    /// <https://html.spec.whatwg.org/multipage/document-sequences.html#destroy-a-child-navigable>
    fn remove_iframe(&mut self, doc: DocumentKey) -> Result<(), HostError> {
        let Some(nav) = self.documents[doc].navigable else {
            return Err(HostError::NotAnIframe(self.label(doc)));
        };
        if self.navigables[nav].container_document.is_none() {
            return Err(HostError::NotAnIframe(self.label(doc)));
        }
        if self.navigables[nav].destroyed {
            return Err(HostError::AlreadyRemoved(self.label(doc)));
        }
        self.harness_note(|w| format!("remove iframe {}", w.navigables[nav].label));
        self.destroy_a_child_navigable(nav);
        Ok(())
    }

    /// <https://html.spec.whatwg.org/multipage/document-sequences.html#destroy-a-child-navigable>:
    /// the navigable leaves its container document's list, its active document and its
    /// descendants are unloaded, and it is destroyed with every document of its history.
    fn destroy_a_child_navigable(&mut self, nav: NavigableKey) {
        let Some(container) = self.navigables[nav].container_document else {
            return;
        };
        if self.navigables[nav].destroyed {
            return;
        }
        let traversable = self.navigables[nav].traversable;
        self.documents[container]
            .child_navigables
            .retain(|&n| n != nav);
        if let Some(doc) = self.navigables[nav].active_document {
            self.unload_document_and_its_descendants(doc);
        }
        self.destroy_navigable(nav);
        self.activity_changed(traversable);
        self.wake_waits();
    }

    /// Destroys a navigable and all the documents of its session history.
    fn destroy_navigable(&mut self, nav: NavigableKey) {
        self.navigables[nav].destroyed = true;
        let docs = self.navigables[nav].history.clone();
        for doc in docs {
            self.destroy_document(doc);
        }
    }

    /// <https://html.spec.whatwg.org/multipage/document-lifecycle.html#destroy-a-document>,
    /// with the document's child navigables.
    fn destroy_document(&mut self, doc: DocumentKey) {
        if self.documents[doc].destroyed {
            return;
        }
        let children = self.documents[doc].child_navigables.clone();
        for child in children {
            self.destroy_navigable(child);
        }
        // HTML's "destroy a document" runs the unloading document cleanup steps too. A document
        // destroyed right after being unloaded (a navigation without the cache, a removed
        // iframe, a closed page) already ran them, and nothing can have run in between, so
        // they are not run twice; a document destroyed in the back/forward cache ran them when
        // it entered the cache, and may have gathered state since (a tool execution queued
        // for it), so they run again, for a document that has no node navigable.
        if self.documents[doc].in_bfcache {
            self.unloading_document_cleanup_steps(doc);
        }
        self.documents[doc].destroyed = true;
        self.documents[doc].in_bfcache = false;
        // Tasks whose document is destroyed can never run: the queues drop them.
        self.discard_tasks_of(doc);
        self.cancel_timers_of(doc);
        self.document_destroyed(doc);
    }

    /// Navigates `frame` (the navigable whose active document is `from`) to `url`; the new
    /// document is named `label`. With `keep_in_bfcache`, the old document goes into the
    /// back/forward cache instead of being destroyed.
    fn navigate(
        &mut self,
        from: DocumentKey,
        url: &str,
        label: &str,
        keep_in_bfcache: bool,
    ) -> Result<DocumentKey, HostError> {
        let url = parse_url(url)?;
        let nav = self
            .node_navigable(from)
            .ok_or_else(|| HostError::NotActive(self.label(from)))?;
        self.harness_note(|w| {
            format!(
                "navigate {} from {} to {}{}",
                w.navigables[nav].label,
                w.label(from),
                url,
                if keep_in_bfcache {
                    " (old document kept in bfcache)"
                } else {
                    ""
                }
            )
        });
        // Session history entries after the current one are dropped, their documents with them.
        let forward: Vec<DocumentKey> = {
            let n = &self.navigables[nav];
            n.history[n.history_index + 1..].to_vec()
        };
        for d in forward {
            self.destroy_document(d);
        }
        let new = self.create_document(nav, label, url, DocumentOptions::default());
        self.take_pending_request(label, new);
        self.unload_document_and_its_descendants(from);
        if keep_in_bfcache {
            self.documents[from].in_bfcache = true;
        } else {
            self.destroy_document(from);
        }
        self.make_active(nav, new);
        // An `about:srcdoc` document's response is its iframe's `srcdoc` markup, parsed
        // whole as the document is made (the engine's documents load at once).
        if let Some(markup) = self.take_pending_srcdoc(label) {
            let _ = self.parse_html_document(new, &markup);
        }
        // The new document has loaded: its container iframe hears of it.
        self.completely_finished_loading(new);
        self.wake_waits();
        Ok(new)
    }

    /// Traverses `doc`'s navigable back by one entry, restoring the previous document from the
    /// back/forward cache; the current one goes into the cache.
    fn go_back(&mut self, doc: DocumentKey) -> Result<DocumentKey, HostError> {
        let nav = self
            .node_navigable(doc)
            .ok_or_else(|| HostError::NotActive(self.label(doc)))?;
        let n = &self.navigables[nav];
        if n.history_index == 0 {
            return Err(HostError::NoHistory(self.label(doc)));
        }
        let previous = n.history[n.history_index - 1];
        if !self.documents[previous].in_bfcache {
            return Err(HostError::NotInBfcache(self.label(previous)));
        }
        self.harness_note(|w| {
            format!(
                "traverse {} back: {} restored from bfcache, {} enters it",
                w.navigables[nav].label,
                w.label(previous),
                w.label(doc)
            )
        });
        self.unload_document_and_its_descendants(doc);
        self.documents[doc].in_bfcache = true;
        self.documents[previous].in_bfcache = false;
        let n = &mut self.navigables[nav];
        n.history_index -= 1;
        n.active_document = Some(previous);
        let traversable = n.traversable;
        self.activity_changed(traversable);
        self.wake_waits();
        Ok(previous)
    }

    /// Closes a top-level traversable: it and every document in it are destroyed.
    ///
    /// <https://html.spec.whatwg.org/multipage/document-sequences.html#destroy-a-top-level-traversable>
    fn close(&mut self, doc: DocumentKey) -> Result<(), HostError> {
        let Some(nav) = self.documents[doc].navigable else {
            return Err(HostError::NotTopLevel(self.label(doc)));
        };
        if self.navigables[nav].parent.is_some() {
            return Err(HostError::NotTopLevel(self.label(doc)));
        }
        if self.navigables[nav].destroyed {
            return Err(HostError::AlreadyRemoved(self.label(doc)));
        }
        self.harness_note(|w| format!("close {}", w.navigables[nav].label));
        if let Some(top) = self.navigables[nav].active_document {
            self.unload_document_and_its_descendants(top);
        }
        self.destroy_navigable(nav);
        self.navigables[nav].active_document = None;
        self.activity_changed(nav);
        self.wake_waits();
        Ok(())
    }

    /// <https://html.spec.whatwg.org/multipage/document-lifecycle.html#unload-a-document-and-its-descendants>:
    /// a fully active document's descendants are unloaded first, then the document itself,
    /// each running the unloading document cleanup steps other specifications define. (A
    /// document already in the back/forward cache was unloaded when it entered it.)
    fn unload_document_and_its_descendants(&mut self, doc: DocumentKey) {
        if !self.is_fully_active(doc) {
            return;
        }
        let children: Vec<DocumentKey> = self.documents[doc]
            .child_navigables
            .iter()
            .filter(|n| !self.navigables[**n].destroyed)
            .filter_map(|n| self.navigables[*n].active_document)
            .collect();
        for child in children {
            self.unload_document_and_its_descendants(child);
        }
        self.unloading_document_cleanup_steps(doc);
    }

    /// Which documents of `traversable`'s tree are fully active may have changed: timers of
    /// documents that stopped being fully active stop counting (and count on when they are
    /// again), and the specifications above hear of it.
    fn activity_changed(&mut self, traversable: NavigableKey) {
        self.pause_or_resume_timers();
        self.tree_changed(traversable);
    }

    /// Queues the task that takes a loading document to `stage` (`Interactive`: the
    /// `DOMContentLoaded` task; `Complete`: the `load` task), on the DOM manipulation task
    /// source.
    fn queue_lifecycle(&mut self, doc: DocumentKey, stage: Lifecycle) {
        self.queue_global_task(
            doc,
            TaskSource::DomManipulation,
            TaskAction::Lifecycle { stage },
        );
    }

    /// The `DOMContentLoaded` or `load` task: the document reaches the stage. A document with
    /// a tree also fires the event (`DOMContentLoaded` at the document, bubbling to the
    /// `Window`; `load` at the `Window`); a document without one fires nothing, as before
    /// documents had trees.
    fn reach_lifecycle(&mut self, doc: DocumentKey, stage: Lifecycle) {
        if self.documents[doc].lifecycle >= stage {
            return;
        }
        if let Some(root) = self.document_node(doc) {
            match stage {
                Lifecycle::Interactive => {
                    self.fire_event(root, EventInit::new("DOMContentLoaded").bubbles());
                }
                Lifecycle::Complete => {
                    self.fire_event_at_window(doc, EventInit::new("load"));
                }
                Lifecycle::Loading => {}
            }
        }
        self.documents[doc].lifecycle = stage;
        self.lifecycle_reached(doc, stage);
        if stage == Lifecycle::Complete {
            self.completely_finished_loading(doc);
        }
    }

    /// The last step of <https://html.spec.whatwg.org/multipage/document-lifecycle.html#completely-finish-loading>:
    /// when the document's navigable has an `<iframe>` element as its container, an element
    /// task (DOM manipulation) runs the iframe load event steps for it.
    fn completely_finished_loading(&mut self, doc: DocumentKey) {
        let Some(nav) = self.documents[doc].navigable else {
            return;
        };
        let Some(element) = self.navigables[nav].container_element else {
            return;
        };
        let Some(container) = self.navigables[nav].container_document else {
            return;
        };
        self.queue_global_task(
            container,
            TaskSource::DomManipulation,
            TaskAction::Dom(DomTask::IframeLoad {
                element,
                navigable: nav,
            }),
        );
    }

    /// A document without a browsing context, made by a script of `creator`: DOM's
    /// `createHTMLDocument()` and `DOMParser`'s `parseFromString()` (HTML, "create a document
    /// without a browsing context"). Its URL is `about:blank`, its origin the creator's; it is
    /// no navigable's document, so never fully active, and scripting is disabled for it.
    /// Named `{creator}-frameless` (then `_2`...) in traces.
    ///
    /// <https://dom.spec.whatwg.org/#dom-domimplementation-createhtmldocument>
    fn create_a_document_without_a_browsing_context(
        &mut self,
        creator: DocumentKey,
    ) -> DocumentKey {
        let label = self.next_document_label(&format!("{}-frameless", self.label(creator)));
        let c = &self.documents[creator];
        let document = Document {
            label,
            url: Url::parse("about:blank").expect("about:blank is a URL"),
            origin: c.origin.clone(),
            navigable: None,
            created_by: Some(creator),
            child_navigables: Vec::new(),
            event_loop: c.event_loop,
            lifecycle: Lifecycle::Complete,
            destroyed: false,
            in_bfcache: false,
            tools_inherited_policy: c.tools_inherited_policy,
            tools_declared_policy: None,
            window_listeners: Vec::new(),
            secure_context: c.secure_context,
            sandbox: SandboxFlags::default(),
        };
        let doc = self.documents.insert(document);
        self.document_created(doc);
        doc
    }

    /// The first of `base`, `base_2`, `base_3`, ... that no document is named and no planned
    /// navigation will name.
    fn next_document_label(&self, base: &str) -> String {
        let taken = |l: &str| {
            self.documents.values().any(|d| d.label == l)
                || footprint::untracked(|| {
                    self.dom.pending_requests.contains_key(l)
                        || self.dom.pending_srcdoc.contains_key(l)
                })
        };
        if !taken(base) {
            return base.into();
        }
        (2..)
            .map(|n| format!("{base}_{n}"))
            .find(|l| !taken(l))
            .unwrap_or_default()
    }
}

impl<H: Host> Navigables for H {}

impl<U: Upper> HostState<U> {
    /// <https://html.spec.whatwg.org/multipage/document-sequences.html#fully-active>
    pub fn is_fully_active(&self, doc: DocumentKey) -> bool {
        let Some(d) = self.documents.get(doc) else {
            return false;
        };
        if d.destroyed {
            return false;
        }
        // A document without a browsing context is no navigable's document.
        let Some(nav) = d.navigable.map(|n| &self.navigables[n]) else {
            return false;
        };
        // A document is active when it is its navigable's active document...
        if nav.destroyed || nav.active_document != Some(doc) {
            return false;
        }
        // ...and fully active when, besides, its navigable is top-level or its container
        // document is fully active.
        match nav.container_document {
            None => true,
            Some(container) => self.is_fully_active(container),
        }
    }

    /// <https://html.spec.whatwg.org/multipage/document-sequences.html#doc-container-document>'s
    /// counterpart: the document's node navigable, if the document is its navigable's active
    /// document.
    pub fn node_navigable(&self, doc: DocumentKey) -> Option<NavigableKey> {
        let d = self.documents.get(doc)?;
        let key = d.navigable?;
        let nav = self.navigables.get(key)?;
        (!d.destroyed && !nav.destroyed && nav.active_document == Some(doc)).then_some(key)
    }

    /// The browsing context group of `doc`'s navigable (named by its first traversable).
    pub fn browsing_context_group(&self, doc: DocumentKey) -> NavigableKey {
        let traversable = self.traversable_of(doc);
        self.navigables[traversable].group
    }

    /// <https://html.spec.whatwg.org/multipage/webappapis.html#is-origin-keyed>: whether the
    /// agent cluster of a document's agent is origin-keyed: what its browsing context group's
    /// historical agent cluster key map holds for its origin (an opaque origin is its own site,
    /// so always; a document without a browsing context is in its creator's group).
    pub fn is_origin_keyed(&self, doc: DocumentKey) -> bool {
        let traversable = self.navigables[self.home_navigable(doc)].traversable;
        let group = self.navigables[traversable].group;
        let origin = &self.documents[doc].origin;
        if matches!(origin, Origin::Opaque(_)) {
            return true;
        }
        self.navigables[group]
            .agent_cluster_keys
            .get(origin)
            .copied()
            .unwrap_or(self.settings.origin_keyed_agent_clusters)
    }

    /// The navigable a document was loaded in or, for one without a browsing context, the
    /// navigable of the document whose script created it (whose realm it lives in).
    pub fn home_navigable(&self, doc: DocumentKey) -> NavigableKey {
        let mut d = doc;
        loop {
            let document = &self.documents[d];
            match (document.navigable, document.created_by) {
                (Some(nav), _) => return nav,
                (None, Some(creator)) => d = creator,
                (None, None) => unreachable!("a document without a browsing context has a creator"),
            }
        }
    }

    /// <https://html.spec.whatwg.org/multipage/nav-history-apis.html#windowproxy>: script never
    /// holds a Window, only its browsing context's WindowProxy, whose [[Window]] is the
    /// navigable's active Window at each use. `window` is the Window (named by its document) a
    /// value was taken from; the result is the Window that value reaches now. A destroyed
    /// navigable's proxy keeps its last Window.
    pub fn window_proxy_window(&self, window: DocumentKey) -> DocumentKey {
        let Some(d) = self.documents.get(window) else {
            return window;
        };
        match d.navigable.and_then(|n| self.navigables.get(n)) {
            Some(nav) if !nav.destroyed => nav.active_document.unwrap_or(window),
            _ => window,
        }
    }

    /// A value as a script's use of it reaches: a WindowProxy (`Value::Window` with
    /// [`Facet::Window`]) is its navigable's active Window at each use (see
    /// [`Self::window_proxy_window`]); every other value is itself (a Document or a ModelContext
    /// is its own document's, and a scenario's name for a document names that document).
    pub fn through_window_proxy(&self, value: &Value) -> Value {
        match value {
            Value::Window(d, Facet::Window) => {
                Value::Window(self.window_proxy_window(*d), Facet::Window)
            }
            other => other.clone(),
        }
    }

    /// <https://html.spec.whatwg.org/multipage/document-sequences.html#inclusive-descendant-navigables>
    /// of a document: its node navigable, then every navigable below it in tree order.
    pub fn inclusive_descendant_navigables(&self, doc: DocumentKey) -> Vec<NavigableKey> {
        let mut out = Vec::new();
        if let Some(nav) = self.node_navigable(doc) {
            out.push(nav);
        }
        self.collect_descendants(doc, &mut out);
        out
    }

    /// <https://html.spec.whatwg.org/multipage/document-sequences.html#descendant-navigables>
    pub fn descendant_navigables(&self, doc: DocumentKey) -> Vec<NavigableKey> {
        let mut out = Vec::new();
        self.collect_descendants(doc, &mut out);
        out
    }

    /// Calls `f` with the active document of each of `doc`'s inclusive descendant navigables,
    /// in tree order, until it returns false; returns whether it never did. Allocates nothing.
    pub fn every_inclusive_descendant_document(
        &self,
        doc: DocumentKey,
        f: &mut impl FnMut(DocumentKey) -> bool,
    ) -> bool {
        if self.node_navigable(doc).is_some() && !f(doc) {
            return false;
        }
        self.every_descendant_document(doc, f)
    }

    fn every_descendant_document(
        &self,
        doc: DocumentKey,
        f: &mut impl FnMut(DocumentKey) -> bool,
    ) -> bool {
        self.documents[doc].child_navigables.iter().all(|&child| {
            let nav = &self.navigables[child];
            match nav.active_document {
                Some(d) if !nav.destroyed => f(d) && self.every_descendant_document(d, f),
                _ => true,
            }
        })
    }

    fn collect_descendants(&self, doc: DocumentKey, out: &mut Vec<NavigableKey>) {
        for &child in &self.documents[doc].child_navigables {
            let nav = &self.navigables[child];
            if nav.destroyed {
                continue;
            }
            out.push(child);
            if let Some(active) = nav.active_document {
                self.collect_descendants(active, out);
            }
        }
    }

    /// The top-level traversable a document's navigable belongs to.
    pub fn traversable_of(&self, doc: DocumentKey) -> NavigableKey {
        self.navigables[self.home_navigable(doc)].traversable
    }

    /// The label the scenario gave a document.
    pub fn label(&self, doc: DocumentKey) -> String {
        self.documents
            .get(doc)
            .map(|d| d.label.clone())
            .unwrap_or_else(|| "(gone)".into())
    }

    pub fn document(&self, doc: DocumentKey) -> &Document {
        &self.documents[doc]
    }

    pub fn navigable(&self, nav: NavigableKey) -> &Navigable {
        &self.navigables[nav]
    }

    /// The document a scenario named `label`, if any.
    pub fn document_named(&self, label: &str) -> Option<DocumentKey> {
        self.documents
            .iter()
            .find(|(_, d)| d.label == label)
            .map(|(k, _)| k)
    }
}

fn parse_url(url: &str) -> Result<Url, HostError> {
    // The URL parser reads a scalar value string (a lone surrogate becomes U+FFFD).
    Url::parse(&crate::text::js_string::to_scalar_values(url)).map_err(|e| HostError::BadUrl {
        url: url.into(),
        reason: e.to_string(),
    })
}
