"""The PettingZoo adapter names the valid agents when a method gets another agent name.

From the reliability issue: ``observe("player_9")`` said ``tuple.index(x): x not in tuple``, and
``observation_space`` / ``action_space`` raised a bare ``KeyError``.
"""

from __future__ import annotations

import re

import pytest

pytest.importorskip("pettingzoo", reason="the pettingzoo extra is not installed: pip install -e '.[pettingzoo]'")

from gym_boardgames.pettingzoo import env, raw_env  # noqa: E402  (after the skip)

METHODS = ("observe", "observation_space", "action_space")
MESSAGE = r"^unknown agent {name}: the agents are 'player_0', 'player_1'$"


@pytest.mark.parametrize("make", [raw_env, env], ids=["raw_env", "env"])
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", ["player_9", "player_0 ", 0, None, ["player_0"]], ids=repr)
def test_an_unknown_agent_name_is_refused_naming_the_agents(make, method, name):
    aec = make("TicTacToe")
    aec.reset(seed=0)
    with pytest.raises(ValueError, match=MESSAGE.format(name=re.escape(repr(name)))):
        getattr(aec, method)(name)


@pytest.mark.parametrize("method", METHODS)
def test_the_agents_names_still_work(method):
    aec = env("ConnectFour")
    aec.reset(seed=0)
    for agent in ("player_0", "player_1"):
        assert getattr(aec, method)(agent) is not None
    assert aec.observe("player_0")["action_mask"].any() and not aec.observe("player_1")["action_mask"].any()
