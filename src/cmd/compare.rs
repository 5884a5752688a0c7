//! `diskdash compare BASE.json NEW.json` (run or fleet records): the text (or `--json`) on stdout; with
//! `--max-regression`, each regression on stderr and exit 1 when there is any.

use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;

use crate::analysis::compare::{Totals, compare};
use crate::cli::CompareArgs;

/// `--max-regression PCT`, `--noise-floor PCT`: a finite number, 0 or more.
fn parse_pct(flag: &str, text: &str) -> anyhow::Result<f64> {
    match text.trim().trim_end_matches('%').parse::<f64>() {
        Ok(pct) if pct.is_finite() && pct >= 0.0 => Ok(pct),
        _ => Err(crate::error::usage!(
            "{flag} {text:?} is not a percentage; use a number of 0 or more, e.g. 5 or 2.5"
        )),
    }
}

/// A plan's totals mix its points: two sweeps are compared point by point, but a sweep against
/// anything else, or a mark of several measurements, would compare nothing in particular.
fn refuse_mixed_totals(base: (&str, Totals), new: (&str, Totals)) -> anyhow::Result<()> {
    for ((path, totals), (other, other_totals)) in [(base, new), (new, base)] {
        match (totals, other_totals) {
            (Totals::Mark { measurements }, _) if totals.mixed() => {
                return Err(crate::error::usage!(
                    "{path} is a mark of {measurements} measurements: its totals mix them; \
                     compare two sweeps point by point or two runs of one job"
                ));
            }
            (Totals::Sweep { points, baselines }, Totals::Run | Totals::Mark { .. })
                if totals.mixed() =>
            {
                let counted = if baselines {
                    " (memory baselines counted)"
                } else {
                    ""
                };
                let other_is = if other_totals == Totals::Run {
                    "one run"
                } else {
                    "a mark"
                };
                return Err(crate::error::usage!(
                    "{path} is a sweep of {points} points{counted} and {other} {other_is}: the \
                     sweep's totals mix its points; compare a sweep with a sweep (point by \
                     point) or a run with a run"
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

/// `diskdash compare`: the text (or `--json`) on stdout; with `--max-regression`, each
/// regression on stderr and exit 1 when there is any.
///
/// # Errors
/// A bad `--max-regression` or a file that is not a run record (usage errors); stdout failing.
pub fn run(args: &CompareArgs) -> anyhow::Result<ExitCode> {
    let max = args
        .max_regression
        .as_deref()
        .map(|t| parse_pct("--max-regression", t))
        .transpose()?;
    let floor = args
        .noise_floor
        .as_deref()
        .map_or(Ok(crate::analysis::change::NOISE_FLOOR_PCT), |t| {
            parse_pct("--noise-floor", t)
        })?;
    // A fleet by host and job, as `report` compares and draws it.
    let base = crate::fleet::view::load_run_by_job(&args.base)?;
    let new = crate::fleet::view::load_run_by_job(&args.new)?;
    let shown = |p: &Path| p.display().to_string();
    refuse_mixed_totals(
        (&shown(&args.base), Totals::of(&base)),
        (&shown(&args.new), Totals::of(&new)),
    )?;
    let mut comparison = compare(
        (&shown(&args.base), &base),
        (&shown(&args.new), &new),
        &crate::report::sweep::table::sweep_x,
        floor,
    );
    if let Some(max) = max {
        comparison.gate(max);
    }
    let text = if args.json {
        format!("{}\n", serde_json::to_string_pretty(&comparison)?)
    } else {
        crate::report::compare::text(&comparison)
    };
    std::io::stdout().lock().write_all(text.as_bytes())?;
    for regression in &comparison.regressions {
        eprintln!(
            "regression: {}, more than the {}% allowed",
            crate::text::escape(&regression.to_string()),
            max.unwrap_or_default()
        );
    }
    if !comparison.ungated.is_empty() {
        eprintln!(
            "note: --max-regression could not judge {} (insufficient data: a run needs 20 \
             intervals or 3 loops; run longer or lower --interval): {}",
            if comparison.ungated.len() == 1 {
                "1 metric".to_string()
            } else {
                format!("{} metrics", comparison.ungated.len())
            },
            crate::text::escape(&comparison.ungated.join(", "))
        );
    }
    Ok(if comparison.regressions.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_regression_takes_a_percentage_of_zero_or_more() {
        let parse_max_regression = |t| parse_pct("--max-regression", t);
        assert_eq!(parse_max_regression("5").unwrap(), 5.0);
        assert_eq!(parse_max_regression("2.5%").unwrap(), 2.5);
        assert_eq!(parse_max_regression("0").unwrap(), 0.0);
        assert_eq!(
            parse_pct("--noise-floor", "x").unwrap_err().to_string(),
            "--noise-floor \"x\" is not a percentage; use a number of 0 or more, e.g. 5 or 2.5"
        );
        for bad in ["-1", "ten", "", "NaN", "inf"] {
            let err = parse_max_regression(bad).unwrap_err();
            assert_eq!(crate::error::exit_code(&err), 2);
            assert_eq!(
                err.to_string(),
                format!(
                    "--max-regression {bad:?} is not a percentage; use a number of 0 or more, \
                     e.g. 5 or 2.5"
                )
            );
        }
    }
}
