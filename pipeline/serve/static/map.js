// examrag 考纲地图 (/map) and the syllabus chapter pickers: a client of /api/map, /api/map/material and
// /api/questions. Loaded before app.js (both deferred, so in order): it only defines functions here;
// app.js calls loadMap() when the /map view is shown and syllabusPickers() when it fills the pickers,
// and these use app.js's helpers (el, api, apiJson, show, openHit, askAbout, openQuestion) and study.js's
// (answerCard, loadStudyPractice, TYPE_NAME) at call time.
"use strict";

const MAP = { data: null, byId: {}, open: new Set(), selected: null };
const HEAT_LEVELS = 5; // heat-1 … heat-5: a cell's share of the busiest year-cell of its level, in fifths
// Called after every render with (map data, the heat table): a place for mastery colouring (the rows carry
// data-node = the syllabus node_id a progress API can key on).
const mapHooks = [];

function mapEl(id) { return document.getElementById(id); }

function joinPath(path) { return path.join(" › "); }

// ------------------------------------------------------------------ the chapter pickers
// The syllabus tree (subject › chapter › section) when the material has one; false (use the headings) if not.
async function syllabusPickers(ids) {
  const resp = await api("/api/map");
  if (resp.status === 404) return false; // syllabus_missing: no 考纲 among the material
  const data = await resp.json();
  if (!resp.ok) throw new Error(describeError(resp, data));
  for (const id of ids) {
    const select = mapEl(id);
    select.length = 1;
    for (const n of data.nodes) {
      if (n.level > 2) continue;
      const count = n.questions.length ? `（${n.questions.length} 题）` : "";
      select.append(el("option", { value: joinPath(n.path), "data-node": n.node_id, text: "\u3000".repeat(n.level) + n.heading + count }));
    }
    select.dataset.tree = "syllabus";
  }
  practiceFromUrl();
  return true;
}

// /practice?chapter=X (the map's "练习" links, or a reload): select X and list its questions
function practiceFromUrl() {
  if (location.pathname !== "/practice") return;
  const chapter = new URLSearchParams(location.search).get("chapter");
  if (!chapter) return;
  const select = mapEl("practice-chapter");
  if (![...select.options].some((o) => o.value === chapter)) select.append(el("option", { value: chapter, text: chapter }));
  select.value = chapter;
  loadStudyPractice();  // study.js: reads the picker
}

function practiceNode(path) {
  history.pushState(null, "", "/practice?chapter=" + encodeURIComponent(joinPath(path)));
  show("/practice");
  practiceFromUrl();
}

// ------------------------------------------------------------------ the map
async function loadMap() {
  const view = mapEl("view-map");
  view.textContent = "";
  view.append(el("p", { class: "note", id: "map-status", text: "加载考纲地图…" }));
  let resp, data;
  try {
    resp = await api("/api/map");
    data = await resp.json();
  } catch (err) {
    mapEl("map-status").textContent = err.message;
    return;
  }
  if (resp.status === 404 && data.error === "syllabus_missing") {
    mapEl("map-status").textContent = "资料中没有考试大纲：放入一份考纲（PDF、笔记或 syllabus.yaml）后重新 ingest，即可看到每个考点的真题年份与资料覆盖。";
    return;
  }
  if (!resp.ok) { mapEl("map-status").textContent = describeError(resp, data); return; }
  MAP.data = data;
  MAP.byId = Object.fromEntries(data.nodes.map((n) => [n.node_id, n]));
  renderMap();
}

function renderMap() {
  const data = MAP.data;
  const view = mapEl("view-map");
  view.textContent = "";
  const c = data.counts;
  view.append(el("p", { class: "note", id: "map-status",
    text: `考纲：${data.source}（${c.chapter} 个一级、${c.section} 个二级考点）；真题 ${c.questions_placed}/${c.questions} 道已定位，资料片段 ${c.chunks_placed} 个。点格子看那一年的题和资料。` }));
  view.append(el("div", { class: "map-wrap" }, heatTable(data)), el("div", { id: "map-detail", hidden: true }), gapsBox(data));
  for (const hook of mapHooks) hook(data, mapEl("map-heat"));
}

function heatTable(data) {
  const rows = data.nodes.filter((n) => n.level <= 2);
  const peak = [0, 1, 2].map((level) => Math.max(1, ...rows.filter((n) => n.level === level).flatMap((n) => Object.values(n.by_year))));
  const table = el("table", { id: "map-heat", class: "heat" });
  table.append(el("thead", {}, el("tr", {}, el("th", { text: "考点" }),
    ...data.years.map((y) => el("th", { class: "year", text: String(y) })), el("th", { text: "合计" }), el("th", { text: "资料覆盖" }))));
  const body = el("tbody");
  for (const n of rows) {
    const parent = n.level === 2 ? n.parent : null;
    const hasChildren = n.level === 1 && rows.some((r) => r.parent === n.node_id);
    const label = el("th", { class: "node", scope: "row" });
    if (hasChildren) {
      label.append(el("button", { type: "button", class: "toggle", title: "展开二级考点", text: MAP.open.has(n.node_id) ? "▾" : "▸",
                                  onclick: () => toggleNode(n.node_id) }));
    }
    label.append(el("button", { type: "button", class: "link", text: n.heading, title: joinPath(n.path), onclick: () => openNode(n, null) }));
    const tr = el("tr", { class: `lvl-${n.level}`, "data-node": n.node_id, "data-level": String(n.level) }, label);
    if (parent) { tr.dataset.parent = parent; tr.hidden = !MAP.open.has(parent); }
    for (const y of data.years) {
      const count = n.by_year[String(y)] || 0;
      const heat = count ? Math.min(HEAT_LEVELS, Math.ceil((count / peak[n.level]) * HEAT_LEVELS)) : 0; // against its own level's busiest
      tr.append(el("td", { class: `cell heat-${heat}` },
        el("button", { type: "button", "data-year": String(y), "data-count": String(count),
                       title: `${joinPath(n.path)} · ${y}年 ${count} 题（${n.points_by_year[String(y)] || 0} 分）`,
                       text: count ? String(count) : "", onclick: () => openNode(n, y) })));
    }
    tr.append(el("td", { class: "total", text: String(n.questions.length) }));
    tr.append(el("td", { class: n.covered ? "covered" : (n.tested ? "uncovered gap" : "uncovered"),
                         text: n.covered ? `${n.chunks} 段 · ${Object.keys(n.sources).length} 个文件` : "未覆盖" }));
    body.append(tr);
  }
  table.append(body);
  return table;
}

function toggleNode(id) {
  if (MAP.open.has(id)) MAP.open.delete(id); else MAP.open.add(id);
  const table = mapEl("map-heat");
  for (const tr of table.querySelectorAll(`tr[data-parent="${id}"]`)) tr.hidden = !MAP.open.has(id);
  const btn = table.querySelector(`tr[data-node="${id}"] .toggle`);
  if (btn) btn.textContent = MAP.open.has(id) ? "▾" : "▸";
}

function gapsBox(data) {
  const list = (paths, empty) => paths.length
    ? el("ul", {}, ...paths.map((p) => el("li", {}, el("button", { type: "button", class: "link", text: joinPath(p),
                                                                   onclick: () => openPath(p) }))))
    : el("p", { class: "note", text: empty });
  return el("div", { id: "map-gaps", class: "gaps" },
    el("h3", { text: "缺口" }),
    el("h4", { text: `考过但资料没有覆盖（${data.gaps.tested_not_covered.length}）` }),
    el("div", { id: "gaps-uncovered" }, list(data.gaps.tested_not_covered, "没有：每个考过的考点都有资料。")),
    el("details", {}, el("summary", { text: `从未考过（${data.gaps.never_tested.length}）` }),
      el("div", { id: "gaps-untested" }, list(data.gaps.never_tested, "没有。"))));
}

function openPath(path) {
  const key = joinPath(path);
  const n = MAP.data.nodes.find((m) => joinPath(m.path) === key);
  if (!n) return;
  if (n.level === 2 && !MAP.open.has(n.parent)) toggleNode(n.parent);
  openNode(n, null);
}

// ------------------------------------------------------------------ one node (a row, a cell)
async function openNode(n, year) {
  MAP.selected = { node: n.node_id, year };
  document.querySelectorAll("#map-heat td.cell.selected, #map-heat tr.selected").forEach((x) => x.classList.remove("selected"));
  const tr = mapEl("map-heat").querySelector(`tr[data-node="${n.node_id}"]`);
  if (tr && year != null) tr.querySelector(`button[data-year="${year}"]`).parentElement.classList.add("selected");
  else if (tr) tr.classList.add("selected");
  const box = mapEl("map-detail");
  box.hidden = false;
  box.dataset.node = n.node_id;
  box.dataset.year = year == null ? "" : String(year);
  box.textContent = "";
  const wanted = n.questions.filter((q) => year == null || q.year === year);
  const points = wanted.reduce((s, q) => s + (q.points || 0), 0);
  box.append(
    el("h3", { text: joinPath(n.path) + (year == null ? "" : ` · ${year}年`) }),
    el("div", { class: "row" },
      el("span", { text: `${wanted.length} 道真题${points ? `，${points} 分` : ""}` }),
      n.questions.length ? el("button", { type: "button", id: "map-practice", text: `练习本考点全部 ${n.questions.length} 题`,
                                          onclick: () => practiceNode(n.path) }) : null),
    el("div", { id: "map-questions" }, wanted.length ? el("p", { class: "note", text: "加载题目…" }) : null),
    el("h4", { text: "资料" }),
    coverageLine(n),
    el("ol", { id: "map-material" }));
  await Promise.all([listQuestions(n, wanted), listMaterial(n)]);
}

function coverageLine(n) {
  const files = Object.entries(n.sources);
  if (!files.length) {
    return el("p", { class: "note warn", text: n.tested ? "缺口：这个考点考过，但资料中没有讲它的片段。" : "资料中没有讲它的片段。" });
  }
  return el("p", { class: "note", text: `${n.chunks} 个片段，来自 ` + files.map(([f, k]) => `${f.split("/").pop()}（${k}）`).join("、") });
}

async function listQuestions(n, wanted) {
  const box = mapEl("map-questions");
  if (!wanted.length) return;
  const keys = new Set(wanted.map((q) => `${q.year}-${q.number}`));
  const chapter = encodeURIComponent(joinPath(n.path));
  const order = (a, b) => (a.year - b.year) || (a.number - b.number);
  try {
    let lines;
    try {  // a student answers right here, recorded as on /practice (study.js)
      const items = await apiJson("/api/practice?limit=500&chapter=" + chapter);
      lines = items.filter((q) => keys.has(q.item_id)).sort(order)
        .map((q) => questionLine(q, q.stem, answerCard(q, "/api/attempts")));
    } catch (err) {  // the admin token has no practice of its own: the question as its paper prints it
      const rows = await apiJson("/api/questions?chapter=" + chapter);
      lines = rows.filter((q) => keys.has(`${q.year}-${q.number}`)).sort(order)
        .map((q) => { const stem = stemOf(q.text); return questionLine(q, stem, readOnlyCard(q, stem)); });
    }
    box.textContent = "";
    box.append(...lines);
  } catch (err) {
    box.textContent = err.message;
  }
}

function stemOf(text) {
  const cut = text.search(/\n答案[:：]/);
  return (cut >= 0 ? text.slice(0, cut) : text).replace(/^.*?第\d+题（[^）]*）\n/, "");
}

// one line per question (the material stays in view); it opens to the card
function questionLine(q, stem, card) {
  const first = (stem || "").split("\n")[0];
  const place = q.syllabus_path ? q.syllabus_path.slice(1).join(" › ") : "";
  return el("details", { class: "q-line" },
    el("summary", { text: `${q.year}年 第${q.number}题 · ${TYPE_NAME[q.qtype] || "题"}${place ? " · " + place : ""}：${first.length > 60 ? first.slice(0, 60) + "…" : first}` }),
    card);
}

function readOnlyCard(q, stem) {
  return el("div", { class: "question", "data-year": String(q.year), "data-number": String(q.number) },
    el("div", { class: "q-text", text: stem }),
    el("div", { class: "row" },
      el("button", { type: "button", text: "问助手", onclick: () => askAbout(q) }),
      el("button", { type: "button", text: "看原卷", onclick: () => openQuestion(q) })));
}

async function listMaterial(n) {
  const list = mapEl("map-material");
  if (!n.covered) return;
  try {
    const data = await apiJson("/api/map/material?limit=50&node=" + encodeURIComponent(n.node_id));
    for (const c of data.chunks) {
      const text = c.text.length > 160 ? c.text.slice(0, 160) + "…" : c.text;
      list.append(el("li", { "data-chunk": c.chunk_id },
        el("div", { class: "hit-head" },
          el("button", { type: "button", class: "chip", text: c.citation.slice(4, -1).trim(), title: "打开原文，框出这一段",
                         onclick: () => openHit(c) }),
          el("span", { class: "hit-source", text: c.source })),
        el("div", { class: "hit-text", text })));
    }
    if (data.total > data.chunks.length) list.append(el("li", { class: "note", text: `另有 ${data.total - data.chunks.length} 段未列出` }));
  } catch (err) {
    list.append(el("li", { class: "note error", text: err.message }));
  }
}
