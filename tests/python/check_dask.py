#!/usr/bin/python3
"""xtview.dask on a real Dask LocalCluster: a scheduler and 2 worker processes (nannies) over
TCP on 127.0.0.1. Results equal the single-machine path (xtview.open) on runs written by Python
protobuf, local and through WebHDFS (tests/core/storage/webhdfs_test_server.py); a worker killed
while it runs a task; a part that cannot be read (retried, then reported while the others
complete); summaries published on HDFS and opened from there; the HDFS server going down
while tasks read.

The test runs itself in a new session and kills that whole process group when it ends or after
240 s, so no scheduler or worker outlives it.
usage: check_dask.py PROTO_DIR TOOLS_DIR WORK_DIR   (exit 77 = skipped)"""
import json
import os
import signal
import subprocess
import sys
import time

LIMIT_S = 240


def supervise():
    """Runs this script again in a new session; kills the session's processes at the end."""
    env = dict(os.environ, XT_DASK_TEST_CHILD="1")
    child = subprocess.Popen([sys.executable, *sys.argv], env=env, start_new_session=True)
    try:
        rc = child.wait(timeout=LIMIT_S)
    except subprocess.TimeoutExpired:
        print(f"FAIL: not done after {LIMIT_S} s", flush=True)
        rc = 1
    finally:
        try:
            os.killpg(child.pid, signal.SIGKILL)  # whatever the cluster left behind
        except ProcessLookupError:
            pass
    return rc


try:
    import numpy as np
    import pandas as pd
    import dask  # noqa: F401
    from distributed import Client, LocalCluster, WorkerPlugin
except ImportError as e:
    print(f"skipped: /usr/bin/python3 lacks numpy, pandas, dask or distributed ({e})")
    sys.exit(77)

import json
import logging  # noqa: E402
import shutil  # noqa: E402
import struct  # noqa: E402
import threading  # noqa: E402
import warnings  # noqa: E402

import xtview  # noqa: E402
import xtview.dask as xd  # noqa: E402

START = time.monotonic()


def log(msg):
    print(f"[{time.monotonic() - START:6.1f} s] {msg}", flush=True)


def write_multi_run(pb, directory):
    """2 ranks x 5 parts x 3 records; keys w (float32[64]), grad/w (float64[32]), loss (a
    float32 scalar, empty in every third record); NaN in rank 0 part 3, Inf in rank 1 part 4;
    rank 1 part 3 has no header (its keys are borrowed from the rank's other parts)."""
    os.makedirs(directory)
    keys = ["w", "grad/w", "loss"]
    rng = np.random.default_rng(7)
    for rank in (0, 1):
        for index in range(1, 6):
            path = os.path.join(directory, f"train.multi.{rank}.{index}")
            with open(path, "wb") as f:
                if not (rank == 1 and index == 3):
                    h = pb.Header(key=keys).SerializeToString()
                    f.write(struct.pack("<I", len(h)) + h)
                for r in range(3):
                    step = (index - 1) * 3 + r
                    w = rng.normal(rank, 1 + step, 64).astype(np.float32)
                    g = rng.normal(0, 1e-3, 32)
                    if rank == 0 and index == 3:
                        w[5] = np.nan
                    if rank == 1 and index == 4 and r == 2:
                        g[0] = -np.inf
                    rec = pb.Record(gstep=step * 2, lstep=step, timestamp=1700000000000 + step)
                    rec.column.add(dtype=pb.Float, shape=[64], data=w.tobytes())
                    rec.column.add(dtype=pb.Double, shape=[32], data=g.tobytes())
                    if step % 3 == 2:
                        rec.column.add(dtype=pb.Float, shape=[0], data=b"")
                    else:
                        rec.column.add(dtype=pb.Float, shape=[],
                                       data=np.float32(1.0 / (step + 1)).tobytes())
                    body = rec.SerializeToString()
                    f.write(struct.pack("<I", len(body)) + body)
            open(path + ".meta", "wb").close()


class TaskLog(WorkerPlugin):
    """Appends the key of every xtview task a worker starts to a file shared by the workers;
    kills its worker (SIGKILL) on the first start of a task whose key begins with `kill_prefix`
    (once over all workers: an O_EXCL marker file)."""

    def __init__(self, path, kill_prefix=None, marker=None):
        self.path, self.kill_prefix, self.marker = path, kill_prefix, marker

    def transition(self, key, start, finish, **kwargs):
        if finish != "executing" or not str(key).startswith("xtview-"):
            return
        with open(self.path, "a") as f:
            f.write(f"{key} {os.getpid()}\n")
        if self.kill_prefix and str(key).startswith(self.kill_prefix):
            try:
                os.close(os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:
                return
            os.kill(os.getpid(), signal.SIGKILL)


def started(logfile, prefix):
    if not os.path.exists(logfile):
        return []
    with open(logfile) as f:
        return [line.split() for line in f if line.startswith(prefix)]


def single(path, **kw):
    return xtview.open(path, summary_dir=os.path.join(WORK, "single-summaries"), **kw)


def check_equal(path, client, key=None, rank=None, **kw):
    want = single(path, **{k: v for k, v in kw.items() if k == "mirror_dir"}).stats(key, rank)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no part may be missing here
        got = xd.stats(path, client, key=key, rank=rank, **kw)
    assert got.errors.empty, got.errors
    assert list(got.columns) == list(want.columns)
    assert got.npartitions == len(set(want["rank"])) or want.empty, (got.npartitions,)
    computed = got.compute()
    pd.testing.assert_frame_equal(computed, want, check_index_type=False)
    assert list(computed.index) == list(range(len(want)))
    return want


def main():
    proto_dir, tools, work = sys.argv[1:4]
    sys.path.insert(0, tools)
    from xdl_numpy_reference import load_proto
    pb = load_proto(proto_dir)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    ref = os.path.join(work, "ref")
    subprocess.check_call([sys.executable, f"{tools}/write_xdl_reference.py", proto_dir, ref],
                          stdout=subprocess.DEVNULL)
    multi = os.path.join(work, "multi")
    write_multi_run(pb, multi)
    tasklog = os.path.join(work, "tasks.log")

    cluster = client = server = None
    try:
        log("starting LocalCluster")
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, protocol="tcp",
                               host="127.0.0.1", dashboard_address=None, silence_logs=logging.ERROR)
        client = Client(cluster, timeout=60)
        client.wait_for_workers(2, timeout=60)
        assert client.scheduler.address.startswith("tcp://127.0.0.1:"), client.scheduler.address
        workers = client.scheduler_info()["workers"]
        assert len(workers) == 2 and all(w.startswith("tcp://127.0.0.1:") for w in workers), workers
        pids = client.run(os.getpid)
        assert len(set(pids.values())) == 2 and os.getpid() not in pids.values(), pids
        client.register_worker_plugin(TaskLog(tasklog), name="tasklog")
        log(f"cluster up: scheduler {client.scheduler.address}, worker pids {sorted(pids.values())}")

        # ---- the same results as one machine ----
        for path in (ref, multi):
            check_equal(path, client)
            check_equal(path, client, key="^grad", rank=1)
            check_equal(path, client, key="w$")
        check_equal(multi, client, key="nothing matches this")
        want = single(multi).stats()
        assert "grad/w" in set(want[want["rank"] == 1]["key"])  # borrowed by the headerless part
        fn = xd.first_nonfinite(multi, client)
        pd.testing.assert_frame_equal(fn, single(multi).first_nonfinite())
        assert set(fn["kind"]) == {"nan", "inf"} and fn.attrs["errors"].empty, fn
        pd.testing.assert_frame_equal(xd.first_nonfinite(multi, client, key="^grad", rank=1),
                                      single(multi).first_nonfinite(key="^grad", rank=1))
        log("stats and first_nonfinite equal the single-machine results")

        # ---- summaries: built on the workers, one task per part, then used ----
        summaries = os.path.join(work, "summaries")
        s = xd.summarize(multi, client, summary_dir=summaries)
        assert list(s.columns) == xd.SUMMARY_COLUMNS
        assert len(s) == 10 and set(s["origin"]) == {"built"} and s["error"].isna().all(), s
        assert all(p.startswith(summaries) for p in s["saved_to"]), s["saved_to"]
        ran = started(tasklog, "xtview-summarize-")
        assert len(ran) == 10 and len(set(pid for _, pid in ran)) == 2, ran  # both workers worked
        opened = xtview.open(multi, summary_dir=summaries)
        assert opened.parts()["summary"].all()
        pd.testing.assert_frame_equal(opened.stats(), want)
        check_equal(multi, client, summary_dir=summaries)
        assert set(xd.summarize(multi, client, summary_dir=summaries)["origin"]) == {"loaded"}
        try:
            xd.summarize(multi, client, publish=True)
            raise AssertionError("publish=True accepted for a local run")
        except ValueError as e:
            assert "hdfs://" in str(e), e
        log("summaries built on both workers and used")

        # ---- a worker killed while it runs a task: Dask runs the task again elsewhere ----
        marker = os.path.join(work, "killed")
        client.register_worker_plugin(TaskLog(tasklog, "xtview-stats-", marker), name="tasklog")
        check_equal(multi, client)
        assert os.path.exists(marker), "no worker was killed"
        client.wait_for_workers(2, timeout=60)  # the nanny restarted it
        log("a worker killed mid-task; results still equal")

        # ---- through WebHDFS: each worker mirrors its own parts ----
        root = os.path.join(work, "hdfs")
        shutil.copytree(multi, os.path.join(root, "runs", "multi"))
        server = subprocess.Popen(
            ["/usr/bin/python3", os.path.join(os.environ["XT_SOURCE_DIR"],
                                              "tests/core/storage/webhdfs_test_server.py"),
             "--root", root, "--idle-exit", "60", "--max-life", "200"], stdout=subprocess.PIPE)
        port = int(server.stdout.readline())
        url = f"hdfs://127.0.0.1:{port}/runs/multi"

        def control(query):
            import urllib.request
            return urllib.request.urlopen(f"http://127.0.0.1:{port}/_control?{query}",
                                          timeout=10).read()

        mirror = os.path.join(work, "mirror")
        remote = single(url, mirror_dir=os.path.join(work, "m0"))
        pd.testing.assert_frame_equal(remote.stats(), want)
        assert remote.label == url + "/train.multi", remote.label  # named by URL, not mirror
        assert all(p.startswith(url + "/train.multi.") for p in remote.parts()["path"])
        check_equal(url, client, mirror_dir=mirror)
        log("hdfs:// run: equal results")

        # One part the server refuses (permission denied): Dask retries its task, then it is reported
        # while the other parts complete.
        denied = "/runs/multi/train.multi.1.2"
        control(f"fault=denied&op=OPEN&path={denied}&count=1000")
        before = len(started(tasklog, "xtview-stats-"))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = xd.stats(url, client, mirror_dir=os.path.join(work, "mirror2"), retries=2)
        computed = got.compute()
        errors = got.errors
        assert list(errors["path"]) == [f"hdfs://127.0.0.1:{port}{denied}"], errors
        assert "ermission denied" in errors["error"][0] or "AccessControl" in errors["error"][0], errors
        assert any(issubclass(w.category, xtview.XtviewWarning) and denied in str(w.message)
                   for w in caught), [str(w.message) for w in caught]
        runs_of_denied = [k for k, _ in started(tasklog, "xtview-stats-")[before:]]
        tries = {}
        for k in runs_of_denied:
            if "-info-" not in k and "-rank" not in k:
                tries[k.rsplit("-", 1)[1]] = tries.get(k.rsplit("-", 1)[1], 0) + 1
        assert sorted(tries.values()) == [1] * 9 + [3], tries  # 1 + 2 retries for the denied part
        without = os.path.join(work, "without")
        shutil.copytree(multi, without)
        os.remove(os.path.join(without, "train.multi.1.2"))
        os.remove(os.path.join(without, "train.multi.1.2.meta"))
        pd.testing.assert_frame_equal(computed, single(without).stats(), check_index_type=False)
        control("clear=1")
        log("a refused part: retried 2 times, reported; the other 9 parts complete")

        # Summaries published beside the parts on HDFS: a fresh machine (no mirror, no cache)
        # then opens the run from them; publishing again uploads nothing.
        shutil.copytree(multi, os.path.join(root, "runs", "pub"))
        pub = f"hdfs://127.0.0.1:{port}/runs/pub"
        p = xd.summarize(pub, client, publish=True, summary_dir=os.path.join(work, "s5"),
                         mirror_dir=os.path.join(work, "mirror5"))
        assert len(p) == 10 and set(p["origin"]) == {"built"} and p["error"].isna().all(), p
        assert p["publish_error"].isna().all(), p
        assert list(p["published"]) == [u + ".xts" for u in p["path"]], p
        for u in p["path"]:
            assert os.path.isfile(os.path.join(root, "runs", "pub", u.rsplit("/", 1)[1] + ".xts"))
        control("clear=1")
        fresh = xtview.open(pub, summary_dir=os.path.join(work, "s6"),
                            mirror_dir=os.path.join(work, "m6"))
        assert fresh.parts()["summary"].all(), fresh.parts()
        pd.testing.assert_frame_equal(fresh.stats(), want)
        # (These parts are smaller than one 64 KiB fetch block: the bytes a large part saves
        # are counted by the C++ remote-summary tests. Here: no data byte is fetched twice.)
        served = json.loads(control("stats=1"))["served"]
        data = sum(n for f, n in served.items() if not f.endswith((".meta", ".xts")))
        total = sum(os.path.getsize(os.path.join(multi, f)) for f in os.listdir(multi)
                    if not f.endswith(".meta"))
        assert data <= total, (data, total, served)
        renames = json.loads(control("stats=1"))["counts"].get("RENAME", 0)
        again = xd.summarize(pub, client, publish=True, summary_dir=os.path.join(work, "s7"),
                             mirror_dir=os.path.join(work, "mirror7"))
        assert set(again["origin"]) == {"loaded"}, again
        assert list(again["published"]) == list(p["published"]), again
        assert json.loads(control("stats=1"))["counts"].get("RENAME", 0) == renames
        control("clear=1")
        log("summaries published on HDFS, opened from there, not uploaded twice")

        # The server goes down while the workers read: every task fails (retried), the call returns
        # in bounded time and reports each part.
        control("fault=slow&op=DN_OPEN&count=1000&delay_ms=3000")
        killer = threading.Timer(1.0, server.kill)
        killer.start()
        t0 = time.monotonic()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", xtview.XtviewWarning)
            down = xd.summarize(url + "/train.multi.0.*", client,
                                summary_dir=os.path.join(work, "s3"),
                                mirror_dir=os.path.join(work, "mirror3"), retries=1)
        took = time.monotonic() - t0
        killer.join()
        assert len(down) == 5 and down["error"].notna().all(), down
        assert all(f"127.0.0.1:{port}" in e for e in down["error"]), list(down["error"])
        assert took < 120, took
        e = None
        try:
            xtview.open(url, mirror_dir=os.path.join(work, "m4"))
        except xtview.ReadError as exc:
            e = exc
        assert e is not None and f"127.0.0.1:{port}" in str(e), e
        log(f"server down mid-task: all 5 parts reported in {took:.1f} s")
    finally:
        if client is not None:
            client.close(timeout=20)
        if cluster is not None:
            cluster.close(timeout=20)
        if server is not None and server.poll() is None:
            server.kill()
    shutil.rmtree(work, ignore_errors=True)
    log("ok")


if __name__ == "__main__":
    WORK = sys.argv[3]
    if os.environ.get("XT_DASK_TEST_CHILD") != "1":
        sys.exit(supervise())
    main()
