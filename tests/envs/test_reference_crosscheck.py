"""TicTacToe-v0 checked step by step against an independent tic-tac-toe written here.

The reference below shares no code with ``gym_boardgames.rules``: it keeps the board as a plain list of
owners, finds the player to move from the piece counts and lists its own eight lines. Thousands of seeded
random games then drive ``gymnasium.make("TicTacToe-v0", ...)`` and every observable (observation, mask,
current player, reward, terminated, truncated, winner) and the env's internal state must agree with it
after every single step, in self-play, against the built-in random opponent, against custom opponents,
and after illegal moves.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import gym_boardgames  # noqa: F401  (registers the ids)

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from reference_helpers import NO_WINNER_KEY, assert_contract_agrees  # noqa: E402

from gym_boardgames.errors import ResetNeeded

# ---- the independent reference -------------------------------------------------------------

#: Every line of three on a 3x3 board, cells numbered row * 3 + col.
WIN_LINES: tuple[tuple[int, int, int], ...] = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),  # rows
    (0, 3, 6), (1, 4, 7), (2, 5, 8),  # columns
    (0, 4, 8), (2, 4, 6),  # diagonals
)  # fmt: skip


class RefTicTacToe:
    """A deliberately naive tic-tac-toe: ``cells[i]`` is None (empty) or the owner, 0 or 1."""

    def __init__(self, cells: list[int | None] | None = None) -> None:
        self.cells: list[int | None] = [None] * 9 if cells is None else list(cells)

    def copy(self) -> RefTicTacToe:
        return RefTicTacToe(self.cells)

    def to_move(self) -> int:
        """Player 0 opens, so equal counts mean player 0 moves; at the end, who would move next."""
        return 0 if self.cells.count(0) == self.cells.count(1) else 1

    def winner(self) -> int | None:
        for a, b, c in WIN_LINES:
            if self.cells[a] is not None and self.cells[a] == self.cells[b] == self.cells[c]:
                return self.cells[a]
        return None

    def over(self) -> bool:
        return self.winner() is not None or None not in self.cells

    def legal(self) -> list[int]:
        if self.over():
            return []
        return [i for i, owner in enumerate(self.cells) if owner is None]

    def occupied(self) -> list[int]:
        return [i for i, owner in enumerate(self.cells) if owner is not None]

    def play(self, cell: int) -> None:
        assert cell in self.legal(), f"reference: {cell} is not legal in {self.cells}"
        self.cells[cell] = self.to_move()

    def mask(self) -> np.ndarray:
        legal = set(self.legal())
        return np.array([1 if i in legal else 0 for i in range(9)], dtype=np.int8)

    def observation(self, viewer: int) -> np.ndarray:
        """+1 for ``viewer``'s pieces, -1 for the other player's, 0 for empty, as a (3, 3) int8 array."""
        values = [0 if owner is None else (1 if owner == viewer else -1) for owner in self.cells]
        return np.array(values, dtype=np.int8).reshape(3, 3)

    def library_board(self) -> bytes:
        """The board in the cell encoding the rules module documents: 0 empty, 1 player 0, 2 player 1."""
        return bytes(0 if owner is None else owner + 1 for owner in self.cells)


def test_reference_knows_the_textbook_positions() -> None:
    # Guard the guard: a broken reference would make every cross-check below meaningless.
    ref = RefTicTacToe()
    for cell in (4, 0, 8, 2, 6, 7, 1, 3, 5):  # a well-known drawn line of play
        assert ref.winner() is None
        ref.play(cell)
    assert ref.over() and ref.winner() is None and ref.legal() == []
    ref = RefTicTacToe()
    for cell in (0, 3, 1, 4, 2):  # X completes the top row
        ref.play(cell)
    assert ref.winner() == 0 and ref.legal() == [] and ref.to_move() == 1
    assert ref.observation(1).tolist() == [[-1, -1, -1], [1, 1, 0], [0, 0, 0]]
    assert ref.library_board() == bytes([1, 1, 1, 2, 2, 0, 0, 0, 0])


# ---- comparing the env with the reference ------------------------------------------------------


def make(**kwargs: Any) -> gym.Env:
    return gym.make("TicTacToe-v0", **kwargs)


def as_action(cell: int, rng: np.random.Generator) -> int | np.integer:
    """Half the time pass a numpy integer: agents often hand back ``np.int64`` from an argmax."""
    return np.int64(cell) if rng.random() < 0.5 else int(cell)


def assert_env_agrees(
    env: gym.Env,
    ref: RefTicTacToe,
    obs: np.ndarray,
    info: dict[str, Any],
    *,
    viewer: int,
    ended: bool,
    winner: int | None | object = NO_WINNER_KEY,
    illegal: bool = False,
) -> None:
    """Check one reset/step output and the env's internal state against the reference position."""
    assert obs.shape == (3, 3)
    assert_contract_agrees(
        env, obs, info, expected_obs=ref.observation(viewer), ref_mask=ref.mask(), to_move=ref.to_move(),
        legal=ref.legal(), over=ref.over(), ended=ended, winner=winner, illegal=illegal,
    )  # fmt: skip
    u = env.unwrapped
    assert u.state.board == ref.library_board()
    if ref.over():
        w = ref.winner()
        expected_returns = (0.0, 0.0) if w is None else ((1.0, -1.0) if w == 0 else (-1.0, 1.0))
        assert tuple(u.game.returns(u.state)) == expected_returns


def assert_fresh(arrays: list[np.ndarray], previous: list[np.ndarray]) -> None:
    """DESIGN.md: a new array on every call, so a caller keeping one never sees it change."""
    for new, old in zip(arrays, previous, strict=True):
        assert not np.shares_memory(new, old)


# ---- self-play -------------------------------------------------------------------------------


def test_self_play_matches_reference_at_every_step_of_random_games() -> None:
    env = make(opponent=None)
    rng = np.random.default_rng(20240601)
    outcomes: Counter[int | None] = Counter()
    for game_index in range(2500):
        obs, info = env.reset(seed=game_index)
        ref = RefTicTacToe()
        assert_env_agrees(env, ref, obs, info, viewer=0, ended=False)
        while True:
            mover = ref.to_move()
            cell = int(rng.choice(ref.legal()))
            previous = [obs, info["action_mask"]]
            obs, reward, terminated, truncated, info = env.step(as_action(cell, rng))
            assert_fresh([obs, info["action_mask"]], previous)
            ref.play(cell)
            ended = ref.over()
            assert terminated is ended and truncated is False
            # Self-play: the reward belongs to the player who just moved, who can only win on their move.
            assert reward == (1.0 if ref.winner() == mover else 0.0)
            # From the side of the player to move; at the end, of the one who would have moved next.
            assert_env_agrees(env, ref, obs, info, viewer=ref.to_move(), ended=ended, winner=ref.winner())
            if ended:
                break
        outcomes[ref.winner()] += 1
    # Random play reaches wins for either side and draws, so every ending was cross-checked.
    assert set(outcomes) == {0, 1, None}
    assert outcomes[0] > outcomes[1] > outcomes[None]  # known for random play: ~58% / ~29% / ~13%


def test_self_play_illegal_move_loses_for_the_offender_and_leaves_the_board_unchanged() -> None:
    env = make(opponent=None, illegal_action="lose")
    rng = np.random.default_rng(7)
    illegal_endings = 0
    for game_index in range(1500):
        obs, info = env.reset(seed=game_index)
        ref = RefTicTacToe()
        while True:
            mover = ref.to_move()
            if ref.occupied() and rng.random() < 0.2:
                before = obs.copy()
                cell = int(rng.choice(ref.occupied()))
                obs, reward, terminated, truncated, info = env.step(as_action(cell, rng))
                assert reward == -1.0 and terminated is True and truncated is False
                np.testing.assert_array_equal(obs, before)  # same viewer (the offender), same board
                assert_env_agrees(env, ref, obs, info, viewer=mover, ended=True, winner=1 - mover, illegal=True)
                assert env.unwrapped.winner == 1 - mover and env.unwrapped.illegal_move_made
                with pytest.raises(ResetNeeded, match=r"reset\(\)"):
                    env.step(0)
                illegal_endings += 1
                break
            cell = int(rng.choice(ref.legal()))
            obs, reward, terminated, truncated, info = env.step(as_action(cell, rng))
            ref.play(cell)
            assert terminated is ref.over()
            assert reward == (1.0 if ref.winner() == mover else 0.0)
            assert_env_agrees(env, ref, obs, info, viewer=ref.to_move(), ended=ref.over(), winner=ref.winner())
            if ref.over():
                break
    assert illegal_endings > 500  # the illegal branch really ran, for both players as offender


# ---- against an opponent ---------------------------------------------------------------------


def opponent_reply(obs: np.ndarray, ref: RefTicTacToe, agent: int) -> int:
    """Recover the opponent's move from the observation: exactly one empty cell became -1."""
    before = ref.observation(agent).ravel()
    after = obs.ravel()
    changed = np.flatnonzero(after != before)
    assert changed.size == 1, f"expected exactly one new opponent piece, board went {before} -> {after}"
    cell = int(changed[0])
    assert before[cell] == 0 and after[cell] == -1
    assert cell in ref.legal(), f"the opponent played {cell}, illegal in the reference"
    return cell


OpponentHook = Callable[[RefTicTacToe, int], None]


def play_against_opponent(
    env: gym.Env,
    rng: np.random.Generator,
    agent: int,
    *,
    seed: int | None = None,
    illegal_rate: float = 0.0,
    on_opponent_move: OpponentHook | None = None,
) -> tuple[RefTicTacToe, bool]:
    """Play one episode as ``agent``, checking every step; return the final reference and whether it ended
    on an illegal agent move. ``on_opponent_move(position_before, cell)`` sees every opponent move."""

    def follow_opponent(obs: np.ndarray) -> None:
        cell = opponent_reply(obs, ref, agent)
        if on_opponent_move is not None:
            on_opponent_move(ref.copy(), cell)
        ref.play(cell)

    obs, info = env.reset(seed=seed, options={"agent_player": agent})
    ref = RefTicTacToe()
    if agent == 1:
        follow_opponent(obs)  # reset plays the opponent's opening move
    assert_env_agrees(env, ref, obs, info, viewer=agent, ended=False)
    assert info["current_player"] == agent
    while True:
        if ref.occupied() and rng.random() < illegal_rate:
            before = obs.copy()
            cell = int(rng.choice(ref.occupied()))
            obs, reward, terminated, truncated, info = env.step(as_action(cell, rng))
            assert reward == -1.0 and terminated is True and truncated is False
            # No opponent reply after an illegal move: the board is exactly as before.
            np.testing.assert_array_equal(obs, before)
            assert_env_agrees(env, ref, obs, info, viewer=agent, ended=True, winner=1 - agent, illegal=True)
            return ref, True
        cell = int(rng.choice(ref.legal()))
        obs, reward, terminated, truncated, info = env.step(as_action(cell, rng))
        ref.play(cell)
        if not ref.over():
            follow_opponent(obs)
        # If the agent's own move ended the game, the opponent must not have moved: the full-board
        # comparison below then fails on any extra piece.
        ended = ref.over()
        assert terminated is ended and truncated is False
        w = ref.winner()
        assert reward == (0.0 if not ended or w is None else (1.0 if w == agent else -1.0))
        assert_env_agrees(env, ref, obs, info, viewer=agent, ended=ended, winner=w)
        if not ended:
            assert info["current_player"] == agent
            continue
        with pytest.raises(ResetNeeded):
            env.step(0)
        return ref, False


@pytest.mark.parametrize("agent", [0, 1])
def test_random_opponent_games_match_reference_from_either_side(agent: int) -> None:
    env = make(opponent="random", agent_player=agent)
    rng = np.random.default_rng(100 + agent)
    # choices[(n_legal, rank)]: how often the opponent picked the rank-th of n_legal legal cells.
    choices: Counter[tuple[int, int]] = Counter()

    def tally(position: RefTicTacToe, cell: int) -> None:
        legal = position.legal()
        choices[(len(legal), legal.index(cell))] += 1

    env.reset(seed=agent)  # seed once; later resets continue the env's stream
    outcomes: Counter[int | None] = Counter()
    for _ in range(1500):
        ref, _ = play_against_opponent(env, rng, agent, on_opponent_move=tally)
        outcomes[ref.winner()] += 1
    assert set(outcomes) == {0, 1, None}
    # "Uniform over legal moves": every rank is picked about equally often for each number of choices.
    for n_legal in range(1, 10):
        counts = [choices[(n_legal, rank)] for rank in range(n_legal)]
        total = sum(counts)
        if total < 60 * n_legal:
            continue  # too few samples for a meaningful frequency check
        expected = total / n_legal
        assert all(0.6 * expected < c < 1.4 * expected for c in counts), (n_legal, counts)


@pytest.mark.parametrize("agent", [0, 1])
def test_agent_illegal_move_against_random_opponent_loses_without_a_reply(agent: int) -> None:
    env = make(opponent="random", agent_player=agent, illegal_action="lose")
    rng = np.random.default_rng(300 + agent)
    illegal_endings = 0
    for game_index in range(700):
        _, ended_illegally = play_against_opponent(env, rng, agent, seed=game_index, illegal_rate=0.25)
        illegal_endings += ended_illegally
    assert illegal_endings > 200


def test_seeded_reset_reproduces_the_random_opponents_moves() -> None:
    def trajectory(seed: int) -> list[list[int]]:
        env = make(opponent="random", agent_player=1)
        obs, _ = env.reset(seed=seed)
        boards = [obs.ravel().tolist()]
        terminated = False
        while not terminated:
            move = int(np.flatnonzero(env.unwrapped.action_masks())[0])  # a fixed agent policy
            obs, _, terminated, _, _ = env.step(move)
            boards.append(obs.ravel().tolist())
        return boards

    runs = {seed: trajectory(seed) for seed in range(20)}
    assert all(trajectory(seed) == runs[seed] for seed in range(20))
    assert len({str(run) for run in runs.values()}) > 1  # and the seed does change the opponent's play


# ---- custom opponents ------------------------------------------------------------------------


class RecordingOpponent:
    """A user opponent: uniform over the rules' legal moves with its own generator, logging each call."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.calls: list[tuple[Any, Any, int]] = []  # (game, state, returned move)

    def choose(self, game: Any, state: Any) -> int:
        move = int(self.rng.choice(game.legal_actions(state)))
        self.calls.append((game, state, move))
        return move


class CallableOpponent(RecordingOpponent):
    """Offered to the env as a plain callable ``(game, state) -> int``."""

    def __call__(self, game: Any, state: Any) -> int:
        return self.choose(game, state)


class ActOpponent(RecordingOpponent):
    """Offered to the env as an object with ``act(game, state) -> int``."""

    def act(self, game: Any, state: Any) -> int:
        return self.choose(game, state)


@pytest.mark.parametrize("style", [CallableOpponent, ActOpponent])
@pytest.mark.parametrize("agent", [0, 1])
def test_custom_opponent_is_asked_about_the_reference_position_and_its_move_is_played(
    style: type[RecordingOpponent], agent: int
) -> None:
    opponent = style(seed=agent)
    env = make(opponent=opponent, agent_player=agent)
    rng = np.random.default_rng(500 + agent)
    seen = 0

    def check_call(position: RefTicTacToe, cell: int) -> None:
        nonlocal seen
        seen += 1
        # One call per opponent move, and the move it returned is the one that appeared on the board.
        assert len(opponent.calls) == seen
        game, state, move = opponent.calls[-1]
        assert game is env.unwrapped.game
        assert state.board == position.library_board()
        assert game.current_player(state) == position.to_move() == 1 - agent
        assert move == cell

    for _ in range(600):
        play_against_opponent(env, rng, agent, on_opponent_move=check_call)
    assert seen == len(opponent.calls) > 1500


class CheatingOpponent:
    """Plays a legal move until ``cheat`` is set, then replays an occupied cell."""

    def __init__(self) -> None:
        self.cheat = False

    def __repr__(self) -> str:
        return "CheatingOpponent()"

    def act(self, game: Any, state: Any) -> int:
        if self.cheat:
            return next(i for i, v in enumerate(state.board) if v != 0)
        return game.legal_actions(state)[0]


def test_custom_opponent_illegal_move_raises_naming_it_and_the_env_rolls_back_to_the_reference() -> None:
    opponent = CheatingOpponent()
    env = make(opponent=opponent)
    rng = np.random.default_rng(9)
    for game_index in range(200):
        obs, info = env.reset(seed=game_index)
        ref = RefTicTacToe()
        while not ref.over():
            cell = int(rng.choice(ref.legal()))
            after_agent = ref.copy()
            after_agent.play(cell)
            if not after_agent.over():
                opponent.cheat = True
                with pytest.raises(ValueError, match="CheatingOpponent"):
                    env.step(cell)
                # Nothing half-applied: the agent's move is undone and the position is the reference's.
                assert env.unwrapped.state.board == ref.library_board()
                np.testing.assert_array_equal(env.unwrapped.action_masks(), ref.mask())
                opponent.cheat = False
            obs, reward, terminated, _, info = env.step(cell)
            ref.play(cell)
            if not ref.over():
                ref.play(opponent_reply(obs, ref, 0))
            assert terminated is ref.over()
            assert_env_agrees(env, ref, obs, info, viewer=0, ended=ref.over(), winner=ref.winner())
