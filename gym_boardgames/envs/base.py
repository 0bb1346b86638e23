"""The two-player environment contract, written once for every board game.

The contract is documented in docs/design.md, section "Two-player env contract".

:class:`TwoPlayerEnv` turns a rules object (``initial_state``, ``current_player``, ``legal_actions``,
``apply``, ``is_terminal``, ``returns``) into a single-agent :class:`gymnasium.Env`: the agent plays one
side and a built-in opponent the other, or the caller plays both sides (self-play, ``opponent=None``).
A game subclass supplies only the rules object and the observation encoding.

Names: the current position is ``env.state`` (the rules' immutable state, the word the rules surface and
the agents use: ``apply(state, action)``), and the last move is ``env.lastaction`` (Gymnasium toy_text's
name, as in GridWorld-v0). The tabular envs call their integer state ``s``, as toy_text does.

Drawing: the env keeps the game's history (``moves``) and computes what a frame marks (:meth:`marks`: the
last move's cell or edge, the status line, the result); the views of :mod:`gym_boardgames.render` draw
``(game, state, marks)`` and never see the env.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from gym_boardgames.checks import check_action, check_choice, check_legal, check_seat
from gym_boardgames.envs.contract import ILLEGAL_ACTION_MODES, reset_needed, reset_side, winner_of_returns
from gym_boardgames.errors import ResetNeeded
from gym_boardgames.opponents import Opponent, as_policy, make_opponent, opponent_error
from gym_boardgames.render.board import BoardMarks, BoardStyle, board_marks, status_line
from gym_boardgames.render.modes import BoardRenderMixin
from gym_boardgames.rules.registry import row_of

OpponentPolicy = Callable[[Any, Any], int]


@runtime_checkable
class Agent(Protocol):
    """Anything with ``act(game, state) -> int`` can be an opponent."""

    def act(self, game: Any, state: Any) -> int:
        """Return the action to play in ``state`` (the player to move is ``game.current_player(state)``)."""
        ...


def board_space(game: Any) -> spaces.Box:
    """Return the observation space of one board of ``game``: ``Box(-1, 1, shape, int8)``.

    The shape is that of ``game.observation``; the single, vector and PettingZoo envs all take it from here.
    """
    return spaces.Box(-1, 1, shape=game.observation(game.initial_state(), 0).shape, dtype=np.int8)


class TwoPlayerEnv(BoardRenderMixin, gym.Env[np.ndarray, np.int64]):
    """A two-player, zero-sum, perfect-information board game seen by one agent.

    The observation is the rules' ``observation(state, player)`` in :func:`board_space`. The drawing comes from
    :mod:`gym_boardgames.render.board` (a subclass may refine :meth:`marks`).

    Args:
        game: the rules object.
        opponent: ``"random"`` (uniform over legal moves, from the env's ``np_random``), an agent name
            that the scripts take (built by ``agents.factory.make_agent``, which
            :func:`~gym_boardgames.opponents.make_opponent` imports by its name: ``"alphabeta"``, ``"alphabeta:4"``,
            ``"mcts:200"``, ``"td:FILE"``, and for Dots and Boxes ``"always4never3"``, ``"endgame:10"``,
            ``"exact"``...; built for this game when the env is constructed, and rebuilt at every
            ``reset(seed=...)`` from that seed, so seeded episodes replay exactly), an object with
            ``act(game, state) -> int`` (its ``reset()``, if it has one, is called at every ``reset``), a
            callable ``(game, state) -> int``, or ``None`` for self-play (the caller plays both sides).
        agent_player: the side the agent plays, 0 (moves first), 1, or ``"random"`` (drawn at each
            reset). Ignored in self-play.
        illegal_action: ``"lose"`` (an illegal move ends the episode; the offender gets -1 and the other
            player wins; the board is unchanged) or ``"raise"`` (``ValueError``; the env stays usable).
        render_mode: ``None``, ``"human"``, ``"rgb_array"`` or ``"ansi"``.

    Raises:
        ValueError: on an unknown opponent (the message lists the valid forms and agent names),
            agent_player, illegal_action or render_mode.
    """

    metadata: dict[str, Any] = {"render_modes": ["human", "rgb_array", "ansi"], "render_fps": 4}
    #: Display names of the players, player 0 first (TicTacToe, ConnectN and Dots and Boxes set their own).
    player_names: tuple[str, str] = ("Player 0", "Player 1")
    #: Text symbols of player 0's and player 1's pieces.
    symbols: tuple[str, str] = ("0", "1")

    def __init__(
        self,
        game: Any,
        *,
        opponent: str | Agent | OpponentPolicy | None = "random",
        agent_player: int | str = 0,
        illegal_action: str = "lose",
        render_mode: str | None = None,
    ) -> None:
        self.game = game
        # The players' display names and text symbols, player 0 first, and the window title: the package's
        # games have their own; another game keeps the class attributes (a subclass may set them).
        row = row_of(game)
        if row is not None:
            self.player_names, self.symbols, self.window_title = row.style(game)
        self.action_space = spaces.Discrete(game.num_actions)
        self.observation_space = board_space(game)
        # The opponent as built once here (None: self-play or the built-in random); one built from a name is
        # reseeded at each seeded reset.
        self._opponent_agent: Opponent | None = None
        self._opponent_name, self._opponent = self._make_opponent(opponent)
        self.agent_player_setting = check_seat(agent_player, "agent_player")
        self.illegal_action = check_choice("illegal_action", illegal_action, ILLEGAL_ACTION_MODES)
        self._set_render_mode(render_mode)  # the pygame backend comes with the first pygame frame

        self.agent_player: int | None = None  # the side of this episode; None in self-play
        self._needs_reset = True
        self._new_game(None)  # the current rules state is None until reset()

    # ---- construction helpers ----------------------------------------------------------------

    def _make_opponent(self, opponent: object) -> tuple[str, OpponentPolicy | None]:
        if opponent is None:
            return "self-play", None
        if opponent == "random":
            return "random", self._random_move
        try:
            self._opponent_agent = make_opponent(opponent, self.game)
        except ValueError as error:
            raise opponent_error(str(opponent), error) from None
        if isinstance(opponent, str):
            return opponent, self._opponent_agent.act
        name = getattr(opponent, "__qualname__", repr(opponent)) if as_policy(opponent) is opponent else repr(opponent)
        return name, self._opponent_agent.act

    def _random_move(self, game: Any, state: Any) -> int:
        legal = game.legal_actions(state)
        return int(legal[self.np_random.integers(len(legal))])

    def _new_game(self, state: Any) -> None:
        """Start the episode's record at ``state``: no move played, nothing won."""
        self.state: Any = state
        # (player, action) of every move this episode, by either side: drawing and undo use it,
        # never the observation (states carry no history).
        self.moves: list[tuple[int, int]] = []
        self._previous: Any = None  # the state before the last move (where it landed is a rules question)
        self._episode_over = False
        self._winner: int | None = None  # None while the game goes on; then 0, 1 or DRAW
        self._illegal = False

    # ---- the gymnasium API -------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a new game; if the agent moves second, the opponent's opening move is played.

        Args:
            seed: seeds ``np_random`` (the built-in random opponent and ``agent_player="random"``); a
                named opponent is reseeded with a generator derived from it (:meth:`Opponent.reseed`).
            options: ``{"agent_player": 0 | 1 | "random"}`` overrides the side for this episode only.

        Raises:
            ValueError: on an unknown option or a bad ``agent_player``, or an opponent's illegal move.
        """
        super().reset(seed=seed)
        side = reset_side(options, self.agent_player_setting)
        self._needs_reset = True  # stays set if the opponent's opening move fails
        if self._opponent is None:
            self.agent_player = None
        else:
            self.agent_player = int(self.np_random.integers(2)) if side == "random" else int(side)
        if seed is not None and self._opponent_agent is not None and self._opponent_agent.rebuildable:
            self._opponent_agent.reseed(seed)  # built from a name: its random state comes from the seed
        self._new_game(self.game.initial_state())
        if self._opponent_agent is not None:
            self._opponent_agent.reset()
        if self._opponent is not None:
            self._play_opponent()
        self._needs_reset = False
        self._render_human()
        return self._observe(), self._info()

    def step(self, action: int | np.integer) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the agent's move, then the opponent's moves until it is the agent's turn or the end.

        Returns:
            observation, reward (for the agent; in self-play for the player who just moved),
            terminated, truncated (always False), info.

        Raises:
            ResetNeeded: before the first ``reset()`` or after the episode ended.
            ValueError: an action outside ``Discrete(num_actions)`` (``ActionTypeError``, also a
                ``TypeError``, for a non-integer); an illegal move with ``illegal_action="raise"``;
                an illegal move by a custom opponent (the env is then rolled back to before the step).
        """
        if self._needs_reset or self._episode_over:
            raise reset_needed(ended=not self._needs_reset)
        action = check_action(action, self.game.num_actions)
        game, state = self.game, self.state
        mover = game.current_player(state)
        if self.illegal_action == "raise":
            check_legal(game, state, action)
        elif not game.is_legal(state, action):
            self._episode_over, self._illegal, self._winner = True, True, 1 - mover
            self._render_human()
            return self._observe(), -1.0, True, False, self._info()

        before, n_moves, previous = state, len(self.moves), self._previous
        try:
            self._play(action)
            if self._opponent is not None:
                self._play_opponent()
        except BaseException:
            # Keep the env exactly as it was before this step: nothing half-applied.
            self.state, self._previous = before, previous
            del self.moves[n_moves:]
            self._episode_over, self._winner = False, None
            raise
        seat = mover if self.agent_player is None else self.agent_player
        reward = self._reward(before, self.state, seat)
        self._render_human()
        return self._observe(), reward, self._episode_over, False, self._info()

    def action_masks(self) -> np.ndarray:
        """Return a new int8 array, 1 for each legal action now (all zeros at the end).

        This is the method sb3-contrib's ``MaskablePPO`` calls.

        Raises:
            ResetNeeded: before the first ``reset()``.
        """
        if self._needs_reset:
            raise ResetNeeded("action_masks() called before reset(): call reset() first")
        if self._episode_over:
            return np.zeros(self.game.num_actions, dtype=np.int8)
        return self.game.legal_mask(self.state)

    @property
    def lastaction(self) -> int | None:
        """The last move played this episode, by either side; None before any move (toy_text's name)."""
        return self.moves[-1][1] if self.moves else None

    @property
    def last_mover(self) -> int | None:
        """The player who made the last move this episode; None before any move."""
        return self.moves[-1][0] if self.moves else None

    @property
    def winner(self) -> int | None:
        """The result of the finished episode: 0 or 1 for the winner, -1 for a draw (:data:`.contract.DRAW`).

        None while the game goes on (and before the first ``reset()``). Until 0.1 a draw was None too.
        """
        return self._winner

    @property
    def self_play(self) -> bool:
        """Whether the caller plays both sides (``opponent=None``): no built-in opponent moves in ``step``."""
        return self._opponent is None

    @property
    def episode_over(self) -> bool:
        """Whether the episode has ended (by the rules or by an illegal move)."""
        return self._episode_over

    @property
    def illegal_move_made(self) -> bool:
        """Whether the episode ended because of an illegal move."""
        return self._illegal

    # ---- internals ---------------------------------------------------------------------------

    def _play(self, action: int) -> None:
        state = self.state
        self.moves.append((self.game.current_player(state), action))
        self._previous = state
        self.state = self.game.apply(state, action)
        if self.game.is_terminal(self.state):
            self._episode_over = True
            self._winner = winner_of_returns(self.game.returns(self.state))

    def _play_opponent(self) -> None:
        game = self.game
        while not self._episode_over and game.current_player(self.state) != self.agent_player:
            # The agent's move enters here: checked as the caller's is, the message naming the agent.
            move = check_action(self._opponent(game, self.state), game.num_actions, agent=self._opponent_name)
            self._play(check_legal(game, self.state, move, self._opponent_name))

    def _observe(self) -> np.ndarray:
        """The current observation, from the agent's side (in self-play: the player to move's)."""
        player = self.agent_player
        return self.game.observation(self.state, self.game.current_player(self.state) if player is None else player)

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {
            "action_mask": self.action_masks(),
            "current_player": self.game.current_player(self.state),
            "illegal_action": self._illegal,
        }
        if self._episode_over:
            info["winner"] = self._winner
        return info

    def _reward(self, before: Any, after: Any, seat: int) -> float:
        """The reward of ``seat`` for a legal step from ``before`` to ``after``: the payoff at the end."""
        return float(self.game.returns(after)[seat]) if self._episode_over else 0.0

    # ---- rendering ---------------------------------------------------------------------------

    def status_text(self) -> str:
        """A one-line description of the game's status (whose move, or the result), used by every renderer."""
        offender = self.game.current_player(self.state) if self._illegal else None
        winner = self._winner if self._episode_over else None
        return status_line(self.game, self.state, self.player_names, winner, offender)

    @property
    def style(self) -> BoardStyle:
        """The players' names, their text symbols and the window title, as the views take them."""
        return BoardStyle(self.player_names, self.symbols, self.window_title)

    def marks(self) -> BoardMarks:
        """Return what a frame of the current position marks: the last move, the status line, the result.

        The views of :mod:`gym_boardgames.render` draw ``(game, state, marks)``; ``play.py`` draws its window
        the same way.
        """
        return board_marks(self.game, self.moves, self._previous, self.status_text(), self._episode_over)
