// fairyboard companion page: draws the board from the layout (mm outlines of every spot),
// shows the game and the live LEDs, and drives the simulated board.  Plain JavaScript, no
// build step, no external resources.
"use strict";
// every text a person reads goes through t("…") (static/i18n.js: the page's language);
// N_("…") marks a text looked up later
const N_ = (text) => text;

const $ = (id) => document.getElementById(id);

const PHASE_TEXT = {
  setup: N_("Set up the board: put the pieces where the lit cells ask"),
  turn: N_("Waiting for a move"),
  lifted: N_("Piece lifted: its legal targets are lit"),
  settling: N_("Move sensed: waiting for the board to settle"),
  choice: N_("Several moves fit: choose one (option pads or below)"),
  confirm: N_("Confirm the move: choose below or on the option pads"),
  menu: N_("Commands: choose one (option pads or below)"),
  correction: N_("The board does not match the game: put the pieces as the lit cells ask"),
  execute: N_("Execute the move shown on the board"),
  takeback: N_("Restoring an earlier position (takeback)"),
  failed: N_("Stopped: the journal cannot be written"),
  game_over: N_("Game over"),
  paused: N_("Paused"),
};

const ui = {
  layout: null,        // layout JSON (static)
  state: null,         // latest state JSON
  leds: null,          // [[hex, opacity] per spot]
  flipped: false,
  viewer: "auto",      // hidden-information games: "auto" (side to move) or a player index
  ws: null,
  hover: null,         // spot under the pointer
  press: null,         // {spot, tool} of a pointer press in progress
  path: [],            // slide path (spot indices)
  pointer: null,       // last pointer position in board mm (for the held ghost)
  nodes: {},           // svg groups
  shown: null,         // a recorded position drawn instead of the live one (pageApi.show)
};

// ---------------------------------------------------------------------------------
// drawing the board (static part rebuilt on flip)

function buildBoard() {
  drawBoard($("board"));
  if (ui.state) renderState();
  if (ui.leds) renderLeds();
}

function renderLeds() {
  if (!ui.layout || !ui.leds || ui.leds.length !== ui.layout.spots.length) return;
  const fills = ui.nodes.ledfill.children, dots = ui.nodes.leddots.children;
  ui.leds.forEach(([hex, op], i) => {
    if (op > 0) {
      fills[i].setAttribute("fill", hex);
      fills[i].setAttribute("fill-opacity", (0.12 + 0.33 * op).toFixed(3));
      dots[i].setAttribute("fill", hex);
      dots[i].setAttribute("fill-opacity", Math.min(1, 0.35 + op).toFixed(3));
    } else {
      fills[i].setAttribute("fill", "none");
      dots[i].setAttribute("fill", "none");
    }
  });
}

// "3 moves" in the page's language (the catalogue has both forms)
function movesText(n) { return n === 1 ? t("1 move") : t("{count} moves", { count: n }); }

function objectName(o) {
  // "white-M" -> "White Mule" with the game's piece names (the letter when it has none)
  const names = (ui.state && ui.state.game.pieces) || {};
  if (o.kind === "token") {  // "the Cube": a game's token, in the games' words
    const phrase = "the " + o.title;
    return t(phrase);
  }
  const colour = o.colour ? o.colour[0].toUpperCase() + o.colour.slice(1) : "";
  const kind = names[o.kind] ? t(names[o.kind]) : o.kind;
  return colour ? t("{player} {piece}", { player: t(colour), piece: kind }) : kind;
}

function objectText(objects) {
  // bottom first; runs of the same object as "White Tower ×8"
  const runs = [];
  for (const o of objects) {
    const last = runs[runs.length - 1];
    const name = objectName(o);
    if (last && last[0] === name) last[1]++; else runs.push([name, 1]);
  }
  return runs.map(([n, k]) => (k > 1 ? `${n} ×${k}` : n)).join(", ");
}

// ---------------------------------------------------------------------------------
// state rendering

let lastViewer = null;
let lastGame = null;
function renderState() {
  const S = ui.state, L = ui.layout;
  if (!S || !L) return;
  if (S.layout && S.layout !== L.name) { reloadLayout(); return; }  // another printed board
  const gameKey = `${S.game.name}/${S.game.id || ""}`;
  if (gameKey !== lastGame) {
    // another game: White at the bottom again and the side to move's view, whatever the
    // previous game showed
    const first = lastGame === null;
    lastGame = gameKey;
    lastViewer = null;
    if (!first) {
      ui.viewer = "auto";
      if (ui.ws && ui.ws.readyState === WebSocket.OPEN) setViewer("auto");
      // (not on the first state: a turn made before it arrived is the person's own)
      if (ui.flipped && !(S.viewers && S.viewer === 1)) { ui.flipped = false; buildBoard(); return; }
    }
  }
  if (S.viewers && S.viewer !== lastViewer) {
    // a hidden-information game: turn the board to the player whose view it is
    lastViewer = S.viewer;
    const flip = S.viewer === 1;
    if (flip !== ui.flipped) { ui.flipped = flip; buildBoard(); return; }
  }
  // title and banners
  $("game-title").textContent = t(S.game.title) + (S.game.id ? `  ·  ${S.game.id}` : "");
  $("guide-link").href = `/guide/${S.game.name}`;
  const prov = $("provisional");
  prov.hidden = !S.game.provisional;
  prov.textContent = S.game.provisional ? t("Note: {note}", { note: S.game.provisional }) : "";
  const res = $("resume");
  res.hidden = !S.resume;
  if (S.resume) {
    $("resume-text").textContent = (S.resume.summary
      ? t("Resumed the unfinished {game} game {summary}, from {date} ({moves}).",
          { game: t(S.resume.title), summary: S.resume.summary, date: S.resume.date, moves: movesText(S.resume.plies) })
      : t("Resumed the unfinished {game} game from {date} ({moves}).",
          { game: t(S.resume.title), date: S.resume.date, moves: movesText(S.resume.plies) }))
      + " " + t("Set up the board as lit and make a move to continue (the clocks start with it).") +
      (S.resume.dropped ? " " + t("Its journal was damaged after that: {damage}.", { damage: S.resume.dropped }) : "");
  }
  // the journal: files set aside or damage dropped (nothing lost that was shown), or a
  // journal that cannot be written (the service stops: nothing more is accepted)
  const problems = $("journal-problems");
  const lines = S.phase === "failed" ? [t("The board has stopped: {problem}. It restarts by itself (systemd) and resumes the game from its journal.",
    { problem: S.message })] : (S.journal_problems || []);
  problems.hidden = !lines.length;
  problems.textContent = lines.length ? t("Journal: {problems}", { problems: lines.join(" · ") }) : "";
  if (S.phase !== "failed" && S.problems && S.problems.length) {  // a worker failed
    problems.hidden = false;
    problems.textContent = [problems.textContent, ...S.problems].filter(Boolean).join(" · ");
  }
  renderLink(S);

  // status
  const names = S.game.players;
  const dot = $("turn-dot");
  if (S.result) {
    $("turn-text").innerHTML = "";
    const span = document.createElement("span");
    span.className = "result";
    const won = S.result.winners.map((w) => t(names[w]));
    span.textContent = (names.length > 2 && won.length  // "1-0" means little with more players
      ? (won.length === 1 ? t("{players} wins", { players: won[0] }) : t("{players} win", { players: won.join(", ") }))
      : S.result.text)
      + ` — ${S.result.reason}`;
    $("turn-text").appendChild(span);
    dot.style.background = "transparent";
  } else if (S.mover !== null && S.mover !== undefined) {
    $("turn-text").textContent = t("{player} to move", { player: t(names[S.mover]) })
      + (S.check ? " — " + t("check!") : "")
      + (S.out && S.out.length ? "  ·  " + t("out: {players}", { players: S.out.map((n) => t(n)).join(", ") }) : "")
      + linkWaiting(S);
    dot.style.background = PIECE_COLOURS[names[S.mover].toLowerCase()]?.[0] || "#888";
  } else {
    $("turn-text").textContent = "";
  }
  renderClocks(S, names);
  renderAdvice(S);
  const arrangeHint = S.phase === "setup" && S.sim
    ? " — " + t("on the simulated board: press \u201cArrange the pieces\u201d") : "";
  $("phase").textContent = S.die ? t("Roll the die (or enter the face of a real die below)")
    : S.computer && S.computer.thinking ? t("The computer (level {level}) is thinking…", { level: S.computer.level })
    : t(PHASE_TEXT[S.phase === "choice" && S.choice_kind in PHASE_TEXT ? S.choice_kind
      : S.phase] || S.phase) + arrangeHint;
  $("commands").hidden = !!S.result || S.phase === "setup";
  // a table that holds the person's view only: the board cannot see a takeback by hand
  $("take-back").hidden = !(S.computer && S.computer.takeback);
  const msg = $("message");
  msg.textContent = S.message || "";
  msg.className = "message" + (S.phase === "correction" || S.check ? " alert" : "");

  // viewer selection (hidden-information games)
  const vb = $("viewer-box");
  vb.hidden = !S.viewers;
  if (S.viewers) {
    const box = $("viewer-buttons");
    box.innerHTML = "";
    // against the computer only the people's views (the service shows no other)
    const computer = (S.computer && S.computer.seats) || [];
    const opts = [["auto", t("side to move")], ...S.viewers.map((n, i) => [String(i), t(n)])
      .filter(([i]) => !computer.includes(Number(i)))];
    for (const [value, text] of opts) {
      const lab = document.createElement("label");
      const inp = document.createElement("input");
      inp.type = "radio"; inp.name = "viewer"; inp.value = value;
      inp.checked = String(ui.viewer) === value;
      inp.addEventListener("change", () => setViewer(value));
      lab.append(inp, " " + text);
      box.appendChild(lab);
    }
  }

  // pieces (or a recorded position a section shows: pageApi.show)
  const pg = ui.nodes.pieces;
  pg.innerHTML = "";
  for (const [spot, objects] of Object.entries(ui.shown ? ui.shown.pieces : S.pieces)) {
    const i = Number(spot);
    drawPile(pg, objects, pt(L.spots[i].centre), pieceRadius(i), `${L.spots[i].name}: ${objectText(objects)}`);
  }
  // fog of war
  const fg = ui.nodes.fog;
  fg.innerHTML = "";
  for (const i of ui.shown ? [] : S.fog || []) {
    el("polygon", { points: ptStr(L.spots[i].outline), class: "fog", "fill-opacity": 0.82 }, fg);
  }
  for (const i of ui.shown ? ui.shown.marks : []) {
    el("polygon", { points: ptStr(L.spots[i].outline), class: "shown-mark" }, fg);
  }
  // choice options on their pads
  const og = ui.nodes.options;
  og.innerHTML = "";
  for (const o of S.choice || []) {
    if (o.spot === null || o.spot === undefined) continue;
    const s = L.spots[o.spot];
    const [x, y] = pt(s.centre);
    const tx = el("text", { x, y, class: "option-label" }, og);
    tx.textContent = `${o.index + 1}: ${o.label}`;
    tx.style.fontSize = `${Math.max(3.5, Math.min(7, spotRadius(o.spot) * 0.32))}px`;
  }
  // the face just rolled, on the die pad (until the move is made)
  const last = S.moves.length ? S.moves[S.moves.length - 1].text : null;
  const dieSpot = L.spots.findIndex((s) => s.role === "die");
  if (dieSpot >= 0 && !S.result && last && /^die:\d+$/.test(last)) {
    const [x, y] = pt(L.spots[dieSpot].centre);
    const tx = el("text", { x, y, class: "die-face" }, og);
    tx.style.fontSize = `${Math.max(6, spotRadius(dieSpot) * 0.9)}px`;
    tx.textContent = last.slice(4);
  }

  // choice card
  const ch = $("choice");
  ch.hidden = !(S.choice && S.choice.length);
  const co = $("choice-options");
  co.innerHTML = "";
  for (const o of S.choice || []) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "secondary";
    b.dataset.index = o.index;
    const sw = document.createElement("span");
    sw.className = "swatch";
    sw.style.background = o.colour;
    b.append(sw, `${o.index + 1}. ${o.label}`);
    b.addEventListener("click", () => post("/api/choice", { index: o.index }));
    co.appendChild(b);
  }
  $("die").hidden = !S.die;
  $("choice-title").textContent = S.die ? t("Or the face of a real die")
    : S.choice_kind === "menu" ? t("Commands") : t("Choose");

  renderMoves(S, names);

  renderTutorial();

  // simulator panel
  $("sim").hidden = !S.sim;
  $("tools").hidden = !S.sim;
  if (S.sim) renderSim();
  renderGhost();
  showHint(ui.hover);
  renderNewGame();
  renderLegend();
  renderHealth();
}

// The moves, one row per move (a round of every player's turn: "1. e4 e5"), one entry per
// ply in its player's column (a Cube turn's second move or a die roll beside it); the list
// scrolls and follows the newest move.
function renderMoves(S, names) {
  const ml = $("moves");
  ml.innerHTML = "";
  let row = 0, col = 0, last = Infinity, width = 1;
  S.moves.forEach((m) => {
    if (m.player < last || row === 0) {  // the first player again: the next move number
      row++; col = 0;
      const no = document.createElement("span");
      no.className = "move-no";
      no.setAttribute("role", "listitem");  // the list holds only items (axe-core)
      no.textContent = `${row}.`;
      no.style.gridRow = row;
      ml.appendChild(no);
    }
    col = Math.max(col + 1, m.player + 1);
    last = m.player;
    width = Math.max(width, col);
    const li = document.createElement("li");
    li.style.gridRow = row;
    li.style.gridColumn = col + 1;
    const d = document.createElement("span");
    d.className = "dot";
    d.style.background = PIECE_COLOURS[(names[m.player] || "").toLowerCase()]?.[0] || "#888";
    const tx = document.createElement("span");
    tx.textContent = m.text === null ? t("(hidden)") : m.text;
    if (m.text === null) tx.className = "hidden-move";
    li.append(d, tx);
    ml.appendChild(li);
  });
  ml.style.gridTemplateColumns = `max-content repeat(${width}, minmax(0, 1fr))`;
  ml.scrollTop = ml.scrollHeight;
}

function renderTutorial() {
  const T = ui.state.tutorial;
  $("tutorial").hidden = !T;
  $("tutorial-start").hidden = !!T;
  if (!T) return;
  const list = $("tutorial-steps");
  list.innerHTML = "";
  T.steps.forEach((s, i) => {
    const li = document.createElement("li");
    li.textContent = s.text;
    li.className = s.done ? "done" : (i === T.current ? "current" : "");
    li.dataset.step = s.name;
    list.appendChild(li);
  });
  $("tutorial-now").textContent = T.finished ? T.done_text : "";
  $("tutorial-guide").href = `/guide/${ui.state.game.name}`;
}

function chip(obj, extra, tag = "span") {
  const c = document.createElement(tag);
  const [fill, ink] = pieceColours(obj);
  c.className = "chip" + (extra ? " count" : "");
  c.style.background = fill;
  c.style.color = ink;
  c.textContent = obj.kind === "token" ? "▣" : obj.kind;
  c.title = objectName(obj);
  if (extra) { const n = document.createElement("span"); n.className = "n"; n.textContent = extra; c.appendChild(n); }
  return c;
}

function renderSim() {
  const S = ui.state;
  const held = $("held");
  held.innerHTML = "";
  held.classList.toggle("empty", !S.held.length);
  if (!S.held.length) held.textContent = t("nothing");
  for (const o of S.held) held.appendChild(chip(o));
  // aria-disabled, not disabled: a disabled button drops the keyboard's focus to the
  // page's top, and the hand empties under the very press that put it in the box
  $("to-box").setAttribute("aria-disabled", String(!S.held.length));
  const sup = $("supply");
  sup.innerHTML = "";
  for (const o of S.supply) {
    const c = chip(o, o.in_box ? `×${o.in_box}` : "", "button");
    c.type = "button";  // (a button: the keyboard reaches it and Enter takes the piece)
    c.title = o.in_box ? t("take {object} ({count} in the box)", { object: o.name, count: o.in_box })
      : t("take {object} (spare)", { object: o.name });
    c.addEventListener("click", () => enqueue(() => sim({ action: "take", object: o.name })));
    sup.appendChild(c);
  }
}

function renderGhost() {
  const g = ui.nodes.ghost;
  if (!g) return;
  g.innerHTML = "";
  const S = ui.state;
  if (!S || !S.sim || !S.held.length || !ui.pointer) return;
  const r = ui.hover !== null ? pieceRadius(ui.hover) : 14;
  const pile = drawPile(g, S.held, ui.pointer, r);
  pile.setAttribute("opacity", "0.8");
}

// the games of this board, and on the simulated board those of the other printed boards
// (a new game of one of them switches the simulated board to it)
function newGames(S) { return S.games.concat(S.other_games || []); }
let newGameKey = "";
function renderNewGame() {
  const S = ui.state;
  const key = JSON.stringify(newGames(S).map((g) => g.name));
  const sel = $("ng-game");
  if (key !== newGameKey) {
    newGameKey = key;
    sel.innerHTML = "";
    for (const g of newGames(S)) {
      const o = document.createElement("option");
      o.value = g.name;
      o.textContent = t(g.title) + (g.provisional ? " " + t("(provisional)") : "")
        + (g.layout ? " — " + t("on the {board} (simulated)", { board: g.board.split(",")[0] }) : "");
      sel.appendChild(o);
    }
    sel.value = S.game.name;
    $("ng-clock").value = S.time_control || "";  // the current control, until edited
    renderGameOptions();
  }
}
function renderComputerSeats(g) {
  // one box per player of the chosen game (KaleidoChess: as many as its "players" option)
  const box = $("ng-computer-players");
  box.innerHTML = "";
  const count = Number(($("ng-options").querySelector("input[name=players]") || {}).value) || 0;
  let names = ui.state.game.name === g.name ? ui.state.game.players : ["White", "Black"];
  if (count === 3) names = ["White", "Red", "Black"];
  if (count === 4) names = ["White", "Red", "Black", "Green"];
  if (count === 2) names = ["White", "Black"];
  names.forEach((n, i) => {
    const lab = document.createElement("label");
    lab.className = "inline";
    const inp = document.createElement("input");
    inp.type = "checkbox"; inp.name = "computer"; inp.value = i;
    inp.checked = (ui.state.computer?.seats || []).includes(i) && ui.state.game.name === g.name;
    lab.append(inp, " " + t(n));
    box.appendChild(lab);
  });
}

function renderGameOptions() {
  const S = ui.state;
  const g = newGames(S).find((x) => x.name === $("ng-game").value);
  const box = $("ng-options");
  box.innerHTML = "";
  if (!g) return;
  for (const opt of g.options) {
    const lab = document.createElement("label");
    if (opt.help) lab.title = opt.help;
    const inp = document.createElement("input");
    inp.name = opt.name;
    inp.dataset.type = opt.type;
    if (opt.type === "bool") {
      inp.type = "checkbox";
      inp.checked = !!opt.default;
      lab.append(inp, " " + t(opt.name).replaceAll("_", " "));
    } else {
      inp.type = opt.type === "int" ? "number" : "text";
      if (opt.default !== null && opt.default !== undefined) inp.value = opt.default;
      const drawn = g.options.some((o) => o.name === "seed");
      inp.placeholder = opt.default === null ? (drawn ? t("random") : t("default")) : "";
      lab.append(t(opt.name).replaceAll("_", " ") + " ", inp);
    }
    box.appendChild(lab);
  }
  renderComputerSeats(g);
  const players = box.querySelector("input[name=players]");
  if (players) players.addEventListener("change", () => renderComputerSeats(g));
}

// The LED roles (controller/leds/palette.py) in the player's words; "fog" ones only in a
// game with hidden information, "ambient" (the idle glow) not at all
const LEGEND_WORDS = {
  target: N_("a legal target of the lifted piece"),
  origin: N_("the lifted piece"),
  last_move: N_("the last move"),
  check: N_("a King in check"),
  missing: N_("a piece belongs here"),
  extra: N_("take this piece off"),
  remove: N_("take this piece off"),
  execute: N_("a move to make for the other side"),
  visible: N_("a cell you can see"),
  enemy: N_("an opponent's piece you can see"),
  active: N_("a pad you may use now"),
  height: N_("the height of a stack"),
  hint: N_("a hint"),
};
const FOG_ROLES = new Set(["visible", "enemy"]);
// a dim LED colour shown bright enough to be seen on the dark card (its hue kept)
function legendColour(hex) {
  const c = [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16));
  const top = Math.max(...c);
  const k = top < 150 ? 150 / Math.max(top, 1) : 1;
  return `rgb(${c.map((v) => Math.min(255, Math.round(v * k))).join(", ")})`;
}
let legendKey = "";
function renderLegend() {
  const S = ui.state;
  if (!S.palette) return;
  const key = JSON.stringify([S.game.players, !!S.viewers]);
  if (key === legendKey) return;
  legendKey = key;
  const box = $("legend");
  box.innerHTML = "";
  // the LEDs use one colour for several meanings where the situation tells them apart
  // (a missing piece and check are both red): one line per colour, every meaning named
  const byColour = new Map();
  for (const [name, hex] of S.palette) {
    let words = LEGEND_WORDS[name] && t(LEGEND_WORDS[name]);
    if (name.startsWith("option ")) words = t("answer {number} of a question", { number: name.slice(7) });
    if (name.startsWith("player ")) {
      const who = name.slice(7);
      words = S.game.players.includes(who) ? t("{player}'s pieces", { player: t(who) }) : null;
    }
    if (!words || (FOG_ROLES.has(name) && !S.viewers)) continue;
    const colour = hex.toLowerCase();
    if (!byColour.has(colour)) byColour.set(colour, []);
    if (!byColour.get(colour).includes(words)) byColour.get(colour).push(words);
  }
  for (const [hex, meanings] of byColour) {
    const sw = document.createElement("span");
    sw.className = "swatch legend-swatch";
    sw.style.background = legendColour(hex);
    sw.title = hex;
    const tx = document.createElement("span");
    tx.textContent = meanings.join(" · ");
    box.append(sw, tx);
  }
}

function renderHealth() {
  const h = ui.state.health;
  if (!h) return;
  const f = $("health");
  f.innerHTML = "";
  const s = document.createElement("div");
  const age = h.sensing.last_frame_age_s;
  s.textContent = age === null
    ? t("Sensing: {backend} ({state})", { backend: h.sensing.backend, state: h.sensing.state })
    : t("Sensing: {backend} ({state}, last scan {age} s ago)",
        { backend: h.sensing.backend, state: h.sensing.state, age: age.toFixed(2) });
  if (h.sensing.state !== "ok") s.className = "bad";
  const j = document.createElement("div");
  j.textContent = t("Journal: {problems}", { problems: h.journal || "—" });
  f.append(s, j);
}

// ---------------------------------------------------------------------------------
// a game linked with other boards (docs/link.md): one line, and the buttons it needs

function capitalised(text) { return text ? text[0].toUpperCase() + text.slice(1) : ""; }
function otherBoard(link) {
  return (link.seats || []).find((b) => b !== link.board) || t("the other board");
}
// who the turn waits for when it is not this board's: " — waiting for beta"
function linkWaiting(S) {
  const L = S.link;
  if (!L || !L.seats || S.result || S.mover === null || S.mover === undefined) return "";
  if (L.takeback && L.takeback.asked !== null) return " — " + t("waiting for {board} to answer the takeback", { board: otherBoard(L) });
  const at = L.seats[S.mover];
  return at && at !== L.board ? " — " + t("waiting for {board}", { board: at }) : "";
}
function renderLink(S) {
  const L = S.link;
  const offered = L && L.takeback ? L.takeback.offered : null;
  let text = "";
  if (L && L.problem) {
    text = t("The game stopped: {problem}.", { problem: L.problem.replace(/\.$/, "") });
  } else if (offered !== null && offered !== undefined) {
    const back = S.moves.length - offered;
    const who = (L.seats || []).some((b) => b !== L.board) ? t("Board {board}", { board: otherBoard(L) }) : t("The other board");
    text = S.sim ? t("{who} took {moves} back and asks you to agree. Accept takes the same moves back here; Decline plays on.", { who, moves: movesText(back) })
      : t("{who} took {moves} back and asks you to agree: take the same moves back on the board to accept, or decline.", { who, moves: movesText(back) });
  } else if (L && L.notice) {
    text = capitalised(L.notice.replace(/\.$/, "")) + ".";
  }
  const box = $("link-banner");
  box.hidden = !text;
  box.className = "banner link-banner" + (L && L.problem ? " stopped" : "");
  $("link-text").textContent = text;
  $("link-resync").hidden = !(L && L.problem);
  $("link-accept").hidden = !(offered !== null && offered !== undefined && S.sim && !(L && L.problem));
  $("link-decline").hidden = offered === null || offered === undefined || !!(L && L.problem);
  $("link-accept").dataset.plies = offered === null || offered === undefined ? "" : offered;
}

// ---------------------------------------------------------------------------------
// talking to the service

async function post(url, body) {
  try {
    const r = await fetch(url, {
      method: "POST", headers: { "Content-Type": "application/json", "Accept-Language": fairyboardLanguage() },
      body: JSON.stringify(body),
    });
    const data = await r.json().catch(() => ({}));
    if (!r.ok) toast(data.error || `${url}: HTTP ${r.status}`);
    return data;
  } catch (e) {
    toast(t("The board service cannot be reached — is it running? Reconnecting…"));
    return {};
  }
}

let toastTimer = null;
function toast(text) {
  const tx = $("toast");
  tx.textContent = text;
  tx.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { tx.hidden = true; }, 3500);
}

// Simulator gestures run one after another, each decided on the state the previous
// one produced (a fast second click must not be judged on a stale hand).
let simQueue = Promise.resolve();
function enqueue(job) {
  simQueue = simQueue.then(job).catch((e) => toast(String(e)));
  return simQueue;
}
async function sim(body) {
  body.viewer = ui.viewer === "auto" ? null : Number(ui.viewer);
  const data = await post("/api/sim", body);
  if (data.state) acceptState(data.state);
  return data;
}

// States and LED frames come over two connections (this answer and the websocket):
// show only what is newer than what is shown.
function acceptState(state) {
  if (ui.state && state.seq < ui.state.seq) return;
  ui.state = state;
  renderState();
  acceptLeds(state.leds, state.led_seq);
  for (const section of window.fairyboardSections || []) {
    try { section(state, pageApi); } catch (e) { console.error(e); }
  }
}

// What a section of the page (its own file under static/, registered by pushing a
// function onto window.fairyboardSections) may use of the page: each section owns its
// state and is handed every newer state after the page has drawn it.
const pageApi = {
  post: (url, body) => post(url, body),
  toast: (text) => toast(text),
  state: () => ui.state,
  layout: () => ui.layout,
  viewer: () => (ui.viewer === "auto" ? null : Number(ui.viewer)),
  // draw a recorded position (spot -> objects, as state.pieces) with some spots marked,
  // instead of the live pieces, until live() (the archive's replay, the review)
  show: (pieces, marks) => { ui.shown = { pieces: pieces || {}, marks: marks || [] }; showing(); },
  live: () => { ui.shown = null; showing(); },
  t: (text, values) => t(text, values),  // the page's language (static/i18n.js)
};
function showing() {  // the live LEDs are not the recorded position's: hidden meanwhile
  $("board").classList.toggle("showing", !!ui.shown);
  renderState();
}
let ledSeq = -1;
function acceptLeds(leds, seq) {
  if (seq < ledSeq) return;
  ledSeq = seq;
  ui.leds = leds;
  renderLeds();
}

function setViewer(value) {
  ui.viewer = value;
  if (ui.ws && ui.ws.readyState === WebSocket.OPEN) {
    ui.ws.send(JSON.stringify({ type: "viewer", viewer: value === "auto" ? null : Number(value) }));
  }
}

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${proto}://${location.host}/ws?lang=${encodeURIComponent(fairyboardLanguage())}`);
  ui.ws = ws;
  const conn = $("connection");
  ws.onopen = () => {
    conn.textContent = t("live"); conn.className = "connection live";
    if (document.body.classList.contains("offline")) {
      // back after a restart: the service may have another layout or game now
      document.body.classList.remove("offline");
      reloadLayout();
    }
    // a restarted service counts from zero again
    if (ui.state) ui.state.seq = -1;
    ledSeq = -1;
    if (ui.viewer !== "auto") setViewer(ui.viewer);
  };
  ws.onmessage = (ev) => {
    const m = JSON.parse(ev.data);
    if (m.type === "state") acceptState(m.state);
    else if (m.type === "leds") acceptLeds(m.leds, m.led_seq);
  };
  ws.onclose = () => {
    conn.textContent = t("reconnecting…"); conn.className = "connection lost";
    document.body.classList.add("offline");
    $("offline").hidden = false;
    setTimeout(connect, 1000);
  };
}

// ---------------------------------------------------------------------------------
// the simulator: pointer gestures on the board

function spotAt(clientX, clientY) {
  const e = document.elementFromPoint(clientX, clientY);
  const p = e && e.closest ? e.closest("[data-spot]") : null;
  return p ? Number(p.dataset.spot) : null;
}
function boardPoint(ev) {
  const svg = $("board");
  const p = svg.createSVGPoint();
  p.x = ev.clientX; p.y = ev.clientY;
  const q = p.matrixTransform(svg.getScreenCTM().inverse());
  return [q.x, q.y];
}
function tool() { return document.querySelector("input[name=tool]:checked").value; }
function pile(i) { return (ui.state && ui.state.pieces[i]) || []; }
function spotName(i) { return ui.layout.spots[i].name; }

function setHover(i) {
  if (ui.hover === i) return;
  const spots = ui.nodes.spots.children;
  if (ui.hover !== null && spots[ui.hover]) spots[ui.hover].classList.remove("hover");
  ui.hover = i;
  if (i !== null && spots[i]) spots[i].classList.add("hover");
  showHint(i);
}

function showHint(i) {
  const hint = $("hint");
  if (i === null) { hint.textContent = ""; return; }
  const objects = pile(i);
  hint.textContent = `${spotName(i)}` + (objects.length ? `: ${objectText(objects)}` : " " + t("(empty)"));
}

function countPopup(ev, max, verb, done) {
  const pop = $("count-popup");
  pop.innerHTML = "";
  const lab = document.createElement("span");
  lab.textContent = t(verb);
  pop.appendChild(lab);
  for (let k = 1; k <= max; k++) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = k === max ? t("{count} (all)", { count: k }) : String(k);
    b.dataset.count = k;
    b.addEventListener("click", () => { pop.hidden = true; done(k); });
    pop.appendChild(b);
  }
  const cancel = document.createElement("button");
  cancel.type = "button"; cancel.className = "secondary"; cancel.textContent = "✕";
  cancel.addEventListener("click", () => { pop.hidden = true; });
  pop.appendChild(cancel);
  const wrap = $("board-wrap").getBoundingClientRect();
  pop.style.left = "0px";
  pop.style.top = "0px";
  pop.hidden = false;  // measure it where it cannot overflow, then place it on screen
  const box = pop.getBoundingClientRect();
  const left = Math.min(Math.max(0, ev.clientX - wrap.left - 40), Math.max(0, wrap.width - box.width));
  const top = Math.min(Math.max(0, ev.clientY - wrap.top + 14), Math.max(0, wrap.height - box.height));
  pop.style.left = `${left}px`;
  pop.style.top = `${top}px`;
}

function onPointerDown(ev) {
  if (!ui.state || !ui.state.sim || ev.button > 0) return;
  const i = spotAt(ev.clientX, ev.clientY);
  $("count-popup").hidden = true;
  if (i === null) return;
  ev.preventDefault();
  const tool_ = tool();
  const shift = ev.shiftKey;
  const at = { clientX: ev.clientX, clientY: ev.clientY };
  ui.press = { spot: i, tool: tool_ };
  if (tool_ === "slide") { ui.path = [i]; drawPath(); }
  if (tool_ !== "move") return;
  const press = ui.press;
  enqueue(async () => {
    const held = ui.state.held;
    const objects = pile(i);
    if (held.length) {
      press.placed = true;  // this press puts down; its release does nothing more
      if (shift && held.length > 1) {
        countPopup(at, held.length, N_("Place how many?"), (k) => enqueue(() => sim({ action: "place", spot: spotName(i), count: k })));
      } else {
        await sim({ action: "place", spot: spotName(i) });
      }
      return;
    }
    if (!objects.length) return;
    if (objects.length > 1) {
      press.placed = true;
      countPopup(at, objects.length, N_("Lift how many?"), (k) => enqueue(() => sim({ action: "lift", spot: spotName(i), count: k })));
      return;
    }
    // exactly what is shown (on a fogged cell: the viewer's own piece, not what is under it)
    await sim({ action: "lift", spot: spotName(i), count: objects.length });
  });
}

function onPointerMove(ev) {
  if (!ui.layout) return;
  const i = spotAt(ev.clientX, ev.clientY);
  setHover(i);
  ui.pointer = boardPoint(ev);
  if (ui.state && ui.state.sim && ui.state.held.length) renderGhost();
  if (ui.press && ui.press.tool === "slide" && i !== null && ui.path[ui.path.length - 1] !== i) {
    ui.path.push(i);
    drawPath();
  }
}

function onPointerUp(ev) {
  const press = ui.press;
  ui.press = null;
  if (!press) return;
  const i = spotAt(ev.clientX, ev.clientY);
  if (press.tool === "move") {
    // released on another spot: a drag; put the piece down there (a release on the
    // same spot keeps it in the hand, so click-click works too)
    if (i !== null && i !== press.spot) {
      enqueue(async () => {
        if (!press.placed && ui.state.held.length) await sim({ action: "place", spot: spotName(i) });
      });
    }
  } else if (press.tool === "slide") {
    const path = ui.path.map(spotName);
    ui.path = [];
    drawPath();
    if (path.length >= 2) enqueue(() => sim({ action: "slide", path }));
  } else if (press.tool === "knock") {
    if (!pile(press.spot).length) return;
    const onto = i === null || i === press.spot ? null : spotName(i);
    enqueue(() => sim({ action: "knock_over", spot: spotName(press.spot), onto }));
  } else if (press.tool === "nudge") {
    if (i !== null && i !== press.spot && pile(press.spot).length) {
      enqueue(() => sim({ action: "off_centre", spot: spotName(press.spot), toward: spotName(i) }));
    }
  }
}

function drawPath() {
  const g = ui.nodes.path;
  g.innerHTML = "";
  if (ui.path.length < 2) return;
  const pts = ui.path.map((i) => pt(ui.layout.spots[i].centre).join(",")).join(" ");
  el("polyline", { points: pts, fill: "none", stroke: "#e0a030", "stroke-width": 2.5,
    "stroke-linecap": "round", "stroke-linejoin": "round", "stroke-opacity": 0.8 }, g);
}

// ---------------------------------------------------------------------------------
// wiring

function optionValue(inp) {
  if (inp.dataset.type === "bool") return inp.checked;
  if (inp.value === "") return null;
  if (inp.dataset.type === "int") return Number(inp.value);
  return inp.value;
}

let layoutLoading = false;
async function reloadLayout() {
  if (layoutLoading) return;  // (states keep coming while it loads)
  layoutLoading = true;
  try {
    const r = await fetch("/api/layout");
    ui.layout = await r.json();
  } catch (e) {
    return;  // still unreachable: the next reconnect tries again
  } finally {
    layoutLoading = false;
  }
  $("offline").hidden = true;
  buildBoard();
}

async function boot() {
  try {
    const r = await fetch("/api/layout");
    ui.layout = await r.json();
  } catch (e) {
    document.body.classList.add("offline");
    $("offline").hidden = false;
    setTimeout(boot, 1000);
    return;
  }
  buildBoard();
  const svg = $("board");
  svg.addEventListener("pointerdown", onPointerDown);
  window.addEventListener("pointermove", onPointerMove);
  window.addEventListener("pointerup", onPointerUp);
  svg.addEventListener("pointerleave", () => setHover(null));
  $("flip").addEventListener("click", () => { ui.flipped = !ui.flipped; buildBoard(); });
  // judged in its turn, not at the click: a piece clicked up just before is in the hand
  // by then (the button still showed the empty hand); an empty hand puts nothing away
  $("to-box").addEventListener("click", () => enqueue(async () => {
    if (ui.state && ui.state.held.length) await sim({ action: "set_aside" });
  }));
  $("arrange").addEventListener("click", () => enqueue(() => sim({ action: "arrange" })));
  $("clear").addEventListener("click", () => enqueue(() => sim({ action: "clear" })));
  $("roll").addEventListener("click", () => post("/api/roll", {}));
  $("link-accept").addEventListener("click", () => enqueue(() =>
    sim({ action: "restore", plies: Number($("link-accept").dataset.plies) })));
  $("link-decline").addEventListener("click", () => post("/api/link", { action: "decline-takeback" }));
  $("link-resync").addEventListener("click", () => post("/api/link", { action: "resync" }));
  $("coach-on").addEventListener("change", (ev) =>
    post("/api/command", { command: ev.target.checked ? "coach on" : "coach off" }));
  for (const b of document.querySelectorAll("#commands button, #advice-box button")) {
    b.addEventListener("click", () => {
      const who = ui.state.game.players[ui.state.mover];
      if (b.dataset.command === "resign" && !confirm(t("{player} resigns?", { player: t(who) }))) return;
      post("/api/command", { command: b.dataset.command });
    });
  }
  $("tutorial-start").addEventListener("click", () => post("/api/tutorial", { on: true }));
  $("tutorial-stop").addEventListener("click", () => post("/api/tutorial", { on: false }));
  $("resume-keep").addEventListener("click", () => post("/api/resume", { resume: true }));
  $("resume-new").addEventListener("click", () => post("/api/resume", { resume: false }));
  $("ng-game").addEventListener("change", renderGameOptions);
  $("new-game-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const options = {};
    for (const inp of $("ng-options").querySelectorAll("input")) {
      const v = optionValue(inp);
      if (v !== null) options[inp.name] = v;
    }
    // (a game that draws its set-up — Lao Tzu's two arrays — gets a fresh draw from the
    // service when the set-up options are left empty: Game.start_options)
    const setup = $("ng-setup").value.trim();
    const seats = [...$("ng-computer-players").querySelectorAll("input:checked")]
      .map((x) => Number(x.value));
    const computer = seats.length ? { players: seats, level: Number($("ng-level").value) || 6 } : null;
    const clock = $("ng-clock").value.trim();
    post("/api/new-game", { game: $("ng-game").value, options, setup: setup || null, computer,
                            clock });
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") $("count-popup").hidden = true;
  });
  connect();
}

window.fairyboardTexts.then(boot);  // the page's words first (static/i18n.js)

// -- clocks ----------------------------------------------------------------------------
// The service sends each seat's remaining seconds when the state changes; between
// updates the page counts the running clock down itself (the service decides the flag).
const clockView = { at: 0, clock: null, names: [], timer: null };

function clockFace(seconds) {
  if (seconds < 10) return Math.max(0, Math.floor(seconds * 10) / 10).toFixed(1);
  const whole = Math.floor(seconds);
  const h = Math.floor(whole / 3600), m = Math.floor(whole / 60) % 60, s = whole % 60;
  const two = (n) => String(n).padStart(2, "0");
  return h ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
}

function renderClocks(S, names) {
  const box = $("clocks");
  clockView.clock = S.clock || null;
  clockView.names = (S.clock && S.clock.names) || names;  // online: the accounts
  clockView.at = performance.now();
  box.hidden = !S.clock;
  if (!S.clock) return;
  drawClocks();
  if (!clockView.timer) clockView.timer = setInterval(drawClocks, 100);
}

function drawClocks() {
  const c = clockView.clock;
  const box = $("clocks");
  if (!c) return;
  const spent = (performance.now() - clockView.at) / 1000;
  box.innerHTML = "";
  c.remaining.forEach((left, seat) => {
    const running = c.running === seat && !c.paused;
    const now = Math.max(0, left - (running ? spent : 0));
    const el = document.createElement("div");
    el.className = "clock" + (running ? " running" : "")
      + (c.flag === seat || now <= 0 ? " flag" : c.low[seat] || (running && now <= 10) ? " low" : "");
    el.dataset.seat = seat;
    const who = document.createElement("span");
    who.textContent = clockView.names[seat] ? t(clockView.names[seat]) : t("Player {number}", { number: seat + 1 });
    const face = document.createElement("b");
    face.textContent = clockFace(now);
    el.append(who, face);
    box.appendChild(el);
  });
}

// -- hints, the coach, the evaluation ----------------------------------------------------
function renderAdvice(S) {
  const A = S.advice || {};
  $("coach-on").checked = !!A.coach;
  $("coach-on").disabled = !!A.hidden;
  $("advice-box").hidden = !!S.result || S.phase === "setup";
  const lines = [];
  if (A.busy) lines.push(A.busy === "review" ? t("The coach looks at your move…") : t("Thinking…"));
  // the service words them, in the game's notation ("allows mate in 3", not pawns)
  if (A.hint) lines.push(t("Hint: {move} (lit in lime on the board)", { move: A.hint_text || A.hint }));
  if (A.evaluation) {
    const e = A.evaluation, best = e.best_text || e.best;
    lines.push(t("Evaluation for the side to move: {value}", { value: e.text }) + (best ? " — " + t("best {move}", { move: best }) : ""));
  } else if (A.hidden && !A.busy) {
    lines.push(t("Hints come from your own view only; no evaluation in a fog-of-war game."));
  }
  if (A.note) lines.push(t("Coach: {note}.", { note: A.note.text }));
  $("advice").textContent = lines.join("\n");
}
