// The owner's settings: the game started by default, the computer and its level, the
// clock, the coach, the LED brightness, the players' names, the voice's language and
// volume — drawn from what the service describes (each with its help and when it takes
// effect), saved to the configuration file with the file's own validation (a bad value is
// shown at its field and nothing is saved).  The pairing code and the online token are
// only ever shown masked.
(function () {
  const $ = (id) => document.getElementById(id);
  const t = (text, values) => window.t(text, values);
  const N_ = (text) => text;  // a text translated when it is shown
  const box = $("settings");
  let api = null;
  let described = [];
  let loads = 0;  // the newest load wins: an older answer arriving late never redraws the form
  // what the owner typed or ticked since the last save: a redraw keeps it (a load answered
  // after he began to edit would otherwise put the file's values back under his hands)
  let edited = {};
  $("settings-form").addEventListener("input", (e) => {
    const key = e.target.dataset && e.target.dataset.key;
    if (key) edited[key] = e.target.type === "checkbox" ? e.target.checked : e.target.value;
  });

  const LABELS = {
    "board.game": N_("Game at start"), "board.options": N_("Its options"),
    "board.computer": N_("The computer plays"), "board.computer_level": N_("Computer level"),
    "board.clock": N_("Clock"), "board.on_flag": N_("When a flag falls"), "board.coach": N_("Coach"),
    "board.coach_margin": N_("Coach speaks from (centipawns)"),
    "board.menu_hint": N_("Hint in the board's menu"), "board.takeback": N_("Takebacks"),
    "leds.brightness": N_("LED brightness"), "players.names": N_("Players' names"),
    "speech.language": N_("Voice language"), "speech.volume": N_("Sound volume"),
    "engine.adaptive": N_("Computer level follows your results"),
  };
  const APPLIES = { now: N_("takes effect at once"), "next game": N_("from the next game"),
                    restart: N_("after the board restarts") };
  const label = (key) => (LABELS[key] ? t(LABELS[key]) : key);

  function input(item) {
    let el;
    if (item.choices) {
      el = document.createElement("select");
      for (const c of item.choices) {
        const o = document.createElement("option");
        // the value is sent back; the words are the page's language (a game's title)
        o.value = c; o.textContent = (item.labels && item.labels[c]) || c;
        el.appendChild(o);
      }
      el.value = item.value;
    } else if (item.type === "bool") {
      el = document.createElement("input");
      el.type = "checkbox";
      el.checked = !!item.value;
    } else if (item.type === "int" || item.type === "number") {
      el = document.createElement("input");
      el.type = "number";
      if (item.min !== undefined) { el.min = item.min; el.max = item.max; }
      el.step = item.type === "int" ? "1" : "0.05";
      el.value = item.value;
    } else {
      el = document.createElement("input");
      el.type = "text";
      el.value = item.type === "table" ? JSON.stringify(item.value)
        : Array.isArray(item.value) ? item.value.join(", ") : item.value;
      if (item.type.startsWith("list")) el.placeholder = t("comma separated");
      if (item.type === "table") el.placeholder = t("a JSON table such as {example}", { example: '{"players": 3}' });
    }
    el.name = item.key;
    el.dataset.key = item.key;
    return el;
  }

  // the field's value as JSON, or an Error with the problem (a table that is not JSON)
  function value(item, el) {
    if (el.type === "checkbox") return el.checked;
    const text = el.value.trim();
    if (item.type === "int" || item.type === "number") {
      return text === "" ? text : Number(text);
    }
    if (item.type === "table") {
      try { return text ? JSON.parse(text) : {}; } catch (e) {
        return new Error(t("{key}: expected a JSON table such as {example}", { key: item.key, example: '{"name": value}' }));
      }
    }
    if (item.type.startsWith("list")) return text ? text.split(",").map((s) => s.trim()) : [];
    return text;
  }

  function fieldOf(key) { return $("settings-form").querySelector(`.setting[data-key="${key}"]`); }

  function clearErrors() {
    for (const f of $("settings-form").querySelectorAll(".setting")) {
      f.classList.remove("invalid");
      f.querySelector(".field-error").textContent = "";
    }
  }

  function showError(key, text) {
    const f = key && fieldOf(key);
    if (f) {
      f.classList.add("invalid");
      f.querySelector(".field-error").textContent = text;
      f.scrollIntoView({ block: "nearest" });
    }
    if (api) api.toast(text);
  }

  async function load() {
    const mine = ++loads;
    let data;
    try {
      const r = await fetch("/api/settings", { headers: { "Accept-Language": window.fairyboardLanguage() } });
      data = await r.json();
      if (mine !== loads) return;
      if (!r.ok) { $("settings-note").textContent = data.error || `HTTP ${r.status}`; return; }
    } catch (e) {
      return;
    }
    described = data.settings;
    $("settings-note").textContent = data.saveable
      ? t("Saved to the board's configuration ({file}). Settings marked \"{later}\" apply {restart}.",
          { file: data.file, later: t("after the board restarts"), restart: t(data.restart) })
      : t("This board was started without a configuration file (fairyboard run --config FILE): settings can be read here but not saved.");
    $("settings-save").disabled = !data.saveable;
    const form = $("settings-form");
    form.innerHTML = "";
    for (const item of described) {
      const f = document.createElement("label");
      f.className = "setting";
      f.dataset.key = item.key;
      const name = document.createElement("span");
      name.textContent = label(item.key);
      const applies = document.createElement("span");
      applies.className = "applies";
      applies.textContent = APPLIES[item.applies] ? t(APPLIES[item.applies]) : item.applies;
      const help = document.createElement("span");
      help.className = "help";
      help.textContent = t(item.help);
      const error = document.createElement("span");
      error.className = "field-error";
      error.setAttribute("role", "alert");
      const field = input(item);
      if (item.key in edited) {
        if (field.type === "checkbox") field.checked = edited[item.key];
        else field.value = edited[item.key];
      }
      f.append(name, field, applies, help, error);
      if (item.key === "board.computer_level") {
        const rating = document.createElement("span");
        rating.className = "level-rating";
        f.insertBefore(rating, applies);
      }
      form.appendChild(f);
    }
    showLevelRating();
    secrets(data);
  }

  // beside the computer level: its rating in the game the board starts with (levels.js)
  function showLevelRating() {
    const form = $("settings-form");
    const shown = form.querySelector(".level-rating");
    const level = form.querySelector('[data-key="board.computer_level"]:not(label)');
    const game = form.querySelector('[data-key="board.game"]:not(label)');
    if (shown && level && window.fairyboardLevelRating) {
      shown.textContent = window.fairyboardLevelRating(game ? game.value : "", Number(level.value));
    }
  }
  $("settings-form").addEventListener("input", showLevelRating);
  $("settings-form").addEventListener("change", showLevelRating);

  function secrets(data) {
    const s = $("settings-secrets");
    s.innerHTML = "";
    const pairing = document.createElement("div");
    pairing.className = "secret pairing";
    pairing.textContent = data.pairing.needed
      ? t("Pairing code of the page: {code} (printed in the board's log).",
          { code: data.pairing.masked || t("none yet") }) + " "
      : t("Pairing code: not needed (the page is served to this machine only).") + " ";
    if (data.pairing.needed) {
      const renew = document.createElement("button");
      renew.type = "button";
      renew.className = "secondary";
      renew.textContent = t("Make a new code");
      renew.title = t("every paired browser pairs again with the new code, after the board restarts");
      renew.addEventListener("click", async () => {
        if (!confirm(t("Make a new pairing code? Every browser pairs again after the board restarts."))) return;
        const r = await api.post("/api/settings/pairing", { renew: true });
        if (r.ok) { await load(); api.toast(t("New pairing code {code}: used {applies}", { code: r.masked, applies: t(r.applies) })); }
      });
      pairing.appendChild(renew);
    }
    const online = document.createElement("div");
    online.className = "secret online-token";
    online.append(t("Online token: {token}", { token: data.online_token || t("none saved") }) + " ");
    const field = document.createElement("input");
    field.type = "password";
    field.id = "settings-online-token";
    field.autocomplete = "off";
    field.placeholder = t("paste a new token");
    const save = document.createElement("button");
    save.type = "button";
    save.className = "secondary";
    save.textContent = t("Save token");
    save.addEventListener("click", async () => {
      const r = await api.post("/api/settings/online-token", { token: field.value });
      field.value = "";
      if (r.ok) { await load(); api.toast(t("Online token saved ({token})", { token: r.online_token })); }
    });
    online.append(field, save);
    s.append(pairing, online);
  }

  async function saveChanges() {
    loads++;  // a load still on its way holds the file as it was: it never draws over this save
    clearErrors();
    const changes = {};
    for (const item of described) {
      const el = $("settings-form").querySelector(`[data-key="${item.key}"]:not(label)`);
      const v = value(item, el);
      if (v instanceof Error) { showError(item.key, v.message); return; }
      if (JSON.stringify(v) !== JSON.stringify(item.value)) changes[item.key] = v;
    }
    if (!Object.keys(changes).length) { api.toast(t("Nothing changed")); return; }
    let data;
    try {
      const r = await fetch("/api/settings", {
        // (its refusal comes in the page's language, the values kept)
        method: "POST", headers: { "Content-Type": "application/json",
                                   "Accept-Language": window.fairyboardLanguage() },
        body: JSON.stringify({ changes }),
      });
      data = await r.json().catch(() => ({}));
      if (!r.ok) { showError(data.field, data.error || `HTTP ${r.status}`); return; }
    } catch (e) {
      api.toast(t("The board service cannot be reached — is it running? Reconnecting…"));
      return;
    }
    // the form is drawn again from the saved file before "Saved" shows, so an edit made
    // after the toast is never wiped by this redraw (nor an error shown at its field)
    edited = {};
    await load();
    const later = data.after_restart.map(label);
    api.toast(later.length ? t("Saved; after the board restarts: {settings}", { settings: later.join(", ") })
      : t("Saved"));
  }

  $("settings-save").addEventListener("click", () => saveChanges());
  box.addEventListener("toggle", () => { if (box.open) load(); });

  (window.fairyboardSections = window.fairyboardSections || []).push(function (state, pageApi) {
    api = pageApi;
  });
})();
