// fairyboard companion page: draws the board from the layout (mm outlines of every spot),
// shows the game and the live LEDs, and drives the simulated board.  Plain JavaScript, no
// build step, no external resources.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);

// piece colours by owner colour name: [fill, letter]
const PIECE_COLOURS = {
  white: ["#f3eee4", "#2a2420"],
  black: ["#2c2724", "#f0eadf"],
  red: ["#c63a2f", "#fff4ee"],
  green: ["#2f8c57", "#f0fff4"],
  cube: ["#e0a030", "#2a2420"],
  other: ["#888", "#111"],
};
const PHASE_TEXT = {
  setup: "Set up the board: put the pieces where the lit cells ask",
  turn: "Waiting for a move",
  lifted: "Piece lifted: its legal targets are lit",
  settling: "Move sensed: waiting for the board to settle",
  choice: "Several moves fit: choose one (option pads or below)",
  confirm: "Confirm the move: choose below or on the option pads",
  menu: "Commands: choose one (option pads or below)",
  correction: "The board does not match the game: put the pieces as the lit cells ask",
  execute: "Execute the move shown on the board",
  takeback: "Restoring an earlier position (takeback)",
  failed: "Stopped: the journal cannot be written",
  game_over: "Game over",
  paused: "Paused",
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
};

// ---------------------------------------------------------------------------------
// geometry: layout mm (y toward Black) -> svg user units (y down)

function pt(p) {
  const [w, h] = ui.layout.size;
  return ui.flipped ? [w - p[0], p[1]] : [p[0], h - p[1]];
}
function ptStr(poly) { return poly.map((p) => pt(p).join(",")).join(" "); }
function spotRadius(i) {
  const s = ui.layout.spots[i];
  let r = Infinity;
  const [cx, cy] = s.centre;
  // distance from the centre to each edge's midpoint gives a safe inscribed size
  for (let k = 0; k < s.outline.length; k++) {
    const a = s.outline[k], b = s.outline[(k + 1) % s.outline.length];
    const d = distToSegment([cx, cy], a, b);
    r = Math.min(r, d);
  }
  return Math.max(4, r);
}
// Pieces are the same size on every cell: on boards whose cells differ in size (the
// lotus board's hexagons, squares and triangles) a piece is drawn no larger than on a
// middle-sized cell.
function pieceRadius(i) { return Math.min(spotRadius(i), ui.pieceCap || Infinity); }
function medianCellRadius() {
  const L = ui.layout;
  const r = L.spots.map((s, i) => (s.kind === "cell" ? spotRadius(i) : null))
    .filter((x) => x !== null).sort((a, b) => a - b);
  return r.length ? r[Math.floor(r.length / 2)] : Infinity;
}
function distToSegment(p, a, b) {
  const dx = b[0] - a[0], dy = b[1] - a[1];
  const len2 = dx * dx + dy * dy || 1;
  let t = ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2;
  t = Math.max(0, Math.min(1, t));
  return Math.hypot(p[0] - (a[0] + t * dx), p[1] - (a[1] + t * dy));
}
function el(tag, attrs, parent) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

// ---------------------------------------------------------------------------------
// drawing the board (static part rebuilt on flip)

function buildBoard() {
  const L = ui.layout;
  const svg = $("board");
  svg.innerHTML = "";
  const [w, h] = L.size;
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  const defs = el("defs", {}, svg);
  const f = el("filter", { id: "glow", x: "-150%", y: "-150%", width: "400%", height: "400%" }, defs);
  el("feGaussianBlur", { stdDeviation: "2.2" }, f);
  const shadow = el("filter", { id: "shadow", x: "-50%", y: "-50%", width: "200%", height: "200%" }, defs);
  el("feDropShadow", { dx: "0.6", dy: "1", stdDeviation: "0.8", "flood-opacity": "0.55" }, shadow);

  el("rect", { x: 0, y: 0, width: w, height: h, rx: 6, fill: "#4a4440" }, svg);
  ui.pieceCap = medianCellRadius();
  const g = (name) => (ui.nodes[name] = el("g", { class: name }, svg));
  g("spots"); g("ledfill"); g("rivers"); g("names"); g("fog"); g("leddots");
  g("options"); g("pieces"); g("path"); g("ghost");

  L.spots.forEach((s, i) => {
    el("polygon", {
      points: ptStr(s.outline), fill: s.fill, class: `spot ${s.kind}`, "data-spot": i,
      "data-name": s.name,
    }, ui.nodes.spots);
    el("polygon", { points: ptStr(s.outline), class: "ledfill", fill: "none", "data-led": i },
      ui.nodes.ledfill);
    const [lx, ly] = pt(s.led_mm);
    el("circle", { cx: lx, cy: ly, r: 3.2, class: "leddot", fill: "none", "data-dot": i,
      filter: "url(#glow)" }, ui.nodes.leddots);
    const r = spotRadius(i);
    if (s.kind === "cell" && s.outline.length <= 6) {
      // a polygon (square, triangle, hexagon): the name at its leftmost (then lowest)
      // corner as seen on the screen, whichever way the board is turned, moved toward the
      // centre enough to stay inside a triangle's sharp corner
      const screen = s.outline.map(pt);
      const v = screen.reduce((a, b) => (b[0] < a[0] - 1e-6
        || (Math.abs(b[0] - a[0]) <= 1e-6 && b[1] > a[1]) ? b : a));
      const c = pt(s.centre);
      const k = s.outline.length === 3 ? 0.3 : 0.08;
      const [x, y] = [v[0] + (c[0] - v[0]) * k, v[1] + (c[1] - v[1]) * k];
      const t = el("text", { x, y: y - 0.5, class: "cell-name" }, ui.nodes.names);
      t.style.fontSize = `${Math.max(3, Math.min(6, r * 0.3))}px`;
      t.textContent = s.name;
    } else if (s.kind === "cell") {
      const c = pt(s.centre);
      const [x, y] = [c[0] - r * 0.92, c[1] + r * 0.92];
      const t = el("text", { x, y: y - 0.5, class: "cell-name" }, ui.nodes.names);
      t.style.fontSize = `${Math.max(3, Math.min(6, r * 0.3))}px`;
      t.textContent = s.name;
    } else {
      const [x, y] = pt([s.centre[0], s.centre[1] - r * 0.98]);
      const t = el("text", { x, y: y - 1, class: "pad-name", "text-anchor": "middle" }, ui.nodes.names);
      t.textContent = s.label;
    }
  });
  for (const [x1, y1, x2, y2] of L.rivers || []) {
    // a wavy line as on the printed board (boardprint), "River" in the margin if it fits
    const n = Math.max(1, Math.round(Math.hypot(x2 - x1, y2 - y1) / 20));
    const nx = -(y2 - y1) / n, ny = (x2 - x1) / n, amp = 0.08;  // wave: 8 % of its length
    let d = `M${pt([x1, y1]).join(",")}`;
    for (let k = 0; k < n; k++) {
      const s = k % 2 ? amp : -amp;
      const c = pt([x1 + (x2 - x1) * (k + 0.5) / n + nx * s, y1 + (y2 - y1) * (k + 0.5) / n + ny * s]);
      d += ` Q${c.join(",")} ${pt([x1 + (x2 - x1) * (k + 1) / n, y1 + (y2 - y1) * (k + 1) / n]).join(",")}`;
    }
    el("path", { d, class: "river" }, ui.nodes.rivers);
    if (Math.min(x1, x2) >= 14) {
      const [lx, ly] = pt([Math.min(x1, x2) / 2, y1]);
      const t = el("text", { x: lx, y: ly + 1.4, class: "river-label", "text-anchor": "middle" },
        ui.nodes.rivers);
      t.textContent = "River";
    }
  }
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

function plural(n, word) { return `${n} ${word}${n === 1 ? "" : "s"}`; }

function pieceColours(obj) { return PIECE_COLOURS[obj.colour] || PIECE_COLOURS.other; }

// Draw one pile (bottom first) centred on a point of radius r (mm)
function drawPile(parent, objects, c, r, title) {
  const g = el("g", {}, parent);
  if (title) { const t = el("title", {}, g); t.textContent = title; }
  if (!objects.length) return g;
  const top = objects[objects.length - 1];
  // how many of the same object form the top of the pile (a Tower, a Pawn stack)
  let same = 0;
  for (let k = objects.length - 1; k >= 0 && objects[k].name === top.name; k--) same++;
  const below = objects.length - same;
  const [x, y] = c;
  const rad = r * 0.72;
  if (top.kind === "cube") {
    const s = rad * 1.5;
    el("rect", { x: x - s / 2, y: y - s / 2, width: s, height: s, rx: 2, fill: "#e0a030",
      stroke: "#3a2a10", "stroke-width": 0.8, filter: "url(#shadow)",
      transform: `rotate(${top.lying ? 30 : 0} ${x} ${y})` }, g);
    const t = el("text", { x, y, class: "piece-letter", fill: "#3a2a10" }, g);
    t.style.fontSize = `${rad * 0.55}px`;
    t.textContent = "Cube";
    return g;
  }
  const [fill, ink] = pieceColours(top);
  const layers = Math.min(objects.length, 4);
  for (let k = layers - 1; k >= 1; k--) {  // stones under the top one, offset upward
    const obj = objects[objects.length - 1 - k];
    const [f2] = pieceColours(obj);
    el("circle", { cx: x, cy: y + k * rad * 0.12, r: rad, fill: f2, stroke: "#0009",
      "stroke-width": 0.7 }, g);
  }
  if (top.lying) {
    el("ellipse", { cx: x, cy: y, rx: rad * 1.05, ry: rad * 0.55, fill, stroke: "#000a",
      "stroke-width": 0.8, "stroke-dasharray": "2 1.2", transform: `rotate(-25 ${x} ${y})`,
      filter: "url(#shadow)" }, g);
  } else {
    el("circle", { cx: x, cy: y, r: rad, fill, stroke: "#000b", "stroke-width": 0.8,
      filter: "url(#shadow)" }, g);
    el("circle", { cx: x, cy: y, r: rad * 0.8, fill: "none", stroke: ink,
      "stroke-opacity": 0.25, "stroke-width": 0.6 }, g);
  }
  const letter = el("text", { x, y: y + rad * 0.02, class: "piece-letter", fill: ink }, g);
  letter.style.fontSize = `${rad * 1.05}px`;
  letter.textContent = top.kind;
  if (objects.length > 1) {
    const bx = x + rad * 0.78, by = y - rad * 0.78, br = rad * 0.42;
    el("circle", { cx: bx, cy: by, r: br, fill: "#b03a2e", stroke: "#0009", "stroke-width": 0.5 }, g);
    const n = el("text", { x: bx, y: by, class: "badge" }, g);
    n.style.fontSize = `${br * 1.35}px`;
    n.textContent = below ? `${same}+${below}` : String(same);
    if (below) n.style.fontSize = `${br * 0.9}px`;
  }
  return g;
}

function objectName(o) {
  // "white-M" -> "White Mule" with the game's piece names (the letter when it has none)
  const names = (ui.state && ui.state.game.pieces) || {};
  if (o.kind === "cube") return "the Cube";
  const colour = o.colour ? o.colour[0].toUpperCase() + o.colour.slice(1) : "";
  return `${colour} ${names[o.kind] || o.kind}`.trim();
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
  $("game-title").textContent = S.game.title + (S.game.id ? `  ·  ${S.game.id}` : "");
  $("guide-link").href = `/guide/${S.game.name}`;
  const prov = $("provisional");
  prov.hidden = !S.game.provisional;
  prov.textContent = S.game.provisional ? `Note: ${S.game.provisional}` : "";
  const res = $("resume");
  res.hidden = !S.resume;
  if (S.resume) {
    $("resume-text").textContent = `Resumed the unfinished ${S.resume.title} game ` +
      (S.resume.summary ? `${S.resume.summary}, ` : "") + "from " +
      `${S.resume.date} (${plural(S.resume.plies, "move")}). Set up the board as lit and make a move to continue (the clocks start with it).` +
      (S.resume.dropped ? ` Its journal was damaged after that: ${S.resume.dropped}.` : "");
  }
  // the journal: files set aside or damage dropped (nothing lost that was shown), or a
  // journal that cannot be written (the service stops: nothing more is accepted)
  const problems = $("journal-problems");
  const lines = S.phase === "failed" ? [`The board has stopped: ${S.message}. It restarts ` +
    "by itself (systemd) and resumes the game from its journal."] : (S.journal_problems || []);
  problems.hidden = !lines.length;
  problems.textContent = lines.length ? "Journal: " + lines.join(" · ") : "";
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
    const won = S.result.winners.map((w) => names[w]);
    span.textContent = (names.length > 2 && won.length  // "1-0" means little with more players
      ? `${won.join(", ")} win${won.length === 1 ? "s" : ""}` : S.result.text)
      + ` — ${S.result.reason}`;
    $("turn-text").appendChild(span);
    dot.style.background = "transparent";
  } else if (S.mover !== null && S.mover !== undefined) {
    $("turn-text").textContent = `${names[S.mover]} to move` + (S.check ? " — check!" : "")
      + (S.out && S.out.length ? `  ·  out: ${S.out.join(", ")}` : "") + linkWaiting(S);
    dot.style.background = PIECE_COLOURS[names[S.mover].toLowerCase()]?.[0] || "#888";
  } else {
    $("turn-text").textContent = "";
  }
  renderClocks(S, names);
  renderAdvice(S);
  const arrangeHint = S.phase === "setup" && S.sim
    ? " — on the simulated board: press \u201cArrange the pieces\u201d" : "";
  $("phase").textContent = S.die ? "Roll the die (or enter the face of a real die below)"
    : S.computer && S.computer.thinking ? `The computer (level ${S.computer.level}) is thinking…`
    : (PHASE_TEXT[S.phase === "choice" && S.choice_kind in PHASE_TEXT ? S.choice_kind
      : S.phase] || S.phase) + arrangeHint;
  $("commands").hidden = !!S.result || S.phase === "setup";
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
    const opts = [["auto", "side to move"], ...S.viewers.map((n, i) => [String(i), n])
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

  // pieces
  const pg = ui.nodes.pieces;
  pg.innerHTML = "";
  for (const [spot, objects] of Object.entries(S.pieces)) {
    const i = Number(spot);
    drawPile(pg, objects, pt(L.spots[i].centre), pieceRadius(i), `${L.spots[i].name}: ${objectText(objects)}`);
  }
  // fog of war
  const fg = ui.nodes.fog;
  fg.innerHTML = "";
  for (const i of S.fog || []) {
    el("polygon", { points: ptStr(L.spots[i].outline), class: "fog", "fill-opacity": 0.82 }, fg);
  }
  // choice options on their pads
  const og = ui.nodes.options;
  og.innerHTML = "";
  for (const o of S.choice || []) {
    if (o.spot === null || o.spot === undefined) continue;
    const s = L.spots[o.spot];
    const [x, y] = pt(s.centre);
    const t = el("text", { x, y, class: "option-label" }, og);
    t.textContent = `${o.index + 1}: ${o.label}`;
    t.style.fontSize = `${Math.max(3.5, Math.min(7, spotRadius(o.spot) * 0.32))}px`;
  }
  // the face just rolled, on the die pad (until the move is made)
  const last = S.moves.length ? S.moves[S.moves.length - 1].text : null;
  const dieSpot = L.spots.findIndex((s) => s.role === "die");
  if (dieSpot >= 0 && !S.result && last && /^die:\d+$/.test(last)) {
    const [x, y] = pt(L.spots[dieSpot].centre);
    const t = el("text", { x, y, class: "die-face" }, og);
    t.style.fontSize = `${Math.max(6, spotRadius(dieSpot) * 0.9)}px`;
    t.textContent = last.slice(4);
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
  $("choice-title").textContent = S.die ? "Or the face of a real die"
    : S.choice_kind === "menu" ? "Commands" : "Choose";

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
    const t = document.createElement("span");
    t.textContent = m.text === null ? "(hidden)" : m.text;
    if (m.text === null) t.className = "hidden-move";
    li.append(d, t);
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

function chip(obj, extra) {
  const c = document.createElement("span");
  const [fill, ink] = pieceColours(obj);
  c.className = "chip" + (extra ? " count" : "");
  c.style.background = fill;
  c.style.color = ink;
  c.textContent = obj.kind === "cube" ? "▣" : obj.kind;
  c.title = objectName(obj);
  if (extra) { const n = document.createElement("span"); n.className = "n"; n.textContent = extra; c.appendChild(n); }
  return c;
}

function renderSim() {
  const S = ui.state;
  const held = $("held");
  held.innerHTML = "";
  held.classList.toggle("empty", !S.held.length);
  if (!S.held.length) held.textContent = "nothing";
  for (const o of S.held) held.appendChild(chip(o));
  $("to-box").disabled = !S.held.length;
  const sup = $("supply");
  sup.innerHTML = "";
  for (const o of S.supply) {
    const c = chip(o, o.in_box ? `×${o.in_box}` : "");
    c.title = `take ${o.name}` + (o.in_box ? ` (${o.in_box} in the box)` : " (spare)");
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
      o.textContent = g.title + (g.provisional ? " (provisional)" : "")
        + (g.layout ? ` — on the ${g.board.split(",")[0]} (simulated)` : "");
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
    lab.append(inp, " " + n);
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
      lab.append(inp, " " + opt.name.replaceAll("_", " "));
    } else {
      inp.type = opt.type === "int" ? "number" : "text";
      if (opt.default !== null && opt.default !== undefined) inp.value = opt.default;
      const drawn = g.options.some((o) => o.name === "seed");
      inp.placeholder = opt.default === null ? (drawn ? "random" : "default") : "";
      lab.append(opt.name.replaceAll("_", " ") + " ", inp);
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
  target: "a legal target of the lifted piece",
  origin: "the lifted piece",
  last_move: "the last move",
  check: "a King in check",
  missing: "a piece belongs here",
  extra: "take this piece off",
  remove: "take this piece off",
  execute: "a move to make for the other side",
  visible: "a cell you can see",
  enemy: "an opponent's piece you can see",
  active: "a pad you may use now",
  height: "the height of a stack",
  hint: "a hint",
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
    let words = LEGEND_WORDS[name];
    if (name.startsWith("option ")) words = `answer ${name.slice(7)} of a question`;
    if (name.startsWith("player ")) {
      const who = name.slice(7);
      words = S.game.players.includes(who) ? `${who}'s pieces` : null;
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
    const t = document.createElement("span");
    t.textContent = meanings.join(" · ");
    box.append(sw, t);
  }
}

function renderHealth() {
  const h = ui.state.health;
  if (!h) return;
  const f = $("health");
  f.innerHTML = "";
  const s = document.createElement("div");
  const age = h.sensing.last_frame_age_s;
  s.textContent = `Sensing: ${h.sensing.backend} (${h.sensing.state}` +
    (age === null ? ")" : `, last scan ${age.toFixed(2)} s ago)`);
  if (h.sensing.state !== "ok") s.className = "bad";
  const j = document.createElement("div");
  j.textContent = `Journal: ${h.journal || "—"}`;
  f.append(s, j);
}

// ---------------------------------------------------------------------------------
// a game linked with other boards (docs/link.md): one line, and the buttons it needs

function capitalised(text) { return text ? text[0].toUpperCase() + text.slice(1) : ""; }
function otherBoard(link) {
  return (link.seats || []).find((b) => b !== link.board) || "the other board";
}
// who the turn waits for when it is not this board's: " — waiting for beta"
function linkWaiting(S) {
  const L = S.link;
  if (!L || !L.seats || S.result || S.mover === null || S.mover === undefined) return "";
  if (L.takeback && L.takeback.asked !== null) return ` — waiting for ${otherBoard(L)} to answer the takeback`;
  const at = L.seats[S.mover];
  return at && at !== L.board ? ` — waiting for ${at}` : "";
}
function renderLink(S) {
  const L = S.link;
  const offered = L && L.takeback ? L.takeback.offered : null;
  let text = "";
  if (L && L.problem) {
    text = `The game stopped: ${L.problem.replace(/\.$/, "")}.`;
  } else if (offered !== null && offered !== undefined) {
    const back = S.moves.length - offered;
    const who = (L.seats || []).some((b) => b !== L.board) ? `Board ${otherBoard(L)}` : "The other board";
    text = `${who} took ${plural(back, "move")} back and asks you to ` +
      (S.sim ? "agree. Accept takes the same moves back here; Decline plays on."
        : "agree: take the same moves back on the board to accept, or decline.");
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
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    const data = await r.json().catch(() => ({}));
    if (!r.ok) toast(data.error || `${url}: HTTP ${r.status}`);
    return data;
  } catch (e) {
    toast("The board service cannot be reached — is it running? Reconnecting…");
    return {};
  }
}

let toastTimer = null;
function toast(text) {
  const t = $("toast");
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, 3500);
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
  if (window.fairyboardVoice) window.fairyboardVoice(state);
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
  const ws = new WebSocket(`${proto}://${location.host}/ws`);
  ui.ws = ws;
  const conn = $("connection");
  ws.onopen = () => {
    conn.textContent = "live"; conn.className = "connection live";
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
    conn.textContent = "reconnecting…"; conn.className = "connection lost";
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
  hint.textContent = `${spotName(i)}` + (objects.length ? `: ${objectText(objects)}` : " (empty)");
}

function countPopup(ev, max, verb, done) {
  const pop = $("count-popup");
  pop.innerHTML = "";
  const lab = document.createElement("span");
  lab.textContent = `${verb} how many?`;
  pop.appendChild(lab);
  for (let k = 1; k <= max; k++) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = k === max ? `${k} (all)` : String(k);
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
  const t = tool();
  const shift = ev.shiftKey;
  const at = { clientX: ev.clientX, clientY: ev.clientY };
  ui.press = { spot: i, tool: t };
  if (t === "slide") { ui.path = [i]; drawPath(); }
  if (t !== "move") return;
  const press = ui.press;
  enqueue(async () => {
    const held = ui.state.held;
    const objects = pile(i);
    if (held.length) {
      press.placed = true;  // this press puts down; its release does nothing more
      if (shift && held.length > 1) {
        countPopup(at, held.length, "Place", (k) => enqueue(() => sim({ action: "place", spot: spotName(i), count: k })));
      } else {
        await sim({ action: "place", spot: spotName(i) });
      }
      return;
    }
    if (!objects.length) return;
    if (objects.length > 1) {
      press.placed = true;
      countPopup(at, objects.length, "Lift", (k) => enqueue(() => sim({ action: "lift", spot: spotName(i), count: k })));
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
  $("to-box").addEventListener("click", () => enqueue(() => sim({ action: "set_aside" })));
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
      if (b.dataset.command === "resign" && !confirm(`${who} resigns?`)) return;
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

boot();

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
  clockView.names = names;
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
    who.textContent = clockView.names[seat] || `Player ${seat + 1}`;
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
  if (A.busy) lines.push(A.busy === "review" ? "The coach looks at your move…" : "Thinking…");
  // the service words them, in the game's notation ("allows mate in 3", not pawns)
  if (A.hint) lines.push(`Hint: ${A.hint_text || A.hint} (lit in lime on the board)`);
  if (A.evaluation) {
    const e = A.evaluation, best = e.best_text || e.best;
    lines.push(`Evaluation for the side to move: ${e.text}` + (best ? ` — best ${best}` : ""));
  } else if (A.hidden && !A.busy) {
    lines.push("Hints come from your own view only; no evaluation in a fog-of-war game.");
  }
  if (A.note) lines.push(`Coach: ${A.note.text}.`);
  $("advice").textContent = lines.join("\n");
}
