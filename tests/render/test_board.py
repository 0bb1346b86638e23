"""What a board frame marks: the status line and the last move in ansi text, and views that never read an env."""

import gymnasium as gym

import gym_boardgames  # noqa: F401  (registers the ids)


def test_ansi_shows_pieces_last_move_and_status():
    env = gym.make("TicTacToe-v0", opponent=None, render_mode="ansi")
    env.reset(seed=0)
    assert env.render().splitlines()[-1] == "X to move"
    env.step(4)
    env.step(0)
    text = env.render()
    # The column letters and row numbers name the cells a person types in the terminal game (b2 is the centre).
    assert text.splitlines() == [
        "   a   b   c",
        "1 [O]| . | . ",
        "  ---+---+---",
        "2  . | X | . ",
        "  ---+---+---",
        "3  . | . | . ",
        "X to move",
    ]


def test_ansi_shows_the_result_of_an_illegal_move():
    env = gym.make("TicTacToe-v0", opponent=None, render_mode="ansi")
    env.reset(seed=0)
    env.step(4)
    env.step(4)
    assert env.render().splitlines()[-1] == "O made an illegal move: X wins"


def test_views_and_text_never_import_the_envs():
    import ast
    from pathlib import Path

    import gym_boardgames.render as render

    for path in Path(render.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            assert not any(name.startswith("gym_boardgames.envs") for name in names), path


def test_a_finished_dots_game_gives_the_winners_score_first():
    from gym_boardgames.render.board import status_line
    from gym_boardgames.rules import DotsAndBoxes

    game = DotsAndBoxes(1, 2)
    state = game.initial_state()
    for edge in (0, 2, 4, 1, 3, 5, 6):  # the second player closes both boxes
        state = game.apply(state, edge)
    assert game.scores(state) == (0, 2)
    assert status_line(game, state, ("Blue", "Red"), winner=1) == "Red wins (2-0)"
