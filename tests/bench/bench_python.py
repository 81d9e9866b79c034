#!/usr/bin/python3
"""P12 (docs/PERFORMANCE.md): the xtview Python package against `xtrace stats`, tensor() without
a copy, and xtview.dask.summarize on a LocalCluster of 2 worker processes against 1.

usage: bench_python.py XTRACE DIR [--gb 4] [--keep]
Needs PYTHONPATH=<build>/python and XT_RECORDER_LIB=<build>/core/recorder/libxtrecorder.so.
Writes a run of about --gb GB into DIR (2 ranks, 256 MB parts, records of four float32 columns
of 1M elements, through xtview.recorder) unless DIR already holds one, reads it once so it is in
the page cache, measures, and deletes DIR unless --keep. Times are wall-clock seconds, best of 3.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import pandas as pd

import xtview
import xtview.dask as xd
from xtview import recorder

KEYS = ["layer1/weight", "layer1/grad", "layer2/weight", "layer2/grad"]
N = 1 << 20  # float32 per column: 4 MiB


def write_run(directory, gb):
    records_per_rank = max(1, int(gb * 1e9 / (len(KEYS) * N * 4) / 2))
    base = np.random.default_rng(1).normal(0, 1, N).astype(np.float32)
    t0 = time.perf_counter()
    for rank in (0, 1):
        with recorder.Recorder(directory, output_file_name="bench", rank=rank,
                               max_file_mb=256) as rec:
            for step in range(records_per_rank):
                for k, key in enumerate(KEYS):
                    rec.trace(key, base * np.float32(1 + 0.01 * step) + np.float32(k + rank))
                rec.commit_step(step)
    size = sum(os.path.getsize(f) for f in data_files(directory))
    print(f"wrote {len(data_files(directory))} parts, {size / 1e9:.2f} GB in "
          f"{time.perf_counter() - t0:.1f} s")


def data_files(directory):
    return sorted(f for f in glob.glob(os.path.join(directory, "train.bench.*"))
                  if f.rsplit(".", 1)[-1].isdigit())


def start_cluster(workers):
    """dask-scheduler and `workers` dask-worker processes (1 thread each) on 127.0.0.1, each in
    a session of its own, as services would run: with the kernel's autogroup scheduling, the
    processes of one session share one CPU share, so workers started from this session (as
    LocalCluster does) could not use a second core while other sessions keep the machine busy."""
    from distributed import Client
    port = 20000 + os.getpid() % 20000
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL,
             "start_new_session": True}
    procs = [subprocess.Popen(["dask-scheduler", "--host", "127.0.0.1", "--port", str(port),
                               "--dashboard-address", ":0"], **quiet)]
    for _ in range(workers):
        procs.append(subprocess.Popen(["dask-worker", f"tcp://127.0.0.1:{port}", "--nworkers",
                                       "1", "--nthreads", "1", "--no-dashboard",
                                       "--host", "127.0.0.1"], **quiet))
    client = Client(f"tcp://127.0.0.1:{port}", timeout=60)
    client.wait_for_workers(workers, timeout=60)
    return client, procs


def best_of(n, fn):
    best, result = None, None
    for _ in range(n):
        t0 = time.perf_counter()
        result = fn()
        t = time.perf_counter() - t0
        best = t if best is None else min(best, t)
    return best, result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("xtrace")
    ap.add_argument("dir")
    ap.add_argument("--gb", type=float, default=4.0)
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    if not data_files(a.dir):
        write_run(a.dir, a.gb)
    files = data_files(a.dir)
    size = sum(os.path.getsize(f) for f in files)
    for f in files:  # into the page cache
        with open(f, "rb") as fh:
            while fh.read(64 << 20):
                pass
    scratch = tempfile.mkdtemp(prefix="xt_bench_py_")
    print(f"run: {len(files)} parts, {size / 1e9:.2f} GB; load average "
          f"{os.getloadavg()[0]:.1f}; {os.cpu_count()} cores")

    # -- run.stats() against `xtrace stats`, no summaries on either side --
    def cli():
        subprocess.run([a.xtrace, "stats", "--backend", "cpu", "--format", "csv", a.dir],
                       stdout=subprocess.DEVNULL, check=True)

    def py():
        return xtview.open(a.dir, summary_dir=os.path.join(scratch, "none")).stats()

    t_cli, _ = best_of(3, cli)
    t_py, df = best_of(3, py)
    print(f"xtrace stats --backend cpu --format csv: {t_cli:.3f} s = {size / t_cli / 1e9:.2f} GB/s")
    print(f"xtview.open(path).stats():               {t_py:.3f} s = {size / t_py / 1e9:.2f} GB/s "
          f"({len(df)} rows)")
    print(f"throughput ratio run.stats() / xtrace stats: {t_cli / t_py:.2f} (target >= 0.8)")

    # -- tensor(): a view of the mapped file where aligned --
    run = xtview.open(a.dir, summary_dir=os.path.join(scratch, "none"))
    views = copies = 0
    aligned = None
    for g in range(0, int(df["gstep"].max()) + 1):
        for key in KEYS:
            t = run.tensor(key, g, 0)
            if t.flags.owndata:
                copies += 1
            else:
                views += 1
                aligned = aligned or (key, g)
    print(f"tensor(): {views} views, {copies} copies over the float32 columns of rank 0")
    if aligned:
        n = 2000
        t0 = time.perf_counter()
        for _ in range(n):
            t = run.tensor(aligned[0], aligned[1], 0)
        per_call = (time.perf_counter() - t0) / n
        assert not t.flags.owndata and not t.flags.writeable
        t0 = time.perf_counter()
        for _ in range(20):
            c = np.array(t)
        per_copy = (time.perf_counter() - t0) / 20
        assert np.array_equal(c, t)
        print(f"tensor() of an aligned 4 MiB float32 column: {per_call * 1e6:.1f} us per call, "
              f"no copy (owndata False, base {type(t.base).__name__}); a copy of it takes "
              f"{per_copy * 1e6:.0f} us")

    # -- xd.summarize: 2 worker processes against 1 --
    results = {}
    for workers in (1, 2):
        client, procs = start_cluster(workers)
        try:
            times = []
            for i in range(2):
                sdir = os.path.join(scratch, f"summaries-{workers}-{i}")
                t0 = time.perf_counter()
                s = xd.summarize(a.dir, client, summary_dir=sdir)
                times.append(time.perf_counter() - t0)
                assert s["error"].isna().all() and set(s["origin"]) == {"built"}, s
            results[workers] = (min(times), sdir)
            print(f"xd.summarize, {workers} worker process(es): {min(times):.2f} s "
                  f"(best of {len(times)}) = {size / min(times) / 1e9:.2f} GB/s")
        finally:
            client.close()
            for p in procs:
                p.terminate()
            for p in procs:
                p.wait(timeout=30)
    one = xtview.open(a.dir, summary_dir=results[1][1])
    two = xtview.open(a.dir, summary_dir=results[2][1])
    assert one.parts()["summary"].all() and two.parts()["summary"].all()
    pd.testing.assert_frame_equal(one.stats(), two.stats())
    pd.testing.assert_frame_equal(one.stats(), df)
    print(f"speed-up 2 workers / 1: {results[1][0] / results[2][0]:.2f} (target >= 1.6); "
          f"statistics from both sets of summaries equal, and equal to the tensors'")
    t_sum, _ = best_of(3, lambda: xtview.open(a.dir, summary_dir=results[2][1]).stats())
    print(f"xtview.open(path).stats() from the summaries: {t_sum:.3f} s")

    shutil.rmtree(scratch, ignore_errors=True)
    if not a.keep:
        shutil.rmtree(a.dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
