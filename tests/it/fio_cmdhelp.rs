//! fio 3.33's own option list (`fio --cmdhelp=all`) against `diskdash fio`: each option, given
//! a plausible value in a minimal job, is either accepted and listed in `diskdash fio --help`,
//! or refused with a one-line usage error (exit 2) that names it. The names run through the
//! parse in-process (`diskdash::testing::fio::load`, what `--parse-only` runs), one job file each.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use diskdash::testing::bench::MachineLimits;

use crate::support::{BIN, assert_success, stdout};

/// fio 3.33: the static build beside the project's tools when there (the same option table as
/// Debian's, and it starts in a fraction of the time: no shared libraries to load, 216 times),
/// else Debian's `fio` when it is that version.
fn fio_3_33() -> String {
    let version = |fio: &str| {
        Command::new(fio)
            .arg("--version")
            .output()
            .ok()
            .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    for fio in ["/work/shared/tools/fio-3.33-static", "fio"] {
        if version(fio).as_deref() == Some("fio-3.33") {
            return fio.to_string();
        }
    }
    panic!("needs fio 3.33: fio on PATH, or /work/shared/tools/fio-3.33-static");
}

/// fio's option names, in its order: each line of `--cmdhelp=all` is `  name : help`.
fn fio_options(fio: &str) -> Vec<String> {
    let out = Command::new(fio).arg("--cmdhelp=all").output().unwrap();
    assert!(out.status.success(), "{fio} --cmdhelp=all failed");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| line.split_once(':'))
        .map(|(name, _)| name.trim().to_string())
        .filter(|name| {
            !name.is_empty()
                && name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        })
        .collect()
}

/// One option's `--cmdhelp`: its type and default (`None` for fio's "no default").
fn type_and_default(fio: &str, name: &str) -> (String, Option<String>) {
    let out = Command::new(fio)
        .arg(format!("--cmdhelp={name}"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let field = |key: &str| {
        text.lines()
            .filter_map(|l| l.split_once(':'))
            .find(|(k, _)| k.trim() == key)
            .map(|(_, v)| v.trim().to_string())
    };
    let kind = field("type").unwrap_or_default();
    let default = field("default").filter(|d| d != "no default" && !d.is_empty());
    (kind, default)
}

/// A plausible value: where a default would not say much or there is none, one written for
/// it; else fio's default; else one of its type.
fn plausible(name: &str, kind: &str, default: Option<String>, dir: &Path) -> String {
    let chosen = match name {
        "name" => "a",
        "filename" => "f",
        "directory" | "opendir" => return dir.display().to_string(),
        "size" | "filesize" | "io_size" => "1m",
        "verify_pattern" | "buffer_pattern" => "0xdeadbeef",
        "cpus_allowed" | "numa_cpu_nodes" => "0",
        "rate" | "rate_min" => "1m",
        "rate_iops" | "rate_iops_min" => "100",
        "bssplit" => "4k/100",
        "cmdprio_bssplit" => "4k/100",
        "percentile_list" => "50:99",
        "description" => "one job",
        "wait_for" => "a",
        "write_bw_log" | "write_lat_log" | "write_iops_log" | "write_hist_log" => "log",
        "ignore_error" => "EIO",
        "verify" => "crc32c",
        "zonesize" | "zonerange" => "256k",
        _ => "",
    };
    if !chosen.is_empty() {
        return chosen.to_string();
    }
    if let Some(default) = default {
        return default;
    }
    if kind.starts_with("boolean") || kind.starts_with("integer") || kind.starts_with("int") {
        "1".to_string()
    } else if kind.contains("time") {
        "1s".to_string()
    } else if kind.starts_with("list") || kind.contains("floating") {
        "1".to_string()
    } else {
        "x".to_string()
    }
}

/// The names `diskdash fio --help` lists: its job options (a `*` marks a note) and its
/// command line's `--options`.
fn listed_in_help() -> BTreeSet<String> {
    let out = Command::new(BIN).args(["fio", "--help"]).output().unwrap();
    assert_success(&out);
    let text = stdout(&out);
    let mut names = BTreeSet::new();
    let (flags, jobs) = text
        .split_once("Job options diskdash knows")
        .expect("--help has the job options");
    for word in flags.split_whitespace() {
        if let Some(flag) = word.strip_prefix("--") {
            let flag = flag.split(['=', ',']).next().unwrap_or("");
            names.insert(flag.replace('-', "_"));
        }
    }
    let list = jobs.split_once('\n').map_or("", |(_, rest)| rest);
    for line in list
        .lines()
        .take_while(|l| l.starts_with("  ") && !l.contains('('))
    {
        for word in line.split_whitespace() {
            names.insert(word.trim_end_matches('*').to_string());
        }
    }
    names
}

#[test]
#[ignore = "needs fio"]
fn every_option_of_fio_is_listed_in_help_or_refused_naming_itself() {
    let fio = fio_3_33();
    let names = fio_options(&fio);
    assert!(
        names.len() > 200,
        "fio 3.33 lists over 200 options: {}",
        names.len()
    );
    let listed = listed_in_help();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let machine = MachineLimits {
        available_cpus: vec![0, 1],
        memory_bytes: 8 << 30,
    };
    let env = |_: &str| None;
    let (mut accepted, mut refused) = (Vec::new(), Vec::new());
    let mut wrong = Vec::new();
    // fio answers one --cmdhelp=NAME a run, a fraction of a second each, mostly waiting: asked
    // side by side.
    let helps: Vec<(String, Option<String>)> = std::thread::scope(|scope| {
        let asked: Vec<_> = names
            .iter()
            .map(|name| scope.spawn(|| type_and_default(&fio, name)))
            .collect();
        asked.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (name, (kind, default)) in names.iter().zip(helps) {
        let value = plausible(name, &kind, default, d);
        let job = d.join(format!("{name}.fio"));
        std::fs::write(&job, format!("[a]\nfilename=f\nsize=1m\n{name}={value}\n")).unwrap();
        let args = vec![job.display().to_string(), "--parse-only".to_string()];
        match diskdash::testing::fio::load(&args, &env, &machine) {
            Ok(_) if listed.contains(name) => accepted.push(name.clone()),
            Ok(_) => wrong.push(format!("{name}={value}: accepted, not in --help")),
            Err(err) => {
                let text = format!("{err:#}");
                let code = diskdash::testing::error::exit_code(&err);
                if code != 2 || text.contains('\n') || !text.contains(name.as_str()) {
                    wrong.push(format!("{name}={value}: exit {code}: {text}"));
                }
                refused.push(name.clone());
            }
        }
    }
    eprintln!(
        "fio 3.33's options: {}; accepted {} (all listed in --help), refused {}; --help lists {} \
         names",
        names.len(),
        accepted.len(),
        refused.len(),
        listed.len()
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
