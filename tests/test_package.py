"""Packaging promises: a light import, string registration, and agents/ importable."""

import subprocess
import sys

import pytest


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
    import gym_boardgames

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


def test_atomic_writes_keep_the_usual_file_mode_and_leave_no_temp_files(tmp_path):
    import os

    from gym_boardgames.utils import write_text_atomic

    target = tmp_path / "out.json"
    write_text_atomic(target, "{}")
    umask = os.umask(0o022)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask
    os.chmod(target, 0o640)
    write_text_atomic(target, "[]")
    assert target.read_text() == "[]" and target.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]
