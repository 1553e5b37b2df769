"""The library's failures as Python exceptions, one class per ms_status code (error.h);
each carries the C library's message and its code."""


class MigschedError(Exception):
    """A failure reported by libmigsched; str(e) is the library's message."""

    code = None

    def __init__(self, message, code=None):
        super().__init__(message)
        if code is not None:
            self.code = code


class InvalidInput(MigschedError, ValueError):
    """Bad input: a file's contents or an argument (MS_EINVAL)."""

    code = 1


class FileError(MigschedError, OSError):
    """A file cannot be read or written (MS_EIO)."""

    code = 2


class OutOfMemory(MigschedError, MemoryError):
    """MS_ENOMEM."""

    code = 3


class Infeasible(MigschedError):
    """No valid schedule exists for this input (MS_EINFEASIBLE)."""

    code = 4


class Interrupted(MigschedError):
    """Stopped early: a signal, or a Python callback that raised (MS_EINTR)."""

    code = 6


_BY_CODE = {c.code: c for c in (InvalidInput, FileError, OutOfMemory, Infeasible, Interrupted)}


def error_for(code, message):
    """The exception for a non-zero status code and the library's message."""
    cls = _BY_CODE.get(code, MigschedError)
    return cls(message, code)
