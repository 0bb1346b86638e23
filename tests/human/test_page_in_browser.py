"""The play page in a real browser: Debian's headless Chromium, driven by Selenium through Debian's chromedriver.

For tic-tac-toe, Connect Four and Dots and Boxes a test opens the page, clicks moves on the picture, sees the
agent's reply drawn, uses undo and the hints, and sees the result. Nothing is downloaded: without the ``browser``
extra (Selenium) or without ``/usr/bin/chromium`` and ``/usr/bin/chromedriver`` (``apt-get install chromium
chromium-driver``, which ``.ci/run`` does) the tests are skipped with that reason. Waits have no deadline but a
hang guard: how fast the browser is on a busy machine is not what they check.
"""

import base64
import io
import os
import shutil
import threading
import time
from functools import partial

import pytest

pytest.importorskip("pygame")
webdriver = pytest.importorskip("selenium.webdriver", reason="the browser extra (selenium) is not installed")

from selenium.common.exceptions import WebDriverException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from agents.hints import hint_labels  # noqa: E402
from gym_boardgames.human.doors import Table  # noqa: E402
from gym_boardgames.human.server import PlayServer  # noqa: E402
from gym_boardgames.human.session import COMMANDS, SIDES  # noqa: E402
from gym_boardgames.rules.registry import make_game  # noqa: E402

CHROMIUM = os.environ.get("GYM_BOARDGAMES_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("GYM_BOARDGAMES_CHROMEDRIVER", "/usr/bin/chromedriver")
HANG_GUARD_S = 120

pytestmark = pytest.mark.skipif(
    not (shutil.which(CHROMIUM) and shutil.which(CHROMEDRIVER)),
    reason=f"no {CHROMIUM} and {CHROMEDRIVER}: apt-get install chromium chromium-driver",
)


def chromium_options():
    """Headless Chromium that never reaches the network by itself (this machine's network is closed)."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",  # CI runs as root in a container
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=900,900",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the console, for driver.get_log("browser")
    return options


def start_chromium(profile):
    """Start headless Chromium with its profile in the folder ``profile`` (skip the test if it will not start)."""
    options = chromium_options()
    options.add_argument(f"--user-data-dir={profile}")
    try:
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    except WebDriverException as error:
        pytest.skip(f"Chromium would not start: {error.msg}")
    driver.set_page_load_timeout(HANG_GUARD_S)
    return driver


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    driver = start_chromium(tmp_path_factory.mktemp("chromium-profile"))
    yield driver
    driver.quit()


class Lowest:
    """A weak, predictable opponent: the lowest legal action."""

    def act(self, game, state):
        return game.legal_actions(state)[0]


@pytest.fixture
def serve_page():
    servers = []

    def start(game, side="first", hints=hint_labels, opponents=("lowest",), **options):
        """Serve ``game`` (a name or a rules object) against the named ``opponents``, each the lowest legal action."""
        game = make_game(game) if isinstance(game, str) else game
        table = Table(game, {name: Lowest() for name in opponents}, side, hints, 0, "Test game")
        options.setdefault("log", io.StringIO())
        server = PlayServer(table, **options).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


class Page:
    """The page in the browser, and the server's session of the game it plays."""

    def __init__(self, browser, server):
        self.browser, self.server = browser, server
        browser.get(server.url)
        self.wait(lambda: self.data("version") is not None and len(server.games) == 1)
        (self.game,) = server.games.values()
        self.session = self.game.session

    def wait(self, condition):
        WebDriverWait(self.browser, HANG_GUARD_S, poll_frequency=0.05).until(lambda _: condition())

    def data(self, name):
        return self.browser.execute_script(f"return document.body.dataset.{name} ?? null")

    def status(self):
        return self.browser.find_element("id", "status").text

    def frame_png(self):
        """The PNG the page's picture shows now."""
        source = self.browser.find_element("id", "board").get_attribute("src")
        return base64.b64decode(source.split(",", 1)[1])

    def click_board(self, pos):
        """Click the picture at ``pos``, in the picture's own pixels (the page may show it scaled)."""
        board = self.browser.find_element("id", "board")
        self.wait(lambda: self.browser.execute_script("return arguments[0].complete", board))
        scale = board.size["width"] / self.session.view.size[0]
        x = pos[0] * scale - board.size["width"] / 2  # Selenium offsets are from the element's centre
        y = pos[1] * scale - board.size["height"] / 2
        ActionChains(self.browser).move_to_element_with_offset(board, round(x), round(y)).click().perform()

    def press(self, button):
        self.browser.find_element("id", button).click()

    def wait_for_moves(self, count):
        """Until the page shows ``count`` moves and the agent is not thinking: the reply is drawn."""
        self.wait(lambda: self.data("moves") == str(count) and self.data("thinking") == "false")

    def shows_the_session(self):
        """The picture is the one the package's own view draws of the game now."""
        return self.frame_png() == self.session.png()


def test_tictactoe_clicks_reply_undo_hints_and_the_result(browser, serve_page):
    page = Page(browser, serve_page("tictactoe"))
    view = page.session.view
    opening = page.frame_png()
    page.click_board(view.cell_rect(4).center)
    page.wait_for_moves(2)  # the centre, and the agent's reply (the lowest cell, 0)
    assert page.session.env.moves == [(0, 4), (1, 0)]
    assert page.frame_png() != opening and page.shows_the_session()

    page.press("undo")
    page.wait_for_moves(0)
    assert page.frame_png() == opening

    page.click_board(view.cell_rect(4).center)
    page.wait_for_moves(2)
    page.press("hints")
    page.wait(lambda: page.session.hints and page.data("version") == str(page.session.version))
    assert page.session.hints[8] == "draw" and page.shows_the_session()  # the labels are in the picture

    page.click_board(view.cell_rect(2).center)  # the agent answers 1; then 6 completes 2-4-6
    page.wait_for_moves(4)
    page.click_board(view.cell_rect(6).center)
    page.wait(lambda: page.data("over") == "true")
    assert page.status().startswith("You win!")  # hints on: the result shows all the same
    assert page.shows_the_session()


def test_connect_four_column_click_drops_a_disc_and_the_agent_replies(browser, serve_page):
    page = Page(browser, serve_page("connectfour"))
    view, game = page.session.view, page.session.game
    page.click_board(view.cell_rect(3).center)  # the top cell of column 3: the disc drops to the bottom
    page.wait_for_moves(2)
    assert page.session.env.moves == [(0, 3), (1, 0)]
    assert page.session.env.state.board[5 * 7 + 3] == 1 and page.shows_the_session()
    page.press("hints")
    page.wait(lambda: page.session.hints and page.data("version") == str(page.session.version))
    # Exact labels from the solver, drawn on the board, and the page says they are exact.
    assert page.session.hints[3] == "win in 17" and page.shows_the_session()
    page.wait(lambda: page.data("hintSource") == "exact")
    assert page.browser.find_element("id", "hint-source").text == "hints: exact"
    page.press("undo")
    page.wait_for_moves(0)
    for round_ in range(1, 4):  # column 3 three times; the agent keeps filling column 0
        page.click_board(view.cell_rect(3).center)
        page.wait_for_moves(2 * round_)
    page.click_board(view.cell_rect(3).center)
    page.wait(lambda: page.data("over") == "true")
    assert game.is_terminal(page.session.env.state) and page.status().startswith("You win!")


def test_connect_four_hints_past_the_solver_budget_are_named_an_estimate(browser, serve_page):
    page = Page(browser, serve_page("connectfour", hints=partial(hint_labels, max_nodes=1)))
    page.press("hints")
    page.wait(lambda: page.data("hintSource") == "search estimate")
    assert page.browser.find_element("id", "hint-source").text == "hints: search estimate"
    assert set(page.session.hints.values()) == {"?"} and page.shows_the_session()
    page.press("hints")
    page.wait(lambda: page.data("hintSource") == "")
    assert page.browser.find_element("id", "hint-source").text == ""


def test_dots_edges_extra_turns_undo_hints_and_the_result(browser, serve_page):
    page = Page(browser, serve_page(make_game("dotsandboxes", rows=1, cols=2)))
    session = page.session

    def edge_centre(edge):
        (x0, y0), (x1, y1) = session.view.edge_segment(edge)
        return ((x0 + x1) / 2, (y0 + y1) / 2)

    # 1x2 boxes, 7 edges: 0, 1 top; 2, 3 bottom; 4, 5, 6 the verticals.
    page.click_board(edge_centre(4))
    page.wait_for_moves(2)
    assert session.env.moves == [(0, 4), (1, 0)] and page.shows_the_session()
    page.press("undo")
    page.wait_for_moves(0)
    page.press("hints")
    page.wait(lambda: session.hints and page.data("version") == str(session.version))
    assert set(session.hints) == set(range(7)) and page.shows_the_session()
    while not session.env.episode_over:
        free = session.game.legal_actions(session.env.state)[-1]
        moves = len(session.env.moves)
        page.click_board(edge_centre(free))
        page.wait(lambda m=moves: len(session.env.moves) > m and (session.human_to_move or session.env.episode_over))
        page.wait(lambda: page.data("moves") == str(len(session.env.moves)) and page.data("thinking") == "false")
    page.wait(lambda: page.data("over") == "true")
    assert page.status().split(" - ")[0] in ("You win!", "You lose", "Draw")
    assert page.shows_the_session()


def test_the_round_trip_is_measured_by_the_page_less_the_agents_thinking(browser):
    think_s = 0.5  # the agent's known thinking time: the page must subtract it, in milliseconds

    class Thinking(Lowest):
        def act(self, game, state):
            time.sleep(think_s)  # the time being measured, not a wait for something
            return super().act(game, state)

    table = Table(make_game("tictactoe"), {"thinking": Thinking()}, "first", None, 0, "Tic-tac-toe")
    server = PlayServer(table, log=io.StringIO()).start()
    try:
        page = Page(browser, server)
        # The test's own clock, in the page: from the click (captured before the page's handler sees it) to the
        # round trip being recorded. Selenium's own latency (about as long as the thinking) stays outside it.
        browser.execute_script("""
            document.addEventListener("click", () => { window.clickedAt = performance.now(); }, true);
            const trips = window.playStats.roundTrips, push = trips.push.bind(trips);
            trips.push = (trip) => { window.recordedAt = performance.now(); return push(trip); };
        """)
        page.click_board(page.session.view.cell_rect(4).center)
        page.wait(lambda: browser.execute_script("return window.playStats.roundTrips.length") == 1)
        (round_trip,) = browser.execute_script("return window.playStats.roundTrips")
        elapsed_ms = browser.execute_script("return window.recordedAt - window.clickedAt")
    finally:
        server.close()
    assert page.session.last_think_seconds >= think_s
    # A reply over HTTP, drawn in a frame, takes over a millisecond (a round trip in seconds would not); and it
    # is what is left of the click-to-drawn time once the reply's thinking is taken off.
    assert 1 <= round_trip <= elapsed_ms - 1000 * think_s, (round_trip, elapsed_ms)


def test_the_page_counts_the_agents_thinking_seconds_itself(browser):
    gate = threading.Event()

    class Slow(Lowest):
        def act(self, game, state):
            assert gate.wait(HANG_GUARD_S)
            return super().act(game, state)

    table = Table(make_game("tictactoe"), {"slow": Slow()}, "second", None, 0, "Tic-tac-toe")
    server = PlayServer(table, log=io.StringIO()).start()
    try:
        page = Page(browser, server)
        page.wait(lambda: page.status() == "the agent is thinking... 1 s")
        version = page.data("version")
        page.wait(lambda: page.status() == "the agent is thinking... 2 s")
        assert page.data("version") == version == str(page.session.version)  # no change: the page counted
    finally:
        gate.set()
        server.close()


def test_a_page_without_the_token_shows_nothing(browser, serve_page):
    server = serve_page("tictactoe")
    browser.get(server.url.split("?")[0])
    assert "missing or wrong token" in browser.page_source and not server.games


# ---- a reload, New game, a restarted or stopped server ----------------------------------------


def console_errors(browser):
    """The console's errors since the last call (a failed request is one: "... status of 404 ...")."""
    return [entry["message"] for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]


def test_a_reload_mid_game_shows_the_same_game(browser, serve_page):
    server = serve_page("tictactoe")
    page = Page(browser, server)
    page.click_board(page.session.view.cell_rect(4).center)
    page.wait_for_moves(2)
    board, version = page.frame_png(), page.data("version")
    browser.refresh()
    page.wait(lambda: page.data("version") == version)  # the new page shows the game, as it was
    assert page.frame_png() == board and page.data("moves") == "2" and page.shows_the_session()
    assert list(server.games.values()) == [page.game] and page.session.env.moves == [(0, 4), (1, 0)]
    page.click_board(page.session.view.cell_rect(8).center)  # and plays on
    page.wait_for_moves(4)


def test_a_server_restarted_with_the_same_token_serves_the_old_tab(browser):
    table = Table(make_game("tictactoe"), {"lowest": Lowest()}, "first", None, 0, "Tic-tac-toe")
    token = "my-token-kept-across-restarts-of-the-server-0123"
    server = PlayServer(table, token=token, log=io.StringIO()).start()
    port = server.port
    try:
        page = Page(browser, server)
        page.click_board(page.session.view.cell_rect(4).center)
        page.wait_for_moves(2)
        server.close()
        server = PlayServer(table, port=port, token=token, log=io.StringIO()).start()
        # The tab's game died with the server: the tab starts a new one on the new server and says so, once.
        page.wait(lambda: len(server.games) == 1 and page.data("moves") == "0")
        notice = browser.find_element("id", "notice").text
        assert notice == "this tab's game is gone (freed, or the server restarted): here is a new one"
        assert browser.find_element("id", "error").text == ""
        page.click_board(page.session.view.cell_rect(4).center)  # the person plays the new game: the line goes
        page.wait_for_moves(2)
        assert browser.find_element("id", "notice").text == ""  # it stayed for the whole game
        browser.refresh()  # the same address, token and all, still opens the page, and its new game
        page.wait(lambda: page.data("version") is not None)
        assert browser.find_element("id", "notice").text == "" and len(server.games) == 1
    finally:
        server.close()


def test_the_menus_apply_at_once_and_follow_swap(browser, serve_page):
    server = serve_page("tictactoe", opponents=("lowest", "other"))
    page = Page(browser, server)
    side = lambda: browser.execute_script("return document.getElementById('side').value")  # noqa: E731
    opponent = lambda: browser.execute_script("return document.getElementById('opponent').value")  # noqa: E731
    assert side() == "first" and opponent() == "lowest"
    page.press("swap")
    page.wait(lambda: side() == "second")  # the agent opens now, and the menu says so
    page.wait_for_moves(1)
    page.press("new")  # New game keeps the swap
    page.wait(lambda: len(server.games) == 1 and page.game.id not in server.games)
    ((game,),) = [server.games.values()]
    assert game.session.side == 1 and side() == "second"
    Select(browser.find_element("id", "opponent")).select_by_value("other")  # a new game against it, at once
    page.wait(lambda: len(server.games) == 1 and game.id not in server.games)
    ((game,),) = [server.games.values()]
    assert game.opponent == "other" and game.session.side == 1
    Select(browser.find_element("id", "side")).select_by_value("both")
    page.wait(lambda: len(server.games) == 1 and game.id not in server.games)
    ((game,),) = [server.games.values()]
    assert game.session.both_sides


def test_the_side_menu_and_the_command_buttons_and_keys_come_from_the_sessions_lists(browser, serve_page):
    page = Page(browser, serve_page("tictactoe", side="second"))
    script = "return [...document.getElementById('side').options].map((o) => [o.value, o.textContent])"
    assert browser.execute_script(script) == [[side, "both sides" if side == "both" else side] for side in SIDES]
    assert browser.execute_script("return document.getElementById('side').value") == "second"
    buttons = browser.find_elements("css selector", "#commands button")
    assert [button.get_attribute("id") for button in buttons] == [command.name for command in COMMANDS]
    assert [button.find_element("tag name", "kbd").text for button in buttons] == ["H", "U", "R", "S"]
    assert [button.get_attribute("title") for button in buttons] == [command.help for command in COMMANDS]
    assert [button.text for button in buttons] == ["Hints H", "Undo U", "Restart R", "Swap S"]
    children = "return [...document.getElementById('commands').children].map((child) => child.id)"
    assert browser.execute_script(children) == ["hints", "hint-source", "undo", "restart", "swap"]
    page.wait_for_moves(1)  # the agent opened: the person plays second
    ActionChains(browser).send_keys("s").perform()  # each command's key runs it: S swaps
    page.wait(lambda: page.session.side == 0 and page.data("moves") == "0")
    page.click_board(page.session.view.cell_rect(4).center)
    page.wait_for_moves(2)
    ActionChains(browser).send_keys("u").perform()
    page.wait_for_moves(0)
    assert page.session.env.moves == [] and page.shows_the_session()


def test_new_game_leaves_the_old_games_poll_without_a_404(browser, serve_page):
    server = serve_page("tictactoe")
    page = Page(browser, server)
    page.wait(lambda: page.session._changed._waiters)  # the page's long poll is waiting on the server
    console_errors(browser)  # what came before this page is not this test's
    page.press("new")
    page.wait(lambda: len(server.games) == 1 and page.game.id not in server.games)  # the old game is freed
    ((game,),) = [server.games.values()]
    page.wait(lambda: game.session._changed._waiters)  # the new game's poll waits: the old one is done
    game.session.say("a change the page draws")  # a round trip after the old poll's end
    page.wait(lambda: page.data("version") == str(game.session.version))
    assert console_errors(browser) == []


def test_the_page_says_once_that_the_server_stopped_and_stops_asking(browser, serve_page):
    server = serve_page("tictactoe")
    page = Page(browser, server)
    browser.execute_script("""
        window.fetches = 0;
        const fetch = window.fetch;
        window.fetch = (...args) => { window.fetches += 1; return fetch(...args); };
    """)
    server.close()
    error = lambda: browser.find_element("id", "error").text  # noqa: E731
    page.wait(lambda: error().startswith("the server has stopped"))
    fetches = browser.execute_script("return window.fetches")
    assert 1 <= fetches <= 5 and error() == (
        "the server has stopped: start it again (the same --token keeps this page) and reload"
    )
    time.sleep(3)  # long enough for a retry of the old page (it tried every second): none comes now
    assert browser.execute_script("return window.fetches") == fetches


def test_menus_changed_faster_than_the_server_answers_leave_one_game_the_last_asked_for(browser, serve_page):
    server = serve_page("tictactoe", opponents=("lowest", "other"))
    page = Page(browser, server)
    browser.execute_script("""
        const menu = document.getElementById("opponent");
        for (const name of ["other", "lowest", "other"]) { menu.value = name; menu.dispatchEvent(new Event("change")); }
    """)
    # The page's first game alone satisfies the count until the new games' requests arrive: wait for a new one.
    page.wait(
        lambda: len(server.games) == 1 and page.data("game") in server.games and page.data("game") != page.game.id
    )
    (game,) = server.games.values()
    assert game.opponent == "other" and page.game.id != game.id
