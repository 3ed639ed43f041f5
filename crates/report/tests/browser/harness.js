// The browser test's harness: injected after the page's own script, it acts
// as a reader would (pointing at what is under the pointer, clicking,
// wheeling, dragging, pressing keys) and measures the rendered DOM. It
// writes what failed, and what it counted, as JSON into
// <pre id="harness-result"> for crates/report/tests/browser.rs to read.
(function () {
  "use strict";
  var failures = [], counts = {};
  function fail(what) { failures.push(what); }
  function count(name, n) { counts[name] = (counts[name] || 0) + (n === undefined ? 1 : n); }
  function all(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }
  function shown(el) {
    for (var e = el; e && e.nodeType === 1; e = e.parentNode) {
      var cs = getComputedStyle(e);
      if (cs.display === "none" || cs.visibility === "hidden") return false;
    }
    return true;
  }
  function centre(el) { var r = el.getBoundingClientRect(); return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; }
  function mouse(el, type, x, y, extra) {
    var init = { bubbles: type !== "mouseenter" && type !== "mouseleave", cancelable: true, clientX: x, clientY: y, button: 0 };
    for (var k in extra || {}) init[k] = extra[k];
    el.dispatchEvent(new MouseEvent(type, init));
  }
  function hoverAt(el) {
    var c = centre(el);
    el.scrollIntoView({ block: "center", inline: "center" });
    c = centre(el);
    var hit = document.elementFromPoint(c.x, c.y);
    return { hit: hit, x: c.x, y: c.y };
  }
  var tip = document.getElementById("tip");
  var data = JSON.parse(document.getElementById("roofline-data").textContent);

  // 1. Script errors and console.error calls so far.
  (window.__rooflineErrors || []).forEach(function (e) { fail("script error: " + e); });

  // 2. Hover details: each point, found where a pointer would find it.
  var covered = 0;
  all(".chart .pt").forEach(function (el) {
    if (!shown(el)) return;
    var h = hoverAt(el);
    var target = h.hit && h.hit.closest ? h.hit.closest(".pt") : null;
    if (!target) { covered++; return; }
    mouse(target, "mouseenter", h.x, h.y);
    var d = data.points[target.getAttribute("data-tip")];
    if (!d) fail("no details for point " + target.getAttribute("data-tip"));
    else if (tip.hidden || tip.textContent.indexOf(d.title) !== 0) fail("hovering " + d.title + " shows no details");
    else if (target.hasAttribute("data-k")) {
      var k = data.document.kernels ? data.document.kernels[+target.getAttribute("data-k")] : null;
      if (k && tip.textContent.indexOf(k.kernel.name) < 0) fail(d.title + ": the hover lacks the full name");
      if (k && tip.textContent.indexOf("ID " + k.kernel.id) < 0) fail(d.title + ": the hover lacks the ID");
      if (tip.textContent.indexOf("launch") < 0 || tip.textContent.indexOf("FLOPs:") < 0) fail(d.title + ": the hover lacks launches or the FLOP mix");
      count("pointsHovered");
    } else count("pointsHovered");
    mouse(target, "mouseleave", h.x, h.y);
    if (!tip.hidden) fail("the hover stays after leaving " + d.title);
  });
  counts.pointsCovered = covered;
  var pts = all(".chart .pt").filter(shown).length;
  if (pts && covered > pts / 4) fail(covered + " of " + pts + " points cannot be reached with the pointer");

  // 3. Legend, chart and table tied together.
  var chart = document.querySelector("svg.roofline-chart");
  function hl(sel) { var e = document.querySelector(sel); return !!e && e.classList.contains("hl"); }
  all(".chart .key-entry").slice(0, 12).forEach(function (entry) {
    var k = entry.getAttribute("data-k"), h = hoverAt(entry);
    var hit = h.hit && h.hit.closest ? h.hit.closest(".key-entry") : null;
    if (hit !== entry) { fail("key entry " + k + " is covered"); return; }
    mouse(entry, "mouseenter", h.x, h.y);
    if (!hl('.kernel[data-k="' + k + '"]')) fail("key entry " + k + " does not highlight its points");
    var row = document.querySelector('tbody[data-k="' + k + '"], tr[data-k="' + k + '"]');
    if (!row || !row.classList.contains("hl")) fail("key entry " + k + " does not highlight its table row");
    if (!chart.classList.contains("focus")) fail("key entry " + k + " does not set the others back");
    if (tip.hidden) fail("key entry " + k + " shows no details");
    mouse(entry, "mouseleave", h.x, h.y);
    if (hl('.kernel[data-k="' + k + '"]')) fail("key entry " + k + ": the highlight stays");
    entry.focus();
    if (!hl('.kernel[data-k="' + k + '"]')) fail("key entry " + k + ": keyboard focus does not highlight");
    entry.blur();
    count("keyEntriesLinked");
  });
  all("table tbody.group[data-k], table tr[data-k]").slice(0, 12).forEach(function (row) {
    var k = row.getAttribute("data-k"), cell = row.querySelector("td");
    mouse(cell, "mouseover", 0, 0);
    if (document.querySelector('.chart .kernel[data-k="' + k + '"]') && !hl('.chart .kernel[data-k="' + k + '"]')) fail("row " + k + " does not highlight its points");
    if (document.querySelector('.key-entry[data-k="' + k + '"]') && !hl('.key-entry[data-k="' + k + '"]')) fail("row " + k + " does not highlight its key entry");
    mouse(cell, "mouseout", 0, 0, { relatedTarget: document.body });
    if (hl('.chart .kernel[data-k="' + k + '"]')) fail("row " + k + ": the highlight stays after leaving it");
    var link = row.querySelector("a");
    if (link && document.querySelector('.chart .kernel[data-k="' + k + '"]')) {
      link.focus();
      if (!hl('.chart .kernel[data-k="' + k + '"]')) fail("row " + k + ": keyboard focus on its name does not highlight its points");
      link.blur();
    }
    count("rowsLinked");
  });
  // A click pins a kernel: its row and its detail panel; Escape lets go.
  var first = document.querySelector(".chart .pt[data-k]");
  if (first && shown(first)) {
    var k = first.getAttribute("data-k");
    first.dispatchEvent(new MouseEvent("click", { bubbles: true }));
    var row = document.querySelector('tbody[data-k="' + k + '"], tr[data-k="' + k + '"]');
    var panel = document.querySelector('details.detail[data-k="' + k + '"]');
    if (!row || !row.classList.contains("pinned")) fail("a click on a point does not pin its row");
    if (!panel || !panel.open) fail("a click on a point does not open its detail panel");
    if (panel && panel.textContent.indexOf("How the numbers were obtained") < 0) fail("the detail panel has no formulas");
    document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    if (row && row.classList.contains("pinned")) fail("Escape does not unpin");
    count("pinned");
  }

  // 4. Sorting, both ways, moving each row with the line under it.
  all("table.sortable").forEach(function (table) {
    var grouped = table.querySelector("tbody.group") !== null;
    var units = function () { return grouped ? Array.prototype.slice.call(table.tBodies) : Array.prototype.slice.call(table.tBodies[0].rows); };
    var before = units().length;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      var b = th.querySelector("button");
      if (!b) { fail("a header of " + table.id + " cannot be clicked"); return; }
      var numeric = th.getAttribute("data-type") === "num";
      [0, 1].forEach(function () {
        b.click();
        var dir = th.getAttribute("aria-sort") === "ascending" ? 1 : -1;
        var vals = units().map(function (u) {
          var tr = u.tagName === "TBODY" ? u.rows[0] : u, td = tr.children[col], v = td ? td.getAttribute("data-v") : null;
          if (numeric) { var f = parseFloat(v); return isNaN(f) ? null : f; }
          return (v !== null ? v : td.textContent).toLowerCase();
        }).filter(function (v) { return v !== null; });
        for (var i = 1; i < vals.length; i++) {
          if ((vals[i] < vals[i - 1] && dir === 1) || (vals[i] > vals[i - 1] && dir === -1)) { fail(table.id + ": column " + th.textContent + " is not sorted"); break; }
        }
      });
      count("columnsSorted");
    });
    if (units().length !== before) fail(table.id + ": sorting lost rows");
    if (grouped && units().some(function (u) { return u.rows.length > 2 || (u.rows[1] && !u.rows[1].classList.contains("under")); })) fail(table.id + ": a row left the line under it");
  });

  // 5. Labels: none overlaps another, each inside the plot, no two kernels alike.
  function polygon(t) {
    var b = t.getBBox(), m = t.getCTM(), inv = t.ownerSVGElement.getCTM().inverse(), out = [];
    [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]].forEach(function (q) {
      var p = t.ownerSVGElement.createSVGPoint();
      p.x = q[0]; p.y = q[1];
      p = p.matrixTransform(m).matrixTransform(inv);
      out.push([p.x, p.y]);
    });
    return out;
  }
  function separated(a, b) {
    var ps = [a, b];
    for (var i = 0; i < 2; i++) for (var j = 0; j < 4; j++) {
      var p = ps[i][j], q = ps[i][(j + 1) % 4], nx = q[1] - p[1], ny = p[0] - q[0], len = Math.hypot(nx, ny);
      if (!len) continue;
      nx /= len; ny /= len;
      var pa = a.map(function (v) { return v[0] * nx + v[1] * ny; }), pb = b.map(function (v) { return v[0] * nx + v[1] * ny; });
      if (Math.max.apply(null, pa) <= Math.min.apply(null, pb) + 0.5 || Math.max.apply(null, pb) <= Math.min.apply(null, pa) + 0.5) return true;
    }
    return false;
  }
  function checkLabels(svg, when) {
    var labels = all(".klabel, .roof-label, .diff-labels text", svg).filter(function (t) { return shown(t) && t.getBBox().width > 0; });
    var polys = labels.map(polygon);
    for (var i = 0; i < polys.length; i++) for (var j = i + 1; j < polys.length; j++) {
      if (!separated(polys[i], polys[j])) fail(when + ": \"" + labels[i].textContent + "\" overlaps \"" + labels[j].textContent + "\"");
    }
    var plot = (svg.getAttribute("data-plot") || "").split(" ").map(parseFloat);
    if (plot.length === 4) polys.forEach(function (p, i) {
      if (p.some(function (v) { return v[0] < plot[0] - 1 || v[0] > plot[0] + plot[2] + 1 || v[1] < plot[1] - 1 || v[1] > plot[1] + plot[3] + 1; })) {
        fail(when + ": \"" + labels[i].textContent + "\" leaves the plot");
      }
    });
    // The kernels with the most time (of those with a point in view) are named.
    var cur = (svg.getAttribute("data-current") || svg.getAttribute("data-view") || "").split(" ").map(parseFloat);
    if (cur.length === 4) {
      var inView = function (k) {
        return all('.pt[data-k="' + k + '"]', svg).some(function (pt) {
          var x = Math.log10(+pt.getAttribute("data-x")), y = Math.log10(+pt.getAttribute("data-y"));
          return shown(pt) && x >= cur[0] && x <= cur[1] && y >= cur[2] && y <= cur[3];
        });
      };
      var ranked = all(".klabel", svg).filter(function (t) { return shown(t.parentNode) && inView(t.getAttribute("data-k")) && getComputedStyle(t).display !== "none"; });
      ranked.sort(function (a, b) { return +a.getAttribute("data-prio") - +b.getAttribute("data-prio"); });
      ranked.slice(0, 5).forEach(function (t) { if (!shown(t)) fail(when + ": " + t.textContent + ", among the five kernels with the most time, is not named"); });
    }
    var names = all(".klabel", svg).filter(shown).map(function (t) { return t.textContent; });
    names.forEach(function (n, i) { if (names.indexOf(n) !== i) fail(when + ": two kernels are labelled " + n); });
    var keys = all(".key-entry", svg).map(function (t) { return t.textContent; });
    keys.forEach(function (n, i) { if (keys.indexOf(n) !== i) fail(when + ": two key entries read " + n); });
    count("labelsMeasured", labels.length);
  }
  all("svg.roofline-chart, svg.diff-chart").forEach(function (svg) { checkLabels(svg, "as loaded"); });

  // 6. Zoom and pan, with the wheel, a box, a drag and the buttons.
  function view(svg) { return (svg.getAttribute("data-current") || svg.getAttribute("data-view")).split(" ").map(parseFloat); }
  function ticks(svg) { return all("g.ticks text", svg).map(function (t) { return t.textContent; }).join("|"); }
  function near(a, b, tol) { return a.every(function (v, i) { return Math.abs(v - b[i]) <= tol; }); }
  function plotOf(svg) { return svg.getAttribute("data-plot").split(" ").map(parseFloat); }
  function client(svg, x, y) {
    var p = svg.createSVGPoint();
    p.x = x; p.y = y;
    p = p.matrixTransform(svg.getScreenCTM());
    return { x: p.x, y: p.y };
  }
  // Where each point is drawn, against where the view puts it.
  function pointsFollow(svg, when) {
    var v = view(svg), p = plotOf(svg), bad = 0;
    all(".pt", svg).forEach(function (pt) {
      var m = /translate\(([-\d.]+) ([-\d.]+)\)/.exec(pt.getAttribute("transform"));
      var x = p[0] + (Math.log10(+pt.getAttribute("data-x")) - v[0]) / (v[1] - v[0]) * p[2];
      var y = p[1] + p[3] - (Math.log10(+pt.getAttribute("data-y")) - v[2]) / (v[3] - v[2]) * p[3];
      if (Math.abs(x) < 1e5 && Math.abs(y) < 1e5 && (!m || Math.abs(+m[1] - x) > 0.6 || Math.abs(+m[2] - y) > 0.6)) bad++;
    });
    if (bad) fail(when + ": " + bad + " points are not where the view puts them");
  }
  // Brings the plot's centre to the middle of the window.
  function reveal(svg) {
    var p = plotOf(svg), c = client(svg, p[0] + p[2] / 2, p[1] + p[3] / 2);
    window.scrollBy(0, c.y - window.innerHeight / 2);
  }
  // What the pointer presses at (x, y) of the plot, moved a little off any
  // point or label there (a drag starts on the empty plot).
  function pressable(svg, x, y) {
    for (var d = 0; d < 60; d += 6) {
      for (var s = -1; s <= 1; s += 2) {
        var c = client(svg, x + s * d, y + d), hit = document.elementFromPoint(c.x, c.y);
        if (hit && hit.closest("svg") === svg && !hit.closest(".pt, .klabel")) return { el: hit, x: c.x, y: c.y };
      }
    }
    fail("no empty spot of the plot near " + x + ", " + y);
    return null;
  }
  var svg = document.querySelector("svg.roofline-chart[data-view]");
  if (svg) {
    var box = svg.closest(".chart-box");
    var home = view(svg), homeTicks = ticks(svg), p = plotOf(svg);
    reveal(svg);
    var mid = client(svg, p[0] + p[2] / 2, p[1] + p[3] / 2);
    svg.dispatchEvent(new WheelEvent("wheel", { bubbles: true, cancelable: true, clientX: mid.x, clientY: mid.y, deltaY: -100 }));
    var z = view(svg);
    if (!near([z[1] - z[0], z[3] - z[2]], [0.8 * (home[1] - home[0]), 0.8 * (home[3] - home[2])], 1e-3)) fail("the wheel does not zoom in by 0.8: " + z);
    if (ticks(svg) === homeTicks && (home[1] - home[0]) > 1) fail("the ticks do not follow the zoom");
    pointsFollow(svg, "after the wheel");
    checkLabels(svg, "after the wheel");
    // A box from a quarter to three quarters of the plot.
    var before = view(svg);
    var a = pressable(svg, p[0] + p[2] / 4, p[1] + p[3] / 4) || { el: svg, x: 0, y: 0 };
    var q0 = svg.createSVGPoint();
    q0.x = a.x; q0.y = a.y;
    q0 = q0.matrixTransform(svg.getScreenCTM().inverse());
    var b = client(svg, q0.x + p[2] / 2, q0.y + p[3] / 2);
    mouse(a.el, "mousedown", a.x, a.y);
    window.dispatchEvent(new MouseEvent("mousemove", { clientX: b.x, clientY: b.y }));
    if (!svg.querySelector(".zoom-box")) fail("dragging draws no box");
    window.dispatchEvent(new MouseEvent("mouseup", { clientX: b.x, clientY: b.y }));
    var r = view(svg);
    var wx = Math.min(p[0] + p[2], q0.x + p[2] / 2) - q0.x, wy = Math.min(p[1] + p[3], q0.y + p[3] / 2) - q0.y;
    var want = [(before[1] - before[0]) * wx / p[2], (before[3] - before[2]) * wy / p[3]];
    if (!near([r[1] - r[0], r[3] - r[2]], want, 0.01)) fail("the box zoom shows " + r + " after " + before + ", not spans " + want);
    pointsFollow(svg, "after the box zoom");
    checkLabels(svg, "after the box zoom");
    // Shift and drag pans by as much as the pointer moved.
    before = view(svg);
    a = pressable(svg, p[0] + p[2] / 2, p[1] + p[3] / 2) || { el: svg, x: 0, y: 0 };
    b = { x: a.x + 100 * svg.getScreenCTM().a, y: a.y };
    mouse(a.el, "mousedown", a.x, a.y, { shiftKey: true });
    window.dispatchEvent(new MouseEvent("mousemove", { clientX: b.x, clientY: b.y }));
    window.dispatchEvent(new MouseEvent("mouseup", { clientX: b.x, clientY: b.y }));
    r = view(svg);
    var shift = 100 / p[2] * (before[1] - before[0]);
    if (!near(r, [before[0] - shift, before[1] - shift, before[2], before[3]], 0.01)) fail("the pan shows " + r + " after " + before);
    pointsFollow(svg, "after the pan");
    checkLabels(svg, "after the pan");
    // Arrow keys pan, 0 resets.
    svg.focus();
    before = view(svg);
    svg.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowRight", bubbles: true }));
    if (near(view(svg), before, 1e-6)) fail("the arrow keys do not pan");
    svg.dispatchEvent(new KeyboardEvent("keydown", { key: "0", bubbles: true }));
    if (!near(view(svg), home, 2e-3)) fail("0 does not reset the view");
    // The buttons.
    if (box) {
      box.querySelector('button[data-act="full"]').click();
      var full = svg.getAttribute("data-full").split(" ").map(parseFloat);
      if (!near(view(svg), full, 2e-3)) fail("'whole roofline' shows " + view(svg) + ", not " + full);
      checkLabels(svg, "the whole roofline");
      box.querySelector('button[data-act="reset"]').click();
      if (!near(view(svg), home, 2e-3) || ticks(svg) !== homeTicks) fail("'reset view' does not bring back the first view");
      checkLabels(svg, "after the reset");
      count("zoomChecks");
      // Precision tabs (the stylesheet filters, the script refits the view).
      var tabs = all(".tab-input", box);
      tabs.slice(1).forEach(function (input) {
        input.checked = true;
        input.dispatchEvent(new Event("change", { bubbles: true }));
        var key = input.value;
        all(".kernel", svg).forEach(function (g) {
          var inTab = (" " + g.getAttribute("data-tabs") + " ").indexOf(" " + key + " ") >= 0;
          if (inTab !== shown(g)) fail("tab " + key + ": kernel " + g.getAttribute("data-k") + (inTab ? " is hidden" : " is shown"));
        });
        var tv = input.getAttribute("data-view").split(" ").map(parseFloat);
        if (!near(view(svg), tv, 2e-3)) fail("tab " + key + " does not fit its kernels");
        checkLabels(svg, "tab " + key);
        count("tabsChecked");
      });
      if (tabs.length) { tabs[0].checked = true; tabs[0].dispatchEvent(new Event("change", { bubbles: true })); }
      var roofs = box.querySelector(".roofs-input");
      if (roofs) {
        var extra = svg.querySelector("line.roof[data-extra]");
        if (extra && shown(extra)) fail("a hidden roof is drawn before it is asked for");
        roofs.checked = true;
        roofs.dispatchEvent(new Event("change", { bubbles: true }));
        if (extra && getComputedStyle(extra).display === "none") fail("'show all roofs' does not draw the other roofs");
        checkLabels(svg, "with every roof");
        roofs.checked = false;
        roofs.dispatchEvent(new Event("change", { bubbles: true }));
        count("roofSwitch");
      }
    }
  }
  (window.__rooflineErrors || []).forEach(function (e) { if (failures.indexOf("script error: " + e) < 0) fail("script error: " + e); });
  var out = document.createElement("pre");
  out.id = "harness-result";
  out.textContent = "HARNESS " + JSON.stringify({ failures: failures, counts: counts });
  document.body.appendChild(out);
})();
