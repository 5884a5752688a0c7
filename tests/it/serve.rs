//! `diskdash serve`: the real binary on a free loopback port, scraped over TCP, its counters
//! checked against /proc/diskstats read around the scrape; and a real Prometheus scraping it.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use crate::support::{BIN, assert_usage_error, stderr};

pub(crate) const OPENMETRICS: &str = "application/openmetrics-text;version=1.0.0;q=0.5,\
                           text/plain;version=0.0.4;q=0.3,*/*;q=0.2";

/// A `diskdash serve` on a port the kernel picked; killed on drop if still running.
pub(crate) struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Server {
    fn start() -> Server {
        Server::start_with(&[])
    }

    /// `diskdash serve` with more arguments.
    pub(crate) fn start_with(args: &[&str]) -> Server {
        Server::start_as(&[], args)
    }

    /// `diskdash serve ARGS` run through `wrapper` (`setpriv --reuid=65534 ...`; none: as
    /// is).
    pub(crate) fn start_as(wrapper: &[&str], args: &[&str]) -> Server {
        let mut cmd = match wrapper {
            [] => Command::new(BIN),
            [first, rest @ ..] => {
                let mut cmd = Command::new(first);
                cmd.args(rest).arg(BIN);
                cmd
            }
        };
        let mut child = cmd
            .args(["serve", "--listen", "127.0.0.1:0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("serve printed no address");
        let addr = line
            .trim()
            .strip_prefix("diskdash serve: listening on http://")
            .and_then(|rest| rest.strip_suffix("/metrics"))
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .parse()
            .unwrap();
        Server { child, addr }
    }

    pub(crate) fn get(&self, path: &str, accept: Option<&str>) -> Response {
        get(self.addr, path, accept)
    }

    /// Sends `signal` and returns the exit status and what it wrote on stderr.
    pub(crate) fn stop_with_stderr(mut self, signal: Signal) -> (std::process::ExitStatus, String) {
        let mut pipe = self.child.stderr.take().expect("stderr is piped");
        let status = self.stop(signal);
        let mut text = String::new();
        pipe.read_to_string(&mut text).unwrap();
        (status, text)
    }

    /// Sends `signal` and returns the exit status.
    pub(crate) fn stop(mut self, signal: Signal) -> std::process::ExitStatus {
        kill(
            Pid::from_raw(i32::try_from(self.child.id()).unwrap()),
            signal,
        )
        .unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "serve did not stop on {signal}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) struct Response {
    pub status: u16,
    pub headers: String,
    pub body: String,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.eq_ignore_ascii_case(name).then(|| value.trim())
        })
    }
}

/// One HTTP/1.1 GET on a fresh connection.
pub(crate) fn get(addr: SocketAddr, path: &str, accept: Option<&str>) -> Response {
    try_get(addr, path, accept).unwrap_or_else(|e| panic!("GET {path} from {addr}: {e}"))
}

pub(crate) fn try_get(
    addr: SocketAddr,
    path: &str,
    accept: Option<&str>,
) -> std::io::Result<Response> {
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let accept = accept.map_or(String::new(), |a| format!("Accept: {a}\r\n"));
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\n{accept}Connection: close\r\n\r\n"
    )?;
    let mut raw = String::new();
    stream.read_to_string(&mut raw)?;
    let bad = || std::io::Error::other(format!("not an HTTP response: {raw:?}"));
    let (head, body) = raw.split_once("\r\n\r\n").ok_or_else(bad)?;
    let (status_line, headers) = head.split_once("\r\n").unwrap_or((head, ""));
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(bad)?;
    Ok(Response {
        status,
        headers: headers.to_owned(),
        body: body.to_owned(),
    })
}

/// The fields of one device's /proc/diskstats line, from reads completed on.
fn proc_counters(device: &str) -> Vec<u64> {
    let text = std::fs::read_to_string("/proc/diskstats").unwrap();
    text.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|f| f.get(2) == Some(&device))
        .unwrap_or_else(|| panic!("{device} not in /proc/diskstats"))[3..]
        .iter()
        .map(|v| v.parse().unwrap())
        .collect()
}

/// A whole disk node_exporter would serve: the first in /proc/diskstats with a queue in sysfs
/// that is not a loop, ram or zram device.
fn real_disk() -> String {
    let text = std::fs::read_to_string("/proc/diskstats").unwrap();
    text.lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .find(|name| {
            !["loop", "ram", "zram", "fd"]
                .iter()
                .any(|p| name.starts_with(p))
                && std::path::Path::new("/sys/block")
                    .join(name)
                    .join("queue")
                    .is_dir()
        })
        .expect("a disk in /proc/diskstats")
        .to_owned()
}

/// The value of the sample line `name{device="dev"}`.
fn sample(body: &str, name: &str, device: &str) -> f64 {
    let prefix = format!("{name}{{device=\"{device}\"}} ");
    body.lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no {prefix:?} in\n{body}"))
        .parse()
        .unwrap()
}

#[test]
fn metrics_have_node_exporters_names_and_the_kernels_counters() {
    let server = Server::start();
    let disk = real_disk();
    let before = proc_counters(&disk);
    let response = server.get("/metrics", Some(OPENMETRICS));
    let after = proc_counters(&disk);
    assert_eq!(response.status, 200, "{}", response.body);
    assert_eq!(
        response.header("content-type"),
        Some("application/openmetrics-text; version=1.0.0; charset=utf-8")
    );
    let body = &response.body;
    assert_eq!(body.lines().last(), Some("# EOF"), "{body}");
    for line in [
        "# TYPE node_disk_reads_completed counter",
        "# HELP node_disk_reads_completed The total number of reads completed successfully.",
        "# TYPE node_disk_read_bytes counter",
        "# UNIT node_disk_read_bytes bytes",
        "# UNIT node_disk_read_time_seconds seconds",
        "# UNIT node_disk_io_time_weighted_seconds seconds",
        "# TYPE node_disk_io_now gauge",
        "# TYPE diskdash_disk_queue info",
    ] {
        assert!(body.lines().any(|l| l == line), "no {line:?} in\n{body}");
    }
    // Each counter lies between the kernel's values read just before and just after the scrape
    // (the tolerance is what the disk did meanwhile); sectors are 512 bytes, ms become seconds.
    let check = |name: &str, field: usize, scale: f64| {
        let got = sample(body, name, &disk);
        let (lo, hi) = (before[field] as f64 * scale, after[field] as f64 * scale);
        assert!(
            lo - 1e-9 <= got && got <= hi + 1e-9,
            "{name}{{device={disk:?}}} = {got}, /proc/diskstats says {lo}..={hi}"
        );
    };
    check("node_disk_reads_completed_total", 0, 1.0);
    check("node_disk_reads_merged_total", 1, 1.0);
    check("node_disk_read_bytes_total", 2, 512.0);
    check("node_disk_read_time_seconds_total", 3, 0.001);
    check("node_disk_writes_completed_total", 4, 1.0);
    check("node_disk_writes_merged_total", 5, 1.0);
    check("node_disk_written_bytes_total", 6, 512.0);
    check("node_disk_write_time_seconds_total", 7, 0.001);
    check("node_disk_io_time_seconds_total", 9, 0.001);
    check("node_disk_io_time_weighted_seconds_total", 10, 0.001);
    if before.len() >= 15 {
        check("node_disk_discards_completed_total", 11, 1.0);
        check("node_disk_discarded_sectors_total", 13, 1.0);
    }
    if before.len() >= 17 {
        check("node_disk_flush_requests_total", 15, 1.0);
        check("node_disk_flush_requests_time_seconds_total", 16, 0.001);
    }
    let info = format!("diskdash_disk_queue_info{{device=\"{disk}\",scheduler=");
    assert!(body.lines().any(|l| l.starts_with(&info)), "no {info:?}");
    // Partitions and loop devices are left out, as node_exporter leaves them out.
    assert!(!body.contains("device=\"loop"), "{body}");
}

#[test]
fn the_iostat_window_starts_at_the_second_scrape() {
    let server = Server::start();
    let disk = real_disk();
    let first = server.get("/metrics", Some(OPENMETRICS)).body;
    assert!(
        !first.contains("diskdash_scrape_window_seconds "),
        "{first}"
    );
    assert!(
        !first.contains("# TYPE diskdash_disk_utilization_ratio"),
        "{first}"
    );
    std::thread::sleep(Duration::from_millis(200));
    let second = server.get("/metrics", Some(OPENMETRICS)).body;
    let window = second
        .lines()
        .find_map(|l| l.strip_prefix("diskdash_scrape_window_seconds "))
        .unwrap_or_else(|| panic!("no window in\n{second}"))
        .parse::<f64>()
        .unwrap();
    assert!((0.2..30.0).contains(&window), "window {window}");
    assert!(second.contains("# UNIT diskdash_disk_read_await_seconds seconds"));
    assert!(second.contains("# UNIT diskdash_disk_read_request_size_bytes bytes"));
    let util = sample(&second, "diskdash_disk_utilization_ratio", &disk);
    assert!((0.0..=1.0).contains(&util), "util {util}");
    let queue = sample(&second, "diskdash_disk_queue_length", &disk);
    assert!(queue >= 0.0, "aqu-sz {queue}");
}

#[test]
fn plain_scrapers_get_text_format_0_0_4() {
    let server = Server::start();
    let response = server.get("/metrics", None);
    assert_eq!(response.status, 200);
    assert_eq!(
        response.header("content-type"),
        Some("text/plain; version=0.0.4; charset=utf-8")
    );
    let body = &response.body;
    assert!(body.contains("# TYPE node_disk_reads_completed_total counter\n"));
    assert!(body.contains("# TYPE diskdash_disk_queue_info gauge\n"));
    assert!(!body.contains("# EOF"), "{body}");
    assert!(!body.contains("# UNIT"), "{body}");
}

#[test]
fn the_index_says_what_is_served_and_other_paths_are_404() {
    let server = Server::start();
    let index = server.get("/", None);
    assert_eq!(index.status, 200);
    assert!(index.body.contains("/metrics"), "{}", index.body);
    assert!(index.body.contains("node_disk_"), "{}", index.body);
    for path in ["/metric", "/metrics/", "/favicon.ico", "/api/v1/query"] {
        let response = server.get(path, None);
        assert_eq!(response.status, 404, "{path}");
    }
}

#[test]
fn sigint_and_sigterm_stop_it_cleanly() {
    for signal in [Signal::SIGINT, Signal::SIGTERM] {
        let server = Server::start();
        let addr = server.addr;
        assert_eq!(server.get("/metrics", None).status, 200);
        // An idle keep-alive connection must not hold the stop up.
        let _idle = TcpStream::connect(addr).unwrap();
        let status = server.stop(signal);
        assert_eq!(status.code(), Some(0), "{signal}");
        // The port is free again.
        TcpListener::bind(addr).unwrap();
    }
}

#[test]
fn a_bad_listen_address_is_a_usage_error_and_a_taken_port_a_runtime_error() {
    let out = Command::new(BIN)
        .args(["serve", "--listen", "localhost"])
        .output()
        .unwrap();
    assert_usage_error(&out);
    assert_eq!(
        stderr(&out),
        "error: --listen \"localhost\" is not an address; use IP:PORT, e.g. 127.0.0.1:9977, \
         [::1]:9977 or 0.0.0.0:9977 (every interface)\n"
    );

    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let out = Command::new(BIN)
        .args(["serve", "--listen", &addr])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!("error: cannot listen on {addr}")),
        "{err}"
    );
    assert!(err.contains("Address already in use"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// A port free right now (the kernel's pick, released).
pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
#[ignore = "needs prometheus"]
fn a_real_prometheus_scrapes_the_series() {
    let _turn = crate::support::timing_turn();
    let server = Server::start();
    let prometheus = Prometheus::start(server.addr);
    let disk = real_disk();
    // Refused until Prometheus listens.
    let query = |q: &str| prometheus.query(q);
    let deadline = Instant::now() + Duration::from_secs(90);
    // The counters come with the first scrape; the window gauges with the second.
    for q in [
        "node_disk_reads_completed_total",
        "diskdash_disk_utilization_ratio",
        "diskdash_disk_queue_info",
    ] {
        let last = loop {
            let last = query(q);
            if last.contains(&format!("\"device\":\"{disk}\"")) {
                break last;
            }
            assert!(Instant::now() < deadline, "{q} never arrived: {last}");
            std::thread::sleep(Duration::from_millis(500));
        };
        assert!(last.contains(&format!("\"__name__\":\"{q}\"")), "{last}");
        assert!(last.contains("\"job\":\"diskdash\""), "{last}");
    }
}

/// "Node Exporter Full" (Grafana dashboard 1860): the disk panels' queries and the uname
/// dropdowns, as the dashboard sends them with `$job`, `$node` and `$diskdevices` filled in.
/// `$__rate_interval` is 4 scrape intervals here.
const NODE_EXPORTER_FULL_DISK_QUERIES: &[&str] = &[
    // Disk IOps, Disk Throughput, I/O Utilization (overview row, filtered by $diskdevices).
    "irate(node_disk_reads_completed_total{instance=\"$node\",job=\"$job\",device=~\"$diskdevices\"}[4s])",
    "irate(node_disk_writes_completed_total{instance=\"$node\",job=\"$job\",device=~\"$diskdevices\"}[4s])",
    "irate(node_disk_read_bytes_total{instance=\"$node\",job=\"$job\",device=~\"$diskdevices\"}[4s])",
    "irate(node_disk_written_bytes_total{instance=\"$node\",job=\"$job\",device=~\"$diskdevices\"}[4s])",
    "irate(node_disk_io_time_seconds_total{instance=\"$node\",job=\"$job\",device=~\"$diskdevices\"} [4s])",
    // Storage Disk row.
    "irate(node_disk_reads_completed_total{instance=\"$node\",job=\"$job\"}[4s])",
    "irate(node_disk_writes_completed_total{instance=\"$node\",job=\"$job\"}[4s])",
    "irate(node_disk_read_bytes_total{instance=\"$node\",job=\"$job\"}[4s])",
    "irate(node_disk_written_bytes_total{instance=\"$node\",job=\"$job\"}[4s])",
    "irate(node_disk_read_time_seconds_total{instance=\"$node\",job=\"$job\"}[4s]) / irate(node_disk_reads_completed_total{instance=\"$node\",job=\"$job\"}[4s])",
    "irate(node_disk_write_time_seconds_total{instance=\"$node\",job=\"$job\"}[4s]) / irate(node_disk_writes_completed_total{instance=\"$node\",job=\"$job\"}[4s])",
    "irate(node_disk_io_time_weighted_seconds_total{instance=\"$node\",job=\"$job\"}[4s])",
    "irate(node_disk_reads_merged_total{instance=\"$node\",job=\"$job\"}[4s])",
    "irate(node_disk_writes_merged_total{instance=\"$node\",job=\"$job\"}[4s])",
    "irate(node_disk_io_time_seconds_total{instance=\"$node\",job=\"$job\"}[4s])",
    "irate(node_disk_discard_time_seconds_total{instance=\"$node\",job=\"$job\"}[4s])",
    "irate(node_disk_discards_completed_total{instance=\"$node\",job=\"$job\"}[4s])",
    "irate(node_disk_discards_merged_total{instance=\"$node\",job=\"$job\"}[4s])",
    "node_disk_io_now{instance=\"$node\",job=\"$job\"}",
];

/// Percent-encoding of everything but RFC 3986's unreserved characters.
fn url_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The `data` of a successful Prometheus API answer.
fn prometheus_data(body: &str, what: &str) -> serde_json::Value {
    let v: serde_json::Value =
        serde_json::from_str(body).unwrap_or_else(|e| panic!("{what}: {e}: {body}"));
    assert_eq!(v["status"], "success", "{what}: {body}");
    v["data"].clone()
}

#[test]
#[ignore = "needs prometheus"]
fn node_exporter_fulls_disk_and_uname_queries_evaluate_through_a_real_prometheus() {
    let _turn = crate::support::timing_turn();
    let server = Server::start();
    let prometheus = Prometheus::start(server.addr);
    let deadline = Instant::now() + Duration::from_secs(90);
    while !prometheus
        .query("node_uname_info")
        .contains("\"job\":\"diskdash\"")
    {
        assert!(Instant::now() < deadline, "node_uname_info never arrived");
        std::thread::sleep(Duration::from_millis(300));
    }
    // The job and instance dropdowns: label_values(node_uname_info, job) and
    // label_values(node_uname_info{job="$job"}, instance), as Grafana asks the label API.
    let instance = server.addr.to_string();
    for (label, selector, want) in [
        ("job", "node_uname_info", "diskdash"),
        (
            "instance",
            "node_uname_info{job=\"diskdash\"}",
            instance.as_str(),
        ),
        ("nodename", "node_uname_info{job=\"diskdash\"}", ""),
    ] {
        let path = format!(
            "/api/v1/label/{label}/values?match[]={}",
            url_encode(selector)
        );
        let body = get(prometheus.web, &path, None).body;
        let values = prometheus_data(&body, &path);
        let values: Vec<&str> = values
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert!(
            !values.is_empty() && (want.is_empty() || values.contains(&want)),
            "label_values({selector}, {label}) = {values:?}, wanted {want:?}"
        );
    }

    // Reads and writes on a real disk, O_DIRECT, while Prometheus scrapes every second.
    let dir = tempfile::tempdir_in(concat!(env!("CARGO_MANIFEST_DIR"), "/target")).unwrap();
    let bench = Command::new(BIN)
        .args(["bench", "--no-tui", "--rw", "randrw", "--size", "16M"])
        .args(["--iodepth", "4", "--runtime", "6s"])
        .arg(dir.path())
        .output()
        .unwrap();
    let end = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let out = String::from_utf8_lossy(&bench.stdout);
    assert!(bench.status.success(), "{out}{}", stderr(&bench));
    let disk = out
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("device  "))
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("bench named no device for {}: {out}", dir.path().display()))
        .to_owned();
    // Scrapes at least 1.5 s before the process ended were inside the measured 6 s.
    let at = end - 1.5;

    for template in NODE_EXPORTER_FULL_DISK_QUERIES {
        let q = template
            .replace("$node", &instance)
            .replace("$job", "diskdash")
            .replace("$diskdevices", "[a-z]+|nvme[0-9]+n[0-9]+|mmcblk[0-9]+");
        let path = format!("/api/v1/query?query={}&time={at:.3}", url_encode(&q));
        let body = get(prometheus.web, &path, None).body;
        let data = prometheus_data(&body, &q);
        let sample = data["result"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["metric"]["device"] == disk.as_str())
            .unwrap_or_else(|| panic!("{q}: no series for {disk}: {body}"));
        let value: f64 = sample["value"][1].as_str().unwrap().parse().unwrap();
        assert!(
            value.is_finite() && value >= 0.0,
            "{q} = {value} for {disk}"
        );
        let metric = q
            .split_once('(')
            .map_or(q.as_str(), |(_, rest)| rest)
            .split('{')
            .next()
            .unwrap();
        match metric {
            // What the benchmark's reads and writes must have moved.
            "node_disk_reads_completed_total"
            | "node_disk_writes_completed_total"
            | "node_disk_read_bytes_total"
            | "node_disk_written_bytes_total"
            | "node_disk_io_time_weighted_seconds_total" => {
                assert!(value > 0.0, "{q} = {value} while {disk} did I/O")
            }
            // A share of a second, and a latency in seconds.
            "node_disk_io_time_seconds_total" => {
                assert!(value > 0.0 && value <= 1.05, "{q} = {value}")
            }
            "node_disk_read_time_seconds_total" | "node_disk_write_time_seconds_total" => {
                assert!(value > 0.0 && value < 1.0, "{q} = {value} s per I/O")
            }
            _ => {}
        }
    }
}

/// A real Prometheus scraping `target` every second on loopback, with its storage in a temporary
/// directory; killed on drop.
pub(crate) struct Prometheus {
    child: Child,
    pub web: SocketAddr,
    _dir: tempfile::TempDir,
}

impl Prometheus {
    pub fn start(target: SocketAddr) -> Prometheus {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("prometheus.yml");
        std::fs::write(
            &config,
            format!(
                "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n\
                 scrape_configs:\n  - job_name: diskdash\n    static_configs:\n\
                 \x20     - targets: ['{target}']\n"
            ),
        )
        .unwrap();
        let web = SocketAddr::from(([127, 0, 0, 1], free_port()));
        let child = Command::new("prometheus")
            .arg(format!("--config.file={}", config.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.path().join("data").display()
            ))
            .arg(format!("--web.listen-address={web}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("prometheus (apt-get install prometheus)");
        Prometheus {
            child,
            web,
            _dir: dir,
        }
    }

    /// The body of an instant query (`q` URL-encoded by the caller where needed); empty while
    /// Prometheus does not answer yet.
    pub fn query(&self, q: &str) -> String {
        try_get(self.web, &format!("/api/v1/query?query={q}"), None)
            .map(|r| r.body)
            .unwrap_or_default()
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// node_exporter's diskstats fixture (tests/fixtures/node_exporter/README.md).
const NODE_FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/node_exporter");

/// `diskdash serve` reading the fixture host instead of this one.
fn fixture_server(extra: &[&str]) -> Server {
    let path = |rel: &str| format!("{NODE_FIXTURE}/{rel}");
    let (proc, sys, udev) = (path("proc"), path("sys"), path("udev/data"));
    let mut args = vec![
        "--path.procfs",
        proc.as_str(),
        "--path.sysfs",
        sys.as_str(),
        "--path.udev.data",
        udev.as_str(),
    ];
    args.extend_from_slice(extra);
    Server::start_with(&args)
}

/// A text-format exposition's samples: (name, labels sorted by name) -> value.
fn series(text: &str) -> BTreeMap<(String, Vec<(String, String)>), f64> {
    let mut out = BTreeMap::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let (head, value) = line.rsplit_once(' ').unwrap();
        let (name, labels) = match head.split_once('{') {
            Some((name, rest)) => (name, rest.strip_suffix('}').unwrap()),
            None => (head, ""),
        };
        let mut pairs = Vec::new();
        let mut rest = labels;
        while !rest.is_empty() {
            let (key, after) = rest.split_once("=\"").unwrap();
            // Label values here contain no escaped quotes.
            let end = after.find('"').unwrap();
            pairs.push((key.to_owned(), after[..end].to_owned()));
            rest = after[end + 1..].trim_start_matches(',');
        }
        pairs.sort();
        let value: f64 = value.parse().unwrap_or_else(|_| panic!("{line}"));
        assert!(
            out.insert((name.to_owned(), pairs), value).is_none(),
            "duplicate series {line}"
        );
    }
    out
}

fn node_disk_series(text: &str) -> BTreeMap<(String, Vec<(String, String)>), f64> {
    series(text)
        .into_iter()
        .filter(|((name, _), _)| name.starts_with("node_disk_"))
        .collect()
}

#[test]
fn on_node_exporters_fixture_every_node_disk_series_equals_node_exporters() {
    let server = fixture_server(&[]);
    let response = server.get("/metrics", None);
    assert_eq!(response.status, 200);
    let expected_text =
        std::fs::read_to_string(format!("{NODE_FIXTURE}/expected-node_disk.txt")).unwrap();
    let expected = node_disk_series(&expected_text);
    let got = node_disk_series(&response.body);
    let missing: Vec<_> = expected
        .iter()
        .filter(|(key, value)| got.get(*key) != Some(*value))
        .map(|(key, value)| format!("{key:?} = {value} (ours: {:?})", got.get(key)))
        .collect();
    let extra: Vec<_> = got.keys().filter(|k| !expected.contains_key(*k)).collect();
    assert!(
        missing.is_empty(),
        "differ from node_exporter:\n{}",
        missing.join("\n")
    );
    assert!(extra.is_empty(), "not in node_exporter's output: {extra:?}");
    assert_eq!(got.len(), 215);
    // Same help texts as node_exporter, family for family.
    for help in expected_text.lines().filter(|l| l.starts_with("# HELP ")) {
        assert!(response.body.lines().any(|l| l == help), "missing {help:?}");
    }
    // Prometheus' own linter, where installed (CI installs it).
    if let Ok(mut promtool) = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        promtool
            .stdin
            .take()
            .unwrap()
            .write_all(response.body.as_bytes())
            .unwrap();
        let out = promtool.wait_with_output().unwrap();
        let report = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success() && report.trim().is_empty(), "{report}");
    }
}

#[test]
fn uname_info_is_this_hosts_and_queue_settings_come_as_info_and_gauges() {
    let server = fixture_server(&[]);
    let body = server.get("/metrics", None).body;
    let all = series(&body);
    let uname = |flag: &str| {
        let out = Command::new("uname").arg(flag).output().unwrap();
        String::from_utf8(out.stdout).unwrap().trim_end().to_owned()
    };
    let domain = std::fs::read_to_string("/proc/sys/kernel/domainname").unwrap();
    let want: Vec<(String, String)> = [
        ("domainname", domain.trim_end().to_owned()),
        ("machine", uname("-m")),
        ("nodename", uname("-n")),
        ("release", uname("-r")),
        ("sysname", uname("-s")),
        ("version", uname("-v")),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    assert_eq!(
        all.get(&("node_uname_info".to_owned(), want.clone())),
        Some(&1.0),
        "{body}"
    );
    let gauge = |name: &str, device: &str| {
        all.get(&(
            name.to_owned(),
            vec![("device".to_owned(), device.to_owned())],
        ))
        .copied()
    };
    assert_eq!(gauge("diskdash_disk_queue_rotational", "sda"), Some(1.0));
    assert_eq!(
        gauge("diskdash_disk_queue_rotational", "nvme0n1"),
        Some(0.0)
    );
    assert_eq!(
        gauge("diskdash_disk_queue_nr_requests", "nvme0n1"),
        Some(1023.0)
    );
    assert_eq!(
        gauge("diskdash_disk_queue_read_ahead_bytes", "sda"),
        Some(131_072.0)
    );
    assert_eq!(
        gauge("diskdash_disk_queue_max_request_size_bytes", "sda"),
        Some(1_310_720.0)
    );
    assert_eq!(
        gauge("diskdash_disk_queue_logical_block_size_bytes", "sda"),
        Some(512.0)
    );
    assert_eq!(
        gauge("diskdash_disk_queue_physical_block_size_bytes", "sda"),
        Some(4096.0)
    );
    assert_eq!(gauge("diskdash_disk_queue_write_back", "sda"), Some(1.0));
    assert_eq!(gauge("diskdash_disk_queue_write_back", "sdb"), Some(0.0));
    assert_eq!(gauge("diskdash_disk_queue_io_poll", "nvme0n1"), Some(1.0));
    // sdb's queue offers no nr_requests: no sample rather than a made-up one.
    assert_eq!(gauge("diskdash_disk_queue_nr_requests", "sdb"), None);
    let info = body
        .lines()
        .find(|l| l.starts_with("diskdash_disk_queue_info{device=\"sda\""))
        .unwrap_or_else(|| panic!("no sda queue info in\n{body}"));
    for label in [
        "scheduler=\"bfq\"",
        "rotational=\"1\"",
        "write_cache=\"write back\"",
        "io_poll=\"0\"",
        "max_sectors_kb=\"1280\"",
    ] {
        assert!(info.contains(label), "{label} not in {info}");
    }
}

#[test]
fn no_node_metrics_leaves_only_diskdashs_families() {
    let server = fixture_server(&["--no-node-metrics"]);
    let body = server.get("/metrics", None).body;
    assert!(!body.contains("node_"), "{body}");
    assert!(
        body.contains("diskdash_disk_queue_info{device=\"sda\""),
        "{body}"
    );
}

#[test]
fn device_include_and_exclude_pick_the_devices_as_node_exporter_does() {
    let devices = |args: &[&str]| -> Vec<String> {
        let server = fixture_server(args);
        let body = server.get("/metrics", None).body;
        let mut names: Vec<String> = series(&body)
            .into_keys()
            .filter(|(name, _)| name == "node_disk_reads_completed_total")
            .map(|(_, labels)| labels[0].1.clone())
            .collect();
        names.sort();
        names
    };
    assert_eq!(
        devices(&[
            "--collector.diskstats.device-include",
            "^(sd[a-z]|loop)\\d*$"
        ]),
        [
            "loop0", "loop1", "loop2", "loop3", "loop4", "loop5", "loop6", "loop7", "sda", "sda1",
            "sda2", "sda3", "sda4", "sdb", "sdb1", "sdb2", "sdc", "sdc1"
        ]
    );
    // Our short spelling; an exclude replaces the default one.
    let excluded = devices(&["--device-exclude", "^(ram|loop|dm-|mmcblk|sd|vd|fd|sr)"]);
    assert_eq!(excluded, ["nvme0n1", "nvme0n1p1", "nvme0n1p2"]);
}

#[test]
fn bad_device_filters_are_usage_errors() {
    for (args, want) in [
        (
            &[
                "--collector.diskstats.device-include",
                "sd",
                "--collector.diskstats.device-exclude",
                "loop",
            ][..],
            "error: --collector.diskstats.device-include and \
             --collector.diskstats.device-exclude are mutually exclusive",
        ),
        (
            &["--device-exclude", "(sd"][..],
            "error: --collector.diskstats.device-exclude \"(sd\" is not a regular expression \
             (unclosed group)",
        ),
    ] {
        let all = [&["serve", "--listen", "127.0.0.1:0"], args].concat();
        let err = crate::support::inproc::usage_error(&all);
        assert!(err.starts_with(want), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
}
