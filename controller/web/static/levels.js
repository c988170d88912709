// The computer's level as a player reads it: beside the New game's level box and the
// settings' computer level, "about 1400" — the level's rating in the chosen game, from
// the measured data the service sends with each game (state.games[].ratings, whose one
// home is controller/engine/ratings.toml); "approximate" where it was placed through the
// self-play ladder; "under 800" where it is rated lower.  With the
// adaptive level on, the level it plays next.  A level without a rating shows nothing.
(function () {
  let games = [];
  let adaptive = null;  // the level the adaptive mode plays next (the box is then unused)

  // the words for ``level`` of the game named ``game`` ("" when it has no rating)
  function ratingText(game, level) {
    const g = games.find((x) => x.name === game);
    const r = g && g.ratings ? g.ratings[String(level)] : null;
    if (!r) return "";
    if (r.under) {
      return r.approximate ? window.t("under {rating}, approximate", { rating: r.about })
        : window.t("under {rating}", { rating: r.about });
    }
    return r.approximate ? window.t("about {rating}, approximate", { rating: r.about })
      : window.t("about {rating}", { rating: r.about });
  }
  window.fairyboardLevelRating = ratingText;

  function showNewGame() {
    const line = document.getElementById("ng-level-rating");
    const game = document.getElementById("ng-game");
    const box = document.getElementById("ng-level");
    if (line && game && box) {
      line.textContent = ratingText(game.value, adaptive || Number(box.value));
    }
  }

  for (const id of ["ng-level", "ng-game"]) {
    const el = document.getElementById(id);
    if (el) { el.addEventListener("input", showNewGame); el.addEventListener("change", showNewGame); }
  }

  (window.fairyboardSections = window.fairyboardSections || []).push(function (state) {
    games = (state.games || []).concat(state.other_games || []);
    const a = (state.computer || {}).adaptive;
    adaptive = a && a.on ? a.level : null;
    showNewGame();
  });
})();
