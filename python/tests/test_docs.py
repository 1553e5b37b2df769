"""docs/python.md stays true: the worked example's output is what the example prints, and
the first-fit policy it shows gives the simulator's own first fit."""
import os
import re
import subprocess
import sys

import migsched
from conftest import SOURCE

DOC = open(os.path.join(SOURCE, "docs", "python.md")).read()


def test_the_worked_examples_output_is_what_it_prints(tmp_path):
    want = re.search(r"<!-- quickstart output -->\n```\n(.*?)```\n<!-- end quickstart output -->", DOC, re.S).group(1)
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(migsched.__file__)))
    env = {**os.environ, "PYTHONPATH": package_root}
    done = subprocess.run([sys.executable, os.path.join(SOURCE, "python", "examples", "quickstart.py")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == want
    assert (tmp_path / "quickstart.svg").read_text().startswith("<?xml")


def test_the_first_fit_shown_is_the_simulators():
    block = re.search(r"```python\n(def first_fit\(state\):.*?)```", DOC, re.S).group(1)
    exec(compile(block, "docs/python.md", "exec"), {"migsched": migsched})


def test_the_followed_plan_shown_ends_at_fars_makespan():
    block = re.search(r"```python\n(gpu = migsched\.GPU\(\"A100-40GB\"\)\nenv = migsched\.Env.*?)```", DOC, re.S).group(1)
    scope = {"migsched": migsched}
    exec(compile(block, "docs/python.md", "exec"), scope)
    assert scope["env"].done
