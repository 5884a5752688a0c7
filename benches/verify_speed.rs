//! How fast the verification block format fills and checks blocks, per kind and block size,
//! on one core: `cargo bench --bench verify_speed` (512 MiB per cell; `VERIFY_MIB` changes it).
//! A write with `--verify` fills its block first and a verifying read checks it, so these are
//! the ceilings verification puts on one worker.

use std::hint::black_box;
use std::time::Instant;

use diskdash::testing::bench::verify::{BlockId, Expect, Kind, check, fill};

fn main() {
    let bytes_per_cell: usize = std::env::var("VERIFY_MIB")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(512)
        << 20;
    for kind in Kind::ALL {
        for len in [4usize << 10, 64 << 10, 1 << 20] {
            let mut buf = vec![0u8; len];
            let rounds = (bytes_per_cell / len).max(1);
            let id = |offset: u64| BlockId {
                offset,
                job: 0,
                generation: 1,
                seed: 42,
            };
            let start = Instant::now();
            for round in 0..rounds {
                fill(black_box(&mut buf), kind, &id((round * len) as u64));
            }
            let fill_s = start.elapsed().as_secs_f64();
            let expected = Expect {
                offset: ((rounds - 1) * len) as u64,
                job: 0,
                seed: 42,
                generation: Some(1),
            };
            let start = Instant::now();
            for _ in 0..rounds {
                assert!(check(black_box(&buf), kind, &expected).is_ok());
            }
            let check_s = start.elapsed().as_secs_f64();
            let gb = (rounds * len) as f64 / 1e9;
            println!(
                "{:8} {:>5} KiB: fill {:6.2} GB/s, check {:6.2} GB/s",
                kind.as_str(),
                len >> 10,
                gb / fill_s,
                gb / check_s
            );
        }
    }
}
