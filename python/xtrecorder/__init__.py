"""xtrecorder: the former name of xtview.recorder (record XDL traces from Python through
libxtrecorder.so), kept so that `import xtrecorder` goes on working. See xtview.recorder."""

from xtview.recorder import Recorder, RecorderError, load_library  # noqa: F401

__all__ = ["Recorder", "RecorderError", "load_library"]
