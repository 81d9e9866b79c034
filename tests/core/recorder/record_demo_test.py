#!/usr/bin/python3
"""`xtrace record-demo`: 4 ranks x 3 parts by default, deterministic, finalised metas, a NaN in
one gradient on one rank, the config traced once. Checked with `xtrace info --json` and `dump`."""

import filecmp
import json
import os
import shutil
import subprocess
import sys
import time

out = sys.argv[1]
xtrace = os.environ["XTRACE"]
a, b = out + "/a", out + "/b"
shutil.rmtree(out, ignore_errors=True)
subprocess.check_call([xtrace, "record-demo", a])
subprocess.check_call([xtrace, "record-demo", b])
files = sorted(f for f in os.listdir(a) if not f.endswith(".xts"))
assert files == sorted(f for f in os.listdir(b) if not f.endswith(".xts"))
assert len(files) == 24, files  # 4 ranks x 3 parts, each with its .meta
# ... and its summary (which names its own part, so a's and b's differ)
summaries = sorted(f for f in os.listdir(a) if f.endswith(".xts"))
assert summaries == sorted(f + ".xts" for f in files if not f.endswith(".meta")), summaries
match, mismatch, errors = filecmp.cmpfiles(a, b, files, shallow=False)
assert not mismatch and not errors, (mismatch, errors)

info = json.loads(subprocess.check_output([xtrace, "info", "--json", a]))
assert info["diagnostics"]["errors"] == 0, info["diagnostics"]
run = info["runs"][0]
assert run["records"] == 400 and len(run["ranks"]) == 4, run["records"]
assert run["summarized_parts"] == 12, run["summarized_parts"]
for rank in run["ranks"]:
    assert len(rank["parts"]) == 3 and all(p["meta"] == "finalised" for p in rank["parts"])
keys = {k["name"]: k for k in run["keys"]}
assert keys["config"]["dtype"] == "int8" and keys["config"]["records"] == 4, keys["config"]
assert keys["loss"]["shape"] == [] and keys["optimizer/learning_rate"]["shape"] == []
ts = run["timestamp"]
assert 100 * 150 <= ts[1] - ts[0] <= 100 * 260, ts  # ~180 ms per step with jitter


def dump(key, step, rank):
    text = subprocess.check_output([xtrace, "dump", a, "--key", key, "--step", str(step),
                                    "--rank", str(rank)], text=True)
    return [v for line in text.splitlines() if not line.startswith("#") for v in line.split()]


assert dump("gradient/fc2/weight", 66, 1)[3] == "nan"
assert "nan" not in dump("gradient/fc2/weight", 65, 1)
assert "nan" not in dump("gradient/fc2/weight", 66, 0)
config = bytes(int(v) for v in dump("config", 0, 2)).decode()
assert json.loads(config)["rank"] == 2, config

small = out + "/small"
subprocess.check_call([xtrace, "record-demo", small, "--ranks", "2", "--steps", "10",
                       "--max-mb", "1"])
info = json.loads(subprocess.check_output([xtrace, "info", "--json", small]))
assert info["runs"][0]["records"] == 20 and len(info["runs"][0]["ranks"]) == 2
assert subprocess.call([xtrace, "record-demo", small, "--ranks", "0"]) == 1

# --live: paced by the rate, stamped with the system clock.
live = out + "/live"
started = time.time()
subprocess.check_call([xtrace, "record-demo", live, "--live", "--rate", "100", "--steps", "30",
                       "--ranks", "2"])
took = time.time() - started
assert took >= 29 / 100, took
info = json.loads(subprocess.check_output([xtrace, "info", "--json", live]))
run = info["runs"][0]
assert run["records"] == 60 and info["diagnostics"]["errors"] == 0, run["records"]
ts = run["timestamp"]
assert started * 1000 - 1000 <= ts[0] <= ts[1] <= time.time() * 1000, (started, ts)
print("record-demo: ok")
