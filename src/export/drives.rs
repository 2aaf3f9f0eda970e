//! The timing of each drive: a `run` or `flush` becomes a wait in real time, as long as the
//! virtual time the engine's own run of the exported lines says it covers, then a poll until
//! the page is where the engine's run was at the end of the drive (its log as long, the names
//! it had bound, the named promises it saw settled, the tasks it had finished), up to a deadline that never reaches the next timer or `at` block
//! (resources/webmcp-ref.js).

use super::translate::Translator;
use crate::host::promise::PromiseState;
use crate::host::value::{Facet, Value};
use crate::scenario::ast::{Action, ActionKind, Subtest};
use crate::scenario::runner::{Next, RunOptions, SubtestRun};
use crate::script::js;
use crate::script::ScriptHost;

impl Translator<'_> {
    /// Runs the exported lines in the engine (its default schedule, this profile) to learn
    /// how much virtual time each `run` covers and when the next timer is due after it, and
    /// writes each drive's call. Returns the virtual time at the end.
    pub(super) fn fill_in_drives(&mut self, subtest: &Subtest) -> u64 {
        let mut from = 0;
        let options = RunOptions {
            profile: self.profile.clone(),
            ..RunOptions::default()
        };
        for i in 0..self.drives.len() {
            let (index, placeholder) = self.drives[i];
            let mut actions = self.reduced[..=index].to_vec();
            let mut tasks = Vec::new();
            name_tasks(&mut actions, &mut tasks);
            let prefix = Subtest {
                name: subtest.name.clone(),
                line: subtest.line,
                actions,
                compares_identity: subtest.compares_identity,
            };
            let mut run = SubtestRun::new(self.file, &prefix, &options);
            while let Next::Choice(candidates) = run.advance() {
                run.take(&candidates, None);
            }
            let until = run.world.now();
            let next = match (run.world.next_timer_due(), run.next_at()) {
                (Some(t), Some(a)) => Some(t.min(a)),
                (t, a) => t.or(a),
            };
            // Where the engine's run is at the end of the drive: how long its log is, which
            // names its script has bound (to something other than undefined), and which named
            // promises have settled.
            let log = run.world.log().len();
            let env = &run.world.script().env;
            let settled_promise = |v: &Value| matches!(v, Value::Promise(p) if !matches!(run.world.promise_state(*p), PromiseState::Pending));
            let finished: Vec<String> = tasks
                .iter()
                .enumerate()
                .filter(|(_, name)| env.get(name.as_str()).is_some_and(settled_promise))
                .map(|(i, _)| i.to_string())
                .collect();
            // The label of a document without a browsing context names it in traces only: no
            // script binds it.
            let frameless = |v: &Value| matches!(v, Value::Window(d, Facet::Name) if run.world.document(*d).navigable.is_none());
            let env: Vec<(&String, &Value)> = env
                .iter()
                .filter(|(name, v)| !name.starts_with(HIDDEN) && !frameless(v))
                .collect();
            let mut bound: Vec<String> = env
                .iter()
                .filter(|(_, v)| !matches!(v, Value::Undefined))
                .map(|(name, _)| js::string(name))
                .collect();
            bound.sort();
            let mut settled: Vec<String> = env
                .iter()
                .filter(|(_, v)| settled_promise(v))
                .map(|(name, _)| js::string(name))
                .collect();
            settled.sort();
            let indent = self.code.lines[placeholder]
                .chars()
                .take_while(|c| *c == ' ')
                .collect::<String>();
            let next_js = next.map_or("null".to_string(), |n| n.to_string());
            self.code.lines[placeholder] = format!(
                "{indent}await w.run({{from: {from}, until: {until}, next_timer: {next_js}, log: {log}, bound: [{}], settled: [{}], tasks: [{}]}});",
                bound.join(", "),
                settled.join(", "),
                finished.join(", ")
            );
            from = until;
        }
        from
    }
}

/// The start of the names the engine's run gives tasks that have none of their own.
const HIDDEN: &str = "\u{1}task ";

/// Gives every task of the exported lines a completion promise (its own `as` name, or a hidden
/// one), in the order the translator numbered them (a task in an `at` block where the block
/// is), so that the engine's run tells which had finished by the end of a drive.
fn name_tasks(actions: &mut [Action], names: &mut Vec<String>) {
    for action in actions {
        match &mut action.kind {
            ActionKind::Task { completion, .. } => {
                let name = completion
                    .get_or_insert_with(|| format!("{HIDDEN}{}", names.len()))
                    .clone();
                names.push(name);
            }
            ActionKind::Trigger { actions, .. } => name_tasks(actions, names),
            _ => {}
        }
    }
}
