//! `bench --serve`: the real binary benchmarking a small scratch file while serving the run,
//! scraped directly and checked against its own JSON record (counters equal, p99 of the served
//! histogram within 5% of the record's); a real Prometheus scraping it every second, queried
//! for `histogram_quantile`; `promtool check metrics` on the exposition; bad flags.

use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::serve::{OPENMETRICS, Prometheus, get};
use crate::support::read_json;
use crate::support::record::{RECORD, bench_cmd, record_in};
use crate::support::{BIN, assert_usage_error, inproc, stderr};

/// A `diskdash bench ... --serve 127.0.0.1:0 --json r.json` in the background, its stderr
/// read line by line.
struct ServedRun {
    child: Child,
    addr: SocketAddr,
    lines: Receiver<String>,
    /// Every stderr line so far.
    seen: Vec<String>,
}

impl ServedRun {
    fn start(dir: &Path, opts: &str) -> ServedRun {
        Self::start_command("bench", dir, opts)
    }

    /// `diskdash COMMAND DIR OPTS --no-tui --serve 127.0.0.1:0 --json r.json` in `dir`.
    fn start_command(command: &str, dir: &Path, opts: &str) -> ServedRun {
        let target = dir.to_str().unwrap();
        let mut args = vec![command, target];
        args.extend(opts.split_whitespace());
        args.extend(["--no-tui", "--serve", "127.0.0.1:0", "--json", RECORD]);
        let mut child = std::process::Command::new(BIN)
            .args(&args)
            .current_dir(dir)
            .env_remove("DISKDASH_URING_DISABLED")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starting diskdash");
        let stderr = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut run = ServedRun {
            child,
            addr: SocketAddr::from(([0, 0, 0, 0], 0)),
            lines,
            seen: Vec::new(),
        };
        let announce = format!("diskdash {command}: serving http://");
        let line = run.wait_for(|l| l.starts_with(&announce));
        run.addr = line
            .strip_prefix(&announce)
            .and_then(|rest| rest.strip_suffix("/metrics"))
            .unwrap_or_else(|| panic!("unexpected line {line:?}"))
            .parse()
            .unwrap();
        run
    }

    /// Reads stderr until a line matches; returns it.
    fn wait_for(&mut self, wanted: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if wanted(&line) {
                        return line;
                    }
                }
                Err(_) => panic!("no such line on stderr; so far:\n{}", self.seen.join("\n")),
            }
        }
    }

    /// The scrape, in OpenMetrics.
    fn scrape(&self) -> String {
        let response = get(self.addr, "/metrics", Some(OPENMETRICS));
        assert_eq!(response.status, 200, "{}", response.body);
        response.body
    }

    fn wait(mut self) -> Option<i32> {
        let status = self.child.wait().unwrap();
        status.code()
    }
}

impl Drop for ServedRun {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The value of the sample line that starts with `series ` (exact labels).
fn sample(body: &str, series: &str) -> f64 {
    let prefix = format!("{series} ");
    body.lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no {series:?} in\n{body}"))
        .parse()
        .unwrap()
}

/// The `(le, cumulative count)` of the histogram series with `labels`, in order.
fn buckets(body: &str, labels: &str) -> Vec<(f64, f64)> {
    body.lines()
        .filter_map(|l| l.strip_prefix("diskdash_bench_latency_seconds_bucket{le=\""))
        .filter(|rest| rest.contains(&format!("\",{labels}}}")))
        .map(|rest| {
            let (le, rest) = rest.split_once('"').unwrap();
            let le = if le == "+Inf" {
                f64::INFINITY
            } else {
                le.parse().unwrap()
            };
            (le, rest.rsplit(' ').next().unwrap().parse().unwrap())
        })
        .collect()
}

/// Prometheus's `histogram_quantile` (promql/quantile.go, bucketQuantile): the bucket holding
/// the rank, linearly interpolated; the highest finite bound when the rank is in `+Inf`.
fn histogram_quantile(q: f64, buckets: &[(f64, f64)]) -> f64 {
    let total = buckets.last().unwrap().1;
    let rank = q * total;
    let at = buckets.iter().position(|&(_, n)| n >= rank).unwrap();
    if buckets[at].0.is_infinite() {
        return buckets[at - 1].0;
    }
    let (start, below) = if at == 0 { (0.0, 0.0) } else { buckets[at - 1] };
    let (end, count) = buckets[at];
    start + (end - start) * (rank - below) / (count - below)
}

/// The record's p99 of reads, in seconds.
fn record_p99_s(direction: &Value) -> f64 {
    direction["lat_ns"]["percentile"]["99.000000"]
        .as_u64()
        .expect("a p99 in the record") as f64
        / 1e9
}

const READS: &str = "jobname=\"bench\",op=\"read\"";

#[test]
fn a_served_run_counts_what_its_record_counts_and_its_histogram_gives_the_same_p99() {
    let dir = tempfile::tempdir().unwrap();
    let mut run = ServedRun::start(
        dir.path(),
        "--size 32M --runtime 3s --iodepth 4 --serve-linger 10s",
    );
    // Mid-run: the values of the intervals closed so far, exactly.
    run.wait_for(|l| l.starts_with("[    2.0s]"));
    let mid = run.scrape();
    let mid_ios = sample(&mid, &format!("diskdash_bench_ios_total{{{READS}}}"));
    // The run ended and its record is written: the final values stay served.
    run.wait_for(|l| l.contains("serving the final values for 10s (--serve-linger)"));
    let body = run.scrape();
    let index = get(run.addr, "/", None);
    let missing = get(run.addr, "/api/v1/query", None);
    // An interrupt ends the linger: the run itself completed, so exit 0.
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(i32::try_from(run.child.id()).unwrap()),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let started = Instant::now();
    assert_eq!(run.wait(), Some(0));
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the linger went on"
    );

    let record = record_in(dir.path());
    let read = &record["read"];
    let total = |key: &str| read[key].as_u64().unwrap() as f64;
    assert_eq!(
        sample(&body, &format!("diskdash_bench_ios_total{{{READS}}}")),
        total("total_ios")
    );
    assert_eq!(
        sample(&body, &format!("diskdash_bench_bytes_total{{{READS}}}")),
        total("io_bytes")
    );
    assert_eq!(
        sample(
            &body,
            &format!("diskdash_bench_latency_seconds_count{{{READS}}}")
        ),
        total("total_ios")
    );
    assert_eq!(
        sample(&body, "diskdash_bench_errors_total{jobname=\"bench\"}"),
        0.0
    );
    assert!(
        !body.contains("op=\"write\""),
        "a randread run writes nothing"
    );
    let sum = sample(
        &body,
        &format!("diskdash_bench_latency_seconds_sum{{{READS}}}"),
    );
    let mean_s = read["lat_ns"]["mean"].as_f64().unwrap() / 1e9;
    let want_sum = mean_s * total("total_ios");
    assert!(
        (sum - want_sum).abs() <= want_sum * 1e-3,
        "sum {sum} vs {want_sum}"
    );
    let hist = buckets(&body, READS);
    assert_eq!(hist.len(), 418, "the fixed le set");
    assert!(hist.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1));
    assert_eq!(hist.last().unwrap().1, total("total_ios"));
    let served_p99 = histogram_quantile(0.99, &hist);
    let own_p99 = record_p99_s(read);
    eprintln!("p99: served {served_p99} s, the record's {own_p99} s");
    assert!(
        (served_p99 / own_p99 - 1.0).abs() <= 0.05,
        "served p99 {served_p99} s, the record's {own_p99} s"
    );
    let info = body
        .lines()
        .find(|l| l.starts_with("diskdash_bench_job_info{"))
        .unwrap_or_else(|| panic!("no job info in\n{body}"));
    for label in [
        "jobname=\"bench\"",
        "step=\"1\"",
        "rw=\"randread\"",
        "bs=\"4096\"",
        "iodepth=\"4\"",
        "ioengine=\"io_uring\"",
        "direct=\"1\"",
    ] {
        assert!(info.contains(label), "no {label} in {info}");
    }
    // The disks are served beside the run.
    assert!(body.contains("# TYPE node_disk_reads_completed counter"));
    assert_eq!(body.lines().last(), Some("# EOF"));

    // Mid-run, the count was that of the first intervals of the record, exactly.
    let intervals = record["segments"][0]["series"].as_array().unwrap();
    let mut closed = 0u64;
    let mut matched = false;
    for interval in intervals {
        closed += interval["read"]["total_ios"].as_u64().unwrap();
        if closed as f64 == mid_ios {
            matched = true;
        }
    }
    assert!(
        matched && mid_ios > 0.0,
        "mid-run count {mid_ios} is no sum of the first intervals' {intervals:?}"
    );

    assert_eq!(index.status, 200);
    assert!(
        index.body.contains("diskdash_bench_latency_seconds"),
        "{}",
        index.body
    );
    assert_eq!(missing.status, 404);
}

/// Trims are served as their own op (a scratch file's punched holes), with their bytes and
/// latency; a trim job serves no writes.
#[test]
fn a_trim_job_serves_its_trims() {
    let dir = tempfile::tempdir().unwrap();
    let mut run = ServedRun::start(
        dir.path(),
        "--rw randtrim --bs 64k --size 16M --runtime 1s --serve-linger 10s",
    );
    run.wait_for(|l| l.contains("serving the final values"));
    let body = run.scrape();
    drop(run);
    let record = record_in(dir.path());
    let trims = record["trim"]["total_ios"].as_u64().unwrap();
    assert!(trims > 0, "{}", record["trim"]);
    let labels = "jobname=\"bench\",op=\"trim\"";
    {
        assert_eq!(
            sample(&body, &format!("diskdash_bench_ios_total{{{labels}}}")),
            trims as f64
        );
        assert_eq!(
            sample(&body, &format!("diskdash_bench_bytes_total{{{labels}}}")),
            record["trim"]["io_bytes"].as_u64().unwrap() as f64
        );
        assert_eq!(
            sample(
                &body,
                &format!("diskdash_bench_latency_seconds_count{{{labels}}}")
            ),
            trims as f64
        );
    }
    assert!(!body.contains("op=\"write\""), "{body}");
}

#[test]
fn a_sweeps_counters_add_up_over_its_points() {
    let dir = tempfile::tempdir().unwrap();
    let mut run = ServedRun::start_command(
        "sweep",
        dir.path(),
        "--bs 4k,8k --iodepth 4 --size 16M --runtime 1s --ramp 0s --serve-linger 10s",
    );
    run.wait_for(|l| l.starts_with("point 2/2"));
    let during_second = run.scrape();
    run.wait_for(|l| l.contains("serving the final values"));
    let body = run.scrape();
    drop(run);
    let record = read_json(&dir.path().join(RECORD));
    let steps = record["segments"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    let first = steps[0]["read"]["total_ios"].as_u64().unwrap();
    let both: u64 = steps
        .iter()
        .map(|s| s["read"]["total_ios"].as_u64().unwrap())
        .sum();
    // A sweep's job is named `sweep` in every point.
    let reads = "jobname=\"sweep\",op=\"read\"";
    let ios = |body: &str| sample(body, &format!("diskdash_bench_ios_total{{{reads}}}"));
    // The second point starts from the first's total: the counter never goes back.
    {
        assert!(ios(&during_second) >= first as f64, "{during_second}");
        assert_eq!(ios(&body), both as f64);
        let count = format!("diskdash_bench_latency_seconds_count{{{reads}}}");
        assert_eq!(sample(&body, &count), both as f64);
    }
    let info = body
        .lines()
        .find(|l| l.starts_with("diskdash_bench_job_info{"))
        .unwrap();
    assert!(info.contains("step=\"2\",steps=\"2\""), "{info}");
    assert!(info.contains("bs=\"8192\""), "{info}");
}

#[test]
fn bad_serve_flags_are_usage_errors_and_a_taken_port_fails_before_any_io() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let mut all = vec![dir.path().to_str().unwrap(), "--size", "4M", "--no-tui"];
        all.extend(args);
        bench_cmd(dir.path(), &all).output().unwrap()
    };
    let out = run(&["--serve", "localhost:9977"]);
    assert_usage_error(&out);
    assert_eq!(
        stderr(&out),
        "error: --serve \"localhost:9977\" is not an address; use IP:PORT, e.g. 127.0.0.1:9977, \
         [::1]:9977 or 0.0.0.0:9977 (every interface)\n"
    );
    // The others in this process (`support::inproc`).
    let refused = |args: &[&str]| {
        let mut all = vec![
            "bench",
            dir.path().to_str().unwrap(),
            "--size",
            "4M",
            "--no-tui",
        ];
        all.extend(args);
        inproc::usage_error(&all)
    };
    assert_eq!(
        refused(&["--serve-linger", "5s"]),
        "error: --serve-linger needs --serve ADDR: there is nothing to keep serving; add e.g. \
         --serve 127.0.0.1:9977\n"
    );
    assert_eq!(
        refused(&["--serve", "127.0.0.1:0", "--serve-linger", "soon"]),
        "error: --serve-linger \"soon\" is not a duration; use 0s to 1h, e.g. 15s (one scrape \
         interval)\n"
    );

    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let out = run(&["--serve", &addr]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!(
            "error: cannot listen on {addr} (is another diskdash serve or an exporter using the \
             port? pick another with --serve)"
        )),
        "{err}"
    );
    assert!(err.contains("Address already in use"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    // Nothing ran: no scratch file was made.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn fio_and_sweep_take_serve_too() {
    // In this process (`support::inproc`); `bench`'s refusals have their end-to-end case.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    let err = inproc::usage_error(&[
        "fio",
        "--name=a",
        &format!("--filename={}", file.display()),
        "--size=4M",
        "--rw=read",
        "--runtime=1s",
        "--no-tui",
        "--serve=localhost",
    ]);
    assert!(
        err.starts_with("error: --serve \"localhost\" is not an address"),
        "{err}"
    );
    let err = inproc::usage_error(&[
        "sweep",
        dir.path().to_str().unwrap(),
        "--bs",
        "4k,8k",
        "--serve-linger",
        "1s",
        "--no-tui",
    ]);
    assert!(
        err.starts_with("error: --serve-linger needs --serve ADDR"),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// `promtool check metrics` on a text-format scrape: no problem reported.
fn promtool_check(addr: SocketAddr) {
    let body = get(addr, "/metrics", None).body;
    let mut promtool = std::process::Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("promtool (apt-get install prometheus)");
    std::io::Write::write_all(&mut promtool.stdin.take().unwrap(), body.as_bytes()).unwrap();
    let out = promtool.wait_with_output().unwrap();
    assert!(
        out.status.success() && out.stdout.is_empty() && out.stderr.is_empty(),
        "promtool check metrics: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Percent-encodes a PromQL query for a URL.
fn url_encode(q: &str) -> String {
    q.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'.' | b'-' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The one value of an instant query's vector result, when there is one.
fn one_value(response: &str) -> Option<f64> {
    let json: Value = serde_json::from_str(response).ok()?;
    let result = json["data"]["result"].as_array()?;
    if result.len() != 1 {
        return None;
    }
    result[0]["value"][1].as_str()?.parse().ok()
}

/// The bucket of the record's histograms (diskdash's log-linear rule with `bits` sub-bucket
/// bits) holding `ns`: its first and last nanosecond.
fn record_bucket(ns: u64, bits: u32) -> (u64, u64) {
    let exp = 63 - ns.max(1).leading_zeros();
    if exp <= bits {
        return (ns, ns);
    }
    let shift = exp - bits;
    let first = (ns >> shift) << shift;
    (first, first | ((1 << shift) - 1))
}

/// The p99 of reads over the record's first `k` intervals, in seconds: their histograms merged
/// at the coarsest resolution among them, the rank interpolated inside its bucket (as
/// `histogram_quantile` does inside its own).
fn record_intervals_p99_s(intervals: &[Value], k: usize) -> f64 {
    let histograms: Vec<&Value> = intervals[..k]
        .iter()
        .map(|i| &i["read"]["lat_ns"]["histogram"])
        .collect();
    let bits = histograms
        .iter()
        .map(|h| u32::try_from(h["sub_bucket_bits"].as_u64().unwrap()).unwrap())
        .min()
        .unwrap();
    let mut merged = std::collections::BTreeMap::<u64, u64>::new();
    for h in &histograms {
        let bounds = h["le_ns"].as_array().unwrap();
        let counts = h["count"].as_array().unwrap();
        for (le, n) in bounds.iter().zip(counts) {
            let (_, last) = record_bucket(le.as_u64().unwrap(), bits);
            *merged.entry(last).or_default() += n.as_u64().unwrap();
        }
    }
    let total: u64 = merged.values().sum();
    let rank = 0.99 * total as f64;
    let mut below = 0u64;
    for (&last, &n) in &merged {
        if (below + n) as f64 >= rank {
            let (first, _) = record_bucket(last, bits);
            let within = (rank - below as f64) / n as f64;
            return (first as f64 + (last + 1 - first) as f64 * within) / 1e9;
        }
        below += n;
    }
    unreachable!("the rank is within the total")
}

#[test]
#[ignore = "needs prometheus"]
fn a_real_prometheus_gets_the_runs_p99_within_5_percent() {
    let _turn = crate::support::timing_turn();
    let dir = tempfile::tempdir().unwrap();
    let mut run = ServedRun::start(
        dir.path(),
        "--size 32M --runtime 8s --rw randrw --rwmixread 70 --iodepth 4 --serve-linger 60s",
    );
    let prometheus = Prometheus::start(run.addr);
    run.wait_for(|l| l.starts_with("[    2.0s]"));
    promtool_check(run.addr);
    // While it runs: the p99 from the run's start to Prometheus's latest scrape, and the count
    // then, at that scrape's time.
    run.wait_for(|l| l.starts_with("[    6.0s]"));
    let count = url_encode(&format!("diskdash_bench_latency_seconds_count{{{READS}}}"));
    let scraped_at = one_value(&prometheus.query(&format!("timestamp({count})")))
        .expect("Prometheus scraped the running bench");
    let at = |q: &str| one_value(&prometheus.query(&format!("{q}&time={scraped_at}")));
    let p99 = url_encode(&format!(
        "histogram_quantile(0.99, diskdash_bench_latency_seconds_bucket{{{READS}}})"
    ));
    let (running_count, running_p99) = (at(&count).unwrap(), at(&p99).unwrap());
    run.wait_for(|l| l.contains("serving the final values"));
    promtool_check(run.addr);
    let record = record_in(dir.path());
    // The same window in the record: the intervals that make up that count, exactly.
    let intervals = record["segments"][0]["series"].as_array().unwrap();
    let mut closed = 0u64;
    let k = (1..=intervals.len())
        .find(|&k| {
            closed += intervals[k - 1]["read"]["total_ios"].as_u64().unwrap();
            closed as f64 == running_count
        })
        .unwrap_or_else(|| panic!("{running_count} reads is no sum of the first intervals"));
    let own_running_p99 = record_intervals_p99_s(intervals, k);
    eprintln!(
        "read p99 over the first {k} s: Prometheus {running_p99} s, the record's {own_running_p99} s"
    );
    assert!(
        (running_p99 / own_running_p99 - 1.0).abs() <= 0.05,
        "while running: Prometheus p99 {running_p99} s, the record's first {k} intervals \
         {own_running_p99} s"
    );
    let reads = record["read"]["total_ios"].as_u64().unwrap() as f64;
    // Prometheus has the final values once a scrape after the run's end is stored.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if one_value(&prometheus.query(&count)) == Some(reads) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "Prometheus never stored the final count {reads}: {}",
            prometheus.query(&count)
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    // Over the whole run (every bucket as of the run's end), as Prometheus computes it.
    let response = prometheus.query(&p99);
    let prometheus_p99 =
        one_value(&response).unwrap_or_else(|| panic!("no p99 from Prometheus: {response}"));
    let own_p99 = record_p99_s(&record["read"]);
    eprintln!("read p99: Prometheus {prometheus_p99} s, the record's {own_p99} s");
    assert!(
        (prometheus_p99 / own_p99 - 1.0).abs() <= 0.05,
        "Prometheus p99 {prometheus_p99} s, the record's {own_p99} s"
    );
    // The same for writes, and the counters as Prometheus stored them.
    let writes = "jobname=\"bench\",op=\"write\"";
    let p99 = url_encode(&format!(
        "histogram_quantile(0.99, diskdash_bench_latency_seconds_bucket{{{writes}}})"
    ));
    let prometheus_p99 = one_value(&prometheus.query(&p99)).unwrap();
    let own_p99 = record_p99_s(&record["write"]);
    eprintln!("write p99: Prometheus {prometheus_p99} s, the record's {own_p99} s");
    assert!(
        (prometheus_p99 / own_p99 - 1.0).abs() <= 0.05,
        "Prometheus write p99 {prometheus_p99} s, the record's {own_p99} s"
    );
    let bytes = url_encode(&format!("diskdash_bench_bytes_total{{{writes}}}"));
    let written = record["write"]["io_bytes"].as_u64().unwrap() as f64;
    assert_eq!(one_value(&prometheus.query(&bytes)), Some(written));
    // rate() works on the counters: the run's read IOPS over its last seconds is positive.
    let rate = url_encode(&format!(
        "max_over_time(rate(diskdash_bench_ios_total{{{READS}}}[3s])[30s:1s])"
    ));
    let rate = one_value(&prometheus.query(&rate)).unwrap_or(0.0);
    assert!(rate > 0.0, "rate {rate}");
    let info = prometheus.query("diskdash_bench_job_info");
    assert!(info.contains("\"rw\":\"randrw\""), "{info}");
    drop(prometheus);
    drop(run);
}
