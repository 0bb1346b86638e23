"""Fixtures of the render tests."""

import pytest


@pytest.fixture
def random_policy_overlay():
    """``overlay(env)``: the values of GridWorld's uniform random policy and the greedy policy on them, ties split.

    The value/policy overlay the views and the text tables draw, as the docs' examples make it.
    """
    from agents.tabular.dp import greedy_policy, policy_evaluation, uniform_policy

    def overlay(env):
        P = env.unwrapped.P
        V = policy_evaluation(P, uniform_policy(P))
        return V, greedy_policy(P, V, split_ties=True)

    return overlay
