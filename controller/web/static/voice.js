// The board's voice on the page: each announcement the board makes (a move, a capture,
// check, a choice, an illegal try, a move to make, the end, low time) is written into a
// live region that screen readers read, sounded, and — when asked — spoken by the browser.
// The words come from the board (controller/speech/), already cut to what this page's
// player may know; the page opened mid-game says nothing of what came before.
(function () {
  const region = document.getElementById("announcer");
  const boxes = { sounds: document.getElementById("voice-sounds"),
                  speak: document.getElementById("voice-speak") };
  for (const [key, box] of Object.entries(boxes)) {
    if (!box) continue;
    const saved = localStorage.getItem(`fairyboard-voice-${key}`);
    if (saved !== null) box.checked = saved === "1";
    box.addEventListener("change", () =>
      localStorage.setItem(`fairyboard-voice-${key}`, box.checked ? "1" : "0"));
  }
  let said = null;  // the newest announcement said (null: none seen yet)
  // Each announcement is a line added to the log (a screen reader reads each addition),
  // not a replacement of the region's text: two that arrive in one state (a move and the
  // computer's reply within one push) are both read; the newest few lines are kept.
  const KEEP = 5;
  function announce(text) {
    const line = document.createElement("p");
    line.textContent = text;
    region.append(line);
    while (region.childElementCount > KEEP) region.firstElementChild.remove();
  }
  function play(name) {
    const audio = new Audio(`/sound/${encodeURIComponent(name)}`);
    audio.play().catch(() => {});  // a browser may refuse sound before the first click
  }
  function speak(text, lang) {
    if (!("speechSynthesis" in window)) return;
    const u = new SpeechSynthesisUtterance(text);
    u.lang = lang === "zh" ? "zh-CN" : lang;
    window.speechSynthesis.speak(u);
  }
  // the player whose view the page shows (fog of war, one page for two): the log holds
  // only words made for him, so it starts again when the page turns to the other player
  let viewer;
  (window.fairyboardSections = window.fairyboardSections || []).push(function (state) {
    if (state.viewer !== viewer) {
      viewer = state.viewer;
      if (region) region.replaceChildren();
    }
    const list = state.announcements || [];
    const newest = list.length ? list[list.length - 1].seq : 0;
    if (said === null || newest < said) { said = newest; return; }  // opened, or restarted
    for (const a of list) {
      if (a.seq <= said) continue;
      said = a.seq;
      if (a.text && region) announce(a.text);
      if (a.sound && boxes.sounds && boxes.sounds.checked) play(a.sound);
      if (a.text && boxes.speak && boxes.speak.checked) speak(a.text, a.lang);
    }
  });
})();
