"""The package as a user gets it: `make python` puts libmigsched.so.0 beside the package
(PYTHONPATH=python then works), and `pip install --no-build-isolation ./python` installs
it offline; either loads the library beside it, with no MIGSCHED_LIBRARY."""
import os
import shutil
import subprocess
import sys

import migsched
from conftest import SOURCE, data

PROBE = (
    "import migsched, sys; "
    "s = migsched.schedule(sys.argv[1], 'A30-24GB', algo='far'); "
    "print(migsched.library_path); print(round(s.makespan, 6))"
)


def _checkout_copy(tmp_path):
    """python/ as `make python` leaves it (the library the tests loaded standing in for build/'s)."""
    pkg = tmp_path / "python"
    shutil.copytree(os.path.join(SOURCE, "python"), pkg, ignore=shutil.ignore_patterns("__pycache__", "tests"))
    shutil.copy(migsched.library_path, pkg / "migsched" / "libmigsched.so.0")
    return pkg


def _run(args, pythonpath, cwd):
    env = {k: v for k, v in os.environ.items() if k not in ("MIGSCHED_LIBRARY", "PYTHONPATH")}
    env["PYTHONPATH"] = str(pythonpath)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, check=False)


def test_importable_from_the_checkout_after_make_python(tmp_path):
    pkg = _checkout_copy(tmp_path)
    done = _run([sys.executable, "-c", PROBE, data("rodinia_a30_8tasks.csv")], pkg, tmp_path)
    assert done.returncode == 0, done.stderr
    path, makespan = done.stdout.split()
    assert path == str(pkg / "migsched" / "libmigsched.so.0")
    assert float(makespan) > 0


def test_pip_installs_offline_without_build_isolation(tmp_path):
    pkg = _checkout_copy(tmp_path)
    site = tmp_path / "site"
    done = _run(
        [sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--no-index",
         "--no-cache-dir", "--target", str(site), str(pkg)],
        "", tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (site / "migsched" / "libmigsched.so.0").exists()
    shutil.rmtree(pkg)  # the installed copy stands alone
    done = _run([sys.executable, "-c", PROBE, data("rodinia_a30_8tasks.csv")], site, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == str(site / "migsched" / "libmigsched.so.0")


def test_a_missing_library_is_a_clear_import_error(tmp_path):
    pkg = tmp_path / "python"
    shutil.copytree(os.path.join(SOURCE, "python", "migsched"), pkg / "migsched",
                    ignore=shutil.ignore_patterns("__pycache__", "libmigsched.so*"))
    env_lib = {"MIGSCHED_LIBRARY": str(tmp_path / "nope.so")}
    done = subprocess.run([sys.executable, "-c", "import migsched"], cwd=tmp_path, capture_output=True, text=True,
                          env={**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, "PYTHONPATH": str(pkg), **env_lib})
    assert done.returncode != 0
    assert "cannot load libmigsched" in done.stderr and "nope.so" in done.stderr
