#!/usr/bin/python3
"""The xtview Python package against independent computations: runs written by Python protobuf
(tests/tools/write_xdl_reference.py and a NaN/Inf run) read back with xtview and with a plain
protobuf + float64 numpy reader; DataFrames equal to the CLI's output (stats CSV, timeline CSVs);
tensors zero-copy and read-only; errors with located text; summaries; the import next to
python3-protobuf with no protobuf runtime loaded by xtview.

usage: check_xtview.py PROTO_DIR TOOLS_DIR WORK_DIR [SHARED_DIR]   (exit 77 = skipped)
Needs PYTHONPATH with the built xtview package and XTRACE (set by ctest)."""
import gc
import io
import os
import pathlib
import shutil
import struct
import subprocess
import sys

try:
    import numpy as np
    import pandas as pd
except ImportError as e:
    print(f"skipped: /usr/bin/python3 lacks numpy or pandas ({e})")
    sys.exit(77)

proto_dir, tools, work = sys.argv[1:4]
shared = sys.argv[4] if len(sys.argv) > 4 else ""
xtrace = os.environ["XTRACE"]
sys.path.insert(0, tools)
from xdl_numpy_reference import load_proto, numpy_stats, read_run, write_nan_run  # noqa: E402

pb = load_proto(proto_dir)  # python3-protobuf: loaded here before xtview, in the same process
import xtview  # noqa: E402

REL = 1e-9
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
summaries = os.path.join(work, "summaries")  # never the user's cache


def xopen(path):
    return xtview.open(path, summary_dir=summaries)


def cli(*args):
    return subprocess.check_output([xtrace, *args], text=True)


def close(got, want, scale=0.0):
    return abs(got - want) <= REL * max(abs(want), scale)


def expected_stats(run):
    """Rows in the documented order: rank, then the rank's key order, then record."""
    rows = []
    for rank in sorted(run):
        keys = []
        for _, _, _, cols in run[rank]:
            keys += [k for k in cols if k not in keys]
        for k in keys:
            for g, lstep, t, cols in run[rank]:
                if k in cols:
                    rows.append((rank, k, g, lstep, t, numpy_stats(cols[k])))
    return rows


def check_stats(directory):
    ref = read_run(pb, directory)
    df = xopen(directory).stats()
    assert list(df.columns) == ["rank", "key", "gstep", "lstep", "timestamp", "count", "nan",
                                "inf", "zeros", "min", "max", "mean", "std", "l2"], df.columns
    want = expected_stats(ref)
    assert len(df) == len(want), (len(df), len(want))
    for row, (rank, k, g, lstep, t, s) in zip(df.itertuples(index=False), want):
        assert (row.rank, row.key, row.gstep, row.lstep, row.timestamp) == (rank, k, g, lstep, t)
        assert (row.count, row.nan, row.inf, row.zeros) == (s["count"], s["nan"], s["inf"],
                                                            s["zeros"]), (row, s)
        if "min" in s:
            assert row.min == s["min"] and row.max == s["max"], (row, s)
            scale = max(abs(s["min"]), abs(s["max"]))
            assert close(row.mean, s["mean"], scale * 1e-3), (row, s)
            assert close(row.std, s["std"]) and close(row.l2, s["l2"]), (row, s)
        else:
            assert np.isnan([row.min, row.max, row.mean, row.std, row.l2]).all(), row
    # The same values as `xtrace stats --format csv` (exact: shortest round-trip text).
    csv = pd.read_csv(io.StringIO(cli("stats", "--backend", "cpu", "--format", "csv", directory)),
                      keep_default_na=False, na_values={c: [""] for c in
                                                        ["min", "max", "mean", "std", "l2"]},
                      dtype={"key": str}, float_precision="round_trip")
    pd.testing.assert_frame_equal(df, csv, check_dtype=False)
    return ref, df


# ---- statistics, keys, ranks ----
ref_dir = os.path.join(work, "ref")
subprocess.check_call([sys.executable, f"{tools}/write_xdl_reference.py", proto_dir, ref_dir],
                      stdout=subprocess.DEVNULL)
ref, ref_stats = check_stats(ref_dir)
run = xopen(ref_dir)
assert run.ranks == [0, 1], run.ranks
assert xtview.open(pathlib.Path(ref_dir), summary_dir=pathlib.Path(summaries)).ranks == [0, 1]
keys = run.keys().set_index("key")
assert list(keys.columns) == ["dtype", "shape", "records", "ranks", "mixed_dtypes",
                              "varying_shape", "empty_records", "damaged_records"]
assert keys.loc["layer.1/weight", "dtype"] == "float32"
assert keys.loc["layer.1/weight", "shape"] == (4, 6)
assert keys.loc["layer.1/weight", "records"] == 24 and keys.loc["layer.1/weight", "ranks"] == [0, 1]
assert keys.loc["step_count", "shape"] == () and keys.loc["config", "empty_records"] == 22
# key regex (searched, anchorable) and rank
sub = run.stats(key="^layer", rank=1)
assert set(sub["key"]) == {"layer.1/weight"} and set(sub["rank"]) == {1} and len(sub) == 12
pd.testing.assert_frame_equal(
    sub.reset_index(drop=True),
    ref_stats[(ref_stats.key == "layer.1/weight") & (ref_stats["rank"] == 1)].reset_index(drop=True))
nan_dir = os.path.join(work, "nan")
write_nan_run(pb, nan_dir)
_, nan_stats = check_stats(nan_dir)

# ---- tensor: values, dtype, zero-copy where aligned, read-only, run kept alive ----
checked = {"view": 0, "copy": 0}
a_view = None
for rank in (0, 1):
    for g, _, _, cols in ref[rank]:
        for k, want in cols.items():
            a = run.tensor(k, g, rank)
            assert a.dtype == (np.bool_ if k == "mask" else want.dtype), (k, a.dtype)
            assert np.array_equal(a.reshape(-1).view(want.dtype), want), (k, g, rank)
            assert not a.flags.writeable
            if a.flags.owndata:
                checked["copy"] += 1
            else:
                checked["view"] += 1
                assert a.ctypes.data % a.itemsize == 0
                if a.size > 1:
                    a_view = (k, g, rank)
assert checked["view"] > 0 and a_view, checked
assert run.tensor("layer.1/weight", 30, 1).shape == (4, 6)
assert run.tensor("step_count", 30, 1).shape == ()
assert run.tensor("config", 0, 0).tobytes() == b"lr=.1"
assert run.tensor("config", 10, 0).shape == (0,)  # empty after trace_once
# A view keeps its run (and so the mapping) alive after the Run is gone.
probe = xopen(ref_dir)
view = probe.tensor(*a_view)
assert isinstance(view.base, xtview.run._core.Run), type(view.base)
copy = np.array(view)
del probe
gc.collect()
assert np.array_equal(view, copy)
try:
    view[...] = 0
    raise AssertionError("tensor is writeable")
except ValueError:
    pass

# ---- histogram against numpy.histogram per step ----
for key, rank, bins, steps, rng in [("layer.1/weight", 0, 16, None, None),
                                    ("gradient/layer.1/weight", 1, 7, (20, 70), (-0.5, 3.0)),
                                    ("step_count", 1, 5, None, None)]:
    h = run.histogram(key, bins=bins, steps=steps, rank=rank, range=rng)
    counts, edges = h
    recs = [(g, cols[key].astype(np.float64)) for g, _, _, cols in ref[rank]
            if key in cols and (not steps or steps[0] <= g <= steps[1])]
    allv = np.concatenate([v for _, v in recs])
    lo, hi = rng if rng else (allv.min(), allv.max())
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    assert h.range == (lo, hi), (h.range, lo, hi)
    _, want_edges = np.histogram(allv, bins=bins, range=(lo, hi))
    assert np.array_equal(edges, want_edges), (edges, want_edges)
    assert counts.shape == (len(recs), bins) and list(h.steps) == [g for g, _ in recs]
    for row, (g, v) in zip(counts, recs):
        assert np.array_equal(row, np.histogram(v, bins=bins, range=(lo, hi))[0]), (key, g)
        assert h.outside[list(h.steps).index(g)][3] == (v < lo).sum()
nh = xopen(nan_dir).histogram("w", bins=33, range=(-1.0, 1.5))
wv = np.concatenate([cols["w"].astype(np.float64) for _, _, _, cols in read_run(pb, nan_dir)[0]])
assert nh.counts.sum(axis=0).tolist() == np.histogram(wv[np.isfinite(wv)], 33, (-1.0, 1.5))[0].tolist()
assert nh.outside[:, 0].sum() == np.isnan(wv).sum() and nh.outside[:, 1].sum() == (wv == np.inf).sum()

# ---- first_nonfinite ----
fn = xopen(nan_dir).first_nonfinite()
assert list(fn.columns) == ["key", "rank", "gstep", "kind", "lstep", "elements"], fn.columns
want = []
for key in ("w", "big", "dead"):
    for kind, test in (("nan", np.isnan), ("inf", np.isinf)):
        for g, lstep, _, cols in read_run(pb, nan_dir)[0]:
            n = int(test(cols[key].astype(np.float64)).sum())
            if n:
                want.append((key, 0, g, kind, lstep, n))
                break
assert [tuple(r) for r in fn.itertuples(index=False)] == want, (fn, want)
assert xopen(ref_dir).first_nonfinite().empty

# ---- diff: rank 0 against rank 1, against numpy ----
d = run.diff(run, align="gstep", rank=0, rank_b=1)
assert list(d.columns[:4]) == ["rank_a", "rank_b", "key", "step"]
for row in d.itertuples(index=False):
    x = dict((g, c) for g, _, _, c in ref[0])[row.step][row.key].astype(np.float64)
    y = dict((g, c) for g, _, _, c in ref[1])[row.step][row.key].astype(np.float64)
    assert row.max_abs == np.abs(x - y).max(), row
    assert row.bit_exact == (x.tobytes() == y.tobytes())
    assert row.within_tolerance == bool(np.all(x == y)), row  # atol = rtol = 0
per_key = d.attrs["keys"].set_index("key")
assert per_key.loc["layer.1/weight", "first_diff_exact"] == 0
same = xopen(ref_dir).diff(run)
assert same["bit_exact"].all() and set(same["rank_a"]) == {0, 1}

# ---- errors: located, typed ----
def expect(exc, fn, *texts):
    try:
        fn()
    except exc as e:
        for t in texts:
            assert t in str(e), (t, str(e))
        return e
    raise AssertionError(f"{fn} did not raise {exc.__name__}")


missing = os.path.join(work, "no", "such", "run")
e = expect(xtview.NotFoundError, lambda: xtview.open(missing), missing)
assert isinstance(e, LookupError) and e.code == "not found"
expect(xtview.InvalidArgumentError, lambda: run.stats(key="grad(("), "grad((")
assert isinstance(expect(ValueError, lambda: run.stats(key="[")), xtview.XtviewError)
expect(xtview.NotFoundError, lambda: run.tensor("layer.1/weight", 5, 0), "gstep 5")
expect(xtview.NotFoundError, lambda: run.tensor("nope", 10, 0), "nope")
expect(xtview.NotFoundError, lambda: run.stats(rank=7), "rank 7")
expect(xtview.InvalidArgumentError, lambda: run.histogram("layer.1/weight", bins=0), "bins")
expect(xtview.InvalidArgumentError, lambda: run.diff(run, align="wall"), "align")
both = os.path.join(work, "both")
os.makedirs(both)
for d_ in (ref_dir, nan_dir):
    shutil.copytree(d_, os.path.join(both, os.path.basename(d_)))
expect(xtview.InvalidArgumentError, lambda: xtview.open(both), "2 runs", "ref.trace", "nan.trace")
# A corrupt file: a record whose column has an unknown dtype and one whose length runs past the
# end. The run opens; the damage is located (file:offset) in diagnostics and in the exception.
corrupt = os.path.join(work, "corrupt")
os.makedirs(corrupt)
bad = os.path.join(corrupt, "train.bad.0.1")
with open(bad, "wb") as f:
    h = pb.Header(key=["w"]).SerializeToString()
    f.write(struct.pack("<I", len(h)) + h)
    for step, dtype in ((0, pb.Float), (1, 99)):
        rec = pb.Record(gstep=step, lstep=step, timestamp=step)
        rec.column.add(dtype=dtype, shape=[2], data=np.ones(2, np.float32).tobytes())
        body = rec.SerializeToString()
        f.write(struct.pack("<I", len(body)) + body)
    f.write(struct.pack("<I", 1000) + b"\x08\x01")  # truncated record
open(bad + ".meta", "wb").close()
crun = xopen(corrupt)
assert any(bad in t for t in crun.diagnostics), crun.diagnostics
e = expect(xtview.CorruptError, lambda: crun.tensor("w", 1, 0), bad)
assert e.code == "corrupt"
cst = crun.stats()
assert list(cst["gstep"]) == [0], cst  # the damaged column is skipped
assert xtview.XtviewError.__reduce__(e)[0] is xtview.CorruptError  # picklable for Dask

# ---- summaries: built, saved, then used, with the same results ----
fresh = xopen(ref_dir)
assert not fresh.parts()["summary"].any()
built = fresh.summarize()
assert built["parts"] == len(fresh.parts()), built
again = xopen(ref_dir)
assert again.parts()["summary"].all(), again.parts()
pd.testing.assert_frame_equal(again.stats(), ref_stats)
pd.testing.assert_frame_equal(again.keys(), run.keys())
pd.testing.assert_frame_equal(again.first_nonfinite(), run.first_nonfinite())

# ---- timeline: DataFrames equal to the CLI's CSVs ----
trace = os.path.join(work, "trace.json")
with open(trace, "w") as f:
    f.write('''[
 {"ph":"X","name":"ProfilerStep#1","cat":"user_annotation","pid":1,"tid":1,"ts":100,"dur":50},
 {"ph":"X","name":"aten::mm, out","cat":"cpu_op","pid":1,"tid":1,"ts":110,"dur":20.5},
 {"ph":"X","name":"cudaLaunchKernel","cat":"cuda_runtime","pid":1,"tid":1,"ts":131,"dur":2},
 {"ph":"X","name":"ProfilerStep#2","cat":"user_annotation","pid":1,"tid":1,"ts":150,"dur":30},
 {"ph":"X","name":"gemm","cat":"kernel","pid":1,"tid":7,"ts":155,"dur":10.001},
 {"ph":"X","name":"nan","cat":"kernel","pid":1,"tid":7,"ts":170,"dur":1}
]''')
traces = [trace]
if shared and os.path.isdir(shared):
    traces.append(os.path.join(shared, "corpus/chrome/kineto/"
                               "samples__resnet50_num_workers_0__worker0.1623143566756.pt.trace.json.gz"))
else:
    print("note: the shared corpus is absent; the corpus trace is skipped")


def read_cli_csv(path):
    return pd.read_csv(path, keep_default_na=False, dtype={"name": str},
                       float_precision="round_trip")


for t in traces:
    tl = xtview.timeline(t)
    ops_csv, steps_csv = os.path.join(work, "ops.csv"), os.path.join(work, "steps.csv")
    cli("timeline", t, "--csv", ops_csv, "--steps-csv", steps_csv)
    ops = tl.op_summary()
    pd.testing.assert_frame_equal(ops, read_cli_csv(ops_csv))
    steps = tl.step_breakdown()
    pd.testing.assert_frame_equal(steps, read_cli_csv(steps_csv), check_dtype=False)
    assert tl.report()["events"] > 0
    assert np.allclose(steps.iloc[:, 4:].sum(axis=1), steps["dur_us"])
    print(f"timeline {os.path.basename(t)}: {len(ops)} ops, {len(steps)} steps")
assert list(xtview.timeline(trace).op_summary(by_category=True).columns[:2]) == ["name",
                                                                                  "category"]
expect(xtview.NotFoundError, lambda: xtview.timeline(os.path.join(work, "none.json")))
expect(xtview.UnsupportedError, lambda: xtview.timeline(os.path.join(work, "run.pb")), "protobuf")

# ---- no protobuf runtime in the module, and no clash with python3-protobuf ----
core = xtview.run._core.__file__
needed = subprocess.check_output(["readelf", "-d", core], text=True)
assert "protobuf" not in needed, needed
probe = r'''
import sys
order = sys.argv[1]
def use_protobuf():
    import google.protobuf.descriptor_pb2 as d
    m = d.FileDescriptorProto(name="x.proto")
    assert d.FileDescriptorProto.FromString(m.SerializeToString()).name == "x.proto"
def use_xtview():
    import xtview, numpy
    r = xtview.open(sys.argv[2], summary_dir=sys.argv[3])
    assert len(r.stats()) > 0
if order == "xtview-only":
    use_xtview()
    maps = open("/proc/self/maps").read()
    assert "libprotobuf" not in maps, [l for l in maps.splitlines() if "protobuf" in l]
    assert "google.protobuf" not in sys.modules
else:
    for f in ((use_protobuf, use_xtview) if order == "protobuf-first" else (use_xtview, use_protobuf)):
        f()
print("ok", order)
'''
for order in ("xtview-only", "protobuf-first", "xtview-first"):
    out = subprocess.check_output([sys.executable, "-c", probe, order, ref_dir, summaries],
                                  text=True)
    assert out.strip() == f"ok {order}", out

# ---- the recorder, under both names ----
import xtrecorder  # noqa: E402
import xtview.recorder  # noqa: E402
assert xtrecorder.Recorder is xtview.recorder.Recorder
shutil.rmtree(work, ignore_errors=True)
print("ok")
