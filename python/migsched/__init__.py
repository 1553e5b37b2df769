"""migsched from Python: MIG GPU scheduling (planners, the validator, lower bounds, the
online simulator and the learning environment) through libmigsched.so.0.

See docs/python.md for the API and a worked example."""
from ._native import ffi as _ffi
from ._native import lib as _lib
from ._native import library_path
from .chart import chart_svg
from .env import Env, VectorEnv
from .errors import FileError, Infeasible, Interrupted, InvalidInput, MigschedError, OutOfMemory
from .gpu import GPU, Profile, as_gpu, builtin_gpus
from .online import POLICIES, OnlineResult, OnlineWorkload, simulate
from .placement import PlacementState
from .schedule import Schedule, algorithms, bounds, compare, schedule, validate
from .spaces import Box, Discrete, MultiDiscrete
from .workload import Workload, as_workload, preset_names


def version():
    """libmigsched's version, "0.1.0"."""
    return _ffi.string(_lib.msc_version()).decode()
