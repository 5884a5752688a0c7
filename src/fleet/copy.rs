//! `diskdash fleet --copy-binary`: hosts without the remote diskdash get this one, copied
//! over the same ssh into a new private directory (`mktemp -d`), after checking that the
//! host's architecture (`uname -m`) is this binary's; the directory is removed afterwards.
//!
//! A login may print a banner on stdout (a shell's rc file) before the command runs: only the
//! lines the command marks (`DISKDASH-...`) are read, and the directory is used (and later
//! removed with `rm -rf`) only when it is an absolute path, without control characters or `..`,
//! whose last part is the one `mktemp` was given.

use std::io::Read;
use std::process::Stdio;

use anyhow::Context;

use crate::fleet::plan::FleetPlan;
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
            "if command -v {} >/dev/null 2>&1; then echo '{PRESENCE}present'; else echo \
             '{PRESENCE}absent'; fi; echo \"{MACHINE}$(uname -m)\"",
            ssh::shell_quote(binary)
        );
        let answer = run_ssh(plan, host, &probe, None)?;
        let presence = marked(&answer, PRESENCE).unwrap_or_default();
        let machine = marked(&answer, MACHINE).unwrap_or_default().trim();
        match presence {
            "present" => continue,
            "absent" => {}
            _ => anyhow::bail!(
                "{host}: asking whether {binary} is there gave no answer (no {PRESENCE:?} line \
                 in {:?})",
                crate::fleet::lines::shown(&answer, 80)
            ),
        }
        if !uname_names().contains(&machine) {
            anyhow::bail!(
                "{host} is {machine:?} and this diskdash is {}: --copy-binary cannot copy it; \
                 install diskdash there and give --remote-binary",
                std::env::consts::ARCH
            );
        }
        let copy = format!(
            "d=$(mktemp -d \"${{TMPDIR:-/tmp}}/{TEMP_PREFIX}XXXXXXXX\") && cat > \"$d/diskdash\" \
             && chmod 700 \"$d/diskdash\" && echo \"{COPY_DIR}$d\""
        );
        let file = std::fs::File::open(&exe)
            .with_context(|| format!("opening {} to copy", exe.display()))?;
        let answer = run_ssh(plan, host, &copy, Some(file))?;
        let dir =
            copy_dir(&answer).map_err(|why| anyhow::anyhow!("{host}: copying diskdash: {why}"))?;
        eprintln!("  {host}: no {binary}: copied this diskdash ({machine}) to {dir}");
        installed.binaries[i] = format!("{dir}/diskdash");
        installed.temp_dirs[i] = Some(dir);
    }
    Ok(installed)
}

/// The marks of the lines the remote commands print; nothing else on stdout is read.
const PRESENCE: &str = "DISKDASH-PRESENCE ";
const MACHINE: &str = "DISKDASH-MACHINE ";
const COPY_DIR: &str = "DISKDASH-COPY-DIR ";
/// The last part of every directory made for a copy, before `mktemp`'s eight characters.
const TEMP_PREFIX: &str = "diskdash-fleet.";

/// The text of the last line of `output` marked `mark` (a banner comes before the command's
/// own lines).
fn marked<'a>(output: &'a str, mark: &str) -> Option<&'a str> {
    output.lines().rev().find_map(|l| l.strip_prefix(mark))
}

/// The directory the copy command made, from its marked line, when it is one `mktemp` made:
/// absolute, no control characters, no `.` or `..` parts, its last part `TEMP_PREFIX` and eight
/// characters of `mktemp`'s.
fn copy_dir(output: &str) -> Result<String, String> {
    let Some(dir) = marked(output, COPY_DIR) else {
        return Err(format!(
            "no {COPY_DIR:?} line in its output {:?}",
            crate::fleet::lines::shown(output, 80)
        ));
    };
    let shown = crate::fleet::lines::shown(dir, 200);
    let parts: Vec<&str> = dir.split('/').skip(1).collect();
    let last_ok = parts.last().is_some_and(|last| {
        last.strip_prefix(TEMP_PREFIX)
            .is_some_and(|rest| rest.len() == 8 && rest.chars().all(|c| c.is_ascii_alphanumeric()))
    });
    if !dir.starts_with('/')
        || dir.chars().any(char::is_control)
        || parts
            .iter()
            .any(|p| p.is_empty() || *p == "." || *p == "..")
        || !last_ok
    {
        return Err(format!(
            "{shown:?} is not a directory mktemp made (an absolute path ending in \
             {TEMP_PREFIX}XXXXXXXX); nothing was run from it"
        ));
    }
    Ok(dir.to_string())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_directory_comes_from_the_marked_line_only() {
        let banner = "/\nWelcome to node01\n/srv\n";
        let dir = "/tmp/diskdash-fleet.Ab3dE9xZ";
        assert_eq!(
            copy_dir(&format!("{banner}{COPY_DIR}{dir}\n")).as_deref(),
            Ok(dir)
        );
        // The banner alone, or a marked line that is not mktemp's directory, is refused.
        for output in [
            banner.to_string(),
            format!("{COPY_DIR}/\n"),
            format!("{COPY_DIR}relative/diskdash-fleet.Ab3dE9xZ\n"),
            format!("{COPY_DIR}/tmp/../diskdash-fleet.Ab3dE9xZ\n"),
            format!("{COPY_DIR}/tmp//diskdash-fleet.Ab3dE9xZ\n"),
            format!("{COPY_DIR}/home/u\n"),
            format!("{COPY_DIR}/tmp/diskdash-fleet.Ab3\u{1b}E9xZ\n"),
            format!("{COPY_DIR}/tmp/diskdash-fleet.Ab3dE9xZ/..\n"),
        ] {
            let why = copy_dir(&output).unwrap_err();
            assert!(!why.contains('\u{1b}'), "{why}");
        }
        assert_eq!(
            marked("x\nDISKDASH-PRESENCE present\n", PRESENCE),
            Some("present")
        );
        assert_eq!(marked("present\n", PRESENCE), None);
    }
}
