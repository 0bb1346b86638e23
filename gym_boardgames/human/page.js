// The play page: it shows the picture the server draws and sends the person's clicks back.
// No rule of any game lives here; the server decides what a click means.
"use strict";
(() => {
  const config = JSON.parse(document.getElementById("config").textContent);
  const token = new URLSearchParams(location.search).get("token") || "";
  const $ = (id) => document.getElementById(id);
  const board = $("board"), statusLine = $("status"), errorLine = $("error"), noticeLine = $("notice");
  // Round trips of a click to the agent's reply drawn, less the agent's thinking (ms): scripts/bench.py reads them.
  const stats = { roundTrips: [] };
  window.playStats = stats;
  // The tab's game outlives a reload: sessionStorage is the tab's own, and the server keeps a game its page left
  // for a grace period (LEAVE_GRACE_SECONDS), so the reloaded page shows the same game.
  const STORED = "gym-boardgames-game";
  // Polls that fail in a row (the server gone) before the page says the server has stopped and stops asking;
  // it waits 1, 2, 4, 8 s between them, so a server restarted meanwhile is found again.
  const MAX_FAILURES = 5;
  const STOPPED = "the server has stopped: start it again (the same --token keeps this page) and reload";
  const GONE = "this tab's game is gone (freed, or the server restarted): here is a new one";
  const stored = (id) => {  // storage may be refused (a sandboxed frame): the page then plays without it
    try {
      return id === undefined ? sessionStorage.getItem(STORED) : sessionStorage.setItem(STORED, id);
    } catch {
      return null;
    }
  };
  let game = null, version = -1, poller = 0, aborter = null, starts = 0, pendingClick = null, agentMoves = 0;
  // The server says once how long the agent has thought so far; the page counts on from there by itself.
  let status = "", thinkingSince = null;

  const option = (value, text) => Object.assign(document.createElement("option"), { value, textContent: text });
  for (const name of config.opponents) $("opponent").appendChild(option(name, name));
  for (const side of config.sides) $("side").appendChild(option(side, side === "both" ? "both sides" : side));
  $("side").value = config.side;
  // The session's commands (gym_boardgames.human.session.COMMANDS), each a button with its key; the hints'
  // source stands after the Hints button.
  for (const command of config.commands) {
    const button = Object.assign(document.createElement("button"), { id: command.name, title: command.help });
    const key = Object.assign(document.createElement("kbd"), { textContent: command.key.toUpperCase() });
    button.append(`${command.name[0].toUpperCase()}${command.name.slice(1)} `, key);
    button.addEventListener("click", () => send({ command: command.name }));
    $("commands").insertBefore(button, command.name === "hints" ? $("hint-source") : null);
  }

  async function api(method, path, body, signal) {
    const response = await fetch(path, {
      method,
      signal,
      headers: { "X-Play-Token": token, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const data = response.status === 204 ? {} : await response.json().catch(() => ({}));
    if (!response.ok) {
      const error = new Error(data.error || `${response.status} ${response.statusText}`);
      throw Object.assign(error, { status: response.status });  // the poll tells a gone game (404) from the rest
    }
    return data;
  }

  function tick() {
    const seconds = thinkingSince === null ? "" : ` ${Math.round((performance.now() - thinkingSince) / 1000)} s`;
    statusLine.textContent = status + seconds;
  }
  setInterval(tick, 250);

  function show(state) {
    if (state.id !== game || state.version < version) return;
    agentMoves = state.agent_moves;
    const fresh = state.version > version || status !== state.status;
    version = state.version;
    status = state.status;
    thinkingSince = status === config.thinking ? performance.now() - 1000 * state.thinking_seconds : null;
    tick();
    // The menus say what the game shown is played with (after Swap, or after a reload).
    $("side").value = state.side;
    $("opponent").value = state.opponent;
    document.body.dataset.game = state.id;
    document.body.dataset.version = state.version;
    document.body.dataset.over = state.over;
    document.body.dataset.thinking = state.thinking;
    document.body.dataset.moves = state.moves;
    $("hints").setAttribute("aria-pressed", state.hints);
    // How the labels on the board were found: "exact" (solved) or an estimate ("network estimate", ...).
    $("hint-source").textContent = state.hint_source ? `hints: ${state.hint_source}` : "";
    $("hint-source").dataset.source = document.body.dataset.hintSource = state.hint_source;
    if (!fresh) return;
    board.src = state.frame;
    if (pendingClick && state.agent_moves > pendingClick.agentMoves) {
      const click = pendingClick;
      pendingClick = null;
      board.decode().then(() => requestAnimationFrame(() => {
        stats.roundTrips.push(performance.now() - click.at - 1000 * state.reply_seconds);
        document.body.dataset.drawnMoves = state.moves;
      }));
    }
  }

  // Show the game of ``state`` and follow it by long polls until the page leaves it.
  function attach(state) {
    game = state.id;
    version = -1;
    stored(game);
    aborter = new AbortController();
    show(state);
    poll(poller, aborter.signal);
  }

  // Stop following the game: its long poll is aborted, so it cannot come back with a 404 once the game is freed.
  function leave() {
    poller += 1;
    if (aborter) aborter.abort();
    aborter = null;
    game = null;
  }

  async function poll(mine, signal) {
    let failures = 0;
    while (mine === poller) {
      try {
        show(await api("GET", `/api/games/${game}?since=${version}&wait=5`, undefined, signal));
        errorLine.textContent = "";
        failures = 0;
      } catch (error) {
        if (mine !== poller) return;
        if (error.status === 404) return newGame(GONE, false);  // freed, or a server restarted with the token
        failures += 1;
        if (error.status === 403 || failures >= MAX_FAILURES) {  // 403: a server restarted with another token
          leave();
          errorLine.textContent = error.status === 403 ? `${error.message} (the server restarted?)` : STOPPED;
          return;
        }
        errorLine.textContent = `connection: ${error.message}; trying again`;
        await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** failures));
      }
    }
  }

  async function newGame(notice = "", freePrevious = true) {
    const previous = game, mine = ++starts;
    leave();
    noticeLine.textContent = notice;
    try {
      const state = await api("POST", "/api/games", { opponent: $("opponent").value, side: $("side").value });
      if (mine === starts) {
        attach(state);
        errorLine.textContent = "";
      } else {  // the menus changed again meanwhile (arrow keys on a menu): only the last game asked for is kept
        api("DELETE", `/api/games/${state.id}`).catch(() => {});
      }
    } catch (error) {
      if (mine === starts) errorLine.textContent = error.message;
    }
    if (previous && freePrevious) api("DELETE", `/api/games/${previous}`).catch(() => {});
  }

  // After a reload: the tab's game if the server still has it, else a new one (and a line saying so).
  async function resume() {
    const id = stored();
    if (!id) return newGame();
    try {
      attach(await api("GET", `/api/games/${id}`));
    } catch (error) {
      newGame(GONE);
    }
  }

  async function send(body) {
    if (!game) return;
    noticeLine.textContent = "";  // the person plays the new game: the line about the one that was gone has been read
    try {
      show(await api("POST", `/api/games/${game}`, body));
      errorLine.textContent = "";
    } catch (error) {
      errorLine.textContent = error.message;
    }
  }

  board.addEventListener("click", (event) => {
    const scale = board.naturalWidth / board.clientWidth;
    pendingClick = { at: performance.now(), agentMoves };
    send({ click: [Math.round(event.offsetX * scale), Math.round(event.offsetY * scale)] });
  });

  // The menus apply at once: a new game against the opponent picked, on the side picked.
  $("new").addEventListener("click", () => newGame());
  $("opponent").addEventListener("change", () => newGame());
  $("side").addEventListener("change", () => newGame());
  document.addEventListener("keydown", (event) => {
    if (event.target.tagName === "SELECT" || event.ctrlKey || event.metaKey || event.altKey) return;
    const command = config.commands.find((known) => known.key === event.key.toLowerCase());
    if (command) send({ command: command.name });
  });
  // The tab may be closing, or reloading: the server frees the game unless this tab asks for it again soon.
  window.addEventListener("pagehide", () => {
    if (game) navigator.sendBeacon(`/api/games/${game}?token=${encodeURIComponent(token)}`, '{"leaving": true}');
  });
  resume();
})();
