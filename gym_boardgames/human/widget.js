// The notebook widget's view (gym_boardgames.human.widget): it shows the picture the kernel draws and sends the
// person's clicks and buttons back over the widget's channel. No rule of any game lives here, and no port is used.
function render({ model, el }) {
  const make = (tag, properties = {}) => Object.assign(document.createElement(tag), properties);
  const opponent = make("select"), side = make("select");
  for (const name of model.get("opponents")) opponent.append(make("option", { value: name, textContent: name }));
  for (const value of model.get("sides")) {
    side.append(make("option", { value, textContent: value === "both" ? "both sides" : value }));
  }
  side.value = model.get("side");
  const button = (text, message, title = "") => {
    const element = make("button", { textContent: text, type: "button", title });
    element.addEventListener("click", () => model.send(message()));
    return element;
  };
  const newGame = button("New game", () => ({ new: { opponent: opponent.value, side: side.value } }));
  // As on the page, a menu that changes starts a new game at once.
  for (const menu of [opponent, side]) menu.addEventListener("change", () => newGame.click());
  // The session's commands (gym_boardgames.human.session.COMMANDS), in their order.
  const commands = model.get("commands").map(({ name, help }) =>
    button(name[0].toUpperCase() + name.slice(1), () => ({ command: name }), help),
  );
  const bar = (...children) => {
    const row = make("div", { className: "gbg-bar" });
    row.style.cssText = "display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin:4px 0";
    row.append(...children);
    return row;
  };
  const status = make("div", { className: "gbg-status" });
  status.style.cssText = "font-weight:600;min-height:1.4em;margin:4px 0";
  status.setAttribute("role", "status");
  // max-width: the picture scales down to the cell's width, and a click is mapped back to its own pixels.
  const board = make("img", { className: "gbg-board", alt: "the board: click a cell, a column or an edge" });
  board.style.cssText = "display:block;max-width:100%;height:auto;cursor:pointer;user-select:none";
  board.addEventListener("click", (event) => {
    const scale = board.naturalWidth / board.clientWidth;
    model.send({ click: [Math.round(event.offsetX * scale), Math.round(event.offsetY * scale)] });
  });
  el.classList.add("gbg-play");
  el.append(bar("Opponent", opponent, "You play", side, newGame), bar(...commands), status, board);

  let url = "", thinkingSince = null;
  const showFrame = () => {
    if (url) URL.revokeObjectURL(url);
    url = URL.createObjectURL(new Blob([model.get("png")], { type: "image/png" }));
    board.src = url;
  };
  // The kernel says when the agent starts thinking; the seconds are counted here.
  const tick = () => {
    const seconds = thinkingSince === null ? "" : ` ${Math.round((performance.now() - thinkingSince) / 1000)} s`;
    status.textContent = model.get("status") + seconds;
  };
  const showStatus = () => {
    thinkingSince = model.get("thinking") ? (thinkingSince ?? performance.now()) : null;
    el.dataset.moves = model.get("moves");
    el.dataset.thinking = model.get("thinking");
    tick();
  };
  const timer = setInterval(tick, 500);
  model.on("change:png", showFrame);
  for (const name of ["status", "moves", "thinking"]) model.on(`change:${name}`, showStatus);
  if (model.get("png")?.byteLength) showFrame();
  showStatus();
  return () => {
    clearInterval(timer);
    model.off("change:png", showFrame);
    for (const name of ["status", "moves", "thinking"]) model.off(`change:${name}`, showStatus);
    if (url) URL.revokeObjectURL(url);
  };
}

export default { render };
