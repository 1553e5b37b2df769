"""The library loads with its own declarations and reports its version."""
import os
import re

import migsched
from conftest import SOURCE


def test_version_is_the_projects():
    cmake = open(os.path.join(SOURCE, "CMakeLists.txt")).read()
    assert migsched.version() == re.search(r"project\(migsched VERSION (\S+)", cmake).group(1)


def test_loaded_library_is_the_one_asked_for():
    asked = os.environ.get("MIGSCHED_LIBRARY")
    if asked:
        assert migsched.library_path == asked


def test_every_declared_function_is_in_the_library():
    from migsched._native import ffi, lib

    text = ffi.string(lib.msc_cdef()).decode()
    names = sorted(set(re.findall(r"\b(msc_\w+)\s*\(", text)))
    assert "msc_schedule" in names
    missing = [n for n in names if not hasattr(lib, n)]
    assert missing == []


def test_the_library_exports_only_its_prefixes():
    import subprocess

    from migsched import library_path

    out = subprocess.run(["nm", "-D", "--defined-only", library_path], capture_output=True, text=True, check=True)
    names = [line.split()[-1] for line in out.stdout.splitlines() if line.split()[1] in "TDBR"]
    assert names and all(n.startswith(("ms_", "msc_")) for n in names), [n for n in names if not n.startswith("ms")][:5]
