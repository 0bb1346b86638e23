"""gym_boardgames.human.window: the play window's real event loop, driven headless with posted pygame events; the
hints, and scripts/play.py's window."""

import ast
import functools
import importlib.util
import subprocess
import sys
import threading
from pathlib import Path

import pytest

pygame = pytest.importorskip("pygame")

from agents.factory import default_opponent, suggested_opponents  # noqa: E402
from agents.hints import hint_labels  # noqa: E402
from agents.search.minimax import AlphaBetaAgent  # noqa: E402
from gym_boardgames.envs import ConnectNEnv, DotsAndBoxesEnv, TicTacToeEnv  # noqa: E402
from gym_boardgames.human.window import PlayApp  # noqa: E402
from gym_boardgames.opponents import make_opponent  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
#: Only for a worker that never ends: how long one takes is not what these tests check.
HANG_GUARD_S = 600


def load_play_script():
    """scripts/play.py as a module: it holds the hint provider it hands the window."""
    spec = importlib.util.spec_from_file_location("play_script", ROOT / "scripts" / "play.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PLAY_SCRIPT = load_play_script()


class Lowest:
    """A weak, predictable opponent: the lowest legal action."""

    def act(self, game, state):
        return game.legal_actions(state)[0]


def click(app, pos):
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=tuple(int(v) for v in pos), button=1))
    app.frame()
    app.wait_for_agent()


def key(app, name):
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=getattr(pygame, f"K_{name}")))
    app.frame()
    app.wait_for_agent()


def show_hints(app):
    """Press H and wait for the hint worker to finish, however long a busy machine makes it take: no deadline.

    The worker is the session's thread the key press starts; once it is joined, one frame collects its labels.
    """
    before = set(threading.enumerate())
    key(app, "h")
    for worker in set(threading.enumerate()) - before:
        if worker.name != "play session worker":  # the hints' own timer (agents.hints' time limit) is not waited on
            continue
        worker.join(timeout=HANG_GUARD_S)
        assert not worker.is_alive(), f"the hint worker still runs after {HANG_GUARD_S} s: it hangs"
    app.frame()


def edge_centre(app, edge):
    (x0, y0), (x1, y1) = app.view.edge_segment(edge)
    return ((x0 + x1) / 2, (y0 + y1) / 2)


@pytest.fixture
def close_after():
    apps = []
    yield apps.append
    for app in apps:
        app.close()


def test_a_full_tictactoe_game_won_by_clicks(close_after):
    env = TicTacToeEnv(opponent=None)
    app = PlayApp(env, Lowest(), side=0)
    close_after(app)
    for cell in (4, 2, 6):  # the agent answers 0 and 1; 2-4-6 completes the diagonal
        click(app, app.view.cell_rect(cell).center)
    assert env.moves == [(0, 4), (1, 0), (0, 2), (1, 1), (0, 6)]
    assert env.episode_over and env.winner == 0
    assert app.status().startswith("You win!")


def test_the_agents_reply_appears_and_the_human_can_play_second(close_after):
    env = TicTacToeEnv(opponent=None)
    app = PlayApp(env, AlphaBetaAgent(seed=0), side=1)
    close_after(app)
    app.wait_for_agent()
    assert len(env.moves) == 1 and env.moves[0][0] == 0  # the agent opened
    free = env.game.legal_actions(env.state)[0]
    click(app, app.view.cell_rect(free).center)
    assert [player for player, _ in env.moves] == [0, 1, 0]


def test_connect_four_column_click_drops_a_disc_to_the_bottom(close_after):
    env = ConnectNEnv(opponent=None)
    app = PlayApp(env, Lowest(), side=0)
    close_after(app)
    click(app, app.view.cell_rect(3).center)  # the top cell of column 3
    assert env.moves[0] == (0, 3)
    assert env.state.board[5 * 7 + 3] == 1  # landed in the bottom row
    assert env.moves[1] == (1, 0)  # and the agent replied


def test_dots_click_draws_the_edge_and_a_completed_box_gives_another_turn(close_after):
    env = DotsAndBoxesEnv(2, 2, opponent=None)
    app = PlayApp(env, Lowest(), side=0)
    close_after(app)
    # Box 0 has edges 0 (top), 2 (bottom), 6 (left), 7 (right). Set up: the human to move, box 0 three-sided.
    app.restart([0, 2, 6, 11])
    assert app.human_to_move
    click(app, edge_centre(app, 7))
    assert env.moves[-1] == (0, 7) and env.state.owners[0] == 1
    assert app.human_to_move  # another move for the human, the agent was not asked
    click(app, edge_centre(app, 5))
    assert env.moves[-2:] == [(0, 5), (1, 1)]  # no box this time: the agent replied


def test_an_illegal_click_changes_nothing_and_says_why(close_after):
    env = TicTacToeEnv(opponent=None)
    app = PlayApp(env, Lowest(), side=0)
    close_after(app)
    click(app, app.view.cell_rect(4).center)
    moves = list(env.moves)
    click(app, app.view.cell_rect(0).center)  # taken by the agent's reply
    assert env.moves == moves and app.status() == "that cell is taken"
    click(app, (-50, -50))
    assert env.moves == moves and app.status() == "click on the board"

    env = ConnectNEnv(3, 3, 3, opponent=None)
    app = PlayApp(env, Lowest(), side=0)
    close_after(app)
    click(app, app.view.cell_rect(0).center)  # agent also plays column 0
    click(app, app.view.cell_rect(0).center)  # column 0 is now full
    moves = list(env.moves)
    click(app, app.view.cell_rect(0).center)
    assert env.moves == moves and app.status() == "column 0 is full"


def test_undo_restart_and_swap(close_after):
    env = TicTacToeEnv(opponent=None)
    app = PlayApp(env, Lowest(), side=0)
    close_after(app)
    click(app, app.view.cell_rect(4).center)
    click(app, app.view.cell_rect(8).center)
    assert len(env.moves) == 4
    key(app, "u")
    assert env.moves == [(0, 4), (1, 0)]  # your move and its reply were taken back
    key(app, "r")
    assert env.moves == []
    key(app, "s")
    assert app.side == 1 and env.moves == [(0, 0)]  # the agent now opens
    key(app, "u")
    assert app.status() == "nothing to undo" and env.moves == [(0, 0)]


def test_hints_show_the_value_of_each_move(close_after):
    env = TicTacToeEnv(opponent=None)
    app = PlayApp(env, Lowest(), side=0, hints=hint_labels)
    close_after(app)
    app.restart([0, 3, 1, 4])  # X to move: 2 wins at once; anything else lets O win with 5
    show_hints(app)
    assert app.hints[2] == "win" and app.hints[5] == "draw" and app.hints[8] == "loss"


def test_quit_stops_the_frame_at_once_and_later_events_are_not_played(close_after):
    env = TicTacToeEnv(opponent=None)
    app = PlayApp(env, Lowest(), side=0)
    close_after(app)
    frames = app.frames
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=app.view.cell_rect(4).center, button=1))
    app.frame()
    assert not app.running and env.moves == [] and app.frames == frames  # nothing drawn or played after the quit
    pygame.event.clear()


def test_escape_quits_and_the_screenshot_is_saved(tmp_path):
    shot = tmp_path / "shot.png"
    app = PlayApp(TicTacToeEnv(opponent=None), Lowest(), side=0, screenshot=str(shot))
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE))
    app.run(max_frames=50)
    assert not app.running and app.frames < 50
    assert pygame.image.load(str(shot)).get_size() == (app.view.size[0], app.view.size[1] + 26)


def test_the_window_counts_the_agents_thinking_seconds(close_after, monkeypatch):
    from gym_boardgames.human import session as play_session

    class Clock:
        now = 100.0
        monotonic = staticmethod(lambda: Clock.now)
        perf_counter = staticmethod(__import__("time").perf_counter)

    class Gated(Lowest):
        release, started = threading.Event(), threading.Event()

        def act(self, game, state):
            self.started.set()
            assert self.release.wait(HANG_GUARD_S)
            return super().act(game, state)

    monkeypatch.setattr(play_session, "time", Clock)
    app = PlayApp(TicTacToeEnv(opponent=None), Gated(), side=1)
    close_after(app)
    assert Gated.started.wait(HANG_GUARD_S)
    assert app.status() == "the agent is thinking... 0 s"
    Clock.now += 7.25
    assert app.status() == "the agent is thinking... 7 s"
    Gated.release.set()
    app.wait_for_agent()
    assert app.status() == "your move (O)"


@pytest.mark.slow
def test_play_script_runs_headless_with_a_screenshot(tmp_path):
    shot = tmp_path / "dots.png"
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "play.py"), "dotsandboxes", "--rows", "2", "--cols", "2"]
        + ["--opponent", "always4never3", "--max-frames", "5", "--screenshot", str(shot)],
        capture_output=True,
        text=True,
        env={"SDL_VIDEODRIVER": "dummy", "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 0, result.stderr
    picture = pygame.image.load(str(shot))
    width, height = DotsAndBoxesEnv(2, 2, opponent=None).make_view().size
    assert picture.get_size() == (width, height + 26)  # the board and the help line under it
    pixels = pygame.surfarray.array3d(picture).reshape(-1, 3)
    assert len({tuple(p) for p in pixels}) > 2  # a board was drawn, not a blank or two-colour fill


def test_play_script_rejects_bad_opponents():
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "play.py"), "tictactoe", "--opponent", "always4never3"],
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0 and "plays Dots and Boxes only" in result.stderr


def test_play_script_builds_the_perfect_opponent_where_the_solver_plays():
    from agents.search.connect_four import PerfectAgent

    args = PLAY_SCRIPT.parse_args(["connectfour", "--opponent", "perfect", "--seed", "1"])
    session = args.table.session()
    assert isinstance(session.agent.agent, PerfectAgent) and args.table.opponent == "perfect"  # an Opponent around it
    session.close()
    args = PLAY_SCRIPT.parse_args(["connectn", "--rows", "5", "--cols", "5", "--opponent", "perfect"])
    assert args.table.opponent == "perfect" and args.table.game.rows == 5


@pytest.mark.parametrize(
    "flags, reason",
    [
        (["tictactoe"], "gravity boards with four in a row"),
        (["connectn", "--rows", "7", "--cols", "9"], "(rows + 1) * cols <= 63"),
        (["connectn", "--no-gravity"], "gravity boards with four in a row"),
    ],
)
def test_play_script_refuses_perfect_where_the_solver_cannot_play_in_one_line(flags, reason, capsys):
    with pytest.raises(SystemExit) as exit_:
        PLAY_SCRIPT.parse_args([*flags, "--opponent", "perfect"])
    error = capsys.readouterr().err.strip().splitlines()
    assert exit_.value.code == 2 and ": error: --opponent perfect: " in error[-1]  # argparse names sys.argv[0]
    assert reason in error[-1]


@pytest.mark.parametrize(
    "game, offered",
    [
        ("connectfour", ["alphazero", "perfect", "alphazero:0"]),  # the network stays the default
        (("connectn", 4, 5), ["mcts", "perfect", "mcts:200"]),  # small enough to solve from the empty board at once
        (("connectn", 4, 7), ["mcts", "mcts:200", "alphabeta:4"]),  # seconds from the empty board: left to the CLI
        ("tictactoe", ["alphabeta", "alphazero", "alphazero:0"]),  # not a board the solver plays
    ],
)
def test_the_page_offers_perfect_second_where_the_solver_answers_quickly(game, offered):
    from agents.search.connect_four import COMPILED
    from gym_boardgames.rules import ConnectN, TicTacToe

    if not COMPILED and "perfect" in offered:
        pytest.skip("perfect is offered only with the compiled solver (the solver extra)")
    rules = {"connectfour": ConnectN(6, 7, 4, True), "tictactoe": TicTacToe()}.get(game) or ConnectN(*game[1:], 4, True)
    names = suggested_opponents(rules)
    assert names[:3] == offered and default_opponent(rules) == offered[0]
    assert len(names) == len(set(names)) and names[-1] == "random"


def test_play_script_serves_the_page_and_prints_its_url():
    """--web: the URL with its token is printed, the page answers on loopback, Ctrl-C ends it cleanly."""
    import signal
    import urllib.request

    play = subprocess.Popen(
        [sys.executable, str(ROOT / "scripts" / "play.py"), "tictactoe", "--web", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={"PATH": "/usr/bin:/bin"},
        # Ctrl-C as a terminal sends it, even when the test run itself was started in the background (a shell
        # starts background jobs with SIGINT ignored, a child inherits that, and Python then keeps it ignored).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert "against alphabeta on this machine only" in play.stdout.readline()
        url = play.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and "?token=" in url
        with urllib.request.urlopen(url, timeout=HANG_GUARD_S) as response:
            page = response.read().decode()
        assert "alphabeta" in page and "Tic-tac-toe" in page
        with pytest.raises(urllib.error.HTTPError, match="403"):
            urllib.request.urlopen(url.split("?")[0], timeout=HANG_GUARD_S)
    finally:
        play.send_signal(signal.SIGINT)
        out, err = play.communicate(timeout=HANG_GUARD_S)
    assert play.returncode == 0 and "Traceback" not in err, err


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--web", "--host", "0.0.0.0"], "allow_remote"),
        (["--web", "--screenshot", "x.png"], "--screenshot is the window's"),
        (["--web", "--port", "70000"], "--port must be at most 65535"),
        (
            ["--web", "--host", "", "--allow-remote", "--port", "0"],
            "--host must be an address: 127.0.0.1 (this machine), or 0.0.0.0",
        ),
        (["--web", "--host", "", "--port", "0"], "--host must be an address"),
    ],
)
def test_play_script_refuses_bad_web_flags_in_one_line(flags, message):
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "play.py"), "tictactoe", *flags],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,  # a flag let through would serve until then
    )
    assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_dots_hints_come_from_the_exact_table_and_agree_with_alphabeta():
    import numpy as np

    from agents.search.minimax import alphabeta
    from gym_boardgames.rules import DotsAndBoxes

    game = DotsAndBoxes(2, 2)
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(20):
        state = game.initial_state()
        for _ in range(rng.integers(0, 8)):
            state = game.apply(state, int(rng.choice(game.legal_actions(state))))
        player = game.current_player(state)
        for action, label in hint_labels(game, state, player).items():
            child = game.apply(state, action)
            if game.is_terminal(child):
                value = game.returns(child)[player]
            else:
                value = alphabeta(game, child, seed=0)[0]
                value = value if game.current_player(child) == player else -value
            assert label == {1: "win", 0: "draw", -1: "loss"}[int(value)]
            checked += 1
    assert checked > 50


def test_a_network_opponent_adds_its_priors_and_value_to_the_hints(close_after):
    from agents.alphazero import load_pretrained

    env = ConnectNEnv(6, 7, 4, True, opponent=None)
    agent = load_pretrained("connectfour", n_simulations=20, seed=0)
    # A budget no busy machine reaches: this test is about the priors beside the exact labels, not the clock.
    app = PlayApp(env, agent, side=0, hints=functools.partial(hint_labels, seconds=120))
    close_after(app)
    show_hints(app)
    priors, _ = agent.evaluate(env.game, [env.state])
    assert set(app.hints) == set(range(7))
    exact = {0: "loss in 20", 1: "loss in 21", 2: "draw", 3: "win in 21", 4: "draw", 5: "loss in 21", 6: "loss in 20"}
    for action, label in app.hints.items():
        assert label == f"{exact[action]} {priors[0][action]:.0%}"  # the exact result, then the network's prior
    assert app.hint_source == "exact" and app.message.startswith("hints: exact; network: value ")


def test_past_the_solver_budget_the_hints_are_the_networks_estimate(close_after):
    import functools

    from agents.alphazero import load_pretrained

    env = ConnectNEnv(6, 7, 4, True, opponent=None)
    agent = load_pretrained("connectfour", n_simulations=20, seed=0)
    app = PlayApp(env, agent, side=0, hints=functools.partial(hint_labels, max_nodes=1))
    close_after(app)
    app.restart([3, 3])
    show_hints(app)
    priors, _ = agent.evaluate(env.game, [env.state])
    for action, label in app.hints.items():
        kind, percent = label.split()
        assert kind in ("win", "loss", "?") and percent == f"{priors[0][action]:.0%}"
    assert app.hint_source == "network estimate"
    assert app.message.startswith("hints: network estimate; network: value ")
    app.message_until = 0.0
    assert app.status() == "your move (Red) - hints: network estimate"


def test_exact_connect_four_hints_in_the_window_against_the_solver(close_after):
    env = ConnectNEnv(6, 7, 4, True, opponent=None)
    app = PlayApp(env, make_opponent("perfect", env.game, 0), side=1, hints=hint_labels)
    close_after(app)
    app.wait_for_agent()
    assert env.moves == [(0, 3)]  # the solver opens in the centre, the only winning move
    show_hints(app)
    # Every reply loses (Pons' scores -4 -2 -2 -1 -2 -2 -4); stacking the centre holds out longest, to Red's 21st stone.
    assert app.hints == {
        0: "loss in 17", 1: "loss in 19", 2: "loss in 19", 3: "loss in 20", 4: "loss in 19", 5: "loss in 19",
        6: "loss in 17",
    }  # fmt: skip
    assert app.status() == "your move (Yellow) - hints: exact"


def test_without_a_hint_provider_every_move_is_unknown(close_after):
    env = TicTacToeEnv(opponent=None)
    app = PlayApp(env, Lowest(), side=0)
    close_after(app)
    show_hints(app)
    assert app.hints == dict.fromkeys(range(9), "?")


def test_a_callable_opponent_plays_too(close_after):
    env = TicTacToeEnv(opponent=None)
    app = PlayApp(env, lambda game, state: game.legal_actions(state)[-1], side=0)
    close_after(app)
    click(app, app.view.cell_rect(0).center)
    assert env.moves == [(0, 0), (1, 8)]


def test_the_play_wing_reads_no_command_line():
    """scripts/play.py parses the command line; no module of gym_boardgames/human reads argv or argparse."""
    for path in (ROOT / "gym_boardgames" / "human").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        attributes = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
        imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert "argv" not in attributes and not imported & {"argparse", "plumbing.cli", "plumbing"}, path.name
