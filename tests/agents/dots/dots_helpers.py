"""Helpers of the Dots and Boxes agent tests: an independent brute-force reference and random positions."""

import functools

from agents.dots import solve_layers
from gym_boardgames.rules import DotsAndBoxes

# ---- an independent reference: plain recursion on the rules, no bitmasks and no numpy ---------------


def brute_force_q(game, state=None):
    """Boxes the player to move takes from each position to the end with best play: {edges bytes: Q}.

    Built only from the rules surface: ``apply`` says who moves next and ``scores`` what a move took.
    """
    memo = {}

    def q(position):
        if game.is_terminal(position):
            return 0
        if position.edges in memo:
            return memo[position.edges]
        mover = position.player
        taken = game.scores(position)[mover]
        left = position.owners.count(0)
        best = -1
        for action in game.legal_actions(position):
            child = game.apply(position, action)
            if child.player == mover:  # it completed a box: the same player goes on
                value = game.scores(child)[mover] - taken + q(child)
            else:  # the opponent takes q(child) of what is left, the mover the rest
                value = left - q(child)
            best = max(best, value)
        memo[position.edges] = best
        return best

    q(state or game.initial_state())
    return memo


def brute_force_best_moves(game, memo, state):
    mover, taken, left = state.player, game.scores(state)[state.player], state.owners.count(0)
    values = {}
    for action in game.legal_actions(state):
        child = game.apply(state, action)
        child_q = 0 if game.is_terminal(child) else memo[child.edges]
        values[action] = game.scores(child)[mover] - taken + child_q if child.player == mover else left - child_q
    best = max(values.values())
    return sorted(a for a, v in values.items() if v == best)


def bitmask(edges):
    return sum(1 << e for e, drawn in enumerate(edges) if drawn)


def random_position(game, rng, moves):
    state = game.initial_state()
    for _ in range(moves):
        legal = game.legal_actions(state)
        state = game.apply(state, legal[rng.integers(len(legal))])
    return state


@functools.lru_cache(maxsize=1)
def full_3x3_table():
    return solve_layers(DotsAndBoxes(3, 3))
