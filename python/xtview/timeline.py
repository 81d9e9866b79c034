"""Chrome-trace timelines as pandas DataFrames (xtview.timeline)."""

import os
from typing import Dict, Union

import pandas as pd

from . import _core

__all__ = ["timeline", "Timeline", "OP_SUMMARY_COLUMNS", "STEP_COLUMNS"]

# `xtrace timeline --csv` and `--steps-csv` (core/export/op_summary_csv.h).
OP_SUMMARY_COLUMNS = ["name", "count", "total_us", "self_us", "avg_us", "min_us", "max_us"]
STEP_COLUMNS = ["name", "start_us", "dur_us", "bottleneck", "device_compute_us",
                "device_collectives_us", "memcpy_us", "kernel_launch_us", "host_compute_us",
                "other_us", "idle_us"]


def timeline(path: Union[str, "os.PathLike[str]"]) -> "Timeline":
    """Imports a Chrome trace (.json, .json.gz, .gz, .zip; Chrome Trace Event Format, array or
    object form) as `xtrace timeline` does. TensorFlow RunMetadata/StepStats (.pb) files are not
    read here (they need a protobuf runtime, which this module never loads): UnsupportedError.
    Raises NotFoundError, CorruptError, UnsupportedError with the located reason."""
    return Timeline(_core.Timeline(os.fspath(path)))


class Timeline:
    """An imported trace: report(), op_summary(), step_breakdown()."""

    def __init__(self, core: "_core.Timeline") -> None:
        self._core = core

    def __repr__(self) -> str:
        return f"xtview.Timeline({self._core.path!r})"

    @property
    def path(self) -> str:
        return self._core.path

    def report(self) -> Dict[str, object]:
        """The import report: events, phases (count per `ph` as in the file), processes,
        threads, flows, counters, span_us, warnings (count per reason) and diagnostics (located
        examples), as `xtrace timeline --json` reports them."""
        return self._core.report()

    def op_summary(self, by_category: bool = False) -> pd.DataFrame:
        """Per op name (and category when by_category): count, total_us, self_us, avg_us,
        min_us, max_us over every track, by total time descending: the rows and columns of
        `xtrace timeline --csv` (with a category column after name when by_category)."""
        d = self._core.op_summary(by_category)
        cols = OP_SUMMARY_COLUMNS[:1] + (["category"] if by_category else []) + \
            OP_SUMMARY_COLUMNS[1:]
        return pd.DataFrame({c: d[c] for c in cols}, columns=cols)

    def step_breakdown(self, marker_prefix: str = "ProfilerStep#") -> pd.DataFrame:
        """One row per step (slices named marker_prefix + N): name, start_us, dur_us,
        bottleneck, and the time of each category (device_compute_us ... idle_us, summing to
        dur_us): the rows and columns of `xtrace timeline --steps-csv`."""
        d = self._core.step_breakdown(marker_prefix)
        return pd.DataFrame({c: d[c] for c in STEP_COLUMNS}, columns=STEP_COLUMNS)
