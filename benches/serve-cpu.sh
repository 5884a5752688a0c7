#!/usr/bin/env bash
# CPU of `diskdash serve` against node_exporter's diskstats collector
# (`prometheus-node-exporter --collector.disable-defaults --collector.diskstats`), the two side by
# side on the same /proc/diskstats:
#
#   idle    both running, nobody scraping, for DURATION seconds (after one scrape each)
#   scrape  SCRAPES scrapes of each on one keep-alive connection with Prometheus's request
#           headers (OpenMetrics asked for, gzip accepted: node_exporter compresses, diskdash
#           does not; GZIP=0 leaves gzip out), one server after the other, the order alternated
#           every round
#
# CPU is the process's user + system time from /proc/PID/stat (utime + stime, every thread,
# clock ticks), so the kernel's work of printing /proc/diskstats counts for both.
#
# DISKS=100 (the default) runs both servers in a private mount namespace where a generated
# /proc/diskstats of 100 NVMe namespaces (20-field lines, busy-looking counters) is bind-mounted
# over the real one: the 100-disk scrape without 100 disks (needs root). DISKS=real serves this
# machine's own disks.
#
#   benches/serve-cpu.sh                                  # 3 rounds, 60 s idle, 1000 scrapes
#   DISKS=real ROUNDS=5 DURATION=30 SCRAPES=500 benches/serve-cpu.sh
#   BIN=target/release/diskdash benches/serve-cpu.sh      # no build first
#   GZIP=0 DURATION=5 benches/serve-cpu.sh                # scrapes without compression
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-60}
SCRAPES=${SCRAPES:-1000}
DISKS=${DISKS:-100}
GZIP=${GZIP:-1}

need=()
command -v prometheus-node-exporter >/dev/null || need+=(prometheus-node-exporter)
command -v curl >/dev/null || need+=(curl)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"
fi
# BIN=path/to/diskdash measures a binary built already (release, as here).
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet
  BIN=$PWD/target/release/diskdash
fi
WORK=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
TICK=$(getconf CLK_TCK)

# The server command as run: in a namespace of its own with the generated diskstats, or as is.
wrap=()
if [ "$DISKS" != real ]; then
  awk -v n="$DISKS" 'BEGIN {
    for (i = 0; i < n; i++) {
      c = 1000000 + i * 7919
      printf " 259 %d nvme%dn1 %d %d %d %d %d %d %d %d 3 %d %d %d 0 %d %d %d %d\n", i, i,
        c, int(c/10), c*8, int(c/3), c, int(c/9), c*16, int(c/2), int(c/4), c, int(c/100),
        c*64, int(c/50), int(c/20), int(c/30)
    } }' > "$WORK/diskstats"
  wrap=(unshare -m sh -c 'mount --bind "$0" /proc/diskstats && exec "$@"' "$WORK/diskstats")
fi

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# utime + stime of every thread of the process, in clock ticks.
cpu_ticks() { sed 's/^.*) //' /proc/"$1"/stat | awk '{ print $12 + $13 }'; }
ACCEPT='application/openmetrics-text;version=1.0.0;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2'
ENCODING=()
[ "$GZIP" = 0 ] || ENCODING=(-H 'Accept-Encoding: gzip')
scrape() { # url count
  curl -sS -H "Accept: $ACCEPT" "${ENCODING[@]}" "$1?n=[1-$2]" > /dev/null
}

results=()
for round in $(seq 1 "$ROUNDS"); do
  "${wrap[@]}" "$BIN" serve --listen 127.0.0.1:0 > "$WORK/dash.out" &
  dash=$!; pids+=("$dash")
  nport=$(free_port)
  "${wrap[@]}" prometheus-node-exporter --collector.disable-defaults --collector.diskstats \
    --web.listen-address="127.0.0.1:$nport" > "$WORK/node.log" 2>&1 &
  node=$!; pids+=("$node")
  for _ in $(seq 1 100); do
    grep -q listening "$WORK/dash.out" 2>/dev/null && curl -s "http://127.0.0.1:$nport/" >/dev/null && break
    sleep 0.1
  done
  durl=$(sed -n 's/^diskdash serve: listening on //p' "$WORK/dash.out")
  nurl="http://127.0.0.1:$nport/metrics"
  scrape "$durl" 1; scrape "$nurl" 1
  disks_served=$(curl -s "$durl" | grep -c '^node_disk_reads_completed_total{' || true)
  node_disks=$(curl -s "$nurl" | grep -c '^node_disk_reads_completed_total{' || true)
  sleep 2
  a0=$(cpu_ticks "$dash"); b0=$(cpu_ticks "$node")
  sleep "$DURATION"
  a1=$(cpu_ticks "$dash"); b1=$(cpu_ticks "$node")
  if (( round % 2 )); then order=(dash node); else order=(node dash); fi
  for who in "${order[@]}"; do
    if [ "$who" = dash ]; then
      s0=$(cpu_ticks "$dash"); scrape "$durl" "$SCRAPES"; s1=$(cpu_ticks "$dash"); sa=$((s1 - s0))
    else
      s0=$(cpu_ticks "$node"); scrape "$nurl" "$SCRAPES"; s1=$(cpu_ticks "$node"); sb=$((s1 - s0))
    fi
  done
  kill "$dash" "$node"; wait "$dash" "$node" 2>/dev/null || true; pids=()
  line=$(awk -v ia=$((a1 - a0)) -v ib=$((b1 - b0)) -v sa="$sa" -v sb="$sb" -v t="$TICK" \
    -v d="$DURATION" -v n="$SCRAPES" 'BEGIN {
    pa = 100 * ia / t / d; pb = 100 * ib / t / d
    ma = 1000 * sa / t / n; mb = 1000 * sb / t / n
    printf "%.3f %.3f %.3f %.3f %s", pa, pb, ma, mb, (mb > 0 ? sprintf("%.2f", ma / mb) : "inf") }')
  read -r pa pb ma mb ratio <<< "$line"
  echo "round $round (disks served: diskdash $disks_served, node_exporter $node_disks; first: ${order[0]}): idle diskdash $pa% node_exporter $pb% of a core; scrape diskdash $ma ms node_exporter $mb ms of CPU (ratio $ratio)"
  results+=("$line")
done

# Median and range of column $1 of the results.
summary() {
  printf '%s\n' "${results[@]}" | awk -v c="$1" '{ print $c }' | sort -g | awk '
    { v[NR] = $1 } END { printf "median %s (range %s-%s)", v[int((NR + 1) / 2)], v[1], v[NR] }'
}
echo "idle, % of one core over ${DURATION}s:  diskdash serve $(summary 1); node_exporter $(summary 2)"
echo "CPU per scrape, ms ($SCRAPES scrapes): diskdash serve $(summary 3); node_exporter $(summary 4)"
echo "scrape CPU ratio diskdash / node_exporter: $(summary 5)"
