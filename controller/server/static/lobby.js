// The lobby follows the player's event stream (the Board API's, with the session
// cookie): a game started for him opens its play page; a challenge that comes, goes or
// is answered redraws the lobby (from "/": never a form posted again).  What the page
// was drawn with is in data-known.
"use strict";
(() => {
  const known = new Set((document.getElementById("lobby").dataset.known || "").split(" ").filter(Boolean));
  async function follow() {
    const response = await fetch("/api/stream/event");
    if (!response.ok) return;
    await ndjsonLines(response, (event) => {
      if (event.type === "gameStart" && !known.has(event.game.gameId)) {
        location.assign(`/play/${event.game.gameId}`);
        return false;
      }
      if ((event.type === "challenge" && !known.has(event.challenge.id))
          || ((event.type === "challengeDeclined" || event.type === "challengeCanceled")
              && known.has(event.challenge.id))) {
        location.assign("/");
        return false;
      }
      return true;
    });
  }
  follow().catch(() => {});
})();
