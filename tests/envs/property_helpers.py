"""The property tests' helpers: what each board's states must satisfy, from its documented encoding
(:class:`ConnectSpec`, :class:`DotsSpec`), and what every call must leave true (:func:`assert_rejected`: a
rejected call changes nothing; :func:`assert_consistent`: the state is the rules' result of the moves played,
with the rules' legal moves as its mask).

``test_properties_all_games.py`` (every board env) and ``test_tictactoe.py`` (a buggy custom opponent) use
them. With pytest's importlib import mode a sibling module is not importable by name, so each of them puts
this directory on ``sys.path`` first.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest


class ConnectSpec:
    """What the properties need to know about a ConnectN board, computed from its documented encoding."""

    def __init__(self, rows: int, cols: int, n: int, gravity: bool, env_id: str = "ConnectN-v0") -> None:
        self.rows, self.cols, self.n, self.gravity, self.env_id = rows, cols, n, gravity, env_id
        self.num_actions = cols if gravity else rows * cols

    def __repr__(self) -> str:
        if self.env_id != "ConnectN-v0":
            return self.env_id
        return f"connect-{self.rows}x{self.cols}-n{self.n}-{'gravity' if self.gravity else 'free'}"

    def make(self, **kwargs: Any) -> gym.Env:
        if self.env_id != "ConnectN-v0":  # a fixed board: its id takes no size
            return gym.make(self.env_id, **kwargs)
        return gym.make("ConnectN-v0", rows=self.rows, cols=self.cols, n=self.n, gravity=self.gravity, **kwargs)

    def free(self, state: Any) -> list[int]:
        """Actions whose column / cell has room (the board's top row is row 0)."""
        return [a for a in range(self.num_actions) if state.board[a] == 0]

    def blocked(self, state: Any) -> list[int]:
        """In-space actions illegal here: full columns with gravity, occupied cells without."""
        return [a for a in range(self.num_actions) if state.board[a] != 0]

    def observe(self, state: Any, viewer: int) -> np.ndarray:
        mine, theirs = viewer + 1, 2 - viewer
        values = [1 if v == mine else -1 if v == theirs else 0 for v in state.board]
        return np.array(values, dtype=np.int8).reshape(self.rows, self.cols)

    def check_state(self, env: gym.Env, previous: Any | None) -> None:
        u = env.unwrapped
        board = u.state.board
        assert len(board) == self.rows * self.cols and set(board) <= {0, 1, 2}
        count0, count1 = board.count(1), board.count(2)
        assert count0 - count1 in (0, 1)  # player 0 opens: never behind, never two ahead
        assert u.game.current_player(u.state) == count0 - count1
        if self.gravity:
            for cell in range(self.cols, self.rows * self.cols):
                # Every piece rests on the bottom row or on another piece.
                assert board[cell - self.cols] == 0 or board[cell] != 0, f"cell {cell - self.cols} floats"
        # Rebuilding the state from its board re-derives the player and the cached winner from scratch.
        assert u.game.state_from_board(board) == u.state
        if previous is not None:
            assert all(old == 0 or old == new for old, new in zip(previous.board, board, strict=True))

    def check_legal_step(self, env: gym.Env, before: Any, action: int, mover: int, side: int | None) -> None:
        """A legal ConnectN step adds the mover's piece, then at most one reply."""
        u = env.unwrapped
        board, old = u.state.board, before.board
        if self.gravity:
            # The piece lands on the lowest empty cell of the chosen column.
            landing = max(r for r in range(self.rows) if old[r * self.cols + action] == 0) * self.cols + action
        else:
            landing = action
        assert board[landing] == mover + 1
        added = [i for i in range(len(board)) if board[i] != old[i]]
        agent_ended_it = u.game.is_terminal(u.game.apply(before, action))
        if side is None or agent_ended_it:
            assert added == [landing]
        else:
            (reply,) = (i for i in added if i != landing)
            assert board[reply] == 2 - mover
            assert u.game.current_player(u.state) == side

    def reward_ok(self, env: gym.Env, before: Any, seat: int, reward: float, terminated: bool) -> bool:
        if not terminated:
            return reward == 0.0
        winner = env.unwrapped.game.winner(env.unwrapped.state)
        return reward == (0.0 if winner is None else (1.0 if winner == seat else -1.0))


class DotsSpec:
    """What the properties need to know about a Dots and Boxes board, from the documented edge numbering."""

    def __init__(self, rows: int, cols: int, reward: str) -> None:
        self.rows, self.cols, self.reward = rows, cols, reward
        self.horizontal = (rows + 1) * cols
        self.num_actions = self.horizontal + rows * (cols + 1)
        # Top, bottom, left, right edge of each box, row-major.
        left = [[self.horizontal + r * (cols + 1) + c for c in range(cols)] for r in range(rows)]
        self.sides = [
            (r * cols + c, (r + 1) * cols + c, left[r][c], left[r][c] + 1) for r in range(rows) for c in range(cols)
        ]

    def __repr__(self) -> str:
        return f"dots-{self.rows}x{self.cols}-{self.reward}"

    def make(self, **kwargs: Any) -> gym.Env:
        return gym.make("DotsAndBoxes-v0", rows=self.rows, cols=self.cols, reward=self.reward, **kwargs)

    def free(self, state: Any) -> list[int]:
        return [e for e in range(self.num_actions) if not state.edges[e]]

    def blocked(self, state: Any) -> list[int]:
        return [e for e in range(self.num_actions) if state.edges[e]]

    def observe(self, state: Any, viewer: int) -> np.ndarray:
        mine, theirs = viewer + 1, 2 - viewer
        owners = [1 if v == mine else -1 if v == theirs else 0 for v in state.owners]
        return np.array(list(state.edges) + owners, dtype=np.int8)

    def check_state(self, env: gym.Env, previous: Any | None) -> None:
        u = env.unwrapped
        edges, owners = u.state.edges, u.state.owners
        assert len(edges) == self.num_actions and set(edges) <= {0, 1}
        assert len(owners) == len(self.sides) and set(owners) <= {0, 1, 2}
        # A box is owned exactly when its four sides are drawn, and the scores count the owned boxes.
        for box, sides in enumerate(self.sides):
            assert (owners[box] != 0) == all(edges[e] for e in sides)
        assert tuple(u.game.scores(u.state)) == (owners.count(1), owners.count(2))
        if previous is not None:
            # Edges are only ever drawn, boxes never change hands, so scores never decrease.
            assert all(old <= new for old, new in zip(previous.edges, edges, strict=True))
            assert all(old == 0 or old == new for old, new in zip(previous.owners, owners, strict=True))
            before, after = u.game.scores(previous), u.game.scores(u.state)
            assert after[0] >= before[0] and after[1] >= before[1]

    def check_legal_step(self, env: gym.Env, before: Any, action: int, mover: int, side: int | None) -> None:
        """A legal Dots step draws the edge; the opponent then moves only while it keeps closing boxes."""
        u = env.unwrapped
        edges = u.state.edges
        assert edges[action] == 1
        added = [e for e in range(self.num_actions) if edges[e] != before.edges[e]]
        closed = u.game.boxes_completed_by(before, action)
        over = u.game.is_terminal(u.state)
        if side is None or closed:
            # One move only: in self-play always; against an opponent when the agent closed a box and keeps
            # the move (the last edge always closes one, so the game cannot end otherwise).
            assert added == [action]
            assert u.game.current_player(u.state) == (mover if closed else 1 - mover)
            return
        assert action in added and len(added) >= 2  # the opponent replied
        # Every opponent move but its last closed a box (the last one too if it ended the game).
        opponent_gain = u.game.scores(u.state)[1 - mover] - u.game.scores(before)[1 - mover]
        assert opponent_gain >= len(added) - (1 if over else 2)
        assert over or u.game.current_player(u.state) == side

    def reward_ok(self, env: gym.Env, before: Any, seat: int, reward: float, terminated: bool) -> bool:
        game, after = env.unwrapped.game, env.unwrapped.state
        if self.reward == "score":
            gained = [a - b for a, b in zip(game.scores(after), game.scores(before), strict=True)]
            return reward == gained[seat] - gained[1 - seat]
        return reward == (game.returns(after)[seat] if terminated else 0.0)


# ---- checks after every call ----------------------------------------------------------------


def snapshot(env: gym.Env) -> tuple[Any, ...]:
    """Everything a step could change, including the opponent's random stream (for reproducibility)."""
    u = env.unwrapped
    return (
        u.state, list(u.moves), u.episode_over, u.winner, u.illegal_move_made,
        u.agent_player, u.np_random.bit_generator.state, u.action_masks().tolist(),
    )  # fmt: skip


def assert_rejected(env: gym.Env, action: Any, error: type[BaseException], match: str | None = None) -> BaseException:
    """``step(action)`` raises ``error`` and leaves the env exactly as it was; return the exception."""
    before = snapshot(env)
    with pytest.raises(error, match=match) as caught:
        env.step(action)
    assert snapshot(env) == before
    return caught.value


def assert_consistent(env: gym.Env, ended: bool, info: dict[str, Any] | None = None) -> None:
    """The state is the rules' result of the moves played, and the mask is the rules' legal moves while the
    game runs and all zeros at the end."""
    u = env.unwrapped
    game, state = u.game, u.state
    # Replaying the episode's move log with the rules gives exactly the env's state, each move made by the
    # player the rules had to move (so, in Dots and Boxes, nobody moved twice without closing a box).
    replayed = game.initial_state()
    for player, action in u.moves:
        assert player == game.current_player(replayed)
        replayed = game.apply(replayed, action)
    assert replayed == state
    assert u.episode_over == ended
    mask = u.action_masks()
    assert mask.dtype == np.int8 and mask.shape == (game.num_actions,)
    if ended:
        assert not mask.any()
        assert game.is_terminal(state) or u.illegal_move_made
    else:
        assert not game.is_terminal(state)
        assert np.flatnonzero(mask).tolist() == list(game.legal_actions(state))
        assert mask.any()  # a running game always has a move
    if info is not None:
        np.testing.assert_array_equal(info["action_mask"], mask)
        assert info["current_player"] == game.current_player(state)
        assert ("winner" in info) == ended
        if "scores" in info:
            assert info["scores"] == list(game.scores(state))
