"""What every reference cross-check asserts about one reset/step output of a two-player board env.

``test_connectn.py`` (ConnectN, Connect Four and tic-tac-toe) and ``test_dots.py`` each
keep a small ``assert_env_agrees`` that calls :func:`assert_contract_agrees` with their reference
position and then checks the game's own state fields; both drive self-play with illegal moves through
:func:`self_play_with_illegal_moves`. With pytest's importlib import mode a sibling module
is not importable by name, so each of them puts this directory on ``sys.path`` first.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from gym_boardgames.errors import ResetNeeded


def assert_equal_arrays(actual: np.ndarray, expected: np.ndarray) -> None:
    """The check of ``np.testing.assert_array_equal`` (same shape, same values) at a fraction of its cost.

    The cross-checks compare arrays several times on every step of thousands of games; numpy's assertion
    spends most of that time building a report no passing test reads, so the report is built on failure only.
    """
    assert np.array_equal(actual, expected), f"arrays differ:\n{actual}\n!=\n{expected}"


def as_action(action: int, rng: np.random.Generator) -> int | np.integer:
    """Half the time pass a numpy integer: agents often hand back ``np.int64`` from an argmax."""
    return np.int64(action) if rng.random() < 0.5 else int(action)


#: The default ``winner`` of the cross-checks' ``assert_env_agrees``: the step must not have ended the game.
NO_WINNER_KEY = object()


def assert_contract_agrees(
    env: gym.Env,
    ref: Any,
    obs: np.ndarray,
    info: dict[str, Any],
    *,
    viewer: int,
    ended: bool,
    winner: int | None | object = NO_WINNER_KEY,
    illegal: bool = False,
) -> None:
    """Check the two-player contract of one reset/step output against a reference position.

    Args:
        env: the env (its ``unwrapped`` is a ``TwoPlayerEnv``).
        ref: the reference position: its ``observation(viewer)`` (its shape is checked too), ``mask()`` (the
            legal-move mask, int8), ``to_move()`` (the offender after an illegal move), ``legal()`` (ascending)
            and ``over()`` (over by the rules).
        obs: the observation returned.
        info: the info returned.
        viewer: the player whose side the observation shows.
        ended: whether the episode ended (by the rules or an illegal move).
        winner: the reference's winner when ``ended`` (None for a draw: the env reports -1 since 0.2.0).
        illegal: whether the step was an illegal move.
    """
    expected_obs, ref_mask, to_move, legal, over = (
        ref.observation(viewer),
        ref.mask(),
        ref.to_move(),
        ref.legal(),
        ref.over(),
    )
    assert isinstance(obs, np.ndarray) and obs.dtype == np.int8 and obs.shape == expected_obs.shape
    assert_equal_arrays(obs, expected_obs)

    num_actions = len(ref_mask)
    expected_mask = np.zeros(num_actions, dtype=np.int8) if ended else ref_mask
    mask = info["action_mask"]
    assert isinstance(mask, np.ndarray) and mask.dtype == np.int8 and mask.shape == (num_actions,)
    assert_equal_arrays(mask, expected_mask)
    # After an illegal move the board is unchanged, so the reference's player to move is the offender.
    assert info["current_player"] == to_move
    assert info["illegal_action"] is illegal
    expected_winner = -1 if winner is None else winner
    if ended:
        assert "winner" in info and info["winner"] == expected_winner
    else:
        assert "winner" not in info

    u = env.unwrapped
    assert u.game.current_player(u.state) == to_move
    # The rules judge the position itself: after an illegal move it is not over for them.
    assert list(u.game.legal_actions(u.state)) == legal
    assert u.game.is_terminal(u.state) == over
    assert_equal_arrays(u.action_masks(), expected_mask)
    assert u.episode_over == ended
    if ended:
        assert u.winner == expected_winner


def self_play_with_illegal_moves(
    env: gym.Env,
    new_reference: Callable[[], Any],
    games: int,
    *,
    seed: int,
    rate: float,
    agrees: Callable[..., None],
    check_legal: Callable[[gym.Env, Any, Any, np.ndarray, float, dict[str, Any], int], None],
) -> Counter[int]:
    """Play ``games`` random self-play games on ``env`` and on a fresh reference each, trying illegal moves.

    The reference (``new_reference()``) offers ``over()``, ``to_move()``, ``legal()``, ``blocked()`` (the
    actions illegal in its position), ``mask()``, ``matches(state)``, ``play(action)`` and ``copy()``. Before
    each move, where something is blocked, one blocked action is tried with probability ``rate``:

    * with ``illegal_action="raise"`` it raises ``ValueError`` ("illegal") and changes nothing: the mask and
      the position are still the reference's, and the same player moves next;
    * with ``"lose"`` the offender gets -1 and the episode ends on the unchanged board
      (``agrees(env, ref, obs, info, viewer=, ended=True, winner=1 - offender, illegal=True)``), and ``step``
      then asks for a reset.

    Every other move is a random legal one, played on both: it terminates exactly when the reference is over,
    and ``check_legal(env, ref, before, obs, reward, info, mover)`` checks the rest (``before``: the
    reference before the move).
    Actions are passed as Python or numpy integers at random (:func:`as_action`).

    Returns:
        How many illegal moves each player tried.
    """
    lose = env.unwrapped.illegal_action == "lose"
    rng = np.random.default_rng(seed)
    offenders: Counter[int] = Counter()
    for game_index in range(games):
        obs, info = env.reset(seed=game_index)
        ref = new_reference()
        while not ref.over():
            mover = ref.to_move()
            if ref.blocked() and rng.random() < rate:
                offenders[mover] += 1
                action = as_action(int(rng.choice(ref.blocked())), rng)
                if not lose:
                    with pytest.raises(ValueError, match="illegal"):
                        env.step(action)
                    assert_equal_arrays(env.unwrapped.action_masks(), ref.mask())
                    assert ref.matches(env.unwrapped.state)
                else:
                    before_obs = obs.copy()
                    obs, reward, terminated, truncated, info = env.step(action)
                    # -1 in every reward mode (Dots and Boxes' score mode too, where a legal step gets a box count).
                    assert reward == -1.0 and terminated is True and truncated is False
                    assert_equal_arrays(obs, before_obs)  # same viewer (the offender), same board
                    agrees(env, ref, obs, info, viewer=mover, ended=True, winner=1 - mover, illegal=True)
                    assert env.unwrapped.illegal_move_made
                    with pytest.raises(ResetNeeded, match=r"reset\(\)"):
                        env.step(0)
                    break
            before = ref.copy()
            action = int(rng.choice(ref.legal()))
            obs, reward, terminated, _, info = env.step(as_action(action, rng))
            ref.play(action)
            assert terminated is ref.over()
            check_legal(env, ref, before, obs, reward, info, mover)
    return offenders
