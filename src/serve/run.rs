//! A run's `--serve ADDR` (`bench|fio|sweep`): the disks' endpoint with the running benchmark's
//! families, bound before the session starts (a taken port fails before any I/O) and served for
//! as long as the run lives, then `--serve-linger` more.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::Context;
use tokio::sync::{oneshot, watch};

use crate::error::usage;
use crate::monitor::sampler::Sampler;
use crate::serve::Exposition;
use crate::serve::http::serve;
use crate::session::Snapshot;

/// Parses an IP:PORT given to `flag`.
pub(crate) fn parse_address(flag: &str, value: &str) -> anyhow::Result<SocketAddr> {
    value.parse().map_err(|_| {
        usage!(
            "{flag} {value:?} is not an address; use IP:PORT, e.g. 127.0.0.1:9977, \
             [::1]:9977 or 0.0.0.0:9977 (every interface)"
        )
    })
}

/// Longest `--serve-linger`.
const MAX_LINGER: Duration = Duration::from_secs(3600);

/// A run's `--serve`, bound before the session starts (a taken port fails before any I/O).
pub struct RunServe {
    listener: std::net::TcpListener,
    sampler: Sampler,
    linger: Duration,
    command: &'static str,
}

impl RunServe {
    /// Checks `--serve` and `--serve-linger`, opens `/proc/diskstats` and binds. `None` without
    /// `--serve`.
    ///
    /// # Errors
    /// A usage error (exit 2) for a bad address or duration, or a linger without `--serve`; a
    /// runtime error (exit 1) when the address cannot be bound.
    pub fn bind(
        serve: Option<&str>,
        linger: Option<&str>,
        command: &'static str,
    ) -> anyhow::Result<Option<RunServe>> {
        let linger = match linger {
            None => Duration::ZERO,
            Some(_) if serve.is_none() => {
                return Err(usage!(
                    "--serve-linger needs --serve ADDR: there is nothing to keep serving; add \
                     e.g. --serve 127.0.0.1:9977"
                ));
            }
            Some(text) => crate::units::parse_duration(text)
                .ok()
                .filter(|d| *d <= MAX_LINGER)
                .ok_or_else(|| {
                    usage!(
                        "--serve-linger {text:?} is not a duration; use 0s to 1h, e.g. 15s (one \
                         scrape interval)"
                    )
                })?,
        };
        let Some(serve) = serve else {
            return Ok(None);
        };
        let addr = parse_address("--serve", serve)?;
        let sampler = Sampler::open()?;
        let listener =
            std::net::TcpListener::bind(addr).with_context(|| bind_hint(addr, "--serve"))?;
        crate::serve::http::widen_backlog(&listener).context("setting the listen backlog")?;
        listener
            .set_nonblocking(true)
            .context("setting the listener non-blocking")?;
        Ok(Some(RunServe {
            listener,
            sampler,
            linger,
            command,
        }))
    }

    /// Serves the run whose snapshots `snapshots` receives, from a thread of its own, and prints
    /// the bound address on stderr (`diskdash bench: serving http://127.0.0.1:40123/metrics`).
    ///
    /// # Errors
    /// The thread could not be started.
    pub fn start(self, snapshots: watch::Receiver<Arc<Snapshot>>) -> anyhow::Result<Serving> {
        let bound = self
            .listener
            .local_addr()
            .context("reading the bound address")?;
        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let exposition = Exposition::with_run(self.sampler, snapshots);
        let listener = self.listener;
        // tokio's signal driver panics where it cannot make its socket pair (descriptors
        // run out, `ulimit -n`): found here first, as an error.
        // The runtime takes an epoll, an eventfd and that pair; 8 descriptors leave a margin.
        drop((0..4).map(|_| std::os::unix::net::UnixStream::pair()).collect::<std::io::Result<Vec<_>>>().map_err(|err| {
            anyhow::anyhow!(
                "--serve {bound}: cannot serve: {err}; raise the descriptor limit (ulimit -n) or \
                 drop --serve"
            )
        })?);
        // The thread says when it serves (its runtime built, the listener registered): an
        // endpoint that cannot start is the command's error, before the run goes on.
        let (ready_tx, ready_rx) = std::sync::mpsc::sync_channel::<Result<(), String>>(1);
        let thread = std::thread::Builder::new()
            .name("serve".into())
            .spawn(move || {
                let started = (|| {
                    // No signal driver: the run's own handler takes the signals (and tokio's
                    // panics where it cannot make its pipe, with few descriptors left).
                    let runtime = tokio::runtime::Builder::new_current_thread()
                        .enable_io()
                        .enable_time()
                        .build()
                        .context("starting the runtime")?;
                    let listener = {
                        let _entered = runtime.enter();
                        tokio::net::TcpListener::from_std(listener)
                            .context("registering the listener")?
                    };
                    anyhow::Ok((runtime, listener))
                })();
                let (runtime, listener) = match started {
                    Ok(parts) => {
                        let _ = ready_tx.send(Ok(()));
                        parts
                    }
                    Err(err) => {
                        let _ = ready_tx.send(Err(format!("{err:#}")));
                        return Err(err);
                    }
                };
                runtime.block_on(async move {
                    let stop = async move {
                        // A dropped sender stops it as well.
                        let _ = stop_rx.await;
                    };
                    serve(listener, exposition, stop).await
                })
            })
            .context("starting the serve thread")?;
        match ready_rx.recv() {
            Ok(Ok(())) => {}
            Ok(Err(err)) => {
                let _ = thread.join();
                anyhow::bail!("--serve {bound}: cannot serve: {err}");
            }
            Err(_) => {
                let _ = thread.join();
                anyhow::bail!("--serve {bound}: cannot serve: its thread stopped while starting");
            }
        }
        eprintln!("{}: serving http://{bound}/metrics", self.command);
        if !is_loopback(bound.ip()) {
            eprintln!(
                "note: {} is reachable from other hosts; anyone who can connect reads the run's \
                 jobs, target paths and the disks' counters",
                bound.ip()
            );
        }
        Ok(Serving {
            stop: stop_tx,
            thread,
            linger: self.linger,
            command: self.command,
        })
    }
}

/// A run's endpoint, serving.
pub struct Serving {
    stop: oneshot::Sender<()>,
    thread: JoinHandle<anyhow::Result<()>>,
    linger: Duration,
    command: &'static str,
}

impl Serving {
    /// After the run: serves the final values for `--serve-linger` (an interrupt cuts it
    /// short), then stops.
    ///
    /// # Errors
    /// The server failed while the run went on (the run's results stand; the command then
    /// exits 1 with this error after its report).
    pub fn finish(self, interrupt: &AtomicBool) -> anyhow::Result<()> {
        if !self.linger.is_zero()
            && !self.thread.is_finished()
            && !interrupt.load(Ordering::Relaxed)
        {
            eprintln!(
                "{}: serving the final values for {} (--serve-linger)",
                self.command,
                crate::units::format_duration(self.linger)
            );
            let until = Instant::now() + self.linger;
            while Instant::now() < until && !interrupt.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(50).min(until - Instant::now()));
            }
        }
        let _ = self.stop.send(());
        match self.thread.join() {
            Ok(Ok(())) => Ok(()),
            Ok(Err(err)) => Err(anyhow::anyhow!(
                "--serve stopped during the run: {}",
                crate::error::one_line(&format!("{err:#}"))
            )),
            Err(_) => Err(anyhow::anyhow!(
                "--serve stopped during the run: its thread panicked"
            )),
        }
    }
}

pub(crate) fn bind_hint(addr: SocketAddr, flag: &str) -> String {
    format!(
        "cannot listen on {addr} (is another diskdash serve or an exporter using the port? pick \
         another with {flag})"
    )
}

pub(crate) fn is_loopback(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback(),
        IpAddr::V6(v6) => {
            v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_addresses_count_as_local() {
        assert!(is_loopback("127.0.0.2".parse().unwrap()));
        assert!(is_loopback("::1".parse().unwrap()));
        assert!(is_loopback("::ffff:127.0.0.1".parse().unwrap()));
        assert!(!is_loopback("0.0.0.0".parse().unwrap()));
        assert!(!is_loopback("::".parse().unwrap()));
    }
}
