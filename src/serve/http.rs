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
//!
//! Connections are bounded ([`Limits`]): one that goes [`REQUEST_TIMEOUT`] without a new
//! request is closed (a half-open or idle socket holds nothing for long), and at most
//! [`MAX_CONNECTIONS`] are open at once. A new connection beyond that closes the one that has
//! waited longest for a request, not the new one: a scraper connects and asks at once, so a
//! pile of idle sockets cannot lock it out, and descriptors stay bounded either way.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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

/// How long a connection may go without a complete request (its first, or the next on a kept
/// alive connection) before it is closed. A scrape is one small request; Prometheus reconnects
/// when its kept-alive connection was closed between scrapes.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// Connections open at once; one more closes the one idle longest.
pub const MAX_CONNECTIONS: usize = 64;

/// Connections the kernel queues before they are accepted (Linux caps it at
/// `net.core.somaxconn`). Rust's and tokio's `bind` ask for 128: a burst of connections beyond
/// that has its SYNs dropped and each waits a second to retry, a scrape among them too.
pub const LISTEN_BACKLOG: i32 = 1024;

/// Raises the accept queue of a bound, listening socket to [`LISTEN_BACKLOG`] (`listen(2)` on
/// a socket that listens already sets its backlog anew).
///
/// # Errors
/// The `listen(2)` error.
pub fn widen_backlog(listener: &impl std::os::fd::AsRawFd) -> std::io::Result<()> {
    // SAFETY: listen(2) on a descriptor the caller's listener owns and keeps open; it touches
    // no memory of ours.
    if unsafe { libc::listen(listener.as_raw_fd(), LISTEN_BACKLOG) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// What [`serve_with`] allows each connection, and how many.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub request_timeout: Duration,
    pub max_connections: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            request_timeout: REQUEST_TIMEOUT,
            max_connections: MAX_CONNECTIONS,
        }
    }
}

/// One open connection as the accept loop sees it.
#[derive(Debug, Default)]
struct Conn {
    /// When its last request arrived (or it was accepted), in ms since [`Open::epoch`].
    last_request_ms: AtomicU64,
    /// Closes it: the connection's task ends, dropping the socket.
    close: tokio::sync::Notify,
}

/// The open connections, by id.
#[derive(Debug)]
struct Open {
    epoch: Instant,
    conns: Mutex<HashMap<u64, Arc<Conn>>>,
}

impl Open {
    fn now_ms(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Registers a new connection as `id`, first closing the one idle longest when `max` are
    /// open already; whether one was closed.
    fn admit(&self, id: u64, max: usize) -> (Arc<Conn>, bool) {
        let mut conns = self
            .conns
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut evicted = false;
        while conns.len() >= max.max(1) {
            // Idle longest; of those idle since the same millisecond, the first accepted.
            let Some(oldest) = conns
                .iter()
                .min_by_key(|(id, c)| (c.last_request_ms.load(Ordering::Relaxed), **id))
                .map(|(id, _)| *id)
            else {
                break;
            };
            if let Some(conn) = conns.remove(&oldest) {
                conn.close.notify_one();
                evicted = true;
            }
        }
        let conn = Arc::new(Conn::default());
        conn.last_request_ms.store(self.now_ms(), Ordering::Relaxed);
        conns.insert(id, Arc::clone(&conn));
        (conn, evicted)
    }

    fn remove(&self, id: u64) {
        self.conns
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&id);
    }
}

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

/// Serves `listener` until `shutdown` completes, with the default [`Limits`].
///
/// # Errors
/// Accepting a connection failed for a reason other than a transient one (a reset connection or
/// running out of descriptors is retried).
pub async fn serve(
    listener: TcpListener,
    exposition: Exposition,
    shutdown: impl Future<Output = ()>,
) -> anyhow::Result<()> {
    serve_with(listener, exposition, shutdown, Limits::default()).await
}

/// Serves `listener` until `shutdown` completes, each connection within `limits`.
///
/// # Errors
/// As [`serve`].
pub async fn serve_with(
    listener: TcpListener,
    exposition: Exposition,
    shutdown: impl Future<Output = ()>,
    limits: Limits,
) -> anyhow::Result<()> {
    let exposition = Arc::new(Mutex::new(exposition));
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    let open = Arc::new(Open {
        epoch: Instant::now(),
        conns: Mutex::default(),
    });
    let mut next_id = 0u64;
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
        let id = next_id;
        next_id += 1;
        let (conn, evicted) = open.admit(id, limits.max_connections);
        let exposition = Arc::clone(&exposition);
        let (seen_by, seen) = (Arc::clone(&open), Arc::clone(&conn));
        let service = service_fn(move |request: Request<Incoming>| {
            // Called once the request's head is complete: the connection is in use again.
            seen.last_request_ms
                .store(seen_by.now_ms(), Ordering::Relaxed);
            let response = respond(&request, &exposition);
            async move { Ok::<_, Infallible>(response) }
        });
        let connection = http1::Builder::new().serve_connection(TokioIo::new(stream), service);
        let connection = graceful.watch(connection);
        let open = Arc::clone(&open);
        tokio::spawn(async move {
            let mut connection = std::pin::pin!(connection);
            loop {
                let last = Duration::from_millis(conn.last_request_ms.load(Ordering::Relaxed));
                let deadline = open.epoch + last + limits.request_timeout;
                tokio::select! {
                    // A client that hangs up mid-request is its own business.
                    _ = &mut connection => break,
                    () = conn.close.notified() => break,
                    () = tokio::time::sleep_until(deadline.into()) => {
                        let last = conn.last_request_ms.load(Ordering::Relaxed);
                        if Duration::from_millis(open.now_ms().saturating_sub(last))
                            >= limits.request_timeout
                        {
                            break;
                        }
                    }
                }
            }
            // Dropping the connection closes its socket.
            open.remove(id);
        });
        if evicted {
            // Let the closed connection's task drop its socket before the next accept, so a
            // burst of connections never holds more than the cap of descriptors.
            tokio::task::yield_now().await;
        }
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

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::{SocketAddr, TcpStream};

    use super::*;
    use crate::monitor::sampler::Sampler;

    /// A server on a loopback port the kernel picks, in its own thread; stops when the sender
    /// is dropped.
    fn start(limits: Limits) -> (SocketAddr, tokio::sync::oneshot::Sender<()>) {
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
                addr_tx.send(listener.local_addr().unwrap()).unwrap();
                let exposition = Exposition::new(Sampler::open().unwrap());
                let stop = async move {
                    let _ = stop_rx.await;
                };
                serve_with(listener, exposition, stop, limits)
                    .await
                    .unwrap();
            });
        });
        (addr_rx.recv().unwrap(), stop_tx)
    }

    /// Whether the server closed `stream` within `wait` (a read sees the end).
    fn closed_within(mut stream: &TcpStream, wait: Duration) -> bool {
        stream.set_read_timeout(Some(wait)).unwrap();
        let mut byte = [0u8; 1];
        match stream.read(&mut byte) {
            Ok(0) => true,
            Err(e) => e.kind() == std::io::ErrorKind::ConnectionReset,
            Ok(_) => false,
        }
    }

    fn scrape(addr: SocketAddr) -> String {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        stream
            .write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .unwrap();
        let mut text = String::new();
        stream.read_to_string(&mut text).unwrap();
        text
    }

    #[test]
    fn a_connection_without_a_complete_request_is_closed_after_the_timeout() {
        let limits = Limits {
            request_timeout: Duration::from_millis(300),
            max_connections: 8,
        };
        let (addr, _stop) = start(limits);
        let silent = TcpStream::connect(addr).unwrap();
        let mut half = TcpStream::connect(addr).unwrap();
        half.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
            .unwrap();
        let started = Instant::now();
        assert!(closed_within(&silent, Duration::from_secs(3)));
        assert!(closed_within(&half, Duration::from_secs(3)));
        let took = started.elapsed();
        assert!(took >= Duration::from_millis(250), "closed after {took:?}");
        // A kept-alive connection that asks again in time is served again.
        let mut kept = TcpStream::connect(addr).unwrap();
        kept.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        for _ in 0..3 {
            std::thread::sleep(Duration::from_millis(150));
            kept.write_all(b"HEAD / HTTP/1.1\r\nHost: x\r\n\r\n")
                .unwrap();
            let mut head = [0u8; 12];
            kept.read_exact(&mut head).unwrap();
            assert_eq!(&head, b"HTTP/1.1 200");
            let mut rest = [0u8; 512];
            let _ = kept.read(&mut rest).unwrap();
        }
    }

    #[test]
    fn beyond_the_cap_the_longest_idle_connection_makes_room_for_a_scrape() {
        let limits = Limits {
            request_timeout: Duration::from_secs(60),
            max_connections: 4,
        };
        let (addr, _stop) = start(limits);
        let idle: Vec<TcpStream> = (0..12).map(|_| TcpStream::connect(addr).unwrap()).collect();
        let response = scrape(addr);
        assert!(response.starts_with("HTTP/1.1 200"), "{response}");
        assert!(response.contains("node_disk_"), "{response}");
        // The first idle ones were closed to make room; the cap held.
        let closed = idle
            .iter()
            .filter(|s| closed_within(s, Duration::from_millis(500)))
            .count();
        assert!(closed > 12 - 4, "{closed} of 12 idle connections closed");
    }
}
