#!/usr/bin/env python3
"""Reads a run written by an independent writer (tests/tools/write_xdl_reference.py, Python
protobuf) through `xtrace info --json` and `xtrace dump`, and checks the values.

usage: check_reference_run.py XTRACE PROTO_DIR TOOLS_DIR     (exit 77 = skipped)
"""
import json
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import google.protobuf  # noqa: F401
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)

xtrace, proto_dir, tools = sys.argv[1:4]
out = tempfile.mkdtemp(prefix="xt_ref_")
subprocess.check_call([sys.executable, f"{tools}/write_xdl_reference.py", proto_dir, out])

info = json.loads(subprocess.check_output([xtrace, "info", "--json", out]))
assert len(info["runs"]) == 1, info
run = info["runs"][0]
assert run["prefix"] == "train" and run["name"] == "ref.trace", run
assert run["records"] == 24 and run["gstep"] == [0, 110] and run["lstep"] == [1, 12], run
keys = {k["name"]: k for k in run["keys"]}
assert keys["layer.1/weight"]["dtype"] == "float32" and keys["layer.1/weight"]["shape"] == [4, 6]
assert keys["gradient/layer.1/weight"]["dtype"] == "float64"
assert keys["step_count"]["shape"] == [] and keys["step_count"]["dtype"] == "int64"
assert keys["mask"]["dtype"] == "bool"
assert keys["config"]["records"] == 2 and keys["config"]["empty_records"] == 22, keys["config"]
assert [r["rank"] for r in run["ranks"]] == [0, 1]
for r in run["ranks"]:
    assert r["records"] == 12
    assert [p["index"] for p in r["parts"]] == [1, 2]
    assert all(p["meta"] == "finalised" for p in r["parts"])
    assert sum(p["records"] for p in r["parts"]) == 12
    first = r["parts"][0]
    assert first["meta_values"]["gstep_begin"] == first["gstep"][0]
    assert first["meta_values"]["gstep_end"] == first["gstep"][1]
assert info["diagnostics"]["total"] == 0, info["diagnostics"]


def dump(*args):
    text = subprocess.check_output([xtrace, "dump", out, *args], text=True)
    return [line for line in text.splitlines() if not line.startswith("#") and line]


for rank in (0, 1):
    for step in range(12):
        got = np.array([float(x) for line in dump("--key", "layer.1/weight", "--step", str(step * 10),
                                                    "--rank", str(rank)) for x in line.split()])
        want = (np.arange(24, dtype=np.float32) * (step + 1) + rank).astype(np.float32)
        assert np.array_equal(got.astype(np.float32), want), (rank, step, got, want)
        got = np.array([float(x) for line in dump("--key", "gradient/layer.1/weight", "--step",
                                                    str(step * 10), "--rank", str(rank))
                        for x in line.split()])
        want = np.arange(24, dtype=np.float64) / (step + 1) - rank
        assert np.array_equal(got, want), (rank, step)
assert dump("--key", "step_count", "--step", "30") == ["4"]
assert dump("--key", "mask", "--step", "10") == ["true true false"]
assert dump("--key", "config") == [" ".join(str(b) for b in b"lr=.1")]
bad = subprocess.run([xtrace, "dump", out, "--key", "nope"], capture_output=True, text=True)
assert bad.returncode == 2 and "nope" in bad.stderr, bad
missing = subprocess.run([xtrace, "info", out + "/missing"], capture_output=True, text=True)
assert missing.returncode == 2 and "missing" in missing.stderr, missing
usage = subprocess.run([xtrace, "info"], capture_output=True, text=True)
assert usage.returncode == 1, usage
print("reference run read back with the right values")
