//! `diskdash sweep`: the swept options (lists and ranges) in the order given, the rest as
//! `bench` takes them, through the one validator into a plan of one step per point; the
//! estimate first, then the dashboard or status lines, then the table.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use crate::bench::options::{self, JobOption, Key};
use crate::bench::spec::MachineLimits;
use crate::cli::SweepArgs;
use crate::drive::{Outputs, ReportTo, Run, drive};
use crate::error::usage;
use crate::fleet::remote::Remote;
use crate::report::headless::Headless;
use crate::report::sweep::table::{self, Format, Pick};
use crate::serve::run::RunServe;
use crate::sweep::{self, Axis, Dimension};

/// Runs the sweep and prints its table.
///
/// # Errors
/// Usage errors (exit 2) before anything runs; the run's failure (exit 1) after the table of
/// what finished.
pub fn run(args: &SweepArgs) -> anyhow::Result<ExitCode> {
    run_as(args, None)
}

/// `sweep`, or `sweep` as a fleet's remote side (see `crate::fleet::remote`).
pub(crate) fn run_as(args: &SweepArgs, remote: Option<&Remote>) -> anyhow::Result<ExitCode> {
    let mut args = args.clone();
    if remote.is_some() {
        args.jsonl = Some("-".into());
        args.points = false;
    }
    let args = &args;
    refuse_lists(args)?;
    let format = Format::parse(&args.format)?;
    let loops = match &args.loops {
        None => 1,
        Some(text) => match text.trim().parse::<u32>() {
            Ok(n @ 1..=100) => n,
            _ => {
                return Err(usage!(
                    "--loops {text:?} is not a number of runs; use 1 to 100, e.g. 5"
                ));
            }
        },
    };
    let pick = match (&args.pick, &args.loops) {
        (Some(_), None) => {
            return Err(usage!(
                "--pick needs --loops: one run per point has nothing to pick from; add e.g. \
                 --loops 5"
            ));
        }
        (Some(text), Some(_)) => Pick::parse(text)?,
        (None, _) => Pick::Best,
    };
    let (axes, base) = axes_and_base(args)?;
    let latency_target = latency_target(args, &axes)?;
    let baseline = match args.baseline.as_deref() {
        None => false,
        Some("memory") if latency_target.is_some() => {
            return Err(usage!(
                "--baseline memory and --latency-target do not combine: the target may end the \
                 disk's points early; run the baseline apart"
            ));
        }
        Some("memory") => true,
        Some(other) => {
            return Err(usage!(
                "--baseline {other:?} is not a baseline; use --baseline memory"
            ));
        }
    };
    if let (Some(dir), false) = (&args.baseline_dir, baseline) {
        return Err(usage!(
            "--baseline-dir {} is where the memory baseline runs; add --baseline memory, or \
             drop --baseline-dir",
            dir.display()
        ));
    }
    let names: Vec<String> = axes
        .iter()
        .map(|a| a.dimension.name().to_string())
        .collect();
    let machine = MachineLimits::detect();
    let mut sweep = sweep::build(&base, axes, loops, args.target.clone(), &machine, args.yes)?;
    if baseline {
        let dir = args
            .baseline_dir
            .clone()
            .unwrap_or_else(|| sweep::MEMORY_DIR.into());
        sweep::add_memory_baseline(
            &mut sweep,
            &base,
            &machine,
            &dir,
            args.baseline_dir.is_some(),
        )?;
    }
    let target = args.target.as_deref().map_or_else(
        || "a scratch file here".to_string(),
        |p| p.display().to_string(),
    );
    // Bound before anything runs (a taken port fails first); not for a listing of the points.
    let publish = if args.points {
        None
    } else {
        RunServe::bind(
            args.publish.serve.as_deref(),
            args.publish.serve_linger.as_deref(),
            "diskdash sweep",
        )?
    };
    eprintln!(
        "diskdash sweep: {} on {}",
        sweep.estimate(),
        crate::text::escape(&target)
    );
    if loops > 1 {
        eprintln!(
            "note: each point runs {loops} times; the table shows the {} ({})",
            pick.as_str(),
            match pick {
                Pick::Best => "the run with the highest bandwidth, CrystalDiskMark's rule",
                Pick::Mean => "rates averaged, latency over all the runs' I/Os, KDiskMark's rule",
                Pick::Median => "the run with the median bandwidth",
            }
        );
    }
    if args.points {
        let mut out = std::io::stdout().lock();
        for (i, point) in sweep.points.iter().enumerate() {
            let text = match sweep.plan.steps.first() {
                // One point of the options as given: say so, and what it runs.
                Some(step) if point.is_empty() => {
                    format!("nothing swept: {}", step.jobs[0].spec.describe())
                }
                _ => sweep::describe(point),
            };
            // What the point runs otherwise than the options say (batching capped to its
            // depth): its first step's notes, as its row will say.
            let text = match sweep.plan.steps.get(i * sweep.loops as usize) {
                Some(step) if !step.notes.is_empty() => {
                    format!("{text} ({})", step.notes.join("; "))
                }
                _ => text,
            };
            let _ = writeln!(out, "{:>4}  {}", i + 1, crate::text::escape(&text));
        }
        return Ok(ExitCode::SUCCESS);
    }
    let run = Run {
        plan: sweep.plan.clone(),
        outputs: Outputs {
            json: args.json.clone(),
            jsonl: args.jsonl.clone(),
            allow_destructive: args.allow_destructive,
            force: args.force,
            redact: args.share.redact,
            record_serial: args.share.record_serial,
            trace: args.trace,
        },
        no_tui: args.no_tui,
        headless: Headless::Sweep,
        serve: publish,
        remote,
        latency_target,
        annotate: Some(annotate(
            names.clone(),
            loops,
            pick,
            args.advice,
            latency_target,
        )),
        interval_sink: None,
        status_sink: None,
        trust: crate::cmd::flags::trust(&args.trust)?,
    };
    drive(run, |outcome, to| {
        let rows = table::with_memory(table::rows(&outcome.record, pick));
        let to_stderr = to == ReportTo::Stderr;
        // A terminal gets the table fitted to its width; a pipe or a file the whole table.
        let fit = (format == Format::Table && !to_stderr)
            .then(terminal_width)
            .flatten();
        // The findings the record holds (those of the run as measured), not recomputed from
        // the record as written, whose rates are rounded.
        let findings = match &outcome.record.sweep {
            Some(sweep) => sweep.analysis.clone(),
            None => table::findings(&outcome.record, &rows, &names, args.advice, latency_target),
        };
        let foot = table::foot(&outcome.record, &rows, &findings);
        let text = crate::report::sweep::report(&rows, &names, format, fit, &findings, &foot);
        if to_stderr {
            let mut err = std::io::stderr().lock();
            let _ = err.write_all(text.as_bytes());
        } else {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
        }
        Ok(())
    })
}

/// The width of the terminal stdout writes to; `None` when stdout is no terminal.
fn terminal_width() -> Option<usize> {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        return None;
    }
    crossterm::terminal::size()
        .ok()
        .map(|(columns, _)| usize::from(columns))
        .filter(|&w| w > 0)
}

/// The swept options (more than one value), in the order their flags were given, and the
/// options of everything else.
fn axes_and_base(args: &SweepArgs) -> anyhow::Result<(Vec<Axis>, Vec<JobOption>)> {
    let given = &args.job.options;
    let sweep_default = |key: Key| JobOption::flag(key, key.row().default_for(options::SWEEP));
    let mut base: Vec<JobOption> = Vec::new();
    if args.job.get(Key::Runtime).is_none() {
        base.push(sweep_default(Key::Runtime));
    }
    // fio's buffers: the advice must hold for what other tools measure.
    if args.job.get(Key::IoMem).is_none() {
        base.push(sweep_default(Key::IoMem));
    }
    // A dd-style point times its bytes from the first: no warm-up unless asked for.
    if args.job.get(Key::Ramp).is_none() {
        base.push(if args.job.get(Key::IoSize).is_some() {
            JobOption::flag(Key::Ramp, "0s")
        } else {
            sweep_default(Key::Ramp)
        });
    }
    base.extend(
        given
            .iter()
            .filter(|o| Dimension::of(o.key).is_none())
            .cloned(),
    );
    let mut axes = Vec::new();
    for option in given {
        let Some(dimension) = Dimension::of(option.key) else {
            continue;
        };
        let axis = sweep::parse_axis(dimension, &option.value)?;
        if axis.values.len() > 1 {
            axes.push(axis);
        } else {
            for (key, v) in dimension.options(&axis.values[0]) {
                base.push(JobOption::flag(key, v));
            }
        }
    }
    Ok((axes, base))
}

/// Refuses a list or a range on an option that takes one value: only the swept options take
/// them. Values are checked for `..` too, except paths (`../r.json` is one file).
fn refuse_lists(args: &SweepArgs) -> anyhow::Result<()> {
    let path = |p: &Option<std::path::PathBuf>| p.as_ref().map(|p| p.display().to_string());
    let job = args
        .job
        .options
        .iter()
        .filter(|o| o.key.row().sweep_list.is_none() && !o.key.row().commas)
        .map(|o| (o.key.flag(), Some(o.value.clone())));
    let values = [
        ("--loops", args.loops.clone()),
        ("--pick", args.pick.clone()),
        ("--latency-target", args.latency_target.clone()),
        (
            "--latency-percentile",
            Some(args.latency_percentile.clone()),
        ),
        ("--baseline", args.baseline.clone()),
        ("--format", Some(args.format.clone())),
        ("--serve-linger", args.publish.serve_linger.clone()),
    ];
    let paths = [
        ("--json", path(&args.json)),
        ("--jsonl", path(&args.jsonl)),
        ("--baseline-dir", path(&args.baseline_dir)),
        ("--serve", args.publish.serve.clone()),
    ];
    let mut lists = job
        .chain(values)
        .filter(|(_, v)| {
            v.as_ref()
                .is_some_and(|t| t.contains(',') || t.contains(".."))
        })
        .chain(
            paths
                .into_iter()
                .filter(|(_, v)| v.as_ref().is_some_and(|t| t.contains(','))),
        );
    if let Some((flag, text)) = lists.next() {
        let text = text.unwrap_or_default();
        let swept: Vec<_> = Dimension::ALL.iter().map(|d| d.flag()).collect();
        return Err(usage!(
            "{flag} {text:?}: only the workload options take lists and ranges ({}); give \
             {flag} one value",
            swept.join(", ")
        ));
    }
    Ok(())
}

/// `--latency-target`, checked: a duration, on a sweep of iodepth or numjobs, at a percentile
/// of fio's list (the records hold those).
fn latency_target(
    args: &SweepArgs,
    axes: &[Axis],
) -> anyhow::Result<Option<crate::session::LatencyTarget>> {
    let Some(text) = &args.latency_target else {
        return Ok(None);
    };
    let ns = match crate::units::parse_duration(text) {
        Ok(d) if !d.is_zero() => crate::record::nanos(d),
        _ => {
            return Err(usage!(
                "--latency-target {text:?} is not a latency; use e.g. 500us, 1ms or 20ms"
            ));
        }
    };
    if !axes
        .iter()
        .any(|a| matches!(a.dimension.key(), Key::IoDepth | Key::NumJobs))
    {
        return Err(usage!(
            "--latency-target needs a sweep of --iodepth or --numjobs to walk up; add e.g. \
             --iodepth 1..256"
        ));
    }
    let pct_text = args.latency_percentile.trim();
    let percentile = pct_text
        .parse::<f64>()
        .ok()
        .filter(|p| {
            crate::stats::FIO_PERCENTILES
                .iter()
                .any(|f| (f - p).abs() < 1e-9)
        })
        .ok_or_else(|| {
            usage!(
                "--latency-percentile {pct_text:?} is not one of fio's percentiles; use one of \
                 {}",
                crate::stats::FIO_PERCENTILES
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })?;
    Ok(Some(crate::session::LatencyTarget { percentile, ns }))
}

/// Puts the sweep's shape and the typed findings the foot is rendered from into its
/// record before it is written.
fn annotate(
    names: Vec<String>,
    loops: u32,
    pick: Pick,
    advice: bool,
    target: Option<crate::session::LatencyTarget>,
) -> crate::session::Annotate {
    crate::session::Annotate(Arc::new(move |record| {
        let rows = table::with_memory(table::rows(record, pick));
        record.sweep = Some(crate::record::SweepRecord {
            dimensions: names.clone(),
            loops,
            pick: pick.as_str().to_string(),
            analysis: table::findings(record, &rows, &names, advice, target),
        });
    }))
}
