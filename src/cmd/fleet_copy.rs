//! `diskdash fleet --copy-binary`: hosts without the remote diskdash get this one, copied
//! over the same ssh into a new private directory (`mktemp -d`), after checking that the
//! host's architecture (`uname -m`) is this binary's; the directory is removed afterwards.

use std::io::Read;
use std::process::Stdio;

use anyhow::Context;

use super::fleet::FleetPlan;
use crate::fleet::ssh;

/// The diskdash each host runs, and the directories made for copies.
pub struct Installed {
    binaries: Vec<String>,
    /// `Some(dir)` for a host that got a copy.
    temp_dirs: Vec<Option<String>>,
}

impl Installed {
    /// Every host runs `binary` as it is.
    #[must_use]
    pub fn none(hosts: &[String], binary: &str) -> Self {
        Self {
            binaries: vec![binary.to_string(); hosts.len()],
            temp_dirs: vec![None; hosts.len()],
        }
    }

    #[must_use]
    pub fn binary(&self, host: usize) -> &str {
        &self.binaries[host]
    }

    /// Removes the copies (a host that cannot be reached keeps its copy, said on stderr).
    pub fn remove(&self, plan: &FleetPlan) {
        for (host, dir) in plan.hosts.iter().zip(&self.temp_dirs) {
            let Some(dir) = dir else { continue };
            let words = ["rm", "-rf", "--", dir.as_str()].map(String::from);
            match run_ssh(plan, host, &ssh::remote_command(&words), None) {
                Ok(_) => {}
                Err(err) => eprintln!(
                    "  {host}: could not remove the copied diskdash in {dir}: {}",
                    crate::error::one_line(&format!("{err:#}"))
                ),
            }
        }
    }
}

/// The machine names `uname -m` prints for this binary's architecture.
fn uname_names() -> &'static [&'static str] {
    match std::env::consts::ARCH {
        "x86_64" => &["x86_64", "amd64"],
        "aarch64" => &["aarch64", "arm64"],
        "x86" => &["i686", "i586", "i386"],
        "arm" => &["armv7l", "armv6l"],
        "riscv64" => &["riscv64"],
        "powerpc64" => &["ppc64le", "ppc64"],
        "s390x" => &["s390x"],
        _ => &[],
    }
}

/// Copies this diskdash to the hosts that lack `binary`.
///
/// # Errors
/// A host cannot be asked, runs another architecture, or the copy failed.
pub fn install(plan: &FleetPlan, binary: &str) -> anyhow::Result<Installed> {
    let mut installed = Installed::none(&plan.hosts, binary);
    let exe = std::env::current_exe().context("finding this diskdash to copy")?;
    for (i, host) in plan.hosts.iter().enumerate() {
        // `command -v` finds both a command on PATH and a path.
        let probe = format!(
            "if command -v {} >/dev/null 2>&1; then echo present; else echo absent; fi; uname -m",
            ssh::shell_quote(binary)
        );
        let answer = run_ssh(plan, host, &probe, None)?;
        let mut lines = answer.lines();
        let presence = lines.next().unwrap_or("");
        let machine = lines.next().unwrap_or("").trim();
        if presence == "present" {
            continue;
        }
        if !uname_names().contains(&machine) {
            anyhow::bail!(
                "{host} is {machine:?} and this diskdash is {}: --copy-binary cannot copy it; \
                 install diskdash there and give --remote-binary",
                std::env::consts::ARCH
            );
        }
        let copy = "d=$(mktemp -d \"${TMPDIR:-/tmp}/diskdash-fleet.XXXXXXXX\") && cat > \
                    \"$d/diskdash\" && chmod 700 \"$d/diskdash\" && echo \"$d\"";
        let file = std::fs::File::open(&exe)
            .with_context(|| format!("opening {} to copy", exe.display()))?;
        let dir = run_ssh(plan, host, copy, Some(file))?;
        let dir = dir.trim().to_string();
        if !dir.starts_with('/') {
            anyhow::bail!("{host}: copying diskdash gave no directory ({dir:?})");
        }
        eprintln!("  {host}: no {binary}: copied this diskdash ({machine}) to {dir}");
        installed.binaries[i] = format!("{dir}/diskdash");
        installed.temp_dirs[i] = Some(dir);
    }
    Ok(installed)
}

/// Runs `remote` on `host` (stdin from `input`), its stdout as text.
fn run_ssh(
    plan: &FleetPlan,
    host: &str,
    remote: &str,
    input: Option<std::fs::File>,
) -> anyhow::Result<String> {
    let mut child = std::process::Command::new(&plan.ssh.program)
        .args(ssh::ssh_args(&plan.ssh, host, remote))
        .stdin(input.map_or_else(Stdio::null, Stdio::from))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("starting {} for {host}", plan.ssh.program.display()))?;
    let mut out = String::new();
    if let Some(mut stdout) = child.stdout.take() {
        let _ = stdout.read_to_string(&mut out);
    }
    let mut err = String::new();
    if let Some(mut stderr) = child.stderr.take() {
        let _ = stderr.read_to_string(&mut err);
    }
    let status = child
        .wait()
        .with_context(|| format!("waiting for ssh {host}"))?;
    if !status.success() {
        anyhow::bail!(
            "{host}: {}",
            crate::error::one_line(err.lines().last().unwrap_or(&status.to_string()))
        );
    }
    Ok(out)
}
