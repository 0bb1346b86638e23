"""DotsAndBoxes-v0 checked step by step against an independent Dots and Boxes written here.

The reference below shares no code with ``gym_boardgames.rules``: it numbers the edges itself from the
documented order (horizontal edges row by row of dots, then vertical edges row by row of boxes), keeps
a list of drawn flags and a grid of box owners, and after every edge re-checks every box for four drawn
sides. Thousands of seeded random games on several board sizes then drive
``gymnasium.make("DotsAndBoxes-v0", ...)`` in both reward modes and both tie rules, in self-play and
against the built-in random opponent from either side, and every observable (observation, mask,
current player, scores, reward, terminated, truncated, winner) and the env's internal state must agree
with the reference after every step. Table-driven cases pin the numbering, a double box, a chain and
the tie rule.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
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


class RefDots:
    """A deliberately naive Dots and Boxes on ``rows x cols`` boxes; player 0 starts.

    ``drawn[e]`` says whether edge ``e`` is drawn; ``owner[r][c]`` is None or the player owning box (r, c).
    """

    def __init__(self, rows: int, cols: int, tie_break: str = "draw") -> None:
        self.rows, self.cols, self.tie_break = rows, cols, tie_break
        self.n_horizontal = (rows + 1) * cols
        self.n_edges = self.n_horizontal + rows * (cols + 1)
        self.drawn = [False] * self.n_edges
        self.owner: list[list[int | None]] = [[None] * cols for _ in range(rows)]
        self.player = 0

    def copy(self) -> RefDots:
        other = RefDots(self.rows, self.cols, self.tie_break)
        other.drawn, other.owner, other.player = self.drawn[:], [row[:] for row in self.owner], self.player
        return other

    # The documented numbering, written out: horizontal (r, c) joins dots (r, c)-(r, c+1) for
    # r in 0..rows, c in 0..cols-1; vertical (r, c) joins dots (r, c)-(r+1, c) for r in 0..rows-1, c in 0..cols.
    def horizontal(self, r: int, c: int) -> int:
        return r * self.cols + c

    def vertical(self, r: int, c: int) -> int:
        return self.n_horizontal + r * (self.cols + 1) + c

    def sides(self, r: int, c: int) -> tuple[int, int, int, int]:
        """Top, bottom, left, right edge of box (r, c)."""
        return self.horizontal(r, c), self.horizontal(r + 1, c), self.vertical(r, c), self.vertical(r, c + 1)

    def endpoints(self, edge: int) -> tuple[tuple[int, int], tuple[int, int]]:
        """The two dots an edge joins, found by searching the numbering rather than inverting it."""
        for r in range(self.rows + 1):
            for c in range(self.cols):
                if self.horizontal(r, c) == edge:
                    return (r, c), (r, c + 1)
        for r in range(self.rows):
            for c in range(self.cols + 1):
                if self.vertical(r, c) == edge:
                    return (r, c), (r + 1, c)
        raise AssertionError(f"no edge {edge}")

    def play(self, edge: int) -> int:
        """Draw ``edge`` for the player to move; return how many boxes it completed."""
        assert 0 <= edge < self.n_edges and not self.drawn[edge], f"reference: edge {edge} is not free"
        self.drawn[edge] = True
        completed = 0
        for r in range(self.rows):  # every box, not just the edge's neighbours: naive on purpose
            for c in range(self.cols):
                if self.owner[r][c] is None and all(self.drawn[e] for e in self.sides(r, c)):
                    self.owner[r][c] = self.player
                    completed += 1
        if completed == 0:
            self.player = 1 - self.player  # a completed box means another move
        return completed

    def legal(self) -> list[int]:
        return [e for e in range(self.n_edges) if not self.drawn[e]]

    def blocked(self) -> list[int]:
        """The drawn edges: the actions illegal in this position."""
        return [e for e in range(self.n_edges) if self.drawn[e]]

    def to_move(self) -> int:
        return self.player

    def matches(self, state: Any) -> bool:
        """Whether the library's ``state`` holds this position (its edges, box owners and player to move)."""
        return (state.edges, state.owners, state.player) == (self.library_edges(), self.library_owners(), self.player)

    def over(self) -> bool:
        return all(self.drawn)

    def scores(self) -> list[int]:
        owners = [o for row in self.owner for o in row]
        return [owners.count(0), owners.count(1)]

    def winner(self) -> int | None:
        s0, s1 = self.scores()
        if s0 == s1:
            return 1 if self.tie_break == "second" else None
        return 0 if s0 > s1 else 1

    def payoff(self, seat: int) -> float:
        w = self.winner()
        return 0.0 if w is None else (1.0 if w == seat else -1.0)

    def mask(self) -> np.ndarray:
        return np.array([0 if d else 1 for d in self.drawn], dtype=np.int8)

    def observation(self, viewer: int) -> np.ndarray:
        """Edges (1 drawn), then box owners row by row: +1 ``viewer``'s, -1 the other player's, 0 free."""
        owners = [0 if o is None else (1 if o == viewer else -1) for row in self.owner for o in row]
        return np.array([int(d) for d in self.drawn] + owners, dtype=np.int8)

    def library_edges(self) -> bytes:
        return bytes(int(d) for d in self.drawn)

    def library_owners(self) -> bytes:
        """Box owners in the documented encoding: 0 free, 1 player 0, 2 player 1."""
        return bytes(0 if o is None else o + 1 for row in self.owner for o in row)


def test_reference_scores_boxes_and_gives_extra_turns() -> None:
    # Guard the guard: a broken reference would make every cross-check below meaningless.
    ref = RefDots(1, 2)  # tops 0 1, bottoms 2 3, verticals 4 5 6
    assert ref.sides(0, 0) == (0, 2, 4, 5) and ref.sides(0, 1) == (1, 3, 5, 6)
    for edge in (0, 1, 2, 3, 4, 6):
        assert ref.play(edge) == 0
    assert ref.player == 0  # six moves without a box: back to player 0
    assert ref.play(5) == 2 and ref.player == 0 and ref.over()
    assert ref.scores() == [2, 0] and ref.winner() == 0
    assert ref.observation(1).tolist() == [1] * 7 + [-1, -1]
    assert ref.library_owners() == bytes([1, 1])
    tie = RefDots(1, 2, tie_break="second")
    for edge in (5, 0, 2, 1, 4, 3, 6):
        tie.play(edge)
    assert tie.scores() == [1, 1] and tie.winner() == 1


# ---- configurations --------------------------------------------------------------------------


@dataclass(frozen=True)
class Config:
    rows: int = 3
    cols: int = 3
    tie_break: str = "draw"
    reward: str = "win"
    defaults: bool = False  # build with gym.make's defaults (3x3, "draw", "win") instead of passing them

    def __str__(self) -> str:
        return f"{self.rows}x{self.cols}-{self.tie_break}-{self.reward}{'-defaults' if self.defaults else ''}"

    def make(self, **kwargs: Any) -> gym.Env:
        if self.defaults:
            return gym.make("DotsAndBoxes-v0", **kwargs)
        return gym.make(
            "DotsAndBoxes-v0", rows=self.rows, cols=self.cols, tie_break=self.tie_break, reward=self.reward, **kwargs
        )

    def reference(self) -> RefDots:
        return RefDots(self.rows, self.cols, self.tie_break)

    @property
    def boxes(self) -> int:
        return self.rows * self.cols


DEFAULT = Config(defaults=True)

# (config, games): every size in both reward modes, and both tie rules on boards with an even number of boxes.
#: The boards past 1x1 run only in the full suite: ``pytest -m "not slow"`` keeps the smallest ones.
SLOW = pytest.mark.slow
SELF_PLAY = [
    pytest.param(DEFAULT, 300, marks=SLOW),
    pytest.param(Config(3, 3, "second", "score"), 250, marks=SLOW),
    (Config(1, 1, "draw", "score"), 300),
    (Config(1, 1, "second", "win"), 200),
    pytest.param(Config(2, 3, "second", "win"), 350, marks=SLOW),
    pytest.param(Config(2, 3, "draw", "score"), 300, marks=SLOW),
    pytest.param(Config(1, 4, "draw", "win"), 350, marks=SLOW),
    pytest.param(Config(1, 4, "second", "score"), 300, marks=SLOW),
    pytest.param(Config(4, 4, "draw", "score"), 80, marks=SLOW),
    pytest.param(Config(4, 4, "second", "win"), 80, marks=SLOW),
]

# ---- comparing the env with the reference ------------------------------------------------------


def assert_env_agrees(env: gym.Env, ref: RefDots, obs: np.ndarray, info: dict[str, Any], **outcome: Any) -> None:
    """Check one reset/step output (``outcome``: as :func:`assert_contract_agrees` takes it) and the env's
    internal state against the reference position."""
    assert obs.shape == (ref.n_edges + ref.rows * ref.cols,)
    assert_contract_agrees(env, ref, obs, info, **outcome)
    assert info["scores"] == ref.scores()
    u = env.unwrapped
    assert (u.state.edges, u.state.owners, u.state.player) == (ref.library_edges(), ref.library_owners(), ref.player)
    assert tuple(u.game.scores(u.state)) == tuple(ref.scores())
    if ref.over():
        assert tuple(u.game.returns(u.state)) == (ref.payoff(0), ref.payoff(1))


def expected_step_reward(config: Config, ref: RefDots, seat: int, scores_before: list[int]) -> float:
    """The reward of ``seat`` for a legal step that led to ``ref``: boxes gained minus conceded, or the
    payoff at the end."""
    if config.reward == "score":
        gained = [after - before for after, before in zip(ref.scores(), scores_before, strict=True)]
        return float(gained[seat] - gained[1 - seat])
    return ref.payoff(seat) if ref.over() else 0.0


# ---- self-play -------------------------------------------------------------------------------


@pytest.mark.parametrize(("config", "games"), SELF_PLAY, ids=lambda v: str(v))
def test_self_play_matches_reference_at_every_step_of_random_games(config: Config, games: int) -> None:
    env = config.make(opponent=None)
    rng = np.random.default_rng(2024)
    outcomes: Counter[int | None] = Counter()
    completions: Counter[int] = Counter()  # how many boxes each move completed
    ties = 0
    for game_index in range(games):
        obs, info = env.reset(seed=game_index)
        ref = config.reference()
        assert_env_agrees(env, ref, obs, info, viewer=0, ended=False)
        while not ref.over():
            mover, scores_before = ref.player, ref.scores()
            edge = int(rng.choice(ref.legal()))
            obs, reward, terminated, truncated, info = env.step(as_action(edge, rng))
            completed = ref.play(edge)
            completions[completed] += 1
            assert terminated is ref.over() and truncated is False
            # Self-play: the reward belongs to the mover (in score mode: the boxes it just took).
            assert reward == expected_step_reward(config, ref, mover, scores_before)
            if config.reward == "score":
                assert reward == completed
            # A completed box means another move for the same player; otherwise the turn passes.
            assert info["current_player"] == (mover if completed else 1 - mover)
            assert_env_agrees(env, ref, obs, info, viewer=ref.player, ended=ref.over(), winner=ref.winner())
        # The last edge always closes a box, so the last mover is still "to move" at the end.
        assert completed > 0 and info["current_player"] == mover
        with pytest.raises(ResetNeeded, match=r"reset\(\)"):
            env.step(0)
        outcomes[ref.winner()] += 1
        ties += ref.scores()[0] == ref.scores()[1]
    assert completions[1] > 0  # extra turns happened
    if config.boxes == 1:
        # Four edges, four alternating moves: player 1 always draws the last side and wins.
        assert outcomes == {1: games} and completions[2] == 0
        return
    # Random play reaches wins for both sides and double boxes.
    assert {0, 1} <= set(outcomes) and completions[2] > 0
    if config.boxes % 2 == 0:
        # Equal boxes happen: a draw, or a win for player 1 with tie_break="second".
        assert ties > 0
        assert outcomes[None] == (ties if config.tie_break == "draw" else 0)
    else:
        assert ties == 0 and outcomes[None] == 0


def check_self_play_step(
    config: Config,
    env: gym.Env,
    ref: RefDots,
    before: RefDots,
    obs: np.ndarray,
    reward: float,
    info: dict[str, Any],
    mover: int,
) -> None:
    """A legal self-play step: the mover's reward in ``config``'s reward mode and the reference position."""
    assert reward == expected_step_reward(config, ref, mover, before.scores())
    assert_env_agrees(env, ref, obs, info, viewer=ref.player, ended=ref.over(), winner=ref.winner())


@pytest.mark.parametrize("reward_mode", ["win", "score"])
def test_self_play_illegal_move_loses_for_the_offender_in_either_reward_mode(reward_mode: str) -> None:
    config = Config(2, 3, "draw", reward_mode)
    env = config.make(opponent=None, illegal_action="lose")
    offenders = self_play_with_illegal_moves(
        env, config.reference, 300, seed=7, rate=0.15, agrees=assert_env_agrees,
        check_legal=partial(check_self_play_step, config),
    )  # fmt: skip
    assert offenders[0] > 50 and offenders[1] > 50


def test_drawn_edge_in_raise_mode_changes_nothing_and_the_game_goes_on() -> None:
    config = Config(2, 2, "draw", "score")
    env = config.make(opponent=None, illegal_action="raise")
    offenders = self_play_with_illegal_moves(
        env, config.reference, 150, seed=11, rate=0.3, agrees=assert_env_agrees,
        check_legal=partial(check_self_play_step, config),
    )  # fmt: skip
    assert offenders.total() > 100


# ---- against the random opponent ---------------------------------------------------------------


def follow_opponent(env: gym.Env, obs: np.ndarray, ref: RefDots, agent: int) -> int:
    """Replay on ``ref`` the opponent's moves since ``ref``'s position, recovered from the observation.

    The edges that became drawn are the opponent's. Every move but its last must have completed a box
    (that is why it moved again), so the order is rebuilt by playing box-completing edges first: a free
    edge that completes a box keeps doing so until drawn, and the last edge never does unless the game
    ended. Returns how many moves the opponent made.
    """
    new = {e for e in range(ref.n_edges) if obs[e] == 1 and not ref.drawn[e]}
    assert all(obs[e] == 1 for e in ref.blocked()), "a drawn edge disappeared"
    opponent, played = 1 - agent, []
    while new:
        assert ref.player == opponent, f"the opponent moved out of turn: edges {sorted(new)} were added"
        closing = [e for e in sorted(new) if ref.copy().play(e) > 0]
        edge = closing[0] if closing else min(new)
        assert closing or len(new) == 1, f"the opponent kept moving without completing a box: {sorted(new)}"
        ref.play(edge)
        new.discard(edge)
        played.append(edge)
    # The env's move log tells the same story: the opponent's edges, by the opponent.
    tail = env.unwrapped.moves[len(env.unwrapped.moves) - len(played) :] if played else []
    assert sorted(tail) == sorted((opponent, e) for e in played)
    assert ref.over() or ref.player == agent  # the step returns only on the agent's turn or at the end
    return len(played)


@dataclass
class EpisodeStats:
    opponent_runs: int = 0  # opponent turns of several moves inside one step
    agent_extra_turns: int = 0  # steps that returned at once because the agent completed a box
    illegal: bool = False


def play_against_opponent(
    env: gym.Env,
    config: Config,
    rng: np.random.Generator,
    agent: int,
    *,
    seed: int | None = None,
    illegal_rate: float = 0.0,
) -> tuple[RefDots, EpisodeStats]:
    """Play one episode as ``agent``, checking every step against the reference."""
    ref, stats = config.reference(), EpisodeStats()
    obs, info = env.reset(seed=seed, options={"agent_player": agent})
    assert follow_opponent(env, obs, ref, agent) == (1 if agent == 1 else 0)  # the opening move, at reset
    assert_env_agrees(env, ref, obs, info, viewer=agent, ended=False)
    episode_return = 0.0
    while True:
        if ref.blocked() and rng.random() < illegal_rate:
            before = obs.copy()
            obs, reward, terminated, truncated, info = env.step(as_action(int(rng.choice(ref.blocked())), rng))
            assert reward == -1.0 and terminated is True and truncated is False
            assert_equal_arrays(obs, before)  # no opponent reply after an illegal move
            assert_env_agrees(env, ref, obs, info, viewer=agent, ended=True, winner=1 - agent, illegal=True)
            stats.illegal = True
            return ref, stats
        scores_before = ref.scores()
        edge = int(rng.choice(ref.legal()))
        obs, reward, terminated, truncated, info = env.step(as_action(edge, rng))
        completed = ref.play(edge)
        if completed and not ref.over():
            stats.agent_extra_turns += 1
            assert_equal_arrays(obs, ref.observation(agent))  # no opponent move in between
        if follow_opponent(env, obs, ref, agent) > 1:
            stats.opponent_runs += 1
        assert terminated is ref.over() and truncated is False
        assert reward == expected_step_reward(config, ref, agent, scores_before)
        episode_return += reward
        assert_env_agrees(env, ref, obs, info, viewer=agent, ended=ref.over(), winner=ref.winner())
        if not ref.over():
            assert info["current_player"] == agent
            continue
        if config.reward == "score":
            # Boxes gained minus boxes conceded, summed over the episode: the final margin.
            assert episode_return == ref.scores()[agent] - ref.scores()[1 - agent]
        with pytest.raises(ResetNeeded):
            env.step(0)
        return ref, stats


OPPONENT_GAMES = [
    pytest.param(DEFAULT, 200, marks=SLOW),
    pytest.param(Config(3, 3, "draw", "score"), 200, marks=SLOW),
    (Config(1, 1, "second", "score"), 200),
    pytest.param(Config(2, 3, "second", "win"), 250, marks=SLOW),
    pytest.param(Config(1, 4, "draw", "score"), 250, marks=SLOW),
    pytest.param(Config(4, 4, "second", "score"), 50, marks=SLOW),
]


@pytest.mark.parametrize("agent", [0, 1])
@pytest.mark.parametrize(("config", "games"), OPPONENT_GAMES, ids=lambda v: str(v))
def test_random_opponent_games_match_reference_from_either_side(config: Config, games: int, agent: int) -> None:
    env = config.make(opponent="random", agent_player=agent)
    rng = np.random.default_rng(100 + agent)
    env.reset(seed=agent)  # seed once; later resets continue the env's stream
    outcomes: Counter[int | None] = Counter()
    totals = EpisodeStats()
    for _ in range(games):
        ref, stats = play_against_opponent(env, config, rng, agent)
        outcomes[ref.winner()] += 1
        totals.opponent_runs += stats.opponent_runs
        totals.agent_extra_turns += stats.agent_extra_turns
    if config.boxes == 1:
        assert outcomes == {1: games}  # player 1 always draws the fourth side
        return
    assert {0, 1} <= set(outcomes)  # the agent both won and lost
    # Both sides took boxes in a row: the opponent inside one step, the agent over several steps.
    assert totals.opponent_runs > 0 and totals.agent_extra_turns > 0


@pytest.mark.parametrize("agent", [0, 1])
@pytest.mark.parametrize("reward_mode", ["win", "score"])
def test_agent_illegal_move_against_random_opponent_loses_without_a_reply(reward_mode: str, agent: int) -> None:
    config = Config(2, 2, "second", reward_mode)
    env = config.make(opponent="random", agent_player=agent, illegal_action="lose")
    rng = np.random.default_rng(300 + agent)
    illegal_endings = sum(
        play_against_opponent(env, config, rng, agent, seed=i, illegal_rate=0.2)[1].illegal for i in range(200)
    )
    assert illegal_endings > 50


def test_seeded_reset_reproduces_the_random_opponents_moves() -> None:
    def trajectory(seed: int) -> list[list[int]]:
        env = DEFAULT.make(opponent="random", agent_player=1)
        obs, _ = env.reset(seed=seed)
        observations = [obs.tolist()]
        terminated = False
        while not terminated:
            obs, _, terminated, _, _ = env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
            observations.append(obs.tolist())
        return observations

    runs = {seed: trajectory(seed) for seed in range(10)}
    assert all(trajectory(seed) == runs[seed] for seed in range(10))
    assert len({str(run) for run in runs.values()}) > 1


# ---- table-driven rules ----------------------------------------------------------------------


def scripted(edges: Iterable[int]) -> Callable[[Any, Any], int]:
    """A custom opponent playing ``edges`` in order, whatever the position (so the test fixes the game)."""
    moves = iter(edges)
    return lambda game, state: next(moves)


def test_two_by_two_edges_are_numbered_horizontal_rows_then_vertical_rows() -> None:
    env = gym.make("DotsAndBoxes-v0", rows=2, cols=2, opponent=None)
    game = env.unwrapped.game
    assert env.action_space == gym.spaces.Discrete(12) and env.observation_space.shape == (16,)
    expected = {
        0: ((0, 0), (0, 1)), 1: ((0, 1), (0, 2)),  # top row of dots
        2: ((1, 0), (1, 1)), 3: ((1, 1), (1, 2)),
        4: ((2, 0), (2, 1)), 5: ((2, 1), (2, 2)),  # bottom row of dots
        6: ((0, 0), (1, 0)), 7: ((0, 1), (1, 1)), 8: ((0, 2), (1, 2)),  # verticals of the first box row
        9: ((1, 0), (2, 0)), 10: ((1, 1), (2, 1)), 11: ((1, 2), (2, 2)),
    }  # fmt: skip
    ref = RefDots(2, 2)
    for edge, dots in expected.items():
        assert game.edge_endpoints(edge) == dots == ref.endpoints(edge)
    with pytest.raises(ValueError, match="0..11"):
        game.edge_endpoints(12)
    # Drawing a box's four documented sides in the env completes that box and no other.
    for box, sides in enumerate([(0, 2, 6, 7), (1, 3, 7, 8), (2, 4, 9, 10), (3, 5, 10, 11)]):
        assert ref.sides(*divmod(box, 2)) == sides
        env.reset(seed=0)
        for edge in sides:  # players 0, 1, 0, 1: player 1 draws the fourth side
            obs, reward, _, _, info = env.step(edge)
        expected_owners = [0, 0, 0, 0]
        expected_owners[box] = 1  # player 1's box, seen by player 1 (who moves again)
        assert obs[12:].tolist() == expected_owners
        assert (info["scores"], info["current_player"]) == ([0, 1], 1)


@pytest.mark.parametrize("reward_mode", ["win", "score"])
def test_one_edge_completing_two_boxes_scores_both_and_gives_another_move(reward_mode: str) -> None:
    env = gym.make("DotsAndBoxes-v0", rows=2, cols=2, reward=reward_mode, opponent=None)
    env.reset(seed=0)
    # Boxes 0 and 1 get three sides each without closing anything: 0 2 6 | 1 3 8 (players alternate).
    for edge in (0, 2, 6, 1, 3, 8):
        _, reward, terminated, _, info = env.step(edge)
        assert (reward, terminated) == (0.0, False)
    assert info["current_player"] == 0
    obs, reward, terminated, _, info = env.step(7)  # the shared side closes both
    assert reward == (2.0 if reward_mode == "score" else 0.0) and terminated is False
    assert (info["scores"], info["current_player"]) == ([2, 0], 0)
    assert obs[12:].tolist() == [1, 1, 0, 0]
    obs, reward, _, _, info = env.step(4)  # the extra move closes nothing: the turn passes
    assert (reward, info["current_player"]) == (0.0, 1)
    assert obs[12:].tolist() == [-1, -1, 0, 0]  # now seen by player 1


@pytest.mark.parametrize("reward_mode", ["win", "score"])
def test_opponent_double_box_and_extra_moves_happen_inside_one_step(reward_mode: str) -> None:
    # 2x2 boxes. The opponent (player 1) closes boxes 0 and 1 with edge 7, then plays 9 which closes
    # nothing. The agent then closes box 2 with 10 and moves again, plays 5, and the opponent closes box 3.
    env = gym.make("DotsAndBoxes-v0", rows=2, cols=2, reward=reward_mode, opponent=scripted([2, 1, 8, 7, 9, 11]))
    env.reset(seed=0)
    script = [  # (agent edge, scores after the step, whose turn, score-mode reward, terminated)
        (0, [0, 0], 0, 0.0, False),
        (6, [0, 0], 0, 0.0, False),
        (3, [0, 0], 0, 0.0, False),
        (4, [0, 2], 0, -2.0, False),  # the opponent's double box and its extra move, in one step
        (10, [1, 2], 0, 1.0, False),  # the agent closed box 2: the step returns with the agent to move
        (5, [1, 3], 1, -1.0, True),  # the opponent closes box 3 with the last edge
    ]
    rewards = []
    for edge, scores, to_move, score_reward, ended in script:
        obs, reward, terminated, _, info = env.step(edge)
        rewards.append(reward)
        assert (info["scores"], info["current_player"], terminated) == (scores, to_move, ended)
        assert reward == (score_reward if reward_mode == "score" else (-1.0 if ended else 0.0))
    assert info["winner"] == 1
    assert obs[12:].tolist() == [-1, -1, 1, -1]  # from the agent's side to the very end
    if reward_mode == "score":
        assert sum(rewards) == 1 - 3  # the episode return is the final margin
    assert [player for player, _ in env.unwrapped.moves] == [0, 1, 0, 1, 0, 1, 0, 1, 1, 0, 0, 1]


@pytest.mark.parametrize("reward_mode", ["win", "score"])
def test_opponent_takes_a_whole_chain_inside_one_step(reward_mode: str) -> None:
    # 1x3 boxes: tops 0-2, bottoms 3-5, verticals 6-9. After 0..6 the corridor is a chain of three boxes.
    env = gym.make("DotsAndBoxes-v0", rows=1, cols=3, reward=reward_mode, opponent=scripted([1, 3, 5, 7, 8, 9]))
    env.reset(seed=0)
    for edge in (0, 2, 4):
        _, reward, terminated, _, _ = env.step(edge)
        assert (reward, terminated) == (0.0, False)
    obs, reward, terminated, _, info = env.step(6)  # the opponent then plays 7, 8, 9, closing all three
    assert terminated is True and (info["scores"], info["winner"], info["current_player"]) == ([0, 3], 1, 1)
    assert reward == (-3.0 if reward_mode == "score" else -1.0)
    assert obs.tolist() == [1] * 10 + [-1, -1, -1]


@pytest.mark.parametrize("reward_mode", ["win", "score"])
def test_agent_takes_a_chain_one_step_per_box_keeping_the_move(reward_mode: str) -> None:
    env = gym.make(
        "DotsAndBoxes-v0", rows=1, cols=3, reward=reward_mode, agent_player=1, opponent=scripted([0, 2, 4, 6])
    )
    obs, info = env.reset(seed=0)
    assert obs[:10].tolist() == [1] + [0] * 9  # the opponent opened with edge 0
    for edge in (1, 3, 5):
        env.step(edge)
    for i, edge in enumerate((7, 8, 9)):  # each edge closes the next box of the corridor
        obs, reward, terminated, _, info = env.step(edge)
        last = i == 2
        assert (info["scores"], info["current_player"], terminated) == ([0, i + 1], 1, last)
        assert reward == (1.0 if reward_mode == "score" or last else 0.0)
    assert info["winner"] == 1 and obs[10:].tolist() == [1, 1, 1]


@pytest.mark.parametrize(
    ("tie_break", "reward_mode", "winner", "final_reward"),
    [("draw", "win", -1, 0.0), ("second", "win", 1, 1.0), ("draw", "score", -1, 1.0), ("second", "score", 1, 1.0)],
)
def test_equal_boxes_are_a_draw_or_a_win_for_player_one_in_self_play(
    tie_break: str, reward_mode: str, winner: int, final_reward: float
) -> None:
    # 1x2 boxes: box 0 = 0 2 4 5, box 1 = 1 3 5 6. Player 0 closes box 0 with 4 and moves again (3);
    # player 1 closes box 1 with 6, the last edge: one box each.
    env = gym.make("DotsAndBoxes-v0", rows=1, cols=2, tie_break=tie_break, reward=reward_mode, opponent=None)
    env.reset(seed=0)
    players = []
    for edge in (5, 0, 2, 1, 4, 3, 6):
        players.append(env.unwrapped.game.current_player(env.unwrapped.state))
        obs, reward, terminated, _, info = env.step(edge)
    assert players == [0, 1, 0, 1, 0, 0, 1]
    assert terminated and (info["scores"], info["winner"], info["current_player"]) == ([1, 1], winner, 1)
    # The reward belongs to player 1, who just moved: the tie's payoff in win mode, the box in score mode.
    assert reward == final_reward
    assert obs.tolist() == [1] * 7 + [-1, 1]  # seen by player 1


@pytest.mark.parametrize(("tie_break", "win_reward"), [("draw", 0.0), ("second", -1.0)])
def test_a_tie_against_an_opponent_costs_the_first_player_under_tie_break_second(
    tie_break: str, win_reward: float
) -> None:
    env = gym.make("DotsAndBoxes-v0", rows=1, cols=2, tie_break=tie_break, opponent=scripted([0, 1, 6]))
    env.reset(seed=0)
    for edge in (5, 2):
        _, reward, terminated, _, _ = env.step(edge)
        assert (reward, terminated) == (0.0, False)
    obs, reward, terminated, _, info = env.step(4)  # the agent closes box 0 and must move again
    assert (reward, terminated, info["scores"], info["current_player"]) == (0.0, False, [1, 0], 0)
    obs, reward, terminated, _, info = env.step(3)  # and the opponent closes box 1 with the last edge
    assert (terminated, info["scores"], info["winner"]) == (True, [1, 1], 1 if tie_break == "second" else -1)
    assert reward == win_reward
