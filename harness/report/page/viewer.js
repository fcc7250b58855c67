// The script of a testbed report page: filters the scenario traces in
// place (verdict, route changed, budget violated, text), opens the blocks
// around a followed link, and draws what the model saw from the data
// beside it when its block is first opened.
(function () {
  // el makes an element with a class and text, and appends children.
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text) { e.textContent = text; }
    for (var i = 3; i < arguments.length; i++) { e.appendChild(arguments[i]); }
    return e;
  }
  // fold is a <details> block with a summary and a body.
  function fold(id, open, summary, body) {
    var d = el("details", "", "", summary, body);
    if (id) { d.id = id; }
    d.open = !!open;
    return d;
  }
  // as is "what: as <a link>" to where the page showed it first.
  function as(what, link) {
    var a = el("a", "", link.label);
    a.href = "#" + link.anchor;
    return el("p", "", what + ": as ", a);
  }
  // draw fills a "what the model saw" block from its data, once.
  function draw(block) {
    if (block.dataset.drawn) { return; }
    block.dataset.drawn = "1";
    JSON.parse(block.querySelector("script.seen-data").textContent).forEach(function (c) {
      var div = el("div", "seen", "", el("b", "", "call " + c.n), document.createTextNode(" " + c.what));
      if (c.system) { div.appendChild(fold(c.system_id, false, el("summary", "", "system prompt"), el("pre", "", c.system))); }
      if (c.system_as) { div.appendChild(as("system prompt", c.system_as)); }
      if (c.tools) {
        var list = el("div");
        c.tools.forEach(function (t) {
          list.appendChild(el("pre", "", "", el("b", "", t.name), document.createTextNode(" " + t.description + "\n" + t.parameters)));
        });
        div.appendChild(fold(c.tools_id, false, el("summary", "", c.tools.length + " tool definitions"), list));
      }
      if (c.tools_as) { div.appendChild(as("tool definitions", c.tools_as)); }
      if (c.earlier) { div.appendChild(el("p", "", c.earlier)); }
      var msgs = el("div", "msgs");
      c.messages.forEach(function (m) {
        var s = el("summary", "", "", el("span", "msg-role", m.role));
        if (m.head) { s.appendChild(document.createTextNode(" " + m.head)); }
        msgs.appendChild(fold("", m.open, s, el("pre", "", m.text)));
      });
      div.appendChild(msgs);
      block.appendChild(div);
    });
  }
  document.querySelectorAll("details.seen-calls").forEach(function (b) {
    b.addEventListener("toggle", function () { if (b.open) { draw(b); } });
  });

  // A link opens the blocks around its target, drawing the block of what
  // the model saw that holds it first.
  function reveal() {
    var id = location.hash && decodeURIComponent(location.hash.slice(1));
    if (!id) { return; }
    var target = document.getElementById(id);
    if (!target) {
      var holder = document.querySelector('details.seen-calls[data-ids~="' + CSS.escape(id) + '"]');
      if (!holder) { return; }
      draw(holder);
      target = document.getElementById(id);
    }
    for (var e = target; e; e = e.parentElement) {
      if (e.tagName === "DETAILS") { e.open = true; }
    }
    target.scrollIntoView();
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
