#!/usr/bin/env python3
"""`xtrace export --hdf5` and `--csv` on a run written by an independent writer
(tests/tools/write_xdl_reference.py), read back with h5py and compared with numpy float64.

usage: check_export_h5py.py XTRACE PROTO_DIR TOOLS_DIR        (exit 77 = skipped)
"""
import csv
import subprocess
import sys
import tempfile

try:
    import h5py
    import numpy as np
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)

xtrace, proto_dir, tools = sys.argv[1:4]
tmp = tempfile.mkdtemp(prefix="xt_h5_")
run = f"{tmp}/run"
subprocess.check_call([sys.executable, f"{tools}/write_xdl_reference.py", proto_dir, run],
                      stdout=subprocess.DEVNULL)

out = f"{tmp}/out.h5"
subprocess.check_call([xtrace, "export", run, "--hdf5", out, "--deflate", "3"])
f = h5py.File(out, "r")
assert f.attrs["producer"] == "xtview" and f.attrs["layout_version"] == 1
assert len(f.attrs["sources"]) == 4
for rank in (0, 1):
    g = f[f"rank{rank}"]
    meta = g["meta"][:]
    assert list(meta["index"]) == [1, 2] and all(meta["finalised"] == 1), meta
    w = g["layer.1/weight"]
    assert w.attrs["key"] == "layer.1/weight"
    assert w["values"].shape == (12, 4, 6) and w["values"].dtype == np.float32
    assert list(w["gstep"][:]) == [s * 10 for s in range(12)]
    assert list(w["lstep"][:]) == list(range(1, 13))
    assert list(w["timestamp"][:]) == [1700000000000 + rank * 7 + s * 1000 for s in range(12)]
    for s in range(12):
        want = (np.arange(24, dtype=np.float32).reshape(4, 6) * (s + 1) + rank).astype(np.float32)
        assert np.array_equal(w["values"][s], want), (rank, s)
        st = w["stats"][s]
        x = want.astype(np.float64)
        assert st["count"] == 24 and st["nan"] == 0 and st["zeros"] == int((x == 0).sum())
        assert st["min"] == x.min() and st["max"] == x.max()
        for name, ref in (("mean", x.mean()), ("std", x.std()), ("l2", np.sqrt((x * x).sum()))):
            assert abs(st[name] - ref) <= 1e-9 * max(1.0, abs(ref)), (name, st[name], ref)
    gr = g["gradient/layer.1/weight/values"]
    assert gr.dtype == np.float64 and np.array_equal(gr[3], np.arange(24.0).reshape(4, 6) / 4 - rank)
    assert g["mask/values"].dtype == np.bool_
    assert list(g["mask/values"][1]) == [True, True, False]
    assert g["step_count/values"].shape == (12,) and g["step_count/values"][4] == 7
    cfg = g["config"]
    assert cfg["values"].shape == (1, 5) and cfg["values"][0].tobytes() == b"lr=.1"  # once: 1 row
    assert list(cfg["gstep"][:]) == [0]

# A key filter and a step range.
sub = f"{tmp}/sub.h5"
subprocess.check_call([xtrace, "export", run, "--hdf5", sub, "--key", "^mask$", "--steps", "20:40"])
s = h5py.File(sub, "r")
assert list(s["rank0"].keys()) == ["mask", "meta"], list(s["rank0"].keys())
assert list(s["rank1/mask/gstep"][:]) == [20, 30, 40]

# CSV of statistics: the columns of `xtrace stats`.
out_csv = f"{tmp}/stats.csv"
subprocess.check_call([xtrace, "export", run, "--csv", out_csv, "--key", "^layer"])
rows = list(csv.DictReader(open(out_csv)))
assert len(rows) == 24, len(rows)
assert list(rows[0].keys()) == ["rank", "key", "gstep", "lstep", "timestamp", "count", "nan",
                                "inf", "zeros", "min", "max", "mean", "std", "l2"]
r = [x for x in rows if x["rank"] == "1" and x["gstep"] == "50"][0]
x = (np.arange(24, dtype=np.float32) * 6 + 1).astype(np.float64)
assert float(r["mean"]) == x.mean() and float(r["max"]) == x.max() and r["count"] == "24"

# Usage errors and unwritable outputs.
assert subprocess.run([xtrace, "export", run], capture_output=True).returncode == 1
assert subprocess.run([xtrace, "export", run, "--hdf5", "/nonexistent/x.h5"],
                      capture_output=True).returncode == 2
print("export read back with h5py: values, steps, stats, meta and CSV agree")
