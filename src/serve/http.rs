//! The HTTP side of `diskdash serve`: HTTP/1.1 on hyper, two routes.
//!
//! | path | GET / HEAD |
//! | --- | --- |
//! | `/metrics` | the scrape, in the format the `Accept` header asks for ([`Format`]) |
//! | `/` | a short text page naming what is served |
//! | anything else | 404 |
//!
//! Other methods get 405. A HEAD of `/metrics` does not sample (it would shift the window of the
//! next real scrape). Connections are served until [`serve`]'s `shutdown` completes; then the
//! listener closes, open connections finish their request and close (at most
//! [`SHUTDOWN_GRACE`]).

use std::convert::Infallible;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{ACCEPT, ALLOW, CONTENT_TYPE, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;

use super::Exposition;
use super::format::{Format, openmetrics_to_text};

/// How long open connections may take to finish once a stop is asked for.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// The page at `/`.
pub const INDEX: &str = "diskdash serve: disk metrics for Prometheus\n\
\n\
/metrics  every disk's /proc/diskstats counters with node_exporter's names (node_disk_*),\n\
          each disk's queue settings (diskdash_disk_queue_info) and the iostat -x view since\n\
          the previous scrape (diskdash_disk_*); OpenMetrics when asked for, else text 0.0.4\n";

/// The page at `/` of a benchmark's `--serve`.
pub const RUN_INDEX: &str = "diskdash --serve: a running benchmark and the disks, for Prometheus\n\
\n\
/metrics  the run, per job (jobname) and op (read, write, sync), cumulative over the run as of\n\
          the last interval close: diskdash_bench_ios_total, diskdash_bench_bytes_total,\n\
          diskdash_bench_errors_total, diskdash_bench_latency_seconds (a histogram, 16 buckets\n\
          per power of two from 1.024us to 68.7s), diskdash_bench_job_info (the parameters);\n\
          and every disk as `diskdash serve` serves them (node_disk_*, diskdash_disk_*)\n";

type Body = Full<Bytes>;

fn plain(status: StatusCode, text: impl Into<Bytes>) -> Response<Body> {
    let mut response = Response::new(Full::new(text.into()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// The answer to one request.
pub fn respond<B>(request: &Request<B>, exposition: &Mutex<Exposition>) -> Response<Body> {
    let path = request.uri().path();
    if path != "/" && path != "/metrics" {
        return plain(
            StatusCode::NOT_FOUND,
            "not found: diskdash serves / and /metrics\n",
        );
    }
    let head = request.method() == Method::HEAD;
    if !head && request.method() != Method::GET {
        let mut response = plain(StatusCode::METHOD_NOT_ALLOWED, "only GET and HEAD\n");
        response
            .headers_mut()
            .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    if path == "/" {
        let index = exposition
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .index();
        return plain(StatusCode::OK, if head { "" } else { index });
    }
    let accept = request.headers().get(ACCEPT).and_then(|v| v.to_str().ok());
    let format = Format::negotiate(accept);
    let body = if head {
        String::new()
    } else {
        // A panic elsewhere while holding the lock cannot leave the sampler half-updated in a
        // way that matters: the next sample replaces it.
        let scraped = exposition
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .scrape();
        match scraped {
            Ok(text) if format == Format::Text => openmetrics_to_text(&text),
            Ok(text) => text,
            Err(e) => {
                return plain(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    format!("reading the disk counters failed: {e:#}\n"),
                );
            }
        }
    };
    let mut response = Response::new(Full::new(Bytes::from(body)));
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static(format.content_type()),
    );
    response
}

/// Serves `listener` until `shutdown` completes.
///
/// # Errors
/// Accepting a connection failed for a reason other than a transient one (a reset connection or
/// running out of descriptors is retried).
pub async fn serve(
    listener: TcpListener,
    exposition: Exposition,
    shutdown: impl Future<Output = ()>,
) -> anyhow::Result<()> {
    let exposition = Arc::new(Mutex::new(exposition));
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => stream,
                // A connection reset before accept, or descriptors exhausted for a moment:
                // the listener itself is fine. A short pause keeps the loop from spinning while
                // descriptors are short.
                Err(e) if is_transient(&e) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
                Err(e) => return Err(anyhow::Error::new(e).context("accepting a connection")),
            },
        };
        let exposition = Arc::clone(&exposition);
        let service = service_fn(move |request: Request<Incoming>| {
            let response = respond(&request, &exposition);
            async move { Ok::<_, Infallible>(response) }
        });
        let connection = http1::Builder::new().serve_connection(TokioIo::new(stream), service);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            // A client that hangs up mid-request is its own business.
            let _ = connection.await;
        });
    }
    drop(listener);
    // Connections still open after the grace period are dropped with the runtime.
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, graceful.shutdown()).await;
    Ok(())
}

fn is_transient(e: &std::io::Error) -> bool {
    use std::io::ErrorKind;
    matches!(
        e.kind(),
        ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset | ErrorKind::Interrupted
    ) || matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE))
}
