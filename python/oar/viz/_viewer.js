/* oar backward-graph viewer: written for oar.viz.to_html, no dependencies. */
(function () {
  "use strict";
  var T0 = performance.now();
  var D = JSON.parse(document.getElementById("oar-graph").textContent);
  var T_PARSE = performance.now();

  var NODE_H = 38, ROW = 92, GAP = 26, DETAIL_MAX = 1500;

  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c];
    });
  }
  function fmtNorm(v) {
    if (typeof v === "string") return v;
    if (v === 0) return "0";
    var a = Math.abs(v);
    return (a >= 1e4 || a < 1e-3) ? v.toExponential(2) : v.toPrecision(3);
  }
  function fmtBytes(b) {
    if (b < 1024) return b + " B";
    if (b < 1048576) return (b / 1024).toFixed(1) + " KiB";
    if (b < 1073741824) return (b / 1048576).toFixed(1) + " MiB";
    return (b / 1073741824).toFixed(2) + " GiB";
  }

  // ---- page skeleton ------------------------------------------------------
  document.body.innerHTML =
    '<div id="bar"><span class="title"></span>' +
    '<input id="search" type="search" placeholder="search tensor / op name (Enter: next)">' +
    '<button id="zin" title="zoom in">+</button><button id="zout" title="zoom out">&minus;</button>' +
    '<button id="fit" title="fit the graph">fit</button>' +
    '<button id="expand" title="expand every group">expand all</button>' +
    '<button id="collapse" title="back to the initial grouping">regroup</button>' +
    '<span id="legend"></span><span id="status"></span></div>' +
    '<div id="view"><svg id="svg"><g id="vp"><g id="frames"></g><g id="edges"></g>' +
    '<g id="nodes"></g></g></svg></div>' +
    '<div id="details"><p class="muted">Click a node to see its details. Drag to pan, ' +
    'wheel to zoom; click a group title to collapse it, a collapsed group to expand it.</p></div>';
  document.querySelector("#bar .title").textContent = D.title || "oar backward graph";
  var $ = function (id) { return document.getElementById(id); };
  var view = $("view"), svg = $("svg"), vp = $("vp");

  // ---- data ---------------------------------------------------------------
  var nodes = D.nodes, edges = D.edges, N = nodes.length;
  var byId = {};
  nodes.forEach(function (n, i) { byId[n.id] = i; n._i = i; });
  var E = [];
  edges.forEach(function (e) {
    var s = byId[e.src], t = byId[e.dst];
    if (s !== undefined && t !== undefined) { e._s = s; e._t = t; E.push(e); }
  });
  var inEdges = [], outEdges = [];
  for (var i = 0; i < N; i++) { inEdges.push([]); outEdges.push([]); }
  E.forEach(function (e) { outEdges[e._s].push(e); inEdges[e._t].push(e); });

  // ---- layer groups -------------------------------------------------------
  // Group ids are layer paths; a node belongs to its layer's group. A leaf or
  // cut node joins the group of its consumers when they all share one, so a
  // collapsed Linear hides its weight and bias too.
  var groups = {}, roots = [];
  function group(path) {
    if (groups[path]) return groups[path];
    var dot = path.lastIndexOf(".");
    var parent = dot > 0 ? group(path.slice(0, dot)) : null;
    var g = {id: path, name: dot > 0 ? path.slice(dot + 1) : path, parent: parent,
             children: [], members: [], size: 0, collapsed: false, fold: 0};
    groups[path] = g;
    if (parent) parent.children.push(g); else roots.push(g);
    return g;
  }
  var nodeGroup = new Array(N);
  nodes.forEach(function (n, i) { nodeGroup[i] = n.layer ? group(n.layer) : null; });
  nodes.forEach(function (n, i) {
    if (n.kind !== "leaf" && n.kind !== "cut") return;
    var g, same = true;
    outEdges[i].forEach(function (e) {
      var h = nodeGroup[e._t];
      if (g === undefined) g = h; else if (g !== h) same = false;
    });
    if (same && g) nodeGroup[i] = g;
  });
  nodes.forEach(function (n, i) { if (nodeGroup[i]) nodeGroup[i].members.push(i); });

  // Fold runs of siblings "p.0", "p.1", ... whose contents are the same
  // sequence of ops (relative layer path + op, in forward order).
  function signature(g) {
    var items = [];
    (function walk(h) {
      h.members.forEach(function (i) {
        var n = nodes[i];
        items.push([n.sequence_nr == null ? 0 : n.sequence_nr,
                    h.id.slice(g.id.length) + ":" + n.kind + ":" + (n.op || n.name)]);
      });
      h.children.forEach(walk);
    })(g);
    items.sort(function (a, b) { return a[0] - b[0]; });
    return items.map(function (x) { return x[1]; }).join("|");
  }
  function foldChildren(parent, list) {
    var numbered = list.filter(function (g) { return /^\d+$/.test(g.name); });
    numbered.sort(function (a, b) { return (+a.name) - (+b.name); });
    var out = list.filter(function (g) { return !/^\d+$/.test(g.name); });
    var run = [];
    function flush() {
      if (run.length >= 2) {
        var base = parent ? parent.id + "." : "";
        var f = {id: base + "[" + run[0].name + "-" + run[run.length - 1].name + "]",
                 name: run[0].name + "\u2026" + run[run.length - 1].name + " \u00d7" + run.length,
                 parent: parent, children: run.slice(), members: [], size: 0,
                 collapsed: true, fold: run.length};
        run.forEach(function (g) { g.parent = f; });
        groups[f.id] = f;
        out.push(f);
      } else out.push.apply(out, run);
      run = [];
    }
    var prevSig = null, prevNum = null;
    numbered.forEach(function (g) {
      var s = signature(g);
      if (run.length && (s !== prevSig || +g.name !== prevNum + 1)) flush();
      run.push(g); prevSig = s; prevNum = +g.name;
    });
    flush();
    return out;
  }
  (function foldAll(parent, list) {
    list.forEach(function (g) { g.children = foldAll(g, g.children); });
    return parent ? foldChildren(parent, list) : (roots = foldChildren(null, list));
  })(null, roots);

  function sizeOf(g) {
    g.size = g.members.length;
    g.children.forEach(function (c) { g.size += sizeOf(c); });
    return g.size;
  }
  roots.forEach(sizeOf);
  // A group starts collapsed when, with its own sub-groups already decided,
  // it would still show more than collapse_above boxes.
  var LIMIT = D.collapse_above || 50;
  function initialGrouping() {
    function decide(g) {
      var k = g.members.length;
      g.children.forEach(function (c) { k += decide(c); });
      g.collapsed = g.fold ? true : k > LIMIT;
      return g.collapsed ? 1 : k;
    }
    roots.forEach(decide);
  }
  initialGrouping();


  // ---- gradient colours ---------------------------------------------------
  var GRADS = !!D.grads, gLo = 0, gHi = 0;
  function isBad(o) { return o.grad_bad === true; }
  if (GRADS) {
    var logs = [];
    nodes.forEach(function (n) { if (typeof n.grad_norm === "number" && n.grad_norm > 0) logs.push(Math.log10(n.grad_norm)); });
    E.forEach(function (e) { if (typeof e.grad_norm === "number" && e.grad_norm > 0) logs.push(Math.log10(e.grad_norm)); });
    if (logs.length) { gLo = Infinity; gHi = -Infinity; }
    logs.forEach(function (l) { if (l < gLo) gLo = l; if (l > gHi) gHi = l; });
    $("legend").innerHTML = "\u2016grad\u2016 " + esc(fmtNorm(Math.pow(10, gLo))) +
      ' <span class="ramp"></span> ' + esc(fmtNorm(Math.pow(10, gHi))) +
      ' <span class="badkey">NaN/Inf</span>';
  }
  function gradColour(v) {
    if (typeof v !== "number") return null;
    if (v <= 0) return "#9aa2b0";
    var t = gHi > gLo ? (Math.log10(v) - gLo) / (gHi - gLo) : 0.5;
    t = Math.max(0, Math.min(1, t));
    return "hsl(" + Math.round(220 - 180 * t) + "," + (70 + 15 * t) + "%," + (45 - 5 * t) + "%)";
  }

  // ---- visible graph + layout ---------------------------------------------
  var V = [], VE = [], keyIndex = {}, repOf = new Array(N);
  function nodeTitle(n) { return n.kind === "op" ? n.name : n.name; }
  function nodeSub(n) {
    var s;
    if (n.kind === "op") s = (n.op || "") + (n.saved_bytes ? " \u00b7 " + fmtBytes(n.saved_bytes) + " saved" : "");
    else s = n.label || "";
    if (GRADS && n.kind === "leaf" && n.grad_norm !== undefined)
      s += " \u2016g\u2016=" + (n.grad_bad ? "NaN/Inf" : fmtNorm(n.grad_norm));
    return s;
  }
  function textWidth(s, px) { return s.length * px * 0.6; }

  function buildVisible() {
    V = []; VE = []; keyIndex = {};
    var groupBox = {};
    for (var i = 0; i < N; i++) {
      var top = null, g = nodeGroup[i];
      for (; g; g = g.parent) if (g.collapsed) top = g;
      if (top) {
        if (groupBox[top.id] === undefined) {
          groupBox[top.id] = V.length;
          var t = (top.fold ? "" : "\u25b8 ") + (top.fold ? top.name : top.id);
          var sub = top.size + " nodes \u00b7 click to expand";
          keyIndex["g:" + top.id] = V.length;
          V.push({key: "g:" + top.id, group: top, title: t, sub: sub, bad: false,
                  w: Math.max(textWidth(t, 12), textWidth(sub, 10.5)) + 20});
        }
        repOf[i] = groupBox[top.id];
        if (isBad(nodes[i])) V[repOf[i]].bad = true;
      } else {
        var n = nodes[i], tt = nodeTitle(n), ss = nodeSub(n);
        repOf[i] = V.length;
        keyIndex[n.id] = V.length;
        V.push({key: n.id, node: n, title: tt, sub: ss, bad: GRADS && isBad(n),
                w: Math.min(260, Math.max(textWidth(tt, 12), textWidth(ss, 10.5)) + 20)});
      }
    }
    var seen = {};
    E.forEach(function (e) {
      var a = repOf[e._s], b = repOf[e._t];
      if (a === b) return;
      var k = a + ">" + b, ve = seen[k];
      if (!ve) { ve = seen[k] = {s: a, t: b, edges: []}; VE.push(ve); }
      ve.edges.push(e);
    });
    VE.forEach(function (ve) {
      var bad = false, best = null;
      ve.edges.forEach(function (e) {
        if (e.grad_bad) bad = true;
        if (typeof e.grad_norm === "number" && (best === null || e.grad_norm > best)) best = e.grad_norm;
      });
      var e0 = ve.edges[0];
      ve.bad = GRADS && bad; ve.norm = GRADS ? best : null;
      ve.cut = !!e0.cut;
      ve.label = ve.edges.length > 1 ? ve.edges.length + " tensors" : (e0.label || "");
      if (ve.norm !== null || ve.bad) ve.label += " \u2016g\u2016=" + (ve.bad ? "NaN/Inf" : fmtNorm(ve.norm));
    });
  }

  // Layered layout: rank = longest path to an output, so outputs are on top
  // and every input sits below all its consumers; then barycenter
  // ordering sweeps, then x from neighbour averages with overlap removal.
  var W = {minX: 0, maxX: 0, minY: 0, maxY: 0};
  function layout() {
    var m = V.length, i, r;
    var outs = [], ins = [];
    for (i = 0; i < m; i++) { outs.push([]); ins.push([]); }
    VE.forEach(function (ve) { outs[ve.s].push(ve.t); ins[ve.t].push(ve.s); });
    var rank = new Int32Array(m), left = new Int32Array(m), queue = [];
    for (i = 0; i < m; i++) { left[i] = outs[i].length; if (!left[i]) queue.push(i); }
    for (var q = 0; q < queue.length; q++) {
      var u = queue[q];
      ins[u].forEach(function (s) {
        if (rank[u] + 1 > rank[s]) rank[s] = rank[u] + 1;
        if (--left[s] === 0) queue.push(s);
      });
    }
    var R = 0;
    for (i = 0; i < m; i++) if (rank[i] > R) R = rank[i];
    var layers = [];
    for (r = 0; r <= R; r++) layers.push([]);
    // Initial order: discovery order from the outputs, so trees start untangled.
    var order = new Int32Array(m).fill(-1), cnt = 0;
    var stack = [];
    for (i = m - 1; i >= 0; i--) if (!outs[i].length) stack.push(i);
    while (stack.length) {
      var v = stack.pop();
      if (order[v] >= 0) continue;
      order[v] = cnt++;
      for (var k = ins[v].length - 1; k >= 0; k--) if (order[ins[v][k]] < 0) stack.push(ins[v][k]);
    }
    for (i = 0; i < m; i++) { if (order[i] < 0) order[i] = cnt++; }
    var idx = [];
    for (i = 0; i < m; i++) idx.push(i);
    idx.sort(function (a, b) { return order[a] - order[b]; });
    idx.forEach(function (i) { layers[rank[i]].push(i); });
    var gk = V.map(function (v) {
      var g = v.group ? v.group : nodeGroup[v.node._i];
      return g ? g.id : "";
    });
    var pos = new Float64Array(m);
    function setPos(L) { for (var j = 0; j < L.length; j++) pos[L[j]] = j - (L.length - 1) / 2; }
    layers.forEach(setPos);
    function sweep(L, nbrs) {
      var bary = {};
      L.forEach(function (v) {
        var a = nbrs[v];
        if (!a.length) { bary[v] = pos[v]; return; }
        var s = 0; a.forEach(function (x) { s += pos[x]; }); bary[v] = s / a.length;
      });
      // Group first: a layer's nodes stay side by side in every rank, so its
      // frame (a bounding box) does not take in another layer's nodes.
      L.sort(function (a, b) {
        return (gk[a] < gk[b] ? -1 : gk[a] > gk[b] ? 1 : 0) || bary[a] - bary[b] || pos[a] - pos[b];
      });
      setPos(L);
    }
    for (var it = 0; it < 4; it++) {
      for (r = 1; r <= R; r++) sweep(layers[r], outs);
      for (r = R - 1; r >= 0; r--) sweep(layers[r], ins);
    }
    // x: pack each layer, then pull towards neighbours' centres keeping order.
    var x = new Float64Array(m);
    function place(L, nbrs, useNbrs) {
      var want = L.map(function (v) {
        var a = nbrs ? nbrs[v] : [];
        if (!useNbrs || !a.length) return null;
        var s = 0; a.forEach(function (u) { s += x[u]; }); return s / a.length;
      });
      var j, total = 0;
      L.forEach(function (v) { total += V[v].w + GAP; });
      var hasWant = want.some(function (w) { return w !== null; });
      if (hasWant && L.length <= 300) {
        // Priority placement: the best-connected nodes sit exactly at their
        // wish, the rest fit between them, so a chain with weights hanging
        // off it stays straight instead of drifting sideways.
        var pre = [0];
        for (j = 0; j < L.length; j++) pre.push(pre[j] + V[L[j]].w + GAP);
        var minD = function (a, b) { return pre[b] - pre[a] + (V[L[b]].w - V[L[a]].w) / 2; };
        var prio = L.map(function (v, j) { return j; });
        prio.sort(function (a, b) {
          var da = outs[L[a]].length + ins[L[a]].length, db = outs[L[b]].length + ins[L[b]].length;
          return db - da || (want[b] !== null) - (want[a] !== null) || a - b;
        });
        var placed = new Array(L.length).fill(false);
        var deg = function (j) { return outs[L[j]].length + ins[L[j]].length; };
        prio.forEach(function (j) {
          if (placed[j]) return;
          // Neighbours with the same wish and priority go as one block centred
          // on the wish (else a ladder's rungs drift sideways level by level).
          var a = j, b = j, k;
          while (a > 0 && !placed[a - 1] && want[a - 1] === want[j] && deg(a - 1) === deg(j)) a--;
          while (b + 1 < L.length && !placed[b + 1] && want[b + 1] === want[j] && deg(b + 1) === deg(j)) b++;
          var lo = -Infinity, hi = Infinity;
          for (k = a - 1; k >= 0; k--) if (placed[k]) { lo = x[L[k]] + minD(k, a); break; }
          for (k = b + 1; k < L.length; k++) if (placed[k]) { hi = x[L[k]] - minD(a, k); break; }
          var c = want[j] !== null ? want[j] - minD(a, b) / 2 : (lo > -Infinity ? lo : hi < Infinity ? hi : 0);
          var start = Math.max(lo, Math.min(hi, c));
          for (k = a; k <= b; k++) { x[L[k]] = start + minD(a, k); placed[k] = true; }
        });
        return;
      }
      var cur = -total / 2;
      for (j = 0; j < L.length; j++) {
        var v = L[j], lo = cur + V[v].w / 2;
        var c = want[j] === null ? lo : Math.max(lo, want[j]);
        x[v] = c; cur = c + V[v].w / 2 + GAP;
      }
      // The packing only pushes right; shifting the whole layer back by the
      // mean excess keeps the spacing and centres it under its neighbours.
      var sh = 0, nw = 0;
      for (j = 0; j < L.length; j++) if (want[j] !== null) { sh += x[L[j]] - want[j]; nw++; }
      if (nw) for (j = 0; j < L.length; j++) x[L[j]] -= sh / nw;
    }
    place(layers[0], null, false);
    for (r = 1; r <= R; r++) place(layers[r], outs, true);
    for (it = 0; it < 2; it++) {
      for (r = R - 1; r >= 0; r--) place(layers[r], ins, true);
      for (r = 1; r <= R; r++) place(layers[r], outs, true);
    }
    W = {minX: Infinity, maxX: -Infinity, minY: 0, maxY: R * ROW + NODE_H};
    for (i = 0; i < m; i++) {
      V[i].x = x[i] - V[i].w / 2; V[i].y = rank[i] * ROW;
      V[i].nin = ins[i].length; V[i].nout = outs[i].length;
      if (V[i].x < W.minX) W.minX = V[i].x;
      if (V[i].x + V[i].w > W.maxX) W.maxX = V[i].x + V[i].w;
    }
    if (!m) W = {minX: 0, maxX: 1, minY: 0, maxY: 1};
    computeFrames();
  }

  // Frames of expanded groups: the bounding box of what they show.
  var frames = [];
  function computeFrames() {
    frames = [];
    var box = {};
    function grow(g, v, depth) {
      var b = box[g.id];
      if (!b) b = box[g.id] = {g: g, x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity, d: 0};
      var pad = 8 + 7 * depth;
      b.x0 = Math.min(b.x0, v.x - pad); b.x1 = Math.max(b.x1, v.x + v.w + pad);
      b.y0 = Math.min(b.y0, v.y - 18 - 15 * depth); b.y1 = Math.max(b.y1, v.y + NODE_H + pad);
    }
    V.forEach(function (v) {
      var g = v.group ? v.group.parent : nodeGroup[v.node._i], depth = 0;
      for (; g; g = g.parent, depth++) grow(g, v, depth);
    });
    Object.keys(box).forEach(function (k) { frames.push(box[k]); });
    frames.sort(function (a, b) { return (b.x1 - b.x0) * (b.y1 - b.y0) - (a.x1 - a.x0) * (a.y1 - a.y0); });
  }

  // ---- view transform & rendering ----------------------------------------
  var S = 1, TX = 0, TY = 0, rendered = null, selected = null, hits = {}, hitList = [], hitAt = -1;
  function viewSize() { return {w: view.clientWidth || 800, h: view.clientHeight || 600}; }
  function worldView() {
    var s = viewSize();
    return {x0: -TX / S, y0: -TY / S, x1: (s.w - TX) / S, y1: (s.h - TY) / S};
  }
  function applyTransform() {
    vp.setAttribute("transform", "translate(" + TX + "," + TY + ") scale(" + S + ")");
    var w = worldView(), r = rendered;
    if (!r || w.x0 < r.x0 || w.y0 < r.y0 || w.x1 > r.x1 || w.y1 > r.y1 ||
        (r.x1 - r.x0) * (r.y1 - r.y0) > 16 * (w.x1 - w.x0) * (w.y1 - w.y0) ||
        (r.detail && S < 0.18) || (!r.detail && S >= 0.18 && r.tooMany === false)) scheduleRender();
  }
  var pending = false;
  function scheduleRender() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () { pending = false; render(); });
  }
  var hitGroups = {};
  function groupHit(g) { return hitGroups[g.id] === true; }
  function render() {
    var w = worldView(), mx = (w.x1 - w.x0) * 0.5, my = (w.y1 - w.y0) * 0.5;
    var r = {x0: w.x0 - mx, y0: w.y0 - my, x1: w.x1 + mx, y1: w.y1 + my};
    var vis = [];
    for (var i = 0; i < V.length; i++) {
      var v = V[i];
      if (v.x + v.w >= r.x0 && v.x <= r.x1 && v.y + NODE_H >= r.y0 && v.y <= r.y1) vis.push(i);
    }
    var visE = [];
    VE.forEach(function (ve) {
      var a = V[ve.s], b = V[ve.t];
      var ex0 = Math.min(a.x, b.x), ex1 = Math.max(a.x + a.w, b.x + b.w);
      var ey0 = Math.min(a.y, b.y), ey1 = Math.max(a.y, b.y) + NODE_H;
      if (ex1 >= r.x0 && ex0 <= r.x1 && ey1 >= r.y0 && ey0 <= r.y1) visE.push(ve);
    });
    r.detail = S >= 0.18 && vis.length <= DETAIL_MAX;
    r.tooMany = vis.length > DETAIL_MAX;
    rendered = r;
    function edgePath(ve) {
      // Edges run from the input (below) up to its consumer (above).
      var a = V[ve.s], b = V[ve.t];
      var x1 = a.x + a.w / 2, y1 = a.y, x2 = b.x + b.w / 2, y2 = b.y + NODE_H, dy = (y1 - y2) / 2;
      return "M" + x1.toFixed(1) + " " + y1 + "C" + x1.toFixed(1) + " " + (y1 - dy) + " " +
        x2.toFixed(1) + " " + (y2 + dy) + " " + x2.toFixed(1) + " " + y2;
    }
    if (!r.detail) {
      // Far out or too much in view: one path for all boxes and one for all
      // edges keeps the DOM at a handful of elements whatever the graph size.
      var pn = [], ph = [], pb = [];
      // Far out, boxes keep at least 2 screen pixels so the shape stays visible.
      var bw = 2 / S;
      vis.forEach(function (i) {
        var v = V[i], w = Math.max(v.w, bw), h = Math.max(NODE_H, bw);
        var d = "M" + v.x.toFixed(0) + " " + v.y + "h" + w.toFixed(0) + "v" + h.toFixed(0) + "h" + (-w).toFixed(0) + "z";
        if (v.bad) pb.push(d); else if (hits[v.key] || (v.group && groupHit(v.group))) ph.push(d); else pn.push(d);
      });
      $("frames").innerHTML = "";
      $("edges").innerHTML = '<path class="lod-edges" d="' + visE.filter(function (e) { return !e.bad; }).map(edgePath).join("") + '"/>' +
        '<path class="edge bad" d="' + visE.filter(function (e) { return e.bad; }).map(edgePath).join("") + '"/>';
      $("nodes").innerHTML = '<path class="lod-nodes" d="' + pn.join("") + '"/>' +
        '<path class="lod-hits" d="' + ph.join("") + '"/><path class="lod-bad" d="' + pb.join("") + '"/>';
      status(vis.length);
      return;
    }
    var showLabels = S >= 0.6;
    var he = [];
    if (visE.length > 2 * DETAIL_MAX) {
      // A hub with thousands of inputs: its edges cross any view, so they go
      // into two paths (plain, NaN/Inf) instead of one element each.
      he.push('<path class="lod-edges" d="' + visE.filter(function (e) { return !e.bad; }).map(edgePath).join("") + '"/>' +
        '<path class="edge bad" d="' + visE.filter(function (e) { return e.bad; }).map(edgePath).join("") + '"/>');
      visE = [];
    }
    visE.forEach(function (ve) {
      var col = ve.bad ? null : gradColour(ve.norm);
      he.push('<path class="edge' + (ve.cut ? " cut" : "") + (ve.bad ? " bad" : "") + '" d="' + edgePath(ve) + '"' +
        (col ? ' style="stroke:' + col + ';stroke-width:2"' : "") + "/>");
      if (showLabels && ve.label) {
        var a = V[ve.s], b = V[ve.t];
        // Mid-gap: clear of the group titles just above the input boxes.
        var ax = a.x + a.w / 2, bx = b.x + b.w / 2, ay = a.y, by = b.y + NODE_H;
        // A label grows away from the hub its edge fans out of (the end with
        // more edges this way), so sibling labels do not run into each other.
        var hubX = V[ve.t].nin > V[ve.s].nout ? bx : ax, mid = (ax + bx) / 2;
        var left = mid < hubX - 1, lx = (ax + bx) / 2 + (left ? -4 : 4), ly = (ay + by) / 2 + 3;
        he.push('<text class="elabel' + (ve.bad ? " bad" : "") + '"' + (left ? ' text-anchor="end"' : "") + ' x="' + lx.toFixed(1) + '" y="' + ly.toFixed(1) + '">' + esc(ve.label) + "</text>");
      }
    });
    $("edges").innerHTML = he.join("");
    var hf = [];
    frames.forEach(function (f) {
      if (f.x1 < r.x0 || f.x0 > r.x1 || f.y1 < r.y0 || f.y0 > r.y1) return;
      hf.push('<g class="frame' + (f.g.fold ? " fold" : "") + '" data-group="' + esc(f.g.id) + '"><rect x="' + f.x0 + '" y="' + f.y0 +
        '" width="' + (f.x1 - f.x0) + '" height="' + (f.y1 - f.y0) + '" rx="6"/>' +
        '<text x="' + (f.x0 + 6) + '" y="' + (f.y0 + 13) + '" data-group="' + esc(f.g.id) + '">\u25be ' +
        esc(f.g.fold ? f.g.id.slice(0, f.g.id.lastIndexOf(".") + 1) + f.g.name : f.g.id) + "</text></g>");
    });
    $("frames").innerHTML = hf.join("");
    var hn = [];
    vis.forEach(function (i) {
      var v = V[i], n = v.node, cls = "node";
      if (n) cls += " kind-" + n.kind + (n.param ? " param" : "");
      else cls += " kind-group" + (v.group.fold ? " fold" : "");
      if (v.bad) cls += " bad";
      if (hits[v.key] || (v.group && groupHit(v.group))) cls += " hit";
      if (selected === v.key) cls += " selected";
      var col = n && GRADS && !v.bad && n.kind === "leaf" ? gradColour(n.grad_norm) : null;
      hn.push('<g class="' + cls + '" data-key="' + esc(v.key) + '" transform="translate(' + v.x.toFixed(1) + "," + v.y + ')">' +
        '<rect width="' + v.w.toFixed(1) + '" height="' + NODE_H + '" rx="5"' + (col ? ' style="stroke:' + col + ';stroke-width:2.4"' : "") + "/>" +
        '<text class="title" x="10" y="15">' + esc(v.title) + "</text>" +
        '<text class="sub" x="10" y="30">' + esc(v.sub) + "</text></g>");
    });
    $("nodes").innerHTML = hn.join("");
    status(vis.length);
  }
  function status(k) {
    var s = V.length + " boxes (" + N + " nodes), " + k + " drawn";
    if (D.hidden) s += "; " + D.hidden + " nodes left out by max_nodes";
    if (hitList.length) s += "; match " + (hitAt + 1) + "/" + hitList.length;
    $("status").textContent = s;
  }

  function fit() {
    var s = viewSize(), gw = W.maxX - W.minX + 40, gh = W.maxY - W.minY + 40;
    var f = Math.min(s.w / gw, s.h / gh, 1.5);
    if (f >= 0.4) {
      S = f; TX = (s.w - (W.minX + W.maxX) * S) / 2; TY = (s.h - (W.minY + W.maxY) * S) / 2;
    } else {
      // Too big to read when fitted: start readable at the outputs (top).
      S = 0.9; TY = 20;
      var top = V.filter(function (v) { return v.y === 0; }), cx = 0;
      top.forEach(function (v) { cx += v.x + v.w / 2; });
      cx = top.length ? cx / top.length : 0;
      TX = s.w / 2 - cx * S;
    }
    applyTransform();
  }
  function zoomAt(px, py, f) {
    var ns = Math.max(0.002, Math.min(4, S * f));
    TX = px - (px - TX) * ns / S; TY = py - (py - TY) * ns / S; S = ns;
    applyTransform();
  }
  function centreOn(key) {
    var i = keyIndex[key];
    if (i === undefined) return;
    var v = V[i], s = viewSize();
    if (S < 0.6) S = 0.9;
    TX = s.w / 2 - (v.x + v.w / 2) * S; TY = s.h / 2 - (v.y + NODE_H / 2) * S;
    applyTransform();
  }
  // After an expansion the group's contents may reach far past the old box.
  function centreOnGroup(g) {
    var f = frames.filter(function (f) { return f.g === g; })[0];
    if (!f) return;
    var s = viewSize();
    S = Math.max(0.2, Math.min(S, s.w / (f.x1 - f.x0 + 40), s.h / (f.y1 - f.y0 + 40)));
    TX = s.w / 2 - (f.x0 + f.x1) / 2 * S; TY = s.h / 2 - (f.y0 + f.y1) / 2 * S;
    applyTransform();
  }
  function relayout() {
    buildVisible(); layout(); rendered = null; render(); applyTransform();
  }

  // ---- details ------------------------------------------------------------
  function row(k, v, raw) { return '<tr><td class="k">' + esc(k) + "</td><td>" + (raw ? v : esc(v)) + "</td></tr>"; }
  function shapeStr(shape, dtype) {
    if (!shape) return "";
    return (dtype || "") + "[" + shape.join(", ") + "]";
  }
  function showDetails(v) {
    var h = "";
    if (v.group) {
      var g = v.group;
      h += "<h3>" + esc(g.fold ? g.name : g.id) + "</h3><table>" + row("kind", g.fold ? "folded repeated blocks" : "layer group") +
        row("layer path", g.id) + row("nodes", String(g.size)) +
        (g.fold ? row("blocks", g.children.map(function (c) { return c.id; }).join(", ")) : "") + "</table>" +
        '<button id="expand-one">expand</button>';
      $("details").innerHTML = h;
      $("expand-one").onclick = function () { g.collapsed = false; relayout(); centreOnGroup(g); };
      return;
    }
    var n = v.node;
    h += "<h3>" + esc(n.name) + "</h3><table>" + row("kind", n.kind) + row("id", n.id);
    if (n.op) h += row("op", n.op);
    if (n.shape) h += row("shape", "[" + n.shape.join(", ") + "]");
    if (n.dtype) h += row("dtype", n.dtype);
    if (n.kind === "leaf") h += row("parameter", n.param ? "yes" : "no");
    if (n.layer) h += row("layer path", n.layer);
    else if (nodeGroup[n._i]) h += row("group", nodeGroup[n._i].id);
    var ins = inEdges[n._i].map(function (e) { return shapeStr(e.shape, e.dtype) + " \u2190 " + nodes[e._s].name; });
    var outs = outEdges[n._i].map(function (e) { return shapeStr(e.shape, e.dtype) + " \u2192 " + nodes[e._t].name; });
    if (ins.length) h += row("inputs", ins.join("<br>"), true);
    if (outs.length) h += row("outputs", outs.join("<br>"), true);
    if (n.attributes && Object.keys(n.attributes).length)
      h += row("attributes", Object.keys(n.attributes).map(function (k) { return esc(k) + " = " + esc(n.attributes[k]); }).join("<br>"), true);
    if (n.saved) {
      h += row("saved bytes", fmtBytes(n.saved_bytes || 0) + " (" + (n.saved_bytes || 0) + " bytes)");
      h += row("saved tensors", n.saved.map(function (s) {
        return esc(s.name) + ": " + esc(shapeStr(s.shape, s.dtype)) + ", " + s.bytes + " bytes" +
          (s.released ? " (released)" : "") + (s.meta_only ? " (meta only)" : "");
      }).join("<br>") || "none", true);
    }
    if (n.released) h += row("released", "yes (backward already ran without retain_graph)");
    if (n.hooks && n.hooks.length) h += row("hooks", n.hooks.map(function (k) { return JSON.stringify(k); }).join("<br>"));
    if (n.grad_norm !== undefined)
      h += row("grad norm", n.grad_bad ? '<span class="bad">has NaN/Inf</span> (finite part ' + esc(fmtNorm(n.grad_norm)) + ")" : esc(fmtNorm(n.grad_norm)), true);
    var eg = inEdges[n._i].concat(outEdges[n._i]).filter(function (e) { return e.grad_norm !== undefined; });
    if (eg.length) h += row("edge grads", eg.map(function (e) {
      var t = nodes[e._s].name + " \u2192 " + nodes[e._t].name + ": ";
      return esc(t) + (e.grad_bad ? '<span class="bad">NaN/Inf</span>' : esc(fmtNorm(e.grad_norm)));
    }).join("<br>"), true);
    if (n.stack && n.stack.length)
      h += row("forward stack", n.stack.map(function (f) { return "<code>" + esc(f[0]) + ":" + esc(f[1]) + " in " + esc(f[2]) + "</code>"; }).join("<br>"), true);
    if (n.stop_gradient !== undefined) h += row("stop_gradient", String(n.stop_gradient));
    h += "</table>";
    if (nodeGroup[n._i]) h += '<button id="collapse-one">collapse ' + esc(nodeGroup[n._i].id) + "</button>";
    $("details").innerHTML = h;
    if (nodeGroup[n._i]) $("collapse-one").onclick = function () { nodeGroup[n._i].collapsed = true; select(null); relayout(); };
  }
  function select(key) {
    selected = key;
    var i = key === null ? undefined : keyIndex[key];
    if (i !== undefined) showDetails(V[i]);
    rendered = null; render();
  }

  // ---- search -------------------------------------------------------------
  var lastQuery = "";
  function search(q, next) {
    q = q.trim().toLowerCase();
    if (q !== lastQuery) { next = false; lastQuery = q; }
    hits = {}; hitList = []; hitGroups = {};
    if (q) nodes.forEach(function (n) {
      var hay = [n.name, n.op, n.layer, n.id].join("\u0000").toLowerCase();
      if (hay.indexOf(q) >= 0) {
        hits[n.id] = true; hitList.push(n);
        for (var g = nodeGroup[n._i]; g && !hitGroups[g.id]; g = g.parent) hitGroups[g.id] = true;
      }
    });
    if (!hitList.length) { hitAt = -1; rendered = null; render(); return; }
    hitAt = next ? (hitAt + 1) % hitList.length : 0;
    var n = hitList[hitAt], changed = false;
    for (var g = nodeGroup[n._i]; g; g = g.parent) if (g.collapsed) { g.collapsed = false; changed = true; }
    if (changed) { buildVisible(); layout(); }
    rendered = null;
    centreOn(n.id);
    render();
  }
  var timer = null;
  $("search").addEventListener("input", function () {
    clearTimeout(timer);
    var el = this;
    timer = setTimeout(function () { search(el.value, false); }, 150);
  });
  $("search").addEventListener("keydown", function (ev) {
    if (ev.key === "Enter") { clearTimeout(timer); search(this.value, true); }
  });

  // ---- interaction --------------------------------------------------------
  var drag = null;
  view.addEventListener("mousedown", function (ev) {
    if (ev.button !== 0) return;
    drag = {x: ev.clientX, y: ev.clientY, tx: TX, ty: TY, moved: false};
    view.classList.add("dragging");
  });
  window.addEventListener("mousemove", function (ev) {
    if (!drag || drag.up) return;
    var dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
    if (drag.moved) { TX = drag.tx + dx; TY = drag.ty + dy; applyTransform(); }
  });
  // A release outside the view sends no click: mark the drag as over here.
  window.addEventListener("mouseup", function () {
    view.classList.remove("dragging");
    if (drag) drag.up = true;
  });
  view.addEventListener("click", function (ev) {
    var wasDrag = drag && drag.moved;
    drag = null;
    if (wasDrag) return;
    var t = ev.target.closest ? ev.target.closest("[data-group],[data-key]") : null;
    if (!t) return;
    if (t.hasAttribute("data-key")) {
      var key = t.getAttribute("data-key"), v = V[keyIndex[key]];
      if (v && v.group) { v.group.collapsed = false; selected = null; showDetails(v); relayout(); centreOnGroup(v.group); }
      else select(key);
    } else if (t.tagName.toLowerCase() === "text") {
      var g = groups[t.getAttribute("data-group")];
      if (g) { g.collapsed = true; relayout(); }
    }
  });
  view.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    var rc = view.getBoundingClientRect();
    zoomAt(ev.clientX - rc.left, ev.clientY - rc.top, Math.exp(-ev.deltaY * 0.0015));
  }, {passive: false});
  $("zin").onclick = function () { var s = viewSize(); zoomAt(s.w / 2, s.h / 2, 1.25); };
  $("zout").onclick = function () { var s = viewSize(); zoomAt(s.w / 2, s.h / 2, 0.8); };
  $("fit").onclick = function () {
    var s = viewSize(), gw = W.maxX - W.minX + 40, gh = W.maxY - W.minY + 40;
    S = Math.min(s.w / gw, s.h / gh, 1.5);
    TX = (s.w - (W.minX + W.maxX) * S) / 2; TY = (s.h - (W.minY + W.maxY) * S) / 2;
    applyTransform();
  };
  $("expand").onclick = function () { Object.keys(groups).forEach(function (k) { groups[k].collapsed = false; }); relayout(); };
  $("collapse").onclick = function () { initialGrouping(); relayout(); };
  window.addEventListener("resize", function () { rendered = null; applyTransform(); });

  // ---- start --------------------------------------------------------------
  buildVisible();
  var T_B = performance.now();
  layout();
  var T_L = performance.now();
  fit();
  render();
  var T_R = performance.now();
  // Timings for tests and the docs: ms since navigation start / per phase.
  window.__oar = {ready: true, nodes: N, boxes: V.length, parse_ms: T_PARSE - T0,
                  layout_ms: T_L - T_B, render_ms: T_R - T_L, ready_at_ms: T_R,
                  groups: groups, relayout: relayout};
})();
