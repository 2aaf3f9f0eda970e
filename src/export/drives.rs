//! The timing of each drive: a `run` or `flush` becomes a wait in real time, as long as the
//! virtual time the engine's own run of the exported lines says it covers, and never reaching
//! the next timer (resources/webmcp-ref.js adds the margins).

use super::translate::Translator;
use crate::scenario::ast::Subtest;
use crate::scenario::runner::{Next, RunOptions, SubtestRun};

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
            let next = run.world.next_timer_due();
            let indent = self.code.lines[placeholder]
                .chars()
                .take_while(|c| *c == ' ')
                .collect::<String>();
            let next_js = next.map_or("null".to_string(), |n| n.to_string());
            self.code.lines[placeholder] = format!(
                "{indent}await w.run({{from: {from}, until: {until}, next_timer: {next_js}}});"
            );
            from = until;
        }
        from
    }
}
