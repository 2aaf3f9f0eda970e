//! The `iframe` element of a document's markup: the content navigable it gets when it becomes
//! connected to a document that has a browsing context, and loses when it leaves; its `src`
//! and `srcdoc`, which that navigable is navigated to; its `name`, the navigable's target name
//! (what a form's `target` names); and the `load` event it fires each time its content
//! document has loaded.
//!
//! <https://html.spec.whatwg.org/multipage/iframe-embed-object.html#the-iframe-element>
//!
//! A scenario's `frame` line is a different thing: an iframe the harness inserts, whose
//! document the scenario names and scripts; an iframe of markup has no name in the scenario's
//! language, and its documents are named after its `name` (or `id`) attribute in traces.
//!
//! Left out, each for a reason:
//! - Lazy loading (`loading=lazy`) needs layout: every iframe loads as one in the viewport
//!   does.
//! - Of the `sandbox` attribute's flags, the three that change what the engine models: the
//!   sandboxed origin browsing context flag (a new opaque origin, unless `allow-same-origin`),
//!   the sandboxed scripts browsing context flag (scripting is disabled, unless
//!   `allow-scripts`) and the sandboxed forms browsing context flag (forms are not submitted,
//!   unless `allow-forms`). The others (popups, top navigation, modals, downloads, ...)
//!   guard what no scenario does, and are not kept.
//! - The `allow` attribute is the container's permissions policy (read by "tools" as for a
//!   `frame` line); `referrerpolicy`, `credentialless` and `allowfullscreen` change nothing
//!   the engine models.
//! - An `about:srcdoc` document's markup is parsed whole when the navigation commits (the
//!   engine's documents load at once), so its `load` comes in the task after.

use url::Url;

use super::dom::dispatch::Dispatch;
use super::dom::node::Element;
use super::dom::EventInit;
use super::keys::{DocumentKey, NavigableKey, NodeKey};
use super::navigable::{ChildNavigable, DocumentOptions, Navigables};
use super::parallel::ParallelStepKind;
use super::spec::{
    DESTROY_A_CHILD_NAVIGABLE, IFRAME_LOAD_EVENT_STEPS, IFRAME_POST_CONNECTION_STEPS,
    PROCESS_THE_IFRAME_ATTRIBUTES,
};
use super::Host;
use crate::step;

/// The `iframe` element's steps.
pub trait IframeElements: Host {
    /// The element's content navigable, if it has one.
    fn content_navigable(&self, element: NodeKey) -> Option<NavigableKey> {
        self.navigables
            .iter()
            .find(|(_, n)| n.container_element == Some(element) && !n.destroyed)
            .map(|(k, _)| k)
    }

    /// The iframe HTML element post-connection steps, for an `iframe` that became connected.
    fn iframe_post_connection_steps(&mut self, element: NodeKey) {
        if !self.is_html(element, "iframe") || !self.is_connected(element) {
            return;
        }
        let doc = self.node_document(element);
        // Its document has no browsing context (a document of no navigable, or one that is
        // not fully active): nothing is made.
        if !self.is_fully_active(doc) || self.content_navigable(element).is_some() {
            return;
        }
        // 1. Create a new child navigable: its first document is about:blank, with the
        //    container document's origin; its declared origin (for the 'src' allowlist) is its
        //    `src` URL's origin, or the container document's when it has none.
        let src_url = self.iframe_src_url(element);
        let src_origin = match &src_url {
            Some(url) => self.origin_of_url(url),
            None => self.documents[doc].origin.clone(),
        };
        let base = self.iframe_label_base(element);
        let label = self.next_document_label(&base);
        let allow = self.attribute(element, "allow").map(str::to_string);
        // 2. The sandbox attribute, parsed into the iframe sandboxing flag set (before the
        //    first document is made, which is created with it).
        let sandbox = self
            .attribute(element, "sandbox")
            .map(parse_a_sandboxing_directive)
            .unwrap_or_default();
        let child = ChildNavigable {
            label: &label,
            allow: allow.as_deref(),
            src_origin,
            container_element: Some(element),
            sandbox,
        };
        let blank = Url::parse("about:blank").expect("about:blank is a URL");
        if let Err(e) = self.create_a_child_navigable(doc, child, blank, DocumentOptions::default())
        {
            step!(
                self,
                IFRAME_POST_CONNECTION_STEPS,
                "1",
                Some(doc),
                |w| format!(
                    "{} gets no content navigable: {e}",
                    w.describe_node(element)
                )
            );
            return;
        }
        step!(
            self,
            IFRAME_POST_CONNECTION_STEPS,
            "1",
            Some(doc),
            |w| format!(
                "{} gets a content navigable, its document {label}",
                w.describe_node(element)
            )
        );
        if self.has_attribute(element, "sandbox") {
            step!(
                self,
                IFRAME_POST_CONNECTION_STEPS,
                "2",
                Some(doc),
                |w| format!("{} is sandboxed: {sandbox}", w.describe_node(element))
            );
        }
        // 3. Process the iframe attributes, as an initial insertion.
        step!(self, IFRAME_POST_CONNECTION_STEPS, "3", Some(doc));
        self.process_the_iframe_attributes(element, true);
    }

    /// The `iframe` HTML element removing steps: destroy a child navigable.
    fn iframe_removing_steps(&mut self, element: NodeKey) {
        // 1-2. Its content navigable, if any; null: return.
        let Some(nav) = self.content_navigable(element) else {
            return;
        };
        let doc = self.node_document(element);
        step!(
            self,
            DESTROY_A_CHILD_NAVIGABLE,
            "1",
            Some(doc),
            |w| format!(
                "{} leaves its document: {} is destroyed",
                w.describe_node(element),
                w.navigables[nav].label
            )
        );
        // 3-. The navigable goes, with its documents and theirs.
        self.destroy_a_child_navigable(nav);
    }

    /// An iframe's `src` or `srcdoc` was set, changed or removed: with a content navigable,
    /// its attributes are processed again (`src` only while it has no `srcdoc`).
    fn iframe_attribute_changed(&mut self, element: NodeKey, name: &str) {
        // The sandbox attribute set, changed or removed: the iframe sandboxing flag set is
        // parsed again, and takes effect at the next navigation.
        if name == "sandbox" {
            if let Some(nav) = self.content_navigable(element) {
                let flags = self
                    .attribute(element, "sandbox")
                    .map(parse_a_sandboxing_directive)
                    .unwrap_or_default();
                self.navigables[nav].iframe_sandbox = flags;
            }
            return;
        }
        let relevant = match name {
            "srcdoc" => true,
            "src" => !self.has_attribute(element, "srcdoc"),
            _ => false,
        };
        if relevant && self.content_navigable(element).is_some() {
            self.process_the_iframe_attributes(element, false);
        }
    }

    /// <https://html.spec.whatwg.org/multipage/iframe-embed-object.html#process-the-iframe-attributes>
    fn process_the_iframe_attributes(&mut self, element: NodeKey, initial_insertion: bool) {
        let doc = self.node_document(element);
        // 1. A `srcdoc` attribute: navigate to about:srcdoc, its value the response.
        if let Some(markup) = self.attribute(element, "srcdoc").map(str::to_string) {
            step!(
                self,
                PROCESS_THE_IFRAME_ATTRIBUTES,
                "1.3",
                Some(doc),
                |w| format!("{} navigates to about:srcdoc", w.describe_node(element))
            );
            self.navigate_an_iframe(element, "about:srcdoc".into(), Some(markup));
            return;
        }
        // 2.1. The URL, from the shared attribute processing steps.
        let url = self.shared_attribute_processing_steps(element);
        // 2.2. Null: return.
        let Some(url) = url else {
            step!(
                self,
                PROCESS_THE_IFRAME_ATTRIBUTES,
                "2.2",
                Some(doc),
                |w| format!(
                    "{}'s URL is that of a document it is in: not navigated",
                    w.describe_node(element)
                )
            );
            return;
        };
        step!(
            self,
            PROCESS_THE_IFRAME_ATTRIBUTES,
            "2.1",
            Some(doc),
            |w| format!("{}'s URL is {url}", w.describe_node(element))
        );
        // 2.3. about:blank on the initial insertion: the iframe load event steps, now.
        if initial_insertion && matches_about_blank(&url) {
            step!(self, PROCESS_THE_IFRAME_ATTRIBUTES, "2.3", Some(doc));
            self.iframe_load_event_steps(element);
            return;
        }
        // 2.7. Navigate an iframe or frame.
        step!(self, PROCESS_THE_IFRAME_ATTRIBUTES, "2.7", Some(doc));
        self.navigate_an_iframe(element, url.to_string(), None);
    }

    /// <https://html.spec.whatwg.org/multipage/iframe-embed-object.html#shared-attribute-processing-steps-for-iframe-and-frame-elements>:
    /// about:blank, or the `src` URL when it has one that parses; null when a navigable the
    /// iframe is in already shows that URL (fragments aside), which stops an iframe loading
    /// its own page forever.
    fn shared_attribute_processing_steps(&mut self, element: NodeKey) -> Option<Url> {
        // 1-2. about:blank, unless `src` is given, not empty, and parses.
        let url = self
            .iframe_src_url(element)
            .unwrap_or_else(|| Url::parse("about:blank").expect("about:blank is a URL"));
        // 3. An inclusive ancestor navigable of the element's node navigable shows it.
        let doc = self.node_document(element);
        let mut up = self.node_navigable(doc);
        while let Some(nav) = up {
            let n = &self.navigables[nav];
            if let Some(active) = n.active_document {
                if without_fragment(&self.documents[active].url) == without_fragment(&url) {
                    return None;
                }
            }
            up = n.parent;
        }
        // 4-5. (The URL and history update steps of about:blank change nothing here.)
        Some(url)
    }

    /// The `src` attribute's URL, parsed relative to the element's node document: `None`
    /// without one, for an empty one, and for one that does not parse.
    fn iframe_src_url(&self, element: NodeKey) -> Option<Url> {
        let src = self.attribute(element, "src").filter(|s| !s.is_empty())?;
        let doc = self.node_document(element);
        // The URL parser reads a scalar value string (a lone surrogate becomes U+FFFD).
        let src = crate::text::js_string::to_scalar_values(src);
        self.documents[doc].url.join(&src).ok()
    }

    /// <https://html.spec.whatwg.org/multipage/iframe-embed-object.html#navigate-an-iframe-or-frame>:
    /// the content navigable navigates (its response in parallel, then the commit in a task of
    /// its active document, as a script's navigation does); `srcdoc` markup, when given, is
    /// the about:srcdoc document's response.
    fn navigate_an_iframe(&mut self, element: NodeKey, url: String, srcdoc: Option<String>) {
        let Some(nav) = self.content_navigable(element) else {
            return;
        };
        let Some(from) = self.navigables[nav].active_document else {
            return;
        };
        let base = self.iframe_label_base(element);
        let label = self.next_document_label(&base);
        if let Some(markup) = srcdoc {
            self.dom.pending_srcdoc.insert(label.clone(), markup);
        }
        let queue_label = format!("navigation of {}", self.label(from));
        self.in_parallel(
            queue_label,
            vec![ParallelStepKind::NavigationResponse {
                from,
                url,
                label,
                keep_in_bfcache: false,
            }],
        );
    }

    /// <https://html.spec.whatwg.org/multipage/iframe-embed-object.html#iframe-load-event-steps>:
    /// `load` at the element (the mute flag and the load timing info change nothing here).
    fn iframe_load_event_steps(&mut self, element: NodeKey) {
        let doc = self.node_document(element);
        step!(self, IFRAME_LOAD_EVENT_STEPS, "6", Some(doc), |w| format!(
            "load at {}",
            w.describe_node(element)
        ));
        self.fire_event(element, EventInit::new("load"));
    }

    /// The element task "completely finish loading" queued: the iframe load event steps, if
    /// `navigable` is still the element's content navigable (an iframe removed, or moved and
    /// given another, meanwhile fires nothing).
    fn iframe_load_task(&mut self, element: NodeKey, navigable: NavigableKey) {
        if self.dom.nodes.get(element).is_some()
            && self.content_navigable(element) == Some(navigable)
        {
            self.iframe_load_event_steps(element);
        }
    }

    /// What an iframe's documents are named after: its `name`, else its `id`, else
    /// `iframe` (a name made only of letters, digits, `_` and `-`; anything else is left
    /// for the next).
    fn iframe_label_base(&self, element: NodeKey) -> String {
        let usable = |s: &str| {
            !s.is_empty()
                && s.len() <= 64
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        };
        let name = self.attribute(element, "name").filter(|s| usable(s));
        let id = self
            .element(element)
            .and_then(Element::id)
            .filter(|s| usable(s));
        name.or(id).unwrap_or("iframe").to_string()
    }
}

impl<H: Host> IframeElements for H {}

/// The sandboxing flags the engine keeps (set: the capability is taken away).
///
/// <https://html.spec.whatwg.org/multipage/browsers.html#sandboxing-flag-set>
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SandboxFlags {
    /// The sandboxed origin browsing context flag: documents get a new opaque origin.
    pub origin: bool,
    /// The sandboxed scripts browsing context flag: scripting is disabled.
    pub scripts: bool,
    /// The sandboxed forms browsing context flag: forms are not submitted.
    pub forms: bool,
}

impl SandboxFlags {
    /// Every flag either set has.
    pub fn union(self, other: SandboxFlags) -> SandboxFlags {
        SandboxFlags {
            origin: self.origin || other.origin,
            scripts: self.scripts || other.scripts,
            forms: self.forms || other.forms,
        }
    }
}

impl std::fmt::Display for SandboxFlags {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let set: Vec<&str> = [
            (self.origin, "origin"),
            (self.scripts, "scripts"),
            (self.forms, "forms"),
        ]
        .into_iter()
        .filter(|(on, _)| *on)
        .map(|(_, name)| name)
        .collect();
        if set.is_empty() {
            f.write_str("no flag the engine keeps")
        } else {
            write!(f, "sandboxed {}", set.join(", "))
        }
    }
}

/// <https://html.spec.whatwg.org/multipage/browsers.html#parse-a-sandboxing-directive>: every
/// flag is set but those the attribute's tokens (ASCII case-insensitive, split on ASCII
/// whitespace) allow.
pub fn parse_a_sandboxing_directive(value: &str) -> SandboxFlags {
    let allows = |token: &str| {
        value
            .split(|c: char| c.is_ascii_whitespace())
            .any(|t| t.eq_ignore_ascii_case(token))
    };
    SandboxFlags {
        origin: !allows("allow-same-origin"),
        scripts: !allows("allow-scripts"),
        forms: !allows("allow-forms"),
    }
}

/// <https://html.spec.whatwg.org/multipage/urls-and-fetching.html#matches-about:blank>
fn matches_about_blank(url: &Url) -> bool {
    url.scheme() == "about" && url.path() == "blank" && url.username().is_empty()
}

/// The URL serialized without its fragment.
fn without_fragment(url: &Url) -> String {
    let mut u = url.clone();
    u.set_fragment(None);
    u.to_string()
}

impl<U: super::seam::Upper> super::HostState<U> {
    /// A navigable's target name, which a form's `target` (or a link's) names: an iframe of
    /// markup's is its `name` attribute; any other's is its name in the scenario.
    ///
    /// <https://html.spec.whatwg.org/multipage/document-sequences.html#nav-target>
    pub fn target_name(&self, nav: NavigableKey) -> &str {
        let n = &self.navigables[nav];
        match n.container_element {
            Some(element) => self.attribute(element, "name").unwrap_or(""),
            None => &n.label,
        }
    }

    /// <https://html.spec.whatwg.org/multipage/webappapis.html#concept-n-noscript>: whether
    /// scripting is disabled for `doc` (it has no browsing context, or is sandboxed without
    /// `allow-scripts`).
    pub fn scripting_is_disabled(&self, doc: DocumentKey) -> bool {
        let d = &self.documents[doc];
        d.destroyed || d.navigable.is_none() || d.sandbox.scripts
    }

    /// The `iframe` element whose content navigable `doc` is in, for an iframe of markup.
    pub fn container_element(&self, doc: DocumentKey) -> Option<NodeKey> {
        self.navigables[self.documents[doc].navigable?].container_element
    }
}
