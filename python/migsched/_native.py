"""Loads libmigsched.so.0 and declares its flat C API (include/migsched/capi*.h) to cffi
in ABI mode, from the declarations the library itself carries (msc_cdef), so the two
cannot disagree and nothing is compiled at install time.

The library is found, in this order: the path in $MIGSCHED_LIBRARY; libmigsched.so.0
beside this file (where `make python` puts the checkout's build); the system's (the
libmigsched0 package, or `make install`)."""
import os
import re

from cffi import FFI

from .errors import error_for

SONAME = "libmigsched.so.0"

_DEFINE = re.compile(r"#define\s+\w+\s+-?\d+\s*$")


def _declarations(header_text):
    """The headers' text as cffi's cdef takes it: preprocessor lines dropped except
    integer constants."""
    keep = []
    for line in header_text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#") and not _DEFINE.match(stripped):
            continue
        keep.append(line)
    return "\n".join(keep)


def _candidates():
    env = os.environ.get("MIGSCHED_LIBRARY")
    if env:
        return [env]
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), SONAME)
    return [here] if os.path.exists(here) else [SONAME]


def _load():
    errors = []
    for path in _candidates():
        boot = FFI()
        boot.cdef("const char *msc_cdef(void);")
        try:
            handle = boot.dlopen(path)
        except OSError as e:
            errors.append(f"{path}: {e}")
            continue
        ffi = FFI()
        ffi.cdef(_declarations(boot.string(handle.msc_cdef()).decode()))
        return ffi, ffi.dlopen(path), path
    raise ImportError(
        "migsched: cannot load libmigsched ("
        + "; ".join(errors)
        + "); build it with `make python`, install the libmigsched0 package, or set "
        "MIGSCHED_LIBRARY to the library's path"
    )


ffi, lib, library_path = _load()


def check(rc):
    """Raises the exception of a non-zero status, with the library's message."""
    if rc:
        raise error_for(rc, ffi.string(lib.msc_last_error()).decode(errors="replace"))


def take_string(ptr):
    """The text of a string the library handed over (char **out), freed here."""
    try:
        return ffi.string(ptr).decode()
    finally:
        lib.msc_free(ptr)


def call_text(fn, *args):
    """Calls fn(*args, char **out), checks it and returns the text."""
    out = ffi.new("char **")
    check(fn(*args, out))
    return take_string(out[0])


def cstr(text):
    """A Python string as a C argument (None: NULL)."""
    return ffi.NULL if text is None else str(text).encode()
