// The play page: it shows the picture the server draws and sends the person's clicks back.
// No rule of any game lives here; the server decides what a click means.
"use strict";
(() => {
  const config = JSON.parse(document.getElementById("config").textContent);
  const token = new URLSearchParams(location.search).get("token") || "";
  const $ = (id) => document.getElementById(id);
  const board = $("board"), statusLine = $("status"), errorLine = $("error");
  // Round trips of a click to the agent's reply drawn, less the agent's thinking (ms): scripts/bench.py reads them.
  const stats = { roundTrips: [] };
  window.playStats = stats;
  let game = null, version = -1, poller = 0, pendingClick = null, agentMoves = 0;
  // The server says once how long the agent has thought so far; the page counts on from there by itself.
  let status = "", thinkingSince = null;

  for (const name of config.opponents) {
    const option = document.createElement("option");
    option.value = option.textContent = name;
    $("opponent").appendChild(option);
  }

  $("side").value = String(config.human);

  async function api(method, path, body) {
    const response = await fetch(path, {
      method,
      headers: { "X-Play-Token": token, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const data = response.status === 204 ? {} : await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(data.error || `${response.status} ${response.statusText}`);
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

  async function poll(mine) {
    while (mine === poller) {
      try {
        show(await api("GET", `/api/games/${game}?since=${version}&wait=5`));
        errorLine.textContent = "";
      } catch (error) {
        if (mine !== poller) return;
        errorLine.textContent = `connection: ${error.message}`;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  async function newGame() {
    const side = $("side").value;
    const opponent = side === "both" ? null : $("opponent").value;
    const previous = game;
    poller += 1;
    try {
      const state = await api("POST", "/api/games", { opponent, human: side === "1" ? 1 : 0 });
      game = state.id;
      version = -1;
      errorLine.textContent = "";
      show(state);
      poll(poller);
    } catch (error) {
      errorLine.textContent = error.message;
    }
    if (previous) api("DELETE", `/api/games/${previous}`).catch(() => {});
  }

  async function send(body) {
    if (!game) return;
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

  for (const command of ["hints", "undo", "restart", "swap"]) {
    $(command).addEventListener("click", () => send({ command }));
  }
  $("new").addEventListener("click", newGame);
  document.addEventListener("keydown", (event) => {
    if (event.target.tagName === "SELECT" || event.ctrlKey || event.metaKey || event.altKey) return;
    const command = { h: "hints", u: "undo", r: "restart", s: "swap" }[event.key.toLowerCase()];
    if (command) send({ command });
  });
  window.addEventListener("pagehide", () => {
    if (game) fetch(`/api/games/${game}?token=${encodeURIComponent(token)}`, { method: "DELETE", keepalive: true });
  });
  newGame();
})();
