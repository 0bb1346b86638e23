"""gym_boardgames/__init__.py: the import registers every id, and each public name is its module's own object,
loaded on first use. (The import's lightness, no pygame and no env, is pinned in test_package.py.)"""

import json
import subprocess
import sys

import pytest

import gym_boardgames

IDS = ["TicTacToe-v0", "ConnectN-v0", "ConnectFour-v0", "DotsAndBoxes-v0", "GridWorld-v0", "TabularBlackjack-v0"]

FIRST_USE = """
import json, sys, types
import gym_boardgames
envs_at_import = sorted(m for m in sys.modules if m.startswith("gym_boardgames.envs"))
found = {}
for name in gym_boardgames.__all__:
    if name.startswith("__"):
        continue
    value = getattr(gym_boardgames, name)
    if isinstance(value, types.ModuleType):  # a submodule handed on: the module itself
        module, same = value.__name__, sys.modules[value.__name__] is value
    else:
        module = value.__module__
        same = getattr(sys.modules[module], name, None) is value
    found[name] = {"module": module, "same": same}
print(json.dumps({"envs_at_import": envs_at_import, "names": found}))
"""


def run_python(code: str) -> str:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout.strip().splitlines()[-1]


def test_importing_the_package_registers_every_id_and_nothing_before():
    out = run_python(
        "import gymnasium as gym; ids = " + repr(IDS) + "; before = [i for i in ids if i in gym.registry]; "
        "import gym_boardgames; print(before, [i for i in ids if i not in gym.registry])"
    )
    assert out == "[] []"


def test_each_public_name_is_its_modules_own_object_and_its_module_loads_on_first_use():
    out = json.loads(run_python(FIRST_USE))
    found = out["names"]
    assert {"TicTacToe", "ConnectN", "DotsAndBoxes", "TwoPlayerEnv", "ConnectFourEnv"} <= set(found)
    for name, facts in found.items():
        assert facts["module"].startswith("gym_boardgames."), (name, facts)
        assert facts["same"], f"gym_boardgames.{name} is not {facts['module']}.{name}"
    # The registration needs the rules; the envs come with the first env name asked for.
    assert out["envs_at_import"] == [] and found["TwoPlayerEnv"]["module"] == "gym_boardgames.envs.base"


def test_a_name_the_package_does_not_have_is_an_attribute_and_import_error():
    assert not hasattr(gym_boardgames, "Chess")
    with pytest.raises(ImportError, match="Chess"):
        from gym_boardgames import Chess  # noqa: F401
    assert "__version__" in gym_boardgames.__all__ and gym_boardgames.__version__.count(".") == 2
