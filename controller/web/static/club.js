// The spectators' page: the club's linked games as the broker's retained messages tell,
// read through this board's service (GET /api/club), refreshed every two seconds.
"use strict";

const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

function show(data) {
  const status = document.getElementById("club-status");
  const box = document.getElementById("club-games");
  if (!data.link) {
    status.textContent = t("This board is not linked to a club (link.broker in its configuration).");
    box.replaceChildren();
    return;
  }
  status.textContent = t("Club {club}", { club: data.link.club })
    + (data.link.connected ? "" : " — " + t("not connected, showing what was last seen"));
  const cards = data.games.map((g) => {
    const card = el("section", "card club-game");
    card.dataset.game = g.game_id;
    card.appendChild(el("h2", "", `${t(g.title)} — ${g.seats.join(" v ")}`));
    const result = g.result ? `${g.result} (${g.reason ? t(g.reason) : t("over")})` : t("playing");
    card.appendChild(el("p", "club-result", t("{count} plies", { count: g.plies }) + ` · ${result}`
      + (g.clock ? " · " + t("clock {clock}", { clock: g.clock }) : "")));
    if (g.moves === null) {
      card.appendChild(el("p", "message", t("Moves are shown when the game ends (hidden information).")));
    } else {
      card.appendChild(el("p", "club-moves", g.moves.join(" ")));
    }
    return card;
  });
  box.replaceChildren(...(cards.length ? cards : [el("p", "", t("No games yet."))]));
}

async function refresh() {
  try {
    const r = await fetch("/api/club", { cache: "no-store",
                                         headers: { "Accept-Language": fairyboardLanguage() } });
    show(await r.json());
  } catch (err) {
    document.getElementById("club-status").textContent = t("The board does not answer.");
  }
}

window.fairyboardTexts.then(() => {  // the page's words first (static/i18n.js)
  refresh();
  setInterval(refresh, 2000);
});
