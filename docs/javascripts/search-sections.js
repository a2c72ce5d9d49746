/* Search results land on the section that matched, not on the page's top.

   Material (9.8, src/templates/assets/javascripts/templates/search/index.tsx) groups results
   by page and always renders the page itself first, as the group's title link, even when only
   one of its sections matched: the best-matching section comes second. A reader who clicks
   the title, or presses Enter in the search box (which follows the first link), lands at the
   top of a long page. Here, a group's title link is pointed at its best-scoring link
   (`data-md-score`, which Material writes on each result) when that is not the page itself;
   the section's own link stays where it is.

   One exception to the score: a section whose heading holds the typed words as they stand
   (the start of an error message, typed as a reader remembers it) goes first, the shortest
   such heading when several do. Material adds a wildcard to every word, so a rare word that
   merely starts like a typed one ("device*" reaching `device_type`) could outscore the entry
   whose heading is the phrase itself (issue 29). A whole pasted message is longer than any
   heading, so it is left to the score.

   Each kata has two pages: the kata page, read before the attempt, and its discussion, read
   after (it holds the hints and the solution). A result on a discussion page says so, with
   a label naming its kata ("Discussion of kata 10, Sync points"), taken from the site's
   navigation, so a reader who has not done the kata knows what the link opens. */
(function () {
  "use strict";

  function score(link) {
    const article = link.querySelector("article[data-md-score]");
    return article ? parseFloat(article.dataset.mdScore) : -Infinity;
  }

  // Each discussion page's address, and its kata as the navigation names it ("10. Sync points").
  function discussions() {
    const found = new Map();
    document.querySelectorAll("nav.md-nav a.md-nav__link[href]").forEach((a) => {
      const path = new URL(a.href, document.baseURI).pathname;
      if (/\/discussions\/[^/]+\/$/.test(path)) found.set(path, a.textContent.trim());
    });
    return found;
  }

  let kataOf = null;

  // Lower case, one space between words, no punctuation at the ends.
  function normal(text) {
    return text.toLowerCase().replace(/\s+/g, " ").replace(/^[\s.,:;!?]+|[\s.,:;!?]+$/g, "");
  }

  // The heading a result shows, without the text kept for search only (`sub`, hidden).
  function heading(link) {
    const title = link.querySelector("article h1, article h2");
    if (!title) return "";
    const copy = title.cloneNode(true);
    copy.querySelectorAll("sub").forEach((s) => s.remove());
    return normal(copy.textContent);
  }

  // The section whose heading holds the query as typed, the shortest if several do.
  function phrase(sections) {
    const box = document.querySelector("input.md-search__input");
    const query = box ? normal(box.value) : "";
    if (query.split(" ").length < 3) return null;
    const holding = sections
      .map((link) => [link, heading(link)])
      .filter(([, text]) => text.includes(query));
    if (!holding.length) return null;
    return holding.reduce((a, b) => (b[1].length < a[1].length ? b : a))[0];
  }

  function label(item) {
    const link = item.querySelector("a.md-search-result__link");
    const path = link && new URL(link.href, document.baseURI).pathname;
    if (!path || !/\/discussions\/[^/]+\/$/.test(path)) return;
    kataOf ??= discussions();
    const kata = (kataOf.get(path) ?? "").match(/^(\d+)\.\s*(.+)$/);
    const tag = document.createElement("span");
    tag.className = "kata-discussion-label";
    tag.textContent = kata ? `Discussion of kata ${kata[1]}, ${kata[2]}` : "Discussion of a kata";
    link.querySelector("article")?.prepend(tag);
  }

  function retarget(item) {
    if (item.dataset.kataRetargeted) return;
    item.dataset.kataRetargeted = "1";
    label(item);
    const links = [...item.querySelectorAll("a.md-search-result__link")];
    if (links.length < 2) return;
    const [title, ...sections] = links;
    const typed = phrase(sections);
    const best = typed ?? sections.reduce((a, b) => (score(b) > score(a) ? b : a));
    if (typed || score(best) > score(title)) {
      title.href = best.href;
      title.dataset.kataSection = "best";
    }
  }

  function scan(root) {
    root.querySelectorAll("li.md-search-result__item").forEach(retarget);
  }

  function watch() {
    const list = document.querySelector(".md-search-result__list");
    if (!list) return;
    scan(list);
    new MutationObserver(() => scan(list)).observe(list, { childList: true, subtree: true });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", watch);
  } else {
    watch();
  }
})();
