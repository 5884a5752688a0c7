//! The integration tests: the real binary on real files, loop devices, terminals (tmux) and
//! /proc. One test crate, so a cold build links one binary. Tests that need root, tmux or a
//! Prometheus server are `#[ignore = "needs ..."]`; CI runs them with `--include-ignored` as root
//! with tmux and prometheus installed, and elsewhere they show as ignored instead of passing
//! without running.
//!
//! `it` runs two tests per CPU (see `support::set_test_binary_defaults`); the tests that need
//! the machine to themselves are in `tests/alone/`, which cargo runs after or before this
//! binary, never beside it.

mod support;

extern "C" fn test_binary_defaults() {
    // SAFETY: called from .init_array (below), before main, while the process has one thread.
    unsafe { support::set_test_binary_defaults(support::TestsAtOnce::TwoPerCpu) }
}

// SAFETY: .init_array holds pointers to functions the loader calls before main with no
// arguments the function reads; `test_binary_defaults` takes none and does not unwind (an
// error of `available_parallelism` is mapped, `set_var` of a valid name and value cannot fail).
#[used]
#[unsafe(link_section = ".init_array")]
static TEST_BINARY_DEFAULTS: extern "C" fn() = test_binary_defaults;

mod architecture;
mod batch;
mod bench;
mod bench_root;
mod bench_serve;
mod bench_session;
mod compare;
mod docs;
mod drive;
mod endings;
mod fallback;
mod fio_backlog;
mod fio_clones;
mod fio_cmdhelp;
mod fio_data;
mod fio_defaults;
mod fio_depths;
mod fio_errors;
mod fio_fidelity;
mod fio_json;
mod fio_latency;
mod fio_layout;
mod fio_link;
mod fio_logs;
mod fio_meta;
mod fio_nrfiles;
mod fio_options;
mod fio_output;
mod fio_parse;
mod fio_plot;
mod fio_prio;
mod fio_run;
mod fio_seqrw;
mod fio_sg;
mod fio_surface;
mod fio_text;
mod fio_world;
mod fio_wrappers;
mod fio_zbd;
mod fleet;
mod generate;
mod info;
mod interval;
mod iostat;
mod iostat_loop;
mod job_windows;
mod libaio;
mod machine;
mod mark;
mod monitor_record;
mod rate;
mod report;
mod safety_fleet;
mod safety_gate;
mod safety_input;
mod safety_jobfile;
mod safety_labels;
mod safety_limits;
mod safety_output;
mod safety_signals;
mod safety_stack;
mod safety_target;
mod schema;
mod serve;
mod steady;
mod sweep;
mod trace;
mod trace_watch;
mod trim;
mod tui_bench;
mod tui_guard;
mod tui_monitor;
mod tui_narrow;
mod tui_plan;
mod tui_record;
mod tui_show;
mod tui_sweep;
mod uring_options;
mod verify;
