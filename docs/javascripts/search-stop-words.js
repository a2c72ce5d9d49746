/* A typed message's small words ("to", "be", "on", "the") are not searched for.

   The index leaves out lunr's English stop words (Material's default pipeline,
   stopWordFilter), but Material's search worker (9.x, integrations/search/query/transform)
   appends a wildcard to every word of a query, stop words too, and a wildcard term skips the
   pipeline: "to" became "to*" and matched every `torch.cuda...` token in another entry's
   title. "Expected all tensors to be on the same device" landed on the autocast-deprecation
   entry, whose heading is code, instead of the entry of that name.

   Here the query that Material posts to its worker (SearchMessageType.QUERY, 2) loses its
   stop words, so they are left out of the query as they are out of the index. A query of
   nothing but stop words is sent as typed. The search box shows what the reader typed.

   A word of one letter ("m, n, k" in a pasted cuBLAS call) goes too: with its wildcard it
   matched every word that starts with that letter, and the longest page (Maintainers) came
   first for "CUDA error: CUBLAS_STATUS_INVALID_VALUE when calling `cublasSgemm( handle, opa,
   opb, m, n, k, ...)`".
   (Under file://, Material runs the worker in an iframe, not a Worker: there the query goes
   as typed.) tests/browser/test_browser.py checks the message lands on its entry. */
(function () {
  "use strict";

  const QUERY = 2;
  // lunr 2.3's English stop words (lunr.stopWordFilter), the ones the index leaves out.
  const STOP_WORDS = new Set(
    ("a able about across after all almost also am among an and any are as at be because " +
      "been but by can cannot could dear did do does either else ever every for from get got " +
      "had has have he her hers him his how however i if in into is it its just least let " +
      "like likely may me might most must my neither no nor not of off often on only or other " +
      "our own rather said say says she should since so some than that the their them then " +
      "there these they this tis to too twas us wants was we were what when where which while " +
      "who whom why will with would yet you your").split(" ")
  );

  // A word of the query with the punctuation around it taken off ("(when" is "when"), or of
  // one letter; a word with a search modifier ("+to", "-be") is the reader's own query syntax
  // and stays.
  function isStopWord(word) {
    if (/^[+-]/.test(word)) return false;
    const bare = word.toLowerCase().replace(/^\W+|\W+$/g, "");
    return bare.length < 2 || STOP_WORDS.has(bare);
  }

  function withoutStopWords(query) {
    const words = query.split(/\s+/).filter((word) => word && !isStopWord(word));
    return words.length ? words.join(" ") : query;
  }

  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message, ...rest) {
    if (message && message.type === QUERY && typeof message.data === "string") {
      message = { ...message, data: withoutStopWords(message.data) };
    }
    return post.call(this, message, ...rest);
  };
})();
