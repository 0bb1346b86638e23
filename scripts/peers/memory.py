"""The memory probe: the peak resident set size of a fresh process that imports a library and runs its vector env.

A fresh process per probe, so one library's imports and arrays never count against another's; the
probe's own work is :func:`probe_memory`, the parent's is :func:`memory_probe`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable

import numpy as np

from .workloads import pgx_workload, vector_workload

# The probe's process imports this package from the scripts' folder and loads gym_boardgames/utils.py
# (standard library only) by path, so it imports nothing but the library it measures before it measures
# its imports.
_MEMORY_PROBE = """
import importlib.util, json, sys
sys.path.insert(0, sys.argv[1])
from peers.memory import probe_memory
spec = importlib.util.spec_from_file_location("utils", sys.argv[2])
utils = importlib.util.module_from_spec(spec)
spec.loader.exec_module(utils)
kind, name, kwargs, n = sys.argv[3], sys.argv[4], json.loads(sys.argv[5]), int(sys.argv[6])
print(json.dumps(probe_memory(utils.peak_rss_mb, kind, name, kwargs, n)))
"""


def memory_probe(kind: str, name: str, kwargs: dict, num_envs: int) -> dict:
    """Return the peak RSS (MB) of a fresh process running ``num_envs`` games for 100 steps, and of its imports.

    Args:
        kind: ``"ours"`` (``name`` is an env id) or ``"pgx"`` (``name`` is a pgx game).
        name: the env id or pgx game name.
        kwargs: the env kwargs (ours only).
        num_envs: the number of games.
    """
    import gym_boardgames.utils

    paths = [os.path.dirname(os.path.dirname(os.path.abspath(__file__))), gym_boardgames.utils.__file__]
    command = [sys.executable, "-c", _MEMORY_PROBE, *paths, kind, name, json.dumps(kwargs), str(num_envs)]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        return {"error": result.stderr.strip().splitlines()[-1] if result.stderr.strip() else "failed"}
    return json.loads(result.stdout.strip().splitlines()[-1])


def probe_memory(peak: Callable[[], float], kind: str, name: str, kwargs: dict, num_envs: int) -> dict:
    """The probe's own work, in its fresh process: import the library, then step ``num_envs`` games 100 times.

    Returns:
        ``rss_mb`` (the peak at the end) and ``imports_rss_mb`` (the peak after the imports), by ``peak``.
    """
    if kind == "ours":
        import gymnasium  # noqa: F401

        import gym_boardgames  # noqa: F401
        from gym_boardgames.rules.batch import random_legal_actions  # noqa: F401
    else:
        import jax  # noqa: F401
        import pgx  # noqa: F401
    imports = peak()
    if kind == "ours":
        vector_workload(name, kwargs, num_envs, None, 100)(100 * num_envs, np.zeros(0))
    else:
        pgx_workload(name, num_envs, 100)(100 * num_envs, np.zeros(0))
    return {"rss_mb": round(peak(), 1), "imports_rss_mb": round(imports, 1)}
