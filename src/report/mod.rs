//! Headless text output: the bench summary and status lines, iostat-style reports.

pub mod bench;
pub mod compare;
pub mod info;
pub mod info_text;
pub mod iostat;
pub mod iostat_args;
pub mod iostat_text;
