// The adaptive level on the page: when the owner's setting [engine] adaptive is on, the
// New game's computer seat says at which level the computer plays the next game (the
// level box is then only a fallback) and how the owner has scored against it lately.
(function () {
  (window.fairyboardSections = window.fairyboardSections || []).push(function (state) {
    const line = document.getElementById("ng-adaptive");
    const box = document.getElementById("ng-level");
    const adaptive = (state.computer || {}).adaptive;
    if (!line) return;
    const on = Boolean(adaptive && adaptive.on);
    line.hidden = !on;
    if (box) box.disabled = on;
    if (!on) return;
    const t = (text, values) => window.t(text, values);
    let text = t("Adaptive: the computer plays the next game at level {level}", { level: adaptive.level });
    if (adaptive.games) {
      const share = Math.round(100 * adaptive.score);
      text += " " + (adaptive.games === 1
        ? t("(you scored {share} % in your last {count} game against it)", { share, count: 1 })
        : t("(you scored {share} % in your last {count} games against it)", { share, count: adaptive.games }));
    }
    text += ".";
    if (adaptive.problem) text += ` ${adaptive.problem}.`;
    line.textContent = text;
  });
})();
