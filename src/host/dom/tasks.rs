//! Running and describing the DOM's and HTML's own tasks (`TaskAction::Dom`).

use super::super::forms::submission::Submission;
use super::super::iframe::IframeElements;
use super::super::keys::DocumentKey;
use super::super::Host;
use super::dispatch::Dispatch;
use super::parser::Parsing;
use super::DomTask;

/// The tasks the DOM, HTML's parser and forms queue.
pub trait DomTasks: Host {
    fn run_dom_task(&mut self, task: DomTask, doc: DocumentKey) {
        match task {
            DomTask::ParseChunk => self.parse_next_chunk(doc),
            DomTask::ParseDocument(markup) => self.parse_document_task(doc, &markup),
            DomTask::PlannedNavigation {
                form,
                target,
                request,
                label,
            } => self.run_planned_navigation(form, target, *request, label),
            DomTask::IframeLoad { element, navigable } => self.iframe_load_task(element, navigable),
            DomTask::FireEvents {
                target,
                events,
                user_validity,
            } => {
                if user_validity {
                    if let Some(a) = self.association_mut(target) {
                        a.user_validity = true;
                    }
                }
                for init in events {
                    self.fire_event(target, init);
                }
            }
        }
    }

    fn describe_dom_task(&self, task: &DomTask) -> String {
        match task {
            DomTask::ParseChunk => "the parser takes the next chunk of markup".into(),
            DomTask::ParseDocument(markup) => {
                format!(
                    "the parser parses the document's markup ({} bytes)",
                    markup.len()
                )
            }
            DomTask::PlannedNavigation { form, request, .. } => format!(
                "{}'s planned navigation to {} ({})",
                self.describe_node(*form),
                request.url,
                request.method
            ),
            DomTask::IframeLoad { element, .. } => {
                format!(
                    "the iframe load event steps for {}",
                    self.describe_node(*element)
                )
            }
            DomTask::FireEvents { target, events, .. } => format!(
                "fire {} at {}",
                events
                    .iter()
                    .map(|e| e.event_type.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                self.describe_node(*target)
            ),
        }
    }
}

impl<H: Host> DomTasks for H {}
