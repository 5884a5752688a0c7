use super::*;
use crate::monitor::diskstats::parse_diskstats;

fn counters(f: impl FnOnce(&mut DiskCounters)) -> DiskCounters {
    let mut c = DiskCounters::zeroed("sda");
    f(&mut c);
    c
}

/// Two decimals, as iostat prints them.
fn r2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

#[test]
fn the_issue_example_reads_over_one_second() {
    let prev = counters(|c| {
        c.reads = 5_000;
        c.sectors_read = 100_000;
        c.read_ms = 2_000;
        c.io_ms = 10_000;
        c.weighted_io_ms = 20_000;
    });
    let cur = counters(|c| {
        c.reads = 6_000;
        c.sectors_read = 108_000;
        c.read_ms = 2_500;
        c.io_ms = 10_450;
        c.weighted_io_ms = 20_520;
    });
    let row = IostatRow::between(&prev, &cur, Duration::from_secs(1));
    assert_eq!(r2(row.reads_per_s), 1000.00);
    assert_eq!(r2(row.read_kb_per_s), 4000.00);
    assert_eq!(r2(row.read_await_ms), 0.50);
    assert_eq!(r2(row.read_request_kb), 4.00);
    assert_eq!(r2(row.queue_size), 0.52);
    assert_eq!(r2(row.util_pct), 45.00);
    assert_eq!(row.writes_per_s, 0.0);
    assert_eq!(row.write_await_ms, 0.0);
    assert!(!row.counters_wrapped);
}

#[test]
fn merges_writes_discards_and_flushes_over_two_seconds() {
    let prev = DiskCounters::zeroed("nvme0n1");
    let cur = counters(|c| {
        c.reads = 300;
        c.reads_merged = 100;
        c.sectors_read = 2_400;
        c.writes = 1_000;
        c.writes_merged = 3_000;
        c.sectors_written = 64_000;
        c.write_ms = 4_000;
        c.discards = 10;
        c.discards_merged = 10;
        c.sectors_discarded = 20_480;
        c.discard_ms = 25;
        c.flushes = 50;
        c.flush_ms = 60;
        c.io_ms = 1_900;
        c.weighted_io_ms = 8_100;
        c.in_flight = 7;
    });
    let row = IostatRow::between(&prev, &cur, Duration::from_secs(2));
    assert_eq!(row.read_merges_per_s, 50.0);
    assert_eq!(row.read_merged_pct, 25.0);
    assert_eq!(row.read_request_kb, 4.0);
    assert_eq!(row.writes_per_s, 500.0);
    assert_eq!(row.write_kb_per_s, 16_000.0);
    assert_eq!(row.write_merges_per_s, 1_500.0);
    assert_eq!(row.write_merged_pct, 75.0);
    assert_eq!(row.write_await_ms, 4.0);
    assert_eq!(row.write_request_kb, 32.0);
    assert_eq!(row.discards_per_s, 5.0);
    assert_eq!(row.discard_kb_per_s, 5_120.0);
    assert_eq!(row.discard_merges_per_s, 5.0);
    assert_eq!(row.discard_merged_pct, 50.0);
    assert_eq!(row.discard_await_ms, 2.5);
    assert_eq!(row.discard_request_kb, 1_024.0);
    assert_eq!(row.flushes_per_s, 25.0);
    assert_eq!(row.flush_await_ms, 1.2);
    assert_eq!(row.queue_size, 4.05);
    assert_eq!(row.util_pct, 95.0);
    assert_eq!(row.in_flight, 7);
    assert!(row.is_active());
}

#[test]
fn a_counter_going_backwards_zeroes_the_row_and_flags_it() {
    let prev = counters(|c| {
        c.reads = 1_000;
        c.io_ms = 500;
    });
    let cur = counters(|c| {
        c.reads = 2_000;
        c.io_ms = 400;
    });
    let row = IostatRow::between(&prev, &cur, Duration::from_secs(1));
    assert!(row.counters_wrapped);
    assert_eq!(row, {
        let mut idle = IostatRow::idle("sda");
        idle.counters_wrapped = true;
        idle
    });
}

#[test]
fn a_32_bit_time_field_wrapping_is_flagged_not_a_huge_number() {
    let prev = counters(|c| {
        c.reads = 10;
        c.read_ms = u64::from(u32::MAX) - 5;
    });
    let cur = counters(|c| {
        c.reads = 20;
        c.read_ms = 4;
    });
    let row = IostatRow::between(&prev, &cur, Duration::from_secs(1));
    assert!(row.counters_wrapped);
    assert_eq!(row.read_await_ms, 0.0);
    assert_eq!(row.reads_per_s, 0.0);
}

#[test]
fn zero_elapsed_and_idle_devices_give_zeros_not_nan() {
    let c = counters(|c| c.reads = 10);
    let row = IostatRow::between(&DiskCounters::zeroed("sda"), &c, Duration::ZERO);
    assert_eq!(row.reads_per_s, 0.0);
    let idle = IostatRow::between(&c, &c, Duration::from_secs(1));
    assert_eq!(idle, IostatRow::idle("sda"));
    assert!(!idle.is_active());
}

#[test]
fn since_boot_divides_the_totals_by_the_uptime() {
    let c = counters(|c| {
        c.writes = 1_000;
        c.sectors_written = 20_000;
        c.write_ms = 3_000;
        c.io_ms = 2_000;
    });
    let row = IostatRow::since_boot(&c, Duration::from_secs(100));
    assert_eq!(row.writes_per_s, 10.0);
    assert_eq!(row.write_kb_per_s, 100.0);
    assert_eq!(row.write_await_ms, 3.0);
    assert_eq!(row.write_request_kb, 10.0);
    assert_eq!(row.util_pct, 2.0);
}

#[test]
fn captured_one_second_of_o_direct_writes() {
    let read = |name: &str| {
        let path = format!(
            "{}/tests/fixtures/diskstats/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        let mut disks = Vec::new();
        parse_diskstats(&std::fs::read(path).unwrap(), &mut disks).unwrap();
        disks.into_iter().find(|d| d.name == "vda").unwrap()
    };
    let (a, b) = (read("linux-6.18-vm-a.txt"), read("linux-6.18-vm-b.txt"));
    let row = IostatRow::between(&a, &b, Duration::from_secs(1));
    // Deltas: 7 reads / 288 sectors / 0 ms; 128 writes / 131072 sectors / 50 ms;
    // io_ticks 24 ms; time_in_queue 52 ms; no discards or flushes.
    assert_eq!(row.reads_per_s, 7.0);
    assert_eq!(row.read_kb_per_s, 144.0);
    assert_eq!(r2(row.read_request_kb), 20.57);
    assert_eq!(row.read_await_ms, 0.0);
    assert_eq!(row.writes_per_s, 128.0);
    assert_eq!(row.write_kb_per_s, 65_536.0);
    assert_eq!(row.write_request_kb, 512.0);
    assert_eq!(row.write_await_ms, 0.390_625);
    assert_eq!(row.queue_size, 0.052);
    assert_eq!(row.util_pct, 2.4);
    assert_eq!(row.discards_per_s + row.flushes_per_s, 0.0);
}

#[test]
fn json_has_exactly_sysstats_keys_in_sysstats_order_with_two_decimals() {
    let cur = counters(|c| {
        c.reads = 3;
        c.sectors_read = 7;
        c.read_ms = 1;
    });
    let row = IostatRow::between(&DiskCounters::zeroed("sda"), &cur, Duration::from_secs(3));
    let json = serde_json::to_string(&row).unwrap();
    assert_eq!(
        json,
        concat!(
            r#"{"disk_device":"sda","r/s":1.0,"w/s":0.0,"d/s":0.0,"f/s":0.0,"#,
            r#""rkB/s":1.17,"wkB/s":0.0,"dkB/s":0.0,"rrqm/s":0.0,"wrqm/s":0.0,"drqm/s":0.0,"#,
            r#""rrqm":0.0,"wrqm":0.0,"drqm":0.0,"r_await":0.33,"w_await":0.0,"d_await":0.0,"#,
            r#""f_await":0.0,"rareq-sz":1.17,"wareq-sz":0.0,"dareq-sz":0.0,"aqu-sz":0.0,"#,
            r#""util":0.0}"#
        )
    );
    let wrapped = IostatRow {
        counters_wrapped: true,
        ..IostatRow::idle("sda")
    };
    let value = serde_json::to_value(&wrapped).unwrap();
    assert_eq!(value["counters_wrapped"], true);
}

#[test]
fn vanished_and_appearing_devices() {
    let read = |name: &str, at_s: u64| {
        let path = format!(
            "{}/tests/fixtures/diskstats/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        let mut disks = Vec::new();
        parse_diskstats(&std::fs::read(path).unwrap(), &mut disks).unwrap();
        DiskstatsSample {
            at: Duration::from_secs(at_s),
            disks,
        }
    };
    let (a, b) = (read("hotplug-a.txt", 100), read("hotplug-b.txt", 102));
    let rows = rows_between(&a, &b);
    let names: Vec<&str> = rows.iter().map(|r| r.device.as_str()).collect();
    assert_eq!(names, ["vda", "sdb"]);
    // vda: 7 reads, 128 writes over 2 s.
    assert_eq!(rows[0].reads_per_s, 3.5);
    assert_eq!(rows[0].writes_per_s, 64.0);
    // sdb appeared: 120 reads of 960 sectors, 80 ms, io_ticks 72 ms, all within the 2 s.
    assert_eq!(rows[1].reads_per_s, 60.0);
    assert_eq!(rows[1].read_kb_per_s, 240.0);
    assert_eq!(rows[1].read_await_ms, 80.0 / 120.0);
    assert_eq!(rows[1].util_pct, 3.6);
    assert!(!rows[1].counters_wrapped);
    // Same device list again: paired by position.
    let same = rows_between(&b, &b);
    assert!(same.iter().all(|r| !r.is_active()));
}

#[test]
fn pairs_by_position_or_by_name() {
    let d = |n: &str| DiskCounters::zeroed(n);
    let prev = [d("a"), d("b"), d("c")];
    let moved = [d("c"), d("x"), d("a")];
    let paired = pair_with_previous(&prev, &moved);
    let names: Vec<Option<&str>> = paired.iter().map(|p| p.map(|p| p.name.as_str())).collect();
    assert_eq!(names, [Some("c"), None, Some("a")]);
    assert!(pair_with_previous(&prev, &prev).iter().all(Option::is_some));
}

/// Busy time a hair past the sampled window (the kernel's clock and ours) reads 100%, not more.
#[test]
fn util_is_at_most_one_hundred_percent() {
    let prev = counters(|c| c.io_ms = 1_000);
    let cur = counters(|c| c.io_ms = 4_049);
    let row = IostatRow::between(&prev, &cur, Duration::from_secs(3));
    assert_eq!(row.util_pct, 100.0);
    let cur = counters(|c| c.io_ms = 3_970);
    let row = IostatRow::between(&prev, &cur, Duration::from_secs(3));
    assert_eq!(r2(row.util_pct), 99.0);
}
