//! Latency histograms and counters: per-worker, merged per interval.
