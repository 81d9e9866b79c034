"""xtview.dask: xtview's analyses on an existing Dask distributed cluster, one task per part file.

    from dask.distributed import Client
    import xtview.dask as xd
    client = Client("tcp://scheduler:8786")
    xd.summarize("hdfs://nn/runs/job7", client)              # build and save part summaries
    df = xd.stats("hdfs://nn/runs/job7", client, key="grad.*")   # dask DataFrame
    xd.first_nonfinite("hdfs://nn/runs/job7", client)        # pandas DataFrame

Parts are listed by a task on the cluster and every part is read by the worker that runs its
task: a path every worker sees (a shared file system) or an hdfs:// URL, which each worker
mirrors part by part into its own cache (XT_HDFS_CACHE_DIR). A task that fails is retried by
Dask (`retries`); a part that still cannot be read is reported (the `errors` DataFrame, and an
XtviewWarning) while the other parts complete. Results equal those of xtview.open(path): same
rows, same order, same values.
"""

import uuid
import warnings
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import pandas as pd

from . import _core
from .errors import XtviewWarning
from .run import FIRST_NONFINITE_COLUMNS, STATS_COLUMNS, _stats_frame

__all__ = ["summarize", "stats", "first_nonfinite", "SUMMARY_COLUMNS", "ERROR_COLUMNS"]

SUMMARY_COLUMNS = ["rank", "index", "path", "origin", "records", "bytes", "saved_to",
                   "loaded_from", "published", "publish_error", "error"]
ERROR_COLUMNS = ["rank", "index", "path", "error"]


# ---- tasks (run on the workers) ----

def _open_part(path: str, summary_dir: str, mirror_dir: str) -> "_core.Run":
    return _core.Run(path, summary_dir, mirror_dir, True)


def _stats_task(path: str, key: str, summary_dir: str, mirror_dir: str) -> Tuple[dict, Any]:
    run = _open_part(path, summary_dir, mirror_dir)
    info = run.parts()[0]
    # A part without a header names its columns column0..N; its keys are known only once the
    # rank's other parts are, so it is not filtered here (see _rank_keys).
    cols = run.stats(key if info["has_header"] else "", None, "cpu", 1)
    return info, _stats_frame(cols)


def _first_nonfinite_task(path: str, key: str, summary_dir: str,
                          mirror_dir: str) -> Tuple[dict, Any]:
    run = _open_part(path, summary_dir, mirror_dir)
    info = run.parts()[0]
    d = run.first_nonfinite(key if info["has_header"] else "", None, 1)
    return info, pd.DataFrame({c: d[c] for c in FIRST_NONFINITE_COLUMNS},
                              columns=FIRST_NONFINITE_COLUMNS)


def _summarize_task(path: str, summary_dir: str, mirror_dir: str, beside: bool,
                    publish: bool) -> dict:
    return _core.summarize_part(path, summary_dir, mirror_dir, beside, publish)


def _info_of(result: Tuple[dict, Any]) -> Tuple[dict, Dict[str, int]]:
    """The part's facts and its rows per column name: all the client needs to plan the merge."""
    info, frame = result
    return info, frame["key"].value_counts().to_dict()


def _list_task(path: str) -> List[dict]:
    return _core.list_parts(path)


# ---- merging per rank (as RankReader joins parts: core/xdl/trace_reader.h) ----

def _rank_keys(infos: List[dict], key: str) -> Tuple[List[Dict[str, Optional[str]]], List[str]]:
    """Per part, its column names -> the rank's key (None: dropped), and the rank's key order.
    Parts without a header take the keys of the rank's first part with one when the column
    counts agree (the first column of a duplicated name wins); the key filter applies to the
    names so found."""
    donor = next((i["keys"] for i in infos if i["has_header"]), None)
    renames, order = [], []
    for info in infos:
        names = list(info["keys"])
        if not info["has_header"] and donor is not None and len(donor) == len(names):
            names = list(donor)
        seen, rename = set(), {}
        for own, name in zip(info["keys"], names):
            if own in rename:  # a name the header repeats: its first column is the key's
                continue
            rename[own] = None if name in seen else name
            seen.add(name)
        for name in names:
            if name not in order:
                order.append(name)
        renames.append(rename)
    if key:
        wanted = set(n for n, ok in zip(order, _core.match_keys(key, order)) if ok)
        order = [n for n in order if n in wanted]
        renames = [{own: (n if n in wanted else None) for own, n in r.items()} for r in renames]
    return renames, order


def _merge_frames(frames: List[pd.DataFrame], renames: List[dict], order: List[str],
                  columns: List[str], sort_by_kind: bool = False) -> pd.DataFrame:
    parts = []
    for position, (frame, rename) in enumerate(zip(frames, renames)):
        frame = frame.assign(key=frame["key"].map(rename))
        frame = frame[frame["key"].notna()]
        parts.append(frame.assign(_part=position))
    if not parts:
        return pd.DataFrame({c: [] for c in columns}, columns=columns)
    merged = pd.concat(parts, ignore_index=True)
    position = {k: i for i, k in enumerate(order)}
    merged["_key"] = merged["key"].map(position)
    by = ["_key", "_part"]
    if sort_by_kind:
        merged["_kind"] = (merged["kind"] == "inf").astype(np.int8)
        by = ["_key", "_kind", "_part"]
    merged = merged.sort_values(by, kind="stable")
    if sort_by_kind:  # the first part that has it, per (key, kind)
        merged = merged.drop_duplicates(["_key", "_kind"])
    return merged[columns].reset_index(drop=True)


def _merge_stats(results: List[Tuple[dict, pd.DataFrame]], renames: List[dict],
                 order: List[str], start: int) -> pd.DataFrame:
    out = _merge_frames([r[1] for r in results], renames, order, STATS_COLUMNS)
    out.index = pd.RangeIndex(start, start + len(out))
    return _stats_dtypes(out)


def _stats_dtypes(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.astype({"rank": np.int64, "key": object, "gstep": np.int64, "lstep": np.int64,
                         "timestamp": np.int64, "count": np.int64, "nan": np.int64,
                         "inf": np.int64, "zeros": np.int64, "min": np.float64,
                         "max": np.float64, "mean": np.float64, "std": np.float64,
                         "l2": np.float64})


# ---- planning and reporting (on the client) ----

def _parts(path: str, client, rank: Optional[int], retries: int) -> List[dict]:
    parts = client.submit(_list_task, path, retries=retries, pure=False,
                          key=f"xtview-list-{uuid.uuid4().hex}").result()
    return [p for p in parts if rank is None or p["rank"] == rank]


def _error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _report(errors: List[dict], what: str) -> pd.DataFrame:
    frame = pd.DataFrame(errors, columns=ERROR_COLUMNS)
    if errors:
        listed = "; ".join(f"{e['path']}: {e['error']}" for e in errors[:5])
        more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
        warnings.warn(f"xtview.dask.{what}: {len(errors)} part(s) could not be read and are "
                      f"left out: {listed}{more}", XtviewWarning, stacklevel=3)
    return frame


def _run_parts(client, parts: List[dict], fn, args: tuple, retries: int, name: str):
    """One task per part, each followed by a small task returning its _info_of; waits for those.
    Returns [(part, result future, info)] of the parts read, and the error rows of the others."""
    from distributed import wait
    token = uuid.uuid4().hex
    futures = [client.submit(fn, p["path"], *args, retries=retries, pure=False,
                             key=f"xtview-{name}-{token}-{i}") for i, p in enumerate(parts)]
    infos = [client.submit(_info_of, f, pure=False, key=f"xtview-{name}-info-{token}-{i}")
             for i, f in enumerate(futures)]
    wait(infos)
    errors, ok = [], []
    for p, f, i in zip(parts, futures, infos):
        if i.status == "finished":
            ok.append((p, f, i.result()))
        else:
            errors.append({"rank": p["rank"], "index": p["index"], "path": p["path"],
                           "error": _error_text(f.exception() or i.exception())})
    return ok, errors


def summarize(path: str, client, *, publish: bool = False, beside: bool = False,
              summary_dir: Optional[str] = None, mirror_dir: Optional[str] = None,
              retries: int = 2) -> pd.DataFrame:
    """Loads, extends or builds the summary of every part of the run under `path`, one task per
    part, and saves it: in each worker's summary cache (`summary_dir`, default
    ~/.cache/xtview/summaries on the worker), or beside the part (`beside=True`: {part}.xts,
    where the file system is shared and writable). `publish=True` (hdfs:// runs only) also
    uploads each summary beside its part on HDFS ({part}.xts, written to a temporary file and
    renamed), unless the one there is valid, so that every viewer and worker opens the run from
    them; HDFS refusing the upload is reported in the row, the summary staying in the cache.

    Returns one row per part: rank, index, path, origin ("loaded", "extended", "built"),
    records, bytes, saved_to, loaded_from (on the worker), published (the summary's URL on
    HDFS when it is there), publish_error, error (None, or why the part could not be
    summarized after `retries` retries)."""
    if publish and not str(path).startswith(("hdfs://", "webhdfs://", "swebhdfs://")):
        raise ValueError("publish=True is for hdfs:// runs; the summaries of %s are saved beside "
                         "the parts (beside=True) or in the workers' caches" % path)
    parts = _parts(path, client, None, retries)
    token = uuid.uuid4().hex
    futures = [client.submit(_summarize_task, p["path"], summary_dir or "", mirror_dir or "",
                             beside, publish, retries=retries, pure=False,
                             key=f"xtview-summarize-{token}-{i}") for i, p in enumerate(parts)]
    from distributed import wait
    wait(futures)
    rows = []
    for p, f in zip(parts, futures):
        row = {"rank": p["rank"], "index": p["index"], "path": p["path"], "origin": None,
               "records": None, "bytes": None, "saved_to": None, "loaded_from": None,
               "published": None, "publish_error": None, "error": None}
        if f.status == "finished":
            r = f.result()
            row.update(origin=r["origin"], records=r["records"], bytes=r["bytes"],
                       saved_to=r["saved_to"], loaded_from=r["loaded_from"],
                       published=r["published"], publish_error=r["publish_error"])
        else:
            row["error"] = _error_text(f.exception())
        rows.append(row)
    failed = [r for r in rows if r["error"]]
    _report([{c: r[c] for c in ERROR_COLUMNS} for r in failed], "summarize")
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


def stats(path: str, client, key: Optional[str] = None, rank: Optional[int] = None, *,
          summary_dir: Optional[str] = None, mirror_dir: Optional[str] = None,
          retries: int = 2):
    """xtview.open(path).stats(key, rank) computed on the cluster: a dask DataFrame with the
    same columns, rows, order and index (one partition per rank, known divisions), held on
    the workers until computed. The statistics of each part come from its stored summary where
    a valid one is found on the worker, else from its tensors.

    Parts that could not be read after `retries` retries are left out, listed in the
    returned DataFrame's `errors` attribute (a pandas DataFrame: rank, index, path, error) and
    in an XtviewWarning."""
    import dask.dataframe as dd
    parts = _parts(path, client, rank, retries)
    ok, errors = _run_parts(client, parts, _stats_task,
                            (key or "", summary_dir or "", mirror_dir or ""), retries, "stats")
    by_rank: Dict[int, list] = {}
    for p, f, (info, counts) in ok:
        by_rank.setdefault(p["rank"], []).append((f, info, counts))
    token = uuid.uuid4().hex
    merged, starts, start = [], [], 0
    for r in sorted(by_rank):
        items = by_rank[r]
        renames, order = _rank_keys([info for _, info, _ in items], key or "")
        n = sum(counts.get(own, 0) for (_, _, counts), rename in zip(items, renames)
                for own, name in rename.items() if name is not None)
        if not n:
            continue
        merged.append(client.submit(_merge_stats, [f for f, _, _ in items], renames, order,
                                    start, pure=False, key=f"xtview-stats-rank{r}-{token}"))
        starts.append(start)
        start += n
    meta = _stats_dtypes(pd.DataFrame({c: [] for c in STATS_COLUMNS}, columns=STATS_COLUMNS))
    if merged:
        ddf = dd.from_delayed(merged, meta=meta, divisions=starts + [start - 1],
                              verify_meta=False)
    else:
        ddf = dd.from_pandas(meta, npartitions=1)
    ddf.errors = _report(errors, "stats")
    return ddf


def first_nonfinite(path: str, client, key: Optional[str] = None, rank: Optional[int] = None,
                    *, summary_dir: Optional[str] = None, mirror_dir: Optional[str] = None,
                    retries: int = 2) -> pd.DataFrame:
    """xtview.open(path).first_nonfinite(key, rank) computed on the cluster (a pandas
    DataFrame: key, rank, gstep, kind, lstep, elements). Parts that could not be read are left
    out and listed in `.attrs["errors"]` and an XtviewWarning."""
    parts = _parts(path, client, rank, retries)
    ok, errors = _run_parts(client, parts, _first_nonfinite_task,
                            (key or "", summary_dir or "", mirror_dir or ""), retries,
                            "first-nonfinite")
    results = client.gather([f for _, f, _ in ok])
    by_rank: Dict[int, list] = {}
    for (p, _, _), res in zip(ok, results):
        by_rank.setdefault(p["rank"], []).append(res)
    frames = []
    for r in sorted(by_rank):
        infos = [res[0] for res in by_rank[r]]
        renames, order = _rank_keys(infos, key or "")
        frames.append(_merge_frames([res[1] for res in by_rank[r]], renames, order,
                                    FIRST_NONFINITE_COLUMNS, sort_by_kind=True))
    out = (pd.concat(frames, ignore_index=True) if frames else
           pd.DataFrame({c: [] for c in FIRST_NONFINITE_COLUMNS},
                        columns=FIRST_NONFINITE_COLUMNS))
    out.attrs["errors"] = _report(errors, "first_nonfinite")
    return out
