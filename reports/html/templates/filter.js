(function () {
  var part = document.getElementById("filter-part");
  var verdict = document.getElementById("filter-verdict");
  var count = document.getElementById("filter-count");
  var cards = Array.prototype.slice.call(document.querySelectorAll("article.card"));
  function apply() {
    var shown = 0;
    cards.forEach(function (card) {
      var ok = (!part.value || card.dataset.part === part.value) &&
        (!verdict.value || card.dataset.verdict.split("|").indexOf(verdict.value) >= 0);
      card.hidden = !ok;
      if (ok) { shown += 1; }
    });
    count.textContent = shown + " of " + cards.length + " cards";
  }
  function reveal() {
    var target = location.hash && document.getElementById(location.hash.slice(1));
    if (target && target.hidden) {
      part.value = "";
      verdict.value = "";
      apply();
      target.scrollIntoView();
    }
  }
  // The card of a paper's line: of the cards whose lines hold it, the first of those that
  // start latest (a line's own card before a display around it); else the nearest before it.
  function cardOf(line) {
    var holding = null, before = null;
    cards.forEach(function (card) {
      var first = +card.dataset.line;
      if (first > line) { return; }
      if (!before || first > +before.dataset.line) { before = card; }
      if (line <= +card.dataset.end && (!holding || first > +holding.dataset.line)) {
        holding = card;
      }
    });
    return holding || before;
  }
  document.getElementById("goto").addEventListener("submit", function (event) {
    event.preventDefault();
    var line = parseInt(document.getElementById("goto-line").value, 10);
    var card = isNaN(line) ? null : cardOf(line);
    var note = document.getElementById("goto-note");
    if (!card) { note.textContent = "no statement at or before that line"; return; }
    note.textContent = line <= +card.dataset.end ? "" :
      "no statement on line " + line + "; the nearest before it is line " + card.dataset.line;
    if (location.hash === "#" + card.id) { reveal(); card.scrollIntoView(); }
    else { location.hash = card.id; }
  });
  part.addEventListener("change", apply);
  verdict.addEventListener("change", apply);
  window.addEventListener("hashchange", reveal);
  apply();
})();
