//! Headless text output: the bench summary and status lines, iostat-style reports.

pub mod bench;
pub mod compare;
pub mod export;
pub mod fio;
pub mod fit;
pub mod fleet;
pub mod headless;
pub mod info;
pub mod iostat;
pub mod mark;
pub mod replay;
pub mod steady;
pub mod sweep;
