#!/usr/bin/python3
"""The xtrecorder Python module (ctypes over libxtrecorder.so): records every dtype, once,
callback and summary keys, checks errors, then reads the run back with `xtrace info --json` and
`xtrace dump`. Needs XT_RECORDER_LIB, XTRACE and PYTHONPATH (set by ctest)."""

import json
import os
import shutil
import subprocess
import sys

import numpy as np

import xtrecorder

out = sys.argv[1]
shutil.rmtree(out, ignore_errors=True)
xtrace = os.environ["XTRACE"]

t = [1700000000000]


def clock():
    t[0] += 10
    return t[0]


dtypes = [np.int8, np.int16, np.int32, np.int64, np.float32, np.float64, np.bool_, np.uint8]
steps = 6
calls = []
with xtrecorder.Recorder(out, rank=1, clock=clock, max_file_mb=0.001) as rec:
    rec.trace_once_text("config", "batch=32")
    rec.trace_callback("callback/step", lambda: np.array([len(calls)], np.int64))
    rec.set_summary("act", lambda a: a.mean(axis=0))
    for s in range(steps):
        calls.append(s)
        for dt in dtypes:
            base = (np.arange(6) + s).reshape(2, 3)
            rec.trace("v/" + np.dtype(dt).name, (base % 2 if dt is np.bool_ else base).astype(dt))
        rec.trace("act", np.arange(12, dtype=np.float32).reshape(4, 3) + s)
        rec.trace("scalar", np.float64(s) / 4)
        rec.commit_step(10 * s)
    # Errors.
    try:
        rec.trace("bad", np.zeros(3, np.uint32))
        raise AssertionError("uint32 accepted")
    except TypeError as e:
        assert "uint32" in str(e), e
    try:
        rec.trace("f16", np.zeros(3, np.float16))
        raise AssertionError("float16 accepted")
    except TypeError as e:
        assert "float16" in str(e), e
    try:
        rec.trace("new_key", np.zeros(3, np.float32))
        raise AssertionError("new key accepted")
    except xtrecorder.RecorderError as e:
        assert "new_key" in str(e) and e.code == 1, e
stats = rec.stats()
assert stats["written"] == steps, stats
assert stats["part_index"] >= 2, stats
rec.close()  # twice is fine

try:
    xtrecorder.Recorder("/proc/version/sub")
    raise AssertionError("open under a file succeeded")
except xtrecorder.RecorderError as e:
    assert "cannot create output directory" in str(e), e

info = json.loads(subprocess.check_output([xtrace, "info", "--json", out]))
run = info["runs"][0]
assert info["diagnostics"]["errors"] == 0, info["diagnostics"]
assert run["records"] == steps, run
assert run["gstep"] == [0, 10 * (steps - 1)], run
assert run["lstep"] == [1, steps], run
assert run["timestamp"] == [1700000000010, 1700000000000 + 10 * steps], run
keys = {k["name"]: k for k in run["keys"]}
names = [k["name"] for k in run["keys"]]
expected_names = ["v/" + np.dtype(d).name for d in dtypes] + ["act", "scalar", "callback/step",
                                                              "config"]
assert names == expected_names, names
xdl_names = {"int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
             "float32": "float32", "float64": "float64", "bool": "bool", "uint8": "uint8"}
for d in dtypes:
    k = keys["v/" + np.dtype(d).name]
    assert k["dtype"] == xdl_names[np.dtype(d).name], k
    assert k["shape"] == [2, 3] and k["records"] == steps, k
assert keys["act"]["shape"] == [3], keys["act"]
assert keys["scalar"]["shape"] == [] and keys["scalar"]["dtype"] == "float64", keys["scalar"]
assert keys["config"]["dtype"] == "int8" and keys["config"]["empty_records"] == steps - 1
parts = run["ranks"][0]["parts"]
assert run["ranks"][0]["rank"] == 1
assert len(parts) >= 2 and all(p["meta"] == "finalised" for p in parts), parts
# Each part's summary was written beside it, and is valid for it.
assert all(p["summary"] and os.path.exists(p["path"] + ".xts") for p in parts), parts
assert run["summarized_parts"] == len(parts), run["summarized_parts"]

# summaries=False: no summary files.
plain = out + "_plain"
shutil.rmtree(plain, ignore_errors=True)
with xtrecorder.Recorder(plain, summaries=False) as rec:
    rec.trace("x", np.arange(100, dtype=np.float32))
    rec.commit_step(0)
assert sorted(os.listdir(plain)) == ["train.trace.0.1", "train.trace.0.1.meta"], os.listdir(plain)


def dump(key, step):
    text = subprocess.check_output([xtrace, "dump", out, "--key", key, "--step", str(step)],
                                   text=True)
    return [line for line in text.splitlines() if not line.startswith("#")]


assert dump("v/int16", 30) == ["3 4 5", "6 7 8"], dump("v/int16", 30)
assert dump("v/float64", 50) == ["5 6 7", "8 9 10"], dump("v/float64", 50)
assert dump("act", 20) == ["6.5 7.5 8.5"], dump("act", 20)
assert dump("callback/step", 40) == ["5"], dump("callback/step", 40)
assert dump("config", 0) == [" ".join(str(b) for b in b"batch=32")], dump("config", 0)
print("python module: ok,", stats)
