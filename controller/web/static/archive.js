// The game archive: every game of the board's journal (newest first) with its players
// (the computer as "fairyboard level N"), result and moves; each downloads as PGN, replays
// move by move on the board drawing, and opens its review (the graph, in the Review
// section; the same graph as an image).  A game with hidden information that has not
// ended is listed but neither downloaded nor replayed (the service refuses it).
(function () {
  const $ = (id) => document.getElementById(id);
  const t = (text, values) => window.t(text, values);
  const box = $("archive");
  let api = null;
  let listedFor = null;   // the live game id and result the list was fetched for
  let replay = null;      // {data, ply}
  // the archive's refusals come in the page's language (the request names it)
  const lang = () => `lang=${encodeURIComponent(window.fairyboardLanguage())}`;

  function cell(row, text, cls) {
    const td = document.createElement("td");
    if (cls) td.className = cls;
    if (text !== undefined) td.textContent = text;
    row.appendChild(td);
    return td;
  }

  function action(parent, label, title, onClick) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "secondary";
    b.textContent = label;
    b.title = title;
    b.addEventListener("click", onClick);
    parent.appendChild(b);
    return b;
  }

  async function refresh() {
    let data;
    try {
      const r = await fetch(`/api/games?${lang()}`);
      data = await r.json();
      if (!r.ok) { $("archive-status").textContent = data.error || `HTTP ${r.status}`; return; }
    } catch (e) {
      return;
    }
    const body = $("archive-list").tBodies[0];
    body.innerHTML = "";
    const games = data.games.slice().reverse();
    $("archive-status").textContent = (games.length
      ? (games.length === 1 ? t("1 game in the journal.")
        : t("{count} games in the journal.", { count: games.length })) : t("No games yet."))
      + (data.problems.length ? " " + t("Not readable: {files}", { files: data.problems.join(" · ") }) : "");
    for (const g of games) {
      const row = document.createElement("tr");
      row.dataset.id = g.id;
      if (g.id === data.live) row.className = "live";
      cell(row, g.id === data.live ? t("{game} (on the board)", { game: t(g.title) }) : t(g.title));
      cell(row, g.date);
      cell(row, g.players.map((p) => t(p)).join(" – "));
      cell(row, g.result ? `${g.result}${g.reason ? " " + t(g.reason) : ""}` : t("unfinished"));
      cell(row, g.moves === 1 ? t("1 ply") : t("{count} plies", { count: g.moves }));
      const acts = cell(row, undefined, "actions");
      if (g.hidden) {
        const note = document.createElement("span");
        note.className = "hidden-move";
        note.textContent = t("hidden until it ends");
        note.title = t(g.refused);
        acts.appendChild(note);
      } else {
        const a = document.createElement("a");
        a.href = `/api/games/${encodeURIComponent(g.id)}.pgn`;
        a.download = `${g.id}.pgn`;
        a.textContent = t("PGN");
        a.className = "pgn";
        a.title = t("download the game as PGN");
        acts.appendChild(a);
        action(acts, t("Replay"), t("replay it move by move on the board drawing"), () => openReplay(g.id))
          .className = "secondary replay";
        action(acts, t("Review"), t("the evaluation graph and the mistakes"), () => {
          if (window.fairyboardReview) window.fairyboardReview.open(g.id);
          $("review").scrollIntoView({ block: "nearest" });
        }).className = "secondary review";
        const img = document.createElement("a");
        img.href = `/api/games/${encodeURIComponent(g.id)}/review.svg?${lang()}`;
        img.target = "_blank";
        img.rel = "noopener";
        img.textContent = t("graph");
        img.title = t("the review's graph as an image");
        acts.appendChild(img);
      }
      body.appendChild(row);
    }
  }

  async function openReplay(id) {
    let data;
    try {
      const r = await fetch(`/api/games/${encodeURIComponent(id)}/replay?${lang()}`);
      data = await r.json();
      if (!r.ok) { if (api) api.toast(data.error || `HTTP ${r.status}`); return; }
    } catch (e) {
      return;
    }
    replay = { data, ply: data.positions.length - 1 };
    $("archive-replay").hidden = false;
    $("archive-replay-title").textContent = `${t(data.title)} · ${data.id}` +
      (data.result ? ` · ${data.result}` : "");
    draw();
  }

  function draw() {
    if (!replay || !api) return;
    const { data, ply } = replay;
    api.show(data.positions[ply], []);
    const last = data.plies[ply - 1];
    $("replay-ply").textContent = ply === 0 ? t("start (of {count} plies)", { count: data.plies.length })
      : t("ply {ply} of {count}: {player} {move}", { ply, count: data.plies.length,
        player: t(data.players[last.player]), move: last.text });
    $("replay-first").disabled = $("replay-prev").disabled = ply === 0;
    $("replay-next").disabled = $("replay-last").disabled = ply === data.plies.length;
  }

  function step(to) {
    if (!replay) return;
    replay.ply = Math.max(0, Math.min(replay.data.plies.length, to));
    draw();
  }

  function closeReplay() {
    replay = null;
    $("archive-replay").hidden = true;
    if (api) api.live();
  }

  $("replay-first").addEventListener("click", () => step(0));
  $("replay-prev").addEventListener("click", () => step(replay ? replay.ply - 1 : 0));
  $("replay-next").addEventListener("click", () => step(replay ? replay.ply + 1 : 0));
  $("replay-last").addEventListener("click", () => step(Infinity));
  $("replay-live").addEventListener("click", closeReplay);
  box.addEventListener("toggle", () => {
    if (box.open) refresh(); else if (replay) closeReplay();
  });

  (window.fairyboardSections = window.fairyboardSections || []).push(function (state, pageApi) {
    api = pageApi;
    // a new game or a result changes the list (not every move: the list reads the journal)
    const key = `${state.game && state.game.id}/${state.result ? state.result.text : ""}`;
    if (box.open && key !== listedFor) { listedFor = key; refresh(); }
  });
})();
