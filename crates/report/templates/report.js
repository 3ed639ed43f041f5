// The report's script: what a page without it cannot do. The page reads
// correctly without it (static chart with hover titles, CSS tabs, detail
// panels); this adds the rich hover details, one highlight per kernel
// across its points, key entry, table row and detail panel, zoom and pan of
// the roofline (drawing its axes, roofs and points again and laying out
// the labels with the real font), and sorting of the tables.
//
// The chart's SVG carries what a redraw needs: data-plot (the plot area),
// data-view / data-full (log10 ranges), data-x / data-y / data-rate on each
// element in data units, data-tabs / data-extra for the precision tabs and
// the hidden roofs. The tick and label rules follow crates/report/src/chart/.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("roofline-data").textContent);
  var tip = document.getElementById("tip");

  function all(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }
  function num(el, name) { return parseFloat(el.getAttribute(name)); }
  function r1(v) { return String(Math.round(v * 10) / 10); }

  /* ---------- hover details ---------- */
  function detailFor(el) {
    var key = el && el.getAttribute("data-tip");
    return key !== null && key !== undefined ? data.points[key] : null;
  }
  function showTip(d, x, y) {
    tip.textContent = "";
    var head = document.createElement("b");
    head.textContent = d.title;
    tip.appendChild(head);
    tip.appendChild(document.createTextNode(d.lines.join("\n")));
    tip.hidden = false;
    var r = tip.getBoundingClientRect();
    var left = Math.min(x + 14, window.innerWidth - r.width - 8);
    var top = y + 14 + r.height > window.innerHeight ? y - r.height - 10 : y + 14;
    tip.style.left = Math.max(4, left) + "px";
    tip.style.top = Math.max(4, top) + "px";
  }
  function hideTip() { tip.hidden = true; }

  /* ---------- one kernel, everywhere ---------- */
  var hover = null, pin = null;
  function refresh() {
    all(".hl").forEach(function (e) { e.classList.remove("hl"); });
    all(".pinned").forEach(function (e) { e.classList.remove("pinned"); });
    [hover, pin].forEach(function (k) {
      if (k === null) return;
      all('[data-k="' + k + '"]').forEach(function (e) { e.classList.add("hl"); });
      all('.kernel[data-k="' + k + '"]').forEach(function (g) {
        var roof = g.getAttribute("data-roof");
        if (roof) all('.roof[data-roof="' + roof + '"]', g.ownerSVGElement).forEach(function (r) { r.classList.add("hl"); });
      });
    });
    if (pin !== null) {
      all('tr[data-k="' + pin + '"], tbody[data-k="' + pin + '"]').forEach(function (e) { e.classList.add("pinned"); });
    }
    all(".roofline-chart").forEach(function (s) { s.classList.toggle("focus", hover !== null || pin !== null); });
  }
  function setHover(k) { hover = k; refresh(); }
  function togglePin(k) {
    pin = pin === k ? null : k;
    if (pin !== null) {
      var panel = document.querySelector('details.detail[data-k="' + pin + '"]');
      if (panel) panel.open = true;
    }
    refresh();
  }
  function kOf(el) { return el.getAttribute("data-k"); }
  function pointOf(k) { return document.querySelector('.chart .pt[data-k="' + k + '"]'); }

  all(".chart .pt").forEach(function (el) {
    var t = el.querySelector("title");
    if (t) { el.setAttribute("aria-label", t.textContent); t.remove(); }
    el.setAttribute("tabindex", "0");
    el.setAttribute("role", "button");
    var show = function (x, y) { var d = detailFor(el); if (d) showTip(d, x, y); };
    el.addEventListener("mouseenter", function (e) { setHover(kOf(el)); show(e.clientX, e.clientY); });
    el.addEventListener("mousemove", function (e) { show(e.clientX, e.clientY); });
    el.addEventListener("mouseleave", function () { setHover(null); hideTip(); });
    el.addEventListener("focus", function () { var r = el.getBoundingClientRect(); setHover(kOf(el)); show(r.right, r.bottom); });
    el.addEventListener("blur", function () { setHover(null); hideTip(); });
    el.addEventListener("click", function (e) { e.stopPropagation(); if (kOf(el) !== null) togglePin(kOf(el)); });
    el.addEventListener("keydown", function (e) {
      if ((e.key === "Enter" || e.key === " ") && kOf(el) !== null) { e.preventDefault(); togglePin(kOf(el)); }
    });
  });
  all(".chart .key-entry, .chart .klabel").forEach(function (el) {
    var k = kOf(el);
    var key = el.classList.contains("key-entry");
    if (key) {
      el.setAttribute("tabindex", "0");
      el.setAttribute("role", "button");
      el.setAttribute("aria-label", el.textContent + ": show on the chart and in the table");
    }
    var show = function (x, y) { var d = detailFor(pointOf(k)); if (d) showTip(d, x, y); };
    el.addEventListener("mouseenter", function (e) { setHover(k); if (key) show(e.clientX, e.clientY); });
    el.addEventListener("mouseleave", function () { setHover(null); hideTip(); });
    el.addEventListener("focus", function () { var r = el.getBoundingClientRect(); setHover(k); show(r.right, r.bottom); });
    el.addEventListener("blur", function () { setHover(null); hideTip(); });
    el.addEventListener("click", function (e) { e.stopPropagation(); togglePin(k); });
    el.addEventListener("keydown", function (e) {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); togglePin(k); }
    });
  });
  // Table rows and detail panels: one listener each for the whole page
  // (a table may hold many thousands of kernels).
  var ROWS = "table tr[data-k], table tbody[data-k], details.detail[data-k]";
  document.addEventListener("mouseover", function (e) {
    var el = e.target.closest && e.target.closest(ROWS);
    if (el && kOf(el) !== hover) setHover(kOf(el));
  });
  document.addEventListener("mouseout", function (e) {
    var el = e.target.closest && e.target.closest(ROWS);
    var to = e.relatedTarget && e.relatedTarget.closest ? e.relatedTarget.closest(ROWS) : null;
    if (el && to !== el && hover === kOf(el)) setHover(to ? kOf(to) : null);
  });
  // Keyboard focus on a row's link or in a panel does what a hover does.
  document.addEventListener("focusin", function (e) {
    var el = e.target.closest && e.target.closest(ROWS);
    if (el) setHover(kOf(el));
  });
  document.addEventListener("focusout", function (e) {
    var el = e.target.closest && e.target.closest(ROWS);
    if (el && hover === kOf(el)) setHover(null);
  });
  document.addEventListener("click", function (e) {
    var el = e.target.closest && e.target.closest("table tr[data-k], table tbody[data-k]");
    if (el && !e.target.closest("a, button, summary")) togglePin(kOf(el));
  });
  // The kernel's colour beside its name in the table.
  var colours = {};
  all(".chart .key-entry").forEach(function (e) {
    var dot = e.querySelector("circle");
    if (dot) colours[kOf(e)] = dot.getAttribute("fill");
  });
  all("table tr[data-k], table tbody[data-k]").forEach(function (el) {
    var colour = colours[kOf(el)], cell = el.querySelector("td");
    if (!colour || !cell) return;
    var s = document.createElement("span");
    s.className = "swatch";
    s.style.background = colour;
    cell.insertBefore(s, cell.firstChild);
  });
  all('a[href^="#detail-"]').forEach(function (a) {
    a.addEventListener("click", function () {
      var d = document.getElementById(a.getAttribute("href").slice(1));
      if (d) d.open = true;
    });
  });
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape" && pin !== null) { pin = null; refresh(); }
  });

  /* ---------- sorting ---------- */
  function unitsOf(table) {
    var grouped = table.querySelector("tbody.group") !== null;
    return grouped ? Array.prototype.slice.call(table.tBodies) : Array.prototype.slice.call(table.tBodies[0].rows);
  }
  function cellValue(unit, col, numeric) {
    var tr = unit.tagName === "TBODY" ? unit.rows[0] : unit;
    var td = tr.children[col];
    var v = td ? td.getAttribute("data-v") : null;
    if (numeric) { var f = parseFloat(v); return isNaN(f) ? null : f; }
    return (v !== null ? v : (td ? td.textContent : "")).toLowerCase();
  }
  function sortBy(table, col) {
    var th = table.tHead.rows[0].cells[col];
    var numeric = th.getAttribute("data-type") === "num";
    var dir = th.getAttribute("aria-sort") === "descending" ? "ascending"
            : th.getAttribute("aria-sort") === "ascending" ? "descending"
            : (numeric ? "descending" : "ascending");
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) { c.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir);
    var sign = dir === "ascending" ? 1 : -1;
    var units = unitsOf(table);
    units.forEach(function (r, i) { r.__i = i; });
    units.sort(function (a, b) {
      var x = cellValue(a, col, numeric), y = cellValue(b, col, numeric);
      if (x === null && y === null) return a.__i - b.__i;
      if (x === null) return 1;
      if (y === null) return -1;
      if (x < y) return -sign;
      if (x > y) return sign;
      return a.__i - b.__i;
    });
    var parent = units[0].parentNode;
    units.forEach(function (r) { parent.appendChild(r); });
  }
  all("table.data").forEach(function (table) {
    if (!table.tHead || table.tBodies.length === 0 || unitsOf(table).length < 2) return;
    table.classList.add("sortable");
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      var b = document.createElement("button");
      b.type = "button";
      b.textContent = th.textContent;
      th.textContent = "";
      th.appendChild(b);
      b.addEventListener("click", function () { sortBy(table, col); });
    });
    var hint = document.createElement("p");
    hint.className = "hint";
    hint.textContent = "Click a column header to sort; click again to reverse.";
    var wrap = table.closest(".table-wrap") || table;
    wrap.parentNode.insertBefore(hint, wrap);
  });

  /* ---------- the roofline: ticks, as crates/report/src/chart/scale.rs ---------- */
  var MIN_LOG = -30, MAX_LOG = 30, MIN_SPAN = 0.02, MAX_SPAN = 60;
  function pow10(k) { return parseFloat("1e" + k); }
  function inSpan(lo, hi, v) { if (!(v > 0)) return false; var l = Math.log10(v); return l >= lo - 1e-9 && l <= hi + 1e-9; }
  function niceStep(raw) {
    var mag = Math.pow(10, Math.floor(Math.log10(raw)));
    var ms = [1, 2, 5, 10];
    for (var i = 0; i < ms.length; i++) if (ms[i] * mag >= raw * (1 - 1e-9)) return ms[i] * mag;
    return 10 * mag;
  }
  function ticks(lo, hi) {
    var w = hi - lo, major = [], minor = [], k0 = Math.floor(lo), k1 = Math.ceil(hi), k, m, v, i;
    if (w > 2.5) {
      var every = Math.max(1, Math.ceil(w / 8));
      for (k = k0; k <= k1; k++) {
        v = pow10(k);
        if (((k % every) + every) % every === 0 && inSpan(lo, hi, v)) major.push(v);
        if (w <= 6) for (m = 2; m < 10; m++) { v = parseFloat(m + "e" + k); if (inSpan(lo, hi, v)) minor.push(v); }
      }
    } else if (w > 0.9) {
      var lab = w > 1.6 ? [1, 2, 5] : [1, 2, 3, 5];
      for (k = k0; k <= k1; k++) for (m = 1; m < 10; m++) {
        v = parseFloat(m + "e" + k);
        if (!inSpan(lo, hi, v)) continue;
        (lab.indexOf(m) >= 0 ? major : minor).push(v);
      }
    } else {
      var a = Math.pow(10, lo), b = Math.pow(10, hi), step = niceStep((b - a) / 5), first = Math.ceil(a / step);
      for (i = 0; i < 12; i++) { v = (first + i) * step; if (v > b) break; if (inSpan(lo, hi, v)) major.push(v); }
      var ms = step / 5, f2 = Math.ceil(a / ms);
      for (i = 0; i < 64; i++) {
        v = (f2 + i) * ms;
        if (v > b) break;
        if (inSpan(lo, hi, v) && !major.some(function (x) { return Math.abs(x / v - 1) < 1e-9; })) minor.push(v);
      }
    }
    return { major: major, minor: minor };
  }
  function trimZeros(s) { return s.indexOf(".") >= 0 ? s.replace(/0+$/, "").replace(/\.$/, "") : s; }
  function plain(v) {
    var a = Math.abs(v);
    return a >= 100 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : a >= 1 ? v.toFixed(2) : a >= 0.01 ? v.toFixed(3) : v.toExponential(2);
  }
  var SI = [["", 1], ["k", 1e3], ["M", 1e6], ["G", 1e9], ["T", 1e12], ["P", 1e15], ["E", 1e18]];
  function tickLabel(v, unit) {
    var k = Math.floor(Math.log10(v) + 1e-9);
    var sci = function () {
      var m = v / Math.pow(10, k);
      return (Math.abs(m - Math.round(m)) < 1e-6 ? String(Math.round(m)) : trimZeros(plain(m))) + "e" + k;
    };
    if (unit !== "FLOP/B") {
      if (v < 10) return sci() + " " + unit;
      var c = SI[0];
      SI.forEach(function (p) { if (v / p[1] >= 10) c = p; });
      var mant = v / c[1], a = Math.abs(mant);
      return trimZeros(a >= 100 ? mant.toFixed(0) : a >= 10 ? mant.toFixed(1) : mant.toFixed(2)) + " " + c[0] + unit;
    }
    if (k < -4 || k >= 6) return sci();
    return trimZeros(v.toFixed(k < 0 ? -k + 1 : 1));
  }

  /* ---------- the roofline: label layout, as crates/report/src/chart/layout.rs ---------- */
  // A label covers its text's box (the font's ascent to its descent, as the
  // browser measures it), turned with the text: a quadrilateral, tested
  // against others by separating axes.
  function boundsOf(q) {
    var xs = q.map(function (p) { return p[0]; }), ys = q.map(function (p) { return p[1]; });
    var x0 = Math.min.apply(null, xs), y0 = Math.min.apply(null, ys);
    return { x: x0, y: y0, w: Math.max.apply(null, xs) - x0, h: Math.max.apply(null, ys) - y0 };
  }
  function rectOverlaps(a, b) { return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h; }
  function inside(a, o) { return a.x >= o.x && a.y >= o.y && a.x + a.w <= o.x + o.w && a.y + a.h <= o.y + o.h; }
  function quadsOverlap(a, b) {
    if (!rectOverlaps(boundsOf(a), boundsOf(b))) return false;
    return polygonsOverlap(a, b);
  }
  function rectQuad(r) { return [[r.x, r.y], [r.x + r.w, r.y], [r.x + r.w, r.y + r.h], [r.x, r.y + r.h]]; }
  function Occupancy(bounds) { this.b = bounds; this.cell = 48; this.shapes = []; this.buckets = {}; }
  Occupancy.prototype.cells = function (r, fn) {
    var b = this.b, c = this.cell;
    var cl = function (v, lo, hi) { return Math.max(lo, Math.min(hi, v)); };
    var i0 = Math.floor((cl(r.x, b.x, b.x + b.w) - b.x) / c), i1 = Math.floor((cl(r.x + r.w, b.x, b.x + b.w) - b.x) / c);
    var j0 = Math.floor((cl(r.y, b.y, b.y + b.h) - b.y) / c), j1 = Math.floor((cl(r.y + r.h, b.y, b.y + b.h) - b.y) / c);
    for (var i = i0; i <= i1; i++) for (var j = j0; j <= j1; j++) if (fn(i + "," + j)) return true;
    return false;
  };
  Occupancy.prototype.add = function (q, label) {
    var id = this.shapes.length, self = this;
    this.shapes.push({ q: q, label: label });
    this.cells(boundsOf(q), function (key) { (self.buckets[key] = self.buckets[key] || []).push(id); return false; });
  };
  Occupancy.prototype.hits = function (q, labelsOnly) {
    var self = this;
    return this.cells(boundsOf(q), function (key) {
      var ids = self.buckets[key];
      if (!ids) return false;
      for (var i = 0; i < ids.length; i++) {
        var s = self.shapes[ids[i]];
        if ((!labelsOnly || s.label) && quadsOverlap(s.q, q)) return true;
      }
      return false;
    });
  };
  // m: the text's measure {w, asc, h}; s: {x, y, anchor, angle}.
  function quad(m, s) {
    var start = s.anchor === "start" ? 0 : s.anchor === "middle" ? -m.w / 2 : -m.w;
    var rad = (s.angle || 0) * Math.PI / 180, cos = Math.cos(rad), sin = Math.sin(rad);
    var turn = function (dx, dy) { return [s.x + dx * cos - dy * sin, s.y + dx * sin + dy * cos]; };
    return [turn(start, -m.asc), turn(start + m.w, -m.asc), turn(start + m.w, m.h - m.asc), turn(start, m.h - m.asc)];
  }
  function place(occ, m, spots, required) {
    var passes = required ? [false, true] : [false];
    for (var p = 0; p < passes.length; p++) {
      for (var i = 0; i < spots.length; i++) {
        var q = quad(m, spots[i]);
        if (inside(boundsOf(q), occ.b) && !occ.hits(q, passes[p])) { occ.add(q, true); return spots[i]; }
      }
    }
    return null;
  }
  // The box of a text element as the browser draws it, without its rotation.
  function measure(t) {
    t.removeAttribute("transform");
    var bb = t.getBBox(), y = parseFloat(t.getAttribute("y")) || 0;
    return { w: bb.width + 0.5, asc: y - bb.y + 0.25, h: bb.height + 0.5 };
  }
  function spotsAround(markers, size) {
    var out = [];
    markers.slice(0, 4).forEach(function (m) {
      var x = m[0], y = m[1], r = m[2], mid = y + size * 0.35;
      out.push({ x: x + r + 4, y: mid, anchor: "start" }, { x: x - r - 4, y: mid, anchor: "end" },
        { x: x, y: y - r - 5, anchor: "middle" }, { x: x, y: y + r + size + 2, anchor: "middle" },
        { x: x + r + 2, y: y - r - 3, anchor: "start" }, { x: x + r + 2, y: y + r + size, anchor: "start" },
        { x: x - r - 2, y: y - r - 3, anchor: "end" }, { x: x - r - 2, y: y + r + size, anchor: "end" });
    });
    if (markers.length) {
      var x = markers[0][0], y = markers[0][1], r = markers[0][2];
      for (var ring = 1; ring <= 12; ring++) {
        var d = r + 10 + 16 * ring;
        for (var dir = 0; dir < 12; dir++) {
          var a = dir * Math.PI / 6, dx = Math.cos(a) * d, dy = -Math.sin(a) * d;
          out.push({ x: x + dx, y: y + dy + size * 0.35, anchor: dx > 1 ? "start" : dx < -1 ? "end" : "middle" });
        }
      }
    }
    return out;
  }
  function leader(m, s, mk) {
    var b = boundsOf(quad(m, s));
    var nx = Math.max(b.x, Math.min(b.x + b.w, mk[0])), ny = Math.max(b.y, Math.min(b.y + b.h, mk[1]));
    var d = Math.hypot(nx - mk[0], ny - mk[1]);
    if (d <= mk[2] + 9) return null;
    return [mk[0] + (nx - mk[0]) / d * mk[2], mk[1] + (ny - mk[1]) / d * mk[2], nx, ny];
  }

  /* ---------- the roofline: one chart ---------- */
  function parseView(s) { var v = (s || "").split(" ").map(parseFloat); return { x0: v[0], x1: v[1], y0: v[2], y1: v[3] }; }
  function copyView(v) { return { x0: v.x0, x1: v.x1, y0: v.y0, y1: v.y1 }; }
  function clampSpan(lo, hi) {
    var w = Math.min(MAX_SPAN, Math.max(MIN_SPAN, hi - lo)), mid = (lo + hi) / 2;
    lo = mid - w / 2; hi = mid + w / 2;
    if (lo < MIN_LOG) { hi += MIN_LOG - lo; lo = MIN_LOG; }
    if (hi > MAX_LOG) { lo -= hi - MAX_LOG; hi = MAX_LOG; }
    return [lo, hi];
  }

  function Chart(svg) {
    var c = this;
    c.svg = svg;
    c.box = svg.closest(".chart-box");
    var p = svg.getAttribute("data-plot").split(" ").map(parseFloat);
    c.plot = { x: p[0], y: p[1], w: p[2], h: p[3] };
    c.unit = svg.getAttribute("data-unit") || "FLOP/s";
    c.home = parseView(svg.getAttribute("data-view"));
    c.full = parseView(svg.getAttribute("data-full"));
    c.view = copyView(c.home);
    c.tab = "all";
    c.allRoofs = false;
    c.size = 11;
  }
  Chart.prototype.px = function (x) { var v = this.view, p = this.plot; return p.x + (Math.log10(x) - v.x0) / (v.x1 - v.x0) * p.w; };
  Chart.prototype.py = function (y) { var v = this.view, p = this.plot; return p.y + p.h - (Math.log10(y) - v.y0) / (v.y1 - v.y0) * p.h; };
  Chart.prototype.xAt = function (px) { var v = this.view, p = this.plot; return Math.pow(10, v.x0 + (px - p.x) / p.w * (v.x1 - v.x0)); };
  Chart.prototype.yAt = function (py) { var v = this.view, p = this.plot; return Math.pow(10, v.y0 + (p.y + p.h - py) / p.h * (v.y1 - v.y0)); };
  Chart.prototype.shown = function (el) {
    var t = el.getAttribute("data-tabs");
    if (t !== null) return (" " + t + " ").indexOf(" " + this.tab + " ") >= 0;
    if (el.hasAttribute("data-extra")) return this.allRoofs;
    return true;
  };
  Chart.prototype.inView = function (x, y) {
    var v = this.view;
    return inSpan(v.x0, v.x1, x) && inSpan(v.y0, v.y1, y);
  };
  Chart.prototype.setView = function (v, quick) {
    var x = clampSpan(v.x0, v.x1), y = clampSpan(v.y0, v.y1);
    this.view = { x0: x[0], x1: x[1], y0: y[0], y1: y[1] };
    this.svg.setAttribute("data-current", [x[0], x[1], y[0], y[1]].map(function (n) { return n.toFixed(4); }).join(" "));
    this.axes();
    this.roofs();
    this.marks();
    if (quick) { this.svg.classList.add("moving"); this.hideLabels(); } else { this.svg.classList.remove("moving"); this.layout(); }
  };
  Chart.prototype.el = function (tag, attrs, text) {
    var e = document.createElementNS(this.svg.namespaceURI, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  Chart.prototype.axes = function () {
    var c = this, p = c.plot, v = c.view;
    var grid = c.svg.querySelector("g.grid"), tk = c.svg.querySelector("g.ticks");
    var tx = ticks(v.x0, v.x1), ty = ticks(v.y0, v.y1);
    grid.textContent = "";
    tk.textContent = "";
    [[tx.minor, "#f1f1f1"], [tx.major, "#e0e0e0"]].forEach(function (set) {
      set[0].forEach(function (x) { var X = r1(c.px(x)); grid.appendChild(c.el("line", { x1: X, y1: r1(p.y), x2: X, y2: r1(p.y + p.h), stroke: set[1] })); });
    });
    [[ty.minor, "#f1f1f1"], [ty.major, "#e0e0e0"]].forEach(function (set) {
      set[0].forEach(function (y) { var Y = r1(c.py(y)); grid.appendChild(c.el("line", { x1: r1(p.x), y1: Y, x2: r1(p.x + p.w), y2: Y, stroke: set[1] })); });
    });
    tx.major.forEach(function (x) {
      var X = r1(c.px(x));
      tk.appendChild(c.el("line", { x1: X, y1: r1(p.y + p.h), x2: X, y2: r1(p.y + p.h + 5), stroke: "#333" }));
      tk.appendChild(c.el("text", { x: X, y: r1(p.y + p.h + 18), "text-anchor": "middle" }, tickLabel(x, "FLOP/B")));
    });
    ty.major.forEach(function (y) {
      var Y = c.py(y);
      tk.appendChild(c.el("line", { x1: r1(p.x - 5), y1: r1(Y), x2: r1(p.x), y2: r1(Y), stroke: "#333" }));
      tk.appendChild(c.el("text", { x: r1(p.x - 8), y: r1(Y + 4), "text-anchor": "end" }, tickLabel(y, c.unit)));
    });
  };
  Chart.prototype.extremes = function () {
    var c = this, top = 0, fastest = 0;
    all("line.roof", c.svg).forEach(function (l) {
      if (!c.shown(l)) return;
      var rate = num(l, "data-rate");
      if (l.getAttribute("data-kind") === "flat") top = Math.max(top, rate);
      else if (!l.hasAttribute("data-thin")) fastest = Math.max(fastest, rate);
    });
    return { top: top, fastest: fastest };
  };
  Chart.prototype.roofs = function () {
    var c = this, v = c.view, e = c.extremes();
    var xmin = Math.pow(10, v.x0), xmax = Math.pow(10, v.x1), ymin = Math.pow(10, v.y0);
    all("line.roof", c.svg).forEach(function (l) {
      var rate = num(l, "data-rate"), x1, y1, x2, y2, vis;
      if (l.getAttribute("data-kind") === "flat") {
        x1 = e.fastest > 0 ? Math.max(rate / e.fastest, xmin) : xmin;
        x2 = xmax; y1 = y2 = rate;
        vis = x2 > x1 && inSpan(v.y0, v.y1, rate);
      } else {
        x1 = Math.max(xmin, ymin / rate);
        x2 = e.top > 0 ? Math.min(e.top / rate, xmax) : xmax;
        y1 = rate * x1; y2 = rate * Math.max(x1, x2);
        vis = x2 > x1 && y1 <= Math.pow(10, v.y1);
      }
      var cl = function (n) { return r1(Math.max(-1e5, Math.min(1e5, n))); };
      l.setAttribute("x1", cl(c.px(x1))); l.setAttribute("y1", cl(c.py(y1)));
      l.setAttribute("x2", cl(c.px(Math.max(x1, x2)))); l.setAttribute("y2", cl(c.py(y2)));
      if (vis) l.removeAttribute("visibility"); else l.setAttribute("visibility", "hidden");
    });
    all("path.ridge", c.svg).forEach(function (d) {
      var x = num(d, "data-x"), y = num(d, "data-y");
      d.setAttribute("transform", "translate(" + r1(c.px(x)) + " " + r1(c.py(y)) + ")");
      if (c.inView(x, y)) d.removeAttribute("visibility"); else d.setAttribute("visibility", "hidden");
    });
  };
  Chart.prototype.marks = function () {
    var c = this;
    all("g.kernel", c.svg).forEach(function (g) {
      var xs = [];
      all(".pt", g).forEach(function (pt) {
        var x = num(pt, "data-x"), y = num(pt, "data-y");
        xs.push(x);
        pt.setAttribute("transform", "translate(" + r1(c.px(x)) + " " + r1(c.py(y)) + ")");
      });
      var y = num(g.querySelector(".pt"), "data-y");
      var span = g.querySelector("line.span");
      if (span) {
        span.setAttribute("x1", r1(c.px(Math.min.apply(null, xs)))); span.setAttribute("x2", r1(c.px(Math.max.apply(null, xs))));
        span.setAttribute("y1", r1(c.py(y))); span.setAttribute("y2", r1(c.py(y)));
      }
      var own = g.querySelector("line.own-roof");
      if (own) {
        var oy = r1(c.py(num(own, "data-rate")));
        own.setAttribute("x1", r1(c.px(num(own, "data-x0")))); own.setAttribute("x2", r1(c.px(num(own, "data-x1"))));
        own.setAttribute("y1", oy); own.setAttribute("y2", oy);
      }
    });
  };
  Chart.prototype.hideLabels = function () {
    all(".klabel, .roof-label", this.svg).forEach(function (t) { t.setAttribute("visibility", "hidden"); });
    all(".leader, .roof-leader", this.svg).forEach(function (l) { l.remove(); });
  };
  // Places every label again with the real font: markers and ridge points
  // block, then the kernels that must be named, the roofs, the others.
  Chart.prototype.layout = function () {
    var c = this, p = c.plot, size = c.size;
    var occ = new Occupancy({ x: p.x + 2, y: p.y + 2, w: p.w - 4, h: p.h - 4 });
    c.hideLabels();
    var markers = {};
    all("g.kernel", c.svg).forEach(function (g) {
      if (!c.shown(g)) return;
      var k = kOf(g);
      markers[k] = [];
      all(".pt", g).forEach(function (pt) {
        var x = num(pt, "data-x"), y = num(pt, "data-y"), r = num(pt, "data-r");
        if (!c.inView(x, y)) return;
        var X = c.px(x), Y = c.py(y);
        occ.add(rectQuad({ x: X - r, y: Y - r, w: 2 * r, h: 2 * r }), false);
        markers[k].push([X, Y, r]);
      });
    });
    all("path.ridge", c.svg).forEach(function (d) {
      if (!c.shown(d) || d.getAttribute("visibility") === "hidden") return;
      occ.add(rectQuad({ x: c.px(num(d, "data-x")) - 6, y: c.py(num(d, "data-y")) - 6, w: 12, h: 12 }), false);
    });
    var klabels = all("text.klabel", c.svg).filter(function (t) { return c.shown(t) && markers[kOf(t)] && markers[kOf(t)].length; });
    klabels.sort(function (a, b) { return num(a, "data-prio") - num(b, "data-prio"); });
    var layer = c.svg.querySelector("g.kernel-labels");
    var kernel = function (t, required) {
      var ms = markers[kOf(t)];
      ms.sort(function (a, b) { return a[0] - b[0]; });
      var m = measure(t);
      var s = place(occ, m, spotsAround(ms, size), required);
      if (!s) return;
      t.setAttribute("x", r1(s.x)); t.setAttribute("y", r1(s.y)); t.setAttribute("text-anchor", s.anchor);
      t.removeAttribute("visibility");
      var b = boundsOf(quad(m, s)), bx = b.x + b.w / 2, by = b.y + b.h / 2;
      var near = ms.slice().sort(function (m1, m2) { return Math.hypot(m1[0] - bx, m1[1] - by) - Math.hypot(m2[0] - bx, m2[1] - by); })[0];
      var l = leader(m, s, near);
      if (l) {
        var line = c.el("line", { "class": "leader", "data-k": kOf(t), x1: r1(l[0]), y1: r1(l[1]), x2: r1(l[2]), y2: r1(l[3]), stroke: "#888", "stroke-width": "0.8" });
        if (t.hasAttribute("data-tabs")) line.setAttribute("data-tabs", t.getAttribute("data-tabs"));
        if (t.classList.contains("hl")) line.classList.add("hl");
        layer.insertBefore(line, t);
      }
    };
    klabels.forEach(function (t, i) { if (i < 5) kernel(t, true); });
    c.roofLabels(occ);
    klabels.forEach(function (t, i) { if (i >= 5) kernel(t, false); });
  };
  Chart.prototype.roofLabels = function (occ) {
    var c = this, p = c.plot, v = c.view, size = c.size, e = c.extremes();
    var lines = {};
    all("line.roof", c.svg).forEach(function (l) { lines[l.getAttribute("data-roof")] = l; });
    var texts = all("text.roof-label", c.svg);
    var xr = p.x + p.w - 4;
    var angle = Math.atan(-(p.h / (v.y1 - v.y0)) / (p.w / (v.x1 - v.x0))) * 180 / Math.PI;
    var layer = c.svg.querySelector("g.roof-labels");
    [false, true].forEach(function (extraPass) {
      var pass = texts.filter(function (t) {
        return c.shown(t) && t.hasAttribute("data-extra") === extraPass && lines[t.getAttribute("data-roof")];
      });
      var flat = pass.filter(function (t) { return lines[t.getAttribute("data-roof")].getAttribute("data-kind") === "flat"; });
      var rate = function (t) { return num(lines[t.getAttribute("data-roof")], "data-rate"); };
      flat.sort(function (a, b) { return rate(b) - rate(a); });
      var done = [];
      flat.forEach(function (t) {
        if (done.indexOf(t) >= 0) return;
        var r = rate(t);
        var group = flat.filter(function (u) { return done.indexOf(u) < 0 && Math.abs(rate(u) / r - 1) < 0.005; });
        done = done.concat(group);
        if (!inSpan(v.y0, v.y1, r)) return;
        t.textContent = group.map(function (u) { return u.getAttribute("data-name"); }).join(", ") + ": " + t.getAttribute("data-value");
        t.setAttribute("text-anchor", "end");
        var m = measure(t), w = m.w, y = c.py(r);
        var start = e.fastest > 0 ? c.px(Math.max(r / e.fastest, Math.pow(10, v.x0))) : p.x, spots = [];
        [-4, 13].forEach(function (dy) {
          for (var k = 0; k < 40; k++) {
            var x = xr - 24 * k;
            if (x - w < p.x + 4 || x < start + 30) break;
            spots.push({ x: x, y: y + dy, anchor: "end" });
          }
        });
        for (var k = 1; k < 12; k++) {
          spots.push({ x: xr - 6, y: y - 4 - 12 * k, anchor: "end" }, { x: xr - 6, y: y + 13 + 12 * k, anchor: "end" });
        }
        var s = place(occ, m, spots, false);
        if (!s) return;
        t.setAttribute("x", r1(s.x)); t.setAttribute("y", r1(s.y)); t.setAttribute("text-anchor", "end");
        t.removeAttribute("visibility");
        if (Math.abs(s.y - (y - 4)) > 0.5 && Math.abs(s.y - (y + 13)) > 0.5) {
          var yl = s.y < y ? s.y - 2 : s.y - 14;
          var path = c.el("path", { "class": "roof-leader", d: "M" + r1(s.x + 2) + " " + r1(yl) + "H" + r1(s.x + 5) + "V" + r1(y), fill: "none", stroke: "#777", "stroke-width": "0.8" });
          layer.appendChild(path);
        }
      });
      pass.forEach(function (t) {
        var l = lines[t.getAttribute("data-roof")];
        if (l.getAttribute("data-kind") !== "slant" || l.hasAttribute("data-thin")) return;
        var r = num(l, "data-rate");
        t.textContent = t.getAttribute("data-name") + ": " + t.getAttribute("data-value");
        t.removeAttribute("text-anchor");
        var m = measure(t);
        var start = c.px(Math.max(Math.pow(10, v.x0), Math.pow(10, v.y0) / r)), spots = [];
        for (var step = 0; step < 40; step++) {
          var X = start + 14 + 16 * step, yd = r * c.xAt(X);
          if ((e.top > 0 && yd > e.top) || X > p.x + p.w) break;
          spots.push({ x: X, y: c.py(yd) - 4, anchor: "start", angle: angle });
        }
        var s = place(occ, m, spots, false);
        if (!s) return;
        t.setAttribute("x", r1(s.x)); t.setAttribute("y", r1(s.y));
        t.setAttribute("transform", "rotate(" + r1(angle) + " " + r1(s.x) + " " + r1(s.y) + ")");
        t.removeAttribute("visibility");
      });
    });
  };
  // Whether two drawn labels overlap with the real font (then lay out again).
  Chart.prototype.crowded = function () {
    var c = this, polys = [];
    all(".klabel, .roof-label", c.svg).forEach(function (t) {
      if (!c.shown(t) || t.getAttribute("visibility") === "hidden") return;
      polys.push(labelPolygon(t));
    });
    for (var i = 0; i < polys.length; i++) for (var j = i + 1; j < polys.length; j++) if (polygonsOverlap(polys[i], polys[j])) return true;
    return false;
  };
  Chart.prototype.toSvg = function (e) {
    var pt = this.svg.createSVGPoint();
    pt.x = e.clientX; pt.y = e.clientY;
    return pt.matrixTransform(this.svg.getScreenCTM().inverse());
  };
  Chart.prototype.inPlot = function (q) { var p = this.plot; return q.x >= p.x && q.x <= p.x + p.w && q.y >= p.y && q.y <= p.y + p.h; };
  Chart.prototype.zoomAt = function (X, Y, f) {
    var v = this.view, lx = Math.log10(this.xAt(X)), ly = Math.log10(this.yAt(Y));
    this.setView({ x0: lx - (lx - v.x0) * f, x1: lx + (v.x1 - lx) * f, y0: ly - (ly - v.y0) * f, y1: ly + (v.y1 - ly) * f });
  };
  Chart.prototype.pan = function (dx, dy, view, quick) {
    var p = this.plot, ddx = dx / p.w * (view.x1 - view.x0), ddy = dy / p.h * (view.y1 - view.y0);
    this.setView({ x0: view.x0 - ddx, x1: view.x1 - ddx, y0: view.y0 + ddy, y1: view.y1 + ddy }, quick);
  };
  Chart.prototype.wire = function () {
    var c = this, svg = c.svg, drag = null, rect = null;
    svg.setAttribute("tabindex", "0");
    svg.setAttribute("aria-label", svg.getAttribute("aria-label") + ". Drag to zoom to a box, shift and drag or arrow keys to pan, wheel or + and - to zoom, 0 to reset.");
    svg.addEventListener("wheel", function (e) {
      var q = c.toSvg(e);
      if (!c.inPlot(q)) return;
      e.preventDefault();
      c.zoomAt(q.x, q.y, e.deltaY < 0 ? 0.8 : 1.25);
    }, { passive: false });
    svg.addEventListener("mousedown", function (e) {
      var q = c.toSvg(e);
      if (e.button !== 0 || !c.inPlot(q) || e.target.closest(".pt, .klabel")) return;
      e.preventDefault();
      drag = { x: q.x, y: q.y, pan: e.shiftKey, view: copyView(c.view) };
      if (!drag.pan) {
        rect = c.el("rect", { "class": "zoom-box", x: q.x, y: q.y, width: 0, height: 0 });
        svg.appendChild(rect);
      }
    });
    window.addEventListener("mousemove", function (e) {
      if (!drag) return;
      var q = c.toSvg(e), p = c.plot;
      if (drag.pan) { c.pan(q.x - drag.x, q.y - drag.y, drag.view, true); return; }
      var x = Math.max(p.x, Math.min(p.x + p.w, q.x)), y = Math.max(p.y, Math.min(p.y + p.h, q.y));
      rect.setAttribute("x", Math.min(x, drag.x)); rect.setAttribute("y", Math.min(y, drag.y));
      rect.setAttribute("width", Math.abs(x - drag.x)); rect.setAttribute("height", Math.abs(y - drag.y));
    });
    window.addEventListener("mouseup", function (e) {
      if (!drag) return;
      var d = drag, q = c.toSvg(e), p = c.plot;
      drag = null;
      if (rect) { rect.remove(); rect = null; }
      if (d.pan) { c.pan(q.x - d.x, q.y - d.y, d.view, false); return; }
      var x = Math.max(p.x, Math.min(p.x + p.w, q.x)), y = Math.max(p.y, Math.min(p.y + p.h, q.y));
      if (Math.abs(x - d.x) < 6 || Math.abs(y - d.y) < 6) return;
      var lx = [Math.log10(c.xAt(d.x)), Math.log10(c.xAt(x))].sort(function (a, b) { return a - b; });
      var ly = [Math.log10(c.yAt(d.y)), Math.log10(c.yAt(y))].sort(function (a, b) { return a - b; });
      c.setView({ x0: lx[0], x1: lx[1], y0: ly[0], y1: ly[1] });
    });
    svg.addEventListener("dblclick", function (e) { if (c.inPlot(c.toSvg(e))) c.setView(copyView(c.home)); });
    svg.addEventListener("keydown", function (e) {
      if (e.target !== svg) return;
      var p = c.plot, cx = p.x + p.w / 2, cy = p.y + p.h / 2, step = 0.1;
      var act = { "+": function () { c.zoomAt(cx, cy, 0.8); }, "=": function () { c.zoomAt(cx, cy, 0.8); },
        "-": function () { c.zoomAt(cx, cy, 1.25); }, "0": function () { c.setView(copyView(c.home)); },
        ArrowLeft: function () { c.pan(p.w * step, 0, c.view); }, ArrowRight: function () { c.pan(-p.w * step, 0, c.view); },
        ArrowUp: function () { c.pan(0, p.h * step, c.view); }, ArrowDown: function () { c.pan(0, -p.h * step, c.view); } }[e.key];
      if (act) { e.preventDefault(); act(); }
    });
    if (c.box) {
      all(".zoom-tools button", c.box).forEach(function (b) {
        b.addEventListener("click", function () {
          var p = c.plot, cx = p.x + p.w / 2, cy = p.y + p.h / 2;
          ({ "in": function () { c.zoomAt(cx, cy, 0.8); }, "out": function () { c.zoomAt(cx, cy, 1.25); },
             reset: function () { c.setView(copyView(c.home)); }, full: function () { c.setView(copyView(c.full)); } })[b.getAttribute("data-act")]();
        });
      });
      all(".tab-input", c.box).forEach(function (input) {
        input.addEventListener("change", function () {
          if (!input.checked) return;
          c.tab = input.value;
          c.home = parseView(input.getAttribute("data-view"));
          c.full = parseView(input.getAttribute("data-full"));
          c.setView(copyView(c.home));
        });
      });
      var roofs = c.box.querySelector(".roofs-input");
      if (roofs) roofs.addEventListener("change", function () { c.allRoofs = roofs.checked; c.setView(c.view); });
      // Back from another page: the inputs keep their state.
      var checked = c.box.querySelector(".tab-input:checked");
      if (checked && checked.value !== "all") {
        c.tab = checked.value;
        c.home = parseView(checked.getAttribute("data-view"));
        c.full = parseView(checked.getAttribute("data-full"));
        c.view = copyView(c.home);
      }
      if (roofs) c.allRoofs = roofs.checked;
    }
  };

  /* ---------- overlap of drawn labels, with rotation ---------- */
  function labelPolygon(t) {
    var b = t.getBBox(), m = t.getCTM(), s = t.ownerSVGElement.getCTM().inverse(), pts = [];
    [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]].forEach(function (q) {
      var pt = t.ownerSVGElement.createSVGPoint();
      pt.x = q[0]; pt.y = q[1];
      pt = pt.matrixTransform(m).matrixTransform(s);
      pts.push([pt.x, pt.y]);
    });
    return pts;
  }
  // Separating axes: two convex polygons overlap (by more than a hair)
  // unless some edge normal separates them.
  function polygonsOverlap(a, b) {
    var polys = [a, b];
    for (var i = 0; i < 2; i++) {
      var p = polys[i];
      for (var j = 0; j < p.length; j++) {
        var q = p[(j + 1) % p.length], nx = q[1] - p[j][1], ny = p[j][0] - q[0], len = Math.hypot(nx, ny);
        if (len === 0) continue;
        nx /= len; ny /= len;
        var pa = a.map(function (v) { return v[0] * nx + v[1] * ny; }), pb = b.map(function (v) { return v[0] * nx + v[1] * ny; });
        if (Math.max.apply(null, pa) <= Math.min.apply(null, pb) + 0.5 || Math.max.apply(null, pb) <= Math.min.apply(null, pa) + 0.5) return false;
      }
    }
    return true;
  }
  window.rooflineOverlap = { polygon: labelPolygon, overlap: polygonsOverlap };

  var charts = all("svg.roofline-chart[data-view]").map(function (svg) { var c = new Chart(svg); c.wire(); return c; });
  charts.forEach(function (c) {
    // Lay out again when the tabs start elsewhere (back navigation) or the
    // real font is wider than the widths the page was laid out with.
    if (c.tab !== "all" || c.allRoofs) c.setView(c.view);
    else if (c.crowded()) { c.layout(); c.svg.setAttribute("data-relaid", "1"); }
  });
  window.rooflineCharts = charts;

  // #point=KEY opens one point's details, #kernel=K pins a kernel (links, screenshots).
  var m = /^#point=(.+)$/.exec(location.hash);
  if (m) {
    var el = document.querySelector('.chart .pt[data-tip="' + m[1].replace(/"/g, "") + '"]');
    if (el) { var r = el.getBoundingClientRect(); setHover(kOf(el)); var d = detailFor(el); if (d) showTip(d, r.right, r.bottom); }
  }
  var kk = /^#kernel=(\d+)$/.exec(location.hash);
  if (kk) {
    togglePin(kk[1]);
    var row = document.querySelector('tbody[data-k="' + kk[1] + '"], tr[data-k="' + kk[1] + '"]');
    if (row) row.scrollIntoView({ block: "center" });
  }
  // A link to a detail panel opens it.
  var target = location.hash.length > 1 ? document.getElementById(location.hash.slice(1)) : null;
  if (target && target.tagName === "DETAILS") target.open = true;
})();
