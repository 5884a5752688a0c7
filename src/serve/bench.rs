//! The families of a running benchmark (`bench|fio|sweep --serve`), built from the session's
//! latest [`Snapshot`]: a pure function of it, so names and values are unit tested without a
//! server.
//!
//! Values are as of the last interval close (the session publishes each job's run totals when
//! an interval closes; nothing is read from the workers), cumulative over the whole run: the
//! steps of a plan or sweep and the steps of live changes add up, so the counters only grow.
//! Series are per job (`jobname`, the plan's job name; `bench` for `diskdash bench`) and `op`
//! (`read`, `write`, `sync` for fsync/fdatasync calls); an op appears once the job does it.

use std::borrow::Cow;
use std::sync::Arc;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric, NoLabelSet};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::info::Info;
use prometheus_client::registry::Unit;

use super::fold::{fold, le_bounds_ns};
use crate::bench::spec::JobSpec;
use crate::session::{JobView, RunDirection, RunJobTotals, Snapshot};

/// The families of one scrape of a run.
#[derive(Debug, Clone)]
pub struct RunScrape {
    pub snapshot: Arc<Snapshot>,
    /// The `le` bounds in seconds (`fold::le_bounds_ns`, computed once per server).
    pub le_seconds: Arc<Vec<f64>>,
}

/// The `le` bounds in seconds, `+Inf` last.
#[must_use]
pub fn le_seconds() -> Vec<f64> {
    let mut bounds: Vec<f64> = le_bounds_ns()
        .into_iter()
        .map(|ns| ns as f64 / 1e9)
        .collect();
    bounds.push(f64::INFINITY);
    bounds
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Read,
    Write,
    Sync,
    Trim,
}

impl Op {
    fn label(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
            Op::Sync => "sync",
            Op::Trim => "trim",
        }
    }

    fn of(self, totals: &RunJobTotals) -> &RunDirection {
        match self {
            Op::Read => &totals.read,
            Op::Write => &totals.write,
            Op::Sync => &totals.sync,
            Op::Trim => &totals.trim,
        }
    }

    /// Whether the job's spec issues this op.
    fn issued_by(self, spec: &JobSpec) -> bool {
        match self {
            Op::Read => spec.reads(),
            Op::Write => spec.writes_data(),
            Op::Sync => spec.sync_every.is_some() || spec.end_fsync,
            Op::Trim => spec.rw.trims(),
        }
    }
}

const OPS: [Op; 4] = [Op::Read, Op::Write, Op::Sync, Op::Trim];

/// A job of the run: its totals (zero before its first interval closes) and, when it is in the
/// running (or last) step, its view there.
struct RunJob<'a> {
    totals: Cow<'a, RunJobTotals>,
    view: Option<&'a JobView>,
}

impl RunJob<'_> {
    /// The ops it has series for: done so far, or issued by its spec in the running step.
    fn ops(&self) -> impl Iterator<Item = Op> + '_ {
        OPS.into_iter().filter(|op| {
            op.of(&self.totals).ios > 0 || self.view.is_some_and(|v| op.issued_by(&v.spec))
        })
    }
}

impl RunScrape {
    /// Every job of the run so far, in the order they first ran, then the running step's jobs
    /// that have not closed an interval yet.
    fn jobs(&self) -> Vec<RunJob<'_>> {
        let snap = &self.snapshot;
        let view = |name: &str| snap.jobs.iter().find(|j| j.name == name);
        let mut jobs: Vec<RunJob<'_>> = snap
            .run
            .iter()
            .map(|t| RunJob {
                totals: Cow::Borrowed(t),
                view: view(&t.name),
            })
            .collect();
        // Before the first step opens, `jobs` is the plan's first job waiting: nothing ran.
        for job in snap.jobs.iter().filter(|_| snap.step_opened()) {
            if !snap.run.iter().any(|t| t.name == job.name) {
                jobs.push(RunJob {
                    totals: Cow::Owned(RunJobTotals {
                        name: job.name.clone(),
                        ..RunJobTotals::default()
                    }),
                    view: Some(job),
                });
            }
        }
        jobs
    }

    fn encode_counters(
        jobs: &[RunJob<'_>],
        encoder: &mut DescriptorEncoder,
    ) -> Result<(), std::fmt::Error> {
        let counter = ConstCounter::new(0u64).metric_type();
        let mut ios = encoder.encode_descriptor(
            "diskdash_bench_ios",
            "I/Os completed by the job over the run so far, as of the last interval close (op \
             sync: fsync/fdatasync calls).",
            None,
            counter,
        )?;
        for job in jobs {
            for op in job.ops() {
                let labels = [("jobname", job.totals.name.as_str()), ("op", op.label())];
                ConstCounter::new(op.of(&job.totals).ios).encode(ios.encode_family(&labels)?)?;
            }
        }
        let mut bytes = encoder.encode_descriptor(
            "diskdash_bench",
            "Bytes moved by the job's completed I/Os over the run so far, as of the last \
             interval close.",
            Some(&Unit::Bytes),
            counter,
        )?;
        for job in jobs {
            for op in job.ops().filter(|&op| op != Op::Sync) {
                let labels = [("jobname", job.totals.name.as_str()), ("op", op.label())];
                ConstCounter::new(op.of(&job.totals).bytes)
                    .encode(bytes.encode_family(&labels)?)?;
            }
        }
        let mut errors = encoder.encode_descriptor(
            "diskdash_bench_errors",
            "Failed I/Os of the job over the run (a failure ends the step).",
            None,
            counter,
        )?;
        for job in jobs {
            let labels = [("jobname", job.totals.name.as_str())];
            ConstCounter::new(job.totals.errors).encode(errors.encode_family(&labels)?)?;
        }
        Ok(())
    }

    fn encode_latency(
        &self,
        jobs: &[RunJob<'_>],
        encoder: &mut DescriptorEncoder,
    ) -> Result<(), std::fmt::Error> {
        let mut latency = encoder.encode_descriptor(
            "diskdash_bench_latency",
            "Completion latency of the job's I/Os over the run so far, as of the last interval \
             close: diskdash's histogram folded exactly to 16 buckets per power of two from \
             1.024us to 68.7s (le is each bucket's last nanosecond).",
            Some(&Unit::Seconds),
            MetricType::Histogram,
        )?;
        let mut buckets: Vec<(f64, u64)> = Vec::with_capacity(self.le_seconds.len());
        for job in jobs {
            for op in job.ops() {
                let direction = op.of(&job.totals);
                let counts = fold(&direction.buckets);
                buckets.clear();
                buckets.extend(self.le_seconds.iter().copied().zip(counts));
                let count = buckets.iter().map(|(_, n)| n).sum();
                let labels = [("jobname", job.totals.name.as_str()), ("op", op.label())];
                latency
                    .encode_family(&labels)?
                    .encode_histogram::<NoLabelSet>(
                        direction.latency_sum_ns / 1e9,
                        count,
                        &buckets,
                        None,
                    )?;
            }
        }
        Ok(())
    }

    fn encode_info(&self, encoder: &mut DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let snap = &self.snapshot;
        if !snap.step_opened() {
            return Ok(());
        }
        let mut info = encoder.encode_descriptor(
            "diskdash_bench_job",
            "The parameters of each job of the running (or last) step of the plan (step counts \
             from 1 of steps).",
            None,
            MetricType::Info,
        )?;
        let step = (snap.plan.index + 1).to_string();
        let steps = snap.plan.count.to_string();
        for job in &snap.jobs {
            let none: [(&str, &str); 0] = [];
            Info::new(job_labels(job, &step, &steps)).encode(info.encode_family(&none)?)?;
        }
        Ok(())
    }
}

/// A job's parameters as labels.
fn job_labels<'a>(
    job: &'a JobView,
    step: &'a str,
    steps: &'a str,
) -> Vec<(&'static str, Cow<'a, str>)> {
    let spec = &job.spec;
    let sync = match spec.sync_every {
        Some(crate::bench::spec::SyncEvery::Fsync(n)) => format!("fsync={n}"),
        Some(crate::bench::spec::SyncEvery::Fdatasync(n)) => format!("fdatasync={n}"),
        None => String::new(),
    };
    vec![
        ("jobname", Cow::Borrowed(job.name.as_str())),
        ("step", Cow::Borrowed(step)),
        ("steps", Cow::Borrowed(steps)),
        ("rw", Cow::Borrowed(spec.rw.as_str())),
        (
            "rwmixread",
            Cow::Owned(spec.rw.read_pct(spec.rwmixread_pct).to_string()),
        ),
        ("bs", Cow::Owned(spec.block_size_bytes.to_string())),
        ("iodepth", Cow::Owned(spec.iodepth.to_string())),
        ("numjobs", Cow::Owned(spec.numjobs.to_string())),
        ("ioengine", Cow::Borrowed(spec.ioengine.as_str())),
        ("direct", Cow::Borrowed(if spec.direct { "1" } else { "0" })),
        ("sync", Cow::Owned(sync)),
        (
            "runtime_seconds",
            Cow::Owned(spec.runtime.as_secs_f64().to_string()),
        ),
        ("target", job.target.to_string_lossy()),
        ("device", Cow::Borrowed(job.disk.as_deref().unwrap_or(""))),
    ]
}

impl Collector for RunScrape {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let jobs = self.jobs();
        self.encode_info(&mut encoder)?;
        if jobs.is_empty() {
            return Ok(());
        }
        Self::encode_counters(&jobs, &mut encoder)?;
        self.encode_latency(&jobs, &mut encoder)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serve::fold::LE_BOUNDS;
    use crate::serve::metrics::openmetrics_of;
    use crate::session::add_to_run;

    fn text(snapshot: Snapshot) -> String {
        openmetrics_of(vec![Box::new(RunScrape {
            snapshot: Arc::new(snapshot),
            le_seconds: Arc::new(le_seconds()),
        })])
    }

    fn value(text: &str, series: &str) -> f64 {
        let prefix = format!("{series} ");
        text.lines()
            .find_map(|l| l.strip_prefix(&prefix))
            .unwrap_or_else(|| panic!("no {series} in\n{text}"))
            .parse()
            .unwrap()
    }

    #[test]
    fn counters_and_a_consistent_histogram_per_job_and_op() {
        let mut snap = crate::tui::ui::sample::plan::snapshot();
        let mut run = Vec::new();
        // Two steps of the same jobs: the run's totals are twice one step's.
        add_to_run(&mut run, &snap.jobs);
        add_to_run(&mut run, &snap.jobs);
        snap.run = Arc::new(run);
        let om = text(snap.clone());
        for line in [
            "# TYPE diskdash_bench_ios counter",
            "# TYPE diskdash_bench_bytes counter",
            "# UNIT diskdash_bench_bytes bytes",
            "# TYPE diskdash_bench_errors counter",
            "# TYPE diskdash_bench_latency_seconds histogram",
            "# UNIT diskdash_bench_latency_seconds seconds",
            "# TYPE diskdash_bench_job info",
        ] {
            assert!(om.lines().any(|l| l == line), "no {line:?} in\n{om}");
        }
        assert_eq!(om.lines().last(), Some("# EOF"));
        for job in &snap.jobs {
            let name = &job.name;
            for (op, view, issued) in [
                ("read", &job.cumulative.read, job.spec.reads()),
                ("write", &job.cumulative.write, job.spec.writes()),
            ] {
                let labels = format!("jobname=\"{name}\",op=\"{op}\"");
                let ios = format!("diskdash_bench_ios_total{{{labels}}}");
                if !issued {
                    assert!(!om.contains(&ios), "{ios} of a job that does not {op}");
                    continue;
                }
                let twice = |n: u64| (2 * n) as f64;
                assert_eq!(value(&om, &ios), twice(view.ios));
                let bytes = format!("diskdash_bench_bytes_total{{{labels}}}");
                assert_eq!(value(&om, &bytes), twice(view.bytes));
                // The sample records fewer latencies than I/Os: the histogram counts latencies.
                let latencies = view.latency.count;
                let count = format!("diskdash_bench_latency_seconds_count{{{labels}}}");
                assert_eq!(value(&om, &count), twice(latencies));
                let sum = value(
                    &om,
                    &format!("diskdash_bench_latency_seconds_sum{{{labels}}}"),
                );
                let want = 2.0 * view.latency.mean_ns * latencies as f64 / 1e9;
                assert!((sum - want).abs() <= want * 1e-9, "{sum} vs {want}");
                // Cumulative, non-decreasing, one per bound, +Inf equal to the count.
                let buckets: Vec<f64> = om
                    .lines()
                    .filter(|l| l.starts_with("diskdash_bench_latency_seconds_bucket{"))
                    .filter(|l| l.contains(&labels))
                    .map(|l| l.rsplit(' ').next().unwrap().parse().unwrap())
                    .collect();
                assert_eq!(buckets.len(), LE_BOUNDS);
                assert!(buckets.windows(2).all(|w| w[0] <= w[1]));
                assert_eq!(buckets.last(), Some(&twice(latencies)));
                let inf = format!("diskdash_bench_latency_seconds_bucket{{le=\"+Inf\",{labels}}}");
                assert_eq!(value(&om, &inf), twice(latencies));
            }
            let errors = format!("diskdash_bench_errors_total{{jobname=\"{name}\"}}");
            assert_eq!(value(&om, &errors), 0.0);
            let info = format!("diskdash_bench_job_info{{jobname=\"{name}\",step=\"1\",");
            assert!(
                om.lines().any(|l| l.starts_with(&info)),
                "no {info} in\n{om}"
            );
        }
        // The text 0.0.4 rewrite keeps the histogram's samples and types it.
        let text = crate::serve::format::openmetrics_to_text(&om);
        assert!(text.contains("# TYPE diskdash_bench_latency_seconds histogram\n"));
        assert!(text.contains("# TYPE diskdash_bench_ios_total counter\n"));
    }

    #[test]
    fn a_job_before_its_first_interval_has_zero_series_and_no_run_no_families() {
        let mut snap = crate::tui::ui::sample::plan::snapshot();
        snap.run = Arc::default();
        let om = text(snap.clone());
        let name = &snap.jobs[0].name;
        let op = if snap.jobs[0].spec.reads() {
            "read"
        } else {
            "write"
        };
        let ios = format!("diskdash_bench_ios_total{{jobname=\"{name}\",op=\"{op}\"}}");
        assert_eq!(value(&om, &ios), 0.0);
        // Before the first step opens the snapshot holds the plan's first job, waiting: no
        // job ran, so no family yet.
        snap.jobs.truncate(1);
        snap.step.marks = Arc::default();
        let om = text(snap);
        assert!(!om.contains("diskdash_bench"), "{om}");
    }
}
