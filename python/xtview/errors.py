"""Exceptions raised by xtview. Every one carries the reason's text, `code` (the core's error code
name: "not found", "corrupt", "invalid argument", "i/o error", ...) and `diagnostics`: the located
diagnostics of the operation ("file:offset: record N: error: message [reason]"), which the
message repeats."""

from typing import Iterable, List

__all__ = ["XtviewError", "NotFoundError", "CorruptError", "InvalidArgumentError",
           "ReadError", "UnsupportedError", "XtviewWarning"]


class XtviewError(Exception):
    """An xtview operation failed."""

    code: str
    diagnostics: List[str]

    def __init__(self, message: str, code: str = "internal error",
                 diagnostics: Iterable[str] = ()) -> None:
        super().__init__(message)
        self.code = code
        self.diagnostics = list(diagnostics)

    def __reduce__(self):  # picklable, so Dask can ship it from a worker
        return (type(self), (str(self), self.code, self.diagnostics))


class NotFoundError(XtviewError, LookupError):
    """A path, key, step or rank that does not exist."""


class CorruptError(XtviewError):
    """Bytes that do not follow the format (the message says where)."""


class InvalidArgumentError(XtviewError, ValueError):
    """A request that cannot be done: a bad key regex, bin count, alignment, ..."""


class ReadError(XtviewError, OSError):
    """The operating system or a remote server refused a read (i/o error, permission denied)."""


class UnsupportedError(XtviewError):
    """Valid input this version cannot handle."""


class XtviewWarning(UserWarning):
    """Something was skipped or could not be read, and the result lacks it (see the message)."""


_BY_CODE = {
    "not found": NotFoundError,
    "corrupt": CorruptError,
    "invalid argument": InvalidArgumentError,
    "i/o error": ReadError,
    "permission denied": ReadError,
    "no space": ReadError,
    "unsupported": UnsupportedError,
}


def class_for_code(code: str) -> type:
    """The exception class of a core error code name."""
    return _BY_CODE.get(code, XtviewError)
