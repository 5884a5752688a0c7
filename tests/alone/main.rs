//! The integration tests that need the machine to themselves, one at a time: an achieved rate
//! (`rate`), a thread starved of its CPU (`session_starved`), 16 jobs x QD64 traced live in a
//! terminal (`tui_trace`), every AIO event of the system (`libaio`), a machine-wide sysctl
//! (`sysctl`), the spread of a real run's interval batches (`compare`), the reports a run's
//! timers make (`fio_intervals`), what the page cache holds (`page_cache`) and a stop told
//! from a starved session in a thinned series (`safety_signals`). Cargo runs test binaries one after another, so
//! nothing of `it` (two tests per CPU) runs beside them; this binary runs one test at a time
//! unless `RUST_TEST_THREADS` or `--test-threads` says otherwise. The same support module as
//! `it`; the same `#[ignore = "needs ..."]` marks. A test belongs here when its check is a
//! rate, a spread, a count of a timer's ticks or a state that other tests' load changes.

#[path = "../it/support/mod.rs"]
mod support;

extern "C" fn test_binary_defaults() {
    // SAFETY: called from .init_array (below), before main, while the process has one thread.
    unsafe { support::set_test_binary_defaults(support::TestsAtOnce::One) }
}

// SAFETY: .init_array holds pointers to functions the loader calls before main with no
// arguments the function reads; `test_binary_defaults` takes none and does not unwind.
#[used]
#[unsafe(link_section = ".init_array")]
static TEST_BINARY_DEFAULTS: extern "C" fn() = test_binary_defaults;

mod compare;
mod fio_intervals;
mod libaio;
mod page_cache;
mod rate;
mod safety_signals;
mod session_starved;
mod sysctl;
mod trace_root;
mod tui_trace;
