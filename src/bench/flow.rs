//! fio's token-based flow control (`flow`, `flow_id`, `flow_sleep`): the workers of the jobs
//! that share a flow id count their I/Os into one counter, and a worker whose share of that
//! counter is above its weight's share of the group's weights holds back.
//!
//! fio's rule (`flow_threshold_exceeded`): held while `mine / counter > weight / weights`;
//! otherwise the I/O is counted in both. A worker's weight joins the group before the common
//! start and leaves when the worker ends, so a job left alone in its group runs freely.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::bench::spec::{Flow, JobSpec};

/// One flow id's shared counts among the jobs that run at the same time.
#[derive(Debug, Default)]
pub struct FlowGroup {
    /// I/Os admitted in the whole group.
    counter: AtomicU64,
    /// The weights of the group's workers still running.
    weights: AtomicU64,
}

impl FlowGroup {
    /// The group of each job (by index), `None` for a job outside flow control: one group per
    /// flow id among these jobs.
    #[must_use]
    pub fn for_jobs<'a>(specs: impl IntoIterator<Item = &'a JobSpec>) -> Vec<Option<Arc<Self>>> {
        let mut groups: Vec<(u32, Arc<Self>)> = Vec::new();
        specs
            .into_iter()
            .map(|spec| {
                let flow = spec.flow?;
                if let Some((_, group)) = groups.iter().find(|(id, _)| *id == flow.id) {
                    return Some(group.clone());
                }
                let group = Arc::new(Self::default());
                groups.push((flow.id, group.clone()));
                Some(group)
            })
            .collect()
    }

    /// Adds one worker of `flow`'s weight; it leaves when the member is dropped.
    #[must_use]
    pub fn join(self: &Arc<Self>, flow: Flow) -> FlowMember {
        self.weights
            .fetch_add(u64::from(flow.weight), Ordering::Relaxed);
        FlowMember {
            group: self.clone(),
            flow,
            mine: 0,
        }
    }
}

/// One worker in a flow group.
#[derive(Debug)]
pub struct FlowMember {
    group: Arc<FlowGroup>,
    pub flow: Flow,
    /// I/Os this worker was admitted.
    mine: u64,
}

impl FlowMember {
    /// True: the next I/O may go, and is counted. False: held back (fio's threshold exceeded).
    pub fn admit(&mut self) -> bool {
        let counter = self.group.counter.load(Ordering::Relaxed);
        let weights = self.group.weights.load(Ordering::Relaxed);
        // As fio: 0/0 is NaN, and NaN > x is false, so the group's first I/O goes.
        let held =
            (self.mine as f64 / counter as f64) > (f64::from(self.flow.weight) / weights as f64);
        if held {
            return false;
        }
        self.group.counter.fetch_add(1, Ordering::Relaxed);
        self.mine += 1;
        true
    }
}

impl Drop for FlowMember {
    fn drop(&mut self) {
        self.group
            .weights
            .fetch_sub(u64::from(self.flow.weight), Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn flow(weight: u32, id: u32) -> Flow {
        Flow {
            weight,
            id,
            sleep: Duration::ZERO,
        }
    }

    /// Admits in turn, always the first member that may go, as racing workers would.
    fn run(members: &mut [FlowMember], ios: usize) -> Vec<u64> {
        let mut done = vec![0u64; members.len()];
        let mut turn = 0;
        for _ in 0..ios {
            let mut tried = 0;
            loop {
                let i = turn % members.len();
                turn += 1;
                if members[i].admit() {
                    done[i] += 1;
                    break;
                }
                tried += 1;
                assert!(tried <= members.len(), "every member held: {done:?}");
            }
        }
        done
    }

    #[test]
    fn weights_share_the_ios() {
        let group = Arc::new(FlowGroup::default());
        let mut members = vec![group.join(flow(1, 0)), group.join(flow(8, 0))];
        let done = run(&mut members, 9000);
        assert_eq!(done, vec![1000, 8000]);
    }

    #[test]
    fn equal_weights_alternate() {
        let group = Arc::new(FlowGroup::default());
        let mut members = vec![group.join(flow(2, 0)), group.join(flow(2, 0))];
        assert_eq!(run(&mut members, 1000), vec![500, 500]);
    }

    #[test]
    fn a_member_left_alone_runs_freely() {
        let group = Arc::new(FlowGroup::default());
        let mut a = group.join(flow(1, 0));
        let b = group.join(flow(3, 0));
        assert!(a.admit(), "the group's first I/O goes");
        assert!(!a.admit(), "1 of 1 is above 1 of 4");
        drop(b);
        for _ in 0..100 {
            assert!(a.admit());
        }
    }

    #[test]
    fn groups_by_flow_id() {
        let spec = |f: Option<Flow>| JobSpec {
            flow: f,
            ..JobSpec::default()
        };
        let specs = [
            spec(Some(flow(1, 0))),
            spec(None),
            spec(Some(flow(1, 7))),
            spec(Some(flow(2, 0))),
        ];
        let groups = FlowGroup::for_jobs(&specs);
        assert!(groups[1].is_none());
        let (a, c, d) = (
            groups[0].as_ref().unwrap(),
            groups[2].as_ref().unwrap(),
            groups[3].as_ref().unwrap(),
        );
        assert!(Arc::ptr_eq(a, d));
        assert!(!Arc::ptr_eq(a, c));
    }
}
