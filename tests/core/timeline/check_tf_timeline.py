#!/usr/bin/env python3
"""Checks `xtrace timeline --summary --json` on TensorFlow StepStats against a restatement, written
here, of what TensorFlow's timeline.py (Timeline.analyze_step_stats(show_dataflow=True,
show_memory=True)) makes of them: every dataflow arrow it draws (those pointing back in time
included, and dropped with --chrome-compatible-flows), and for each allocator the tensors that
its allocator_maximums hold, with their sizes and producing ops.

The StepStats are built with Python protobuf the way TensorFlow's timeline tests build them
(RunMetadata().step_stats.dev_stats.add(), node_stats.add()): hand-made cases (ops that start
before their producer ends, tensors alive across the peak, an allocation and a free at one time,
two allocators interleaved) and random graphs with coarse times that force ties. The same checks
run on the Chrome JSON that timeline.py would write for each file, written here too.

usage: check_tf_timeline.py XTRACE PROTO_DIR     (exit 77 = skipped)
"""
import copy
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

try:
    import google.protobuf  # noqa: F401
except ImportError as e:
    print(f"skipped: /usr/bin/python3 lacks protobuf ({e})")
    sys.exit(77)

xtrace, proto_dir = sys.argv[1:3]
work = tempfile.mkdtemp(prefix="xt_tf_timeline_")
subprocess.check_call(["protoc", "-I", proto_dir, "--python_out", work,
                       os.path.join(proto_dir, "step_stats.proto")])
sys.path.insert(0, work)
import step_stats_pb2 as pb  # noqa: E402

CPU = "/job:localhost/replica:0/task:0/device:CPU:0"
GPU = "/job:localhost/replica:0/task:0/device:GPU:0"
STREAM = "/device:GPU:0/stream:all"


# ---- Building StepStats as TensorFlow's timeline tests do -------------------------------------

def add_node(dev, name, op, start, dur, inputs=(), outputs=()):
    """One NodeExecStats; outputs are (requested_bytes, allocator) or None (no description)."""
    ns = dev.node_stats.add()
    ns.node_name = name
    ns.all_start_micros = start
    ns.op_start_rel_micros = 0
    ns.op_end_rel_micros = dur
    ns.all_end_rel_micros = dur
    ns.timeline_label = f"{name} = {op}({', '.join(inputs)})"
    for slot, out in enumerate(outputs):
        o = ns.output.add()
        o.slot = slot
        o.tensor_description.dtype = 1
        o.tensor_description.shape.dim.add().size = 4
        if out is not None:
            o.tensor_description.allocation_description.requested_bytes = out[0]
            o.tensor_description.allocation_description.allocator_name = out[1]
    return ns


def case_backwards():
    """GPU ops that start before the op producing their input ends (asynchronous kernels), a
    multi-output node, a Send/Recv suffix, a control input and a GPU tracer stream."""
    rm = pb.RunMetadata()
    cpu = rm.step_stats.dev_stats.add()
    cpu.device = CPU
    add_node(cpu, "a", "Const", 1000, 10, outputs=[(400, "cpu")])
    gpu = rm.step_stats.dev_stats.add()
    gpu.device = GPU
    add_node(gpu, "b", "MatMul", 1002, 20, ["a"], [(256, "GPU_0_bfc"), (64, "GPU_0_bfc")])
    add_node(gpu, "c", "Relu", 1005, 3, ["b:1"], [(64, "GPU_0_bfc")])
    add_node(gpu, "d", "AddN", 1030, 4, ["b", "c", "^a"], [(256, "GPU_0_bfc")])
    add_node(gpu, "e", "Identity", 1040, 2, ["a/_3"], [(400, "GPU_0_bfc")])
    stream = rm.step_stats.dev_stats.add()
    stream.device = STREAM
    k = stream.node_stats.add()
    k.node_name = "b:MatMul"
    k.all_start_micros = 1003
    k.all_end_rel_micros = 15
    k.timeline_label = "sgemm @@b:MatMul#id=1#"
    return rm


def case_same_time():
    """An allocation at the time of a free; a tensor freed when it is created (zero-length op
    nobody consumes); a 0-byte tensor; a tensor alive across the peak instant."""
    rm = pb.RunMetadata()
    cpu = rm.step_stats.dev_stats.add()
    cpu.device = CPU
    add_node(cpu, "long", "Const", 2000, 1, outputs=[(1000, "cpu")])
    add_node(cpu, "p", "Const", 2100, 10, outputs=[(100, "cpu")])
    add_node(cpu, "w", "Shape", 2101, 2, ["p"], outputs=[(0, "cpu")])
    add_node(cpu, "q", "Neg", 2105, 6, ["p", "w"], outputs=[(40, "cpu")])  # frees p at 2110
    add_node(cpu, "z", "Const", 2108, 0, outputs=[(30, "cpu")])
    add_node(cpu, "r", "Const", 2110, 5, outputs=[(500, "cpu")])  # allocated as p is freed
    add_node(cpu, "s", "Add", 2200, 3, ["r", "long", "q"], outputs=[None])
    return rm.step_stats  # a bare StepStats, as some tools write it


def case_two_allocators():
    """Tensors of two allocators interleaved in time on one device, peaking at different
    times, plus outputs without an allocation description (allocator "")."""
    rm = pb.RunMetadata()
    gpu = rm.step_stats.dev_stats.add()
    gpu.device = GPU
    t = 3000
    prev = None
    for i in range(8):
        alloc = "GPU_0_bfc" if i % 2 == 0 else "cuda_host_bfc"
        inputs = [prev] if prev else []
        add_node(gpu, f"n{i}", "Op" + str(i % 3), t, 4, inputs,
                 [(1 << (i % 4 + 4), alloc), None])
        prev = f"n{i}"
        t += 3 if i % 3 else 5
    return rm


def case_random(seed):
    """A random graph over a CPU and a GPU device with coarse times (many ties), zero-length ops,
    multi-output nodes, Send/Recv suffixes, control inputs, 0-byte tensors, two allocators."""
    rng = random.Random(seed)
    rm = pb.RunMetadata()
    devs = []
    for name in (CPU, GPU):
        d = rm.step_stats.dev_stats.add()
        d.device = name
        devs.append(d)
    produced = []  # tensor names
    for i in range(rng.randint(6, 30)):
        dev = devs[rng.randrange(2)]
        start = 5000 + rng.randrange(0, 40, 2)
        dur = rng.choice([0, 1, 2, 2, 4, 6, 10])
        inputs = []
        for _ in range(rng.randint(0, 3) if produced else 0):
            src = rng.choice(produced)
            kind = rng.random()
            inputs.append(src + "/_%d" % rng.randint(1, 9) if kind < 0.15 and ":" not in src
                          else "^" + src if kind < 0.25 else src)
        outs = []
        for _ in range(rng.choice([0, 1, 1, 1, 2, 3])):
            if rng.random() < 0.1:
                outs.append(None)
            else:
                outs.append((rng.choice([0, 4, 8, 16, 16, 100, 256]),
                             rng.choice(["cpu", "GPU_0_bfc"])))
        name = f"op{i}"
        add_node(dev, name, rng.choice(["MatMul", "Add", "Relu", "Const"]), start, dur, inputs,
                 outs)
        produced += [name if k == 0 else f"{name}:{k}" for k in range(len(outs))]
    for d in devs:  # timeline.py lanes in file order; keep it time-ordered like real StepStats
        nodes = sorted(d.node_stats, key=lambda n: n.all_start_micros)
        nodes = [copy.deepcopy(n) for n in nodes]
        del d.node_stats[:]
        d.node_stats.extend(nodes)
    return rm


# ---- timeline.py's rules, restated ------------------------------------------------------------

def restate(step_stats):
    """Returns (chrome_trace, arrows, maximums, tensors) as timeline.py would compute them:
    arrows: [(producer_end, consumer_start)]; maximums: {allocator: (ts, bytes, {names})};
    tensors: {name: (bytes, allocator, producing op)}."""
    meta, events = [], []
    pid = {}
    next_pid = [0]

    def new_pid(label):
        p = next_pid[0]
        next_pid[0] += 1
        meta.append({"name": "process_name", "ph": "M", "pid": p, "args": {"name": label}})
        return p

    allocators_pid = new_pid("Allocators")
    for d in step_stats.dev_stats:
        pid[d.device] = (new_pid(d.device + " Compute"), new_pid(d.device + " Tensors"))

    # Lanes: the first whose last op ended strictly before this one starts (lane 0 starts at 0).
    lane = {}
    for d in step_stats.dev_stats:
        ends = [0]
        for k, ns in enumerate(d.node_stats):
            free = [i for i, e in enumerate(ends) if ns.all_start_micros > e]
            i = free[0] if free else len(ends)
            if not free:
                ends.append(0)
            ends[i] = ns.all_start_micros + ns.all_end_rel_micros
            lane[(d.device, k)] = i

    def parse_label(label):
        m = re.match(r"(.*) = (.*)\((.*)\)", label)
        if not m:
            return "unknown", []
        return m.group(2), (m.group(3).split(", ") if m.group(3) else [])

    def is_tracer(device):
        return "/stream:" in device or "/memcpy" in device

    # Tensors: created at the producer's start, unreferenced at its end and at each consumer's
    # end minus 1; N and a snapshot (at end - 1) per output.
    tensors = {}  # name -> dict
    for d in step_stats.dev_stats:
        cpid, tpid = pid[d.device]
        for k, ns in enumerate(d.node_stats):
            start, end = ns.all_start_micros, ns.all_start_micros + ns.all_end_rel_micros
            for slot, out in enumerate(ns.output):
                name = ns.node_name if slot == 0 else f"{ns.node_name}:{slot}"
                a = out.tensor_description.allocation_description
                tensors[name] = {"id": len(tensors), "created": start, "unrefs": [end],
                                 "bytes": a.requested_bytes, "allocator": a.allocator_name,
                                 "pid": tpid, "flow": (end, cpid, lane[(d.device, k)]),
                                 "op": parse_label(ns.timeline_label)[0]}
                t = tensors[name]
                events.append({"ph": "N", "cat": "Tensor", "name": name, "pid": tpid,
                               "tid": lane[(d.device, k)], "ts": start, "id": t["id"]})
                desc = str(out.tensor_description).replace('"', "")
                events.append({"ph": "O", "cat": "Tensor", "name": name, "pid": tpid,
                               "tid": lane[(d.device, k)], "ts": end - 1, "id": t["id"],
                               "args": {"snapshot": {"tensor_description": desc}}})
    arrows = []
    for d in step_stats.dev_stats:
        cpid, _ = pid[d.device]
        for k, ns in enumerate(d.node_stats):
            tid = lane[(d.device, k)]
            start, end = ns.all_start_micros, ns.all_start_micros + ns.all_end_rel_micros
            if is_tracer(d.device):
                name, op = (ns.node_name.split(":") + ["unknown"])[:2]
                at, bt = ns.timeline_label.find("@@"), ns.timeline_label.find("#")
                if at >= 0 and bt >= 0 and at + 2 < bt:
                    name, op = (ns.timeline_label[at + 2:bt].split(":") + ["unknown"])[:2]
                inputs = []
            elif ns.node_name == "RecvTensor":
                name, op, inputs = ns.node_name, "RecvTensor", []
            else:
                name = ns.node_name
                op, inputs = parse_label(ns.timeline_label)
            args = {"name": name, "op": op}
            args.update({f"input{i}": x for i, x in enumerate(inputs)})
            events.append({"ph": "X", "cat": "Op", "name": op, "pid": cpid, "tid": tid,
                           "ts": start, "dur": ns.all_end_rel_micros, "args": args})
            for x in inputs:
                if x not in tensors and x.rfind("/_") > 0:
                    x = x[:x.rfind("/_")]
                if x not in tensors:
                    continue
                t = tensors[x]
                t["unrefs"].append(end - 1)
                ftime, fpid, ftid = t["flow"]
                if (fpid, ftid) != (cpid, tid):
                    fid = len(arrows)
                    arrows.append((ftime, start))
                    events.append({"ph": "s", "cat": "DataFlow", "name": x, "pid": fpid,
                                   "tid": ftid, "ts": ftime, "id": fid})
                    events.append({"ph": "t", "cat": "DataFlow", "name": x, "pid": cpid,
                                   "tid": tid, "ts": start, "id": fid})
    # Memory: per allocator, allocations and frees sorted by (time, bytes, name); the maximum
    # is the first total above every earlier one, with the set of names as it is then.
    per = {}
    for name, t in tensors.items():
        last = max(t["unrefs"])
        events.append({"ph": "D", "cat": "Tensor", "name": name, "pid": t["pid"], "tid": 0,
                       "ts": last, "id": t["id"]})
        per.setdefault(t["allocator"], []).extend(
            [(t["created"], t["bytes"], name), (last, -t["bytes"], name)])
    maximums = {}
    for alloc, entries in per.items():
        total, live, best = 0, set(), (0, 0, set())
        for ts, delta, name in sorted(entries):
            total += delta
            (live.discard if delta < 0 else live.add)(name)
            if total > best[1]:
                best = (ts, total, set(live))
            events.append({"ph": "C", "cat": "Memory", "name": alloc, "pid": allocators_pid,
                           "tid": 0, "ts": ts, "args": {alloc: total}})
        maximums[alloc] = best
    info = {n: (t["bytes"], t["allocator"], t["op"]) for n, t in tensors.items()}
    return {"traceEvents": meta + events}, arrows, maximums, info


# ---- Checks ---------------------------------------------------------------------------------

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def summary(path, *flags):
    out = subprocess.run([xtrace, "timeline", path, "--summary", "--json", *flags],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"xtrace timeline {path} failed: {out.stderr}")
    return json.loads(out.stdout)


def compare(label, path, arrows, maximums, info):
    back = sum(1 for s, t in arrows if t < s)
    got = summary(path)
    warnings = got["warnings"]
    check(got["flows"] == len(arrows), f"{label}: flows {got['flows']}, timeline.py draws "
                                       f"{len(arrows)}")
    check(warnings.get("backwards-flow", 0) == back,
          f"{label}: backwards-flow {warnings.get('backwards-flow', 0)}, expected {back}")
    check("flow-without-start" not in warnings, f"{label}: flow-without-start {warnings}")
    chrome = summary(path, "--chrome-compatible-flows")
    check(chrome["flows"] == len(arrows) - back,
          f"{label}: chrome-compatible flows {chrome['flows']}, expected {len(arrows) - back}")
    check(chrome["warnings"].get("flow-without-start", 0) == back,
          f"{label}: chrome-compatible flow-without-start {chrome['warnings']}")
    memory = {m["allocator"]: m for m in got["memory"] if "allocator" in m}
    check(set(memory) == set(maximums),
          f"{label}: allocators {sorted(memory)}, timeline.py {sorted(maximums)}")
    for alloc, (ts, num_bytes, names) in maximums.items():
        m = memory.get(alloc)
        if m is None:
            continue
        where = f"{label}: allocator {alloc!r}"
        live = {t["name"]: t for t in m["live_tensors"]}
        if num_bytes > 0:  # else timeline.py keeps no maximum (time 0, no tensors)
            check(m["peak"] == num_bytes and m["ts_us"] == ts,
                  f"{where}: peak {m['peak']} at {m['ts_us']}, timeline.py {num_bytes} at {ts}")
        check(set(live) == names, f"{where}: live {sorted(live)}, timeline.py {sorted(names)}")
        check(m["live_objects"] == len(names), f"{where}: live_objects {m['live_objects']}")
        for n, t in live.items():
            if n in info:
                check(t["bytes"] == info[n][0] and t["op"] == info[n][2],
                      f"{where}: {n} {t['bytes']} bytes by {t['op']}, expected {info[n]}")
        want_all = sum(b for b, a, _ in info.values() if a == alloc)
        check(m["allocated_bytes"] == want_all,
              f"{where}: allocated_bytes {m['allocated_bytes']}, expected {want_all}")
    return back


cases = [("backwards", case_backwards()), ("same-time", case_same_time()),
         ("two-allocators", case_two_allocators())]
cases += [(f"random-{seed}", case_random(seed)) for seed in range(40)]
totals = {"arrows": 0, "backwards": 0, "tensors at peaks": 0}
for label, msg in cases:
    step_stats = msg.step_stats if isinstance(msg, pb.RunMetadata) else msg
    trace, arrows, maximums, info = restate(step_stats)
    pb_path = os.path.join(work, label + ".pb")
    with open(pb_path, "wb") as f:
        f.write(msg.SerializeToString())
    json_path = os.path.join(work, label + ".json")
    with open(json_path, "w") as f:
        json.dump(trace, f, separators=(",", ":"))
    for kind, path in (("pb", pb_path), ("json", json_path)):
        back = compare(f"{label}.{kind}", path, arrows, maximums, info)
    totals["arrows"] += len(arrows)
    totals["backwards"] += back
    totals["tensors at peaks"] += sum(len(m[2]) for m in maximums.values())

# The hand-made cases hold what they are meant to hold.
_, arrows, maximums, _ = restate(case_backwards().step_stats)
check(sum(1 for s, t in arrows if t < s) == 2, "case backwards: two arrows back in time")
_, _, maximums, _ = restate(case_same_time())
check(maximums["cpu"][0] == 2110 and maximums["cpu"][2] == {"long", "w", "q", "z", "r"},
      f"case same-time: the peak is where p is freed and r allocated: {maximums['cpu']}")
_, _, maximums, _ = restate(case_two_allocators().step_stats)
check(len(maximums) == 3 and maximums["GPU_0_bfc"][0] != maximums["cuda_host_bfc"][0],
      f"case two-allocators: {maximums}")
check(totals["backwards"] > 20, f"random cases hold few backwards arrows: {totals}")

shutil.rmtree(work)
print(f"{len(cases)} StepStats cases, each as .pb and as timeline.py's JSON: {totals}")
if failures:
    print("\n".join(failures[:40]))
    print(f"{len(failures)} mismatches")
    sys.exit(1)
print("all match timeline.py")
