"""The rules floor imports numpy and the standard library only (docs/design.md, section "Layers").

Every module of ``gym_boardgames/rules`` is parsed with :mod:`ast` (nothing is imported): each import, at module
level or inside a function, must be the standard library, numpy, the rules themselves, or the two modules of
checks every layer shares (``gym_boardgames.checks``, ``gym_boardgames.errors``). A ``"module:attribute"`` string
may name only those too: a pointer to an env, a view or an agent belongs to the layer above, in its own table.
"""

import ast
import re
import sys
from pathlib import Path

RULES = Path(__file__).resolve().parents[2] / "gym_boardgames" / "rules"
SHARED_CHECKS = ("gym_boardgames.checks", "gym_boardgames.errors")
POINTER = re.compile(r"^([A-Za-z_][\w.]*):[A-Za-z_]\w*$")


def allowed(module):
    top = module.split(".")[0]
    return (
        top in sys.stdlib_module_names
        or top == "numpy"
        or module == "gym_boardgames.rules"
        or module.startswith("gym_boardgames.rules.")
        or module in SHARED_CHECKS
    )


def outside_the_floor(source):
    """Yield each module that ``source`` imports or names by a ``"module:attribute"`` string off the floor."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""] if node.level == 0 else []  # a relative import stays inside rules
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and POINTER.match(node.value):
            names = [POINTER.match(node.value)[1]]
        else:
            continue
        yield from (name for name in names if not allowed(name))


def test_no_module_of_the_rules_imports_or_names_anything_above_numpy_and_the_standard_library():
    modules = sorted(RULES.rglob("*.py"))
    assert len(modules) >= 9, modules  # the walk sees the rules' modules
    found = {
        str(path.relative_to(RULES)): sorted(set(outside_the_floor(path.read_text(encoding="utf-8"))))
        for path in modules
    }
    assert not {name: imports for name, imports in found.items() if imports}


def test_the_check_refuses_gymnasium_pygame_an_agent_pointer_and_the_envs():
    source = """
import numpy as np
from collections.abc import Callable
from gym_boardgames.rules.connect import ConnectN
def later():
    from gymnasium.envs.registration import register
    import pygame
ENCODER = "agents.alphazero.encoding:ConnectEncoder"
ENV = "gym_boardgames.envs.tictactoe:TicTacToeEnv"
TEXT = "see module:attribute below"
"""
    assert list(outside_the_floor(source)) == [
        "gymnasium.envs.registration",
        "pygame",
        "agents.alphazero.encoding",
        "gym_boardgames.envs.tictactoe",
    ]
