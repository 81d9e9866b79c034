"""XDL runs as pandas DataFrames and numpy arrays (xtview.open)."""

import os
from typing import List, Optional, Tuple, Union

import numpy as np
import pandas as pd

from . import _core

__all__ = ["open", "Run", "Histogram", "STATS_COLUMNS"]

# The fields of `xtrace stats`, in order.
STATS_COLUMNS = ["rank", "key", "gstep", "lstep", "timestamp", "count", "nan", "inf", "zeros",
                 "min", "max", "mean", "std", "l2"]
FIRST_NONFINITE_COLUMNS = ["key", "rank", "gstep", "kind", "lstep", "elements"]
KEYS_COLUMNS = ["key", "dtype", "shape", "records", "ranks", "mixed_dtypes", "varying_shape",
                "empty_records", "damaged_records"]
DIFF_COLUMNS = ["rank_a", "rank_b", "key", "step", "elements", "bit_exact", "within_tolerance",
                "shape_mismatch", "max_abs", "max_rel", "nan_only_a", "nan_only_b", "inf_only_a",
                "inf_only_b"]


def open(path: Union[str, "os.PathLike[str]"], *, summary_dir: Optional[str] = None,
         mirror_dir: Optional[str] = None) -> "Run":
    """Opens the one XDL run under `path`: a data file, a directory, a glob pattern or an
    hdfs:// (webhdfs://, swebhdfs://) URL, which is mirrored locally first (XT_HDFS_CACHE_DIR,
    or `mirror_dir`). Parts with a valid stored summary (beside the part, or in `summary_dir`,
    default ~/.cache/xtview/summaries) are opened from it without a scan.

    Raises NotFoundError (no such path, no run in it), InvalidArgumentError (several runs:
    the message lists them), CorruptError, ReadError."""
    return Run(_core.Run(os.fspath(path), os.fspath(summary_dir or ""),
                         os.fspath(mirror_dir or "")))


def _stats_frame(cols: dict) -> pd.DataFrame:
    """The statistics columns of _core as a DataFrame with the columns of `xtrace stats`."""
    names = np.asarray(cols["key_names"], dtype=object)
    data = {c: cols[c] for c in STATS_COLUMNS if c != "key"}
    data["key"] = names[cols["key"]]
    return pd.DataFrame(data, columns=STATS_COLUMNS)


class Histogram(tuple):
    """(counts, edges): counts[steps x bins] (uint64) and the bins + 1 edges (float64), like
    numpy.histogram per step. Also: `steps` (the gstep of each row), `outside` ([steps x 5]:
    nan, +inf, -inf, below, above the range per row), `range` (lo, hi)."""

    counts: np.ndarray
    edges: np.ndarray
    steps: np.ndarray
    outside: np.ndarray
    range: Tuple[float, float]

    def __new__(cls, d: dict) -> "Histogram":
        h = super().__new__(cls, (d["counts"], d["edges"]))
        h.counts, h.edges, h.steps, h.outside = d["counts"], d["edges"], d["steps"], d["outside"]
        h.range = (d["lo"], d["hi"])
        return h


class Run:
    """One XDL run (see xtview.open). Statistics are those of `xtrace stats` and come from the parts'
    stored summaries where they are valid, else from the tensors (the same values)."""

    def __init__(self, core: "_core.Run") -> None:
        self._core = core

    def __repr__(self) -> str:
        return f"xtview.Run({self.path!r}, ranks={self.ranks})"

    @property
    def path(self) -> str:
        """The path or URL the run was opened from."""
        return self._core.path

    @property
    def label(self) -> str:
        """directory/prefix.name of the run's files; for a remote run, in its hdfs:// URL."""
        return self._core.label

    @property
    def ranks(self) -> List[int]:
        """The ranks of the run, ascending."""
        return self._core.ranks

    @property
    def diagnostics(self) -> List[str]:
        """What opening the run reported, located: "file:offset: record N: severity: ..."."""
        return self._core.diagnostics

    def parts(self) -> pd.DataFrame:
        """One row per part file: rank, index, path (the URL for a remote run), size, meta,
        has_header, keys, records, summary (whether a valid stored summary was used)."""
        return pd.DataFrame(self._core.parts(),
                            columns=["rank", "index", "path", "size", "meta", "has_header",
                                     "keys", "records", "summary"])

    def keys(self) -> pd.DataFrame:
        """One row per key: key, dtype (numpy name of the first record with data), shape
        (tuple), records (with data, over all ranks), ranks (list), mixed_dtypes,
        varying_shape, empty_records, damaged_records (as `xtrace info --json`)."""
        return pd.DataFrame(self._core.keys(), columns=KEYS_COLUMNS)

    def stats(self, key: Optional[str] = None, rank: Optional[int] = None, *,
              backend: str = "cpu") -> pd.DataFrame:
        """Per-record statistics, one row per (rank, key, record), ordered by rank, then the
        rank's key order, then record: the columns of `xtrace stats` (rank, key, gstep, lstep,
        timestamp, count, nan, inf, zeros, min, max, mean, std, l2). min..l2 are over the finite
        elements in double precision and NaN when a tensor has none.

        key: a regex searched in each key (ECMAScript, as `xtrace stats --key`; anchor with
        ^...$); a bad regex raises InvalidArgumentError. rank: only this rank. backend: "cpu"
        (default), "cuda" or "auto" (for parts without a summary)."""
        return _stats_frame(self._core.stats(key or "", rank, backend))

    def tensor(self, key: str, step: int, rank: int = 0) -> np.ndarray:
        """The tensor of `key` recorded at global step `step` on `rank` (the first such record),
        in its original dtype and shape. Read-only. Zero-copy when the bytes in the file are
        aligned for the dtype (flags.owndata is False: a view of the mapped file, which stays
        mapped while the array lives); otherwise a read-only copy. An empty column (after
        trace_once) is an array of shape (0,). NotFoundError when there is no such record."""
        return self._core.tensor(key, int(step), int(rank))

    def histogram(self, key: str, bins: int = 64, steps: Optional[Tuple[int, int]] = None,
                  rank: int = 0, *, range: Optional[Tuple[float, float]] = None,
                  backend: str = "cpu") -> Histogram:
        """Histograms of `key` on `rank`, one row per global step in `steps` (inclusive, None:
        all): (counts[steps x bins], edges), as `xtrace hist --json` (matrix, edges). The range
        is `range` or the min and max of the finite values over those steps; every bin is
        half-open except the last (numpy.histogram's rule). NaN, infinities and values outside
        the range are counted apart (Histogram.outside)."""
        first = last = None
        if steps is not None:
            first, last = steps
        lo = hi = None
        if range is not None:
            lo, hi = range
        return Histogram(self._core.histogram(key, int(bins), first, last, lo, hi, int(rank),
                                              backend))

    def first_nonfinite(self, key: Optional[str] = None,
                        rank: Optional[int] = None) -> pd.DataFrame:
        """Where NaN and Inf first appear: per (rank, key), one row for the first record with a
        NaN (kind "nan") and one for the first with an infinity (kind "inf"). Columns: key,
        rank, gstep, kind, lstep, elements (NaN or Inf elements in that record)."""
        d = self._core.first_nonfinite(key or "", rank)
        return pd.DataFrame({c: d[c] for c in FIRST_NONFINITE_COLUMNS},
                            columns=FIRST_NONFINITE_COLUMNS)

    def diff(self, other: "Run", align: str = "gstep", atol: float = 0, rtol: float = 0, *,
             key: Optional[str] = None, rank: Optional[int] = None,
             rank_b: Optional[int] = None) -> pd.DataFrame:
        """The divergence table of this run (A) against `other` (B), as `xtrace diff --json`:
        one row per (rank pair, key, aligned step present on both sides) with rank_a, rank_b,
        key, step, elements, bit_exact, within_tolerance (|a - b| <= atol + rtol * |b|),
        shape_mismatch, max_abs, max_rel, nan_only_a/b, inf_only_a/b.

        align: "gstep", "lstep" or "relative" (gstep minus each side's first gstep). Ranks are
        paired by number, or `rank` with `rank_b` (default: the same). The result's attrs hold
        "keys" (per key: first_diff_exact, first_diff_tolerance, first_nan_only_a, ...,
        steps_only_a/b), "keys_only" (per rank pair), "ranks_only_a" and "ranks_only_b"."""
        d = self._core.diff(other._core, key or "", align, float(atol), float(rtol), rank, rank_b)
        df = pd.DataFrame(d["steps"], columns=DIFF_COLUMNS)
        df.attrs.update(align=align, atol=atol, rtol=rtol, keys=pd.DataFrame(d["keys"]),
                        keys_only=d["keys_only"], ranks_only_a=d["ranks_only_a"],
                        ranks_only_b=d["ranks_only_b"])
        return df

    def summarize(self, threads: int = 0) -> dict:
        """Builds, extends or loads the summaries of the parts that have none and saves them
        (beside nothing: in the summary cache); later opens and stats() use them. Returns
        {"built": n, "parts": total with a summary, "diagnostics": [...]}. For a cluster, see
        xtview.dask.summarize."""
        return self._core.summarize(int(threads))
