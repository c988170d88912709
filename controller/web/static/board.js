// The board drawing of every layout (square 8 and 9, KaleidoChess's round board, the
// lotus board): every spot's outline from the layout JSON (mm), its name, the rivers and
// the piles of pieces.  One home for the companion page (app.js) and the fairyboard
// server's play page (controller/server/static/play.js), which both load this file.
// It draws on the page's `ui` (`layout`, `flipped`, `pieceCap`, `nodes`) and names pads
// with the page's `t(…)`: each page declares both before it draws.
"use strict";
const SVGNS = "http://www.w3.org/2000/svg";

// piece colours by owner colour name: [fill, letter]
const PIECE_COLOURS = {
  white: ["#f3eee4", "#2a2420"],
  black: ["#2c2724", "#f0eadf"],
  red: ["#c63a2f", "#fff4ee"],
  green: ["#2f8c57", "#f0fff4"],
  cube: ["#e0a030", "#2a2420"],  // tokens by their name (Lùotuoqí's Cube)
  other: ["#888", "#111"],
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

// The board's fixed part in `svg`: spots, LED fills and dots, names, rivers, and the
// empty groups the page fills (pieces, fog, options, …).
function drawBoard(svg) {
  const L = ui.layout;
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
      const tx = el("text", { x, y: y - 0.5, class: "cell-name" }, ui.nodes.names);
      tx.style.fontSize = `${Math.max(3, Math.min(6, r * 0.3))}px`;
      tx.textContent = s.name;
    } else if (s.kind === "cell") {
      const c = pt(s.centre);
      const [x, y] = [c[0] - r * 0.92, c[1] + r * 0.92];
      const tx = el("text", { x, y: y - 0.5, class: "cell-name" }, ui.nodes.names);
      tx.style.fontSize = `${Math.max(3, Math.min(6, r * 0.3))}px`;
      tx.textContent = s.name;
    } else {
      const [x, y] = pt([s.centre[0], s.centre[1] - r * 0.98]);
      const tx = el("text", { x, y: y - 1, class: "pad-name", "text-anchor": "middle" }, ui.nodes.names);
      tx.textContent = s.words ? t(s.words.text, s.words.values) : t(s.label);
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
      const tx = el("text", { x: lx, y: ly + 1.4, class: "river-label", "text-anchor": "middle" },
        ui.nodes.rivers);
      tx.textContent = t("River");
    }
  }
}

function pieceColours(obj) { return PIECE_COLOURS[obj.colour] || PIECE_COLOURS.other; }

// Draw one pile (bottom first) centred on a point of radius r (mm)
function drawPile(parent, objects, c, r, title) {
  const g = el("g", {}, parent);
  if (title) { const tx = el("title", {}, g); tx.textContent = title; }
  if (!objects.length) return g;
  const top = objects[objects.length - 1];
  // how many of the same object form the top of the pile (a Tower, a Pawn stack)
  let same = 0;
  for (let k = objects.length - 1; k >= 0 && objects[k].name === top.name; k--) same++;
  const below = objects.length - same;
  const [x, y] = c;
  const rad = r * 0.72;
  if (top.kind === "token") {  // a game's off-board token, drawn as a block
    const s = rad * 1.5;
    el("rect", { x: x - s / 2, y: y - s / 2, width: s, height: s, rx: 2, fill: pieceColours(top)[0],
      stroke: "#3a2a10", "stroke-width": 0.8, filter: "url(#shadow)",
      transform: `rotate(${top.lying ? 30 : 0} ${x} ${y})` }, g);
    const tx = el("text", { x, y, class: "piece-letter", fill: "#3a2a10" }, g);
    tx.style.fontSize = `${rad * 0.55}px`;
    tx.textContent = t(top.title);
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
