#!/usr/bin/env python3
"""Checks `xtrace stats`, `xtrace hist` and `xtrace diff` against an independent float64 numpy
computation over runs written by Python protobuf (tests/tools/write_xdl_reference.py plus a run
with NaN/Inf and a large mean written here). The files are read back here with python protobuf,
not with any xtview code.

usage: check_analysis_cli.py XTRACE PROTO_DIR TOOLS_DIR     (exit 77 = skipped)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import google.protobuf  # noqa: F401
except ImportError as e:
    print(f"skipped: /usr/bin/python3 lacks numpy or protobuf ({e})")
    sys.exit(77)

xtrace, proto_dir, tools = sys.argv[1:4]
sys.path.insert(0, tools)
from xdl_numpy_reference import load_proto, numpy_stats  # noqa: E402
from xdl_numpy_reference import read_run as read_run_pb  # noqa: E402
from xdl_numpy_reference import write_nan_run as write_nan_run_pb  # noqa: E402

pb = load_proto(proto_dir)
REL = 1e-9


def read_run(directory):
    return read_run_pb(pb, directory)


def write_nan_run(directory):
    write_nan_run_pb(pb, directory)


def close(got, want, scale):
    return abs(got - want) <= REL * max(abs(want), scale)


FIELDS = ["rank", "key", "gstep", "lstep", "timestamp", "count", "nan", "inf", "zeros", "min",
          "max", "mean", "std", "l2"]


def check_stats(directory):
    run = read_run(directory)
    out = subprocess.check_output([xtrace, "stats", "--backend", "cpu", directory], text=True)
    lines = [json.loads(line) for line in out.splitlines()]
    want = []
    for rank in sorted(run):
        keys = []
        for _, _, _, cols in run[rank]:
            keys += [k for k in cols if k not in keys]
        for k in keys:
            for g, l, t, cols in run[rank]:
                if k in cols:
                    want.append((rank, k, g, l, t, numpy_stats(cols[k])))
    # Order within a rank follows the key order of the file header; compare as sets by identity.
    got = {(d["rank"], d["key"], d["gstep"]): d for d in lines}
    assert len(got) == len(lines) == len(want), (len(got), len(lines), len(want))
    for rank, k, g, l, t, s in want:
        d = got[(rank, k, g)]
        expected = [f for f in FIELDS if f in ("rank", "key", "gstep", "lstep", "timestamp")
                    or f in s]
        assert list(d.keys()) == expected, (list(d.keys()), expected)
        assert d["lstep"] == l and d["timestamp"] == t, d
        for f in ("count", "nan", "inf", "zeros"):
            assert d[f] == s[f], (rank, k, g, f, d[f], s[f])
        if "min" in s:
            assert d["min"] == s["min"] and d["max"] == s["max"], (d, s)
            scale = max(abs(s["min"]), abs(s["max"]))
            for f in ("mean", "std", "l2"):
                assert close(d[f], s[f], scale * 1e-3 if f == "mean" else 0), (rank, k, g, f,
                                                                                d[f], s[f])
    # CSV carries the same values.
    csv = subprocess.check_output([xtrace, "stats", "--format", "csv", directory], text=True)
    rows = csv.splitlines()
    assert rows[0] == ",".join(FIELDS) and len(rows) == len(lines) + 1, rows[0]
    return run


def check_hist(directory, run, key, rank, bins, rng=None, steps=None):
    args = [xtrace, "hist", directory, "--key", key, "--bins", str(bins), "--rank", str(rank),
            "--json", "--backend", "cpu"]
    if rng:
        args += ["--range", f"{rng[0]}:{rng[1]}"]
    if steps:
        args += ["--steps", f"{steps[0]}:{steps[1]}"]
    h = json.loads(subprocess.check_output(args, text=True))["histograms"]
    assert len(h) == 1, h
    h = h[0]
    recs = [(g, cols[key].astype(np.float64)) for g, _, _, cols in run[rank]
            if key in cols and (not steps or steps[0] <= g <= steps[1])]
    allv = np.concatenate([v for _, v in recs])
    fin = allv[np.isfinite(allv)]
    lo, hi = rng if rng else (fin.min(), fin.max())
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    assert h["lo"] == lo and h["hi"] == hi, (h["lo"], h["hi"], lo, hi)
    counts, edges = np.histogram(fin, bins=bins, range=(lo, hi))
    assert h["counts"] == counts.tolist(), (h["counts"], counts.tolist())
    assert np.allclose(h["edges"], edges, rtol=0, atol=0), (h["edges"], edges)
    assert h["nan"] == int(np.isnan(allv).sum())
    assert h["posinf"] == int((allv == np.inf).sum()) and h["neginf"] == int((allv == -np.inf).sum())
    assert h["below"] == int((fin < lo).sum()) and h["above"] == int((fin > hi).sum())
    assert h["steps"] == [g for g, _ in recs], h["steps"]
    for row, (g, v) in zip(h["matrix"], recs):
        c, _ = np.histogram(v[np.isfinite(v)], bins=bins, range=(lo, hi))
        assert row == c.tolist(), (g, row, c.tolist())


def check_diff(directory, run, align="gstep"):
    d = json.loads(subprocess.check_output(
        [xtrace, "diff", directory, directory, "--rank", "0", "--rank-b", "1", "--json",
         "--align", align], text=True))
    r = d["ranks"][0]
    assert r["rank_a"] == 0 and r["rank_b"] == 1 and d["align"] == align
    keys = {k["key"]: k for k in r["keys"]}
    # relative: each side's steps count from its own smallest gstep
    origin = [min(g for g, _, _, _ in run[rank]) if align == "relative" else 0 for rank in (0, 1)]
    a = {g - origin[0]: cols for g, _, _, cols in run[0]}
    b = {g - origin[1]: cols for g, _, _, cols in run[1]}
    for key, kd in keys.items():
        steps = sorted(g for g in a if key in a[g] and g in b and key in b[g])
        assert [s["step"] for s in kd["steps"]] == steps, (key, kd["steps"])
        first_exact = None
        for s in kd["steps"]:
            x = a[s["step"]][key].astype(np.float64)
            y = b[s["step"]][key].astype(np.float64)
            diff = np.abs(x - y)
            scale = np.maximum(np.abs(x), np.abs(y))
            rel = np.where(diff == 0, 0.0, diff / np.where(scale == 0, 1, scale))
            assert s["max_abs"] == diff.max(), (key, s, diff.max())
            assert close(s["max_rel"], rel.max(), 0), (key, s, rel.max())
            exact = a[s["step"]][key].tobytes() == b[s["step"]][key].tobytes()
            assert s["bit_exact"] == exact
            if not exact and first_exact is None:
                first_exact = s["step"]
        assert kd["first_diff_exact"] == first_exact, (key, kd["first_diff_exact"], first_exact)


out = tempfile.mkdtemp(prefix="xt_analysis_ref_")
ref = os.path.join(out, "ref")
subprocess.check_call([sys.executable, f"{tools}/write_xdl_reference.py", proto_dir, ref],
                      stdout=subprocess.DEVNULL)
run = check_stats(ref)
check_hist(ref, run, "layer.1/weight", 0, 16)
check_hist(ref, run, "gradient/layer.1/weight", 1, 7, rng=(-0.5, 3.0), steps=(20, 70))
check_hist(ref, run, "step_count", 1, 5)
check_diff(ref, run)
check_diff(ref, run, "relative")

nan_dir = os.path.join(out, "nan")
write_nan_run(nan_dir)
nan_run = check_stats(nan_dir)
check_hist(nan_dir, nan_run, "w", 0, 4096)
check_hist(nan_dir, nan_run, "w", 0, 33, rng=(-1.0, 1.5))
check_hist(nan_dir, nan_run, "big", 0, 100)
# An all-NaN key has no min/max/mean/std/l2 fields at all.
lines = [json.loads(x) for x in subprocess.check_output(
    [xtrace, "stats", nan_dir, "--key", "^dead$"], text=True).splitlines()]
assert len(lines) == 4 and all("min" not in x and x["nan"] == 5 for x in lines), lines
shutil.rmtree(out, ignore_errors=True)
print("ok")
