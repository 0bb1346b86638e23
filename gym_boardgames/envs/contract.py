"""The pieces of the two-player contract, once, for the board, vector and PettingZoo envs.

The contract is documented in docs/design.md, section "Two-player env contract".

:class:`~gym_boardgames.envs.base.TwoPlayerEnv`, :class:`~gym_boardgames.vector.base.TwoPlayerVectorEnv`
and :mod:`gym_boardgames.pettingzoo` import these, so a keyword, a reset option, the winner code of a draw
or the Dots and Boxes score reward reads the same in every one of them. Functions that take a seat work
on an int or on a numpy array of seats alike. :func:`reset_needed` is also the tabular envs' (GridWorld-v0,
TabularBlackjack-v0): every single env refuses ``step`` before ``reset`` and after the end alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gym_boardgames.checks import check_seat
from gym_boardgames.errors import ResetNeeded
from gym_boardgames.rules.dots import DRAW

__all__ = [
    "DRAW",
    "DOTS_REWARD_MODES",
    "ILLEGAL_ACTION_MODES",
    "RESET_OPTIONS",
    "check_reset_options",
    "reset_needed",
    "reset_side",
    "score_reward",
    "winner_of_returns",
]

# ``info["winner"]`` and ``winner`` of a drawn game is DRAW (-1). An int, not None: Gymnasium's sync and async
# vector envs stack each info key into one integer array, and a None beside a 0 or 1 made them raise TypeError.

#: The keys ``reset(options=...)`` understands.
RESET_OPTIONS = ("agent_player",)
ILLEGAL_ACTION_MODES = ("lose", "raise")
#: Dots and Boxes ``reward=`` modes: +1/-1/0 at the end, or boxes gained minus conceded per step.
DOTS_REWARD_MODES = ("win", "score")


def check_reset_options(options: dict[str, Any] | None, valid: Sequence[str]) -> dict[str, Any]:
    """Return ``reset``'s ``options`` (``{}`` for None) if they name only options of ``valid``.

    Every env of the package checks its options here (the board envs' ``agent_player``, the tabular
    tasks' ``start_state``), so an unknown one reads the same everywhere.

    Raises:
        ValueError: listing the unknown options and the valid ones.
    """
    unknown = sorted(set(options or ()) - set(valid))
    if unknown:
        raise ValueError(f"unknown reset option(s) {unknown}: valid options are {list(valid)}")
    return options or {}


def reset_side(options: dict[str, Any] | None, default: int | str) -> int | str:
    """Return the agent's side for the episode ``reset(options=...)`` starts: the option, else ``default``.

    Raises:
        ValueError: on an unknown option (listing the valid ones) or a bad ``agent_player``.
    """
    options = check_reset_options(options, RESET_OPTIONS)
    if "agent_player" in options:
        return check_seat(options["agent_player"], 'options["agent_player"]')
    return default


def reset_needed(ended: bool) -> ResetNeeded:
    """Return the error of a ``step`` out of order, for the caller to raise: before ``reset()`` or after the end.

    Every single env (the four board envs and the two tabular ones) raises it, so the rule and its words are
    the same everywhere (docs/design.md, section "Two-player env contract", **Order**). The caller tests its
    own state first, so a step in order costs no call.

    Args:
        ended: True if the episode ended (terminated), False if no episode was started.
    """
    if ended:
        return ResetNeeded("step() called after the episode ended: call reset() to start a new one")
    return ResetNeeded("step() called before reset(): call reset() to start an episode")


def winner_of_returns(payoff: Sequence[float]) -> int:
    """Return ``info["winner"]`` of a finished game from its ``returns``: 0 or 1, or :data:`DRAW` (-1)."""
    return DRAW if payoff[0] == payoff[1] else (0 if payoff[0] > payoff[1] else 1)


def score_reward(margin_change: Any, seat: Any) -> Any:
    """Return the Dots and Boxes ``reward="score"`` reward of ``seat``: boxes gained minus boxes conceded.

    Args:
        margin_change: during the step, player 0's boxes gained minus player 1's (an int or an array).
        seat: the player rewarded, 0 or 1 (an int or an array of the same shape).
    """
    return margin_change * (1 - 2 * seat)
