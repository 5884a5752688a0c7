//! Fleet hosts that hang, go silent or send garbage: deadlines, heartbeats, line caps and what the host did wrong.
