function check(d, w, want) {
  var out = [];
  function ok(name, cond, detail) { out.push((cond ? "ok   " : "FAIL ") + name + (cond ? "" : ": " + detail)); }
  ["cost", "turns", "outcomes"].forEach(function (id) { ok("plot #" + id + " drawn", !!d.getElementById(id) && d.getElementById(id).getBoundingClientRect().width > 600, "missing or narrow"); });
  function count(sel) { return d.querySelectorAll(sel).length; }
  ok("cost: one bar per task (" + want.tasks + ")", count("#cost rect.bar") == want.tasks, count("#cost rect.bar") + " bars");
  ok("turns: one line per run with a response (" + want.drawn + ")", count("#turns polyline") == want.drawn, count("#turns polyline") + " lines");
  ok("outcomes: one row per model (" + want.models + ")", count("#outcomes g.model") == want.models, count("#outcomes g.model") + " rows");
  ok("outcomes: one segment per model and outcome (" + want.segs + ")", count("#outcomes rect.seg") == want.segs, count("#outcomes rect.seg") + " segments");
  var bad = [];
  d.querySelectorAll("#cost rect.bar, #outcomes rect.seg, #turns polyline").forEach(function (m) {
    var b = m.getBBox(), vb = m.ownerSVGElement.viewBox.baseVal;
    var flat = m.tagName == "polyline" ? (b.width < 1 && m.points.numberOfItems > 1) : (b.width <= 0 || b.height <= 0);
    if (flat || b.x < vb.x - 0.5 || b.y < vb.y - 0.5 || b.x + b.width > vb.x + vb.width + 0.5 || b.y + b.height > vb.y + vb.height + 0.5) bad.push(m.tagName + "." + m.getAttribute("class"));
  });
  ok("every mark has a size and lies inside its plot", bad.length == 0, bad.slice(0, 5).join(", "));
  var labels = d.querySelectorAll("#cost text.label"), clipped = 0;
  labels.forEach(function (t) { var r = t.getBoundingClientRect(); if (r.left < 0) clipped++; });
  ok("task labels on the page", clipped == 0, clipped + " clipped at the left edge");
  ok("self-contained: no script, link, image or frame", !d.querySelector("script, link, img, iframe, object, embed"), "an external element");
  ok("self-contained: nothing fetched", w.performance.getEntriesByType("resource").length == 0, w.performance.getEntriesByType("resource").length + " resources");
  return out.join("\n");
}
