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
  part.addEventListener("change", apply);
  verdict.addEventListener("change", apply);
  window.addEventListener("hashchange", reveal);
  apply();
})();
