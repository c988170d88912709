// The play page: the game drawn on its printed board with the companion page's drawing
// (/static/board.js), the seat's legal targets shown when one of its pieces is clicked
// and the move sent when a target is; several moves on the same cells (a promotion, a
// Tower's split, the Cube) are asked, never guessed.  A seat follows its game stream (the
// same as a board's, with the session cookie) and asks the server for its drawn board at
// every change (in a game with hidden information: its own view only); a watcher
// follows the game's watch stream.  Every POST carries the session's CSRF token.
// Its words are the reader's language's: t(…) of the companion page's i18n.js (loaded
// before this file, its texts from the server's /api/texts), the game's statuses as the
// page was rendered with them (data-statuses).
"use strict";
const ui = { layout: null, layoutName: "", flipped: false, nodes: {}, pieceCap: Infinity };

window.fairyboardTexts.then(() => {
  const $ = (id) => document.getElementById(id);
  const root = $("play");
  const game = root.dataset.game, csrf = root.dataset.csrf, watching = root.dataset.watch === "1";
  const statuses = JSON.parse(root.dataset.statuses || "{}");
  const svg = $("board"), status = $("status"), problem = $("problem");
  let seat = null, state = null, board = null, selected = null, asked = 0, seats = 2;

  async function post(path) {
    const response = await fetch(path, { method: "POST", headers: { "X-CSRF-Token": csrf } });
    let answer = {};
    try { answer = await response.json(); } catch (e) { answer = { error: t("the server answered {status}", { status: response.status }) }; }
    problem.textContent = answer.error || "";
    return !answer.error;
  }

  // -- the board ------------------------------------------------------------------------
  async function drawn(data) {
    svg.style.display = data.layout ? "" : "none";  // no printed board: the moves as buttons
    if (data.layout && data.layout !== ui.layoutName) {
      const response = await fetch(`/api/layout/${data.layout}`);
      ui.layout = await response.json();
      ui.layoutName = data.layout;
      ui.flipped = data.seat === 1 && data.seats.length === 2;
      drawBoard(svg);
    }
    board = data;
    seats = data.seats.length;
    if (selected !== null && !board.moves.some((m) => m.from === selected)) selected = null;
    $("position").textContent = data.position || "";
    if (data.layout) drawPieces(data);
    notation(data);
    others();
    choose([]);
    svg.dataset.ply = data.ply;  // (drawn: the page's tests wait on it)
    svg.dataset.status = data.status;
  }

  function drawPieces(data) {
    const pieces = ui.nodes.pieces, fog = ui.nodes.fog;
    pieces.innerHTML = "";
    fog.innerHTML = "";
    for (const [spot, objects] of Object.entries(data.pieces)) {
      const i = Number(spot), s = ui.layout.spots[i];
      drawPile(pieces, objects, pt(s.centre), pieceRadius(i), s.name);
    }
    for (const i of data.fog) {
      el("polygon", { points: ptStr(ui.layout.spots[i].outline), class: "fog", "fill-opacity": 0.82 }, fog);
    }
    marks();
  }

  // the selected piece and its targets, lit as the board's LEDs light them
  function marks() {
    if (!ui.nodes.ledfill) return;
    const fills = ui.nodes.ledfill.children;
    for (const f of fills) { f.setAttribute("fill", "none"); f.removeAttribute("data-mark"); }
    if (selected === null || !board || !board.layout) return;
    fills[selected].setAttribute("fill", "#e0a030");
    fills[selected].setAttribute("fill-opacity", "0.45");
    fills[selected].dataset.mark = "selected";
    for (const m of board.moves) {
      if (m.from !== selected || m.to === null) continue;
      fills[m.to].setAttribute("fill", "#3f8fe0");
      fills[m.to].setAttribute("fill-opacity", "0.45");
      fills[m.to].dataset.mark = "target";
    }
  }

  function notation(data) {
    const list = $("moves"), told = data.notation || [];
    list.innerHTML = "";
    for (let k = 0; k < told.length; k += seats) {
      const li = document.createElement("li");
      li.textContent = told.slice(k, k + seats).join(" ");
      list.appendChild(li);
    }
    if (told.length < data.ply) {  // a game with hidden information, being played
      const li = document.createElement("li");
      li.className = "hidden-moves";
      li.textContent = t("{count} plies played; the moves are told when the game ends", { count: data.ply });
      list.appendChild(li);
    }
  }

  // the moves made with no cell of the board (a pass): buttons of their own
  function others() {
    const box = $("other-moves");
    if (!box) return;
    box.innerHTML = "";
    for (const m of board.moves.filter((x) => x.from === null || x.to === null)) {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = m.label;
      b.addEventListener("click", () => send(m.text));
      box.appendChild(b);
    }
  }

  // several moves on the cells clicked: the player chooses (none is guessed)
  function choose(moves) {
    const box = $("choice");
    if (!box) return;
    box.hidden = !moves.length;
    const options = $("choice-options");
    options.innerHTML = "";
    for (const m of moves) {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = m.label;
      b.addEventListener("click", () => send(m.text));
      options.appendChild(b);
    }
  }

  async function send(text) {
    selected = null;
    choose([]);
    if (board) marks();
    await post(`/api/board/game/${game}/move/${encodeURIComponent(text)}`);
  }

  svg.addEventListener("click", (event) => {
    if (watching || !board || !board.moves.length) return;
    const spot = event.target.closest("[data-spot]");
    if (!spot) return;
    const i = Number(spot.dataset.spot);
    if (selected !== null) {
      const fit = board.moves.filter((m) => m.from === selected && m.to === i);
      if (fit.length === 1) { send(fit[0].text); return; }
      if (fit.length > 1) { choose(fit); return; }
    }
    selected = selected !== i && board.moves.some((m) => m.from === i) ? i : null;
    choose([]);
    marks();
  });

  // -- the game's state -----------------------------------------------------------------
  function clock(ms) {
    return `${Math.floor(ms / 60000)}:${String(Math.floor(ms / 1000) % 60).padStart(2, "0")}`;
  }
  function shown(s) {
    state = s;
    const times = (s.times || []).map(clock).join(" · ");
    if (s.status !== "started") {
      const over = s.result || statuses[s.status] || s.status;
      status.textContent = s.reason ? t("game over: {result} ({reason})", { result: over, reason: t(s.reason) })
        : t("game over: {result}", { result: over });
    } else if (watching) {
      status.textContent = t("watching · {times}", { times });
    } else {
      status.textContent = `${s.turn === seat ? t("your move") : t("waiting for your turn")} · ${times}`;
    }
    const actions = $("actions"), offer = $("offer");
    if (!actions) return;
    actions.hidden = s.status !== "started";
    const draw = (s.drawOffers || []).filter((x) => x !== seat);
    const mine = (s.drawOffers || []).includes(seat);
    const takeback = s.takebackOffer !== undefined && s.takebackOffer !== null && s.takebackOffer !== seat;
    offer.hidden = s.status !== "started" || !((draw.length && !mine) || takeback);
    offer.dataset.act = takeback ? "takeback" : "draw";
    $("offer-text").textContent = takeback ? t("Your opponent asks to take the last move back.")
      : t("Your opponent offers a draw.");
  }

  async function refresh() {
    const mine = ++asked;
    const response = await fetch(`/api/board/game/${game}/board`);
    const data = await response.json();
    if (mine !== asked) return;  // a newer answer is on its way
    if (data.error) { problem.textContent = data.error; return; }
    await drawn(data);
  }

  async function lines(path, each) {
    const response = await fetch(path);
    if (!response.ok) { const a = await response.json(); problem.textContent = a.error || ""; return; }
    await ndjsonLines(response, each);
  }

  async function follow() {
    if (watching) {
      await lines(`/api/board/game/${game}/watch`, async (data) => {
        shown({ status: data.status, turn: data.turn, times: data.times, result: data.result, reason: data.reason });
        await drawn(data);
      });
      return;
    }
    await lines(`/api/board/game/stream/${game}`, async (item) => {
      if (item.type === "gameFull") { seat = item.seat; shown(item.state); } else if (item.type === "gameState") shown(item);
      else return;
      refresh();
    });
  }

  if (!watching) {
    $("move").addEventListener("submit", async (event) => {
      event.preventDefault();
      const field = event.target.elements.move;
      if (await post(`/api/board/game/${game}/move/${encodeURIComponent(field.value.trim())}`)) field.value = "";
    });
    const asking = {};
    for (const b of $("actions").querySelectorAll("button[data-act]")) {
      const plain = b.textContent;
      b.addEventListener("click", async () => {
        const act = b.dataset.act;
        if ((act === "resign" || act === "abort") && !asking[act]) {  // asked once more
          asking[act] = true;
          b.textContent = t("{action}: are you sure? Click again", { action: plain });
          return;
        }
        asking[act] = false;
        b.textContent = plain;
        await post(`/api/board/game/${game}/${act}`);
      });
    }
    $("offer-yes").addEventListener("click", () => post(`/api/board/game/${game}/${$("offer").dataset.act}/yes`));
    $("offer-no").addEventListener("click", () => post(`/api/board/game/${game}/${$("offer").dataset.act}/no`));
  }
  follow().catch(() => { status.textContent = t("the connection is lost: reload the page"); });
});
