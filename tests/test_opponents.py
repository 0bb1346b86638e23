"""gym_boardgames.opponents: an agent's ``act`` or the agent itself is its policy; ``reset`` is its hook."""

import subprocess
import sys

import pytest

from gym_boardgames.opponents import as_policy, reset_hook


class Actor:
    """Has ``act`` and ``reset`` and is callable too: ``act`` must win."""

    def act(self, game, state):
        return 1

    def reset(self):
        return "reset"

    def __call__(self, game, state):
        return 2


def test_an_agent_with_act_plays_with_act_even_if_it_is_callable():
    agent = Actor()
    assert as_policy(agent) == agent.act
    assert as_policy(agent)(None, None) == 1


def test_a_plain_callable_is_its_own_policy():
    def lowest(game, state):
        return 0

    assert as_policy(lowest) is lowest


@pytest.mark.parametrize(
    "agent", [None, 3, "alphabeta", type("NoAct", (), {"act": 5})()], ids=["None", "3", "a-name", "act-not-callable"]
)
def test_anything_else_is_refused_naming_what_an_agent_needs(agent):
    with pytest.raises(ValueError, match=r"is not an agent: it needs act\(game, state\) -> int or to be callable"):
        as_policy(agent)


def test_reset_hook_is_a_callable_reset_or_none():
    agent = Actor()
    assert reset_hook(agent)() == "reset"
    assert reset_hook(lambda game, state: 0) is None
    assert reset_hook(type("NotCallable", (), {"reset": 1})()) is None


def test_the_module_never_imports_the_agents_package_or_pygame():
    code = "import sys, gym_boardgames.opponents; print([m for m in ('agents', 'pygame') if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_finding_the_provider_imports_agents_only_when_a_name_is_used():
    code = (
        "import sys, gym_boardgames.opponents as o\n"
        "before = 'agents' in sys.modules\n"
        "o.opponent_provider()\n"
        "print(before, 'agents.provider' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True"]


class _Point:
    """An entry point as importlib.metadata gives it."""

    def __init__(self, name, value, loaded):
        self.name, self.value, self._loaded = name, value, loaded

    def load(self):
        return self._loaded


def _installed(monkeypatch, points):
    import importlib.metadata

    from gym_boardgames import opponents

    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: list(points))
    opponents.opponent_provider.cache_clear()


def _exits(name, game=None, seed=None):
    raise SystemExit("a plugin that exits")


@pytest.fixture
def fresh_provider():
    from gym_boardgames import opponents

    opponents.opponent_provider.cache_clear()
    yield
    opponents.opponent_provider.cache_clear()


def test_this_packages_provider_wins_over_a_plugin_whose_name_sorts_first(monkeypatch, fresh_provider):
    from agents.provider import make_opponent
    from gym_boardgames.opponents import OWN_PROVIDER, opponent_provider

    _installed(monkeypatch, [_Point("zzz_agents", OWN_PROVIDER, make_opponent), _Point("aaa", "evil:make", _exits)])
    assert opponent_provider() is make_opponent


@pytest.mark.parametrize(
    "plugin, message",
    [
        (_exits, "failed on 'alphabeta': SystemExit"),
        (lambda name, game=None, seed=None: 1 / 0, "failed on 'alphabeta': ZeroDivisionError"),
        (lambda name, game=None, seed=None: 42, "returned 42 for 'alphabeta', not an agent"),
    ],
)
def test_a_foreign_provider_is_contained_in_one_value_error(monkeypatch, fresh_provider, plugin, message):
    from gym_boardgames.envs.contract import make_named_opponent
    from gym_boardgames.rules import TicTacToe

    _installed(monkeypatch, [_Point("aaa", "evil:make", plugin)])
    with pytest.raises(ValueError, match=message):
        make_named_opponent("alphabeta", TicTacToe())


# ---- a named opponent is built once, then reseeded ------------------------------------------------


def _moves_of_a_game(agent, game, seed):
    """The agent's move in every position of one game whose moves are drawn by ``seed``."""
    import numpy as np

    rng, state, moves = np.random.default_rng(seed), game.initial_state(), []
    if callable(getattr(agent, "reset", None)):
        agent.reset()  # as an env does when a game starts
    while not game.is_terminal(state):
        moves.append(agent.act(game, state))
        legal = game.legal_actions(state)
        state = game.apply(state, legal[int(rng.integers(len(legal)))])
    return moves


@pytest.mark.parametrize(
    "name, board",
    [
        ("random", "tictactoe"),
        ("alphabeta:2", "tictactoe"),
        ("mcts:30", "tictactoe"),
        ("alphazero:4", "tictactoe"),
        ("alphazero:3", "connectfour"),
        ("always4never3", "dotsandboxes"),
        ("endgame:4", "dotsandboxes"),
        ("first_available", "dotsandboxes"),
    ],
)
def test_a_reseeded_agent_plays_as_a_new_one_built_with_that_seed(name, board):
    from agents.factory import make_agent
    from gym_boardgames.envs.contract import opponent_seed
    from gym_boardgames.rules.registry import make_game

    game = make_game(board, rows=2, cols=2) if board == "dots" else make_game(board)
    used = make_agent(name, seed=1, game=game)
    _moves_of_a_game(used, game, 0)  # its generator (and MCTS's block of uniforms) moved on
    used.reseed(opponent_seed(5))
    fresh = make_agent(name, seed=opponent_seed(5), game=game)
    assert [_moves_of_a_game(used, game, g) for g in (1, 2)] == [_moves_of_a_game(fresh, game, g) for g in (1, 2)]


def test_a_reseeded_td_agent_breaks_ties_as_a_new_one():
    from agents.td import TDAgent
    from gym_boardgames.rules import TicTacToe

    game = TicTacToe()
    used = TDAgent(game, seed=1)  # every value 0.5: every move is a tie, broken by the generator
    _moves_of_a_game(used, game, 0)
    used.reseed(9)
    assert _moves_of_a_game(used, game, 1) == _moves_of_a_game(TDAgent(game, seed=9), game, 1)


@pytest.fixture
def model_reads(monkeypatch):
    """Count the reads of AlphaZero model files (agents.alphazero.agent's load_npz)."""
    import agents.alphazero.agent as alphazero

    reads = []
    real = alphazero.load_npz

    def counted(path, **kwargs):
        reads.append(path)
        return real(path, **kwargs)

    monkeypatch.setattr(alphazero, "load_npz", counted)
    return reads


def test_an_env_reads_its_alphazero_model_once_whatever_the_seeded_resets(model_reads):
    import gymnasium as gym
    import numpy as np

    import gym_boardgames  # noqa: F401  (registers the ids)

    env = gym.make("TicTacToe-v0", opponent="alphazero:2", agent_player=1)
    assert len(model_reads) == 1
    replies = []
    for seed in list(range(10)) + [3]:
        obs, _ = env.reset(seed=seed)
        replies.append(int(np.flatnonzero(obs.ravel() != 0)[0]))
    assert len(model_reads) == 1
    # Reseeding replays: the same seed gives the same opening reply, as a new env's does.
    fresh = gym.make("TicTacToe-v0", opponent="alphazero:2", agent_player=1)
    assert replies[-1] == replies[3] == int(np.flatnonzero(fresh.reset(seed=3)[0].ravel() != 0)[0])


def test_a_vector_env_reads_its_alphazero_model_once_whatever_the_seeded_resets(model_reads):
    from gym_boardgames.vector.connect import TicTacToeVectorEnv

    env = TicTacToeVectorEnv(num_envs=3, opponent="alphazero:2", agent_player=1)
    first = [env.reset(seed=seed)[0].copy() for seed in (4, 5, 4)]
    assert len(model_reads) == 1
    assert (first[0] == first[2]).all()
