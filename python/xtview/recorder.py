"""xtview.recorder: record XDL traces from Python through libxtrecorder.so (ctypes, no compiled
module; importing it does not load xtview's analysis core). Also importable as `xtrecorder`.

The library is found through the XT_RECORDER_LIB environment variable (a path to the .so), else
where `cmake --install` put it (recorded in the generated xtview/_install_paths.py), else next
to this package (xtview/libxtrecorder.so or ../libxtrecorder.so).

    from xtview import recorder
    rec = recorder.Recorder("runs/demo", rank=0, max_file_mb=300)
    rec.trace_once_text("config", "lr=0.1")
    rec.trace_callback("lr", lambda: np.float32(lr))
    for step in range(n):
        rec.trace("fc1/weight", w)          # any numpy array of an XDL dtype
        rec.commit_step(step)
    rec.close()

Element types: int8/16/32/64, float32/64, bool and uint8. Other dtypes (uint16/32/64, float16,
strings, objects) are refused with a TypeError naming the dtype; convert them explicitly.
"""

import ctypes
import os

import numpy as np

__all__ = ["Recorder", "RecorderError", "load_library"]

_DTYPES = {
    np.dtype(np.int8): 0,
    np.dtype(np.int16): 1,
    np.dtype(np.int32): 2,
    np.dtype(np.int64): 3,
    np.dtype(np.float32): 4,
    np.dtype(np.float64): 5,
    np.dtype(np.bool_): 6,
    np.dtype(np.uint8): 7,
}
_NUMPY_OF = {v: k for k, v in _DTYPES.items()}


class RecorderError(RuntimeError):
    """A failed recorder call: `code` is the xt_status value, the message says why."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


class _Tensor(ctypes.Structure):
    _fields_ = [
        ("dtype", ctypes.c_int),
        ("ndim", ctypes.c_int),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("data", ctypes.c_void_p),
    ]


_CLOCK = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p)
_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(_Tensor))
_SUMMARY = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(_Tensor),
                            ctypes.POINTER(_Tensor))


class _Config(ctypes.Structure):
    _fields_ = [
        ("output_dir", ctypes.c_char_p),
        ("output_file_name", ctypes.c_char_p),
        ("max_file_mb", ctypes.c_double),
        ("rank", ctypes.c_int),
        ("training", ctypes.c_int),
        ("every_n_steps", ctypes.c_int),
        ("queue_capacity", ctypes.c_int),
        ("drop_when_full", ctypes.c_int),
        ("fsync_interval_ms", ctypes.c_int),
        ("clock", _CLOCK),
        ("clock_user", ctypes.c_void_p),
    ]


class _Stats(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint64) for n in ("committed", "written", "dropped",
                                                "skipped_steps", "bytes_written",
                                                "queue_high_water")] + [
        ("blocked_ns", ctypes.c_int64), ("part_index", ctypes.c_int64)]


_lib = None


def load_library(path=None):
    """Loads libxtrecorder.so (once) and declares its functions."""
    global _lib
    if _lib is not None and path is None:
        return _lib
    candidates = [path] if path else []
    if not path and os.environ.get("XT_RECORDER_LIB"):
        candidates.append(os.environ["XT_RECORDER_LIB"])
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        from . import _install_paths  # only in an installed copy
        if _install_paths.LIBRARY_RELPATH:
            candidates.append(os.path.normpath(os.path.join(here, _install_paths.LIBRARY_RELPATH)))
        if _install_paths.LIBRARY_ABSPATH:
            candidates.append(_install_paths.LIBRARY_ABSPATH)
    except ImportError:
        pass
    candidates += [os.path.join(here, "libxtrecorder.so"),
                   os.path.join(os.path.dirname(here), "libxtrecorder.so")]
    errors = []
    for c in candidates:
        if not os.path.exists(c):
            errors.append(c + ": not found")
            continue
        lib = ctypes.CDLL(c)
        break
    else:
        raise OSError("libxtrecorder.so not found (set XT_RECORDER_LIB): " + "; ".join(errors))
    P = ctypes.c_void_p
    lib.xt_recorder_config_init.argtypes = [ctypes.POINTER(_Config)]
    lib.xt_recorder_config_init.restype = None
    lib.xt_recorder_open.argtypes = [ctypes.POINTER(_Config), ctypes.POINTER(P)]
    lib.xt_recorder_free.argtypes = [P]
    lib.xt_recorder_free.restype = None
    for name in ("xt_recorder_trace", "xt_recorder_trace_once"):
        getattr(lib, name).argtypes = [P, ctypes.c_char_p, ctypes.POINTER(_Tensor)]
    lib.xt_recorder_trace_once_text.argtypes = [P, ctypes.c_char_p, ctypes.c_char_p,
                                                ctypes.c_size_t]
    lib.xt_recorder_trace_callback.argtypes = [P, ctypes.c_char_p, _CALLBACK, P]
    lib.xt_recorder_set_summary.argtypes = [P, ctypes.c_char_p, _SUMMARY, P]
    if hasattr(lib, "xt_recorder_set_summaries"):  # libraries before summaries lack it
        lib.xt_recorder_set_summaries.argtypes = [P, ctypes.c_int]
    lib.xt_recorder_is_recorded_step.argtypes = [P]
    lib.xt_recorder_commit_step.argtypes = [P, ctypes.c_int64]
    lib.xt_recorder_flush.argtypes = [P]
    lib.xt_recorder_close.argtypes = [P]
    lib.xt_recorder_get_stats.argtypes = [P, ctypes.POINTER(_Stats)]
    lib.xt_recorder_last_error.argtypes = [P]
    lib.xt_recorder_last_error.restype = ctypes.c_char_p
    lib.xt_last_error.argtypes = []
    lib.xt_last_error.restype = ctypes.c_char_p
    _lib = lib
    return lib


def _as_array(value, key):
    a = np.asarray(value)
    if a.dtype not in _DTYPES:
        raise TypeError("key %r: dtype %s cannot be recorded (XDL holds int8/16/32/64, "
                        "float32/64, bool and uint8; convert it first)" % (key, a.dtype))
    # (np.ascontiguousarray would turn a 0-d scalar into shape [1].)
    return a if a.flags.c_contiguous else np.ascontiguousarray(a).reshape(a.shape)


def _tensor_of(a):
    shape = (ctypes.c_int64 * max(a.ndim, 1))(*a.shape)
    t = _Tensor(_DTYPES[a.dtype], a.ndim, shape, a.ctypes.data if a.size else None)
    return t, shape


class Recorder:
    """One rank's recorder. Column order: tensor keys, then callback keys, then once keys."""

    def __init__(self, output_dir, output_file_name="trace", max_file_mb=300, rank=0,
                 training=True, every_n_steps=1, queue_capacity=8, drop_when_full=False,
                 fsync_interval_ms=0, clock=None, library=None, summaries=True):
        """summaries: write each part's summary ({part}.xts) beside it while recording, so
        viewers open the run without reading it all (statistics computed on the writer thread).
        """
        self._lib = load_library(library)
        cfg = _Config()
        self._lib.xt_recorder_config_init(ctypes.byref(cfg))
        self._dir = os.fsencode(output_dir)
        self._name = output_file_name.encode()
        cfg.output_dir = self._dir
        cfg.output_file_name = self._name
        cfg.max_file_mb = float(max_file_mb)
        cfg.rank = int(rank)
        cfg.training = 1 if training else 0
        cfg.every_n_steps = int(every_n_steps)
        cfg.queue_capacity = int(queue_capacity)
        cfg.drop_when_full = 1 if drop_when_full else 0
        cfg.fsync_interval_ms = int(fsync_interval_ms)
        self._clock = _CLOCK(lambda _user: int(clock())) if clock else _CLOCK()
        cfg.clock = self._clock
        handle = ctypes.c_void_p()
        rc = self._lib.xt_recorder_open(ctypes.byref(cfg), ctypes.byref(handle))
        if rc != 0:
            raise RecorderError(rc, self._lib.xt_last_error().decode(errors="replace"))
        self._h = handle
        self._step_refs = []  # arrays borrowed until commit_step returns
        self._callbacks = []  # ctypes function objects kept alive
        self._error = None    # an exception raised inside a callback
        if not summaries:
            if not hasattr(self._lib, "xt_recorder_set_summaries"):
                raise RecorderError(5, "this libxtrecorder.so cannot turn summaries off")
            self._check(self._lib.xt_recorder_set_summaries(self._h, 0))

    def _check(self, rc):
        if rc != 0:
            if self._error is not None:
                e, self._error = self._error, None
                raise e
            raise RecorderError(rc, self._lib.xt_recorder_last_error(self._h).decode(
                errors="replace"))

    def trace(self, key, value):
        """The value of `key` for this step (every recorded step must trace every tensor key)."""
        a = _as_array(value, key)
        t, shape = _tensor_of(a)
        self._step_refs.append((a, shape))
        self._check(self._lib.xt_recorder_trace(self._h, key.encode(), ctypes.byref(t)))

    def trace_once(self, key, value):
        """Recorded in the first record only; later records hold an empty float32 [0]."""
        a = _as_array(value, key)
        t, _shape = _tensor_of(a)
        self._check(self._lib.xt_recorder_trace_once(self._h, key.encode(), ctypes.byref(t)))

    def trace_once_text(self, key, text):
        """A string, recorded once as int8 (one byte per UTF-8 byte), as upstream does."""
        b = text.encode() if isinstance(text, str) else bytes(text)
        self._check(self._lib.xt_recorder_trace_once_text(self._h, key.encode(), b, len(b)))

    def trace_callback(self, key, fn):
        """fn() is called on each recorded step and returns the array to record."""
        keep = []

        def call(_user, out):
            try:
                a = _as_array(fn(), key)
                t, shape = _tensor_of(a)
                keep[:] = [a, shape]
                out[0] = t
                return 0
            except Exception as e:  # reported by the commit_step that called it
                self._error = e
                return 1

        cb = _CALLBACK(call)
        self._callbacks.append((cb, keep))
        self._check(self._lib.xt_recorder_trace_callback(self._h, key.encode(), cb, None))

    def set_summary(self, key, fn):
        """fn(array) -> array is applied to the key's value before it is written."""
        keep = []

        def call(_user, tin, out):
            try:
                t = tin[0]
                dtype = _NUMPY_OF[t.dtype]
                shape = tuple(t.shape[i] for i in range(t.ndim))
                n = int(np.prod(shape, dtype=np.int64)) if shape else 1
                if n and t.data:
                    buf = (ctypes.c_char * (n * dtype.itemsize)).from_address(t.data)
                    src = np.frombuffer(buf, dtype=dtype).reshape(shape)
                else:
                    src = np.zeros(shape, dtype=dtype)
                a = _as_array(fn(src), key)
                tt, tshape = _tensor_of(a)
                keep[:] = [a, tshape]
                out[0] = tt
                return 0
            except Exception as e:
                self._error = e
                return 1

        cb = _SUMMARY(call)
        self._callbacks.append((cb, keep))
        self._check(self._lib.xt_recorder_set_summary(self._h, key.encode(), cb, None))

    def is_recorded_step(self):
        """Whether the next commit_step records (every_n_steps)."""
        return bool(self._lib.xt_recorder_is_recorded_step(self._h))

    def commit_step(self, gstep):
        """Ends a local step and records it (gstep is the global step)."""
        try:
            self._check(self._lib.xt_recorder_commit_step(self._h, int(gstep)))
        finally:
            self._step_refs.clear()

    def flush(self):
        self._check(self._lib.xt_recorder_flush(self._h))

    def close(self):
        """Writes what is queued and finalises the metas; safe to call more than once."""
        if self._h:
            self._check(self._lib.xt_recorder_close(self._h))

    def stats(self):
        s = _Stats()
        self._check(self._lib.xt_recorder_get_stats(self._h, ctypes.byref(s)))
        return {name: getattr(s, name) for name, _ in _Stats._fields_}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        h = getattr(self, "_h", None)
        if h:
            self._lib.xt_recorder_free(h)
            self._h = None
