//! What the block layer cannot see: the time the I/O workers spent runnable but waiting for a
//! CPU, from `/proc/self/task/TID/schedstat` (its second number: run-queue delay in ns, kept
//! by the scheduler whatever `kernel.sched_schedstats` says).

use std::collections::HashMap;
use std::path::Path;

/// The prefix of the worker threads' names (`bench-<id>`; the session names them so).
pub const WORKER_PREFIX: &str = "bench-";

/// Each worker thread's run-queue delay so far, ns, by worker id.
#[must_use]
pub fn worker_delays() -> HashMap<u32, u64> {
    delays_in(Path::new("/proc/self/task"))
}

/// As [`worker_delays`], in the task directory `tasks`.
#[must_use]
pub fn delays_in(tasks: &Path) -> HashMap<u32, u64> {
    let mut out = HashMap::new();
    let Ok(entries) = std::fs::read_dir(tasks) else {
        return out;
    };
    for entry in entries.flatten() {
        let Ok(comm) = std::fs::read_to_string(entry.path().join("comm")) else {
            continue;
        };
        let Some(id) = comm
            .trim()
            .strip_prefix(WORKER_PREFIX)
            .and_then(|id| id.parse::<u32>().ok())
        else {
            continue;
        };
        if let Some(delay) = std::fs::read_to_string(entry.path().join("schedstat"))
            .ok()
            .as_deref()
            .and_then(run_delay)
        {
            out.insert(id, delay);
        }
    }
    out
}

/// The run-queue delay of a `schedstat` line (`<on cpu ns> <waiting ns> <timeslices>`).
#[must_use]
pub fn run_delay(schedstat: &str) -> Option<u64> {
    schedstat.split_whitespace().nth(1)?.parse().ok()
}

/// The delay the workers `ids` gathered between two readings (a worker not there at the
/// start began inside the window: all of its delay counts; one not in `end` is left out).
#[must_use]
pub fn delay_between(
    start: &HashMap<u32, u64>,
    end: &HashMap<u32, u64>,
    ids: std::ops::Range<u32>,
) -> u64 {
    ids.filter_map(|id| {
        Some(
            end.get(&id)?
                .saturating_sub(start.get(&id).copied().unwrap_or(0)),
        )
    })
    .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_run_queue_delay_is_the_second_number() {
        assert_eq!(run_delay("123456 7890 42\n"), Some(7890));
        assert_eq!(run_delay("123456\n"), None);
    }

    #[test]
    fn workers_are_found_by_name_and_their_delays_subtracted() {
        let root = tempfile::tempdir().unwrap();
        for (tid, comm, stat) in [
            ("100", "bench-0\n", "5 1000 1\n"),
            ("101", "bench-1\n", "5 2000 1\n"),
            ("102", "diskdash\n", "5 9999 1\n"),
        ] {
            let dir = root.path().join(tid);
            std::fs::create_dir(&dir).unwrap();
            std::fs::write(dir.join("comm"), comm).unwrap();
            std::fs::write(dir.join("schedstat"), stat).unwrap();
        }
        let start = delays_in(root.path());
        assert_eq!(start, HashMap::from([(0, 1000), (1, 2000)]));
        let end = HashMap::from([(0, 1500), (1, 2600), (2, 50)]);
        assert_eq!(delay_between(&start, &end, 0..2), 1100);
        assert_eq!(
            delay_between(&start, &end, 1..3),
            650,
            "worker 2 began inside the window"
        );
        assert_eq!(delay_between(&start, &end, 3..4), 0, "worker 3 never ran");
    }

    #[test]
    fn this_process_threads_have_schedstat() {
        let me = std::fs::read_to_string("/proc/self/schedstat").unwrap();
        assert!(run_delay(&me).is_some());
    }
}
