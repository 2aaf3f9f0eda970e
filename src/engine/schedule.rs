//! Choice points and schedules.
//!
//! Whenever more than one unit of work may run next, the world asks its schedule which one.
//! Candidates are listed in the order they became runnable (their sequence number), and the
//! default schedule always takes the first: the unit that has waited longest. A schedule is
//! the list of choices that differ from that default, printed as a short token such as
//! `3:1,7:2` (at choice point 3 take the second candidate, at 7 the third); `default` is the
//! empty list. Replaying a token makes exactly the same choices, so it reproduces the run.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::Serialize;
use thiserror::Error;

/// Errors in a schedule token or its replay.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ScheduleError {
    #[error("schedule token `{token}` is malformed at `{part}`: expected `default` or comma-separated `point:choice` pairs such as `3:1,7:2`")]
    Malformed { token: String, part: String },
    #[error("the schedule asks for candidate {choice} at choice point {point}, which has only {candidates} runnable units: the token was recorded for another scenario, subtest or profile")]
    OutOfRange {
        point: u64,
        choice: u32,
        candidates: usize,
    },
    #[error("the schedule has choices for points the run never reached ({0}): it was recorded for another scenario, subtest or profile")]
    Unused(String),
}

/// The choices of a run that differ from the default order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Schedule {
    /// Choice point number -> index of the candidate taken.
    pub choices: BTreeMap<u64, u32>,
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.choices.is_empty() {
            return f.write_str("default");
        }
        let parts: Vec<String> = self
            .choices
            .iter()
            .map(|(p, c)| format!("{p}:{c}"))
            .collect();
        f.write_str(&parts.join(","))
    }
}

impl FromStr for Schedule {
    type Err = ScheduleError;

    fn from_str(token: &str) -> Result<Self, Self::Err> {
        let token = token.trim();
        let mut schedule = Schedule::default();
        if token.is_empty() || token == "default" {
            return Ok(schedule);
        }
        for part in token.split(',') {
            let malformed = || ScheduleError::Malformed {
                token: token.into(),
                part: part.into(),
            };
            let (p, c) = part.trim().split_once(':').ok_or_else(malformed)?;
            let point: u64 = p.parse().map_err(|_| malformed())?;
            let choice: u32 = c.parse().map_err(|_| malformed())?;
            if schedule.choices.insert(point, choice).is_some() {
                return Err(malformed());
            }
        }
        Ok(schedule)
    }
}

/// The one interface through which an ordering is chosen.
pub trait Scheduler {
    /// Picks one of `candidates` (never fewer than two) at choice point `point`.
    fn choose(&mut self, point: u64, candidates: usize) -> Result<usize, ScheduleError>;
}

/// The default order, with the replay of a recorded schedule on top, recording what it chose.
#[derive(Clone, Debug, Default)]
pub struct Replay {
    pub replay: Schedule,
    /// The schedule this run actually followed (non-default choices only).
    pub recorded: Schedule,
    /// How many choice points the run has met.
    pub reached: u64,
}

impl Replay {
    pub fn new(replay: Schedule) -> Replay {
        Replay {
            replay,
            ..Replay::default()
        }
    }

    /// Records a choice another scheduler made (the explorer's), as this run's.
    pub fn record(&mut self, point: u64, taken: usize) {
        self.reached += 1;
        if taken != 0 {
            self.recorded.choices.insert(point, taken as u32);
        }
    }

    /// After a run: an error if the replayed token named choice points the run never reached.
    pub fn check_all_used(&self) -> Result<(), ScheduleError> {
        let reached = self.reached;
        let unused: Vec<String> = self
            .replay
            .choices
            .keys()
            .filter(|p| **p >= reached)
            .map(|p| p.to_string())
            .collect();
        if unused.is_empty() {
            Ok(())
        } else {
            Err(ScheduleError::Unused(unused.join(", ")))
        }
    }
}

impl Scheduler for Replay {
    fn choose(&mut self, point: u64, candidates: usize) -> Result<usize, ScheduleError> {
        self.reached += 1;
        let choice = self.replay.choices.get(&point).copied().unwrap_or(0);
        if choice as usize >= candidates {
            return Err(ScheduleError::OutOfRange {
                point,
                choice,
                candidates,
            });
        }
        if choice != 0 {
            self.recorded.choices.insert(point, choice);
        }
        Ok(choice as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip() {
        let s: Schedule = "3:1,7:2".parse().unwrap();
        assert_eq!(s.to_string(), "3:1,7:2");
        assert_eq!(
            "default".parse::<Schedule>().unwrap().to_string(),
            "default"
        );
        assert!("3-1".parse::<Schedule>().is_err());
        assert!("3:1,3:2".parse::<Schedule>().is_err());
    }

    #[test]
    fn replay_takes_recorded_choices_and_rejects_impossible_ones() {
        let mut r = Replay::new("1:1".parse().unwrap());
        assert_eq!(r.choose(0, 2).unwrap(), 0);
        assert_eq!(r.choose(1, 3).unwrap(), 1);
        assert_eq!(r.recorded.to_string(), "1:1");
        let mut r = Replay::new("0:5".parse().unwrap());
        assert!(r.choose(0, 2).is_err());
        let r = Replay::new("9:1".parse().unwrap());
        assert!(r.check_all_used().is_err());
    }
}
