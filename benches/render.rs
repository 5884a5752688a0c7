//! Rendering cost of whole dashboard frames (target: a 160x50 frame under 2 ms).
//!
//! `cargo bench --bench render` — each iteration lays out and draws every panel of a fixed
//! live-benchmark view into a `TestBackend` (buffer diff included), like one real frame
//! minus the terminal write.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use diskdash::testing::tui::{render, sample};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn frames(c: &mut Criterion) {
    let mut group = c.benchmark_group("render");
    for (name, view) in [
        ("bench", sample::bench()),
        ("monitor", sample::monitor()),
        ("sweep", sample::sweep()),
    ] {
        for (w, h) in [(80u16, 24u16), (160, 50), (300, 90)] {
            let mut term = Terminal::new(TestBackend::new(w, h)).expect("backend");
            let mut flip = false;
            group.bench_function(format!("{name}_{w}x{h}"), |b| {
                b.iter(|| {
                    // Alternate the log scale so every frame differs and the diff writes cells.
                    let mut v = view.clone();
                    flip = !flip;
                    v.ui.log_scale = flip;
                    term.draw(|f| render(f, black_box(&v))).expect("draw");
                });
            });
        }
    }
    group.finish();
}

criterion_group!(benches, frames);
criterion_main!(benches);
