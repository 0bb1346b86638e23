"""The play window drawn headless: the status line fits, hint labels read, slow hints say they are solving."""

import threading

import numpy as np
import pytest

pygame = pytest.importorskip("pygame")

from agents.hints import EXACT, HintLabels  # noqa: E402
from gym_boardgames.envs import ConnectNEnv, DotsAndBoxesEnv, TicTacToeEnv  # noqa: E402
from gym_boardgames.human.window import PlayApp  # noqa: E402
from gym_boardgames.render.primitives import STATUS_BAR, STATUS_HEIGHT, draw_status_bar  # noqa: E402

#: Without a hint provider a network's hints are its estimate (its priors over unknown labels).
NETWORK_MESSAGE_START = "hints: network estimate; network: value "


class Network:
    """A network-like opponent: plays the lowest legal move and evaluates with fixed priors, as AlphaZero's agent."""

    def act(self, game, state):
        return game.legal_actions(state)[0]

    def evaluate(self, game, states):
        n = game.num_actions
        priors = np.array([[(a + 1) / (n * (n + 1) / 2) for a in range(n)]])  # distinct, summing to 1
        return priors, np.array([0.1])


class Lowest:
    def act(self, game, state):
        return game.legal_actions(state)[0]


@pytest.fixture
def apps():
    opened = []
    yield opened
    for app in opened:
        app.close()


#: Only a hang guard: a worker still running after this long is stuck, however busy the machine.
HANG_GUARD_S = 600


def press(app, name):
    """Press a key and run one frame; remember the worker threads the key started (hints, agent moves)."""
    before = set(threading.enumerate())
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=getattr(pygame, f"K_{name}")))
    app.frame()
    # The session's workers only: the hints' timer (agents.hints' time limit) ends with them and is not waited on.
    app.test_workers = {t for t in set(threading.enumerate()) - before if t.name == "play session worker"}


def join_workers(app):
    """Wait for the workers the last key press started, with no deadline but the hang guard, then run a frame."""
    for worker in getattr(app, "test_workers", ()):
        worker.join(timeout=HANG_GUARD_S)
        assert not worker.is_alive(), f"a worker still runs after {HANG_GUARD_S} s: it hangs"
    app.frame()


def wait_for_hints(app):
    """Let the hint worker finish, however long a busy machine makes it take, and collect its labels."""
    join_workers(app)
    assert app.hints, "the hints never arrived"


def label_centre(app, action):
    """Where the window centres ``action``'s hint: its edge's middle, the cell its disc lands in, or its cell."""
    if hasattr(app.view, "edge_segment"):
        (x0, y0), (x1, y1) = app.view.edge_segment(action)
        return ((x0 + x1) // 2, (y0 + y1) // 2)
    if app.game.gravity:
        return app.view.cell_rect(app.game.action_cell(app.env.state, action)).center
    return app.view.cell_rect(action).center


def pixels(surface):
    return pygame.surfarray.array3d(surface).transpose(1, 0, 2)  # (y, x, rgb)


def luminance(rgb):
    """WCAG relative luminance of sRGB colours, shape (..., 3)."""
    c = np.asarray(rgb, dtype=float) / 255
    c = np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return c @ np.array([0.2126, 0.7152, 0.0722])


def contrast(region):
    """WCAG contrast ratio between the lightest and the darkest pixel of a region: text against its backdrop."""
    lum = luminance(region.reshape(-1, 3))
    return (lum.max() + 0.05) / (lum.min() + 0.05)


def assert_bar_ends_are_clear(image, bar_top, bar_bottom, width, margin=4):
    """No text touches either end of the bar: it was not cut off."""
    bar = image[bar_top + 1 : bar_bottom - 1]
    for ends in (bar[:, :margin], bar[:, width - margin :]):
        assert (ends == STATUS_BAR).all(), "the status text runs off the window"


# ---- the status line ------------------------------------------------------------------------------


def test_the_network_message_fits_the_tictactoe_status_line(apps):
    app = PlayApp(TicTacToeEnv(opponent=None), Network(), side=0)
    apps.append(app)
    press(app, "h")
    wait_for_hints(app)
    app.say(app.message, seconds=600)  # keep the network's message on screen however slow this machine is
    assert app.status().startswith(NETWORK_MESSAGE_START)
    app.draw()
    width, height = app.view.size
    assert_bar_ends_are_clear(pixels(app.window), height - STATUS_HEIGHT, height, width)


@pytest.mark.parametrize(
    "text",
    [
        "hints: network estimate; network: value +0.10 for you, % = its prior for each move",
        "your move (Blue) - you 12, agent 11 - solving the hints...",
        "an_unbroken_line_of_text_far_too_long_for_any_status_bar_of_a_small_board_" * 3,
    ],
)
@pytest.mark.parametrize("over", [False, True])
def test_a_long_status_stays_inside_a_narrow_bar(text, over):
    surface = pygame.Surface((240, 120))
    draw_status_bar(surface, text, over)
    image = pixels(surface)
    bar = image[120 - STATUS_HEIGHT + 1 : 119]
    background = bar[0, 0].copy()
    assert (bar[:, :4] == background).all() and (bar[:, -4:] == background).all()
    assert (bar != background).any(axis=2).sum() > 100  # and the text is drawn


# ---- hint labels ----------------------------------------------------------------------------------


def test_connect_four_prior_labels_read_even_under_the_ghost_disc(apps):
    env = ConnectNEnv(opponent=None)
    app = PlayApp(env, Network(), side=0)
    apps.append(app)
    press(app, "h")
    wait_for_hints(app)
    hovered = 3
    app.mouse = label_centre(app, hovered)  # the ghost disc of the human's next move is drawn in that cell
    assert app.action_at(app.mouse)[0] == hovered
    app.draw()
    image = pixels(app.window)
    assert set(app.hints) == set(range(7)) and all("%" in label for label in app.hints.values())
    for action in app.hints:
        x, y = label_centre(app, action)
        region = image[y - 5 : y + 6, x - 12 : x + 13]
        # WCAG asks 4.5 for text; the old light grey on cream was 2.9, on the ghost disc about 1.3.
        assert contrast(region) >= 4.5, f"the label of column {action} is hard to read"


@pytest.mark.parametrize("env", [TicTacToeEnv(opponent=None), DotsAndBoxesEnv(2, 2, opponent=None)])
def test_every_hint_label_reads_against_its_backdrop(env, apps):
    app = PlayApp(env, Lowest(), side=0, hints=lambda game, state, player: dict.fromkeys(
        game.legal_actions(state), "draw"))  # fmt: skip
    apps.append(app)
    press(app, "h")
    wait_for_hints(app)
    app.mouse = (-100, -100)
    app.draw()
    image = pixels(app.window)
    for action in app.hints:
        x, y = label_centre(app, action)
        assert contrast(image[y - 4 : y + 5, x - 10 : x + 11]) >= 4.5


def test_exact_connect_four_labels_read_and_the_status_bar_names_them_exact(apps):
    labels = ["loss in 20", "loss in 21", "draw", "win in 21", "draw", "loss in 21", "loss in 20"]
    app = PlayApp(ConnectNEnv(opponent=None), Lowest(), side=0,
                  hints=lambda game, state, player: HintLabels(dict(enumerate(labels)), EXACT))  # fmt: skip
    apps.append(app)
    press(app, "h")
    wait_for_hints(app)
    app.mouse = (-100, -100)
    app.draw()
    image = pixels(app.window)
    for action in app.hints:
        x, y = label_centre(app, action)
        assert contrast(image[y - 4 : y + 5, x - 10 : x + 11]) >= 4.5, f"the label of column {action} is hard to read"
    assert app.status() == "your move (Red) - hints: exact"
    # The window's status bar is that line, as the status bar draws it.
    width, height = app.view.size
    expected = pygame.Surface((width, height))
    draw_status_bar(expected, app.status(), over=False)
    bar = slice(height - STATUS_HEIGHT, height)
    assert (image[bar] == pixels(expected)[bar]).all()


def test_a_network_prior_goes_on_its_own_line_below_the_exact_result(apps, monkeypatch):
    from gym_boardgames.render import primitives

    drawn = []

    def recording(text, *args, **kwargs):
        drawn.append(text)
        return fitted_text(text, *args, **kwargs)

    fitted_text = primitives.fitted_text
    monkeypatch.setattr(primitives, "fitted_text", recording)
    exact = HintLabels(dict.fromkeys(range(7), "loss in 20"), EXACT)
    app = PlayApp(ConnectNEnv(opponent=None), Network(), side=0, hints=lambda game, state, player: exact)
    apps.append(app)
    press(app, "h")
    wait_for_hints(app)
    drawn.clear()
    app.draw()
    assert app.hints[6] == "loss in 20 25%"  # the label keeps one line; the drawing breaks it before the prior
    assert "loss in 20\n25%" in drawn and "loss in 20\n4%" in drawn
    # Two lines split at the newline ("loss in" over "20 4%" without it); on one line it is a space.
    assert primitives._split_in_two("loss in 20\n4%") == ["loss in 20", "4%"]
    assert primitives._split_in_two("loss in 20 4%") == ["loss in", "20 4%"]
    two = fitted_text("loss in 20\n4%", (75, 50), (0, 0, 0), 25, bold=True)
    assert two.get_height() > fitted_text("loss in 20", (75, 50), (0, 0, 0), 25, bold=True).get_height()
    one, spaced = fitted_text("a\nb", (500, 50), (0, 0, 0), 25), fitted_text("a b", (500, 50), (0, 0, 0), 25)
    assert one.get_size() == spaced.get_size() and (pixels(one) == pixels(spaced)).all()


# ---- hints that take a while ----------------------------------------------------------------------


def test_the_status_says_solving_until_the_hints_arrive(apps):
    release = threading.Event()

    def slow_hints(game, state, player):
        release.wait(120)  # as the 3x3 Dots table, solved on first use, takes seconds
        return dict.fromkeys(game.legal_actions(state), "win")

    app = PlayApp(DotsAndBoxesEnv(2, 2, opponent=None), Lowest(), side=0, hints=slow_hints)
    apps.append(app)
    press(app, "h")
    app.frame()
    assert app.status() == "your move (Blue) - you 0, agent 0 - solving the hints..."
    release.set()
    wait_for_hints(app)
    assert "solving" not in app.status()


def test_hints_that_fail_say_so_instead_of_solving_forever(apps):
    def broken_hints(game, state, player):
        raise RuntimeError("no table")

    app = PlayApp(TicTacToeEnv(opponent=None), Lowest(), side=0, hints=broken_hints)
    apps.append(app)
    press(app, "h")
    join_workers(app)
    assert app.status() == "the hints failed: RuntimeError('no table')"


def test_turning_hints_off_while_solving_drops_the_solving_status(apps):
    release = threading.Event()
    app = PlayApp(TicTacToeEnv(opponent=None), Lowest(), side=0,
                  hints=lambda game, state, player: release.wait(120) and {})  # fmt: skip
    apps.append(app)
    press(app, "h")
    assert "solving" in app.status()
    press(app, "h")
    app.message_until = 0.0
    assert app.status() == "your move (X)"
    release.set()
