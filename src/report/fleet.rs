//! The fleet's closing table (`diskdash fleet`, and `show` of a fleet record): each host over
//! its measured window, the fleet over the hosts', through the fleet's table.

pub mod table;

use crate::fleet::lines;
use crate::fleet::merge::p50_p99;
use crate::fleet::table::Row;
use crate::record::{DirectionRecord, FleetRecord, HostStatus};

/// A command as printed: its words joined by spaces, control characters escaped.
#[must_use]
pub fn shown_command(words: &[String]) -> String {
    words
        .iter()
        .map(|w| lines::shown(w, usize::MAX))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The run as a table: each host over its measured window, the fleet over the hosts'.
#[must_use]
pub fn summary(record: &FleetRecord) -> String {
    let row = |name: &str, state: String, dirs: [&DirectionRecord; 3]| {
        let (p50_ns, p99_ns) = p50_p99(&dirs);
        Row {
            name: name.to_string(),
            state,
            measured: dirs.iter().map(|d| d.total_ios).sum::<u64>() > 0 || dirs[0].runtime > 0,
            iops: dirs.iter().map(|d| d.iops).sum(),
            bw_bytes_per_s: dirs.iter().map(|d| d.bw_bytes).sum::<u64>() as f64,
            p50_ns,
            p99_ns,
            util_pct: None,
            error: None,
        }
    };
    let hosts: Vec<Row> = record
        .hosts
        .iter()
        .map(|h| {
            let state = match h.status {
                HostStatus::Completed => "completed",
                HostStatus::Interrupted => "interrupted",
                HostStatus::Failed if h.partial => "failed*",
                HostStatus::Failed => "failed",
                HostStatus::NotReady => "not ready",
            };
            // A host that could not use io_uring ran psync one I/O at a time: said in its row,
            // beside hosts that ran the plan as asked.
            let fell_back = h
                .record
                .as_ref()
                .and_then(|r| r.ran_as(&r.job))
                .map(|ran| format!(" (ran {} at iodepth {})", ran.ioengine, ran.iodepth));
            let state = format!("{state}{}", fell_back.unwrap_or_default());
            Row {
                util_pct: h
                    .record
                    .as_ref()
                    .and_then(|r| r.device.as_ref())
                    .map(|d| d.iostat.util_pct),
                error: h.error.clone(),
                ..row(&h.host, state, [&h.read, &h.write, &h.trim])
            }
        })
        .collect();
    let a = &record.aggregate;
    let fleet = Row {
        util_pct: hosts.iter().filter_map(|r| r.util_pct).reduce(f64::max),
        ..row(
            "fleet",
            {
                // Hosts that dropped mid-run are in the totals with what they sent: said so.
                let partial = record
                    .hosts
                    .iter()
                    .filter(|h| h.status == HostStatus::Failed && h.partial)
                    .count();
                if partial > 0 {
                    format!("{} of {} ({partial} partial)", a.hosts, record.hosts.len())
                } else {
                    format!("{} of {}", a.hosts, record.hosts.len())
                }
            },
            [&a.read, &a.write, &a.trim],
        )
    };
    let status = record.status.as_str();
    let mut text = table::render(
        &format!(
            "fleet {status}: {} (each host over its measured window; fleet latency from the \
             merged histograms)",
            shown_command(&record.command)
        ),
        &hosts,
        &fleet,
    );
    if record.hosts.iter().any(|h| h.partial) {
        text.push_str("  * partial: the intervals received before the host dropped\n");
    }
    text
}
