//! A fleet of three hosts running the same 4k random read, 30 s into a 60 s run: `db-01` and
//! `db-02` running (the second slower, on a busier disk), `db-03` dropped after 12 s and
//! failed with its last error. The live fleet is built by hand from real interval records and
//! goes through the same conversion as the live dashboard.

use std::time::Duration;

use crate::fleet::live::{FleetState, HostState, LiveFleet};
use crate::monitor::iostat::IostatRow;
use crate::record::{DirectionRecord, IntervalRecord, SyncRecord};
use crate::stats::DirectionStats;
use crate::tui::view::{UiState, View, from_fleet};

/// One host's interval `index` (1 s): `iops` reads at latencies around `base_ns`, a tail of 1%
/// at `tail_ns`, the disk `util` % busy.
fn interval(index: u64, iops: u64, base_ns: u64, tail_ns: u64, util: f64) -> IntervalRecord {
    let mut stats = DirectionStats::new();
    let wobble = [0u64, 3, 6, 2, 4, 1, 5, 7][usize::try_from(index % 8).unwrap_or(0)];
    let iops = iops + wobble * iops / 100;
    for i in 0..iops {
        let ns = if i % 100 == 99 {
            tail_ns
        } else {
            base_ns + (i % 7) * base_ns / 10
        };
        stats.record(4096, ns);
    }
    let mut device = IostatRow::idle("nvme0n1");
    device.util_pct = util;
    IntervalRecord {
        format: crate::record::INTERVAL_FORMAT.into(),
        format_version: crate::record::FORMAT_VERSION,
        step: 0,
        index,
        t_ns: (index + 1) * 1_000_000_000,
        duration_ns: 1_000_000_000,
        stalled_ns: 0,
        read: DirectionRecord::from_stats(&stats, 1_000_000_000).with_interval_histogram(&stats),
        write: DirectionRecord::default(),
        sync: SyncRecord::default(),
        trim: DirectionRecord::default(),
        device: Some(device),
        jobs: Vec::new(),
        merged: None,
    }
}

/// The live fleet 30 intervals in.
#[must_use]
pub fn live() -> LiveFleet {
    let names: Vec<String> = ["db-01", "db-02", "db-03"]
        .iter()
        .map(ToString::to_string)
        .collect();
    let command: Vec<String> = [
        "bench",
        "/srv/scratch",
        "--rw",
        "randread",
        "--bs",
        "4k",
        "-q",
        "32",
        "--runtime",
        "60s",
    ]
    .iter()
    .map(ToString::to_string)
    .collect();
    let mut fleet = LiveFleet::new(&names, &command, Some(Duration::from_secs(60)));
    fleet.state = FleetState::Running;
    for index in 0..30 {
        let mut fronts = vec![
            (0, interval(index, 2400, 95_000, 900_000, 62.5)),
            (1, interval(index, 1500, 160_000, 2_400_000, 88.0)),
        ];
        if index < 12 {
            fronts.push((2, interval(index, 2200, 100_000, 1_100_000, 58.0)));
        }
        fleet.push_interval(fronts);
    }
    fleet.hosts[0].state = HostState::Running;
    fleet.hosts[1].state = HostState::Running;
    fleet.hosts[2].state = HostState::Failed;
    fleet.hosts[2].error =
        Some("dropped mid-run: Connection to 10.0.0.3 closed by remote host.".into());
    fleet.message = Some("db-03: failed: dropped mid-run".into());
    fleet
}

/// The dashboard of [`live`] with the host `selected` (`None`: the fleet) driving the charts.
#[must_use]
pub fn view(selected: Option<usize>) -> View {
    from_fleet::view(
        &live(),
        selected,
        UiState {
            color: true,
            ..UiState::default()
        },
        Duration::from_secs(30),
    )
}
