"""PettingZoo AEC versions of the board games, built on the same rules objects as the Gymnasium envs.

Both players are agents, ``player_0`` (moves first) and ``player_1``; the turn order comes from the rules'
``current_player``, so a completed box in Dots and Boxes keeps ``agent_selection`` on the same agent::

    from gym_boardgames.pettingzoo import env

    aec = env("ConnectFour")
    aec.reset(seed=0)
    for agent in aec.agent_iter():
        observation, reward, termination, truncation, info = aec.last()
        action = None if termination or truncation else aec.action_space(agent).sample(observation["action_mask"])
        aec.step(action)

Observations are ``{"observation": int8 array, "action_mask": int8 array}``; ``"observation"`` is the one
of the single-agent envs (``game.observation(state, player)``: +1 own, -1 the other player's) and
``"action_mask"`` is all zeros except for the agent to move. Rewards are zero-sum and come at the end
(+1 win, -1 loss, 0 draw, from ``game.returns``). Games: ``"TicTacToe"``, ``"ConnectN"`` (keywords
``rows``, ``cols``, ``n``, ``gravity``), ``"ConnectFour"`` and ``"DotsAndBoxes"`` (``rows``, ``cols``,
``tie_break``).

:func:`env` adds PettingZoo's standard wrappers, as its classic envs do: an illegal move ends the game
with -1 for the offender (``TerminateIllegalWrapper``). :func:`raw_env` has no wrappers and raises
``ValueError`` on an illegal move, leaving the game unchanged.

Rendering uses the views of the Gymnasium envs (:mod:`gym_boardgames.render.board`), drawing this game's
own state and history: no second env runs beside it.

PettingZoo is optional: ``pip install -e ".[pettingzoo]"`` (or ``pip install pettingzoo``).
``import gym_boardgames`` never imports this module.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

try:
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "gym_boardgames.pettingzoo needs PettingZoo, which is an optional dependency: "
        'install the `pettingzoo` extra with `pip install -e ".[pettingzoo]"` (or `pip install pettingzoo`)'
    ) from error

from gym_boardgames.checks import check_action, check_choice
from gym_boardgames.envs.base import board_space
from gym_boardgames.envs.contract import winner_of_returns
from gym_boardgames.render.board import BoardMarks, board_marks, board_style, status_line
from gym_boardgames.render.modes import BoardRenderMixin
from gym_boardgames.rules.registry import GAMES

AGENTS = ("player_0", "player_1")
_SEAT = {agent: player for player, agent in enumerate(AGENTS)}


def _seat_of(agent: str) -> int:
    """Return the player number (0 or 1) of an agent name, for every method that takes one.

    Raises:
        ValueError: on any other name, listing the valid agents.
    """
    return _SEAT[check_choice("agent", agent, AGENTS)]


class raw_env(BoardRenderMixin, AECEnv):  # noqa: N801 - PettingZoo's naming convention for the unwrapped env
    """A two-player board game as a PettingZoo AEC environment, without wrappers.

    Args:
        game: ``"TicTacToe"``, ``"ConnectN"``, ``"ConnectFour"`` or ``"DotsAndBoxes"``.
        render_mode: ``None``, ``"human"``, ``"rgb_array"`` or ``"ansi"``.
        **game_kwargs: the rules' parameters: ``rows``, ``cols``, ``n``, ``gravity`` for ConnectN;
            ``rows``, ``cols``, ``tie_break`` for DotsAndBoxes; none for the other two.

    Raises:
        ValueError: on an unknown game (the message lists the choices), a bad game parameter or an
            unknown render mode.
        TypeError: on a keyword the game does not take.
    """

    metadata: dict[str, Any] = {
        "render_modes": ["human", "rgb_array", "ansi"],
        "name": "gym_boardgames_v0",
        "is_parallelizable": False,
        "render_fps": 4,
    }

    def __init__(self, game: str = "TicTacToe", render_mode: str | None = None, **game_kwargs: Any) -> None:
        super().__init__()
        self._set_render_mode(render_mode)
        self.game = GAMES[check_choice("game", game, sorted(GAMES))].make(**game_kwargs)
        self.game_name = game
        #: The players' display names and text symbols, and the window title: those of the Gymnasium env.
        self.style = board_style(self.game)  # every registered game has one
        self.window_title = self.style.title
        # An instance copy, so the name is per game without touching the class attribute.
        self.metadata = {**self.metadata, "name": f"gym_boardgames_{game.lower()}_v0"}

        self.possible_agents = list(AGENTS)
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": board_space(self.game),
                    "action_mask": spaces.Box(0, 1, shape=(self.game.num_actions,), dtype=np.int8),
                }
            )
            for agent in AGENTS
        }
        self.action_spaces = {agent: spaces.Discrete(self.game.num_actions) for agent in AGENTS}
        self._new_game()

    # ---- the AEC API -------------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space:
        """Return the observation space of ``agent`` (the same for both players).

        Raises:
            ValueError: if ``agent`` is not ``"player_0"`` or ``"player_1"``.
        """
        return self.observation_spaces[AGENTS[_seat_of(agent)]]

    def action_space(self, agent: str) -> spaces.Space:
        """Return ``Discrete(num_actions)``, the action space of ``agent``.

        Raises:
            ValueError: if ``agent`` is not ``"player_0"`` or ``"player_1"``.
        """
        return self.action_spaces[AGENTS[_seat_of(agent)]]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """Return ``agent``'s view: the board from its side, and its legal moves (none unless it is to move).

        Args:
            agent: ``"player_0"`` or ``"player_1"``.

        Raises:
            ValueError: on another name, listing the valid agents.
        """
        player = _seat_of(agent)
        to_move = agent == self.agent_selection and not self.terminations.get(agent, True)
        mask = self.game.legal_mask(self.state) if to_move else np.zeros(self.game.num_actions, dtype=np.int8)
        return {"observation": self.game.observation(self.state, player), "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game with ``player_0`` to move.

        Args:
            seed: accepted for the API; the games have no randomness, so it changes nothing.
            options: unused.
        """
        self._new_game()
        self._render_human()

    def _new_game(self) -> None:
        """Set up the opening position, both agents in and nothing won yet (the constructor and ``reset``)."""
        self.state: Any = self.game.initial_state()
        #: ``(player, action)`` of every move of this game, for drawing (states carry no history).
        self.moves: list[tuple[int, int]] = []
        self._previous: Any = None  # the state before the last move
        #: None while the game goes on; at the end 0 or 1, or -1 for a draw (as ``infos[agent]["winner"]``).
        self.winner: int | None = None
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in AGENTS}
        self.agent_selection = AGENTS[self.game.current_player(self.state)]

    def step(self, action: int | None) -> None:
        """Play ``action`` for ``agent_selection``; the next agent is the rules' player to move.

        At the end both agents are terminated, with rewards ``game.returns`` (+1/-1/0) and
        ``infos[agent]["winner"]`` (0, 1, or -1 for a draw, as in the Gymnasium envs; None until 0.2.0);
        each then steps with ``None`` to leave.

        Raises:
            ActionTypeError: (a ``TypeError`` and a ``ValueError``) if the action is not an integer: booleans,
                floats and strings are refused with the Gymnasium envs' message (the game is unchanged).
            ValueError: if the action is outside the action space or not legal here (the game is unchanged).
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        # The type and range check the Gymnasium envs make (the rules alone would take True as cell 1);
        # apply() then judges legality in the position, so the rules stay the only judge of the game.
        action = check_action(action, self.game.num_actions)
        mover, previous = self.game.current_player(self.state), self.state
        self.state = self.game.apply(previous, action)
        self.moves.append((mover, action))
        self._previous = previous
        # The acting agent's cumulative reward restarts with its own move, as the AEC contract wants.
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        if self.game.is_terminal(self.state):
            payoff = self.game.returns(self.state)
            self.winner = winner_of_returns(payoff)
            self.rewards = {name: float(value) for name, value in zip(AGENTS, payoff, strict=True)}
            self.infos = {name: {"winner": self.winner} for name in AGENTS}
            self.terminations = dict.fromkeys(AGENTS, True)
        self._accumulate_rewards()
        self.agent_selection = AGENTS[self.game.current_player(self.state)]
        self._render_human()

    # ---- drawing (render() and close() are BoardRenderMixin's) --------------------------------

    def marks(self) -> BoardMarks:
        """Return what a frame of the current position marks: the last move, the status line, the result."""
        status = status_line(self.game, self.state, self.style.names, self.winner)
        return board_marks(self.game, self.moves, self._previous, status, self.winner is not None)

    def _maker_call(self) -> str:
        return f'gym_boardgames.pettingzoo.env("{self.game_name}", render_mode=...)'


class _TerminateIllegalWrapper(wrappers.TerminateIllegalWrapper):
    """PettingZoo's ``TerminateIllegalWrapper`` that first checks the move as the raw env and the Gymnasium envs do.

    The stock wrapper indexes the action mask with the action before the env sees it: ``True`` then picks a
    boolean slice of the mask, and the game either plays cell 1 or fails with "truth value of an array is
    ambiguous". Checking here, with the one move check, also stands for ``AssertOutOfBoundsWrapper``: an action
    outside the space gets the Gymnasium envs' message instead of a bare assertion.
    """

    def step(self, action: Any) -> None:
        """Refuse a live agent's move that is no action (the Gymnasium envs' message), else step as the stock one."""
        agent = self.agent_selection
        if not (self.terminations[agent] or self.truncations[agent]):  # a finished agent steps with None
            action = check_action(action, self.action_space(agent).n)
        super().step(action)


def env(game: str = "TicTacToe", render_mode: str | None = None, **game_kwargs: Any) -> AECEnv:
    """Return :class:`raw_env` with PettingZoo's standard wrappers, as its classic environments use.

    An illegal move ends the game with reward -1 for the offender and 0 for the other agent
    (``TerminateIllegalWrapper``); a move that is not an action (a boolean, a float, a string, an array, ``None``
    or an integer outside the space) raises :class:`~gym_boardgames.errors.ActionTypeError` or ``ValueError``
    with the Gymnasium envs' message, in place of ``AssertOutOfBoundsWrapper``'s assertion; calls out of order
    raise clear errors (``OrderEnforcingWrapper``).

    Args:
        game: ``"TicTacToe"``, ``"ConnectN"``, ``"ConnectFour"`` or ``"DotsAndBoxes"``.
        render_mode: ``None``, ``"human"``, ``"rgb_array"`` or ``"ansi"``.
        **game_kwargs: the rules' parameters (see :class:`raw_env`).

    Raises:
        ValueError: on an unknown game, a bad game parameter or an unknown render mode.
    """
    wrapped: AECEnv = raw_env(game, render_mode=render_mode, **game_kwargs)
    wrapped = _TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    return wrappers.OrderEnforcingWrapper(wrapped)
