//! What a record is, in one line: the page's title and its section's heading. A run says its
//! job; a sweep its swept options and values over what stayed fixed; a mark its profile; a
//! plan of several jobs its jobs; a fleet its hosts, then what they ran. Each ends with the
//! disk it ran on where the record knows it.

use crate::record::RunRecord;

/// Values of a swept option shown one by one up to this many, else as `first..last`.
const LISTED: usize = 4;

/// The record in one line; `fleet`: the hosts' names when the record is a fleet's.
#[must_use]
pub fn describe(record: &RunRecord, fleet: Option<&[String]>) -> String {
    let what = if record.mark.is_some() {
        mark(record)
    } else if record.sweep.is_some() {
        sweep(record)
    } else {
        run(record, fleet.unwrap_or_default())
    };
    match fleet {
        Some(hosts) => format!(
            "fleet of {} host{} ({}): {what}",
            hosts.len(),
            if hosts.len() == 1 { "" } else { "s" },
            hosts.join(", ")
        ),
        None => what,
    }
}

/// ` on vda`: the disk the run's I/O landed on, else its target; empty when neither is known.
fn on(record: &RunRecord) -> String {
    let disk = record
        .device
        .as_ref()
        .map(|d| d.name.clone())
        .or_else(|| {
            record
                .machine
                .as_ref()
                .and_then(|m| m.disk.as_ref())
                .map(|d| d.name.clone())
        })
        .or_else(|| (!record.target.path.is_empty()).then(|| record.target.path.clone()));
    disk.map(|d| format!(" on {d}")).unwrap_or_default()
}

/// A run: its job (as it ran); a plan of several jobs or steps: how many, and their names (a
/// fleet's `HOST: JOB` by the job's name: what each host ran).
fn run(record: &RunRecord, hosts: &[String]) -> String {
    let job = record
        .job
        .ran_description
        .as_deref()
        .unwrap_or(&record.job.description);
    let mut names: Vec<&str> = Vec::new();
    for job in record.steps.iter().flat_map(|s| &s.jobs) {
        let name = hosts
            .iter()
            .find_map(|h| job.name.strip_prefix(h.as_str())?.strip_prefix(": "))
            .unwrap_or(&job.name);
        if !names.contains(&name) {
            names.push(name);
        }
    }
    let steps = record.steps.len();
    if names.len() < 2 {
        let changes = if steps > 1 {
            format!(
                " (then {} change{})",
                steps - 1,
                if steps == 2 { "" } else { "s" }
            )
        } else {
            String::new()
        };
        return format!("{job}{changes}{}", on(record));
    }
    format!(
        "{} jobs ({}){}{}",
        names.len(),
        listed(&names),
        if steps > 1 {
            format!(" in {steps} steps")
        } else {
            String::new()
        },
        on(record)
    )
}

/// `a, b, c` or `a, b, c and 5 more`.
fn listed(names: &[&str]) -> String {
    if names.len() <= LISTED {
        names.join(", ")
    } else {
        format!(
            "{} and {} more",
            names[..LISTED - 1].join(", "),
            names.len() - (LISTED - 1)
        )
    }
}

/// `sweep: bs 4k..1M x iodepth 1,4 on vda (randread numjobs=1 io_uring direct)`: each swept
/// option with its values, the disk, then the first point's job less what was swept.
fn sweep(record: &RunRecord) -> String {
    let dimensions = record
        .sweep
        .as_ref()
        .map(|s| s.dimensions.clone())
        .unwrap_or_default();
    let swept: Vec<String> = dimensions
        .iter()
        .map(|d| {
            let mut values: Vec<&str> = Vec::new();
            for v in record
                .steps
                .iter()
                .flat_map(|s| &s.point)
                .filter(|v| v.option == *d)
            {
                if !values.contains(&v.value.as_str()) {
                    values.push(&v.value);
                }
            }
            let shown = match values.as_slice() {
                [] => "?".to_string(),
                v if v.len() <= LISTED => v.join(","),
                v => format!("{}..{} ({} values)", v[0], v[v.len() - 1], v.len()),
            };
            format!("{d} {shown}")
        })
        .collect();
    let fixed = unswept(&record.job.description, &dimensions);
    format!(
        "sweep: {}{}{}",
        swept.join(" x "),
        on(record),
        if fixed.is_empty() {
            String::new()
        } else {
            format!(" ({fixed})")
        }
    )
}

/// A job's description (`randread bs=4k iodepth=1 numjobs=1 io_uring direct rwmixread=50`)
/// without what `dimensions` sweep: their `key=value` words, and the bare words at the places
/// the description keeps for the mode (first), the engine (fifth) and direct or buffered.
fn unswept(description: &str, dimensions: &[String]) -> String {
    let swept = |key: &str| dimensions.iter().any(|d| d == key);
    description
        .split_whitespace()
        .enumerate()
        .filter(|&(i, word)| match word.split_once('=') {
            Some((key, _)) => {
                !(swept(key)
                    || (key == "bssplit" && swept("bs"))
                    || (key == "rwmixread" && swept("rw")))
            }
            None => match i {
                0 => !swept("rw"),
                4 => !swept("ioengine"),
                5 => !swept("direct"),
                _ => true,
            },
        })
        .map(|(_, word)| word)
        .collect::<Vec<_>>()
        .join(" ")
}

/// `mark: peak profile, KDiskMark's rules, 5 loops on vda`.
fn mark(record: &RunRecord) -> String {
    let Some(flags) = &record.mark else {
        return run(record, &[]);
    };
    format!(
        "mark: {} profile, {} rules, {} loop{}{}",
        flags.profile,
        flags.like,
        flags.loops,
        if flags.loops == "1" { "" } else { "s" },
        on(record)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sweeps_fixed_job_leaves_out_what_it_swept() {
        let job = "randrw bs=4k iodepth=1 numjobs=1 io_uring direct rwmixread=50 fsync=1";
        let dims = |d: &[&str]| d.iter().map(|s| (*s).to_string()).collect::<Vec<_>>();
        assert_eq!(
            unswept(job, &dims(&["bs", "iodepth"])),
            "randrw numjobs=1 io_uring direct rwmixread=50 fsync=1"
        );
        assert_eq!(
            unswept(job, &dims(&["rw", "ioengine", "direct", "fsync"])),
            "bs=4k iodepth=1 numjobs=1"
        );
        assert_eq!(
            unswept(
                "read bssplit=4k/50:64k/50 iodepth=2 numjobs=1 psync buffered",
                &dims(&["bs"])
            ),
            "read iodepth=2 numjobs=1 psync buffered"
        );
    }

    #[test]
    fn a_plan_of_several_jobs_names_them_and_a_fleet_its_hosts() {
        let plan = crate::stats::fixture::record();
        assert_eq!(describe(&plan, None), "2 jobs (r, w) on /data/r.dat");
        let steps = crate::stats::fixture::two_step_record();
        assert_eq!(
            describe(&steps, None),
            "3 jobs (r, w, seq) in 2 steps on /data/r.dat"
        );
        let mut one = plan.clone();
        one.steps[0].jobs.truncate(1);
        assert_eq!(describe(&one, None), "randread on /data/r.dat");
        let hosts = ["n1".to_string(), "n2".to_string()];
        assert_eq!(
            describe(&one, Some(&hosts)),
            "fleet of 2 hosts (n1, n2): randread on /data/r.dat"
        );
        // A fleet's hosts of two jobs: what each host ran.
        let mut fleet = plan.clone();
        let jobs = fleet.steps[0].jobs.clone();
        fleet.steps[0].jobs = hosts
            .iter()
            .flat_map(|h| {
                jobs.iter().map(move |j| {
                    let mut j = j.clone();
                    j.name = format!("{h}: {}", j.name);
                    j
                })
            })
            .collect();
        assert_eq!(
            describe(&fleet, Some(&hosts)),
            "fleet of 2 hosts (n1, n2): 2 jobs (r, w) on /data/r.dat"
        );
    }

    #[test]
    fn long_lists_of_names_are_cut() {
        assert_eq!(listed(&["a", "b"]), "a, b");
        assert_eq!(listed(&["a", "b", "c", "d"]), "a, b, c, d");
        assert_eq!(listed(&["a", "b", "c", "d", "e"]), "a, b, c and 2 more");
    }
}
