// The screen-reader mode (like lichess's blind mode): moves typed on the keyboard — in the
// game's notation ("Nc3", "T2d1-d4", "P@e5") or by cells ("b1 c3") — and the board read
// out on demand: where a kind of piece stands, what the piece on a cell can do, the whole
// board.  Every answer comes from the board service (controller/web/access.py), cut to
// what this page's player may know; the moves themselves are announced by voice.js's live
// region like every other move.  The mode is remembered in localStorage; when it is on
// the drawn board is hidden from screen readers (the text says everything it shows).
(function () {
  // (t: the catalogue's extraction finds every t("…") of the page's scripts)
  const t = (text, values) => (typeof window.t === "function" ? window.t(text, values) : text);
  const $ = (id) => document.getElementById(id);
  const box = $("access-on");
  const panel = $("access-panel");
  const answer = $("access-answer");
  const choices = $("access-choices");
  const kinds = $("access-kind");
  const KEY = "fairyboard-access";
  let api = null;
  let game = null;  // the game whose pieces the "where" list names
  let cells = [];  // its cells' names, lower case (to tell "? c3" from "? Tower")
  // whose view the page shows in a game with hidden information (null: no hidden
  // information); an answer made for one player is never left for the next to read
  let seat = null;

  function clear() {
    answer.textContent = "";
    choices.replaceChildren();
  }

  function say(text) {
    // the same text twice is still read again: clear first, write on the next frame
    answer.textContent = "";
    const to = seat;
    requestAnimationFrame(() => { if (seat === to) answer.textContent = text; });
  }

  function apply(on) {
    panel.hidden = !on;
    const board = $("board");
    if (board) board.setAttribute("aria-hidden", on ? "true" : "false");
    document.body.classList.toggle("access-mode", on);
  }

  function showChoices(list) {
    choices.replaceChildren();
    for (const text of list || []) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "secondary";
      b.textContent = text;
      b.addEventListener("click", () => { choices.replaceChildren(); play(text); });
      choices.appendChild(b);
    }
  }

  async function play(text) {
    if (!api) return;
    const asked = seat;
    const data = await api.post("/api/access/move", { text, viewer: api.viewer() });
    if (seat !== asked) return;  // the turn passed to another player meanwhile
    if (data.ok) {
      showChoices([]);
      say(t("Playing {move}", { move: data.move }));
      $("access-move").value = "";
    } else if (data.choices) {
      showChoices(data.choices);
      say(data.message);
    } else if (data.error) {
      say(data.error);
    }
  }

  async function ask(question) {
    if (!api) return;
    const asked = seat;
    const data = await api.post("/api/access/ask",
                                Object.assign({ viewer: api.viewer() }, question));
    if (seat !== asked) return;  // the turn passed to another player meanwhile
    say(data.ok ? data.text : (data.error || t("No answer")));
  }

  // typed questions: "?" the board, "? c3" the piece on c3, "? Tower" where Towers stand
  function typed(text) {
    const rest = text.slice(1).trim();
    if (!rest) return ask({ ask: "board" });
    const isCell = cells.includes(rest.toLowerCase());
    return ask(isCell ? { ask: "piece", cell: rest } : { ask: "where", kind: rest });
  }

  async function loadKinds() {
    const viewer = api ? api.viewer() : null;
    const r = await fetch(`/api/access${viewer === null ? "" : `?viewer=${viewer}`}`);
    if (!r.ok) return;
    const data = await r.json();
    cells = data.cells.map((c) => c.toLowerCase());
    kinds.replaceChildren();
    for (const k of data.kinds) {
      const o = document.createElement("option");
      o.value = k.kind;
      o.textContent = k.name;
      kinds.appendChild(o);
    }
  }

  const saved = localStorage.getItem(KEY) === "1";
  box.checked = saved;
  apply(saved);
  box.addEventListener("change", () => {
    localStorage.setItem(KEY, box.checked ? "1" : "0");
    apply(box.checked);
    if (box.checked) $("access-move").focus();
  });
  $("access-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("access-move").value.trim();
    if (!text) { say(t("Type a move, for example e2 e4, or ? to hear the board")); return; }
    if (text.startsWith("?")) { typed(text); $("access-move").value = ""; } else play(text);
  });
  $("access-board").addEventListener("click", () => ask({ ask: "board" }));
  $("access-where").addEventListener("click", () => ask({ ask: "where", kind: kinds.value }));
  $("access-piece-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const cell = $("access-cell").value.trim();
    if (cell) ask({ ask: "piece", cell }); else say(t("Type a cell, for example c3"));
  });

  (window.fairyboardSections = window.fairyboardSections || []).push(function (state, pageApi) {
    api = pageApi;
    const id = state.game && `${state.game.name}/${state.game.id}`;
    if (id && (!game || game.key !== id)) {
      game = Object.assign({ key: id }, state.game);
      showChoices([]);
      loadKinds();
    }
    const viewer = state.viewers ? state.viewer : null;
    if (viewer !== seat) {  // hot seat: the next player's view — he hears nothing of ours
      seat = viewer;
      clear();
    }
    if (box.checked) apply(true);  // the page may have redrawn the board
  });
})();
