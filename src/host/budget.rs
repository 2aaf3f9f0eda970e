//! The budgets of a run: how much work one line of a subtest may do (in `serve`, what the page
//! runs until it is next idle), how much one unit of work may do, and how large one value may
//! grow. They are counts, never time, so a run is as deterministic with them as without: the
//! same scenario stops at the same statement every time.
//!
//! Fuel is what the page's script spends as it runs: each statement and each call costs 1, and
//! each value it makes costs its size (see [`Value::size`]), a copy of a string as much as a
//! new one. A unit of work has [`Budgets::max_unit_fuel`] of it, the units of one line
//! together [`Budgets::max_fuel`], and one line runs at most [`Budgets::max_units`] units.
//! A value holds at most [`Budgets::max_value_size`], and nests at most
//! [`MAX_VALUE_DEPTH`] deep.
//!
//! What spends a budget stops the whole run, not only the script: the world records why
//! ([`BudgetStop`]), every script still on the stack returns at once, and whatever runs the
//! world (the scenario runner, the explorer, the gateway) ends there with status 3 and the
//! message, which names the budget, the statement's line and the flag that raises it.
//!
//! The tools that run a world may also give it an [`Interrupt`]: a check of their own (the
//! explorer's `--max-seconds`, the process's memory) that the world polls between units and
//! every [`POLL_EVERY`] fuel inside one, so that nothing a page does holds it up.

use std::fmt;
use std::rc::Rc;

use super::seam::Upper;
use super::value::{Value, MAX_VALUE_DEPTH};
use super::HostState;

/// The budgets of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Budgets {
    /// Units of work one line may run (`run`, `step N`, `observe ... =>`).
    pub max_units: u64,
    /// Fuel the units of one line may spend together.
    pub max_fuel: u64,
    /// Fuel one unit of work may spend.
    pub max_unit_fuel: u64,
    /// The size one value may reach.
    pub max_value_size: u64,
    /// Entries a run's step trace may hold (when the trace is on: `trace`, timelines).
    pub max_trace_entries: u64,
}

impl Budgets {
    /// The default budgets: each ends within a few seconds on a release build.
    pub const DEFAULT: Budgets = Budgets {
        max_units: 1_000_000,
        max_fuel: 20_000_000,
        max_unit_fuel: 2_000_000,
        max_value_size: 1_000_000,
        max_trace_entries: 1_000_000,
    };
}

impl Default for Budgets {
    fn default() -> Self {
        Budgets::DEFAULT
    }
}

/// How often (in fuel) a unit of work polls the [`Interrupt`].
pub const POLL_EVERY: u64 = 1 << 14;

/// A check of the tools running a world, polled between units and inside them: `Some(why)`
/// stops the run. (What it reads is the tool's: the real clock, the process's memory.)
pub type Interrupt = Rc<dyn Fn() -> Option<String>>;

/// Which budget stopped a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Budget {
    /// A line ran [`Budgets::max_units`] units and the world was still not idle.
    Units { units: u64, time: u64 },
    /// The units of a line spent [`Budgets::max_fuel`].
    Fuel(u64),
    /// One unit spent [`Budgets::max_unit_fuel`].
    UnitFuel(u64),
    /// A value would have grown past [`Budgets::max_value_size`].
    ValueSize { size: u64, max: u64 },
    /// A value would have nested deeper than [`MAX_VALUE_DEPTH`].
    Nesting(u32),
    /// The step trace reached [`Budgets::max_trace_entries`].
    Trace(u64),
    /// The tool running the world stopped it (its own budget: time, memory).
    Interrupted(String),
}

impl Budget {
    /// The command-line flag that raises it.
    pub fn flag(&self) -> Option<&'static str> {
        match self {
            Budget::Units { .. } => Some("--max-units"),
            Budget::Fuel(_) => Some("--max-fuel"),
            Budget::UnitFuel(_) => Some("--max-unit-fuel"),
            Budget::ValueSize { .. } => Some("--max-value-size"),
            Budget::Trace(_) => Some("--max-trace-entries"),
            Budget::Nesting(_) | Budget::Interrupted(_) => None,
        }
    }
}

impl fmt::Display for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Budget::Units { units, time } => write!(
                f,
                "the world did not become idle within {units} units of work (virtual time {time} ms): something re-arms itself forever"
            ),
            Budget::Fuel(max) => write!(
                f,
                "the units of work of this line spent their budget of {max} fuel (a statement or a call costs 1, a value made its size): the page's script runs on and on"
            ),
            Budget::UnitFuel(max) => write!(
                f,
                "one unit of work spent its budget of {max} fuel (a statement or a call costs 1, a value made its size): the page's script runs on and on"
            ),
            Budget::ValueSize { size, max } => write!(
                f,
                "a value would reach size {size} (a byte of text or a value held, each counting one), past the budget of {max} a value may reach"
            ),
            Budget::Nesting(depth) => write!(
                f,
                "a value would nest arrays and objects {depth} deep, past the {MAX_VALUE_DEPTH} the page's script allows"
            ),
            Budget::Trace(max) => write!(
                f,
                "the step trace reached its budget of {max} entries (trace fewer units: a line that never lets the world idle is best traced with `step N`)"
            ),
            Budget::Interrupted(why) => write!(f, "{why}"),
        }
    }
}

/// Why a run stopped, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BudgetStop {
    pub budget: Budget,
    /// The line of the statement that was running, if a script was.
    pub line: Option<u32>,
}

impl fmt::Display for BudgetStop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.budget)?;
        if let Some(flag) = self.budget.flag() {
            write!(f, "; raise it with {flag} N")?;
        }
        Ok(())
    }
}

/// What a run has spent, and where its line's budget ends.
#[derive(Clone, Debug, Default)]
pub struct Spent {
    /// Fuel spent by the unit running now.
    pub unit: u64,
    /// Fuel spent since the world was made.
    pub total: u64,
    /// The total at which the line's fuel runs out (none: no line is being driven).
    pub line_limit: Option<u64>,
    /// The total at which the interrupt is polled next.
    pub next_poll: u64,
    /// The line of the statement running now (0: none).
    pub statement_line: u32,
}

/// The check of a value just made, against the value budgets: `Err` names the one it spends.
pub fn check_value(v: &Value, budgets: &Budgets) -> Result<(), Budget> {
    let depth = v.depth();
    if depth > MAX_VALUE_DEPTH {
        return Err(Budget::Nesting(depth));
    }
    let size = v.size();
    if size > budgets.max_value_size {
        return Err(Budget::ValueSize {
            size,
            max: budgets.max_value_size,
        });
    }
    Ok(())
}

/// A budget is spent: the run is over (see [`HostState::budget_stop`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stopped;

impl<U: Upper> HostState<U> {
    /// Why the run stopped, once a budget is spent.
    pub fn budget_stop(&self) -> Option<&BudgetStop> {
        self.stopped.as_ref()
    }

    /// Whether a budget is spent.
    pub fn is_stopped(&self) -> bool {
        self.stopped.is_some()
    }

    /// Stops the run: `budget` is spent (the first reason given is kept).
    pub fn stop(&mut self, budget: Budget) {
        if self.stopped.is_none() {
            let line = Some(self.spent.statement_line).filter(|l| *l > 0);
            self.stopped = Some(BudgetStop { budget, line });
        }
    }

    /// Gives the world a check of the tool running it (see [`Interrupt`]).
    pub fn set_interrupt(&mut self, interrupt: Option<Interrupt>) {
        self.interrupt = interrupt;
    }

    /// Polls the interrupt now; true once the run is stopped.
    pub fn poll_interrupt(&mut self) -> bool {
        if self.stopped.is_none() {
            if let Some(why) = self.interrupt.as_ref().and_then(|check| check()) {
                self.stop(Budget::Interrupted(why));
            }
        }
        self.stopped.is_some()
    }

    /// A line of the subtest starts driving the world: its units share a budget of fuel
    /// from now on.
    pub fn begin_line(&mut self) {
        self.spent.line_limit = Some(self.spent.total.saturating_add(self.budgets.max_fuel));
    }

    /// The line stopped driving the world.
    pub fn end_line(&mut self) {
        self.spent.line_limit = None;
    }

    /// A unit of work starts: it has its whole budget of fuel.
    pub(crate) fn begin_unit(&mut self) {
        self.spent.unit = 0;
        self.spent.statement_line = 0;
    }

    /// The page's script is at a statement of this line (for the message, if a budget runs out
    /// there).
    pub fn at_statement(&mut self, line: u32) {
        self.spent.statement_line = line;
    }

    /// Spends `fuel`: `Err` once a budget is spent (this one or another before it).
    pub fn spend(&mut self, fuel: u64) -> Result<(), Stopped> {
        if self.stopped.is_some() {
            return Err(Stopped);
        }
        self.spent.unit = self.spent.unit.saturating_add(fuel);
        self.spent.total = self.spent.total.saturating_add(fuel);
        if self.spent.unit > self.budgets.max_unit_fuel {
            self.stop(Budget::UnitFuel(self.budgets.max_unit_fuel));
        } else if self.spent.line_limit.is_some_and(|l| self.spent.total > l) {
            self.stop(Budget::Fuel(self.budgets.max_fuel));
        } else if self.spent.total >= self.spent.next_poll {
            self.spent.next_poll = self.spent.total.saturating_add(POLL_EVERY);
            self.poll_interrupt();
        }
        match self.stopped {
            Some(_) => Err(Stopped),
            None => Ok(()),
        }
    }

    /// A value was made: it is checked against the value budgets, and costs `fuel`.
    pub fn made(&mut self, v: &Value, fuel: u64) -> Result<(), Stopped> {
        if let Err(budget) = check_value(v, &self.budgets) {
            self.stop(budget);
            return Err(Stopped);
        }
        self.spend(fuel)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_holding_another_twice_counts_it_twice_but_holds_it_once() {
        let mut a = Value::array(vec![Value::string("xy")]);
        for _ in 0..40 {
            a = Value::array(vec![a.clone(), a]);
        }
        // 2^40 copies of "xy" as JSON would write it, in 41 arrays of memory.
        assert!(a.size() > 1 << 41);
        assert_eq!(a.depth(), 41);
        assert!(matches!(
            check_value(&a, &Budgets::DEFAULT),
            Err(Budget::ValueSize { .. })
        ));
        let mut deep = Value::Null;
        for _ in 0..=MAX_VALUE_DEPTH {
            deep = Value::array(vec![deep]);
        }
        assert_eq!(
            check_value(&deep, &Budgets::DEFAULT),
            Err(Budget::Nesting(MAX_VALUE_DEPTH + 1))
        );
    }
}
