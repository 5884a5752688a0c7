#!/usr/bin/env bash
# The report's plotting crate, chosen on measurement: plotters 0.3.7 (SVG backend only, no font
# backend) against poloto 19 (pure-Rust SVG), each in a scratch binary built as diskdash's release
# profile (fat LTO, one codegen unit). Prints each binary's size less an empty program's (what the
# crate adds), and the time to draw one 800x300 line chart of 100,000 points into an SVG string
# (best of RUNS) with the SVG's size.
#
#   benches/report_crates.sh            # needs both crates from crates.io (or the cargo cache)
#   POINTS=1000000 RUNS=5 benches/report_crates.sh
set -euo pipefail
POINTS=${POINTS:-100000}
RUNS=${RUNS:-3}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
profile='[profile.release]
lto = "fat"
codegen-units = 1'
make() { # NAME DEPENDENCY MAIN
  mkdir -p "$WORK/$1/src"
  printf '[package]\nname = "%s"\nversion = "0.0.0"\nedition = "2021"\n[dependencies]\n%s\n%s\n' \
    "$1" "$2" "$profile" >"$WORK/$1/Cargo.toml"
  printf '%s\n' "$3" >"$WORK/$1/src/main.rs"
  (cd "$WORK/$1" && cargo build --release --quiet)
}
points='let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let pts: Vec<(f64, f64)> = (0..n).map(|i| (i as f64, ((i * 7919) % 1000) as f64)).collect();'
make none "" "fn main() { $points let s: f64 = pts.iter().map(|p| p.1).sum(); eprintln!(\"{s}\"); }"
make plotters 'plotters = { version = "0.3.7", default-features = false, features = ["svg_backend", "line_series"] }' "
use plotters::prelude::*;
fn main() {
    $points
    let t = std::time::Instant::now();
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (800, 300)).into_drawing_area();
        let mut chart = ChartBuilder::on(&root).margin(10).x_label_area_size(30).y_label_area_size(50)
            .build_cartesian_2d(0f64..n as f64, 0f64..1000f64).unwrap();
        chart.configure_mesh().x_desc(\"time (s)\").y_desc(\"IOPS\").draw().unwrap();
        chart.draw_series(LineSeries::new(pts.iter().copied(), &BLUE)).unwrap();
        root.present().unwrap();
    }
    println!(\"{} {}\", t.elapsed().as_secs_f64() * 1e3, out.len());
}"
make poloto 'poloto = "19"' "
fn main() {
    $points
    let t = std::time::Instant::now();
    let plots = poloto::plots!(poloto::build::plot(\"iops\").line(pts.iter().copied()));
    let out = poloto::frame_build().data(plots).build_and_label((\"chart\", \"time (s)\", \"IOPS\"))
        .append_to(poloto::header().light_theme()).render_string().unwrap();
    println!(\"{} {}\", t.elapsed().as_secs_f64() * 1e3, out.len());
}"
base=$(stat -c %s "$WORK/none/target/release/none")
printf '%-9s %12s %14s %10s\n' crate "adds (bytes)" "draw (ms)" "svg (bytes)"
for crate in plotters poloto; do
  bin="$WORK/$crate/target/release/$crate"
  best=""
  for _ in $(seq "$RUNS"); do
    read -r ms bytes < <("$bin" "$POINTS")
    if [ -z "$best" ] || awk "BEGIN{exit !($ms < $best)}"; then best=$ms; fi
  done
  printf '%-9s %12d %14.1f %10d\n' "$crate" $(( $(stat -c %s "$bin") - base )) "$best" "$bytes"
done
echo "system libraries linked by plotters' build: $(cd "$WORK/plotters" && cargo tree -e normal --prefix none | grep -ciE 'fontconfig|freetype|servo' || true)"
