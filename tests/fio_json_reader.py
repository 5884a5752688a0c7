#!/usr/bin/env python3
"""Reads a fio JSON document (fio's --output-format=json, or diskdash fio's) from a file or
stdin and prints, per job and direction with I/O, one line:

    jobname rw iops bw_KiB/s runtime_ms clat_mean_us p99_us

The keys a script reading fio's JSON uses; the integration test runs it on both outputs."""
import json
import sys


def main():
    text = open(sys.argv[1]).read() if len(sys.argv) > 1 else sys.stdin.read()
    doc = json.loads(text[text.index("{"):])  # fio may print notes before the document
    for job in doc["jobs"]:
        for rw in ("read", "write", "trim"):
            d = job.get(rw)
            if not d or d["total_ios"] == 0:
                continue
            clat = d.get("clat_ns") or d["lat_ns"]
            p99 = clat.get("percentile", {}).get("99.000000")
            print(job["jobname"], rw, "%.1f" % d["iops"], d["bw"], d["runtime"],
                  "%.2f" % (clat["mean"] / 1000),
                  "-" if p99 is None else "%.2f" % (p99 / 1000))


if __name__ == "__main__":
    main()
