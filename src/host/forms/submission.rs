//! Form submission: `submit()`, `requestSubmit()`, the form submission algorithm, the entry
//! list and its `formdata` event, the encodings, the submitter's overrides, and the planned
//! navigation that carries the result to the target navigable.
//!
//! <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#form-submission-2>
//!
//! Where the simulation departs: the entry list is always UTF-8 (`accept-charset` is not
//! read); a `javascript:` URL is not evaluated (there is no JavaScript engine: the navigation
//! is taken as one whose script gave no string, so the document stays); a `mailto:` URL goes
//! to no mail client (the document stays); `historyHandling` "replace" is recorded in the
//! request but the host's navigation always adds an entry; the sandboxed forms flag is not
//! read. A new document made by the navigation is named after the target's active document
//! with `_2`, `_3`, ... added (the first free name), since the scenario cannot name it ahead.

use url::Url;

use super::super::dom::dispatch::{Dispatch, EventInit};
use super::super::dom::{DomError, DomTask, NavigationRequest};
use super::super::event_loop::{task_queue, EventLoops, TaskAction, TaskSource};
use super::super::keys::{DocumentKey, EventKey, NavigableKey, NodeKey};
use super::super::navigable::{DocumentOptions, Lifecycle, Navigables};
use super::super::parallel::ParallelStepKind;
use super::super::shared::{value_hash, Access};
use super::super::spec::{
    CONSTRUCTING_THE_ENTRY_LIST, FORM_SUBMISSION_ALGORITHM, PLAN_TO_NAVIGATE,
};
use super::super::Host;
use super::input::InputType;
use super::validation::Validation;
use super::Control;
use crate::step;

/// An entry of an entry list.
///
/// <https://xhr.spec.whatwg.org/#concept-formdata-entry>
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Entry {
    pub name: String,
    pub value: EntryValue,
}

/// An entry's value: a string, or a file (by its name and type: a file input with no file
/// selected sends an empty one).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum EntryValue {
    String(String),
    File { name: String, content_type: String },
}

impl Entry {
    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#create-an-entry>
    /// with a string value: the name and the value are converted to scalar value strings (each
    /// lone surrogate becomes U+FFFD).
    pub fn string(name: &str, value: &str) -> Entry {
        use crate::text::js_string::to_scalar_values;
        Entry {
            name: to_scalar_values(name).into_owned(),
            value: EntryValue::String(to_scalar_values(value).into_owned()),
        }
    }

    /// The name-value pair (a file's value is its name).
    pub fn pair(&self) -> (String, String) {
        let value = match &self.value {
            EntryValue::String(s) => s.clone(),
            EntryValue::File { name, .. } => name.clone(),
        };
        (self.name.clone(), value)
    }
}

/// A submission's method.
///
/// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#attr-fs-method>
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
    Dialog,
}

/// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#attr-fs-enctype>
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enctype {
    UrlEncoded,
    FormData,
    TextPlain,
}

/// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#converting-an-entry-list-to-a-list-of-name-value-pairs>:
/// line breaks in names and values become CRLF.
pub fn name_value_pairs(entries: &[Entry]) -> Vec<(String, String)> {
    let crlf = |s: &str| {
        s.replace("\r\n", "\n")
            .replace('\r', "\n")
            .replace('\n', "\r\n")
    };
    entries
        .iter()
        .map(|e| {
            let (n, v) = e.pair();
            (crlf(&n), crlf(&v))
        })
        .collect()
}

/// <https://url.spec.whatwg.org/#concept-urlencoded-serializer>, UTF-8.
pub fn urlencoded(pairs: &[(String, String)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}

/// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#text/plain-encoding-algorithm>
pub fn text_plain(pairs: &[(String, String)]) -> String {
    pairs.iter().map(|(n, v)| format!("{n}={v}\r\n")).collect()
}

/// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#multipart/form-data-encoding-algorithm>:
/// the body and its boundary. The boundary is derived from the entries (not random), so
/// that a run replays byte for byte.
pub fn multipart(entries: &[Entry]) -> (String, String) {
    let boundary = format!("----webmcp-ref-{:016x}", value_hash(entries));
    let escape = |s: &str| {
        s.replace("\r\n", "\n")
            .replace('\r', "\n")
            .replace('\n', "%0A")
            .replace('"', "%22")
    };
    let mut body = String::new();
    for e in entries {
        body.push_str(&format!("--{boundary}\r\n"));
        match &e.value {
            EntryValue::String(v) => {
                body.push_str(&format!(
                    "Content-Disposition: form-data; name=\"{}\"\r\n\r\n{}\r\n",
                    escape(&e.name),
                    v.replace("\r\n", "\n")
                        .replace('\r', "\n")
                        .replace('\n', "\r\n")
                ));
            }
            EntryValue::File { name, content_type } => {
                body.push_str(&format!(
                    "Content-Disposition: form-data; name=\"{}\"; filename=\"{}\"\r\nContent-Type: {}\r\n\r\n\r\n",
                    escape(&e.name),
                    escape(name),
                    content_type
                ));
            }
        }
    }
    body.push_str(&format!("--{boundary}--\r\n"));
    (body, boundary)
}

/// Where the form submission algorithm tells the specifications above it how a submission
/// went ([`Host::form_submission_reached`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SubmissionPoint {
    /// Interactive validation failed (step 5.4.2): nothing was submitted.
    Invalid,
    /// The `submit` event was dispatched (step 5.7): whether it was canceled, and what its
    /// listeners did to it, is on the event.
    SubmitEvent(EventKey),
    /// `form.submit()` submitted without a `submit` event (step 5 skipped).
    WithoutEvent,
    /// The form's document is sandboxed without `allow-forms` (step 4): nothing happened.
    Sandboxed,
}

/// Submitting forms.
pub trait Submission: Host {
    /// <https://html.spec.whatwg.org/multipage/forms.html#dom-form-submit>: submits from the
    /// form itself, with the "submitted from `submit()` method" flag (no validation, no
    /// `submit` event).
    fn submit(&mut self, form: NodeKey) {
        self.submit_form(form, form, true);
    }

    /// <https://html.spec.whatwg.org/multipage/forms.html#dom-form-requestsubmit>
    fn request_submit(
        &mut self,
        form: NodeKey,
        submitter: Option<NodeKey>,
    ) -> Result<(), DomError> {
        let submitter = match submitter {
            // 1. A submitter must be a submit button whose owner is this form.
            Some(s) => {
                if !self.is_submit_button(s) {
                    return Err(DomError::Type(
                        "the submitter is not a submit button".into(),
                    ));
                }
                if self.form_owner(s) != Some(form) {
                    return Err(DomError::NotFound(
                        "the submitter's form owner is not this form".into(),
                    ));
                }
                s
            }
            // 2. Otherwise the form itself.
            None => form,
        };
        // 3. Submit the form from the submitter.
        self.submit_form(form, submitter, false);
        Ok(())
    }

    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#form-submission-algorithm>,
    /// from `submitter` (a submit button, or the form itself).
    fn submit_form(&mut self, form: NodeKey, submitter: NodeKey, from_submit_method: bool) {
        let doc = self.node_document(form);
        // 1. A form that cannot navigate is not submitted.
        if self.cannot_navigate(form) {
            step!(
                self,
                FORM_SUBMISSION_ALGORITHM,
                "1",
                Some(doc),
                |w| format!(
                    "{} cannot navigate (not connected, or its document not fully active)",
                    w.describe_node(form)
                )
            );
            return;
        }
        // 2. Nor one whose entry list is being constructed.
        if self
            .form_flags(form)
            .is_some_and(|f| f.constructing_entry_list)
        {
            step!(
                self,
                FORM_SUBMISSION_ALGORITHM,
                "2",
                Some(doc),
                |w| format!("{} is constructing its entry list", w.describe_node(form))
            );
            return;
        }
        // 3-4. The form's document; sandboxed without `allow-forms`: return.
        if self.documents[doc].sandbox.forms {
            step!(
                self,
                FORM_SUBMISSION_ALGORITHM,
                "4",
                Some(doc),
                "the document is sandboxed without allow-forms: nothing is submitted"
            );
            self.form_submission_reached(form, SubmissionPoint::Sandboxed);
            return;
        }
        if from_submit_method {
            self.form_submission_reached(form, SubmissionPoint::WithoutEvent);
        }
        // 5. Not from submit(): the submission events.
        if !from_submit_method {
            // 5.1. Already firing them: return.
            if self
                .form_flags(form)
                .is_some_and(|f| f.firing_submission_events)
            {
                step!(
                    self,
                    FORM_SUBMISSION_ALGORITHM,
                    "5.1",
                    Some(doc),
                    |w| format!(
                        "{} is already firing its submission events",
                        w.describe_node(form)
                    )
                );
                return;
            }
            // 5.2. Firing them now.
            self.set_firing_submission_events(form, true);
            // 5.3. Each submittable element's user validity becomes true.
            for field in self.submittable_elements(form) {
                if let Some(a) = self.association_mut(field) {
                    a.user_validity = true;
                }
            }
            // 5.4. Unless the submitter's no-validate state is true, interactively validate.
            if !self.no_validate_state(submitter, form)
                && !self.interactively_validate_the_constraints(form)
            {
                // 5.4.1-2. Invalid: stop firing and return.
                self.set_firing_submission_events(form, false);
                self.form_submission_reached(form, SubmissionPoint::Invalid);
                step!(
                    self,
                    FORM_SUBMISSION_ALGORITHM,
                    "5.4.2",
                    Some(doc),
                    |w| format!(
                        "{} has invalid controls: not submitted",
                        w.describe_node(form)
                    )
                );
                return;
            }
            // 5.5. The submitter button: null when the form submits itself.
            let submitter_button = (submitter != form).then_some(submitter);
            // 5.6. Fire `submit` (SubmitEvent, bubbles, cancelable, its submitter set).
            let init = EventInit::new("submit")
                .bubbles()
                .cancelable()
                .interface("SubmitEvent");
            let event = self.create_event(init, true);
            self.dom.events[event].submitter = submitter_button;
            // (WebMCP's declarative half) An agent's submission is marked as such, and its
            // `submit` event is composed (Chromium 156).
            if self.submit_event_agent_invoked(form) {
                self.dom.events[event].agent_invoked = true;
                self.dom.events[event].init.composed = true;
            }
            step!(
                self,
                FORM_SUBMISSION_ALGORITHM,
                "5.6",
                Some(doc),
                |w| format!(
                    "submit fired at {} (submitter {})",
                    w.describe_node(form),
                    submitter_button
                        .map(|s| w.describe_node(s))
                        .unwrap_or_else(|| "null".into())
                )
            );
            let should_continue = self.dispatch(form, event);
            // 5.7. No longer firing.
            self.set_firing_submission_events(form, false);
            self.form_submission_reached(form, SubmissionPoint::SubmitEvent(event));
            // 5.8. Canceled: return.
            if !should_continue {
                step!(
                    self,
                    FORM_SUBMISSION_ALGORITHM,
                    "5.8",
                    Some(doc),
                    |w| format!(
                        "the submit event was canceled: {} is not submitted",
                        w.describe_node(form)
                    )
                );
                return;
            }
            // 5.9. The listeners may have taken the form's navigation away.
            if self.cannot_navigate(form) {
                step!(
                    self,
                    FORM_SUBMISSION_ALGORITHM,
                    "5.9",
                    Some(doc),
                    |w| format!(
                        "{} cannot navigate after its submit event",
                        w.describe_node(form)
                    )
                );
                return;
            }
        }
        // 6-7. The entry list (UTF-8).
        let Some(entries) = self.construct_entry_list(form, Some(submitter)) else {
            return;
        };
        step!(
            self,
            FORM_SUBMISSION_ALGORITHM,
            "7",
            Some(doc),
            |_w| format!("entry list: {}", urlencoded(&name_value_pairs(&entries)))
        );
        // 9. The formdata listeners may have taken the form's navigation away.
        if self.cannot_navigate(form) {
            step!(
                self,
                FORM_SUBMISSION_ALGORITHM,
                "9",
                Some(doc),
                |w| format!(
                    "{} cannot navigate after its formdata event",
                    w.describe_node(form)
                )
            );
            return;
        }
        // 10. The submitter's method.
        let method = self.submitter_method(submitter, form);
        // 11. Dialog: close the nearest `dialog` ancestor, with the submitter's value.
        if method == Method::Dialog {
            let Some(dialog) = self.ancestor_named(form, "dialog") else {
                step!(
                    self,
                    FORM_SUBMISSION_ALGORITHM,
                    "11.1",
                    Some(doc),
                    |w| format!(
                        "method=dialog and {} has no dialog ancestor: nothing happens",
                        w.describe_node(form)
                    )
                );
                return;
            };
            let result = if self.input_type(submitter) == Some(InputType::Image) {
                // The selected coordinate: the simulation's clicks have none.
                Some("0,0".to_string())
            } else if self.is_submit_button(submitter) {
                self.attribute(submitter, "value").map(str::to_string)
            } else {
                None
            };
            step!(
                self,
                FORM_SUBMISSION_ALGORITHM,
                "11.6",
                Some(doc),
                |w| format!(
                    "{} closed with {}",
                    w.describe_node(dialog),
                    result.clone().unwrap_or_else(|| "null".into())
                )
            );
            self.close_the_dialog(dialog, result);
            return;
        }
        // 12-13. The submitter's action, the document's URL when empty.
        let action = self.submitter_action(submitter, form);
        let action = if action.is_empty() {
            self.documents[doc].url.to_string()
        } else {
            action
        };
        // 14-15. Parsed relative to the submitter's document; failure: return.
        let Ok(mut parsed) = self.documents[self.node_document(submitter)]
            .url
            .join(&action)
        else {
            step!(
                self,
                FORM_SUBMISSION_ALGORITHM,
                "15",
                Some(doc),
                "`{action}` is not a URL"
            );
            return;
        };
        // 16-17. The scheme and the enctype.
        let scheme = parsed.scheme().to_string();
        let enctype = self.submitter_enctype(submitter, form);
        // 18-23. The target navigable.
        let target_name = self.submitter_target(submitter, form);
        let Some(target) = self.choose_a_navigable(doc, &target_name) else {
            step!(
                self,
                FORM_SUBMISSION_ALGORITHM,
                "23",
                Some(doc),
                "no navigable `{target_name}`"
            );
            return;
        };
        // 24-25. Replace the entry of a document that has not completely loaded.
        let target_document = self.navigables[target].active_document;
        let history_handling = if target_document == Some(doc)
            && self.documents[doc].lifecycle != Lifecycle::Complete
        {
            "replace"
        } else {
            "auto"
        };
        step!(
            self,
            FORM_SUBMISSION_ALGORITHM,
            "25",
            Some(doc),
            "history handling {history_handling}"
        );
        // 26. By scheme and method.
        let pairs = name_value_pairs(&entries);
        let (mut body, mut content_type) = (None, None);
        let mut method_name = "GET";
        match (scheme.as_str(), method) {
            // Mutate action URL: the query is the entry list.
            ("http" | "https" | "data" | "file", Method::Get) => {
                parsed.set_query(Some(&urlencoded(&pairs)));
            }
            // Submit as entity body.
            ("http" | "https", _) => {
                method_name = "POST";
                let (b, t) = match enctype {
                    Enctype::UrlEncoded => (
                        urlencoded(&pairs),
                        "application/x-www-form-urlencoded".to_string(),
                    ),
                    Enctype::FormData => {
                        let (b, boundary) = multipart(&entries);
                        (b, format!("multipart/form-data; boundary={boundary}"))
                    }
                    Enctype::TextPlain => (text_plain(&pairs), "text/plain".to_string()),
                };
                body = Some(b);
                content_type = Some(t);
            }
            // Mail with headers.
            ("mailto", Method::Get) => {
                parsed.set_query(Some(&urlencoded(&pairs).replace('+', "%20")));
            }
            // Mail as body.
            ("mailto", _) => {
                let encoded = match enctype {
                    Enctype::TextPlain => {
                        url::form_urlencoded::byte_serialize(text_plain(&pairs).as_bytes())
                            .collect::<String>()
                            .replace('+', "%20")
                    }
                    _ => urlencoded(&pairs),
                };
                let query = parsed.query().unwrap_or("").to_string();
                let joined = if query.is_empty() {
                    format!("body={encoded}")
                } else {
                    format!("{query}&body={encoded}")
                };
                parsed.set_query(Some(&joined));
            }
            // Get action URL (javascript:, ftp:, data: with POST, and schemes HTML does not
            // list): the URL as it is.
            _ => {}
        }
        step!(
            self,
            FORM_SUBMISSION_ALGORITHM,
            "26",
            Some(doc),
            |_w| format!(
                "{method_name} {parsed}{}",
                body.as_ref()
                    .map(|b| format!(" with body {b:?}"))
                    .unwrap_or_default()
            )
        );
        let request = NavigationRequest {
            method: method_name.into(),
            url: parsed.to_string(),
            body,
            content_type,
            history_handling: history_handling.into(),
            entries: pairs,
        };
        self.plan_to_navigate(form, target, request);
    }

    fn set_firing_submission_events(&mut self, form: NodeKey, on: bool) {
        if let Some(f) = self.form_flags_mut(form) {
            f.firing_submission_events = on;
        }
    }

    /// <https://html.spec.whatwg.org/multipage/forms.html#cannot-navigate>: not connected, or
    /// its document not fully active.
    fn cannot_navigate(&self, form: NodeKey) -> bool {
        !self.is_connected(form) || !self.is_fully_active(self.node_document(form))
    }

    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#concept-fs-novalidate>
    fn no_validate_state(&self, submitter: NodeKey, form: NodeKey) -> bool {
        (self.is_submit_button(submitter) && self.has_attribute(submitter, "formnovalidate"))
            || self.has_attribute(form, "novalidate")
    }

    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#concept-fs-method>:
    /// a submit button's `formmethod`, else the form's `method` (GET when missing or invalid).
    fn submitter_method(&self, submitter: NodeKey, form: NodeKey) -> Method {
        let attr =
            if self.is_submit_button(submitter) && self.has_attribute(submitter, "formmethod") {
                self.attribute(submitter, "formmethod")
            } else {
                self.attribute(form, "method")
            };
        match attr.map(str::to_ascii_lowercase).as_deref() {
            Some("post") => Method::Post,
            Some("dialog") => Method::Dialog,
            _ => Method::Get,
        }
    }

    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#concept-fs-action>
    fn submitter_action(&self, submitter: NodeKey, form: NodeKey) -> String {
        if self.is_submit_button(submitter) {
            if let Some(a) = self.attribute(submitter, "formaction") {
                return a.into();
            }
        }
        self.attribute(form, "action").unwrap_or("").into()
    }

    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#concept-fs-enctype>
    fn submitter_enctype(&self, submitter: NodeKey, form: NodeKey) -> Enctype {
        let attr =
            if self.is_submit_button(submitter) && self.has_attribute(submitter, "formenctype") {
                self.attribute(submitter, "formenctype")
            } else {
                self.attribute(form, "enctype")
            };
        match attr.map(str::to_ascii_lowercase).as_deref() {
            Some("multipart/form-data") => Enctype::FormData,
            Some("text/plain") => Enctype::TextPlain,
            _ => Enctype::UrlEncoded,
        }
    }

    /// Steps 18-20: a submit button's `formtarget`, else the form's `target`, else the
    /// document's first `base` element's `target`.
    ///
    /// <https://html.spec.whatwg.org/multipage/links.html#get-an-element's-target>
    fn submitter_target(&self, submitter: NodeKey, form: NodeKey) -> String {
        if self.is_submit_button(submitter) {
            if let Some(t) = self.attribute(submitter, "formtarget") {
                return t.into();
            }
        }
        if let Some(t) = self.attribute(form, "target") {
            return t.into();
        }
        let doc = self.node_document(form);
        self.document_node(doc)
            .map(|root| self.elements_named(root, "base"))
            .unwrap_or_default()
            .into_iter()
            .find_map(|b| self.attribute(b, "target").map(str::to_string))
            .unwrap_or_default()
    }

    /// <https://html.spec.whatwg.org/multipage/document-sequences.html#the-rules-for-choosing-a-navigable>,
    /// for a form in `doc`: `_self` (or nothing) is its navigable, `_parent` its parent (or
    /// itself), `_top` its traversable, a name a navigable of the same page with that name;
    /// `_blank` and a name no navigable has open a new page (at `about:blank`, navigated
    /// next).
    fn choose_a_navigable(&mut self, doc: DocumentKey, name: &str) -> Option<NavigableKey> {
        let current = self.node_navigable(doc)?;
        let lower = name.to_ascii_lowercase();
        match lower.as_str() {
            "" | "_self" => Some(current),
            "_parent" => Some(self.navigables[current].parent.unwrap_or(current)),
            "_top" => Some(self.navigables[current].traversable),
            _ => {
                if lower != "_blank" {
                    let top = self.navigables[current].traversable;
                    let found = self
                        .navigables
                        .iter()
                        .find(|(k, n)| {
                            n.traversable == top && !n.destroyed && self.target_name(*k) == name
                        })
                        .map(|(k, _)| k);
                    if found.is_some() {
                        return found;
                    }
                }
                let label =
                    self.next_document_label(if lower == "_blank" { "blank" } else { name });
                let page = self
                    .open_page_with(&label, "about:blank", DocumentOptions::default())
                    .ok()?;
                self.node_navigable(page)
            }
        }
    }

    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#constructing-the-form-data-set>:
    /// `None` when the form is already constructing one.
    fn construct_entry_list(
        &mut self,
        form: NodeKey,
        submitter: Option<NodeKey>,
    ) -> Option<Vec<Entry>> {
        let doc = Some(self.node_document(form));
        // 1. Already constructing: null.
        if self
            .form_flags(form)
            .is_some_and(|f| f.constructing_entry_list)
        {
            step!(self, CONSTRUCTING_THE_ENTRY_LIST, "1", doc, |w| format!(
                "{} is already constructing its entry list",
                w.describe_node(form)
            ));
            return None;
        }
        // 2. Constructing.
        if let Some(f) = self.form_flags_mut(form) {
            f.constructing_entry_list = true;
        }
        // 3-5. Each submittable element whose owner is the form, in tree order.
        let mut entries = Vec::new();
        for field in self.submittable_elements(form) {
            self.append_entries_of(field, submitter, &mut entries);
        }
        // 6-7. Fire `formdata` (FormDataEvent, bubbles) with the entry list as its formData.
        let event = self.create_event(
            EventInit::new("formdata")
                .bubbles()
                .interface("FormDataEvent"),
            true,
        );
        self.dom.events[event].form_data = Some(entries);
        step!(self, CONSTRUCTING_THE_ENTRY_LIST, "7", doc, |w| format!(
            "formdata fired at {}",
            w.describe_node(form)
        ));
        self.dispatch(form, event);
        let entries = self.dom.events[event].form_data.clone().unwrap_or_default();
        // 8. No longer constructing.
        if let Some(f) = self.form_flags_mut(form) {
            f.constructing_entry_list = false;
        }
        // 9. A clone of the entry list.
        step!(
            self,
            CONSTRUCTING_THE_ENTRY_LIST,
            "9",
            doc,
            "{} entries",
            entries.len()
        );
        Some(entries)
    }

    /// Step 5 of constructing the entry list, for one field.
    fn append_entries_of(
        &self,
        field: NodeKey,
        submitter: Option<NodeKey>,
        entries: &mut Vec<Entry>,
    ) {
        let t = self.input_type(field);
        // 5.1. Skipped: in a datalist, disabled, a button that is not the submitter, an
        //      unchecked checkbox or radio button.
        if self.ancestor_named(field, "datalist").is_some()
            || self.is_disabled(field)
            || (self.is_button(field) && Some(field) != submitter)
            || (matches!(t, Some(InputType::Checkbox | InputType::Radio))
                && !self.checkedness(field))
        {
            return;
        }
        // 5.2. An image button: its coordinate, as name.x and name.y.
        if t == Some(InputType::Image) {
            let name = match self.attribute(field, "name") {
                Some(n) if !n.is_empty() => format!("{n}."),
                _ => String::new(),
            };
            entries.push(Entry::string(&format!("{name}x"), "0"));
            entries.push(Entry::string(&format!("{name}y"), "0"));
            return;
        }
        // 5.4-5.5. Nameless fields are skipped.
        let Some(name) = self.attribute(field, "name").filter(|n| !n.is_empty()) else {
            return;
        };
        match (self.html_name(field), t) {
            // 5.6. A select: each selected option that is not disabled.
            (Some("select"), _) => {
                for o in self.selected_options(field) {
                    if !self.is_disabled(o) {
                        entries.push(Entry::string(name, &self.option_value(o)));
                    }
                }
            }
            // 5.7. A checked checkbox or radio button: its value attribute, else "on".
            (_, Some(InputType::Checkbox | InputType::Radio)) => {
                entries.push(Entry::string(
                    name,
                    self.attribute(field, "value").unwrap_or("on"),
                ));
            }
            // 5.8. A file input: no file is ever selected, so one empty file.
            (_, Some(InputType::File)) => entries.push(Entry {
                name: name.into(),
                value: EntryValue::File {
                    name: String::new(),
                    content_type: "application/octet-stream".into(),
                },
            }),
            // 5.9. A hidden `_charset_`: the encoding.
            (_, Some(InputType::Hidden)) if name.eq_ignore_ascii_case("_charset_") => {
                entries.push(Entry::string(name, "UTF-8"));
            }
            // 5.10. Otherwise the field's value.
            _ => entries.push(Entry::string(name, &self.value(field))),
        }
        // 5.11. A `dirname`: the directionality (always ltr here).
        if let Some(dirname) = self.attribute(field, "dirname").filter(|d| !d.is_empty()) {
            if matches!(self.html_name(field), Some("textarea"))
                || t.is_some_and(|t| t.is_textual())
            {
                entries.push(Entry::string(dirname, "ltr"));
            }
        }
    }

    /// Adds an entry to a `formdata` event's entry list (what `event.formData.append()` does).
    fn form_data_append(&mut self, event: super::super::keys::EventKey, name: &str, value: &str) {
        if let Some(e) = self.dom.events.get_mut(event) {
            if let Some(list) = e.form_data.as_mut() {
                list.push(Entry::string(name, value));
            }
        }
    }

    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#plan-to-navigate>
    fn plan_to_navigate(
        &mut self,
        form: NodeKey,
        target: NavigableKey,
        request: NavigationRequest,
    ) {
        let doc = self.node_document(form);
        // 3. A planned navigation already queued is removed from its task queue.
        if let Some(seq) = self.form_flags(form).and_then(|f| f.planned_navigation) {
            step!(self, PLAN_TO_NAVIGATE, "3", Some(doc), |w| format!(
                "{}'s earlier planned navigation is removed",
                w.describe_node(form)
            ));
            self.remove_queued_task(doc, TaskSource::DomManipulation, seq);
        }
        let base = self.navigables[target]
            .active_document
            .map(|d| self.label(d))
            .unwrap_or_else(|| self.navigables[target].label.clone());
        let label = self.next_document_label(&base);
        // 4. Queue an element task (DOM manipulation) that navigates; 5. it is the form's
        //    planned navigation.
        step!(self, PLAN_TO_NAVIGATE, "4", Some(doc), |_w| format!(
            "navigation to {} planned",
            request.url
        ));
        self.queue_global_task(
            doc,
            TaskSource::DomManipulation,
            TaskAction::Dom(DomTask::PlannedNavigation {
                form,
                target,
                request: Box::new(request),
                label,
            }),
        );
        let seq = self.seq;
        if let Some(f) = self.form_flags_mut(form) {
            f.planned_navigation = Some(seq);
        }
    }

    /// Removes the queued task numbered `seq` from `doc`'s event loop.
    fn remove_queued_task(&mut self, doc: DocumentKey, source: TaskSource, seq: u64) {
        let event_loop = self.documents[doc].event_loop;
        self.event_loops
            .part_mut(event_loop, task_queue(source), Access::Write)
            .queues[source.index()]
        .retain(|t| t.seq != seq);
    }

    /// The planned navigation's task: 4.1. the form's planned navigation is null again;
    /// 4.2. the target navigable navigates (through the host's navigation: its response in
    /// parallel, then the commit in a task), to a document named `label`.
    fn run_planned_navigation(
        &mut self,
        form: NodeKey,
        target: NavigableKey,
        request: NavigationRequest,
        label: String,
    ) {
        if let Some(f) = self.form_flags_mut(form) {
            f.planned_navigation = None;
        }
        let doc = self.node_document(form);
        let Some(from) = self.navigables[target]
            .active_document
            .filter(|_| !self.navigables[target].destroyed)
        else {
            step!(
                self,
                PLAN_TO_NAVIGATE,
                "4.2",
                Some(doc),
                "the target navigable is gone"
            );
            return;
        };
        let scheme = Url::parse(&request.url)
            .map(|u| u.scheme().to_string())
            .unwrap_or_default();
        match scheme.as_str() {
            "javascript" => {
                step!(self, PLAN_TO_NAVIGATE, "4.2", Some(doc), |_w| format!(
                    "{} is not evaluated (no JavaScript engine): the document stays",
                    request.url
                ));
            }
            "mailto" => {
                step!(self, PLAN_TO_NAVIGATE, "4.2", Some(doc), |_w| format!(
                    "{} is handed to no mail client: the document stays",
                    request.url
                ));
            }
            _ => {
                step!(self, PLAN_TO_NAVIGATE, "4.2", Some(doc), |w| format!(
                    "{} navigates to {} ({}) as {label}",
                    w.navigables[target].label, request.url, request.method
                ));
                let url = request.url.clone();
                self.dom.pending_requests.insert(label.clone(), request);
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
        }
    }

    /// <https://html.spec.whatwg.org/multipage/interactive-elements.html#close-the-dialog>:
    /// an open dialog loses its `open` attribute, takes the result as its `returnValue`, and
    /// fires `close` in a task.
    fn close_the_dialog(&mut self, dialog: NodeKey, result: Option<String>) {
        use super::super::dom::attributes::Attributes;
        // 1. Not open: return.
        if !self.has_attribute(dialog, "open") {
            return;
        }
        // 3. Remove the open attribute.
        self.remove_attribute_by_name(dialog, "open");
        // 7. The return value.
        if let Some(r) = result {
            if let Some(Control::Dialog(v)) = self.control_mut(dialog) {
                *v = r;
            }
        }
        // 11. Queue an element task (DOM manipulation) to fire `close`.
        let doc = self.node_document(dialog);
        self.queue_global_task(
            doc,
            TaskSource::DomManipulation,
            TaskAction::Dom(DomTask::FireEvents {
                target: dialog,
                events: vec![EventInit::new("close")],
                user_validity: false,
            }),
        );
    }
}

impl<H: Host> Submission for H {}
