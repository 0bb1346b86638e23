"""gym_boardgames.opponents: an agent's ``act`` or the agent itself is its policy; ``reset`` is its hook."""

import re
import subprocess
import sys

import pytest

from gym_boardgames.opponents import AgentError, as_policy, make_opponent, reset_hook


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


def test_a_name_imports_the_agent_factory_only_when_it_is_used():
    code = (
        "import sys, gym_boardgames.opponents as o\n"
        "from gym_boardgames.rules import TicTacToe\n"
        "before = 'agents' in sys.modules\n"
        "o.make_opponent('alphabeta', TicTacToe())\n"
        "print(before, 'agents.factory' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True"]


# ---- the one boundary around user code ----------------------------------------------------------------


@pytest.fixture
def user_file(tmp_path):
    """Write ``agent_N.py`` holding ``body`` and return its ``file.py:Class`` spec."""
    count = [0]

    def write(body):
        count[0] += 1
        path = tmp_path / f"agent_{count[0]}.py"
        path.write_text("import sys, time\n" + body)
        return f"{path}:Player"

    return write


@pytest.mark.parametrize(
    "body, where, message",
    [
        ("sys.exit(0)\n", "load", r"loading .*agent_1\.py raised SystemExit: 0$"),
        (
            "raise ImportError('no module named torch')\n",
            "load",
            r"loading .* raised ImportError: no module named torch$",
        ),
        (
            "class Player:\n    def __init__(self):\n        1 / 0\n",
            "load",
            r"its constructor raised ZeroDivisionError",
        ),
        ("Player = 3\n", "load", r"has no class or function 'Player'$"),
        (
            "class Player:\n    def act(self, game, state):\n        raise KeyError('x')\n",
            "act",
            r"its act\(\) raised KeyError: 'x'$",
        ),
        (
            "class Player:\n    def act(self, game, state):\n        sys.exit(3)\n",
            "act",
            r"its act\(\) raised SystemExit: 3$",
        ),
        (
            "class Player:\n    def act(self, game, state):\n        return 0\n"
            "    def check(self, game):\n        raise RuntimeError('too big')\n",
            "load",
            r"its check\(\) raised RuntimeError: too big$",
        ),
        (
            "class Player:\n    def act(self, game, state):\n        time.sleep(30)\n",
            "act",
            r"its act\(\) did not answer within 0\.3 s",
        ),
    ],
)
def test_a_users_agent_that_fails_becomes_one_line_naming_it(user_file, body, where, message):
    import time

    from gym_boardgames.opponents import AgentError, make_opponent
    from gym_boardgames.rules import TicTacToe

    game, spec = TicTacToe(), user_file(body)
    with pytest.raises(AgentError, match=message) as caught:
        opponent = make_opponent(spec, game, seed=1, move_time=0.3)
        assert where == "act"
        started = time.monotonic()
        opponent.act(game, game.initial_state())
    assert str(caught.value).startswith(f"agent {spec}: ") and "\n" not in str(caught.value)
    if "answer" in message:
        assert time.monotonic() - started < 5


def test_ctrl_c_in_a_users_agent_is_never_swallowed(user_file):
    from gym_boardgames.opponents import make_opponent
    from gym_boardgames.rules import TicTacToe

    game = TicTacToe()
    opponent = make_opponent(
        user_file("class Player:\n    def act(self, g, s):\n        raise KeyboardInterrupt\n"), game
    )
    with pytest.raises(KeyboardInterrupt):
        opponent.act(game, game.initial_state())


def test_a_users_class_is_built_with_the_seed_when_it_takes_one_and_plays_in_an_env(user_file):
    import gymnasium as gym

    body = (
        "class Player:\n    def __init__(self, seed=None):\n        self.seed = seed\n"
        "    def act(self, game, state):\n        return int(game.legal_actions(state)[-1])\n"
    )
    spec = user_file(body)
    env = gym.make("TicTacToe-v0", opponent=spec)
    env.reset(seed=3)
    _, _, _, _, info = env.step(0)
    assert env.unwrapped.moves == [(0, 0), (1, 8)]
    assert isinstance(env.unwrapped._opponent_agent.agent.seed, int)


def test_an_object_opponent_that_raises_is_one_line_naming_it():
    from gym_boardgames.opponents import AgentError, make_opponent
    from gym_boardgames.rules import TicTacToe

    def broken(game, state):
        raise RuntimeError("oops")

    game = TicTacToe()
    with pytest.raises(AgentError, match=r"^agent .*broken: its act\(\) raised RuntimeError: oops$"):
        make_opponent(broken, game).act(game, game.initial_state())


def test_the_projects_own_agents_are_called_directly_without_a_move_limit():
    from gym_boardgames.opponents import make_opponent
    from gym_boardgames.rules import TicTacToe

    opponent = make_opponent("alphabeta", TicTacToe())
    assert not opponent.user and opponent.move_time is None and opponent.rebuildable
    for bad in (0, float("inf"), float("nan")):
        with pytest.raises(ValueError, match=rf"move_time must be seconds in \(0, 86400\] or None, got {bad!r}"):
            make_opponent("alphabeta", TicTacToe(), move_time=bad)


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
    from gym_boardgames.opponents import opponent_seed
    from gym_boardgames.rules.registry import make_game

    game = make_game(board, rows=2, cols=2) if board == "dots" else make_game(board)
    used = make_agent(name, seed=1, game=game)
    _moves_of_a_game(used, game, 0)  # its generator (and MCTS's block of uniforms) moved on
    used.reseed(opponent_seed(5))
    fresh = make_agent(name, seed=opponent_seed(5), game=game)
    assert [_moves_of_a_game(used, game, g) for g in (1, 2)] == [_moves_of_a_game(fresh, game, g) for g in (1, 2)]


def test_a_reseeded_td_agent_breaks_ties_as_a_new_one():
    from agents.tabular.td import TDAgent
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


def test_a_named_opponent_reaches_the_factory_in_one_call_from_make_opponent():
    """``gym.make(..., opponent="alphazero:0")``: the name goes from ``make_opponent`` to the factory in one call."""
    import sys

    import gymnasium as gym

    factory_calls = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_name == "make_agent" and frame.f_code.co_filename.endswith("factory.py"):
            factory_calls.append(frame.f_back.f_code.co_name)

    sys.setprofile(profile)
    try:
        gym.make("TicTacToe-v0", opponent="alphazero:0")
    finally:
        sys.setprofile(None)
    assert factory_calls == ["make_opponent"]


# ---- a user's agent with a move time plays in a child process ------------------------------------------


def test_a_users_agent_raising_its_own_base_exception_kind_is_one_line(user_file):
    from gym_boardgames.opponents import AgentError, make_opponent
    from gym_boardgames.rules import TicTacToe

    body = "class Mine(BaseException):\n    pass\nclass Player:\n    def act(self, g, s):\n        raise Mine('x')\n"
    game, spec = TicTacToe(), user_file(body)
    for move_time in (None, 5.0):  # in this process, and in its child
        with pytest.raises(AgentError, match=r"its act\(\) raised Mine: x$"):
            make_opponent(spec, game, move_time=move_time).act(game, game.initial_state())
    gen = user_file("class Player:\n    def act(self, g, s):\n        raise GeneratorExit\n")
    with pytest.raises(AgentError, match=r"its act\(\) raised GeneratorExit$"):
        make_opponent(gen, game).act(game, game.initial_state())


def test_a_gil_holding_users_agent_is_killed_at_the_move_time(user_file):
    import time

    from gym_boardgames.opponents import AgentError, make_opponent
    from gym_boardgames.rules import TicTacToe

    body = "import re\nclass Player:\n    def act(self, g, s):\n        re.match(r'(a+)+$', 'a' * 40 + 'b')\n"
    game, spec = TicTacToe(), user_file(body)
    opponent = make_opponent(spec, game, move_time=0.5)
    child = opponent.agent._child
    started = time.monotonic()
    with pytest.raises(AgentError, match=r"its act\(\) did not answer within 0\.5 s"):
        opponent.act(game, game.initial_state())
    assert time.monotonic() - started < 30  # a thread watchdog hangs for hours here
    assert child.returncode is not None  # killed and reaped


def test_a_seeded_users_agent_plays_the_same_game_in_its_child_as_in_process(user_file):
    from agents.matches.arena import play_game
    from gym_boardgames.opponents import make_opponent
    from gym_boardgames.rules import ConnectN

    body = (
        "import numpy as np\nclass Player:\n    def __init__(self, seed=None):\n"
        "        self.rng = np.random.default_rng(seed)\n"
        "    def act(self, game, state):\n        return int(self.rng.choice(game.legal_actions(state)))\n"
    )
    game, spec = ConnectN(6, 7, 4), user_file(body)

    def record(move_time):
        moves = []
        first = make_opponent(spec, game, 7, move_time=move_time)
        second = make_opponent(spec, game, 8, move_time=move_time)
        for reseed in (None, 11):
            if reseed is not None:
                first.reseed(reseed)
            play_game(game, first, second, on_move=lambda state, action, child: moves.append(action))
        return first, moves

    in_process, child = record(None), record(10.0)
    assert type(in_process[0].agent).__name__ == "Player" and type(child[0].agent).__name__ == "ChildAgent"
    assert in_process[1] == child[1] and len(child[1]) > 14


def test_the_projects_own_agents_with_a_move_time_stay_in_process():
    from gym_boardgames.opponents import make_opponent
    from gym_boardgames.rules import TicTacToe

    opponent = make_opponent("alphabeta", TicTacToe(), move_time=5.0)
    assert type(opponent.agent).__name__ == "AlphaBetaAgent" and opponent.move_time == 5.0
    with pytest.raises(ValueError, match=r"move_time must be seconds"):
        make_opponent("x.py:Player", TicTacToe(), move_time=0)


@pytest.mark.parametrize(
    "move",
    [
        "'a' * 5_000_000",
        "10**5000",
        "True",
        "1.5",
        "None",
        "9",
        "np.int64(-1)",
        "np.array(True)",
        "type('Huge', (), {'__repr__': lambda self: 'x' * 5_000_000})()",
        "type('Bad', (), {'__repr__': lambda self: 1 / 0})()",
    ],
)
def test_a_bad_move_is_refused_in_the_same_bounded_words_in_process_and_in_its_child(user_file, move):
    from gym_boardgames.checks import check_action
    from gym_boardgames.errors import MAX_SHOWN_CHARS
    from gym_boardgames.rules import TicTacToe

    game = TicTacToe()
    spec = user_file(f"import numpy as np\nclass Player:\n    def act(self, g, s):\n        return {move}\n")
    refusals = []
    for move_time in (None, 5.0):  # in this process, and in its child
        opponent = make_opponent(spec, game, move_time=move_time)
        with pytest.raises(ValueError) as caught:
            check_action(opponent.act(game, game.initial_state()), game.num_actions, agent=spec)
        refusals.append(str(caught.value))
        if move_time is not None:
            opponent.agent.close()
    assert refusals[0] == refusals[1]
    assert refusals[0].startswith(f"agent {spec} played ") and refusals[0].endswith(", which is not an integer in 0..8")
    assert len(refusals[0]) < len(spec) + MAX_SHOWN_CHARS + 80


def test_a_reply_line_too_long_or_not_a_reply_ends_the_child_in_one_line(user_file):
    """Only a hostile agent writes into the reply pipe itself: it is refused without reading on, and killed."""
    from gym_boardgames.agent_process import MAX_REPLY_BYTES
    from gym_boardgames.rules import TicTacToe

    game = TicTacToe()
    writer = (
        "import os\nclass Player:\n    def act(self, g, s):\n        for fd in range(3, 10):\n            try:\n"
        "                os.write(fd, {data})\n            except OSError:\n                pass\n        return 0\n"
    )
    for data, problem in [
        (f"b'x' * {4 * MAX_REPLY_BYTES}", f"its process sent a reply of more than {MAX_REPLY_BYTES:,} bytes"),
        ("b'not json\\n'", "its process sent a reply that is not one"),
    ]:
        spec = user_file(writer.format(data=data))
        opponent = make_opponent(spec, game, move_time=20.0)
        child = opponent.agent._child
        with pytest.raises(AgentError, match=rf"^agent {re.escape(spec)}: {problem} during its act\(\)$"):
            opponent.act(game, game.initial_state())
        assert child.returncode is not None  # killed and reaped
