"""The Dots and Boxes vector env: the opponent's extra moves inside one step, and score rewards."""

import sys
from pathlib import Path

import numpy as np

import gym_boardgames  # noqa: F401

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from vector_helpers import play_vs_random  # noqa: E402


def test_dots_step_returns_only_on_the_agents_turn_after_the_opponents_extra_moves():
    spec = ("DotsAndBoxes-v0", {"rows": 2, "cols": 2})
    extra = 0
    for envs, info, _, (_, _, terminated, _, next_info) in play_vs_random(spec, 30, num_envs=64):
        drawn_before = envs.unwrapped.game.num_edges - info["action_mask"].sum(axis=1)
        drawn_after = envs.unwrapped.game.num_edges - next_info["action_mask"].sum(axis=1)
        going = ~terminated & (drawn_after > drawn_before)
        extra += int((drawn_after[going] - drawn_before[going] > 2).sum())
    assert extra > 0  # some steps held several opponent moves


def test_dots_score_rewards_add_up_to_the_final_margin():
    spec = ("DotsAndBoxes-v0", {"rows": 2, "cols": 2, "reward": "score"})
    totals = np.zeros(16)
    finished = 0
    for envs, _, _, (_, rewards, terminated, _, info) in play_vs_random(spec, 80, num_envs=16):
        totals += rewards
        for i in np.flatnonzero(terminated):
            agent = envs.unwrapped.agent_player[i]
            margin = info["scores"][i][agent] - info["scores"][i][1 - agent]
            assert totals[i] == margin
            totals[i] = 0
            finished += 1
    assert finished > 16
