function check(d, w, want) {
  var out = [];
  function ok(name, cond, detail) { out.push((cond ? "ok   " : "FAIL ") + name + (cond ? "" : ": " + detail)); }
  var secs = d.querySelectorAll("section.msg"), shown = d.querySelectorAll("section.msg:not(.off):not(.merged)");
  ok("sections drawn", secs.length > 0 && shown.length > 0, secs.length + " sections, " + shown.length + " shown");
  ok("header: models, messages, tokens, cost", /Models/.test(d.querySelector("header").textContent) && /Tokens/.test(d.querySelector("header").textContent) && /\$\d/.test(d.querySelector("header").textContent), d.querySelector("header").textContent.slice(0, 200));
  if (want.diff) {
    var dl = d.querySelector(".diff .del"), da = d.querySelector(".diff .add");
    ok("edit diff with word marks", dl && da && d.querySelector(".diff mark"), "no .diff .del/.add/mark");
  }
  var f = d.querySelector(".fold");
  if (want.fold) {
    if (!f) { ok("a folded output", false, "no .fold"); } else {
      var more = f.querySelector(".more"), before = more.hidden;
      f.querySelector("button.show-all").click();
      ok("show all unfolds", before && !more.hidden && !f.querySelector("button.show-all"), "hidden before=" + before + " after=" + more.hidden);
    }
  }
  var items = d.querySelectorAll("#tree li[data-id]"), branches = d.querySelectorAll("#tree .branch");
  ok("tree: one item per drawn entry", items.length == secs.length, items.length + " items, " + secs.length + " sections");
  ok("tree: " + want.branches + " branch lists", branches.length == want.branches, branches.length + " branch lists");
  var depth = 0; items.forEach(function (li) { var n = 0; for (var e = li; e; e = e.parentElement) if (e.classList && e.classList.contains("branch")) n++; depth = Math.max(depth, n); });
  ok("tree: nesting only at forks (depth " + want.depth + ")", depth == want.depth, "depth " + depth);
  ok("tree: active path and leaf marked", d.querySelectorAll("#tree li.leaf").length == 1 && d.querySelectorAll("#tree li.on-path").length > 1, "");
  var off = d.querySelector("#tree li[data-id]:not(.on-path)");
  if (want.branches > 0 && off) {
    var id = off.dataset.id; off.querySelector("a").click();
    var sec = d.getElementById("e-" + id);
    ok("a click shows another branch", off.classList.contains("on-path") && sec && !sec.classList.contains("off"), "section " + id + " class " + (sec && sec.className));
  }
  if (want.label) ok("label shown in the tree", !!d.querySelector("#tree .label"), "no .label");
  var tool = d.querySelector(".tool");
  if (tool) {
    d.getElementById("t-tools").click();
    ok("tools toggle hides tools", w.getComputedStyle(tool).display == "none", "display " + w.getComputedStyle(tool).display);
    d.getElementById("t-tools").click();
  }
  var th = d.querySelector("details.thinking");
  if (th) {
    d.getElementById("t-thinking").click();
    ok("thinking toggle hides thinking", w.getComputedStyle(th).display == "none", "");
    d.getElementById("t-thinking").click();
  }
  var q = d.getElementById("q"); q.value = "zzqqxx-no-such-text"; q.dispatchEvent(new Event("input"));
  ok("search filters", d.querySelectorAll("section.msg:not(.nomatch):not(.off):not(.merged)").length == 0, "");
  q.value = ""; q.dispatchEvent(new Event("input"));
  ok("markdown rendered", !!d.querySelector(".md p, .md h1, .md h2, .md li"), "no rendered markdown");
  ok("code highlighted", !want.code || !!d.querySelector(".md pre code span, pre.out span[class^=hl-]"), "no highlighting spans");
  ok("self-contained", !d.querySelector("link, script[src], img[src^=http], iframe"), "external resource");
  return out.join("\n");
}
