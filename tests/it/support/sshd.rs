//! A real OpenSSH server for fleet tests: its own config, host key and authorized key in a
//! temporary directory, listening on loopback addresses (127.0.0.2, .3, ...) on a free port,
//! and an ssh_config naming those addresses as hosts. Host keys are pinned in a known_hosts
//! file of its own: host-key checking stays on.

use std::io::Read;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const SSHD: &str = "/usr/sbin/sshd";

pub struct Sshd {
    dir: tempfile::TempDir,
    child: Child,
    pub port: u16,
}

fn keygen(path: &Path) {
    let status = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "diskdash-test", "-f"])
        .arg(path)
        .status()
        .expect("ssh-keygen (apt-get install -y openssh-client)");
    assert!(status.success());
}

fn free_port(addr: &str) -> u16 {
    TcpListener::bind(format!("{addr}:0"))
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Sshd {
    /// sshd on each of `hosts`' addresses (`(alias, address)`), ready to take connections.
    pub fn start(hosts: &[(&str, &str)]) -> Self {
        assert!(
            Path::new(SSHD).exists(),
            "{SSHD} missing: apt-get install -y openssh-server"
        );
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        keygen(&d.join("host_key"));
        keygen(&d.join("client_key"));
        std::fs::copy(d.join("client_key.pub"), d.join("authorized_keys")).unwrap();
        // sshd's privilege separation directory.
        std::fs::create_dir_all("/run/sshd").unwrap();
        let port = free_port(hosts[0].1);
        let mut config = String::new();
        for (_, addr) in hosts {
            config.push_str(&format!("ListenAddress {addr}:{port}\n"));
        }
        config.push_str(&format!(
            "HostKey {host_key}\nAuthorizedKeysFile {keys}\nPermitRootLogin prohibit-password\n\
             PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\n\
             StrictModes no\nPidFile none\nX11Forwarding no\nAllowAgentForwarding no\n\
             LogLevel ERROR\n",
            host_key = d.join("host_key").display(),
            keys = d.join("authorized_keys").display(),
        ));
        std::fs::write(d.join("sshd_config"), config).unwrap();
        let child = Command::new(SSHD)
            .args(["-D", "-e", "-f"])
            .arg(d.join("sshd_config"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let host_key = std::fs::read_to_string(d.join("host_key.pub")).unwrap();
        let mut key = host_key.split_whitespace();
        let (kind, key) = (key.next().unwrap(), key.next().unwrap());
        let mut known = String::new();
        let mut ssh_config = String::new();
        for (alias, addr) in hosts {
            known.push_str(&format!("[{addr}]:{port} {kind} {key}\n"));
            ssh_config.push_str(&format!("Host {alias}\n  HostName {addr}\n"));
        }
        // A host that does not answer: its address has no sshd.
        ssh_config.push_str(&format!(
            "Host *\n  Port {port}\n  User {user}\n  IdentityFile {id}\n  IdentitiesOnly yes\n  \
             UserKnownHostsFile {known}\n  GlobalKnownHostsFile /dev/null\n  \
             StrictHostKeyChecking yes\n  ConnectTimeout 5\n  LogLevel ERROR\n",
            user = super::run("id", &["-un"]).trim(),
            id = d.join("client_key").display(),
            known = d.join("known_hosts").display(),
        ));
        std::fs::write(d.join("known_hosts"), known).unwrap();
        std::fs::write(d.join("ssh_config"), ssh_config).unwrap();
        let sshd = Self { dir, child, port };
        let deadline = Instant::now() + Duration::from_secs(10);
        for (_, addr) in hosts {
            let at: SocketAddr = format!("{addr}:{port}").parse().unwrap();
            while TcpStream::connect_timeout(&at, Duration::from_millis(200)).is_err() {
                assert!(Instant::now() < deadline, "sshd does not listen on {at}");
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        sshd
    }

    /// The ssh_config naming the hosts (`ssh -F`).
    pub fn ssh_config(&self) -> PathBuf {
        self.dir.path().join("ssh_config")
    }

    /// Cuts every connection to `addr` as if the host went away: kills the sshd processes
    /// serving it (not the programs they run, which see their input end). Returns how many
    /// were killed.
    pub fn drop_connections_to(&self, addr: &str) -> usize {
        let wanted = format!(" {addr} {}", self.port);
        let mut killed = 0;
        for pid in session_pids(&wanted) {
            // Up from the session's program to the listener: the per-connection sshd processes.
            let mut at = parent(pid);
            while let Some(p) = at {
                if p == self.child.id() || p <= 1 {
                    break;
                }
                if comm(p).starts_with("sshd") {
                    let _ = Command::new("kill")
                        .args(["-KILL", &p.to_string()])
                        .status();
                    killed += 1;
                }
                at = parent(p);
            }
        }
        killed
    }
}

/// Processes whose SSH_CONNECTION ends with `wanted` (" SERVER_ADDR SERVER_PORT").
fn session_pids(wanted: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let mut environ = Vec::new();
        if std::fs::File::open(format!("/proc/{pid}/environ"))
            .and_then(|mut f| f.read_to_end(&mut environ))
            .is_err()
        {
            continue;
        }
        if environ
            .split(|&b| b == 0)
            .filter_map(|v| std::str::from_utf8(v).ok())
            .any(|v| v.starts_with("SSH_CONNECTION=") && v.ends_with(wanted))
        {
            out.push(pid);
        }
    }
    out
}

fn parent(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 2..];
    after.split_whitespace().nth(1)?.parse().ok()
}

fn comm(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .unwrap_or_default()
        .trim()
        .to_string()
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
