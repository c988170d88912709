// The review after the game: once the game on the board has ended (or when the archive
// asks for a recorded game), the engine judges every position in the board's worker and
// this section draws the evaluation graph over the whole game; each mistake is a red dot,
// and clicking it (or its line below) shows the position before it on the board drawing
// with the better move marked.  A game with hidden information is reviewed only once it
// has ended (the service refuses it before).
(function () {
  const $ = (id) => document.getElementById(id);
  const t = (text, values) => window.t(text, values);
  const lang = () => encodeURIComponent(window.fairyboardLanguage());
  let api = null;
  let current = null;   // the game id reviewed
  let timer = null;
  let mistakes = [];
  let autoFor = null;   // the ended live game reviewed on its own

  function stopPolling() { if (timer) { clearTimeout(timer); timer = null; } }

  function showMistake(m) {
    if (!api || !m) return;
    if (m.pieces) {
      api.show(m.pieces, m.marks);
      $("review-live").hidden = false;
    }
    const shown = $("review-shown");
    shown.hidden = false;
    shown.textContent = t("Before move {ply}: {words}", { ply: m.ply, words: m.words }) +
      (m.pieces ? " " + t("(the better move is marked on the board)") : "");
  }

  function render(data) {
    $("review-status").textContent = data.mistakes.length
      ? (data.mistakes.length === 1 ? t("1 mistake — click it to see the better move")
        : t("{count} mistakes — click one to see the better move", { count: data.mistakes.length }))
      : t("No mistake the engine would name.");
    const graph = $("review-graph");
    graph.innerHTML = data.svg;  // the service's own picture (every text in it escaped)
    mistakes = data.mistakes;
    graph.querySelectorAll(".mistake").forEach((g) => {
      const m = mistakes.find((x) => String(x.ply) === g.dataset.ply);
      g.addEventListener("click", () => showMistake(m));
      g.addEventListener("keydown", (ev) => { if (ev.key === "Enter") showMistake(m); });
    });
    const list = $("review-mistakes");
    list.innerHTML = "";
    for (const m of mistakes) {
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.type = "button";
      b.className = "secondary";
      b.dataset.ply = m.ply;
      b.textContent = t("move {ply}: {words}", { ply: m.ply, words: m.words });
      b.addEventListener("click", () => showMistake(m));
      li.appendChild(b);
      list.appendChild(li);
    }
    const image = $("review-image");
    image.hidden = false;
    image.href = `/api/games/${encodeURIComponent(current)}/review.svg?lang=${lang()}`;
  }

  async function poll() {
    timer = null;
    const id = current;
    let data;
    try {
      const r = await fetch(`/api/games/${encodeURIComponent(id)}/review?lang=${lang()}`);
      data = await r.json();
      if (!r.ok) {
        $("review-status").textContent = data.error || (data.reason
          ? t("No review yet: {reason}.", { reason: data.reason }) : `HTTP ${r.status}`);
        return;
      }
    } catch (e) {
      timer = setTimeout(poll, 2000);
      return;
    }
    if (id !== current) return;
    if (data.status === "ready") { render(data); return; }
    if (data.status === "working") {
      $("review-status").textContent =
        t("The engine is judging the game: {done} of {total} positions…", { done: data.done, total: data.total });
    } else {
      // (the reason comes worded in the page's language: the request names it)
      $("review-status").textContent = t("No review yet: {reason}.", { reason: data.reason });
    }
    if (data.status !== "failed" && data.status !== "refused") {
      timer = setTimeout(poll, data.status === "waiting" ? 3000 : 500);
    }
  }

  function open(id) {
    stopPolling();
    if (api && current !== id) api.live();
    current = id;
    mistakes = [];
    $("review").hidden = false;
    $("review-graph").innerHTML = "";
    $("review-mistakes").innerHTML = "";
    $("review-shown").hidden = true;
    $("review-live").hidden = true;
    $("review-image").hidden = true;
    $("review-status").textContent = t("Asking the engine…");
    poll();
  }

  function close() {
    stopPolling();
    current = null;
    $("review").hidden = true;
    if (api) api.live();
  }

  $("review-live").addEventListener("click", () => {
    if (api) api.live();
    $("review-live").hidden = true;
    $("review-shown").hidden = true;
  });

  // the archive opens a recorded game's review here
  window.fairyboardReview = { open, close, current: () => current };

  (window.fairyboardSections = window.fairyboardSections || []).push(function (state, pageApi) {
    api = pageApi;
    const id = state.game && state.game.id;
    if (state.result && id && autoFor !== id) {  // the game on the board has just ended
      autoFor = id;
      open(id);
    } else if (!state.result && current !== null && current === autoFor) {
      close();  // a new game (or a takeback reopened it): the old review goes
      autoFor = null;
    }
  });
})();
