// The page in its reader's language: t("…") gives a text in the chosen language (the
// English text is the key; {name} fields are filled from the values given), the page's
// own words in index.html are translated once the catalogue has come, and the language
// chosen is kept in this browser (localStorage). Without a choice the page reads the
// board's language (the owner's [speech] language). Every other script calls t(…) and
// waits for window.fairyboardTexts before it draws.
(function () {
  const KEY = "fairyboard-language";
  const READ = ["title", "placeholder", "aria-label", "alt"];
  let texts = {};
  let lang = localStorage.getItem(KEY) || "";

  function t(text, values) {
    let out = (texts && texts[text]) || text;
    if (values) {
      out = out.replace(/\{(\w+)\}/g, (whole, name) =>
        (name in values && values[name] !== undefined && values[name] !== null ? String(values[name]) : whole));
    }
    return out;
  }

  // the page's own words as written (English), so another language can be put on them
  const statics = [];
  function collect(root) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || parent.closest("script, style, code, svg, [translate=no]")) continue;  // (names)
      const words = node.data.replace(/\s+/g, " ").trim();
      if (/[A-Za-z]/.test(words) && words !== "fairyboard") statics.push([node, null, words, node.data]);
    }
    for (const e of root.querySelectorAll("*")) {
      for (const name of READ) {
        const value = e.getAttribute(name);
        if (value && /[A-Za-z]/.test(value)) statics.push([e, name, value.replace(/\s+/g, " ").trim(), value]);
      }
    }
  }
  function applyStatics() {
    for (const [node, attr, words, raw] of statics) {
      const said = t(words);
      if (attr) node.setAttribute(attr, said);
      else node.data = said === words ? raw : raw.replace(raw.trim(), said);
    }
  }

  function fillSelector(languages) {
    const sel = document.getElementById("language");
    if (!sel) return;
    sel.replaceChildren();
    for (const [code, name] of Object.entries(languages)) {
      const o = document.createElement("option");
      o.value = code; o.textContent = name; o.lang = code;
      sel.appendChild(o);
    }
    sel.value = lang;
    sel.addEventListener("change", () => {
      localStorage.setItem(KEY, sel.value);
      location.reload();  // every part of the page (and the board's words) anew
    });
  }

  async function load() {
    collect(document.body);
    collect(document.head);
    for (let attempt = 0; ; attempt++) {
      try {
        const r = await fetch(`/api/texts${lang ? `?lang=${encodeURIComponent(lang)}` : ""}`,
                              { cache: "no-store" });
        const data = await r.json();
        if (!r.ok) {  // a language this board no longer knows: the board's own
          localStorage.removeItem(KEY);
          lang = "";
          continue;
        }
        texts = data.texts || {};
        lang = data.lang;
        fillSelector(data.languages || {});
        break;
      } catch (e) {
        if (attempt >= 2) { lang = lang || "en"; break; }  // unreachable: app.js says so, in English
        await new Promise((done) => setTimeout(done, 500));
      }
    }
    document.documentElement.lang = lang === "zh" ? "zh-CN" : lang;
    applyStatics();
    document.documentElement.dataset.texts = lang;  // (tests wait for it)
  }

  window.t = t;
  window.fairyboardLanguage = () => lang || "en";
  window.fairyboardTexts = load();
})();
