// The guides in the page's language: the "How to play" links ask /guide/GAME for the
// language the page is shown in (window.fairyboardLanguage, when the page has one), so a
// reader who chose a language on the page reads that guide whatever the browser prefers.
// Without it the guide follows the browser's Accept-Language.
(window.fairyboardSections = window.fairyboardSections || []).push(() => {
  const lang = typeof window.fairyboardLanguage === "function" ? window.fairyboardLanguage() : "";
  if (!lang) return;
  for (const id of ["guide-link", "tutorial-guide"]) {
    const link = document.getElementById(id);
    if (!link || !link.getAttribute("href")) continue;
    const url = new URL(link.getAttribute("href"), location.href);
    url.searchParams.set("lang", lang);
    link.setAttribute("href", url.pathname + url.search);
  }
});
