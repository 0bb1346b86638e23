"""Packaging promises: a light import, string registration, agents/ importable, the version, the changelog and
py.typed in the wheel."""

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import gym_boardgames

ROOT = Path(__file__).resolve().parents[1]


def run_python(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def test_import_does_not_load_pygame_or_the_envs():
    out = run_python(
        "import sys, gym_boardgames; print('pygame' in sys.modules, 'gym_boardgames.envs.base' in sys.modules)"
    )
    assert out == "False False"


def test_make_with_module_prefix_works_without_importing_the_package():
    out = run_python(
        "import gymnasium as gym; env = gym.make('gym_boardgames:TicTacToe-v0'); "
        "obs, info = env.reset(seed=0); print(obs.shape, type(env.unwrapped).__name__)"
    )
    assert out == "(3, 3) TicTacToeEnv"


def test_ansi_rendering_never_imports_pygame():
    out = run_python(
        "import sys, gymnasium as gym, gym_boardgames; "
        "env = gym.make('TicTacToe-v0', render_mode='ansi'); env.reset(seed=0); env.step(0); env.render(); "
        "print('pygame' in sys.modules)"
    )
    assert out == "False"


def test_lazy_public_names():
    assert gym_boardgames.TicTacToe().num_actions == 9
    assert gym_boardgames.TicTacToeEnv.__name__ == "TicTacToeEnv"
    with pytest.raises(AttributeError, match="no attribute 'Chess'"):
        gym_boardgames.Chess  # noqa: B018


def test_agents_package_imports():
    import agents

    assert agents.__doc__


def test_missing_pygame_gives_a_clear_message():
    out = run_python(
        "import sys; sys.modules['pygame'] = None\n"
        "import gymnasium as gym, gym_boardgames\n"
        "env = gym.make('TicTacToe-v0', render_mode='rgb_array'); env.reset(seed=0)\n"
        "try:\n    env.render()\nexcept Exception as e:\n    print(type(e).__name__, '|', e)"
    )
    assert out.startswith("DependencyNotInstalled |") and "pip install pygame-ce" in out


def _pyproject() -> str:
    return (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def test_version_is_0_2_0_in_pyproject_and_the_package() -> None:
    match = re.search(r'^version = "([^"]+)"$', _pyproject(), re.MULTILINE)
    assert match is not None
    assert match.group(1) == gym_boardgames.__version__ == "0.2.0"


def test_changelog_records_the_breaking_winner_change_and_the_first_release() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "Keep a Changelog" in text
    headings = re.findall(r"^## \[(\d+\.\d+\.\d+)\]", text, re.MULTILINE)
    assert headings[:2] == ["0.2.0", "0.1.0"]
    release = text.split("## [0.1.0]")[0]
    assert "-1" in release and "winner" in release and "draw" in release
    assert re.search(r"^### Changed", release, re.MULTILINE) or re.search(r"BREAKING", release)


def test_py_typed_is_in_the_package_and_declared_as_package_data() -> None:
    assert (Path(gym_boardgames.__file__).parent / "py.typed").is_file()
    section = re.search(r"^\[tool\.setuptools\.package-data\]\n((?:[^\[\n].*\n?)*)", _pyproject(), re.MULTILINE)
    assert section is not None and re.search(r'^gym_boardgames = \[.*"py\.typed".*\]', section.group(1), re.MULTILINE)


@pytest.mark.slow
def test_the_built_wheel_ships_py_typed(tmp_path: Path) -> None:
    pytest.importorskip("setuptools")
    # Build from a copy of the sources, so the checkout gets no build/ or egg-info, with the venv's setuptools:
    # no isolation, nothing downloaded.
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for package in ("gym_boardgames", "agents"):
        shutil.copytree(ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__"))
    code = "import sys; from setuptools import build_meta; print(build_meta.build_wheel(sys.argv[1]))"
    result = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], cwd=source, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    wheel = tmp_path / result.stdout.strip().splitlines()[-1]
    assert wheel.name.startswith("gym_boardgames-0.2.0-")
    assert "gym_boardgames/py.typed" in zipfile.ZipFile(wheel).namelist()
