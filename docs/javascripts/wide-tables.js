/* A table wider than its column says so.

   Material puts each table in a box that scrolls sideways (`.md-typeset__scrollwrap`), but
   on a phone nothing showed that a column was hidden past the right edge: Getting started's
   table of torch builds read as complete, cut at its last column. Each table's scrolling box
   that is narrower than its table gets `data-wide`, which docs/stylesheets/katas.css turns
   into a label ("Wide table: scroll sideways") and a shadow at each edge that hides more. It
   is checked again whenever the box changes size (a phone turned sideways, a fold opened). */
(function () {
  "use strict";

  function box(table) {
    return table.closest(".md-typeset__scrollwrap") ?? table;
  }

  function measure(scroller) {
    const wide = scroller.scrollWidth > scroller.clientWidth + 1;
    if (wide !== scroller.hasAttribute("data-wide")) {
      scroller.toggleAttribute("data-wide", wide);
    }
  }

  function watch() {
    const boxes = new Set(
      [...document.querySelectorAll("article table:not([class])")].map(box)
    );
    const observer = new ResizeObserver((entries) => entries.forEach((e) => measure(e.target)));
    boxes.forEach((scroller) => {
      measure(scroller);
      observer.observe(scroller);
    });
  }

  // After Material has wrapped the tables (its own script runs at DOMContentLoaded).
  if (document.readyState === "complete") {
    watch();
  } else {
    window.addEventListener("load", watch);
  }
})();
