// Filters the scenario traces of a testbed report page in place: by
// verdict, route changed, budget violated and text in the messages.
(function () {
  var form = document.querySelector("form.filters");
  if (!form) { return; }
  var traces = Array.prototype.slice.call(document.querySelectorAll("details.scenario"));
  var texts = null;
  function apply() {
    var verdict = form.verdict.value, route = form.route.checked, budget = form.budget.checked;
    var q = form.q.value.trim().toLowerCase();
    var active = verdict !== "" || route || budget || q !== "";
    if (q !== "" && texts === null) {
      texts = traces.map(function (t) { return t.textContent.toLowerCase(); });
    }
    var shown = 0;
    traces.forEach(function (t, i) {
      var d = t.dataset;
      var ok = (verdict === "" || (verdict === "not-pass" ? d.verdict !== "pass" : d.verdict === verdict)) &&
        (!route || d.routeChanged === "true") && (!budget || d.overBudget === "true") &&
        (q === "" || texts[i].indexOf(q) >= 0);
      t.hidden = !ok;
      if (ok) { shown++; }
    });
    document.querySelectorAll("details.variant").forEach(function (v) {
      var any = v.querySelector("details.scenario:not([hidden])") !== null;
      v.hidden = active && !any;
      if (active && any) { v.open = true; }
    });
    form.querySelector("output").textContent = shown + " of " + traces.length + " scenario runs shown";
  }
  form.addEventListener("input", apply);
  form.addEventListener("submit", function (e) { e.preventDefault(); });
  // A link to a scenario opens the blocks around it.
  function reveal() {
    var el = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    for (; el; el = el.parentElement) {
      if (el.tagName === "DETAILS") { el.open = true; }
    }
  }
  window.addEventListener("hashchange", reveal);
  reveal();
  apply();
})();
