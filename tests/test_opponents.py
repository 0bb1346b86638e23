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
