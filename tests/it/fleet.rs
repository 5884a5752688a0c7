//! `diskdash fleet` against a real sshd on loopback: three "hosts" (127.0.0.2/3/4 named in a
//! test ssh_config), key and known_hosts made here, the real binary on both sides.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::sshd::Sshd;
use crate::support::{BIN, assert_usage_error, read_json, stderr};

const HOSTS: [(&str, &str); 3] = [
    ("h1", "127.0.0.2"),
    ("h2", "127.0.0.3"),
    ("h3", "127.0.0.4"),
];

fn fleet(sshd: &Sshd, hosts: &str, fleet_args: &[&str], command: &[&str]) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.arg("fleet")
        .arg(hosts)
        .arg("-F")
        .arg(sshd.ssh_config())
        .args(["--remote-binary", BIN])
        .args(fleet_args)
        .arg("--")
        .args(command)
        .stdin(Stdio::null());
    cmd
}

/// A directory whose name holds a space and a `;`, as a remote shell would split it.
fn awkward_dir(tmp: &Path) -> std::path::PathBuf {
    let dir = tmp.join("a dir; touch pwned");
    std::fs::create_dir(&dir).unwrap();
    dir
}

/// p`pct` of the union of `histograms` (each {le_ns, count}), as bucket upper bounds.
fn union_percentile(histograms: &[&Value], pct: f64) -> u64 {
    let mut buckets = std::collections::BTreeMap::<u64, u64>::new();
    for h in histograms {
        assert_eq!(h["sub_bucket_bits"], 7, "{h}");
        for (le, n) in h["le_ns"]
            .as_array()
            .unwrap()
            .iter()
            .zip(h["count"].as_array().unwrap())
        {
            *buckets.entry(le.as_u64().unwrap()).or_default() += n.as_u64().unwrap();
        }
    }
    let total: u64 = buckets.values().sum();
    let rank = ((pct / 100.0 * total as f64).ceil() as u64).clamp(1, total);
    let mut seen = 0;
    for (le, n) in buckets {
        seen += n;
        if seen >= rank {
            return le;
        }
    }
    unreachable!()
}

/// The fleet record in `path`, checked against `assets/schema/fleet-record.schema.json`.
fn fleet_record(path: &Path) -> Value {
    let record = read_json(path);
    let schema = read_json(&schema_path("fleet-record.schema.json"));
    let validator = crate::support::schema::validator_for(&schema).expect("the schema compiles");
    let errors = validator.errors(&record);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    record
}

fn schema_path(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/schema")
        .join(name)
}

/// The fleet schema holds the run schema (the hosts' records) and copies of its $defs: they
/// must not drift apart.
#[test]
fn the_fleet_schema_holds_the_run_schema_unchanged() {
    let run = read_json(&schema_path("run-record.schema.json"));
    let fleet = read_json(&schema_path("fleet-record.schema.json"));
    for (name, def) in run["$defs"].as_object().unwrap() {
        assert_eq!(
            &fleet["$defs"][name], def,
            "$defs/{name} differs: copy run-record.schema.json's $defs into the fleet schema's"
        );
    }
    for key in ["type", "required", "additionalProperties", "properties"] {
        assert_eq!(
            fleet["$defs"]["run_record"][key], run[key],
            "{key} differs: copy run-record.schema.json's top level into $defs/run_record"
        );
    }
}

fn no_scratch_left(dir: &Path) {
    let left: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(left.is_empty(), "left in {}: {left:?}", dir.display());
}

#[test]
#[ignore = "needs sshd"]
fn three_hosts_start_together_and_the_fleet_p99_is_the_union_p99() {
    let sshd = Sshd::start(&HOSTS);
    let tmp = tempfile::tempdir().unwrap();
    let dir = awkward_dir(tmp.path());
    let record = tmp.path().join("fleet.json");
    let out = fleet(
        &sshd,
        "h[1-3]",
        &["--json", record.to_str().unwrap(), "--ready-timeout", "60s"],
        &[
            "bench",
            dir.to_str().unwrap(),
            "--size",
            "16M",
            "--runtime",
            "1500ms",
            "--interval",
            "500ms",
            "-q",
            "4",
        ],
    )
    .output()
    .unwrap();
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(!tmp.path().join("pwned").exists() && !Path::new("pwned").exists());
    // Every host ready before the one start, then tables of three hosts and the fleet.
    let start = err.find("start: 3 of 3 hosts at once").expect(&err);
    for host in ["h1", "h2", "h3"] {
        assert!(err[..start].contains(&format!("  {host}: ready")), "{err}");
    }
    assert!(err[start..].contains("interval 1"), "{err}");
    assert!(
        err.lines()
            .any(|l| l.starts_with("  fleet") && l.contains("3 of 3")),
        "{err}"
    );
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(summary.contains("fleet completed"), "{summary}");

    let r = fleet_record(&record);
    assert_eq!(r["format"], "diskdash-fleet");
    assert_eq!(r["status"], "completed");
    let hosts = r["hosts"].as_array().unwrap();
    assert_eq!(hosts.len(), 3);
    let mut histograms = Vec::new();
    let mut ios = 0;
    for (h, name) in hosts.iter().zip(["h1", "h2", "h3"]) {
        assert_eq!(h["host"], name);
        assert_eq!(h["status"], "completed", "{h}");
        assert_eq!(h["partial"], false);
        let own = &h["record"];
        assert_eq!(own["format"], "diskdash-bench");
        // The path with a space and `;` arrived as one argument.
        let target = own["target"]["path"].as_str().unwrap();
        assert!(target.starts_with(dir.to_str().unwrap()), "{target}");
        assert_eq!(own["read"], h["read"]);
        histograms.push(&h["read"]["lat_ns"]["histogram"]);
        ios += h["read"]["total_ios"].as_u64().unwrap();
    }
    let fleet = &r["aggregate"];
    assert_eq!(fleet["hosts"], 3);
    assert_eq!(fleet["read"]["total_ios"].as_u64().unwrap(), ios);
    for (key, pct) in [
        ("99.000000", 99.0),
        ("50.000000", 50.0),
        ("99.900000", 99.9),
    ] {
        // Bucket bounds, never past the slowest I/O.
        let max = fleet["read"]["lat_ns"]["max"].as_u64().unwrap();
        assert_eq!(
            fleet["read"]["lat_ns"]["percentile"][key].as_u64().unwrap(),
            union_percentile(&histograms, pct).min(max),
            "p{pct}"
        );
    }
    let iops: f64 = hosts
        .iter()
        .map(|h| h["read"]["iops"].as_f64().unwrap())
        .sum();
    assert!((fleet["read"]["iops"].as_f64().unwrap() - iops).abs() < 1e-6);
    no_scratch_left(&dir);

    // compare reads it host by host (each host a job of the run, matched by name), then the
    // fleet's group totals.
    let out = Command::new(BIN)
        .args(["compare", "--json"])
        .args([&record, &record])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let cmp: Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = cmp.to_string();
    assert!(text.contains("h1,h2,h3: "), "{text}");
    let names: Vec<&str> = cmp["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["h1", "h2", "h3"], "{text}");
    for h in hosts {
        let p99 = h["read"]["lat_ns"]["percentile"]["99.000000"]
            .as_u64()
            .unwrap();
        assert!(text.contains(&p99.to_string()), "{text}");
    }
    assert_eq!(
        cmp["groups"][0]["jobs"].as_array().unwrap().len(),
        3,
        "{text}"
    );
}

/// Lines of the child's stderr as they come, and everything at the end.
fn watch_stderr(
    child: &mut std::process::Child,
) -> (mpsc::Receiver<String>, std::thread::JoinHandle<String>) {
    let (tx, rx) = mpsc::channel();
    let pipe = child.stderr.take().unwrap();
    let all = std::thread::spawn(move || {
        let mut all = String::new();
        for line in BufReader::new(pipe).lines().map_while(Result::ok) {
            all.push_str(&line);
            all.push('\n');
            let _ = tx.send(line);
        }
        all
    });
    (rx, all)
}

fn wait_for(lines: &mpsc::Receiver<String>, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if let Ok(line) = lines.recv_timeout(Duration::from_millis(200))
            && line.contains(what)
        {
            return;
        }
    }
    panic!("no {what:?} on stderr within 60 s");
}

fn wait_output(child: std::process::Child, limit: Duration) -> Output {
    let pid = child.id();
    let killer = std::thread::spawn(move || {
        std::thread::sleep(limit);
        let _ = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
    });
    let out = child.wait_with_output().unwrap();
    drop(killer);
    out
}

#[test]
#[ignore = "needs sshd"]
fn a_host_that_drops_mid_run_is_failed_with_its_partial_results_and_the_others_go_on() {
    let sshd = Sshd::start(&HOSTS);
    let tmp = tempfile::tempdir().unwrap();
    let dir = awkward_dir(tmp.path());
    let record = tmp.path().join("fleet.json");
    let mut child = fleet(
        &sshd,
        "h1,h2,h3",
        &["--json", record.to_str().unwrap()],
        &[
            "bench",
            dir.to_str().unwrap(),
            "--size",
            "16M",
            "--runtime",
            "4s",
            "--interval",
            "500ms",
            "-q",
            "4",
        ],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let (lines, all) = watch_stderr(&mut child);
    wait_for(&lines, "interval 2 ");
    assert!(
        sshd.drop_connections_to("127.0.0.4") > 0,
        "no session of h3 found"
    );
    let out = wait_output(child, Duration::from_secs(60));
    let err = all.join().unwrap();
    assert_eq!(out.status.code(), Some(1), "{err}");
    let last = err.lines().last().unwrap();
    assert!(
        last.starts_with("error: 1 of 3 hosts failed (h3: dropped mid-run: "),
        "{last}"
    );
    let r = fleet_record(&record);
    assert_eq!(r["status"], "failed");
    let hosts = r["hosts"].as_array().unwrap();
    for h in &hosts[..2] {
        assert_eq!(h["status"], "completed", "{h}");
        // They went on: the whole runtime measured.
        assert!(h["elapsed_ns"].as_u64().unwrap() >= 3_900_000_000, "{h}");
    }
    let h3 = &hosts[2];
    assert_eq!(h3["status"], "failed");
    assert_eq!(h3["partial"], true);
    assert!(h3["record"].is_null());
    assert!(h3["intervals"].as_u64().unwrap() >= 2, "{h3}");
    let h3_ios = h3["read"]["total_ios"].as_u64().unwrap();
    assert!(h3_ios > 0);
    // Partial results count in the fleet, merged like the others.
    let ios: u64 = hosts
        .iter()
        .map(|h| h["read"]["total_ios"].as_u64().unwrap())
        .sum();
    assert_eq!(r["aggregate"]["read"]["total_ios"].as_u64().unwrap(), ios);
    assert_eq!(r["aggregate"]["hosts"], 3);
    let n: u64 = r["aggregate"]["read"]["lat_ns"]["histogram"]["count"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap())
        .sum();
    assert_eq!(n, ios);
    // The dropped host's run saw its input end and cleaned up after itself.
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::fs::read_dir(&dir).unwrap().next().is_some() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    no_scratch_left(&dir);
}

#[test]
#[ignore = "needs sshd"]
fn sigint_stops_every_host_cleanly_with_their_records() {
    let sshd = Sshd::start(&HOSTS);
    let tmp = tempfile::tempdir().unwrap();
    let dir = awkward_dir(tmp.path());
    let record = tmp.path().join("fleet.json");
    let mut child = fleet(
        &sshd,
        "h1,h2,h3",
        &["--json", record.to_str().unwrap()],
        &[
            "bench",
            dir.to_str().unwrap(),
            "--size",
            "16M",
            "--runtime",
            "60s",
            "--interval",
            "500ms",
            "-q",
            "4",
        ],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let (lines, all) = watch_stderr(&mut child);
    wait_for(&lines, "interval 2 ");
    let asked = Instant::now();
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let out = wait_output(child, Duration::from_secs(60));
    let err = all.join().unwrap();
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(
        asked.elapsed() < Duration::from_secs(20),
        "{:?}",
        asked.elapsed()
    );
    let r = fleet_record(&record);
    assert_eq!(r["status"], "interrupted");
    for h in r["hosts"].as_array().unwrap() {
        assert_eq!(h["status"], "interrupted", "{h}");
        assert_eq!(h["record"]["status"], "interrupted");
        assert!(h["read"]["total_ios"].as_u64().unwrap() > 0);
    }
    no_scratch_left(&dir);
}

#[test]
#[ignore = "needs sshd"]
fn all_or_nothing_fails_before_measuring_when_a_host_is_unreachable() {
    let sshd = Sshd::start(&HOSTS[..2]);
    let tmp = tempfile::tempdir().unwrap();
    let record = tmp.path().join("fleet.json");
    // 127.0.0.9 has no sshd: ssh fails to connect.
    let mut config = std::fs::read_to_string(sshd.ssh_config()).unwrap();
    config.insert_str(0, "Host gone\n  HostName 127.0.0.9\n");
    let config_path = tmp.path().join("ssh_config");
    std::fs::write(&config_path, config).unwrap();
    let out = Command::new(BIN)
        .args(["fleet", "h1,h2,gone", "-F"])
        .arg(&config_path)
        .args(["--remote-binary", BIN, "--all-or-nothing", "--json"])
        .arg(&record)
        .args(["--", "bench"])
        .arg(tmp.path())
        .args(["--size", "16M", "--runtime", "30s"])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(!err.contains("start:"), "{err}");
    let r = fleet_record(&record);
    assert_eq!(r["status"], "failed");
    let gone = &r["hosts"][2];
    assert_eq!(gone["status"], "failed");
    assert!(
        gone["error"].as_str().unwrap().contains("127.0.0.9"),
        "{gone}"
    );
    for h in &r["hosts"].as_array().unwrap()[..2] {
        assert_eq!(h["read"]["total_ios"], 0, "{h}");
    }
}

#[test]
#[ignore = "needs sshd"]
fn copy_binary_copies_to_a_host_without_diskdash_and_removes_it() {
    let sshd = Sshd::start(&HOSTS[..1]);
    let tmp = tempfile::tempdir().unwrap();
    let before: Vec<_> = copies();
    let out = Command::new(BIN)
        .args(["fleet", "h1", "-F"])
        .arg(sshd.ssh_config())
        .args(["--remote-binary", "/nonexistent/diskdash", "--copy-binary"])
        .args(["--", "bench"])
        .arg(tmp.path())
        .args(["--size", "8M", "--runtime", "500ms", "--interval", "250ms"])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("h1: no /nonexistent/diskdash: copied this diskdash"),
        "{err}"
    );
    assert_eq!(copies(), before, "the copy was not removed");
}

fn copies() -> Vec<std::ffi::OsString> {
    let tmp = std::env::var_os("TMPDIR").unwrap_or_else(|| "/tmp".into());
    let mut v: Vec<_> = std::fs::read_dir(tmp)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| n.to_string_lossy().starts_with("diskdash-fleet."))
        .collect();
    v.sort();
    v
}

#[test]
fn bad_command_lines_are_one_line_usage_errors() {
    let cases: [(&[&str], &str); 5] = [
        (
            &["fleet", "a,b", "bench", "/x"],
            "error: \"bench\": the command goes after `--`",
        ),
        (
            &["fleet", "a,b"],
            "error: no command after `--`; give what each host runs",
        ),
        (
            &["fleet", "node[01-x]", "--", "bench"],
            "error: HOSTS \"node[01-x]\": [01-x] \"x\" is not a number",
        ),
        (
            &["fleet", "a", "--", "iostat"],
            "error: \"iostat\" after `--` is not a command fleet runs; give bench, fio or sweep",
        ),
        (
            &["fleet", "a", "--", "bench", "--runtim", "1s"],
            "error: after `--`: unexpected argument '--runtim' found",
        ),
    ];
    for (args, want) in cases {
        let err = crate::support::inproc::usage_error(args);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with(want), "{args:?}: {err}");
    }
    let err = crate::support::inproc::usage_error(&["fleet", "a", "--", "bench", "--jsonl", "x"]);
    assert!(err.contains("--jsonl: fleet streams each host's intervals itself"));
    // End to end once: the binary's stderr is the one line, exit 2.
    let (args, want) = cases[0];
    let out = Command::new(BIN).args(args).output().unwrap();
    assert_usage_error(&out);
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with(want), "{args:?}: {err}");
}

#[test]
#[ignore = "needs sshd"]
fn a_host_not_ready_in_time_is_left_out_and_the_others_run() {
    let sshd = Sshd::start(&HOSTS[..2]);
    let tmp = tempfile::tempdir().unwrap();
    let record = tmp.path().join("fleet.json");
    // `slow` is h2 reached through a jump that waits 60 s first: it cannot be ready in 10 s,
    // while h1, local, is ready well within them even on a loaded machine (4 s was not, once).
    let mut config = std::fs::read_to_string(sshd.ssh_config()).unwrap();
    let config_path = tmp.path().join("ssh_config");
    config.insert_str(
        0,
        &format!(
            "Host slow\n  HostName 127.0.0.3\n  ConnectTimeout 120\n  ProxyCommand sh -c 'sleep 60; exec ssh -F {} -W \
             %h:%p h1'\n",
            config_path.display()
        ),
    );
    std::fs::write(&config_path, config).unwrap();
    let started = Instant::now();
    let out = Command::new(BIN)
        .args(["fleet", "h1,slow", "-F"])
        .arg(&config_path)
        .args(["--remote-binary", BIN, "--ready-timeout", "10s", "--json"])
        .arg(&record)
        .args(["--", "bench"])
        .arg(tmp.path())
        .args(["--size", "8M", "--runtime", "1s", "--interval", "500ms"])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("start: 1 of 2 hosts at once"), "{err}");
    assert!(
        err.lines()
            .last()
            .unwrap()
            .starts_with("error: 1 of 2 hosts failed (slow: not ready within --ready-timeout 10s)"),
        "{err}"
    );
    let r = fleet_record(&record);
    assert_eq!(r["hosts"][0]["status"], "completed");
    assert_eq!(r["hosts"][1]["status"], "not_ready");
    assert_eq!(r["aggregate"]["hosts"], 1);
    let (fleet, h1) = (&r["aggregate"]["read"], &r["hosts"][0]["read"]);
    assert_eq!(fleet["total_ios"], h1["total_ios"]);
    assert_eq!(fleet["iops"], h1["iops"]);
    assert!(fleet["lat_ns"]["histogram"] == h1["lat_ns"]["histogram"]);
    assert!(started.elapsed() < Duration::from_secs(45));
}

/// `--allow-destructive` is printed per host before anything starts and forwarded; a host
/// whose ssh fails is one failed host (here the ssh program is `false`).
#[test]
fn allow_destructive_is_printed_per_host_and_forwarded() {
    let tmp = tempfile::tempdir().unwrap();
    let record = tmp.path().join("fleet.json");
    let out = Command::new(BIN)
        .args([
            "fleet",
            "n[1-2]",
            "--ssh",
            "false",
            "--allow-destructive",
            "--json",
        ])
        .arg(&record)
        .args([
            "--",
            "bench",
            "/dev/sdz",
            "--rw",
            "write",
            "--runtime",
            "1s",
        ])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines[..3],
        [
            "diskdash fleet: 2 hosts: bench /dev/sdz --rw write --runtime 1s --allow-destructive",
            "  n1: --allow-destructive: may write over the block device or file with data it names",
            "  n2: --allow-destructive: may write over the block device or file with data it names",
        ],
        "{err}"
    );
    let r = fleet_record(&record);
    assert_eq!(
        r["command"].as_array().unwrap().last().unwrap(),
        "--allow-destructive"
    );
    assert_eq!(r["hosts"][0]["status"], "failed");
    assert_eq!(r["hosts"][0]["error"], "ssh exited with exit status: 1");
}

/// The IOPS a host's row of the dashboard's hosts table shows while it runs: the word after
/// `running` on the line naming `host` (`-`: it sent nothing for the table's interval).
fn running_iops(screen: &str, host: &str) -> Option<f64> {
    screen.lines().find_map(|line| {
        let words: Vec<&str> = line
            .split(|c: char| c.is_whitespace() || c == '│' || c == '>')
            .filter(|w| !w.is_empty())
            .collect();
        let at = words.iter().position(|w| *w == host)?;
        if words.get(at + 1) != Some(&"running") {
            return None;
        }
        let word = words.get(at + 2)?;
        let (num, scale) = match word.chars().last()? {
            'k' => (&word[..word.len() - 1], 1e3),
            'M' => (&word[..word.len() - 1], 1e6),
            _ => (*word, 1.0),
        };
        num.parse::<f64>().ok().map(|v| v * scale)
    })
}

/// In a terminal `fleet` opens its dashboard: a row per host, running with live IOPS; `tab`
/// puts a host's name on the charts; `q` stops every host as SIGINT does, and the fleet record
/// holds each host's own record.
#[test]
#[ignore = "needs sshd and tmux"]
fn the_dashboard_shows_every_host_running_and_q_stops_them_with_their_records() {
    crate::support::tmux::require();
    let sshd = Sshd::start(&HOSTS);
    let tmp = tempfile::tempdir().unwrap();
    let dir = awkward_dir(tmp.path());
    let record = tmp.path().join("fleet.json");
    let config = sshd.ssh_config();
    let args = [
        "fleet",
        "h1,h2,h3",
        "-F",
        config.to_str().unwrap(),
        "--remote-binary",
        BIN,
        "--json",
        record.to_str().unwrap(),
        "--",
        "bench",
        dir.to_str().unwrap(),
        "--size",
        "16M",
        "--runtime",
        "60s",
        "--interval",
        "500ms",
        "-q",
        "4",
    ];
    let t = crate::support::tmux::Tmux::start("fleet", &args, &[], 120, 40);
    let wait = Duration::from_secs(90);
    let screen = t.wait_for("every host running with IOPS", wait, |s| {
        ["h1", "h2", "h3"]
            .iter()
            .all(|h| running_iops(s, h).is_some_and(|v| v > 0.0))
    });
    assert!(screen.contains("fleet of 3 hosts"), "{screen}");
    assert!(screen.contains("RUNNING"), "{screen}");
    assert!(screen.contains("hosts over interval "), "{screen}");
    assert!(screen.contains("fleet: throughput and IOPS"), "{screen}");
    assert!(
        screen
            .lines()
            .any(|l| l.contains(">fleet") && l.contains("3 of 3")),
        "{screen}"
    );

    t.send(&["Tab"]);
    t.wait_for("h1's name on the charts", wait, |s| {
        s.contains("h1: throughput and IOPS") && s.contains("h1: latency")
    });

    t.send(&["q"]);
    assert_eq!(t.exit_status(wait), 130, "stderr: {}", t.stderr());
    t.assert_restored();
    // The summary the headless run prints, on the normal screen.
    let screen = t.capture();
    assert!(screen.contains("fleet interrupted"), "{screen}");
    let r = fleet_record(&record);
    assert_eq!(r["status"], "interrupted");
    let hosts = r["hosts"].as_array().unwrap();
    assert_eq!(hosts.len(), 3);
    for (h, name) in hosts.iter().zip(["h1", "h2", "h3"]) {
        assert_eq!(h["host"], name);
        assert_eq!(h["status"], "interrupted", "{h}");
        assert_eq!(h["record"]["format"], "diskdash-bench", "{h}");
        assert_eq!(h["record"]["status"], "interrupted", "{h}");
        assert!(h["read"]["total_ios"].as_u64().unwrap() > 0, "{h}");
    }
    no_scratch_left(&dir);
}

/// A host that drops mid-run shows `failed` with its last error in the dashboard while the
/// others go on running; its partial results are kept in the record.
#[test]
#[ignore = "needs sshd and tmux"]
fn in_the_dashboard_a_host_that_drops_shows_failed_and_the_others_go_on() {
    crate::support::tmux::require();
    let sshd = Sshd::start(&HOSTS);
    let tmp = tempfile::tempdir().unwrap();
    let record = tmp.path().join("fleet.json");
    let config = sshd.ssh_config();
    let args = [
        "fleet",
        "h1,h2,h3",
        "-F",
        config.to_str().unwrap(),
        "--remote-binary",
        BIN,
        "--json",
        record.to_str().unwrap(),
        "--",
        "bench",
        tmp.path().to_str().unwrap(),
        "--size",
        "16M",
        "--runtime",
        "60s",
        "--interval",
        "500ms",
        "-q",
        "4",
    ];
    let t = crate::support::tmux::Tmux::start("fleet-drop", &args, &[], 160, 50);
    let wait = Duration::from_secs(90);
    t.wait_for("every host running with IOPS", wait, |s| {
        ["h1", "h2", "h3"]
            .iter()
            .all(|h| running_iops(s, h).is_some_and(|v| v > 0.0))
    });
    assert!(
        sshd.drop_connections_to("127.0.0.4") > 0,
        "no session of h3 found"
    );
    // The next intervals are of two hosts: the fleet row says so, h3's row says why.
    t.wait_for("h3 failed, the others running", wait, |s| {
        let h3_failed = s
            .lines()
            .any(|l| l.contains(" h3 ") && l.contains("failed") && l.contains("dropped mid-run"));
        let two = s
            .lines()
            .any(|l| l.contains(">fleet") && l.contains("2 of 3"));
        h3_failed
            && two
            && ["h1", "h2"]
                .iter()
                .all(|h| running_iops(s, h).is_some_and(|v| v > 0.0))
    });
    t.send(&["q"]);
    assert_eq!(t.exit_status(wait), 130, "stderr: {}", t.stderr());
    t.assert_restored();
    let r = fleet_record(&record);
    let hosts = r["hosts"].as_array().unwrap();
    for h in &hosts[..2] {
        assert_eq!(h["status"], "interrupted", "{h}");
        assert!(h["record"].is_object(), "{h}");
    }
    assert_eq!(hosts[2]["status"], "failed");
    assert_eq!(hosts[2]["partial"], true);
}

/// `--no-tui` keeps a fleet in a terminal headless: the tables on stderr, the summary on the
/// screen, no dashboard.
#[test]
#[ignore = "needs sshd and tmux"]
fn no_tui_in_a_terminal_prints_the_tables() {
    crate::support::tmux::require();
    let sshd = Sshd::start(&HOSTS[..2]);
    let tmp = tempfile::tempdir().unwrap();
    let config = sshd.ssh_config();
    let args = [
        "fleet",
        "h1,h2",
        "-F",
        config.to_str().unwrap(),
        "--remote-binary",
        BIN,
        "--no-tui",
        "--",
        "bench",
        tmp.path().to_str().unwrap(),
        "--size",
        "8M",
        "--runtime",
        "1s",
        "--interval",
        "500ms",
    ];
    let t = crate::support::tmux::Tmux::start("fleet-no-tui", &args, &[], 120, 40);
    assert_eq!(t.exit_status(Duration::from_secs(90)), 0, "{}", t.stderr());
    t.assert_restored();
    let err = t.stderr();
    assert!(err.contains("start: 2 of 2 hosts at once"), "{err}");
    assert!(
        err.contains("interval 1 (rates over each host's interval"),
        "{err}"
    );
    let screen = t.capture();
    assert!(screen.contains("fleet completed"), "{screen}");
    assert!(!screen.contains("fleet of 2 hosts"), "{screen}");
}

#[test]
#[ignore = "needs sshd"]
fn trims_on_two_hosts_are_in_their_rows_and_the_fleet_aggregate() {
    let sshd = Sshd::start(&HOSTS);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("scratch");
    std::fs::create_dir(&dir).unwrap();
    let record = tmp.path().join("fleet.json");
    let out = fleet(
        &sshd,
        "h1,h2",
        &["--json", record.to_str().unwrap(), "--ready-timeout", "60s"],
        &[
            "bench",
            dir.to_str().unwrap(),
            "--rw",
            "randtrim",
            "--size",
            "16M",
            "--runtime",
            "1s",
            "--interval",
            "500ms",
        ],
    )
    .output()
    .unwrap();
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    let r = fleet_record(&record);
    let mut trims = 0;
    for h in r["hosts"].as_array().unwrap() {
        assert_eq!(h["status"], "completed", "{h}");
        assert_eq!(h["trim"], h["record"]["trim"], "{h}");
        let n = h["trim"]["total_ios"].as_u64().unwrap();
        assert!(n > 0, "{h}");
        assert!(h.get("write").is_some_and(|w| w["total_ios"] == 0), "{h}");
        trims += n;
    }
    let fleet = &r["aggregate"];
    assert_eq!(
        fleet["trim"]["total_ios"].as_u64().unwrap(),
        trims,
        "{fleet}"
    );
    let iops: f64 = r["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["trim"]["iops"].as_f64().unwrap())
        .sum();
    assert!((fleet["trim"]["iops"].as_f64().unwrap() - iops).abs() < 1e-6);
    // The tables count trims: no interval row that has results shows the host idle.
    let iops: Vec<&str> = err
        .lines()
        .filter_map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            match words.first() {
                Some(&"h1") => words.get(2).copied(),
                Some(&"fleet") => words.get(4).copied(),
                _ => None,
            }
        })
        .filter(|w| *w != "-")
        .collect();
    assert!(!iops.is_empty(), "{err}");
    assert!(
        iops.iter()
            .all(|w| w.parse::<f64>().map_or(true, |v| v > 0.0)),
        "{iops:?}\n{err}"
    );
    let summary = String::from_utf8_lossy(&out.stdout);
    let fleet_row = summary
        .lines()
        .find(|l| l.starts_with("  fleet "))
        .expect(&summary);
    let iops = fleet_row.split_whitespace().nth(4).unwrap();
    assert!(iops != "-" && iops != "0", "{summary}");
    no_scratch_left(&dir);
}

/// A remote whose stderr is thrown away: what the controller learns of its warnings and its
/// error comes typed on its stream.
#[test]
#[ignore = "needs sshd"]
fn a_remote_warning_and_a_remote_error_arrive_typed_on_the_stream() {
    let sshd = Sshd::start(&HOSTS[..1]);
    let tmp = tempfile::tempdir().unwrap();
    let remote = tmp.path().join("quiet-diskdash");
    std::fs::write(
        &remote,
        format!("#!/bin/sh\nexec '{BIN}' \"$@\" 2>/dev/null\n"),
    )
    .unwrap();
    std::fs::set_permissions(&remote, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let run = |command: &[&str]| {
        Command::new(BIN)
            .args(["fleet", "h1", "--no-tui", "-F"])
            .arg(sshd.ssh_config())
            .arg("--remote-binary")
            .arg(&remote)
            .arg("--")
            .args(command)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let dir = tmp.path().to_str().unwrap();
    let out = run(&[
        "bench",
        dir,
        "--size",
        "4M",
        "--runtime",
        "300ms",
        "--interval",
        "100ms",
        "--buffered",
    ]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains(
            "  h1: WARNING: buffered I/O (--buffered, direct=0): results include the page cache"
        ),
        "{err}"
    );
    let out = run(&["bench", dir, "--size", "1E"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let last = err.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("error: 1 of 1 hosts failed (h1: the remote run exited with code 2 before finishing: --size"),
        "{err}"
    );
}
