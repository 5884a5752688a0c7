//! A take's disk as the record keeps it.

use super::TraceCost;
use super::matcher::{BlockTrace, DirTrace};
use crate::record::{
    BlockDirectionRecord, BlockProcessRecord, BlockTraceRecord, LatencyRecord, TracerCostRecord,
};

fn direction(dir: &DirTrace) -> Option<BlockDirectionRecord> {
    (dir.requests > 0 || dir.merges > 0 || dir.wait_request.count() > 0).then(|| {
        BlockDirectionRecord {
            requests: dir.requests,
            bytes: dir.bytes,
            merges: dir.merges,
            wait_request: LatencyRecord::from(&dir.wait_request.summary()),
            scheduler: LatencyRecord::from(&dir.scheduler.summary()),
            device: LatencyRecord::from(&dir.device.summary()),
            whole: LatencyRecord::from(&dir.whole.summary()),
            size: LatencyRecord::from(&dir.sizes.summary()),
        }
    })
}

/// `trace`'s record, with the tracer's `cost` over the same window.
#[must_use]
pub fn block_trace_record(trace: &BlockTrace, cost: Option<&TraceCost>) -> BlockTraceRecord {
    BlockTraceRecord {
        disk: trace.disk.clone(),
        scope: trace.scope.as_str().to_string(),
        whole_nearest: trace.whole_nearest,
        wait_request_traced: trace.wait_request_traced,
        lost_events: trace.lost_events,
        ambiguous_matches: trace.ambiguous_matches,
        unmatched: trace.unmatched,
        requests: trace.requests(),
        read: direction(&trace.dirs[0]),
        write: direction(&trace.dirs[1]),
        trim: direction(&trace.dirs[2]),
        by_process: trace
            .by_process
            .iter()
            .map(|p| BlockProcessRecord {
                pid: p.pid,
                comm: p.comm.clone(),
                kernel: p.kernel,
                ios: p.ios,
                bytes: p.bytes,
                device_time_ns: p.device_time_ns,
            })
            .collect(),
        tracer: cost.map(|c| TracerCostRecord {
            events: c.events,
            events_per_s: c.events_per_s(),
            cpu_ns: c.cpu_ns,
            cpu_ns_per_event: if c.events == 0 {
                0.0
            } else {
                c.cpu_ns as f64 / c.events as f64
            },
            malformed: c.malformed,
        }),
    }
}
