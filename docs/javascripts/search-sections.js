/* Search results land on the section that matched, not on the page's top.

   Material (9.8, src/templates/assets/javascripts/templates/search/index.tsx) groups results
   by page and always renders the page itself first, as the group's title link, even when only
   one of its sections matched: the best-matching section comes second. A reader who clicks
   the title, or presses Enter in the search box (which follows the first link), lands at the
   top of a long page. Here, a group's title link is pointed at its best-scoring link
   (`data-md-score`, which Material writes on each result) when that is not the page itself;
   the section's own link stays where it is. */
(function () {
  "use strict";

  function score(link) {
    const article = link.querySelector("article[data-md-score]");
    return article ? parseFloat(article.dataset.mdScore) : -Infinity;
  }

  function retarget(item) {
    if (item.dataset.kataRetargeted) return;
    item.dataset.kataRetargeted = "1";
    const links = [...item.querySelectorAll("a.md-search-result__link")];
    if (links.length < 2) return;
    const [title, ...sections] = links;
    const best = sections.reduce((a, b) => (score(b) > score(a) ? b : a));
    if (score(best) > score(title)) {
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
