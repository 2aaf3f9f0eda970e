//! Sampling schedules, for subtests too large to exhaust: `--random N --seed S` draws each
//! choice uniformly; `--pct DEPTH` draws schedules by probabilistic concurrency testing.
//!
//! Every sampled run is an ordinary run whose choices the sampler makes, so every outcome it
//! finds comes with the token `run --schedule` replays; the report also gives the seed, and
//! the same seed draws the same runs. Run `i` of seed `S` draws from a generator seeded with
//! `S` and `i`, so a run does not depend on the ones before it.
//!
//! PCT, as Burckhardt, Kothari, Musuvathi and Nagarakatte give it (ASPLOS 2010), for a bug
//! of depth `d`: each queue of units gets a random priority (at least `d`) when it is first
//! seen; `d - 1` change points are drawn among the choice points of a run (as many as the
//! default schedule has); at each choice point the candidate of the highest priority runs,
//! and at the `i`-th change point the queue chosen drops to priority `i`, below all others.
//! A bug that needs `d` orderings to happen is found by one run with probability at least
//! 1 / (n k^(d-1)) for n queues and k choice points.

use std::collections::{BTreeMap, HashMap};

use super::search::{queue_of, Queue};
use super::{
    invariants, Budget, Exploration, ExploreOptions, Found, Mode, Outcomes, Progress, Reached, Take,
};
use crate::host::event_loop::Candidate;
use crate::scenario::ast::{ScenarioFile, Subtest};
use crate::scenario::runner::{Next, SubtestRun};
use crate::scenario::RunOptions;

/// SplitMix64 (Steele, Lea and Flood, OOPSLA 2014): small, fast, and good enough to draw
/// schedules from.
struct SplitMix(u64);

impl SplitMix {
    fn new(seed: u64, run: u64) -> SplitMix {
        let mut g = SplitMix(seed ^ run.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        g.next();
        g
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n` (n > 0).
    fn below(&mut self, n: u64) -> u64 {
        ((self.next() as u128 * n as u128) >> 64) as u64
    }
}

/// How one sampled run makes its choices.
enum Chooser {
    Uniform(SplitMix),
    Pct {
        rng: SplitMix,
        depth: u32,
        priorities: HashMap<Queue, u64>,
        /// The choice points (0-based) where the chosen queue's priority drops, in order.
        changes: Vec<u64>,
        point: u64,
    },
}

impl Chooser {
    fn choose(&mut self, candidates: &[Candidate]) -> usize {
        match self {
            Chooser::Uniform(rng) => rng.below(candidates.len() as u64) as usize,
            Chooser::Pct {
                rng,
                depth,
                priorities,
                changes,
                point,
            } => {
                let mut best = 0;
                let mut best_priority = 0;
                for (i, c) in candidates.iter().enumerate() {
                    let p = *priorities
                        .entry(queue_of(c))
                        .or_insert_with(|| u64::from(*depth) + (rng.next() >> 1));
                    if i == 0 || p > best_priority {
                        best = i;
                        best_priority = p;
                    }
                }
                if let Some(i) = changes.iter().position(|c| c == point) {
                    priorities.insert(queue_of(&candidates[best]), i as u64 + 1);
                }
                *point += 1;
                best
            }
        }
    }
}

pub(super) fn explore(
    file: &ScenarioFile,
    subtest: &Subtest,
    options: &ExploreOptions,
    progress: &Progress,
) -> Exploration {
    let (runs, seed, depth) = match options.mode {
        Mode::Random { runs, seed } => (runs, seed, None),
        Mode::Pct { runs, seed, depth } => (runs, seed, Some(depth.max(1))),
        Mode::Exhaustive => (0, 0, None),
    };
    let run_options = RunOptions {
        profile: options.profile.clone(),
        budgets: options.budgets,
        ..RunOptions::default()
    };
    let mut budget = Budget::new(options, progress);
    let interrupt = budget.interrupt();
    let fresh = || {
        let mut run = SubtestRun::new(file, subtest, &run_options);
        run.offer_every_choice();
        run.set_interrupt(interrupt.clone());
        if options.invariants {
            run.check_after_every_unit(invariants::check_all);
        }
        run
    };
    // PCT draws its change points among as many choice points as the default schedule has.
    let points = match depth {
        Some(_) => {
            let mut run = fresh();
            while let Next::Choice(c) = run.advance() {
                run.take(&c, None);
            }
            budget.stopped_inside(&run);
            run.world.choice_points().max(1)
        }
        None => 0,
    };
    let mut outcomes = Outcomes::default();
    let mut reached: BTreeMap<u32, Reached> = BTreeMap::new();
    let (mut units, mut done) = (0u64, 0u64);
    for r in 0..runs {
        if budget.check(done) {
            break;
        }
        let mut rng = SplitMix::new(seed, r);
        let mut chooser = match depth {
            None => Chooser::Uniform(rng),
            Some(d) => {
                let changes = (1..d).map(|_| rng.below(points)).collect();
                Chooser::Pct {
                    rng,
                    depth: d,
                    priorities: HashMap::new(),
                    changes,
                    point: 0,
                }
            }
        };
        let mut run = fresh();
        while let Next::Choice(c) = run.advance() {
            let i = chooser.choose(&c);
            run.take(&c, Some(&mut Take(i)));
        }
        units += run.world.units_run();
        if budget.stopped_inside(&run) {
            break;
        }
        done += 1;
        progress
            .schedules
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let result = run.finish();
        let token = result.schedule.clone();
        let points = result.choice_points as u32;
        let choices: Vec<u32> = match token.parse::<crate::Schedule>() {
            Ok(s) => (0..u64::from(points))
                .map(|p| s.choices.get(&p).copied().unwrap_or(0))
                .collect(),
            Err(_) => Vec::new(),
        };
        let id = outcomes.id_of(result);
        let rank = (
            choices.iter().filter(|c| **c != 0).count() as u32,
            points,
            choices,
        );
        let entry = reached.entry(id).or_insert_with(|| Reached {
            id,
            count: 0,
            token: token.clone(),
            rank: rank.clone(),
        });
        entry.count += 1;
        if rank < entry.rank {
            entry.rank = rank;
            entry.token = token;
        }
    }
    let report = Found {
        file,
        subtest,
        options,
        outcomes,
        reached: reached.into_values().collect(),
    }
    .report();
    Exploration {
        units,
        leaves_run: done,
        bytes_per_state: 0,
        complete: budget.stopped.is_none(),
        stopped_by: budget.stopped.clone(),
        ..report
    }
}
