"""The GridWorld view: frames show the agent, and the value/policy overlay in viridis in any render mode."""

import gymnasium as gym
import numpy as np

import gym_boardgames  # noqa: F401
from gym_boardgames.envs.gridworld import RIGHT


def test_rgb_array_frame_shows_the_agent_and_the_overlay_changes_it(random_policy_overlay):
    env = gym.make("GridWorld-v0", render_mode="rgb_array")
    env.reset(seed=0, options={"start_state": 5})
    plain = env.render()
    assert plain.dtype == np.uint8 and plain.ndim == 3 and plain.shape[2] == 3
    env.step(RIGHT)
    moved = env.render()
    assert not np.array_equal(plain, moved)  # the agent moved

    V, policy = random_policy_overlay(env)
    env.unwrapped.set_overlay(values=V)
    heat = env.render()
    env.unwrapped.set_overlay(values=V, policy=policy)
    arrows = env.render()
    assert heat.shape == plain.shape
    assert not np.array_equal(moved, heat) and not np.array_equal(heat, arrows)
    env.unwrapped.set_overlay()
    assert np.array_equal(env.render(), moved)


def test_render_gridworld_draws_the_same_overlay_in_any_render_mode(random_policy_overlay):
    from gym_boardgames.envs.gridworld import render_gridworld

    shown = gym.make("GridWorld-v0", render_mode="rgb_array")
    hidden = gym.make("GridWorld-v0")  # no render mode at all
    for env in (shown, hidden):
        env.reset(seed=0, options={"start_state": 9})
    V, policy = random_policy_overlay(shown)
    shown.unwrapped.set_overlay(values=V, policy=policy)
    frame = render_gridworld(hidden, values=V, policy=policy)
    assert np.array_equal(frame, shown.render())
    assert hidden.unwrapped.overlay == (None, None)  # drawing did not leave an overlay behind
    # The heat map runs from viridis' dark purple (the lowest value, -22) to its yellow (the highest, 0).
    from gym_boardgames.render.gridworld_view import GridWorldView

    view = hidden.unwrapped.make_view()
    assert isinstance(view, GridWorldView)

    def corner(s):
        rect = view.cell_rect(s)
        return tuple(frame[rect.top + 4, rect.left + 4])

    assert corner(3) == corner(12) == (68, 1, 84)
    assert corner(0) == corner(15) == (253, 231, 37)


def test_arrows_leave_clear_space_beside_the_numbers():
    """A wide number (-20.0) with arrows to both sides: a few px of bare cell separate the number from each arrow."""
    from gym_boardgames.envs.gridworld import render_gridworld

    env = gym.make("GridWorld-v0")
    env.reset(seed=0)
    n_states = env.observation_space.n
    values = np.full(n_states, -20.0)  # one value: every cell takes viridis' one colour, dark purple
    policy = np.tile([0.0, 0.0, 0.5, 0.5], (n_states, 1))  # LEFT and RIGHT tied
    frame = render_gridworld(env, values=values, policy=policy)
    view = env.unwrapped.make_view()
    rect = view.cell_rect(5)  # a cell in the middle of the grid, not a terminal
    band = frame[rect.centery - 6 : rect.centery + 7, rect.left + 3 : rect.right - 3]
    inked = (band != (68, 1, 84)).any(axis=2).any(axis=0)  # the columns where the number or an arrow drew
    middle = len(inked) // 2
    for side in (inked[middle:], inked[middle::-1]):  # centre to the right edge, centre to the left edge
        runs, run = [], 0
        for ink in side[: np.flatnonzero(side)[-1]]:  # up to the arrow's tip
            run = 0 if ink else run + 1
            runs.append(run)
        assert max(runs) >= 5, f"the number and the arrow are {max(runs)} px apart"
