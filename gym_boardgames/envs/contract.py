"""The pieces of the two-player contract, once, for the board, vector and PettingZoo envs.

The contract is documented in docs/design.md, section "Two-player env contract".

:class:`~gym_boardgames.envs.base.TwoPlayerEnv`, :class:`~gym_boardgames.vector.base.TwoPlayerVectorEnv`
and :mod:`gym_boardgames.pettingzoo` import these, so a keyword, a reset option, the winner code of a draw
or the Dots and Boxes score reward reads the same in every one of them. Functions that take a seat work
on an int or on a numpy array of seats alike. :func:`reset_needed` is also the tabular envs' (GridWorld-v0,
TabularBlackjack-v0): every single env refuses ``step`` before ``reset`` and after the end alike.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from gym_boardgames.errors import ResetNeeded
from gym_boardgames.opponents import PROVIDER_GROUP, UnknownAgentError, as_policy, opponent_provider, reset_hook
from gym_boardgames.rules.dots import DRAW

__all__ = [
    "DRAW",
    "DOTS_REWARD_MODES",
    "ILLEGAL_ACTION_MODES",
    "OPPONENT_FORMS",
    "RESET_OPTIONS",
    "agent_hooks",
    "check_agent_player",
    "check_illegal_action",
    "check_reset_options",
    "check_reward_mode",
    "make_named_opponent",
    "opponent_seed",
    "reseed_opponent",
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
#: The forms ``opponent`` takes, for error messages; ``{names}`` is the form of the installed agent names, if any.
OPPONENT_FORMS = (
    "'random', None (self-play), {names}an object with act(game, state) -> int, or a callable (game, state) -> int"
)
# The spawn key that separates a named opponent's random stream from the env's own np_random stream.
_OPPONENT_STREAM = 0x6F7070


def check_agent_player(value: object, where: str) -> int | str:
    """Validate an ``agent_player`` value and return it as 0, 1 or ``"random"``.

    Raises:
        ValueError: naming ``where`` (the keyword or option) and the accepted values.
    """
    if isinstance(value, str):
        if value == "random":
            return value
    elif not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, np.integer)) and value in (0, 1):
        return int(value)
    raise ValueError(f"{where} must be 0, 1 or 'random', got {value!r}")


def check_illegal_action(value: object) -> str:
    """Return ``value`` if it is one of :data:`ILLEGAL_ACTION_MODES`, else raise ``ValueError``."""
    if not isinstance(value, str) or value not in ILLEGAL_ACTION_MODES:
        raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {value!r}")
    return value


def check_reward_mode(value: object) -> str:
    """Return ``value`` if it is one of :data:`DOTS_REWARD_MODES`, else raise ``ValueError``."""
    if not isinstance(value, str) or value not in DOTS_REWARD_MODES:
        raise ValueError(f"reward must be one of {DOTS_REWARD_MODES}, got {value!r}")
    return value


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
        return check_agent_player(options["agent_player"], 'options["agent_player"]')
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


def agent_hooks(agent: Any) -> tuple[Callable[[Any, Any], int], Callable[[], Any] | None]:
    """Return an opponent's move function and its ``reset`` hook (None if it has none).

    The forms are those of :mod:`gym_boardgames.opponents` (an object with ``act(game, state)``, or a plain
    callable); a ``reset()`` method, if any, is called when a game starts.

    Raises:
        ValueError: if ``agent`` has no ``act`` and is not callable (the message lists the opponent forms).
    """
    try:
        policy = as_policy(agent)
    except ValueError:
        raise ValueError(
            f"opponent {agent!r} is neither 'random', None, an agent name, an object with act(game, state), "
            "nor a callable"
        ) from None
    return policy, reset_hook(agent)


def opponent_seed(seed: int) -> np.random.Generator:
    """Return the generator of a named opponent for an env reset with ``seed``.

    It is a child of ``seed`` apart from the env's own ``np_random`` (``numpy.random.SeedSequence`` with a
    spawn key), so seeding the opponent draws nothing from ``np_random``: a seeded episode replays exactly.
    """
    # The 0 once held a sub-env's index; it stays so that every seed gives the opponent the same moves as before.
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(_OPPONENT_STREAM, 0)))


def reseed_opponent(agent: Any, seed: int) -> bool:
    """Reseed a named opponent in place for an env reset with ``seed``, with :func:`opponent_seed`'s generator.

    An agent of this project has ``reseed(seed)``, which makes it play as a new one built with that seed
    would, without building anything again (an AlphaZero model is read once, when the env is made).

    Returns:
        False, leaving ``agent`` as it is, if it has no ``reseed`` (another package's provider may build such
        agents): the caller then builds a new one with ``opponent_seed(seed)``, so its seeded episodes replay.
    """
    reseed = getattr(agent, "reseed", None)
    if not callable(reseed):
        return False
    reseed(opponent_seed(seed))
    return True


def make_named_opponent(name: str, game: Any, seed: int | np.random.Generator | None = None) -> Any:
    """Return the agent named ``name`` for ``game``, as an env's opponent, from the installed name provider.

    An env calls it once, when it is made (a seeded reset reseeds the agent: :func:`reseed_opponent`). The
    provider is the function registered in the entry-point group ``gym_boardgames.opponents``
    (:func:`gym_boardgames.opponents.opponent_provider`): with gym-boardgames installed, ``agents.provider``,
    which calls ``agents.factory.make_agent``. It is found on first use, so that importing ``gym_boardgames``
    or its envs never imports ``agents``.

    Args:
        name: an agent name, e.g. ``"alphabeta"``, ``"mcts:200"``, ``"td:path/to/file.npz"``, or for Dots and
            Boxes ``"always4never3"``, ``"endgame:10"``, ``"exact"``.
        game: the rules object the agent will play (some names need it, e.g. ``"exact"``).
        seed: seeds the agent (an int, a ``numpy.random.Generator`` or None).

    Raises:
        UnknownAgentError: (a ``ValueError``) on a name the provider does not know, or when no provider is
            installed; the message lists every valid opponent.
        ValueError: on a bad parameter of a known name, listing every valid opponent, or on a foreign provider
            that fails or returns no agent. A saved agent that cannot be loaded raises the loader's own error
            (``SavedFileError``, also a ``ValueError``, naming the file; ``FileNotFoundError`` for a missing one).
        ImportError: if the registered provider (the ``agents`` package of this project) cannot be imported.
    """
    provider = opponent_provider()
    if provider is None:
        raise UnknownAgentError(
            f"unknown opponent {name!r}: no agent names are installed (no package registers the entry-point group "
            f"{PROVIDER_GROUP!r}; gym-boardgames' own `agents` package does: reinstall gym-boardgames, e.g. pip "
            f"install -e .); use {_forms(())}"
        )
    try:
        agent = provider(name, game=game, seed=seed)
    except UnknownAgentError:  # the provider's own list of names would repeat ours
        raise UnknownAgentError(f"unknown opponent {name!r}: use {_forms(getattr(provider, 'names', ()))}") from None
    except ValueError as error:
        if type(error) is not ValueError:
            raise  # e.g. agents.persistence.SavedFileError: the name is fine, the file is not, and it says so
        forms = _forms(getattr(provider, "names", ()))
        raise ValueError(f"bad opponent {name!r}: {error}; valid opponents are {forms}") from None
    except OSError:
        raise  # a saved agent's file that cannot be read names itself
    except (Exception, SystemExit) as error:
        # A provider from another package may raise anything, or even exit: it becomes one ValueError here.
        raise ValueError(f"the agent-name provider {_origin(provider)} failed on {name!r}: {error!r}") from None
    if not (callable(agent) or callable(getattr(agent, "act", None))):
        raise ValueError(f"the agent-name provider {_origin(provider)} returned {agent!r} for {name!r}, not an agent")
    return agent


def _origin(provider: Any) -> str:
    return f"{getattr(provider, '__module__', '?')}.{getattr(provider, '__qualname__', type(provider).__name__)}"


def _forms(names: Sequence[str]) -> str:
    """Return :data:`OPPONENT_FORMS` with the provider's agent names (without that form if there are none)."""
    return OPPONENT_FORMS.format(names=f"an agent name of the scripts ({', '.join(names)}), " if names else "")
