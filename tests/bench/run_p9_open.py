#!/usr/bin/env python3
"""P9/P10 (PERFORMANCE.md): time to the first plot and peak memory of xtview opening large runs.

    tests/bench/run_p9_open.py BUILD_DIR [--data DIR] [--runs N] [--only NAME,...]

Generates the runs once under DIR (default $XT_BENCH_DIR or /tmp): a 10 GB and a 100 MB run of
4 ranks with ~1 MB records, a 1 GB run of ~200 B records, and 1024 ranks x 3 parts (the demo).
Each run is opened N times (default 3) with no stored summaries ("first open": the summary cache
is emptied and no .xts file is beside the parts) and N times with the summaries the first opens
left ("re-open"). xtview runs offscreen with XT_TRACE_STARTUP=1 and prints the first plot's time
(a large summarised run is drawn first from its summaries' overviews, a large run without
summaries from its first records), the first exact plot's time and its longest GUI-thread stall,
also the longest during which the hypervisor took no CPU time from the machine (no steal in
/proc/stat); /usr/bin/time gives the peak RSS of the whole process (the background summarising
included). Prints medians, and re-open(10 GB) / re-open(100 MB) as a
ratio measured in the same invocation. --first-plot-only stops each first open half a second
after its first plot (for p9-10gb-200b, whose first open summarises for minutes); --until-idle
opens without --screenshot, which gives up after 120 s, and stops xtview once it is idle.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

RUNS = {
    # name: (generator arguments or None for the demo, key to show)
    "p9-10gb": (["--ranks", "4", "--bytes", "10000000000", "--record-bytes", "1000000"],
                "fc1/weight"),
    "p9-100mb": (["--ranks", "4", "--bytes", "100000000", "--record-bytes", "1000000"],
                 "fc1/weight"),
    "p9-1gb-200b": (["--ranks", "4", "--bytes", "1000000000", "--record-bytes", "200"], "loss"),
    "p10-1024": (None, "fc1/weight"),
    # P9's ~200 B variant at its full size: 52 M records, 10 GB and 21 GB of summaries, so only
    # with --only (it needs 32 GB of disk and ~2 minutes to summarise).
    "p9-10gb-200b": (["--ranks", "4", "--bytes", "10000000000", "--record-bytes", "200"], "loss"),
}
DEFAULT = ["p9-10gb", "p9-100mb", "p9-1gb-200b", "p10-1024"]


def generate(build, data, name, args):
    path = os.path.join(data, name)
    if args is None:
        if not os.path.isdir(path):
            subprocess.run([os.path.join(build, "app/xtrace/xtrace"), "record-demo", path,
                            "--ranks", "1024", "--steps", "30", "--max-mb", "0.08"],
                           check=True, stdout=subprocess.DEVNULL)
    else:
        subprocess.run([os.path.join(build, "tests/bench/xt_gen_run"), path] + args, check=True,
                       stdout=subprocess.DEVNULL)
    return path


def drop_summaries(run, cache):
    shutil.rmtree(cache, ignore_errors=True)
    for root, _, files in os.walk(run):
        for f in files:
            if f.endswith(".xts"):
                os.remove(os.path.join(root, f))


def open_until(build, run, key, cache, workdir, stop):
    """Opens `run` without --screenshot until stop(line) is true for a line xtview prints, then
    stops it. Returns what it printed and its peak RSS (VmHWM) at that moment in kB (None when
    it ended before)."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XT_TRACE_STARTUP="1",
               XDG_CACHE_HOME=cache)
    p = subprocess.Popen([os.path.join(build, "app/xtview/xtview"), run, "--key", key,
                          "--settings", os.path.join(workdir, "settings.ini")],
                         env=env, stderr=subprocess.PIPE, text=True)
    out, hwm = "", None
    for line in p.stderr:
        out += line
        if stop(line):
            with open("/proc/%d/status" % p.pid) as f:
                hwm = int(re.search(r"VmHWM:\s+(\d+)", f.read()).group(1))
            break
    p.kill()
    p.wait()
    return out, hwm


def first_plot_only(build, run, key, cache, workdir):
    """Opens `run` until its first plot, then stops xtview: the time to it and the peak RSS half a
    second later (a first open of 10 GB of small records goes on summarising for minutes)."""
    t0 = time.time()

    def plotted(line):
        if "first plot after" not in line:
            return False
        time.sleep(0.5)
        return True

    out, hwm = open_until(build, run, key, cache, workdir, plotted)
    first = re.search(r"first plot after (\d+) ms", out)
    if hwm is None or not first:
        sys.exit("xtview showed no plot of %s" % run)
    return {"first_plot_ms": int(first.group(1)), "exact_plot_ms": int(first.group(1)),
            "idle_ms": 0, "stall_ms": 0, "unstolen_stall_ms": 0, "rss_mb": hwm / 1024.0,
            "wall_s": time.time() - t0}


def open_result(run, out, rss_kb, wall_s, failed):
    """The figures of an open from what xtview printed; exits when it printed no idle line or
    `failed`."""
    first = re.search(r"first plot after (\d+) ms", out)
    exact = re.search(r"exact plot after (\d+) ms", out)
    idle = re.search(r"idle after (\d+) ms, longest GUI-thread stall (\d+) ms", out)
    if failed or rss_kb is None or not (first and idle):
        sys.exit("xtview failed on %s:\n%s" % (run, out))
    detail = re.search(r"longest GUI-thread stall \d+ ms \(([^)]*)\)", out)
    event = re.search(r"longest event handled: (.*)", out)
    unstolen = re.search(r"while the host took no CPU time \(no steal counted\): (\d+) ms "
                         r"\(([^)]*)\)", out)
    print("  %s: longest GUI stall %s ms (%s); with no steal %s; longest event %s" %
          (os.path.basename(run), idle.group(2), detail.group(1) if detail else "",
           "%s ms (%s)" % unstolen.groups() if unstolen else "?",
           event.group(1) if event else "?"), flush=True)
    # (builds before the overviews print no exact plot: their first plot is exact)
    return {"first_plot_ms": int(first.group(1)),
            "exact_plot_ms": int((exact or first).group(1)),
            "idle_ms": int(idle.group(1)), "stall_ms": int(idle.group(2)),
            "unstolen_stall_ms": int(unstolen.group(1)) if unstolen else 0,
            "rss_mb": rss_kb / 1024.0, "wall_s": wall_s}


def open_until_idle(build, run, key, cache, workdir):
    """Opens `run` without --screenshot (which gives up after 120 s) until xtview reports it
    idle, then stops it: the first open of 10 GB of small records summarises for minutes. The
    peak RSS is the process's VmHWM at that moment."""
    t0 = time.time()
    out, hwm = open_until(build, run, key, cache, workdir, lambda line: "idle after" in line)
    return open_result(run, out, hwm, time.time() - t0, False)


def open_once(build, run, key, cache, workdir):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XT_TRACE_STARTUP="1",
               XDG_CACHE_HOME=cache)
    cmd = ["/usr/bin/time", "-f", "peak_rss_kb %M wall_s %e",
           os.path.join(build, "app/xtview/xtview"), run, "--key", key,
           "--screenshot", os.path.join(workdir, "shot.png"),
           "--settings", os.path.join(workdir, "settings.ini")]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    rss = re.search(r"peak_rss_kb (\d+) wall_s ([\d.]+)", p.stderr)
    return open_result(run, "exit %d:\n%s" % (p.returncode, p.stderr),
                       int(rss.group(1)) if rss else None,
                       float(rss.group(2)) if rss else 0.0, p.returncode != 0)


def median_of(samples):
    return {k: statistics.median(s[k] for s in samples) for k in samples[0]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--data", default=os.environ.get("XT_BENCH_DIR", "/tmp"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", default=",".join(DEFAULT))
    ap.add_argument("--until-idle", action="store_true",
                    help="open without --screenshot until xtview is idle, then stop it (no "
                         "120 s limit; peak RSS is the VmHWM at that moment)")
    ap.add_argument("--first-plot-only", action="store_true",
                    help="first opens only, each stopped half a second after its first plot "
                         "(idle and stall are then 0; peak RSS is up to that moment)")
    a = ap.parse_args()
    whole_open = open_until_idle if a.until_idle else open_once
    build = os.path.abspath(a.build)
    workdir = tempfile.mkdtemp(prefix="xt_p9_")
    cache = os.path.join(workdir, "cache")
    results = {}
    for name in a.only.split(","):
        gen, key = RUNS[name]
        run = generate(build, a.data, name, gen)
        subprocess.run(["sh", "-c", 'cat "$0"/* > /dev/null', run], check=True)  # page cache
        first, again = [], []
        for _ in range(a.runs):
            drop_summaries(run, cache)
            first.append((first_plot_only if a.first_plot_only else whole_open)(build, run, key,
                                                                             cache, workdir))
        if a.first_plot_only:
            m = median_of(first)
            print("%-12s first open first plot %6.0f ms  peak RSS %7.1f MB (0.5 s after it)" %
                  (name, m["first_plot_ms"], m["rss_mb"]), flush=True)
            continue
        for _ in range(a.runs):
            again.append(whole_open(build, run, key, cache, workdir))
        results[name] = (median_of(first), median_of(again))
        for label, m in (("first open", results[name][0]), ("re-open", results[name][1])):
            print("%-12s %-10s first plot %6.0f ms  exact %6.0f ms  idle %6.0f ms  "
                  "GUI stall %4.0f ms (%4.0f ms with no steal)  peak RSS %7.1f MB  wall %5.2f s" %
                  (name, label, m["first_plot_ms"], m["exact_plot_ms"], m["idle_ms"],
                   m["stall_ms"], m["unstolen_stall_ms"], m["rss_mb"], m["wall_s"]), flush=True)
    if "p9-10gb" in results and "p9-100mb" in results:
        print("re-open first plot, 10 GB / 100 MB: %.2f" %
              (results["p9-10gb"][1]["first_plot_ms"] / results["p9-100mb"][1]["first_plot_ms"]))
    shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
