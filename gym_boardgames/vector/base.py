"""The two-player env contract, batched: one :class:`gymnasium.vector.VectorEnv` for every board game.

The contract is documented in docs/design.md, section "Vector env contract".

:class:`TwoPlayerVectorEnv` runs ``num_envs`` games of one configuration in the numpy arrays of a batch
rules object (:mod:`gym_boardgames.rules.batch`) and gives them the single envs' contract
(:class:`gym_boardgames.envs.base.TwoPlayerEnv`) with a batch axis. Game subclasses supply only the batch
rules and the extra info; the spaces are the single envs' (``board_space``), batched.

Names: a single board env's position is ``env.state``; sub-env ``i``'s is ``state(i)``, the same word with
the index a batch needs (Gymnasium's vector envs have no state attribute to follow).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from gym_boardgames.checks import PLAIN_INTEGER_TYPES, check_action, check_choice, check_move, check_seat
from gym_boardgames.envs.base import board_space
from gym_boardgames.envs.contract import ILLEGAL_ACTION_MODES, reset_side
from gym_boardgames.errors import ResetNeeded, shown
from gym_boardgames.opponents import Opponent, UnknownAgentError, make_opponent, opponent_error
from gym_boardgames.rules.batch import random_legal_actions

_SYNC_HINT = (
    "use gymnasium.make_vec(env_id, num_envs=..., vectorization_mode='sync', ...) to run the single envs side "
    "by side instead"
)


class TwoPlayerVectorEnv(VectorEnv):
    """``num_envs`` games of a two-player board game stepped together, with the single envs' contract.

    Everything :class:`~gym_boardgames.envs.base.TwoPlayerEnv` promises holds per sub-env, with a batch
    axis in front:

    * ``step(actions)`` takes ``(num_envs,)`` integer actions and returns observations ``(num_envs, ...)``
      int8 (from the agent's side against an opponent, else from the side of the player to move),
      float64 rewards, terminations, truncations (always False) and an info dict of arrays.
    * ``info["action_mask"]``: ``(num_envs, num_actions)`` int8, all zeros for a finished game.
      ``info["current_player"]``: int64, whose move it is. ``info["illegal_action"]``: bool.
    * ``info["winner"]``: int64, the winner (0 or 1) of each game that ended in this step, and -1 for a
      draw and for games still going on. ``info["_winner"]`` is True exactly where a game ended, which is
      Gymnasium's vector-info convention: ``gymnasium.wrappers.vector.DictInfoToList`` then gives each
      finished sub-env a ``"winner"`` key, as the single env's info has at the end (-1 for a draw in both).
    * Autoreset is Gymnasium's default, ``AutoresetMode.NEXT_STEP`` (``metadata["autoreset_mode"]``): the
      step after a game ends starts a new game in that sub-env and ignores its action; it returns the new
      game's first observation, reward 0, terminated False.
    * ``opponent="random"`` replies uniformly among the legal moves, drawn from ``np_random`` (seeded by
      ``reset(seed=...)``); ``opponent=None`` is self-play, with the reward for the player who just moved.
      An agent name of the scripts (``"alphabeta"``, ``"mcts:200"``, ``"td:FILE"``, ``"always4never3"``...,
      as :class:`~gym_boardgames.envs.base.TwoPlayerEnv` takes) is one agent built for the game, asked in
      turn for each sub-env that waits for a reply (in a Python loop: no faster than sync mode), rebuilt at
      every ``reset(seed=...)`` from that seed, so seeded runs replay exactly. An agent object or a
      callable is not vectorised: it raises ``ValueError`` pointing to ``vectorization_mode="sync"``.
    * ``agent_player`` 0, 1 or ``"random"`` (drawn per sub-env at every reset, automatic ones included);
      ``reset(options={"agent_player": ...})`` overrides it for the games that reset starts.
    * ``illegal_action="lose"`` ends that sub-env's game (reward -1 for the offender, the other player
      wins, the board unchanged); ``"raise"`` raises ``ValueError`` before any sub-env changes, so the
      env stays usable.

    Args:
        batch: the batch rules object (``num_envs`` games).
        opponent: ``"random"``, ``None`` (self-play) or an agent name (``agents.factory.make_agent``).
        agent_player: 0, 1 or ``"random"``; ignored in self-play.
        illegal_action: ``"lose"`` or ``"raise"``.
        render_mode: must be None: sub-envs are not drawn.

    Raises:
        ValueError: on an unsupported opponent or render mode (both name ``vectorization_mode="sync"``; a
            bad agent name also lists the valid ones), or a bad ``agent_player`` or ``illegal_action``.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        batch: Any,
        *,
        opponent: str | None = "random",
        agent_player: int | str = 0,
        illegal_action: str = "lose",
        render_mode: str | None = None,
    ) -> None:
        if opponent is not None and not isinstance(opponent, str):
            raise ValueError(
                f"the vector env plays opponent='random', None (self-play) or an agent name, got {opponent!r}; for "
                f"an agent object or a callable, {_SYNC_HINT}"
            )
        if render_mode is not None:
            raise ValueError(
                f"the vector env does not render (render_mode={render_mode!r}); to watch games, {_SYNC_HINT}"
            )
        self.agent_player_setting = check_seat(agent_player, "agent_player")
        check_choice("illegal_action", illegal_action, ILLEGAL_ACTION_MODES)
        self.batch = batch
        self.game = batch.game
        # A named opponent: one agent for every sub-env, built once here and reseeded at each seeded reset, its
        # act(game, state) and reset() hook; else None.
        self._opponent_agent: Opponent | None = None
        if opponent not in (None, "random"):
            try:
                self._opponent_agent = make_opponent(opponent, self.game)
            except ValueError as error:
                error = opponent_error(opponent, error)
                if isinstance(error, UnknownAgentError):
                    error = UnknownAgentError(f"{error} (for an agent object or a callable, {_SYNC_HINT})")
                raise error from None
        self.num_envs = batch.num_envs
        self.opponent = opponent
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.single_action_space = spaces.Discrete(batch.num_actions)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.single_observation_space = board_space(batch.game)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        # The side each sub-env's agent plays this episode; None in self-play.
        self._agent: np.ndarray | None = None
        # Sub-envs whose game ended in the last step, so the next step restarts them; None before reset().
        self._done: np.ndarray | None = None

    # ---- the gymnasium API -------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a new game in every sub-env; where the agent moves second, the opponent opens.

        Args:
            seed: seeds ``np_random``, which draws the random opponent's moves and random sides.
            options: ``{"agent_player": 0 | 1 | "random"}`` overrides the side for the games started here
                (automatic resets use the constructor's setting again).

        Returns:
            the observations and the info dict (no ``winner`` is set: ``_winner`` is all False).

        Raises:
            ValueError: on an unknown option or a bad ``agent_player``.
        """
        side = reset_side(options, self.agent_player_setting)
        super().reset(seed=seed)
        if seed is not None and self._opponent_agent is not None:
            self._opponent_agent.reseed(seed)
        self.batch.reset()
        if self._opponent_agent is not None:
            self._opponent_agent.reset()
        if self.opponent is not None:
            self._agent = np.zeros(self.num_envs, dtype=np.int8)
            self._start_games(np.arange(self.num_envs), side)
            self._play_opponent()
        # A board so small that the opening move ends the game is restarted by the next step.
        self._done = self.batch.over.copy()
        before = self._scores()
        no = np.zeros(self.num_envs, dtype=bool)
        winner = np.full(self.num_envs, -1, dtype=np.int64)
        return self.batch.observation(self._agent), self._info(no, winner, no.copy(), before)

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play each sub-env's action, then the opponent's replies; restart the sub-envs that ended last step.

        Args:
            actions: ``(num_envs,)`` integers in ``0 .. num_actions - 1`` (ignored for sub-envs that restart).

        Returns:
            observations, rewards (float64), terminated, truncated (all False), info.

        Raises:
            ResetNeeded: before the first ``reset()``.
            ValueError: actions outside the action space (``ActionTypeError``, also a ``TypeError``, for a
                non-integer array), or an illegal move with ``illegal_action="raise"``; nothing changes.
        """
        if self._done is None:
            raise ResetNeeded("step() called before reset(): call reset() to start the games")
        actions = self._check_actions(actions)
        batch = self.batch
        restarting = self._done
        any_restart = bool(restarting.any())
        illegal = ~batch.is_legal(actions)
        if any_restart:
            illegal &= ~restarting
        any_illegal = bool(illegal.any())
        if any_illegal and self.illegal_action == "raise":
            first = int(np.flatnonzero(illegal)[0])
            legal_there = np.flatnonzero(batch.legal_mask()[first]).tolist()
            raise ValueError(
                f"action {int(actions[first])} of sub-env {first} is illegal in its position (legal actions there: "
                f"{legal_there}); {int(illegal.sum())} sub-env(s) had an illegal action, and no sub-env changed"
            )
        # Only a named opponent can raise from here on (or Ctrl-C while it thinks): the games are then put back
        # as they were, as the single env does, so the next step() never plays the caller's actions as replies.
        mover = batch.player.copy()
        before = self._scores()
        snapshot = self._snapshot() if self._opponent_agent is not None else None
        try:
            if any_illegal:
                batch.play(actions, ~(restarting | illegal))
            else:
                # The finished games restarting now play their action too, on the old board: cheaper than
                # leaving them out, and the reset below wipes it.
                batch.play(actions)
            if any_restart:
                restart_rows = np.flatnonzero(restarting)
                batch.reset(restart_rows)
                self._start_games(restart_rows, self.agent_player_setting)
                if self._opponent_agent is not None:
                    self._opponent_agent.reset()  # a game starts: an agent with per-game memory (MCTS's tree) drops it
            if self.opponent is not None:
                self._play_opponent()  # the replies, and the opening moves of restarted games
        except BaseException:
            if snapshot is not None:
                self._restore(snapshot)
            raise
        terminated = batch.over | illegal
        winner = batch.winner.astype(np.int64)
        if any_illegal:
            winner[illegal] = 1 - mover[illegal]
        if any_restart:
            # A game started by this step reports its first position, never an ending.
            terminated &= ~restarting
            winner[restarting] = -1
        seat = mover if self._agent is None else self._agent
        reward = self._reward(winner, seat, before, illegal, restarting)
        self._done = terminated.copy()
        if any_restart:
            # A board so small that the opening move ends the game is restarted by the next step.
            self._done[restart_rows] = batch.over[restart_rows]
        truncated = np.zeros(self.num_envs, dtype=bool)
        observation = self.batch.observation(self._agent)
        return observation, reward, terminated, truncated, self._info(terminated, winner, illegal, before)

    def action_masks(self) -> np.ndarray:
        """Return a new ``(num_envs, num_actions)`` int8 array of the legal actions (zeros where a game ended).

        Raises:
            ResetNeeded: before the first ``reset()``.
        """
        if self._done is None:
            raise ResetNeeded("action_masks() called before reset(): call reset() first")
        mask = self.batch.legal_mask()
        mask[self._done] = 0
        return mask

    @property
    def agent_player(self) -> np.ndarray | None:
        """A new ``(num_envs,)`` int8 array: the side each sub-env's agent plays this episode (None in self-play)."""
        return None if self._agent is None else self._agent.copy()

    def state(self, i: int) -> Any:
        """Return sub-env ``i``'s position as the scalar rules' immutable state (for search agents and tests)."""
        return self.batch.state(i)

    def render(self) -> None:
        """Sub-envs are not drawn (``render_mode`` must be None); always returns None."""
        return None

    # ---- internals ---------------------------------------------------------------------------

    def _check_actions(self, actions: Any) -> np.ndarray:
        """Return ``actions`` as an integer array of one action per sub-env, each in the action space.

        An integer array in range passes at once, and so does a list or tuple of plain integers (its element
        types are checked first: ``np.asarray([0, True])`` is an integer array, where ``True`` is no move);
        anything else is checked sub-env by sub-env with the single env's check
        (:func:`~gym_boardgames.checks.check_action`), so a bad move reads the same as there, after the sub-env's
        number: ``sub-env 1: action True is not an integer in 0..8``.
        """
        n_actions, n_envs = self.single_action_space.n, self.num_envs
        try:
            array = np.asarray(actions)
        except ValueError:  # a ragged list: some sub-env's action is itself a sequence
            array = np.empty(0)
        integers = array.dtype.kind in "iu"
        if integers and isinstance(actions, (list, tuple)):  # a bool, a 0-d array... became an integer here
            integers = set(map(type, actions)) <= PLAIN_INTEGER_TYPES
        if integers and array.shape == (n_envs,) and array.min() >= 0 and array.max() < n_actions:
            return array
        items = list(actions) if isinstance(actions, (list, tuple)) or np.ndim(array) else []
        if len(items) != n_envs:
            raise ValueError(f"actions must be one integer per sub-env, shape ({n_envs},); got {shown(actions)}")
        checked = []
        for i, item in enumerate(items):
            try:
                checked.append(check_action(item, n_actions))
            except ValueError as error:  # an ActionTypeError too: raised again as the same kind
                raise type(error)(f"sub-env {i}: {error}") from None
        return np.array(checked, dtype=np.int64)

    def _start_games(self, rows: np.ndarray, side: int | str) -> None:
        """Draw the agent's side in the new games ``rows``; the opponent's openings come after."""
        if self._agent is not None:
            self._agent[rows] = self.np_random.integers(2, size=len(rows), dtype=np.int8) if side == "random" else side

    def _snapshot(self) -> tuple[dict[str, np.ndarray], np.ndarray, dict[str, Any]]:
        """Copies of every array of the games, of the agent's seats and of the generator's state."""
        arrays = {name: value.copy() for name, value in vars(self.batch).items() if isinstance(value, np.ndarray)}
        return arrays, self._agent.copy(), self.np_random.bit_generator.state

    def _restore(self, snapshot: tuple[dict[str, np.ndarray], np.ndarray, dict[str, Any]]) -> None:
        """Put back what :meth:`_snapshot` copied, in place: some arrays of the batch are views of others."""
        arrays, agent, rng_state = snapshot
        for name, saved in arrays.items():
            np.copyto(getattr(self.batch, name), saved)
        np.copyto(self._agent, agent)
        self.np_random.bit_generator.state = rng_state

    def _agent_moves(self, rows: np.ndarray) -> np.ndarray:
        """Ask the named opponent for its move in each game of ``rows``, in order (so a seed replays)."""
        game, act = self.game, self._opponent_agent.act  # type: ignore[union-attr]
        actions = np.zeros(self.num_envs, dtype=np.intp)
        for i in rows.tolist():
            state, name = self.batch.state(i), f"{self.opponent} (sub-env {i})"
            actions[i] = check_move(game, state, act(game, state), name)
        return actions

    def _play_opponent(self) -> None:
        """Play the opponent's moves in every game where it is to move, until none is."""
        batch, agent = self.batch, self._agent
        while True:
            moving = batch.player != agent
            moving &= ~batch.over
            rows = np.flatnonzero(moving)
            if not len(rows):
                return
            if self._opponent_agent is not None:
                actions = self._agent_moves(rows)
            elif 4 * len(rows) >= self.num_envs:
                actions = random_legal_actions(batch.legal_mask(), self.np_random)
            else:
                # Few games left to answer (Dots and Boxes' extra moves): draw only theirs.
                actions = np.zeros(self.num_envs, dtype=np.intp)
                actions[rows] = random_legal_actions(batch.legal_mask()[rows], self.np_random)
            batch.play(actions, moving)

    def _scores(self) -> Any:
        """A snapshot of the scores taken before a move, for games rewarded by score; None otherwise."""
        return None

    def _reward(
        self, winner: np.ndarray, seat: np.ndarray, before: Any, illegal: np.ndarray, restarted: np.ndarray
    ) -> np.ndarray:
        """Return float64 rewards for ``seat``.

        Without a score snapshot (``before`` is None): +1 if it won, -1 if it lost (an illegal move loses),
        else 0; ``winner`` is already -1 in the ``restarted`` games (and ``1 - mover`` in the ``illegal``
        ones). With one: :meth:`_score_reward`, but -1 for an illegal move and 0 in a restarted game.
        """
        if before is None:
            reward = (winner == seat).astype(np.float64)
            reward -= winner == 1 - seat
            return reward
        reward = self._score_reward(seat, before)
        reward[illegal] = -1.0
        reward[restarted] = 0.0  # a new game: its scores were reset, not lost
        return reward

    def _score_reward(self, seat: np.ndarray, before: Any) -> np.ndarray:
        """The float64 reward of a game rewarded by score: ``seat``'s score gained minus conceded since ``before``.

        Only called where :meth:`_scores` gives a snapshot; a game rewarded by score overrides both.
        """
        raise NotImplementedError

    def _info(self, terminated: np.ndarray, winner: np.ndarray, illegal: np.ndarray, before: Any) -> dict[str, Any]:
        mask = self.batch.legal_mask()
        if illegal.any():
            mask[illegal] = 0
        return {
            "action_mask": mask,
            "current_player": self.batch.player.astype(np.int64),
            "illegal_action": illegal,
            "winner": winner,
            "_winner": terminated.copy(),
        }

    def __repr__(self) -> str:
        name = self.spec.id if self.spec is not None else repr(self.game)
        return f"{type(self).__name__}({name}, num_envs={self.num_envs})"
