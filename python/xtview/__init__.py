"""xtview: XDL tensor traces and Chrome-trace timelines as numpy arrays and pandas DataFrames.

    import xtview
    run = xtview.open("runs/job7")            # a data file, directory, glob or hdfs:// URL
    run.ranks                                  # [0, 1, 2, 3]
    run.keys()                                 # DataFrame: key, dtype, shape, records, ranks, ...
    run.stats(key="grad.*")                    # DataFrame with the columns of `xtrace stats`
    run.tensor("fc1/weight", step=120, rank=0) # numpy array (read-only)
    run.histogram("fc1/weight", bins=64, steps=(0, 500), rank=0)   # (counts, edges)
    run.first_nonfinite()                      # DataFrame: key, rank, gstep, kind, ...
    run.diff(other, align="gstep")             # DataFrame of the divergence table
    tl = xtview.timeline("trace.json.gz")
    tl.op_summary(); tl.step_breakdown()       # DataFrames with the columns of the CLI's CSVs

The same per-part analyses run on a Dask cluster with xtview.dask; xtview.recorder records.
The compiled core (xtview._core) is loaded on first use, so `import xtview.recorder` in a
training job does not load it. Errors are xtview.errors.XtviewError subclasses.
"""

__version__ = "0.1.0"

__all__ = ["open", "timeline", "Run", "Timeline", "Histogram", "XtviewError", "NotFoundError",
           "CorruptError", "InvalidArgumentError", "ReadError", "UnsupportedError",
           "XtviewWarning"]

from .errors import (CorruptError, InvalidArgumentError, NotFoundError, ReadError,  # noqa: F401
                     UnsupportedError, XtviewError, XtviewWarning)

_LAZY = {"open": "run", "Run": "run", "Histogram": "run", "timeline": "timeline",
         "Timeline": "timeline"}


def __getattr__(name):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'xtview' has no attribute {name!r}")
    import importlib
    value = getattr(importlib.import_module("." + module, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
