"""gym_boardgames.opponents: an agent's ``act`` or the agent itself is its policy; ``reset`` is its hook."""

import subprocess
import sys

import pytest

from gym_boardgames.opponents import as_policy, reset_hook


class Actor:
    """Has ``act`` and ``reset`` and is callable too: ``act`` must win."""

    def act(self, game, state):
        return 1

    def reset(self):
        return "reset"

    def __call__(self, game, state):
        return 2


def test_an_agent_with_act_plays_with_act_even_if_it_is_callable():
    agent = Actor()
    assert as_policy(agent) == agent.act
    assert as_policy(agent)(None, None) == 1


def test_a_plain_callable_is_its_own_policy():
    def lowest(game, state):
        return 0

    assert as_policy(lowest) is lowest


@pytest.mark.parametrize(
    "agent", [None, 3, "alphabeta", type("NoAct", (), {"act": 5})()], ids=["None", "3", "a-name", "act-not-callable"]
)
def test_anything_else_is_refused_naming_what_an_agent_needs(agent):
    with pytest.raises(ValueError, match=r"is not an agent: it needs act\(game, state\) -> int or to be callable"):
        as_policy(agent)


def test_reset_hook_is_a_callable_reset_or_none():
    agent = Actor()
    assert reset_hook(agent)() == "reset"
    assert reset_hook(lambda game, state: 0) is None
    assert reset_hook(type("NotCallable", (), {"reset": 1})()) is None


def test_the_module_never_imports_the_agents_package_or_pygame():
    code = "import sys, gym_boardgames.opponents; print([m for m in ('agents', 'pygame') if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_finding_the_provider_imports_agents_only_when_a_name_is_used():
    code = (
        "import sys, gym_boardgames.opponents as o\n"
        "before = 'agents' in sys.modules\n"
        "o.opponent_provider()\n"
        "print(before, 'agents.provider' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True"]


class _Point:
    """An entry point as importlib.metadata gives it."""

    def __init__(self, name, value, loaded):
        self.name, self.value, self._loaded = name, value, loaded

    def load(self):
        return self._loaded


def _installed(monkeypatch, points):
    import importlib.metadata

    from gym_boardgames import opponents

    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: list(points))
    opponents.opponent_provider.cache_clear()


def _exits(name, game=None, seed=None):
    raise SystemExit("a plugin that exits")


@pytest.fixture
def fresh_provider():
    from gym_boardgames import opponents

    opponents.opponent_provider.cache_clear()
    yield
    opponents.opponent_provider.cache_clear()


def test_this_packages_provider_wins_over_a_plugin_whose_name_sorts_first(monkeypatch, fresh_provider):
    from agents.provider import make_opponent
    from gym_boardgames.opponents import OWN_PROVIDER, opponent_provider

    _installed(monkeypatch, [_Point("zzz_agents", OWN_PROVIDER, make_opponent), _Point("aaa", "evil:make", _exits)])
    assert opponent_provider() is make_opponent


@pytest.mark.parametrize(
    "plugin, message",
    [
        (_exits, "failed on 'alphabeta': SystemExit"),
        (lambda name, game=None, seed=None: 1 / 0, "failed on 'alphabeta': ZeroDivisionError"),
        (lambda name, game=None, seed=None: 42, "returned 42 for 'alphabeta', not an agent"),
    ],
)
def test_a_foreign_provider_is_contained_in_one_value_error(monkeypatch, fresh_provider, plugin, message):
    from gym_boardgames.envs.contract import make_named_opponent
    from gym_boardgames.rules import TicTacToe

    _installed(monkeypatch, [_Point("aaa", "evil:make", plugin)])
    with pytest.raises(ValueError, match=message):
        make_named_opponent("alphabeta", TicTacToe())
