// Online play (docs/online.md): the owner's token (sent once, shown masked), seeking an
// opponent or challenging one by name — in any game the connected server plays and this
// board can, with the game's own options (the room's "games": each game's declared
// options) — the challenges waiting, and the online game's commands. During an online game the engine's help is off on the board and here: the
// Hint, Evaluate and Coach controls are disabled with the reason (the service refuses
// them too).
(function () {
  const $ = (id) => document.getElementById(id);
  const FAIR = () => window.t("Off during an online game: fair play (no engine, hints, evaluation or coach).");
  let api = null;
  let streamed = 0;  // states shown from the state stream
  const number = (id) => Number($(id).value);
  function send(url, body) {
    // before the page's first state, the page's API by its global name (app.js)
    if (!api && typeof pageApi !== "undefined") api = pageApi;  // eslint-disable-line no-undef
    if (!api) return Promise.resolve();
    // a request's answer is the state when it was answered: one that arrives after a
    // newer state from the stream is older than what is shown, and is not drawn (the
    // owner's chat line, taken by the server meanwhile, vanished until the next move)
    const before = streamed;
    return api.post(url, body).then((data) => {
      if (data && data.ok && streamed === before) render(data.online);
    });
  }
  function button(text, onClick, secondary) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = text;
    if (secondary) b.className = "secondary";
    b.addEventListener("click", onClick);
    return b;
  }
  // the seek and challenge forms' games and each one's option fields
  let gamesKey = "";
  let games = [];
  const optionLabel = (name) => window.t(name).replaceAll("_", " ");
  function renderGames(list) {
    const key = JSON.stringify(list || []);
    if (key === gamesKey) return;  // (the owner's choices stay while nothing changed)
    gamesKey = key;
    games = list || [];
    const sel = $("online-variant");
    const was = sel.value;
    sel.innerHTML = "";
    for (const g of games) {
      const o = document.createElement("option");
      o.value = g.name;
      o.textContent = window.t(g.title);
      sel.appendChild(o);
    }
    if (games.some((g) => g.name === was)) sel.value = was;
    renderOptions();
  }
  function renderOptions() {
    const box = $("online-options");
    box.innerHTML = "";
    const g = games.find((x) => x.name === $("online-variant").value);
    for (const opt of g ? g.options : []) {
      const lab = document.createElement("label");
      lab.title = opt.help;
      let inp;
      if (opt.choices.length) {
        inp = document.createElement("select");
        for (const c of opt.choices) {
          const o = document.createElement("option");
          o.value = String(c); o.textContent = String(c);
          inp.appendChild(o);
        }
        inp.value = String(opt.default);
      } else {
        inp = document.createElement("input");
        if (opt.type === "bool") { inp.type = "checkbox"; inp.checked = !!opt.default; }
        else {
          inp.type = opt.type === "int" ? "number" : "text";
          if (opt.low !== null) inp.min = opt.low;
          if (opt.high !== null) inp.max = opt.high;
          if (opt.default !== null) inp.value = opt.default;
          else inp.placeholder = window.t("default");
        }
      }
      inp.name = opt.name;
      inp.dataset.type = opt.type;
      if (opt.type === "bool") lab.append(inp, " " + optionLabel(opt.name));
      else lab.append(optionLabel(opt.name) + " ", inp);
      box.appendChild(lab);
    }
  }
  function chosen() {
    // the game and its options as the room reads them (an empty field: the default)
    const options = {};
    for (const inp of $("online-options").querySelectorAll("input, select")) {
      if (inp.dataset.type === "bool") options[inp.name] = inp.checked;
      else if (inp.value !== "") options[inp.name] = inp.dataset.type === "int" ? Number(inp.value) : inp.value;
    }
    return { variant: $("online-variant").value, options };
  }
  function described(title, options) {
    // a game's title and its chosen options: "KaleidoChess (players 3, dice)"
    const parts = Object.entries(options || {}).filter(([, v]) => v !== false && v !== null)
      .map(([k, v]) => (v === true ? optionLabel(k) : optionLabel(k) + " " + v));
    return window.t(title) + (parts.length ? " (" + parts.join(", ") + ")" : "");
  }
  function wire() {
    $("online-variant").addEventListener("change", renderOptions);
    $("online-token-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      const box = $("online-token-input");
      const token = box.value;
      box.value = "";  // the page keeps no copy
      send("/api/online/token", { token });
    });
    $("online-token-clear").addEventListener("click", () => send("/api/online/token", { clear: true }));
    $("online-seek-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      const days = $("online-days").value;
      const body = { rated: $("online-rated").checked, colour: $("online-colour").value,
        ...chosen() };
      if (days) body.days = Number(days);
      else Object.assign(body, { minutes: number("online-minutes"), increment: number("online-increment") });
      send("/api/online/seek", body);
    });
    $("online-seek-cancel").addEventListener("click", () => send("/api/online/seek", { cancel: true }));
    $("online-challenge").addEventListener("click", () => send("/api/online/challenge", {
      name: $("online-name").value, minutes: number("online-minutes"),
      increment: number("online-increment"), rated: $("online-rated").checked,
      colour: $("online-colour").value, ...chosen() }));
    $("online-chat-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      const box = $("online-chat-input");
      const text = box.value.trim();
      if (!text) return;
      send("/api/online/chat", { text }).then(() => { box.value = ""; });
    });
    $("online-open").addEventListener("click", () => send("/api/online/challenge", {
      open: true, minutes: number("online-minutes"), increment: number("online-increment"),
      ...chosen() }));
  }
  function render(O) {
    if (!O) return;
    $("online-account").textContent = O.token
      ? window.t("{server}: {account} (token {token})", { server: O.server, token: O.token,
        account: O.account ? window.t("playing as {name}", { name: O.account }) : window.t("connecting…") })
      : window.t("{server}: no token yet — create one with the scope board:play and paste it here.", { server: O.server });
    $("online-token-clear").hidden = !O.token;
    $("online-token-form").hidden = !!O.playing;  // the token stays during a game
    $("online-find").hidden = !O.token || O.playing;
    $("online-seek-cancel").hidden = !O.seeking;
    $("online-seeking").textContent = O.seeking ? (O.seeking.variant !== "standard"
      ? window.t("Seeking a {clock} game of {game}…", { clock: O.seeking.clock,
        game: described(O.seeking.title, O.seeking.options) })
      : window.t("Seeking a {clock} game…", { clock: O.seeking.clock })) : "";
    $("online-open-url").textContent = O.open_url ? window.t("Open challenge: {url}", { url: O.open_url }) : "";
    const incoming = $("online-challenges");
    incoming.innerHTML = "";
    for (const c of O.challenges || []) {
      const li = document.createElement("li");
      li.dataset.challenge = c.id;
      const what = [c.clock, described(c.title, c.options), c.rated ? window.t("rated") : ""];
      li.textContent = window.t("{name} challenges you ({what})", { name: c.from,
        what: what.filter(Boolean).join(", ") }) + " ";
      if (c.problem) {  // a game this board cannot play: why, and no Accept
        const why = document.createElement("span");
        why.className = "message";
        why.textContent = window.t("not playable on this board: {reason}", { reason: c.problem }) + " ";
        li.append(why);
      } else {
        li.append(button(window.t("Accept"), () => send("/api/online/answer", { challenge: c.id, accept: true })));
      }
      li.append(button(window.t("Decline"), () => send("/api/online/answer", { challenge: c.id, accept: false }), true));
      incoming.appendChild(li);
    }
    const G = O.game;
    $("online-game").hidden = !G;
    if (G) {
      const link = $("online-url");
      link.href = G.url; link.textContent = G.url;
      const them = (G.players || [])[1 - G.mine] || "?";
      // the server's status in words, already in the page's language (the wire's word
      // itself only when the board has no words for it)
      $("online-status").textContent = window.t("Against {name}: {status}", { name: them, status: G.status_text || G.status }) +
        (G.gone ? " — " + window.t("your opponent left the game") : "") +
        (G.draw_offer !== null && G.draw_offer !== undefined && G.draw_offer !== G.mine ? " — " + window.t("draw offered") : "") +
        (G.takeback_offer !== null && G.takeback_offer !== undefined && G.takeback_offer !== G.mine ? " — " + window.t("takeback asked") : "");
      const box = $("online-commands");
      box.innerHTML = "";
      for (const name of O.commands || []) {
        // shown by its catalogue message; sent by its name (the server's command)
        const label = window.t(name);
        const b = button(label[0].toUpperCase() + label.slice(1), () => send("/api/online/command", { command: name }), true);
        b.dataset.online = name;
        box.appendChild(b);
      }
    }
    // the chat: shown as text (never markup), never spoken
    const chat = $("online-chat");
    chat.innerHTML = "";
    for (const line of O.chat || []) {
      const li = document.createElement("li");
      li.textContent = `${line.from}: ${line.text}`;
      chat.appendChild(li);
    }
    $("online-notices").textContent = (O.notices || []).join("\n");
  }
  function fairPlay(on) {
    for (const el of document.querySelectorAll("#advice-box button, #coach-on")) {
      if (on) { el.disabled = true; el.title = FAIR(); }
      else if (el.title === FAIR()) { el.title = ""; el.disabled = el.id === "coach-on" && el.disabled; }
    }
    $("online-fair").hidden = !on;
  }
  wire();  // at once: a click before the first state must not submit the form
  (window.fairyboardSections = window.fairyboardSections || []).push(function (state, pageApi) {
    api = pageApi;
    const O = state.online;
    streamed += 1;
    render(O);
    // the forms' games from the state stream only (in order): a request's answer may
    // arrive after a newer state and must not empty the owner's choice
    if (O) renderGames(O.games);
    fairPlay(!!(O && O.playing));
    const c = state.clock;
    $("online-executing").textContent = c && c.server && c.executing_s !== null && c.executing_s !== undefined
      ? window.t("Making the opponent's move on the board: {seconds} s (your clock runs on the server)", { seconds: c.executing_s.toFixed(1) }) : "";
  });
})();
