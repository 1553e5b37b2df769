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
