//! Wires workers, the device monitor and the aggregator; publishes `watch<Arc<Snapshot>>`.
