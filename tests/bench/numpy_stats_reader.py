#!/usr/bin/env python3
"""P2 reference and data generator: a plain numpy + python protobuf reader computing the
`xtrace stats` statistics (core/analysis/tensor_stats.h) of every (key, record) of XDL data files.

usage: numpy_stats_reader.py write DIR MB     writes ~MB megabytes of float32 records (1 rank)
       numpy_stats_reader.py read DIR          reads every data file under DIR; prints records/s
Needs /usr/bin/python3 with python3-numpy and python3-protobuf, and protoc.
"""
import atexit
import glob
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO = os.path.join(HERE, "..", "..", "proto")


def load_proto():
    gen = tempfile.mkdtemp(prefix="xdl_pb_")
    atexit.register(shutil.rmtree, gen, True)
    subprocess.check_call(["protoc", "-I", PROTO, "--python_out", gen,
                           os.path.join(PROTO, "xdl.proto")])
    sys.path.insert(0, gen)
    import xdl_pb2  # noqa: E402
    return xdl_pb2


def write(directory, mb):
    pb = load_proto()
    os.makedirs(directory, exist_ok=True)
    keys = ["layer1/weight", "layer1/grad"]
    n = 1 << 20  # float32 per column: 4 MB
    records = max(1, int(mb * 1e6 / (len(keys) * n * 4)))
    rng = np.random.default_rng(1)
    base = rng.normal(0, 1, n).astype(np.float32)
    path = os.path.join(directory, "train.bench.0.1")
    with open(path, "wb") as f:
        h = pb.Header(key=keys).SerializeToString()
        f.write(struct.pack("<I", len(h)) + h)
        for step in range(records):
            rec = pb.Record(gstep=step, lstep=step, timestamp=1700000000000 + step)
            for k in range(len(keys)):
                v = base * np.float32(1 + 0.01 * step) + np.float32(k)
                rec.column.add(dtype=pb.Float, shape=[n], data=v.tobytes())
            body = rec.SerializeToString()
            f.write(struct.pack("<I", len(body)) + body)
    open(path + ".meta", "wb").close()
    print(f"wrote {records} records, {os.path.getsize(path) / 1e6:.0f} MB to {path}")



def read(directory):
    pb = load_proto()
    dtypes = {pb.Int8: np.int8, pb.Int16: np.int16, pb.Int32: np.int32, pb.Int64: np.int64,
              pb.Float: np.float32, pb.Double: np.float64, pb.Bool: np.uint8, pb.Byte: np.uint8}
    files = [f for f in glob.glob(os.path.join(directory, "*")) if not f.endswith(".meta")]
    t0 = time.perf_counter()
    total, rows = 0, 0
    for path in files:
        with open(path, "rb") as fh:
            data = fh.read()
        total += len(data)
        pos, header = 0, True
        while pos + 4 <= len(data):
            (n,) = struct.unpack_from("<I", data, pos)
            msg = data[pos + 4:pos + 4 + n]
            pos += 4 + n
            if header:
                header = False
                continue
            rec = pb.Record.FromString(msg)
            for c in rec.column:
                if not c.data:
                    continue
                x = np.frombuffer(c.data, dtype=dtypes[c.dtype]).astype(np.float64)
                fin = x[np.isfinite(x)]
                stats = (x.size, int(np.isnan(x).sum()), int(np.isinf(x).sum()),
                         int((x == 0).sum()))
                if fin.size:
                    stats += (fin.min(), fin.max(), fin.mean(), fin.std(),
                              np.sqrt(np.dot(fin, fin)))
                rows += 1
    dt = time.perf_counter() - t0
    print(f"numpy reader: {rows} rows, {total / 1e6:.0f} MB in {dt:.3f} s = "
          f"{total / dt / 1e9:.3f} GB/s")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "write":
        write(sys.argv[2], float(sys.argv[3]))
    elif len(sys.argv) == 3 and sys.argv[1] == "read":
        read(sys.argv[2])
    else:
        print(__doc__)
        sys.exit(1)
