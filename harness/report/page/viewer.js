// The script of a testbed report page: filters the scenario traces in
// place (verdict, route changed, budget violated, text), opens the blocks
// around a followed link, and draws what the model saw from the data
// beside it when its block is first opened.
(function () {
  // draw fills each call's messages of a "what the model saw" block.
  function draw(block) {
    if (block.dataset.drawn) { return; }
    block.dataset.drawn = "1";
    var data = JSON.parse(block.querySelector("script.seen-data").textContent);
    block.querySelectorAll("div.msgs").forEach(function (div, i) {
      (data[i] || []).forEach(function (m) {
        var d = document.createElement("details");
        d.open = !!m.open;
        var s = document.createElement("summary");
        var role = document.createElement("span");
        role.className = "msg-role";
        role.textContent = m.role;
        s.appendChild(role);
        if (m.head) { s.appendChild(document.createTextNode(" " + m.head)); }
        var pre = document.createElement("pre");
        pre.textContent = m.text;
        d.appendChild(s);
        d.appendChild(pre);
        div.appendChild(d);
      });
    });
  }
  document.querySelectorAll("details.seen-calls").forEach(function (b) {
    b.addEventListener("toggle", function () { if (b.open) { draw(b); } });
  });

  // A link to a scenario opens the blocks around it.
  function reveal() {
    var el = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    for (; el; el = el.parentElement) {
      if (el.tagName === "DETAILS") { el.open = true; }
    }
  }
  window.addEventListener("hashchange", reveal);
  reveal();

  var form = document.querySelector("form.filters");
  if (!form) { return; }
  var traces = Array.prototype.slice.call(document.querySelectorAll("details.scenario"));
  var texts = null; // each trace's text, the data of what the model saw included
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
  apply();
})();
