//! One file per subcommand: validated input in, the front end chosen, the exit code out.
//! Only this layer (and `cli`) knows clap; the cores below never import it.

pub mod bench;
pub mod compare;
pub mod fio;
pub mod fio_run;
pub mod fleet;
pub mod fleet_copy;
pub mod fleet_remote;
pub mod generate;
pub mod info;
pub mod iostat;
pub mod iostat_args;
pub mod mark;
pub mod monitor;
pub mod serve;
pub mod show;
pub mod sweep;
