#!/usr/bin/env python3
"""Checks `xtrace timeline-ranks --json` against an independent computation written from
Holistic Trace Analysis's definitions (HTA's docs/source/features and the code they describe:
kernel types by name with HTA's regular expressions, float timestamps rounded to whole
microseconds - starts up, ends down -, GPU work launched in the last ProfilerStep left out,
merged intervals for the temporal breakdown, the communication/computation overlap and the
kernel type breakdown), with the departures documented in docs/TIMELINE.md. Standard library
only (no pandas).

1. Every corpus trace with GPU events (../shared/corpus/chrome/hta and /kineto) is analysed on
   its own and every figure of the JSON compared.
2. A 4-rank set is built from one real trace (copies with their own rank and clock offset); one
   rank gets a known delay inserted inside one step. That rank must be the step's slowest rank,
   with a skew, an extra step duration and an extra idle time all equal to the delay.

usage: check_ranks_hta.py XTRACE SHARED_DIR     (exit 77 = skipped: no corpus)
"""
import gzip
import json
import math
import os
import re
import subprocess
import sys
import tempfile
from decimal import Decimal

XTRACE, SHARED = sys.argv[1], sys.argv[2]
CORPUS = os.path.join(SHARED, "corpus", "chrome")
if not os.path.isdir(os.path.join(CORPUS, "hta")):
    print(f"skipped: no corpus under {CORPUS}")
    sys.exit(77)

# HTA's hta/utils/utils.py
NCCL_KERNEL_RE = re.compile(r"^nccl.*Kernel")
MEMORY_KERNEL_RE = re.compile(r"(^Memcpy)|(^Memset)|(^dma)")
NCCL_COMPUTE_KERNEL_RE = re.compile(r"(^nccl.*Kernel)|(.*(Memcpy)|(Memset))|(.*Sync)")


def kernel_type(name):
    if NCCL_KERNEL_RE.match(name):
        return "COMMUNICATION"
    if MEMORY_KERNEL_RE.match(name):
        return "MEMORY"
    if not NCCL_COMPUTE_KERNEL_RE.match(name):
        return "COMPUTATION"
    return "OTHER"


GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset"}
RUNTIME_CATS = {"cuda_runtime", "cuda_driver", "runtime", "driver"}
KERNEL_WAIT_US = 30  # HTA's consecutive_kernel_delay (trace units: us)
RUNTIME_CUTOFF_US, LAUNCH_DELAY_CUTOFF_US = 50, 100


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        return json.loads(f.read(), parse_float=Decimal)


def merge(intervals):
    """HTA's merge_kernel_intervals: sorted, overlapping or touching intervals joined."""
    out = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def total(merged):
    return sum(e - s for s, e in merged)


def percentile(values, p):
    v = sorted(values)
    pos = p / 100 * (len(v) - 1)
    lo, hi = math.floor(pos), math.ceil(pos)
    return float(v[lo]) + float(v[hi] - v[lo]) * (pos - lo)


def first_number(tid):
    m = re.search(r"\d+", str(tid))
    return int(m.group(0)) if m else -1


def analyse(trace):
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    timed = [e for e in events if e.get("ph") in ("X", "i", "I") and e.get("ts") is not None]
    rounding = any(Decimal(e["ts"]) != Decimal(e["ts"]).to_integral_value() for e in timed)

    def start(e):
        t = Decimal(e["ts"])
        return math.ceil(t) if rounding else t

    def end(e):
        t = Decimal(e["ts"]) + Decimal(e.get("dur", 0))
        return max(math.floor(t), start(e)) if rounding else t

    xs = [e for e in events if e.get("ph") == "X" and e.get("ts") is not None]
    gpu = [e for e in xs if str(e.get("cat", "")).lower() in GPU_CATS]
    runtime = {}
    for e in xs:
        c = (e.get("args") or {}).get("correlation")
        if str(e.get("cat", "")).lower() in RUNTIME_CATS and isinstance(c, int):
            runtime.setdefault(c, e)
    markers = [e for e in xs if str(e.get("name", "")).startswith("ProfilerStep#")
               and str(e.get("cat", "")).lower() not in GPU_CATS | RUNTIME_CATS
               and not str(e.get("cat", "")).lower().startswith("gpu_")]
    markers.sort(key=start)

    rows = []
    for e in gpu:
        c = (e.get("args") or {}).get("correlation")
        r = runtime.get(c) if isinstance(c, int) else None
        rows.append(dict(name=e["name"], type=kernel_type(e["name"]), stream=first_number(e["tid"]),
                         s=start(e), e=end(e), rs=start(r) if r else None, re=end(r) if r else None))
    used = rows
    if len(markers) >= 2 and any(k["rs"] is not None for k in rows):
        last = max(start(m) for m in markers)
        used = [k for k in rows if k["rs"] is not None and k["rs"] < last]

    out = {}
    # Temporal breakdown (HTA get_temporal_breakdown).
    if used:
        merged = merge([(k["s"], k["e"]) for k in used])
        window = merged[-1][1] - merged[0][0]
        idle = window - total(merged)
        comp = total(merge([(k["s"], k["e"]) for k in used if k["type"] == "COMPUTATION"]))
    else:
        window = idle = comp = 0
    out["temporal"] = dict(window_us=window, idle_us=idle, compute_us=comp,
                           non_compute_us=window - comp - idle)
    for key, v in (("idle", idle), ("compute", comp), ("non_compute", window - comp - idle)):
        out["temporal"][key + "_pct"] = round(100 * v / window, 2) if window else None

    # Communication / computation overlap (HTA get_comm_comp_overlap: status 1 comm, 2 comp).
    comm_m = merge([(k["s"], k["e"]) for k in used if k["type"] == "COMMUNICATION"])
    comp_m = merge([(k["s"], k["e"]) for k in used if k["type"] == "COMPUTATION"])
    status = sorted([(s, 1) for s, _ in comm_m] + [(e, -1) for _, e in comm_m] +
                    [(s, 2) for s, _ in comp_m] + [(e, -2) for _, e in comp_m])
    running, overlap = 0, 0
    for i, (t, d) in enumerate(status):
        running += d
        if running == 3 and i + 1 < len(status):
            overlap += status[i + 1][0] - t
    out["comm_comp_overlap_pct"] = round(100 * overlap / total(comm_m), 2) if comm_m else None

    # Kernel type breakdown (HTA _get_gpu_kernel_type_time, memory kernels included).
    bits = {"COMPUTATION": 1, "COMMUNICATION": 2, "MEMORY": 4}
    status = []
    for name, bit in bits.items():
        for s, e in merge([(k["s"], k["e"]) for k in used if k["type"] == name]):
            status += [(s, bit), (e, -bit)]
    status.sort()
    by_mask, running = {}, 0
    for i, (t, d) in enumerate(status):
        running += d
        if running > 0 and i + 1 < len(status):
            by_mask[running] = by_mask.get(running, 0) + status[i + 1][0] - t

    def label(mask):
        return " overlapping ".join(n for n, b in bits.items() if mask & b)

    out["kernel_types"] = {label(m): by_mask.get(m, 0) for m in range(1, 8)}

    # Idle time by cause per stream (HTA _analyze_idle_time_for_stream; gaps from the latest end).
    idle_by = {}
    for stream in sorted({k["stream"] for k in used}):
        ks = sorted((k for k in used if k["stream"] == stream), key=lambda k: (k["s"], k["e"]))
        host = kern = other = 0
        prev_end = ks[0]["e"]
        for k in ks[1:]:
            gap = k["s"] - prev_end
            if gap > 0:
                if k["rs"] is not None and k["rs"] > prev_end:
                    host += gap
                elif gap < KERNEL_WAIT_US:
                    kern += gap
                else:
                    other += gap
            prev_end = max(prev_end, k["e"])
        idle_by[stream] = dict(host_wait_us=host, kernel_wait_us=kern, other_us=other)
    out["idle_by_cause"] = idle_by

    # Kernel launch statistics (HTA cuda_kernel_launch_stats; delay = GPU start - CPU end).
    launched = [k for k in used if k["rs"] is not None]
    delays = [k["s"] - k["re"] for k in launched]
    cpu = [k["re"] - k["rs"] for k in launched]
    gpu_d = [k["e"] - k["s"] for k in launched]
    out["launch"] = dict(
        kernels=len(launched),
        launch_delay_p50_us=percentile(delays, 50) if delays else None,
        launch_delay_p95_us=percentile(delays, 95) if delays else None,
        short_kernels=sum(1 for c, g in zip(cpu, gpu_d) if c <= RUNTIME_CUTOFF_US and g < c),
        runtime_outliers=sum(1 for c in cpu if c > RUNTIME_CUTOFF_US),
        launch_delay_outliers=sum(1 for d in delays if d > LAUNCH_DELAY_CUTOFF_US))

    # Steps: step window minus the union of every GPU event.
    all_merged = merge([(k["s"], k["e"]) for k in rows])
    steps = []
    for m in markers:
        s, e = start(m), end(m)
        busy = sum(max(0, min(b, e) - max(a, s)) for a, b in all_merged)
        steps.append(dict(name=m["name"], dur_us=e - s, idle_us=e - s - busy))
    out["steps"] = steps

    kernels = {}
    for k in used:
        st = kernels.setdefault(k["name"], dict(type=k["type"], count=0, sum=0, min=None, max=None))
        d = k["e"] - k["s"]
        st["count"] += 1
        st["sum"] += d
        st["min"] = d if st["min"] is None else min(st["min"], d)
        st["max"] = d if st["max"] is None else max(st["max"], d)
    out["kernels"] = kernels
    return out


failures = []


def close(a, b, what, tol=1e-3):
    if a is None or b is None:
        if a is not b:
            failures.append(f"{what}: xtrace {a!r}, expected {b!r}")
        return
    if abs(float(a) - float(b)) > tol:
        failures.append(f"{what}: xtrace {a!r}, expected {b!r}")


def xtrace_json(*paths):
    out = subprocess.check_output([XTRACE, "timeline-ranks", "--json", *paths])
    return json.loads(out)


def compare(path, expected, got, tag):
    t = got["temporal"]
    for k, v in expected["temporal"].items():
        close(t[k], v, f"{tag} temporal.{k}", 0.011 if k.endswith("pct") else 1e-3)
    close(got["comm_comp_overlap_pct"], expected["comm_comp_overlap_pct"], f"{tag} overlap", 0.011)
    for label, v in expected["kernel_types"].items():
        close(got["kernel_types"].get(label, 0), v, f"{tag} kernel_types[{label}]")
    streams = {s["stream"]: s for s in got["idle_by_cause"]}
    if set(streams) != set(expected["idle_by_cause"]):
        failures.append(f"{tag} streams {sorted(streams)} != {sorted(expected['idle_by_cause'])}")
    for stream, v in expected["idle_by_cause"].items():
        for k, x in v.items():
            close(streams.get(stream, {}).get(k), x, f"{tag} stream {stream} {k}")
    for k, v in expected["launch"].items():
        close(got["launch"][k], v, f"{tag} launch.{k}")
    if [s["name"] for s in got["steps"]] != [s["name"] for s in expected["steps"]]:
        failures.append(f"{tag} steps differ")
    for g, e in zip(got["steps"], expected["steps"]):
        close(g["dur_us"], e["dur_us"], f"{tag} {e['name']} dur")
        close(g["idle_us"], e["idle_us"], f"{tag} {e['name']} idle")


checked = 0
for folder in ("hta", "kineto"):
    for name in sorted(os.listdir(os.path.join(CORPUS, folder))):
        path = os.path.join(CORPUS, folder, name)
        expected = analyse(load(path))
        report = xtrace_json(path)
        assert len(report["ranks"]) == 1, report
        got = report["ranks"][0]
        compare(path, expected, got, name)
        for k in report["top_kernels"]:
            e = expected["kernels"].get(k["name"])
            if e is None:
                failures.append(f"{name}: top kernel {k['name']} not expected")
                continue
            (r,) = k["by_rank"].values()
            assert r["count"] == e["count"], (k, e)
            close(r["sum_us"], e["sum"], f"{name} {k['name']} sum")
            close(r["min_us"], e["min"], f"{name} {k['name']} min")
            close(r["max_us"], e["max"], f"{name} {k['name']} max")
        checked += 1
print(f"{checked} corpus traces compared")

# 2. Four ranks from one real trace; rank 2 gets a delay inside one step.
SOURCE = os.path.join(CORPUS, "kineto",
                      "samples__resnet50_num_workers_0__worker0.1623143566756.pt.trace.json.gz")
DELAY_US = 5000
trace = load(SOURCE)
base = analyse(trace)
steps = sorted((e for e in trace["traceEvents"] if str(e.get("name", "")).startswith("ProfilerStep#")
                and e.get("ph") == "X"), key=lambda e: e["ts"])
target = steps[2]  # not the last step, so HTA's figures include it
gpu = sorted((e for e in trace["traceEvents"] if e.get("ph") == "X" and
              str(e.get("cat", "")).lower() in GPU_CATS), key=lambda e: e["ts"])
# The delay goes at the end of a GPU event inside the step that is followed by a gap, so no
# GPU event is running at that moment.
cut = None
for a, b in zip(gpu, gpu[1:]):
    end_a = a["ts"] + a["dur"]
    if target["ts"] < end_a < target["ts"] + target["dur"] and b["ts"] > end_a and \
            all(not (g["ts"] < end_a < g["ts"] + g["dur"]) for g in gpu):
        cut = end_a
        break
assert cut is not None


def shifted(offset, delay):
    out = dict(trace)
    evs = []
    for e in trace["traceEvents"]:
        e = dict(e)
        if "ts" in e and e["ts"] is not None:
            if delay and e["ts"] >= cut:
                e["ts"] += delay
            elif delay and e.get("ph") == "X" and e["ts"] < cut < e["ts"] + e.get("dur", 0):
                e["dur"] += delay  # what was running on the CPU takes longer
            e["ts"] += offset
        evs.append(e)
    out["traceEvents"] = evs
    return out


def default(o):
    if isinstance(o, Decimal):
        return int(o) if o == o.to_integral_value() else float(o)
    raise TypeError(o)


with tempfile.TemporaryDirectory(prefix="xt_ranks_") as tmp:
    for rank in range(4):
        t = shifted(offset=rank * 1_000_003, delay=DELAY_US if rank == 2 else 0)
        t["distributedInfo"] = {"backend": "nccl", "rank": rank, "world_size": 4}
        with gzip.open(os.path.join(tmp, f"trace_{3 - rank}.json.gz"), "wt", compresslevel=1) as f:
            json.dump(t, f, default=default)
    report = xtrace_json(tmp)
assert [r["rank"] for r in report["ranks"]] == [0, 1, 2, 3], report["ranks"]
assert all(r["rank_source"] == "distributedInfo" for r in report["ranks"])
assert report["missing_ranks"] == []
by_step = {s["name"]: s for s in report["steps"]}
s = by_step[target["name"]]
if s["slowest_rank"] != 2 or abs(s["skew_us"] - DELAY_US) > 1e-6:
    failures.append(f"straggler of {target['name']}: {s}")
for name, st in by_step.items():
    if name != target["name"] and st["skew_us"] != 0:
        failures.append(f"step {name} has skew {st['skew_us']}")
r0, r2 = report["ranks"][0], report["ranks"][2]
step0 = {x["name"]: x for x in r0["steps"]}[target["name"]]
step2 = {x["name"]: x for x in r2["steps"]}[target["name"]]
close(step2["dur_us"] - step0["dur_us"], DELAY_US, "delayed step duration")
close(step2["idle_us"] - step0["idle_us"], DELAY_US, "delayed step idle time")
close(r2["temporal"]["idle_us"] - r0["temporal"]["idle_us"], DELAY_US, "delayed rank idle time")
close(r0["temporal"]["idle_us"], base["temporal"]["idle_us"], "undelayed rank idle time")
print(f"straggler: {target['name']} slowest rank {s['slowest_rank']}, skew {s['skew_us']} us")

if failures:
    print("\n".join(failures[:50]))
    sys.exit(1)
print("ok")
