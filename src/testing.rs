//! The crate's insides that its integration tests (`tests/`) and benches (`benches/`) reach,
//! grouped by the module each item lives in. Only the `fixtures` feature builds it: the crate's
//! dev-dependency on itself turns it on, a release build never has it.
//!
//! Everything else in the crate is private, which is what lets the compiler's `dead_code` lint
//! see it whole; so keep this small. A test that can run the binary, or [`crate::run`] in the
//! test's process (`tests/it/support/inproc.rs`), needs nothing here. What is here is what a test
//! cannot reach that way: a session driven step by step, the fio loader's plan, a view built
//! from a record, fixture snapshots drawn on a test terminal, and the benches' hot functions.

/// The option check and the job spec a session test builds its plan from; the verify bench's
/// pattern writer and checker.
pub mod bench {
    pub use crate::bench::options::{JobOption, Key, validate};
    pub use crate::bench::spec::{JobSpec, MachineLimits, RwMode};

    /// `benches/verify_speed.rs`: filling and checking blocks.
    pub mod verify {
        pub use crate::bench::verify::{BlockId, Expect, Kind, check, fill};
    }
}

/// Exit codes and the one-line form of an error, as `main` prints them.
pub mod error {
    pub use crate::error::{exit_code, one_line};
}

/// `diskdash fio`'s loader and the plan it shows for `--parse-only`.
pub mod fio {
    pub use crate::fio::load;
    pub use crate::fio::show::plan;
}

/// The monitor's readers, for the iostat and scrape benches.
pub mod monitor {
    pub use crate::monitor::diskstats::DiskstatsReader;
    pub use crate::monitor::iostat::rows_between;
    pub use crate::monitor::sampler::Sampler;
    pub use crate::monitor::sysfs::QueueSettings;
}

/// The plan a session test runs.
pub mod plan {
    pub use crate::plan::{Job, Missing, Plan, Step};
}

/// Loading a record back.
pub mod record {
    pub use crate::record::{Loaded, RunStatus, load_any};
}

/// The endpoint's exposition, for the scrape bench.
pub mod serve {
    pub use crate::serve::bench::{RunScrape, le_seconds};
    pub use crate::serve::filter::DeviceFilter;
    pub use crate::serve::format::openmetrics_to_text;
    pub use crate::serve::metrics::{DiskSettings, openmetrics, openmetrics_of};
    pub use crate::serve::scrape_of;
}

/// A session started, controlled and awaited from a test.
pub mod session {
    pub use crate::session::{
        Control, Session, SessionHandle, SessionOptions, SessionOutcome, SessionState, Snapshot,
        add_to_run,
    };
}

/// The dashboard's terminal, its frame, its fixture snapshots and a view built from a record.
pub mod tui {
    pub use crate::tui::terminal::TerminalGuard;
    pub use crate::tui::ui::{render, sample};
    pub use crate::tui::view::UiState;
    pub use crate::tui::view::from_record::view_of_job;
}
