//! Conversions from the monitor's types to the view model, shared by every front end.

use crate::monitor::iostat::IostatRow;
use crate::monitor::sysfs::QueueSettings;
use crate::tui::view::{DeviceRates, DiskRow, QueueView, RatePoint};

const KIB: f64 = 1024.0;
const MIB: f64 = 1024.0 * 1024.0;

#[must_use]
pub fn disk_row(row: &IostatRow, vanished: bool) -> DiskRow {
    DiskRow {
        name: row.device.clone(),
        r_s: row.reads_per_s,
        rkb_s: row.read_kb_per_s,
        r_await: row.read_await_ms,
        rareq_sz: row.read_request_kb,
        w_s: row.writes_per_s,
        wkb_s: row.write_kb_per_s,
        w_await: row.write_await_ms,
        wareq_sz: row.write_request_kb,
        d_s: row.discards_per_s,
        dkb_s: row.discard_kb_per_s,
        d_await: row.discard_await_ms,
        aqu_sz: row.queue_size,
        // Records written before %util was capped may hold a hair over 100.
        util: row.util_pct.min(100.0),
        vanished,
        device_time: None,
    }
}

#[must_use]
pub fn device_rates(row: &IostatRow) -> DeviceRates {
    DeviceRates {
        r_s: row.reads_per_s,
        w_s: row.writes_per_s,
        rmb_s: row.read_kb_per_s * KIB / MIB,
        wmb_s: row.write_kb_per_s * KIB / MIB,
        r_await_ms: row.read_await_ms,
        w_await_ms: row.write_await_ms,
        aqu_sz: row.queue_size,
        util_pct: row.util_pct.min(100.0),
        d_s: row.discards_per_s,
        dmb_s: row.discard_kb_per_s * KIB / MIB,
        d_await_ms: row.discard_await_ms,
    }
}

/// A disks table row's rates as the device panel shows them: the same sample, the same
/// numbers.
#[must_use]
pub fn row_rates(row: &DiskRow) -> DeviceRates {
    DeviceRates {
        r_s: row.r_s,
        w_s: row.w_s,
        rmb_s: row.rkb_s * KIB / MIB,
        wmb_s: row.wkb_s * KIB / MIB,
        r_await_ms: row.r_await,
        w_await_ms: row.w_await,
        aqu_sz: row.aqu_sz,
        util_pct: row.util,
        d_s: row.d_s,
        dmb_s: row.dkb_s * KIB / MIB,
        d_await_ms: row.d_await,
    }
}

/// A device's rates as a point of the throughput chart.
#[must_use]
pub fn rate_point(t_s: f64, row: &IostatRow) -> RatePoint {
    RatePoint {
        t_s,
        read_iops: row.reads_per_s,
        write_iops: row.writes_per_s,
        read_bytes_per_s: row.read_kb_per_s * KIB,
        write_bytes_per_s: row.write_kb_per_s * KIB,
        trim_iops: row.discards_per_s,
        trim_bytes_per_s: row.discard_kb_per_s * KIB,
        range: None,
        stalled_s: 0.0,
    }
}

/// The queue settings worth a row, in sysfs names; absent attributes are left out.
#[must_use]
pub fn queue_view(disk: &str, q: &QueueSettings) -> QueueView {
    let mut settings: Vec<(String, String)> = Vec::new();
    let mut put = |k: &str, v: Option<String>| {
        if let Some(v) = v {
            settings.push((k.to_string(), v));
        }
    };
    let scheduler = match (&q.scheduler, &q.schedulers_available) {
        (Some(active), Some(all)) if all.len() > 1 => Some(
            all.iter()
                .map(|s| {
                    if s == active {
                        format!("[{s}]")
                    } else {
                        s.clone()
                    }
                })
                .collect::<Vec<_>>()
                .join(" "),
        ),
        (active, _) => active.clone(),
    };
    put("scheduler", scheduler);
    put("nr_requests", q.nr_requests.map(|v| v.to_string()));
    put("hw_queues", q.hw_queues.map(|v| v.to_string()));
    put("rotational", q.rotational.map(|v| u8::from(v).to_string()));
    put("read_ahead_kb", q.read_ahead_kb.map(|v| v.to_string()));
    put(
        "logical_block_size",
        q.logical_block_size.map(|v| v.to_string()),
    );
    put(
        "physical_block_size",
        q.physical_block_size.map(|v| v.to_string()),
    );
    put("max_sectors_kb", q.max_sectors_kb.map(|v| v.to_string()));
    put("write_cache", q.write_cache.clone());
    put("nomerges", q.nomerges.map(|v| v.to_string()));
    put("rq_affinity", q.rq_affinity.map(|v| v.to_string()));
    put("wbt_lat_usec", q.wbt_lat_usec.map(|v| v.to_string()));
    put("io_poll", q.io_poll.map(|v| u8::from(v).to_string()));
    put("zoned", q.zoned.clone());
    QueueView {
        disk: disk.to_string(),
        settings,
    }
}

/// Host name and `Linux <release>` for the header.
#[must_use]
pub fn host_and_kernel() -> (String, String) {
    let host = crate::monitor::host::Host::detect();
    let kernel = host.kernel();
    (host.hostname, kernel)
}

/// The short form of the monitor's `%util` note for the device panel.
#[must_use]
pub fn util_caveat(q: &QueueSettings) -> Option<String> {
    q.serves_in_parallel().then(|| {
        let queues = q
            .hw_queues
            .map_or(String::new(), |n| format!(", {n} hw queues"));
        let kind = if q.rotational == Some(false) {
            "non-rotational"
        } else {
            "parallel"
        };
        format!("%util is not saturation here ({kind}{queues}); watch aqu-sz")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queue_view_marks_the_active_scheduler_and_skips_absent_values() {
        let q = QueueSettings {
            scheduler: Some("none".into()),
            schedulers_available: Some(vec!["none".into(), "mq-deadline".into()]),
            nr_requests: Some(256),
            rotational: Some(false),
            ..QueueSettings::default()
        };
        let v = queue_view("vda", &q);
        assert_eq!(
            v.settings[0],
            ("scheduler".into(), "[none] mq-deadline".into())
        );
        assert_eq!(v.settings.len(), 3);
        assert!(util_caveat(&q).unwrap().contains("non-rotational"));
        assert_eq!(util_caveat(&QueueSettings::default()), None);
    }

    #[test]
    fn device_rates_convert_kib_to_mib() {
        let mut row = IostatRow::idle("vda");
        row.read_kb_per_s = 2048.0;
        assert!((device_rates(&row).rmb_s - 2.0).abs() < 1e-12);
        assert!((rate_point(1.0, &row).read_bytes_per_s - 2_097_152.0).abs() < 1e-6);
    }
}
