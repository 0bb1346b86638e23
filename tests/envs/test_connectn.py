"""ConnectN-v0, ConnectFour-v0 and TicTacToe-v0 checked step by step against an independent m,n,k / gravity game.

The reference below shares no code with ``gym_boardgames.rules``: it keeps the board as a list of rows of
owners, drops gravity pieces by scanning a column from the bottom, finds a win by walking the four
directions from the last piece, and can re-scan the whole board to check itself. Thousands of seeded
random games on boards of many shapes then drive ``gymnasium.make(...)`` and every observable
(observation, mask, current player, reward, terminated, truncated, winner) and the env's internal state
must agree with it after every single step: in self-play, against the built-in random opponent from
either side, against custom opponents (callables, objects with ``act``, one that cheats), and after
illegal moves (a full column or an occupied cell). Tic-tac-toe is the 3x3 board with ``n=3`` and no
gravity. Table-driven cases pin the rules that random play reaches only by chance: stacking, every win
direction, a win on the last free cell, and lines longer than ``n``.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import gym_boardgames  # noqa: F401  (registers the ids)

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from reference_helpers import (  # noqa: E402
    as_action,
    assert_contract_agrees,
    assert_equal_arrays,
    self_play_with_illegal_moves,
)

from gym_boardgames.errors import ResetNeeded

# ---- the independent reference -------------------------------------------------------------

#: (row step, column step) of each direction a line can run in; row 0 is the top of the board.
DIRECTIONS: dict[str, tuple[int, int]] = {
    "horizontal": (0, 1),
    "vertical": (1, 0),
    "diagonal": (1, 1),  # "\": down and to the right
    "anti-diagonal": (1, -1),  # "/": down and to the left
}


class RefConnect:
    """A deliberately naive m,n,k game: ``grid[r][c]`` is None (empty) or the owner, 0 or 1.

    Actions follow the documented numbering: the column with gravity, ``row * cols + col`` without.
    """

    def __init__(self, rows: int, cols: int, n: int, gravity: bool) -> None:
        self.rows, self.cols, self.n, self.gravity = rows, cols, n, gravity
        self.grid: list[list[int | None]] = [[None] * cols for _ in range(rows)]
        self.winner: int | None = None
        self.win_direction: str | None = None
        self.last: tuple[int, int] | None = None

    def copy(self) -> RefConnect:
        other = RefConnect(self.rows, self.cols, self.n, self.gravity)
        other.grid = [row[:] for row in self.grid]
        other.winner, other.win_direction, other.last = self.winner, self.win_direction, self.last
        return other

    @property
    def num_actions(self) -> int:
        return self.cols if self.gravity else self.rows * self.cols

    def pieces(self, player: int) -> int:
        return sum(row.count(player) for row in self.grid)

    def to_move(self) -> int:
        """Player 0 opens, so equal counts mean player 0 moves; at the end, who would move next."""
        return 0 if self.pieces(0) == self.pieces(1) else 1

    def board_full(self) -> bool:
        return all(owner is not None for row in self.grid for owner in row)

    def over(self) -> bool:
        return self.winner is not None or self.board_full()

    def landing(self, action: int) -> tuple[int, int] | None:
        """The cell ``action`` would fill, or None if its column is full / its cell is taken."""
        if self.gravity:
            for r in range(self.rows - 1, -1, -1):  # from the bottom row up
                if self.grid[r][action] is None:
                    return (r, action)
            return None
        r, c = divmod(action, self.cols)
        return (r, c) if self.grid[r][c] is None else None

    def legal(self) -> list[int]:
        if self.over():
            return []
        return [a for a in range(self.num_actions) if self.landing(a) is not None]

    def blocked(self) -> list[int]:
        """Actions illegal in this position: full columns with gravity, occupied cells without."""
        return [a for a in range(self.num_actions) if self.landing(a) is None]

    def run_through(self, r: int, c: int, dr: int, dc: int) -> int:
        """Length of the run of ``grid[r][c]``'s owner through ``(r, c)`` along ``(dr, dc)``, both ways."""
        owner, length = self.grid[r][c], 1
        for sign in (1, -1):
            rr, cc = r + sign * dr, c + sign * dc
            while 0 <= rr < self.rows and 0 <= cc < self.cols and self.grid[rr][cc] == owner:
                length += 1
                rr, cc = rr + sign * dr, cc + sign * dc
        return length

    def play(self, action: int) -> tuple[int, int]:
        assert action in self.legal(), f"reference: {action} is not legal in {self.grid}"
        r, c = self.landing(action)
        mover = self.to_move()
        self.grid[r][c] = mover
        self.last = (r, c)
        # Only the new piece can have made a line: walk every direction from it.
        for name, (dr, dc) in DIRECTIONS.items():
            if self.run_through(r, c, dr, dc) >= self.n:
                self.winner, self.win_direction = mover, name
                break
        return r, c

    def scan_winners(self) -> set[int]:
        """Every player owning ``n`` in a row anywhere, by brute force over all starts and directions."""
        found = set()
        for r in range(self.rows):
            for c in range(self.cols):
                for dr, dc in DIRECTIONS.values():
                    cells = [(r + i * dr, c + i * dc) for i in range(self.n)]
                    if all(0 <= rr < self.rows and 0 <= cc < self.cols for rr, cc in cells):
                        owners = {self.grid[rr][cc] for rr, cc in cells}
                        if len(owners) == 1 and None not in owners:
                            found |= owners
        return found

    def mask(self) -> np.ndarray:
        legal = set(self.legal())
        return np.array([1 if a in legal else 0 for a in range(self.num_actions)], dtype=np.int8)

    def observation(self, viewer: int) -> np.ndarray:
        """+1 for ``viewer``'s pieces, -1 for the other player's, 0 for empty, as a (rows, cols) int8 array."""
        values = [[0 if o is None else (1 if o == viewer else -1) for o in row] for row in self.grid]
        return np.array(values, dtype=np.int8).reshape(self.rows, self.cols)

    def matches(self, state: Any) -> bool:
        """Whether the library's ``state`` holds this position (its board and the player to move)."""
        return state.board == self.library_board() and state.player == self.to_move()

    def library_board(self) -> bytes:
        """The board in the cell encoding the rules module documents: 0 empty, 1 player 0, 2 player 1."""
        return bytes(0 if o is None else o + 1 for row in self.grid for o in row)


def ref_from_picture(picture: list[str], n: int, gravity: bool) -> RefConnect:
    """A reference position from rows of ``X`` (player 0), ``O`` (player 1) and ``.`` (empty)."""
    ref = RefConnect(len(picture), len(picture[0]), n, gravity)
    ref.grid = [[{"X": 0, "O": 1, ".": None}[ch] for ch in row] for row in picture]
    return ref


def test_reference_finds_lines_of_n_in_every_direction_but_not_split_ones() -> None:
    # Guard the guard: a broken reference would make every cross-check below meaningless.
    ref = RefConnect(6, 7, 4, gravity=True)
    for col in (3, 4, 3, 4, 3, 4):
        ref.play(col)
        assert ref.winner is None
    assert ref.landing(3) == (2, 3) and ref.to_move() == 0
    ref.play(3)
    assert (ref.winner, ref.win_direction, ref.last) == (0, "vertical", (2, 3))
    assert ref.legal() == [] and ref.to_move() == 1 and ref.scan_winners() == {0}
    assert ref.observation(1)[2:, 3:5].tolist() == [[-1, 0], [-1, 1], [-1, 1], [-1, 1]]

    three_split = ref_from_picture(["XXX.XXX"], 4, gravity=False)
    assert three_split.scan_winners() == set()
    assert three_split.run_through(0, 0, 0, 1) == 3
    diagonals = ref_from_picture(["X..O", ".XO.", ".OX.", "O..X"], 4, gravity=False)
    assert diagonals.scan_winners() == {0, 1}
    assert diagonals.library_board() == bytes([1, 0, 0, 2, 0, 1, 2, 0, 0, 2, 1, 0, 2, 0, 0, 1])


def test_reference_knows_the_textbook_tic_tac_toe_positions() -> None:
    ref = TTT.reference()
    for cell in (4, 0, 8, 2, 6, 7, 1, 3, 5):  # a well-known drawn line of play
        assert ref.winner is None
        ref.play(cell)
    assert ref.over() and ref.winner is None and ref.legal() == [] and ref.scan_winners() == set()
    ref = TTT.reference()
    for cell in (0, 3, 1, 4, 2):  # X completes the top row
        ref.play(cell)
    assert (ref.winner, ref.win_direction) == (0, "horizontal") and ref.legal() == [] and ref.to_move() == 1
    assert ref.observation(1).tolist() == [[-1, -1, -1], [1, 1, 0], [0, 0, 0]]
    assert ref.library_board() == bytes([1, 1, 1, 2, 2, 0, 0, 0, 0])


# ---- configurations --------------------------------------------------------------------------


#: The ids whose board is fixed (they take no size keywords), with their short names in test ids.
FIXED_IDS = {"ConnectFour-v0": "C4", "TicTacToe-v0": "TTT"}


@dataclass(frozen=True)
class Config:
    rows: int
    cols: int
    n: int
    gravity: bool
    env_id: str = "ConnectN-v0"

    def __str__(self) -> str:
        name = FIXED_IDS.get(self.env_id, f"{self.rows}x{self.cols}-n{self.n}")
        return f"{name}-{'gravity' if self.gravity else 'free'}"

    def make(self, **kwargs: Any) -> gym.Env:
        if self.env_id in FIXED_IDS:
            return gym.make(self.env_id, **kwargs)
        return gym.make(self.env_id, rows=self.rows, cols=self.cols, n=self.n, gravity=self.gravity, **kwargs)

    def reference(self) -> RefConnect:
        return RefConnect(self.rows, self.cols, self.n, self.gravity)

    def possible_directions(self) -> set[str]:
        """The directions a line of n fits in on this board."""
        fits = {"horizontal": self.cols >= self.n, "vertical": self.rows >= self.n}
        fits["diagonal"] = fits["anti-diagonal"] = fits["horizontal"] and fits["vertical"]
        return {name for name, ok in fits.items() if ok}


C4 = Config(6, 7, 4, True, env_id="ConnectFour-v0")
TTT = Config(3, 3, 3, False, env_id="TicTacToe-v0")
C4_GENERIC = Config(6, 7, 4, True)
G4x4 = Config(4, 4, 3, True)
FREE_5x5 = Config(5, 5, 4, False)
G3x7 = Config(3, 7, 3, True)
ROW_1x5 = Config(1, 5, 2, False)
FREE_7x3 = Config(7, 3, 3, False)
GOMOKU = Config(15, 15, 5, False)

#: Most boards of each comparison run only in the full suite: ``pytest -m "not slow"`` keeps the smallest ones.
SLOW = pytest.mark.slow

# (config, random self-play games, whether random play reaches draws there often enough to require one)
SELF_PLAY = [
    pytest.param(C4, 250, False, marks=SLOW),
    pytest.param(C4_GENERIC, 150, False, marks=SLOW),
    pytest.param(G4x4, 500, False, marks=SLOW),  # draws are ~0.2% of random games on gravity boards: see the tables
    pytest.param(FREE_5x5, 350, True, marks=SLOW),
    pytest.param(G3x7, 400, False, marks=SLOW),
    (ROW_1x5, 500, True),
    pytest.param(FREE_7x3, 400, False, marks=SLOW),
    pytest.param(GOMOKU, 25, False, marks=SLOW),
    pytest.param(TTT, 2500, True, marks=SLOW),
]

# ---- comparing the env with the reference ------------------------------------------------------


def assert_env_agrees(env: gym.Env, ref: RefConnect, obs: np.ndarray, info: dict[str, Any], **outcome: Any) -> None:
    """Check one reset/step output (``outcome``: as :func:`assert_contract_agrees` takes it) and the env's
    internal state against the reference position."""
    assert obs.shape == (ref.rows, ref.cols)
    assert_contract_agrees(env, ref, obs, info, **outcome)
    u = env.unwrapped
    assert u.state.board == ref.library_board()
    assert (u.state.player, u.state.winner) == (ref.to_move(), ref.winner)
    if ref.last is not None:
        assert u.last_cell == ref.last[0] * ref.cols + ref.last[1]
    if ref.over():
        w = ref.winner
        expected_returns = (0.0, 0.0) if w is None else ((1.0, -1.0) if w == 0 else (-1.0, 1.0))
        assert tuple(u.game.returns(u.state)) == expected_returns
        # The incremental win check (from the last piece) agrees with a full re-scan of the board.
        assert ref.scan_winners() == (set() if w is None else {w})


def assert_fresh(arrays: list[np.ndarray], previous: list[np.ndarray]) -> None:
    """docs/design.md: a new array on every call, so a caller keeping one never sees it change."""
    for new, old in zip(arrays, previous, strict=True):
        assert not np.shares_memory(new, old)


# ---- self-play -------------------------------------------------------------------------------


@pytest.mark.parametrize(("config", "games", "draws_expected"), SELF_PLAY, ids=lambda v: str(v))
def test_self_play_matches_reference_at_every_step_of_random_games(
    config: Config, games: int, draws_expected: bool
) -> None:
    env = config.make(opponent=None)
    rng = np.random.default_rng(2024)
    outcomes: Counter[int | None] = Counter()
    directions: set[str] = set()
    for game_index in range(games):
        obs, info = env.reset(seed=game_index)
        ref = config.reference()
        assert_env_agrees(env, ref, obs, info, viewer=0, ended=False)
        while not ref.over():
            mover = ref.to_move()
            action = int(rng.choice(ref.legal()))
            previous = [obs, info["action_mask"]]
            obs, reward, terminated, truncated, info = env.step(as_action(action, rng))
            assert_fresh([obs, info["action_mask"]], previous)
            ref.play(action)
            assert terminated is ref.over() and truncated is False
            # Self-play: the reward belongs to the player who just moved, who can only win on their move.
            assert reward == (1.0 if ref.winner == mover else 0.0)
            # From the side of the player to move; at the end, of the one who would have moved next.
            assert_env_agrees(env, ref, obs, info, viewer=ref.to_move(), ended=ref.over(), winner=ref.winner)
        with pytest.raises(ResetNeeded, match=r"reset\(\)"):
            env.step(0)
        outcomes[ref.winner] += 1
        directions.add(ref.win_direction)
    # Random play reaches wins for both sides (and draws where they are common), so every ending was checked.
    assert {0, 1} <= set(outcomes)
    assert outcomes[0] > outcomes[1]  # moving first is an advantage, even for random players
    if draws_expected:
        assert outcomes[None] > 0
    if config == TTT:
        assert outcomes[1] > outcomes[None]  # known for random tic-tac-toe: ~58% / ~29% / ~13%
    if games >= 100:
        assert directions - {None} == config.possible_directions()  # wins in every direction the board allows


# (config, games, fewest games each player must have lost by an illegal move)
SELF_PLAY_ILLEGAL = [
    pytest.param(C4, 300, 20, marks=SLOW),
    pytest.param(G4x4, 300, 20, marks=SLOW),
    (FREE_5x5, 300, 20),
    (ROW_1x5, 300, 20),
    pytest.param(TTT, 1500, 250, marks=SLOW),
]


def check_self_play_step(
    env: gym.Env, ref: RefConnect, before: RefConnect, obs: np.ndarray, reward: float, info: dict[str, Any], mover: int
) -> None:
    """A legal self-play step: the mover's reward (+1 for the winning move, else 0) and the reference position."""
    assert reward == (1.0 if ref.winner == mover else 0.0)
    assert_env_agrees(env, ref, obs, info, viewer=ref.to_move(), ended=ref.over(), winner=ref.winner)


@pytest.mark.parametrize(("config", "games", "fewest"), SELF_PLAY_ILLEGAL, ids=lambda v: str(v))
def test_self_play_illegal_move_loses_for_the_offender_and_leaves_the_board_unchanged(
    config: Config, games: int, fewest: int
) -> None:
    env = config.make(opponent=None, illegal_action="lose")
    offenders = self_play_with_illegal_moves(
        env, config.reference, games, seed=7, rate=0.3, agrees=assert_env_agrees, check_legal=check_self_play_step
    )
    # The illegal branch really ran, with either player as the offender.
    assert offenders[0] > fewest and offenders[1] > fewest


@pytest.mark.parametrize("config", [G4x4, FREE_7x3, TTT], ids=str)
def test_illegal_move_in_raise_mode_changes_nothing_and_the_game_goes_on(config: Config) -> None:
    env = config.make(opponent=None, illegal_action="raise")
    offenders = self_play_with_illegal_moves(
        env, config.reference, 200, seed=11, rate=0.3, agrees=assert_env_agrees, check_legal=check_self_play_step
    )
    assert offenders.total() > 100


# ---- against an opponent -----------------------------------------------------------------------


def opponent_reply(obs: np.ndarray, ref: RefConnect, agent: int) -> int:
    """Recover the opponent's action from the observation: exactly one empty cell became -1."""
    before = ref.observation(agent)
    changed = np.argwhere(obs != before)
    assert len(changed) == 1, f"expected exactly one new opponent piece, board went\n{before}\n->\n{obs}"
    r, c = (int(v) for v in changed[0])
    assert before[r, c] == 0 and obs[r, c] == -1
    action = c if ref.gravity else r * ref.cols + c
    assert action in ref.legal(), f"the opponent played {action}, illegal in the reference"
    # With gravity the piece must have fallen to the lowest empty row of its column.
    assert ref.landing(action) == (r, c)
    return action


OpponentHook = Callable[[RefConnect, int], None]


def play_against_opponent(
    env: gym.Env,
    ref: RefConnect,
    rng: np.random.Generator,
    agent: int,
    *,
    seed: int | None = None,
    illegal_rate: float = 0.0,
    on_opponent_move: OpponentHook | None = None,
) -> bool:
    """Play one episode as ``agent`` from the empty ``ref``, checking every step; return whether it ended
    on an illegal agent move. ``on_opponent_move(position_before, action)`` sees every opponent move."""

    def follow_opponent(obs: np.ndarray) -> None:
        action = opponent_reply(obs, ref, agent)
        if on_opponent_move is not None:
            on_opponent_move(ref.copy(), action)
        ref.play(action)

    obs, info = env.reset(seed=seed, options={"agent_player": agent})
    if agent == 1:
        follow_opponent(obs)  # reset plays the opponent's opening move
    assert_env_agrees(env, ref, obs, info, viewer=agent, ended=False)
    assert info["current_player"] == agent
    while True:
        if ref.blocked() and rng.random() < illegal_rate:
            before = obs.copy()
            obs, reward, terminated, truncated, info = env.step(as_action(int(rng.choice(ref.blocked())), rng))
            assert reward == -1.0 and terminated is True and truncated is False
            # No opponent reply after an illegal move: the board is exactly as before.
            assert_equal_arrays(obs, before)
            assert_env_agrees(env, ref, obs, info, viewer=agent, ended=True, winner=1 - agent, illegal=True)
            return True
        action = int(rng.choice(ref.legal()))
        obs, reward, terminated, truncated, info = env.step(as_action(action, rng))
        ref.play(action)
        if not ref.over():
            follow_opponent(obs)
        # If the agent's own move ended the game the opponent must not have moved: the full-board
        # comparison below then fails on any extra piece.
        ended, w = ref.over(), ref.winner
        assert terminated is ended and truncated is False
        assert reward == (0.0 if not ended or w is None else (1.0 if w == agent else -1.0))
        assert_env_agrees(env, ref, obs, info, viewer=agent, ended=ended, winner=w)
        if not ended:
            assert info["current_player"] == agent
            continue
        with pytest.raises(ResetNeeded):
            env.step(0)
        return False


OPPONENT_GAMES = [
    pytest.param(C4, 200, marks=SLOW), pytest.param(G4x4, 400, marks=SLOW), pytest.param(FREE_5x5, 200, marks=SLOW),
    pytest.param(G3x7, 300, marks=SLOW), (ROW_1x5, 400), pytest.param(FREE_7x3, 300, marks=SLOW),
    pytest.param(GOMOKU, 8, marks=SLOW), pytest.param(TTT, 1500, marks=SLOW),
]  # fmt: skip


@pytest.mark.parametrize("agent", [0, 1])
@pytest.mark.parametrize(("config", "games"), OPPONENT_GAMES, ids=lambda v: str(v))
def test_random_opponent_games_match_reference_from_either_side(config: Config, games: int, agent: int) -> None:
    env = config.make(opponent="random", agent_player=agent)
    rng = np.random.default_rng(100 + agent)
    # choices[(n_legal, rank)]: how often the opponent picked the rank-th of n_legal legal actions.
    choices: Counter[tuple[int, int]] = Counter()

    def tally(position: RefConnect, action: int) -> None:
        legal = position.legal()
        choices[(len(legal), legal.index(action))] += 1

    outcomes: Counter[int | None] = Counter()
    env.reset(seed=agent)  # seed once; later resets continue the env's stream
    for _ in range(games):
        ref = config.reference()
        play_against_opponent(env, ref, rng, agent, on_opponent_move=tally)
        outcomes[ref.winner] += 1
    if games >= 200:
        assert {0, 1} <= set(outcomes)  # the agent both won and lost, so both rewards were checked
    if config == TTT:
        assert None in outcomes  # and drew
    num_actions = config.reference().num_actions
    if num_actions > 9:
        return  # too many choices per position for a frequency check on the larger free boards
    # "Uniform over legal moves": every rank is picked about equally often for each number of choices.
    checked = 0
    for n_legal in range(1, num_actions + 1):
        counts = [choices[(n_legal, rank)] for rank in range(n_legal)]
        total = sum(counts)
        if total < 60 * n_legal:
            continue  # too few samples for a meaningful frequency check
        expected = total / n_legal
        assert all(0.6 * expected < c < 1.4 * expected for c in counts), (n_legal, counts)
        checked += 1
    assert checked >= 1


# (config, games, fewest games that must end on an illegal agent move): full columns come late on gravity
# boards, so fewer games end this way there.
OPPONENT_ILLEGAL = [
    pytest.param(C4, 200, 25, marks=SLOW),
    (G4x4, 200, 25),
    pytest.param(G3x7, 200, 25, marks=SLOW),
    pytest.param(FREE_5x5, 200, 25, marks=SLOW),
    pytest.param(TTT, 700, 200, marks=SLOW),
]


@pytest.mark.parametrize("agent", [0, 1])
@pytest.mark.parametrize(("config", "games", "fewest"), OPPONENT_ILLEGAL, ids=lambda v: str(v))
def test_agent_illegal_move_against_random_opponent_loses_without_a_reply(
    config: Config, games: int, fewest: int, agent: int
) -> None:
    env = config.make(opponent="random", agent_player=agent, illegal_action="lose")
    rng = np.random.default_rng(300 + agent)
    illegal_endings = 0
    for game_index in range(games):
        illegal_endings += play_against_opponent(env, config.reference(), rng, agent, seed=game_index, illegal_rate=0.3)
    assert illegal_endings > fewest


@pytest.mark.parametrize(("config", "seeds"), [(C4, 10), (TTT, 20)], ids=lambda v: str(v))
def test_seeded_reset_reproduces_the_random_opponents_moves(config: Config, seeds: int) -> None:
    def trajectory(seed: int) -> list[list[int]]:
        env = config.make(opponent="random", agent_player=1)
        obs, _ = env.reset(seed=seed)
        boards = [obs.ravel().tolist()]
        terminated = False
        while not terminated:
            move = int(np.flatnonzero(env.unwrapped.action_masks())[0])  # a fixed agent policy
            obs, _, terminated, _, _ = env.step(move)
            boards.append(obs.ravel().tolist())
        return boards

    runs = {seed: trajectory(seed) for seed in range(seeds)}
    assert all(trajectory(seed) == runs[seed] for seed in range(seeds))
    assert len({str(run) for run in runs.values()}) > 1  # and the seed does change the opponent's play


# ---- custom opponents --------------------------------------------------------------------------


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
    env = TTT.make(opponent=opponent, agent_player=agent)
    rng = np.random.default_rng(500 + agent)
    seen = 0

    def check_call(position: RefConnect, action: int) -> None:
        nonlocal seen
        seen += 1
        # One call per opponent move, and the move it returned is the one that appeared on the board.
        assert len(opponent.calls) == seen
        game, state, move = opponent.calls[-1]
        assert game is env.unwrapped.game
        assert state.board == position.library_board()
        assert game.current_player(state) == position.to_move() == 1 - agent
        assert move == action

    for _ in range(600):
        play_against_opponent(env, TTT.reference(), rng, agent, on_opponent_move=check_call)
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
    env = TTT.make(opponent=opponent)
    rng = np.random.default_rng(9)
    for game_index in range(200):
        obs, info = env.reset(seed=game_index)
        ref = TTT.reference()
        while not ref.over():
            action = int(rng.choice(ref.legal()))
            after_agent = ref.copy()
            after_agent.play(action)
            if not after_agent.over():
                opponent.cheat = True
                with pytest.raises(ValueError, match="CheatingOpponent"):
                    env.step(action)
                # Nothing half-applied: the agent's move is undone and the position is the reference's.
                assert env.unwrapped.state.board == ref.library_board()
                assert_equal_arrays(env.unwrapped.action_masks(), ref.mask())
                opponent.cheat = False
            obs, reward, terminated, _, info = env.step(action)
            ref.play(action)
            if not ref.over():
                ref.play(opponent_reply(obs, ref, 0))
            assert terminated is ref.over()
            assert_env_agrees(env, ref, obs, info, viewer=0, ended=ref.over(), winner=ref.winner)


# ---- table-driven rules ----------------------------------------------------------------------


def picture_to_board(picture: list[str]) -> bytes:
    return bytes({".": 0, "X": 1, "O": 2}[ch] for row in picture for ch in row)


def picture_view(picture: list[str], viewer: int) -> np.ndarray:
    """The observation of a picture from ``viewer``'s side (X is player 0, O is player 1)."""
    own, other = ("X", "O") if viewer == 0 else ("O", "X")
    return np.array([[1 if ch == own else -1 if ch == other else 0 for ch in row] for row in picture], dtype=np.int8)


def test_gravity_stacks_pieces_bottom_up_and_a_full_column_is_masked_then_loses() -> None:
    env = gym.make("ConnectN-v0", rows=4, cols=4, n=4, gravity=True, opponent=None)
    env.reset(seed=0)
    # Four pieces in column 1, alternating players, each landing on the one before.
    pictures = [
        ["....", "....", "....", ".X.."],
        ["....", "....", ".O..", ".X.."],
        ["....", ".X..", ".O..", ".X.."],
        [".O..", ".X..", ".O..", ".X.."],
    ]
    for move_index, picture in enumerate(pictures):
        obs, reward, terminated, _, info = env.step(1)
        to_move = (move_index + 1) % 2
        assert (reward, terminated, info["current_player"]) == (0.0, False, to_move)
        assert_equal_arrays(obs, picture_view(picture, to_move))
        assert env.unwrapped.state.board == picture_to_board(picture)
    assert info["action_mask"].tolist() == [1, 0, 1, 1]  # column 1 is full
    # Dropping into the full column: the offender (player 0) loses and the board stays as it was.
    obs, reward, terminated, _, info = env.step(1)
    assert (reward, terminated, info["winner"], info["current_player"], info["illegal_action"]) == (
        -1.0, True, 1, 0, True,
    )  # fmt: skip
    assert_equal_arrays(obs, picture_view(pictures[-1], 0))
    assert env.unwrapped.state.board == picture_to_board(pictures[-1])


def test_full_column_in_raise_mode_raises_and_the_piece_goes_elsewhere_afterwards() -> None:
    env = gym.make("ConnectN-v0", rows=2, cols=3, n=2, gravity=True, opponent=None, illegal_action="raise")
    env.reset(seed=0)
    env.step(2)
    env.step(2)
    with pytest.raises(ValueError, match="illegal"):
        env.step(2)
    assert env.unwrapped.state.board == picture_to_board(["..O", "..X"])
    obs, reward, terminated, _, info = env.step(0)
    assert (reward, terminated) == (0.0, False)
    assert_equal_arrays(obs, picture_view(["..O", "X.X"], 1))


@dataclass(frozen=True)
class Case:
    config: Config
    moves: tuple[int, ...]
    picture: tuple[str, ...]  # the final board
    winner: int | None
    direction: str | None  # the direction of the winning line, by the reference


WIN_CASES = {
    # Connect Four, one win in each direction, from the bottom row up.
    "c4-horizontal": Case(
        C4, (0, 0, 1, 1, 2, 2, 3),
        (".......", ".......", ".......", ".......", "OOO....", "XXXX..."), 0, "horizontal",
    ),
    "c4-vertical": Case(
        C4, (3, 4, 3, 4, 3, 4, 3),
        (".......", ".......", "...X...", "...XO..", "...XO..", "...XO.."), 0, "vertical",
    ),
    "c4-anti-diagonal-/": Case(
        C4, (0, 1, 1, 2, 2, 3, 2, 3, 3, 5, 3),
        (".......", ".......", "...X...", "..XX...", ".XXO...", "XOOO.O."), 0, "anti-diagonal",
    ),
    "c4-diagonal-\\": Case(
        C4, (6, 5, 5, 4, 4, 3, 4, 3, 3, 1, 3),
        (".......", ".......", "...X...", "...XX..", "...OXX.", ".O.OOOX"), 0, "diagonal",
    ),
    "c4-second-player-vertical": Case(
        C4, (0, 1, 0, 1, 2, 1, 2, 1),
        (".......", ".......", ".O.....", ".O.....", "XOX....", "XOX...."), 1, "vertical",
    ),
    # The m,n,k game: cells row * cols + col, no gravity.
    "free-horizontal": Case(
        FREE_5x5, (5, 20, 6, 21, 7, 22, 8),
        (".....", "XXXX.", ".....", ".....", "OOO.."), 0, "horizontal",
    ),
    "free-vertical": Case(
        FREE_5x5, (4, 0, 9, 1, 14, 2, 19),
        ("OOO.X", "....X", "....X", "....X", "....."), 0, "vertical",
    ),
    "free-diagonal-\\": Case(
        FREE_5x5, (1, 0, 7, 5, 13, 10, 19),
        ("OX...", "O.X..", "O..X.", "....X", "....."), 0, "diagonal",
    ),
    "free-anti-diagonal-/": Case(
        FREE_5x5, (20, 0, 16, 1, 12, 2, 8),
        ("OOO..", "...X.", "..X..", ".X...", "X...."), 0, "anti-diagonal",
    ),
    "tall-second-player-anti-diagonal-/": Case(
        FREE_7x3, (0, 18, 1, 16, 9, 14),
        ("XX.", "...", "...", "X..", "..O", ".O.", "O.."), 1, "anti-diagonal",
    ),
    "single-row-pair": Case(ROW_1x5, (0, 2, 4, 1), ("XOO.X",), 1, "horizontal"),
    # Wins completed on the last free cell are wins, not draws.
    "last-cell-free-3x3": Case(
        Config(3, 3, 3, False), (0, 1, 2, 3, 5, 4, 7, 6, 8), ("XOX", "OOX", "OXX"), 0, "vertical",
    ),
    "last-cell-gravity-4x4": Case(
        Config(4, 4, 4, True), (1, 1, 1, 0, 2, 3, 0, 0, 1, 0, 2, 2, 3, 3, 2, 3),
        ("OXXO", "OXOO", "XOXX", "OXXO"), 1, "anti-diagonal",
    ),
    # Lines longer than n, and moves that join two segments into one line of n or more, all win.
    "join-2+2-makes-5-gravity": Case(
        C4, (0, 0, 1, 1, 3, 3, 4, 4, 2),
        (".......", ".......", ".......", ".......", "OO.OO..", "XXXXX.."), 0, "horizontal",
    ),
    "join-3+1-makes-5-free": Case(
        FREE_5x5, (0, 10, 1, 12, 4, 14, 2, 22, 3),
        ("XXXXX", ".....", "O.O.O", ".....", "..O.."), 0, "horizontal",
    ),
    "join-1+2-makes-exactly-n-diagonal": Case(
        FREE_5x5, (0, 4, 12, 9, 18, 24, 6),
        ("X...O", ".X..O", "..X..", "...X.", "....O"), 0, "diagonal",
    ),
    "join-1+1-makes-n-vertical": Case(
        FREE_7x3, (1, 0, 7, 2, 4), ("OXO", ".X.", ".X.", "...", "...", "...", "..."), 0, "vertical",
    ),
    "join-2+2-makes-5-anti-diagonal-n3": Case(
        Config(5, 5, 3, False), (20, 0, 16, 2, 8, 24, 4, 22, 12),
        ("O.O.X", "...X.", "..X..", ".X...", "X.O.O"), 0, "anti-diagonal",
    ),
    # Full boards without a line are draws, even with 3 + 3 of a kind split by the other player's piece.
    "split-threes-draw": Case(
        Config(2, 7, 4, False), (0, 3, 1, 7, 2, 8, 4, 9, 5, 11, 6, 12, 10, 13),
        ("XXXOXXX", "OOOXOOO"), None, None,
    ),
    "single-row-draw": Case(ROW_1x5, (0, 1, 2, 3, 4), ("XOXOX",), None, None),
    "gravity-draw": Case(
        G4x4, (3, 2, 1, 0, 1, 2, 2, 0, 0, 3, 2, 1, 3, 3, 0, 1), ("XOXO", "XOXX", "OXOO", "OXOX"), None, None,
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", WIN_CASES.values(), ids=WIN_CASES.keys())
def test_scripted_game_ends_exactly_on_its_last_move_with_the_expected_result(case: Case) -> None:
    config = case.config
    # The reference agrees with the table (guarding both the table and the reference).
    ref = config.reference()
    for action in case.moves:
        assert not ref.over()
        ref.play(action)
    assert ref.library_board() == picture_to_board(list(case.picture))
    assert (ref.winner, ref.win_direction, ref.over()) == (case.winner, case.direction, True)

    env = config.make(opponent=None)
    obs, info = env.reset(seed=0)
    for action in case.moves[:-1]:
        obs, reward, terminated, truncated, info = env.step(action)
        assert (reward, terminated, truncated) == (0.0, False, False)
        assert "winner" not in info
    last_mover = (len(case.moves) - 1) % 2
    obs, reward, terminated, truncated, info = env.step(case.moves[-1])
    assert (terminated, truncated, info["winner"]) == (True, False, -1 if case.winner is None else case.winner)
    assert reward == (0.0 if case.winner is None else 1.0)  # only the mover can make a line
    assert info["current_player"] == 1 - last_mover and not info["action_mask"].any()
    assert_equal_arrays(obs, picture_view(list(case.picture), 1 - last_mover))
    u = env.unwrapped
    assert u.state.board == picture_to_board(list(case.picture))
    if case.winner is not None:
        line = u.game.winning_line(u.state)
        assert all(u.state.board[cell] == case.winner + 1 for cell in line)


@pytest.mark.parametrize("agent", [0, 1])
def test_custom_opponent_games_reward_the_line_from_the_agents_side(agent: int) -> None:
    # The opponent plays column 6 every time; the agent stacks column 0 as player 1, or fills the bottom
    # row left to right as player 0 (which wins before the opponent gets four).
    script = {0: [0, 1, 2, 3], 1: [0, 0, 0]}[agent]
    env = C4.make(opponent=lambda game, state: 6, agent_player=agent)
    obs, info = env.reset(seed=0)
    for i, action in enumerate(script):
        obs, reward, terminated, _, info = env.step(action)
        if i < len(script) - 1:
            assert (reward, terminated) == (0.0, False)
    assert terminated is True
    if agent == 0:
        assert (reward, info["winner"]) == (1.0, 0)  # bottom row 0..3 before the opponent's fourth
    else:
        assert (reward, info["winner"]) == (-1.0, 0)  # the opponent (player 0) gets four in column 6
        assert obs[2:, 6].tolist() == [-1, -1, -1, -1] and obs[3:, 0].tolist() == [1, 1, 1]
