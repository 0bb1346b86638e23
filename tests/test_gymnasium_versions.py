"""The Gymnasium releases this package supports, each tested in a fresh virtual environment.

``pyproject.toml`` asks for ``gymnasium>=1.0``. For every minor release from 1.0 on, this test makes a new
venv, installs ``gymnasium==X.Y.*``, numpy and pygame-ce from the package index (their newest releases that fit,
as a user's ``pip install`` would get) and this package with ``--no-deps`` (a wheel built once from the working
tree), and there, for each of the six ids: makes it, runs Gymnasium's ``check_env`` on it (warnings are
errors, as in tests/envs/test_check_env.py; without and with ``rgb_array`` rendering), plays a short seeded
random episode (twice, to check that it replays), and checks that :func:`gym_boardgames.wrappers.make_flat`
gives a flat ``float32`` observation, as docs/tutorials/cleanrl.md promises for the same range.

Opt-in and slow: it needs the package index and takes minutes (a venv and a download per version), so it runs
only with ``GYM_BOARDGAMES_TEST_GYMNASIUM_VERSIONS=1``::

    GYM_BOARDGAMES_TEST_GYMNASIUM_VERSIONS=1 python -m pytest tests/test_gymnasium_versions.py -m slow

When a Gymnasium minor release comes out, add it to ``SUPPORTED`` and run this; the supported range is stated in
docs/install.md's first lines and in docs/tutorials/cleanrl.md.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Every minor release of Gymnasium from 1.0 on that the package index had when this was last run.
SUPPORTED = ["1.0", "1.1", "1.2", "1.3", "1.4"]
IDS = ["TicTacToe-v0", "ConnectN-v0", "ConnectFour-v0", "DotsAndBoxes-v0", "GridWorld-v0", "TabularBlackjack-v0"]
# A download and an install per version; generous for a loaded 2-core machine.
PIP_TIMEOUT_S = 900
CHECK_TIMEOUT_S = 600

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        os.environ.get("GYM_BOARDGAMES_TEST_GYMNASIUM_VERSIONS") != "1",
        reason="opt-in: set GYM_BOARDGAMES_TEST_GYMNASIUM_VERSIONS=1 (makes a venv per Gymnasium version)",
    ),
]

# Run inside each fresh venv, from a temporary folder (so the checkout is not on sys.path): prints one JSON line.
CHECK = """
import importlib.metadata, json, sys, warnings

import gymnasium as gym
import numpy as np
from gymnasium.utils.env_checker import check_env

import gym_boardgames
from gym_boardgames.wrappers import make_flat


def episode(env, seed):
    # A seeded random episode: uniform over the legal moves (info["action_mask"], all actions where there is none).
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    trace = [obs.tolist() if hasattr(obs, "tolist") else obs]
    for _ in range(500):
        mask = info.get("action_mask", np.ones(env.action_space.n, dtype=np.int8))
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert env.observation_space.contains(obs), (env.spec.id, obs)
        trace.append((obs.tolist() if hasattr(obs, "tolist") else obs, float(reward)))
        if terminated or truncated:
            return trace
    raise AssertionError(f"{env.spec.id}: a random episode did not end in 500 steps")


results = {
    "python": sys.version.split()[0],
    "gymnasium": gym.__version__,
    "numpy": np.__version__,
    "pygame-ce": importlib.metadata.version("pygame-ce"),
    "package": gym_boardgames.__version__,
}
for env_id in sys.argv[1:]:
    for render_mode in (None, "rgb_array"):
        env = gym.make(env_id, render_mode=render_mode)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # any checker warning is a failure, as in the main test suite
            check_env(env.unwrapped)
        env.close()
    env = gym.make(env_id)
    first, again = episode(env, 7), episode(env, 7)
    assert first == again, f"{env_id}: a seeded episode does not replay"
    flat = make_flat(env_id, action_mask=True)
    space = flat.observation_space
    assert isinstance(space, gym.spaces.Box) and len(space.shape) == 1 and space.dtype == np.float32, space
    episode(flat, 7)
    results[env_id] = {"steps": len(first) - 1, "flat_shape": list(space.shape)}
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel of this package, built once from a copy of the working tree (the checkout gets no build/)."""
    base = tmp_path_factory.mktemp("package")
    source = base / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    for name in ("gym_boardgames", "agents"):
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(base / "dist"), str(source)],
        capture_output=True,
        text=True,
        timeout=PIP_TIMEOUT_S,
    )
    assert result.returncode == 0, f"pip wheel failed:\n{result.stderr[-3000:]}"
    (built,) = (base / "dist").glob("gym_boardgames-*.whl")
    return built


@pytest.mark.parametrize("minor", SUPPORTED)
def test_every_id_passes_check_env_and_plays_under_gymnasium(minor: str, wheel: Path, tmp_path: Path):
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)
    python = str(env_dir / "bin" / "python")
    for args in (
        [f"gymnasium=={minor}.*", "numpy", "pygame-ce"],
        ["--no-deps", str(wheel)],
    ):
        result = subprocess.run(
            [python, "-m", "pip", "install", "-q", *args], capture_output=True, text=True, timeout=PIP_TIMEOUT_S
        )
        assert result.returncode == 0, f"pip install {' '.join(args)} failed:\n{result.stderr[-3000:]}"
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    env.pop("PYTHONPATH", None)
    result = subprocess.run(
        [python, "-c", CHECK, *IDS],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=CHECK_TIMEOUT_S,
    )
    assert result.returncode == 0, f"gymnasium {minor}.*: the checks fail:\n{result.stderr[-4000:]}"
    report = json.loads(result.stdout.splitlines()[-1])
    print(json.dumps(report))  # shown with pytest -s: the exact versions that passed
    assert report["gymnasium"].startswith(f"{minor}."), report["gymnasium"]
    assert set(IDS) <= set(report), report
