"""Human play, timed: the default opponents' replies, a move's round trip in the browser, the window's close.

``scripts/bench.py --play`` runs these and reports them beside the command and the load average:

- **replies**: for each game's default board, the default opponent (``agents.factory.default_opponent``) in a
  fresh process, so nothing is cached: the first reply (building the agent, reading any table or model, and
  its first move against a person's opening) and the slowest of the replies of a whole game against random
  moves.
- **browser round trip**: a click on the page (headless Chromium through Selenium) until the reply is drawn,
  less the agent's own thinking time (the page measures it: ``window.playStats``), against ``random`` on
  tic-tac-toe.
- **window close**: the play window under Xvfb, Q pressed with xdotool while the agent thinks, until the process
  has exited.

A measurement whose tools are missing (Selenium, Chromium, Xvfb, xdotool) is skipped with the reason.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_BOARDS = ("tictactoe", "connectfour", "connectn", "dotsandboxes")

# Run in a fresh interpreter: the default opponent of one game, timed from its construction.
_REPLY_PROBE = """
import json, sys, time
import numpy as np
from agents.factory import default_opponent, make_agent
from gym_boardgames.rules.registry import make_game
game = make_game(sys.argv[1])
rng = np.random.default_rng(0)
name = default_opponent(game)
state = game.apply(game.initial_state(), int(rng.choice(game.legal_actions(game.initial_state()))))
start = time.perf_counter()
agent = make_agent(name, seed=0, game=game)
state = game.apply(state, agent.act(game, state))
first = time.perf_counter() - start
later = []
while not game.is_terminal(state):
    if game.current_player(state) == 0:
        state = game.apply(state, int(rng.choice(game.legal_actions(state))))
        continue
    start = time.perf_counter()
    action = agent.act(game, state)
    later.append(time.perf_counter() - start)
    state = game.apply(state, action)
print(json.dumps({"opponent": name, "first_reply_s": first, "slowest_later_reply_s": max(later, default=0.0),
                  "later_replies": len(later)}))
"""


def reply_times() -> dict[str, Any]:
    """The default opponent's first and slowest reply on each game's default board, each in a fresh process."""
    results = {}
    for name in DEFAULT_BOARDS:
        done = subprocess.run(
            [sys.executable, "-c", _REPLY_PROBE, name], capture_output=True, text=True, check=True, cwd=ROOT
        )
        measured = json.loads(done.stdout.strip().splitlines()[-1])
        results[name] = {k: round(v, 3) if isinstance(v, float) else v for k, v in measured.items()}
    return results


def browser_round_trip(moves: int = 30) -> dict[str, Any]:
    """Median and slowest round trip (ms) of ``moves`` clicks in headless Chromium, less the agent's thinking."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        return {"skipped": "selenium is not installed (the browser extra)"}
    chromium, driver_path = "/usr/bin/chromium", "/usr/bin/chromedriver"
    if not (shutil.which(chromium) and shutil.which(driver_path)):
        return {"skipped": "no /usr/bin/chromium and /usr/bin/chromedriver (apt-get install chromium chromium-driver)"}
    import io

    import gym_boardgames

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"):  # fmt: skip
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    server = gym_boardgames.play("tictactoe", "random", ui="page", log=io.StringIO())
    try:
        driver.get(server.url)
        script = """
            const [x, y, done] = arguments;
            const board = document.getElementById("board");
            const before = window.playStats.roundTrips.length;
            board.dispatchEvent(new MouseEvent("click", {clientX: board.getBoundingClientRect().left + x,
                clientY: board.getBoundingClientRect().top + y, bubbles: true}));
            const wait = () => window.playStats.roundTrips.length > before || document.body.dataset.over === "true"
                ? done(document.body.dataset.over) : setTimeout(wait, 1);
            wait();"""
        _wait_for(lambda: len(server.games) == 1)
        (game,) = server.games.values()
        session = game.session

        def page_is_current() -> bool:
            return driver.execute_script("return document.body.dataset.version") == str(session.version)

        for _ in range(20 * moves):
            if len(driver.execute_script("return window.playStats.roundTrips")) >= moves:
                break
            _wait_for(lambda: (session.human_to_move or session.env.episode_over) and page_is_current())
            if session.env.episode_over:
                driver.find_element("id", "restart").click()
                _wait_for(lambda: session.human_to_move and not session.env.moves and page_is_current())
                continue
            x, y = session.view.cell_rect(session.game.legal_actions(session.env.state)[0]).center
            driver.execute_async_script(script, x, y)
        trips = driver.execute_script("return window.playStats.roundTrips")
    finally:
        server.close()
        driver.quit()
    return {"moves": len(trips), "median_ms": round(statistics.median(trips), 1), "max_ms": round(max(trips), 1)}


def _wait_for(condition: Any, guard_s: float = 60.0) -> None:
    deadline = time.monotonic() + guard_s
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the page stopped answering")
        time.sleep(0.005)


def window_close(repeats: int = 3) -> dict[str, Any]:
    """Seconds from pressing Q in the play window (Xvfb, Dots 3x3 against ``alphabeta`` thinking) to its exit."""
    if not (shutil.which("Xvfb") and shutil.which("xdotool")):
        return {"skipped": "needs Xvfb and xdotool (apt-get install xvfb xdotool)"}
    display = ":97"
    xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", "800x700x24"], stderr=subprocess.DEVNULL)
    env = {**os.environ, "DISPLAY": display}
    env.pop("SDL_VIDEODRIVER", None)
    seconds = []
    try:
        time.sleep(1.0)
        for _ in range(repeats):
            # alphabeta on the full 3x3 board thinks for tens of seconds: Q arrives while it does.
            play = subprocess.Popen(
                [sys.executable, "scripts/play.py", "dotsandboxes", "--opponent", "alphabeta"], cwd=ROOT, env=env
            )
            window = _find_window(play.pid, env)
            subprocess.run(["xdotool", "mousemove", "--window", window, "100", "52", "click", "1"], env=env, check=True)
            time.sleep(1.0)
            start = time.perf_counter()
            subprocess.run(["xdotool", "key", "--window", window, "q"], env=env, check=True)
            play.wait(timeout=60)
            seconds.append(time.perf_counter() - start)
    finally:
        xvfb.terminate()
    return {"repeats": repeats, "median_s": round(statistics.median(seconds), 3), "max_s": round(max(seconds), 3)}


def _find_window(pid: int, env: dict[str, str]) -> str:
    for _ in range(300):
        found = subprocess.run(["xdotool", "search", "--pid", str(pid)], env=env, capture_output=True, text=True)
        if found.stdout.strip():
            time.sleep(1.0)  # the first frames are drawn
            return found.stdout.split()[0]
        time.sleep(0.1)
    raise TimeoutError("the play window never opened")


def play_timings() -> dict[str, Any]:
    """Every measurement of this module, with the load average it ran at."""
    load_before = os.getloadavg()
    timings = {"replies": reply_times(), "browser_round_trip": browser_round_trip(), "window_close": window_close()}
    timings["load_average"] = [round(v, 2) for v in (*load_before, *os.getloadavg())]
    return timings
