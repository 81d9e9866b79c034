#!/usr/bin/python3
"""Runs examples/record_training_loop.py (numpy path) and checks its run with `xtrace info`."""

import json
import os
import shutil
import subprocess
import sys

out = sys.argv[1]
shutil.rmtree(out, ignore_errors=True)
example = os.path.join(os.environ["XT_SOURCE_DIR"], "examples", "record_training_loop.py")
subprocess.check_call([sys.executable, example, out, "--steps", "60", "--every", "2",
                       "--numpy"])
info = json.loads(subprocess.check_output([os.environ["XTRACE"], "info", "--json", out]))
run = info["runs"][0]
assert info["diagnostics"]["errors"] == 0, info["diagnostics"]
assert run["records"] == 30, run
assert run["lstep"] == [1, 59], run
names = [k["name"] for k in run["keys"]]
assert names[:7] == ["fc1/weight", "fc1/bias", "fc2/weight", "gradient/fc1/weight",
                     "gradient/fc2/weight", "fc1/activation", "loss"], names
assert names[7:] == ["optimizer/lr", "config"], names
keys = {k["name"]: k for k in run["keys"]}
assert keys["fc1/activation"]["shape"] == [32], keys["fc1/activation"]
assert keys["fc1/weight"]["shape"] == [1, 32], keys["fc1/weight"]
print("example: ok")
