//! The timing of each drive: a `run` or `flush` becomes a wait in real time, as long as the
//! virtual time the engine's own run of the exported lines says it covers, then a poll until
//! the page is where the engine's run was at the end of the drive (its log as long, the named
//! promises it saw settled), up to a deadline that never reaches the next timer or `at` block
//! (resources/webmcp-ref.js).

use super::translate::Translator;
use crate::host::promise::PromiseState;
use crate::host::value::Value;
use crate::scenario::ast::Subtest;
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
            let next = match (run.world.next_timer_due(), run.next_at()) {
                (Some(t), Some(a)) => Some(t.min(a)),
                (t, a) => t.or(a),
            };
            // Where the engine's run is at the end of the drive: how long its log is, and which
            // named promises have settled.
            let log = run.world.log().len();
            let mut settled: Vec<String> = run
                .world
                .script()
                .env
                .iter()
                .filter(|(_, v)| {
                    matches!(v, Value::Promise(p) if !matches!(run.world.promise_state(*p), PromiseState::Pending))
                })
                .map(|(name, _)| js::string(name))
                .collect();
            settled.sort();
            let indent = self.code.lines[placeholder]
                .chars()
                .take_while(|c| *c == ' ')
                .collect::<String>();
            let next_js = next.map_or("null".to_string(), |n| n.to_string());
            self.code.lines[placeholder] = format!(
                "{indent}await w.run({{from: {from}, until: {until}, next_timer: {next_js}, log: {log}, settled: [{}]}});",
                settled.join(", ")
            );
            from = until;
        }
        from
    }
}
