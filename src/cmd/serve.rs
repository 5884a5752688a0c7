//! `diskdash serve [--listen ADDR]`: the disks' counters as an OpenMetrics endpoint until SIGINT
//! or SIGTERM. A run's `--serve` is `crate::serve::run`; the exposition itself is `crate::serve`.

use std::net::SocketAddr;
use std::process::ExitCode;

use anyhow::Context;
use tokio::signal::unix::{SignalKind, signal};

use crate::cli::ServeArgs;
use crate::monitor::diskstats::DiskstatsReader;
use crate::monitor::sampler::Sampler;
use crate::serve::filter::DeviceFilter;
use crate::serve::http::serve;
use crate::serve::{Exposition, HostPaths, ServeOptions};

/// Parses `--listen`: an IP address and a port.
///
/// # Errors
/// A usage error naming the value and the expected form.
pub fn parse_listen(value: &str) -> anyhow::Result<SocketAddr> {
    crate::serve::run::parse_address("--listen", value)
}

/// Runs `diskdash serve`.
///
/// # Errors
/// A usage error for a bad `--listen` (exit 2); the address cannot be bound, or
/// `/proc/diskstats` cannot be opened (exit 1).
pub fn run(args: &ServeArgs) -> anyhow::Result<ExitCode> {
    let addr = parse_listen(&args.listen)?;
    let options = ServeOptions {
        filter: DeviceFilter::new(
            args.device_include.as_deref(),
            args.device_exclude.as_deref(),
        )?,
        no_node_metrics: args.no_node_metrics,
        trace: args.trace,
        paths: HostPaths {
            procfs: args.procfs.clone(),
            sysfs: args.sysfs.clone(),
            udev_data: args.udev_data.clone(),
        },
    };
    let sampler = Sampler::with_reader(DiskstatsReader::open_path(&options.paths.diskstats())?);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the runtime")?;
    runtime.block_on(async {
        // Installed before binding, so a signal right after the address is printed stops us
        // cleanly instead of killing the process.
        let mut interrupt = signal(SignalKind::interrupt()).context("installing SIGINT")?;
        let mut terminate = signal(SignalKind::terminate()).context("installing SIGTERM")?;
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| crate::serve::run::bind_hint(addr, "--listen"))?;
        crate::serve::http::widen_backlog(&listener).context("setting the listen backlog")?;
        let bound = listener.local_addr().context("reading the bound address")?;
        println!("diskdash serve: listening on http://{bound}/metrics");
        if !crate::serve::run::is_loopback(bound.ip()) {
            eprintln!(
                "note: {} is reachable from other hosts; anyone who can connect reads the disk \
                 names, models and counters",
                bound.ip()
            );
        }
        let stop = async move {
            tokio::select! {
                _ = interrupt.recv() => {}
                _ = terminate.recv() => {}
            }
        };
        let trace = options.trace;
        let mut exposition = Exposition::with_options(sampler, options);
        if trace && let Some(note) = exposition.start_trace() {
            eprintln!("note: {}", crate::text::escape(&note));
        }
        serve(listener, exposition, stop).await
    })?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::exit_code;

    #[test]
    fn listen_accepts_ip_and_port_and_rejects_the_rest_as_usage_errors() {
        assert_eq!(
            parse_listen("127.0.0.1:9977").unwrap(),
            SocketAddr::from(([127, 0, 0, 1], 9977))
        );
        assert_eq!(parse_listen("[::1]:0").unwrap().port(), 0);
        for bad in [
            "",
            "9977",
            "localhost",
            "127.0.0.1",
            "127.0.0.1:99999",
            "1.2.3.4:x",
        ] {
            let err = parse_listen(bad).unwrap_err();
            assert_eq!(exit_code(&err), 2, "{bad:?}");
            assert_eq!(
                err.to_string(),
                format!(
                    "--listen {bad:?} is not an address; use IP:PORT, e.g. 127.0.0.1:9977, \
                     [::1]:9977 or 0.0.0.0:9977 (every interface)"
                )
            );
        }
    }
}
