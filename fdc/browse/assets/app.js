/* fdc browse: the task table (search, facets with counts, paging), a task's page (its
   instructions, goal tree, bindings, map, experience timeline, plan, checks and agents'
   outcomes) and the manifest. Written by fdc; plain JS, no build step, no server: the
   data files are scripts that call FDC.index(...) and FDC.chunk(...). */
"use strict";
(function () {
  const PAGE = 50;
  const SVG = "http://www.w3.org/2000/svg";
  let D = null;            // the index (data.js)
  let lower = null;        // search text per task, lower case (built on first search)
  let byId = null;         // task id -> position
  const chunks = {};       // first position -> task details
  const waiting = {};      // first position -> callbacks
  const state = { q: "", sel: {}, page: 0, rows: [], counts: [] };

  // ------------------------------------------------------------------ helpers
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") e.textContent = v; else if (k === "cls") e.className = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
    }
    for (const k of kids) if (k != null) e.append(k);
    return e;
  }
  function svg(tag, attrs) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    return e;
  }
  function tag(text, status) { return el("span", { cls: "tag s-" + String(status || text).replace(/\W+/g, "-"), text: text }); }
  function section(title, ...kids) { return el("section", {}, el("h3", { text: title }), ...kids); }
  function facet(key) { return D.facets.find(f => f.key === key); }
  function value(key, i) { const f = facet(key); return f ? f.values[f.codes[i]] : ""; }
  const main = () => document.getElementById("main");

  // ------------------------------------------------------------------ data loading
  function loadChunk(i, done) {
    const first = Math.floor(i / D.chunk) * D.chunk;
    if (chunks[first]) return done(chunks[first][i - first]);
    (waiting[first] = waiting[first] || []).push(() => done(chunks[first][i - first]));
    if (waiting[first].length > 1) return;
    const s = document.createElement("script");
    s.src = "tasks/" + String(first / D.chunk).padStart(4, "0") + ".js";
    s.onerror = () => { main().textContent = "Cannot load " + s.src + ": was the site copied whole?"; };
    document.body.append(s);
  }

  // ------------------------------------------------------------------ filtering
  function recompute() {
    const F = D.facets, n = D.tasks, q = state.q.toLowerCase();
    if (q && !lower) lower = D.ids.map((id, i) => (id + " " + D.texts[i]).toLowerCase());
    const sel = F.map(f => state.sel[f.key] && state.sel[f.key].size ? state.sel[f.key] : null);
    const codes = F.map(f => f.codes);
    const counts = F.map(f => new Int32Array(f.values.length));
    const rows = [];
    for (let i = 0; i < n; i++) {
      if (q && lower[i].indexOf(q) < 0) continue;
      let fails = 0, failed = -1;
      for (let f = 0; f < F.length; f++) {
        if (sel[f] && !sel[f].has(codes[f][i])) { fails++; failed = f; if (fails > 1) break; }
      }
      if (fails === 0) { rows.push(i); for (let f = 0; f < F.length; f++) counts[f][codes[f][i]]++; }
      else if (fails === 1) counts[failed][codes[failed][i]]++;
    }
    state.rows = rows; state.counts = counts;
    state.page = Math.min(state.page, Math.max(0, Math.ceil(rows.length / PAGE) - 1));
  }

  // ------------------------------------------------------------------ the table
  function showIndex() {
    const search = el("input", { id: "search", type: "search", placeholder: "search ids and instructions", value: state.q });
    let timer = 0;
    search.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(() => { state.q = search.value.trim(); state.page = 0; refresh(); }, 120);
    });
    const side = el("div", { cls: "facets", id: "facets" });
    const table = el("table", { id: "tasks" });
    const pager = el("div", { cls: "pager" },
      el("button", { id: "prev", text: "‹ previous", onclick: () => { state.page--; refresh(); } }),
      el("span", { id: "page-info" }),
      el("button", { id: "next", text: "next ›", onclick: () => { state.page++; refresh(); } }));
    main().replaceChildren(el("div", { cls: "index" }, side, el("div", {}, search, pager, table)));
    refresh();
  }

  function refresh() {
    recompute();
    drawFacets();
    drawTable();
  }

  function drawFacets() {
    const side = document.getElementById("facets");
    const parts = D.facets.map((f, k) => {
      const chosen = state.sel[f.key] || new Set();
      const box = el("fieldset", { "data-facet": f.key }, el("legend", { text: f.label }));
      f.values.forEach((v, c) => {
        const n = state.counts[k][c];
        const input = el("input", { type: "checkbox", value: v });
        input.checked = chosen.has(c);
        input.addEventListener("change", () => {
          const s = state.sel[f.key] = state.sel[f.key] || new Set();
          if (input.checked) s.add(c); else s.delete(c);
          state.page = 0; refresh();
        });
        box.append(el("label", { cls: n ? "" : "empty" }, input, el("span", { text: v }),
          el("span", { cls: "count", text: String(n) })));
      });
      return box;
    });
    side.replaceChildren(...parts);
  }

  function drawTable() {
    const table = document.getElementById("tasks");
    const extra = D.facets.filter(f => f.key === "validation" || f.key === "audit" || f.key.startsWith("run"));
    const head = el("tr", {}, ...["task", "category", "level", "template", ...extra.map(f => f.label), "instruction"]
      .map(t => el("th", { text: t })));
    const body = el("tbody");
    const start = state.page * PAGE;
    for (const i of state.rows.slice(start, start + PAGE)) {
      body.append(el("tr", { "data-task": D.ids[i] },
        el("td", { cls: "id" }, el("a", { href: "#/task/" + encodeURIComponent(D.ids[i]), text: D.ids[i] })),
        el("td", { text: value("category", i) }), el("td", { text: value("level", i) }),
        el("td", { text: value("template", i) }),
        ...extra.map(f => el("td", {}, tag(f.values[f.codes[i]]))),
        el("td", { text: D.texts[i] })));
    }
    table.replaceChildren(el("thead", {}, head), body);
    const pages = Math.max(1, Math.ceil(state.rows.length / PAGE));
    document.getElementById("page-info").textContent =
      "page " + (state.page + 1) + " of " + pages + " · " + state.rows.length + " of " + D.tasks + " tasks";
    document.getElementById("prev").disabled = state.page <= 0;
    document.getElementById("next").disabled = state.page >= pages - 1;
  }

  // ------------------------------------------------------------------ a task
  function showTask(id) {
    if (!byId) { byId = new Map(); D.ids.forEach((x, i) => byId.set(x, i)); }
    const i = byId.get(id);
    if (i === undefined) { main().replaceChildren(el("p", { text: "No task " + id + " in this suite." })); return; }
    main().replaceChildren(el("p", { text: "Loading " + id + "…" }));
    loadChunk(i, t => drawTask(t));
  }

  function entityRoles(t, map) {
    const roles = new Map();
    const base = x => String(x).split("|")[0];
    for (const v of Object.values(t.bindings || {})) roles.set(base(v), "bound");
    const cats = new Set();
    const items = map && map.items ? map.items : [];
    const targets = new Set((t.targets || []).map(base));
    for (const it of items) if (targets.has(it.id)) cats.add(it.category);
    for (const it of items) if (cats.has(it.category) && !targets.has(it.id) && !roles.has(it.id)) roles.set(it.id, "distractor");
    for (const x of targets) roles.set(x, "target");
    return roles;
  }

  // The scene's map in the state the task starts in: a task about an experience finds
  // the items the experience moved where it left them (the experience's `start`).
  function startMap(map, x) {
    if (!map || map.missing || !x || !x.start) return map;
    const moved = x.start.items;
    return Object.assign({}, map, { items: map.items.map(o => moved[o.id] ? Object.assign({}, o, { rings: moved[o.id] }) : o) });
  }

  function drawTask(t) {
    const map = startMap(D.scenes[t.scene] || null, t.experience ? D.experiences[t.experience] : null);
    const roles = entityRoles(t, map);
    const ent = x => el("span", { cls: roles.has(String(x).split("|")[0]) ? "ent-" + roles.get(String(x).split("|")[0]) : "", text: x });
    const meta = el("p", {},
      tag(t.category || "no category"), t.level != null ? tag("level " + t.level) : null,
      ...(t.tags || []).map(x => tag(x)),
      el("span", { cls: "muted", text: " template " + t.template + (t.template_file ? " (" + t.template_file + ")" : "") + " · scene " + (t.scene || "-") }));
    const left = el("div", {},
      section("Instructions", el("ol", { id: "instructions" }, ...(t.instructions || []).map(s => el("li", { text: s })))),
      section("Goal", goalTree(t.goal, ent), el("pre", { text: t.goal_pddl })),
      section("Bindings", el("table", { id: "bindings" }, ...Object.entries(t.bindings || {}).map(([k, v]) =>
        el("tr", {}, el("td", { cls: "mono", text: k }), el("td", {}, ent(v)))))),
      section("Targets", el("p", { id: "targets" }, ...(t.targets || []).flatMap(x => [ent(x), " "])),
        el("p", { cls: "muted", text: "distractors (items of a target's category, neither targets nor bound): " +
          ([...roles].filter(([, r]) => r === "distractor").map(([x]) => x).join(", ") || "none") })),
      t.validation ? planSection(t.validation) : null,
      t.audit ? checksSection(t.audit) : null,
      ...(t.runs || []).map((r, k) => runSection(D.runs[k], r)));
    const right = el("div", {},
      section("Map", mapView(map, t, roles)),
      t.experience ? section("Experience", timeline(D.experiences[t.experience], t)) : null,
      t.experience && D.experiences[t.experience] && D.experiences[t.experience].thumbs ? validSection(D.experiences[t.experience], t) : null,
      t.view ? section("First view", el("img", { id: "first-view", cls: "view", src: t.view, alt: "the view from where the task starts" })) : null);
    main().replaceChildren(el("h2", { id: "task-id", text: t.id }), meta, el("div", { cls: "task" }, left, right));
  }

  function goalTree(g, ent) {
    const ul = el("ul", { cls: "goal" });
    const li = node(g, ent);
    ul.append(li);
    return ul;
  }
  function node(g, ent) {
    if (g.kind === "atom") return el("li", { cls: "atom" }, "(" + g.predicate, ...g.args.flatMap(a => [" ", ent(a)]), ")");
    const kids = g.parts || g.steps || (g.body ? [g.body] : null);
    const label = g.kind + (g.ordered ? " (ordered)" : "") + (g.kind === "count" ? " " + g.op + " " + g.number + " " + g.relation : "");
    const li = el("li", {}, el("span", { cls: "op", text: label }));
    const ul = el("ul", { cls: "goal" });
    if (kids) kids.forEach(k => ul.append(node(k, ent)));
    if (g.targets) g.targets.forEach(x => { const sub = el("li", {}, el("span", { cls: "op", text: "target " }), ent(x.entity)); sub.append(goalTree(x.goal, ent)); ul.append(sub); });
    if (g.items) ul.append(el("li", {}, "items ", ...g.items.flatMap(a => [ent(a), " "])));
    if (g.others && g.others.length) ul.append(el("li", {}, "others ", ...g.others.flatMap(a => [ent(a), " "])));
    if (g.groups) g.groups.forEach((grp, k) => ul.append(el("li", {}, "group " + (k + 1) + ": ", ...grp.flatMap(a => [ent(a), " "]))));
    li.append(ul);
    return li;
  }

  function planSection(v) {
    const c = v.certificate;
    return section("Validation", el("p", {}, tag(v.findings.some(f => f.severity === "error") ? "errors" : v.findings.length ? "warnings" : "valid")),
      el("ul", {}, ...v.findings.map(f => el("li", { text: f.severity + " [" + f.code + "] " + f.message }))),
      c ? el("p", {}, "planner: ", tag(c.status, c.status === "solved" ? "valid" : "errors"), " " + c.planner + (c.length != null ? ", " + c.length + " action(s)" : "")) : el("p", { cls: "muted", text: "not planned (validate with --solve for a plan)" }),
      c && c.plan.length ? el("ol", { id: "plan", cls: "mono" }, ...c.plan.map(a => el("li", { text: a }))) : null);
  }

  function checksSection(checks) {
    return section("Audit", el("table", { id: "checks" }, ...Object.entries(checks).map(([k, c]) =>
      el("tr", {}, el("td", { title: D.checks[k] || "", text: k }), el("td", {}, tag(c.status)), el("td", { text: c.detail })))));
  }

  function runSection(name, r) {
    const what = r.actions ? el("ol", { cls: "mono" }, ...r.actions.map(a => el("li", { text: a })))
      : r.frames ? el("p", { text: "frames chosen: " + r.frames.join(", ") }) : null;
    return section("Agent: " + name, el("p", {}, tag(r.outcome),
      r.points != null ? " " + r.points + " points, stage " + r.stage + ", " + r.steps + " step(s)" : "",
      r.hl_spl != null ? " HL-SPL " + r.hl_spl : ""),
      r.reason ? el("p", { cls: "muted", text: r.reason }) : null, what,
      r.trajectory ? el("p", { text: "trajectory: " + r.trajectory }) : null);
  }

  // ------------------------------------------------------------------ the map
  function path(rings) {
    return rings.map(r => { let d = "M"; for (let k = 0; k < r.length; k += 2) d += (k ? " L" : "") + r[k] + "," + (-r[k + 1]); return d + " Z"; }).join(" ");
  }
  function centre(rings) {
    const r = rings[0] || [0, 0]; let x = 0, y = 0;
    for (let k = 0; k < r.length; k += 2) { x += r[k]; y += r[k + 1]; }
    return [x / (r.length / 2), -y / (r.length / 2)];
  }

  function mapView(map, t, roles) {
    if (!map || map.missing) return el("p", { cls: "muted", text: "No map: " + (map ? map.missing : "the task names no scene") });
    const [x0, y0, x1, y1] = map.bounds, pad = 0.5;
    const full = [x0 - pad, -y1 - pad, x1 - x0 + 2 * pad, y1 - y0 + 2 * pad];
    let view = full.slice();
    const s = svg("svg", { id: "map", viewBox: view.join(" "), "data-full": full.join(" "), preserveAspectRatio: "xMidYMid meet" });
    const hover = el("div", { id: "hover" });
    const palette = ["#f3efe0", "#e3eef6", "#eaf3e3", "#f6e8e8", "#efe6f4", "#f4f1d8", "#e0f0ee"];
    map.rooms.forEach((r, k) => s.append(svg("path", { d: path(r.rings), class: "room", fill: palette[k % palette.length], "fill-rule": "evenodd" })));
    s.append(svg("path", { d: path(map.walls), class: "wall", "fill-rule": "evenodd" }));
    const shape = (o, cls, fill) => {
      const role = roles.get(o.id);
      const p = svg("path", { d: path(o.rings), class: cls + (role ? " " + role : ""), "data-id": o.id, "data-name": o.name });
      if (fill) p.setAttribute("fill", fill);
      const title = svg("title"); title.textContent = o.name + " (" + o.id + ")" + (role ? " · " + role : ""); p.append(title);
      s.append(p);
    };
    map.furniture.forEach(o => shape(o, "furniture"));
    map.items.forEach(o => shape(o, "item", o.colour));
    map.rooms.forEach(r => { const [cx, cy] = centre(r.rings); const tx = svg("text", { x: cx, y: cy, class: "room-name", "text-anchor": "middle" }); tx.textContent = r.name; s.append(tx); });
    // Targets keep a ring and a label, so they can be found at any zoom.
    for (const o of map.items.concat(map.furniture)) {
      if (roles.get(o.id) !== "target") continue;
      const [cx, cy] = centre(o.rings);
      s.append(svg("circle", { cx: cx, cy: cy, r: 0.25, class: "ring-target" }));
      const tx = svg("text", { x: cx + 0.28, y: cy - 0.1, class: "label-target" }); tx.textContent = o.id; s.append(tx);
    }
    if (t.start) { const st = svg("circle", { cx: t.start.x, cy: -t.start.y, r: 0.12, fill: "#e53e3e", stroke: "#000", "stroke-width": 0.02 }); const ti = svg("title"); ti.textContent = "the robot starts here"; st.append(ti); s.append(st); }
    const walked = agentPaths(s, t);
    const box = el("div", { cls: "mapbox" }, s, hover);
    s.addEventListener("mousemove", e => {
      const id = e.target.getAttribute && e.target.getAttribute("data-id");
      if (!id) { hover.style.display = "none"; return; }
      const r = box.getBoundingClientRect();
      hover.textContent = e.target.getAttribute("data-name") + " (" + id + ")" + (roles.has(id) ? " · " + roles.get(id) : "");
      hover.style.left = (e.clientX - r.left + 12) + "px"; hover.style.top = (e.clientY - r.top + 12) + "px"; hover.style.display = "block";
    });
    s.addEventListener("mouseleave", () => { hover.style.display = "none"; });
    const set = v => { view = v; s.setAttribute("viewBox", v.join(" ")); };
    const zoom = (f, cx, cy) => {
      const w = view[2] * f, h = view[3] * f;
      set([cx - (cx - view[0]) * f, cy - (cy - view[1]) * f, w, h]);
    };
    const toMap = e => { const r = s.getBoundingClientRect(); const k = Math.max(view[2] / r.width, view[3] / r.height);
      return [view[0] + view[2] / 2 + (e.clientX - r.left - r.width / 2) * k, view[1] + view[3] / 2 + (e.clientY - r.top - r.height / 2) * k, k]; };
    s.addEventListener("wheel", e => { e.preventDefault(); const [mx, my] = toMap(e); zoom(e.deltaY < 0 ? 0.8 : 1.25, mx, my); }, { passive: false });
    let drag = null;
    s.addEventListener("pointerdown", e => { drag = [e.clientX, e.clientY, view.slice(), toMap(e)[2]]; s.setPointerCapture(e.pointerId); });
    s.addEventListener("pointermove", e => { if (drag) set([drag[2][0] - (e.clientX - drag[0]) * drag[3], drag[2][1] - (e.clientY - drag[1]) * drag[3], drag[2][2], drag[2][3]]); });
    s.addEventListener("pointerup", () => { drag = null; });
    const mid = () => [view[0] + view[2] / 2, view[1] + view[3] / 2];
    const legend = el("span", { cls: "legend" },
      el("span", {}, el("i", { cls: "swatch", style: "border-color:#c53030" }), "target"),
      el("span", {}, el("i", { cls: "swatch", style: "border-color:#dd6b20;border-style:dashed" }), "distractor"),
      el("span", {}, el("i", { cls: "swatch", style: "border-color:#2b6cb0" }), "bound"), ...walked);
    const bar = el("div", { cls: "zoom" },
      el("button", { id: "zoom-in", text: "+", onclick: () => zoom(0.7, ...mid()) }),
      el("button", { id: "zoom-out", text: "−", onclick: () => zoom(1 / 0.7, ...mid()) }),
      el("button", { id: "zoom-reset", text: "reset", onclick: () => set(full.slice()) }),
      el("span", { cls: "muted", text: "wheel to zoom, drag to pan, hover to name · " }), legend);
    return el("div", {}, bar, box);
  }

  // Each agent's path (a run's `path`: its trajectory, its frames' poses or its go_to
  // targets, joined by the scene's routes): a polyline in the agent's colour, a dot at
  // its start and a square at its end; the legend entries are returned.
  const RUN_COLOURS = ["#d53f8c", "#3182ce", "#2f855a", "#b7791f", "#6b46c1", "#2c7a7b"];
  function agentPaths(s, t) {
    const legend = [];
    (t.runs || []).forEach((r, k) => {
      const p = r.path ? r.path.points : [];
      if (p.length < 4) return;
      const c = RUN_COLOURS[k % RUN_COLOURS.length], n = p.length;
      const pts = []; for (let i = 0; i < n; i += 2) pts.push(p[i] + "," + (-p[i + 1]));
      const what = D.runs[k] + ": " + r.outcome + " (drawn from its " + r.path.from + ")";
      const line = svg("polyline", { points: pts.join(" "), class: "run-path", "data-run": k, stroke: c });
      const ti = svg("title"); ti.textContent = what; line.append(ti); s.append(line);
      s.append(svg("circle", { cx: p[0], cy: -p[1], r: 0.1, fill: c, class: "run-start", "data-run": k }));
      s.append(svg("rect", { x: p[n - 2] - 0.1, y: -p[n - 1] - 0.1, width: 0.2, height: 0.2, fill: "#fff", stroke: c, "stroke-width": 0.05, class: "run-end", "data-run": k }));
      legend.push(el("span", { cls: "run-legend", title: what + "; dot: start, square: end" }, el("i", { cls: "swatch", style: "border-color:" + c + ";background:" + c }), D.runs[k]));
    });
    return legend;
  }

  // ------------------------------------------------------------------ the experience
  function frameRuns(frames) {  // [3, 4, 5, 9] -> [[3, 3], [9, 1]]
    const out = [];
    for (const f of [...new Set(frames)].sort((a, b) => a - b)) {
      const last = out[out.length - 1];
      if (last && last[0] + last[1] === f) last[1]++; else out.push([f, 1]);
    }
    return out;
  }
  // The thumbnails of the rendered frames (`fdc browse --frames`), valid frames (any
  // target) and the frames agents chose marked.
  function thumbPath(x, f) { return x.thumbs.dir + "/" + String(f).padStart(6, "0") + ".jpg"; }
  function frameTime(x, f) {
    const m = x.times ? x.times[Math.min(f, x.times.length - 1)] : null;
    return m == null ? "" : " " + String(Math.floor(m / 60) % 24).padStart(2, "0") + ":" + String(Math.floor(m % 60)).padStart(2, "0");
  }
  function thumb(x, f, cls, lazy) {
    return el("figure", { cls: "thumb " + cls, "data-frame": f },
      el("img", { src: thumbPath(x, f), loading: lazy ? "lazy" : "eager", alt: "frame " + f, title: "frame " + f + frameTime(x, f) }),
      el("figcaption", { text: f + frameTime(x, f) }));
  }
  function strip(x, t) {
    const valid = new Set((t.valid_frames || []).flat());
    const chosen = new Set((t.runs || []).flatMap(r => r.frames || []));
    return el("div", { cls: "strip", id: "strip" }, ...x.thumbs.frames.map(f =>
      thumb(x, f, (valid.has(f) ? "valid " : "") + (chosen.has(f) ? "chosen" : ""), true)));
  }
  function validSection(x, t) {
    const rendered = new Set(x.thumbs.frames);
    const lists = t.valid_frames || [];
    const note = "every " + x.thumbs.every + "th frame rendered; green: valid, red: chosen by an agent";
    if (!lists.length) return section("Valid frames", el("p", { cls: "muted", text: "none recorded" }));
    return section("Valid frames", ...lists.map((fs, k) => {
      const shown = fs.filter(f => rendered.has(f));
      return el("div", { cls: "valid-thumbs" },
        el("p", { text: (lists.length > 1 ? "target " + (k + 1) + ": " : "") + fs.length + " valid frame(s), " + shown.length + " of them rendered" }),
        el("div", { cls: "strip" }, ...shown.map(f => thumb(x, f, "valid", false))));
    }), el("p", { cls: "muted", text: note }));
  }
  function timeline(x, t) {
    if (!x || x.missing) return el("p", { cls: "muted", text: "No timeline: " + (x ? x.missing : "experience not found") });
    const n = Math.max(1, x.frames), W = 800, left = 150, rowH = 16;
    const targets = (t.valid_frames || []).map(frameRuns);
    const rows = x.interactions.length + targets.length;
    const H = 30 + rowH * rows;
    const s = svg("svg", { id: "timeline", viewBox: "0 0 " + W + " " + H });
    // Frames are placed by their clock time (`times`, minutes since midnight), or by
    // their index in a timeline written without it.
    const times = x.times || null;
    const t0 = times ? times[0] : 0, span = times ? Math.max(1e-9, times[times.length - 1] - t0) : n;
    const at = f => times ? times[Math.min(f, times.length - 1)] - t0 : f;
    const fx = f => left + (W - left - 10) * at(f) / span;
    const hhmm = m => String(Math.floor(m / 60) % 24).padStart(2, "0") + ":" + String(Math.floor(m % 60)).padStart(2, "0");
    const label = (y, text) => { const tx = svg("text", { x: 4, y: y + 11, "font-size": 11 }); tx.textContent = text; s.append(tx); };
    x.interactions.forEach((it, k) => {
      const y = 4 + k * rowH;
      label(y, (k + 1) + ". " + it.object);
      const end = it.place != null ? it.place : n;
      const r = svg("rect", { x: fx(it.pick), y: y + 2, width: Math.max(2, fx(end) - fx(it.pick)), height: rowH - 5, fill: "#90cdf4", stroke: "#2b6cb0", "stroke-width": 0.5 });
      const ti = svg("title"); ti.textContent = it.object + ": picked at frame " + it.pick + (times ? " (" + hhmm(times[it.pick] || it.start_min) + ")" : "") + (it.place != null ? ", placed at frame " + it.place + (times && it.end_min != null ? " (" + hhmm(it.end_min) + ")" : "") : ""); r.append(ti); s.append(r);
    });
    targets.forEach((runs, k) => {
      const y = 4 + (x.interactions.length + k) * rowH;
      label(y, targets.length > 1 ? "valid frames, target " + (k + 1) : "valid frames");
      for (const [first, count] of runs) {
        const r = svg("rect", { x: fx(first), y: y + 2, width: Math.max(1.5, fx(first + count) - fx(first)), height: rowH - 5, fill: "#38a169", class: "valid-frames" });
        const ti = svg("title"); ti.textContent = "frames " + first + "–" + (first + count - 1); r.append(ti); s.append(r);
      }
    });
    const axisY = H - 22;
    s.append(svg("line", { x1: left, x2: W - 10, y1: axisY, y2: axisY, stroke: "#718096" }));
    for (let k = 0; k <= 4; k++) {
      const tx = svg("text", { x: left + (W - left - 10) * k / 4, y: axisY + 14, "font-size": 10, "text-anchor": ["start", "middle", "middle", "middle", "end"][k] });
      tx.textContent = times ? hhmm(t0 + span * k / 4) : "frame " + Math.round(n * k / 4); s.append(tx);
    }
    s.setAttribute("data-axis", times ? "clock" : "frames");
    return el("div", {}, s, x.thumbs ? strip(x, t) : null, el("p", { cls: "muted", text: x.frames + " frames" + (times ? " placed by their clock time, " + hhmm(times[0]) + "–" + hhmm(times[times.length - 1]) : "") + ", " + x.interactions.length + " interactions; green: frames where the goal holds" }));
  }

  // ------------------------------------------------------------------ the manifest
  function showManifest() {
    const m = D.manifest;
    if (!m) { main().replaceChildren(el("p", { text: "No manifest.json beside the suite." })); return; }
    const drops = el("table", { id: "drops" }, el("tr", {}, ...["reason", "dropped", "example"].map(x => el("th", { text: x }))),
      ...m.drops.map(d => el("tr", {}, el("td", { text: d.reason }), el("td", { text: String(d.count) }),
        el("td", {}, d.example ? el("span", {}, el("b", { text: d.example.template }), " on " + d.example.scene + ": " +
          (Object.entries(d.example.binding).map(([k, v]) => k + "=" + v).join(" ") || "(while binding)") + " — " + d.example.message) : ""))));
    const per = el("table", { id: "per-template" }, el("tr", {}, ...["template", "category", "level", "bindings", "visited", "tasks", "dropped"].map(x => el("th", { text: x }))),
      ...m.templates.map(t => el("tr", {}, ...[t.name, t.category || "", t.level == null ? "" : t.level, t.bindings, t.visited, t.tasks, t.dropped].map(v => el("td", { text: String(v) })))));
    main().replaceChildren(el("h2", { text: "Manifest" }),
      el("p", { text: m.tasks + " tasks, seed " + m.seed + ", fdc " + m.fdc_version + "; scenes: " + m.scenes.map(s => s.path + " (" + s.tasks + ")").join(", ") }),
      el("h3", { text: "Drops by reason" }), drops, el("h3", { text: "Per template" }), per);
  }

  // ------------------------------------------------------------------ routing
  function route() {
    const h = decodeURIComponent(location.hash.replace(/^#\/?/, ""));
    if (h.startsWith("task/")) showTask(h.slice(5));
    else if (h === "manifest") showManifest();
    else showIndex();
    window.scrollTo(0, 0);
  }

  window.FDC = {
    index(data) {
      D = data;
      document.getElementById("suite").textContent = D.suite + " · " + D.tasks + " tasks";
      window.addEventListener("hashchange", route);
      route();
      document.body.setAttribute("data-ready", "1");
    },
    chunk(first, tasks, more) {
      tasks.forEach((t, k) => Object.assign(t, more[k]));
      chunks[first] = tasks;
      (waiting[first] || []).splice(0).forEach(f => f());
    },
  };
})();
