//! Where the dashboard's frames come from: the device monitor (`diskdash`), a running
//! session (`diskdash bench`), a running fleet (`diskdash fleet`), a recorded run or a
//! monitor recording (`diskdash show`). Each implements [`crate::tui::event::Source`] and
//! builds a view with the builders in `tui::view`.

pub mod bench;
pub mod fleet;
pub mod monitor;
pub mod record;
pub mod replay;
