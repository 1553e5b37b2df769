"""What the tests share: the repository's folders and the built command line (ctest sets
MIGSCHED_SOURCE and MIGSCHED_CLI; from a checkout they default to its build/)."""
import os
import subprocess

import pytest

SOURCE = os.environ.get(
    "MIGSCHED_SOURCE", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
)
CLI = os.environ.get("MIGSCHED_CLI", os.path.join(SOURCE, "build", "migsched"))


def data(*parts):
    """A file under the repository's data/."""
    return os.path.join(SOURCE, "data", *parts)


def shared(*parts):
    """A file under ../shared beside the repository (skips when it is not there)."""
    path = os.path.join(os.path.dirname(SOURCE), "shared", *parts)
    if not os.path.exists(path):
        pytest.skip(f"{path} is not there")
    return path


def cli(*args):
    """Runs the built migsched; returns its stdout as bytes (fails on a non-zero exit)."""
    done = subprocess.run([CLI, *map(str, args)], capture_output=True, check=False)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout
