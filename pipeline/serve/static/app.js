// examrag page: a client of the JSON API (/api/*), no framework, no build step, nothing from a CDN.
// Every view shows what the API returns, so the page and `cli.py ... --json` show the same data.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { token: sessionStorage.getItem("examrag-token") || "", hits: [], citations: {}, source: null, abort: null, pageUrl: null };
// one conversation per browser tab: follow-up questions are read in its context (ask --session)
if (!sessionStorage.getItem("examrag-session")) {
  sessionStorage.setItem("examrag-session", "web-" + Math.random().toString(36).slice(2, 12));
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k.startsWith("data-")) node.setAttribute(k, v);
    else node[k] = v;
  }
  for (const c of children) if (c != null) node.append(c);
  return node;
}

// ------------------------------------------------------------------ API
async function api(path, options = {}) {
  const headers = Object.assign({}, options.headers || {});
  if (state.token) headers["Authorization"] = "Bearer " + state.token;
  const resp = await fetch(path, Object.assign({}, options, { headers }));
  if (resp.status === 401) {
    $("token-form").hidden = false;
    throw new Error("需要访问令牌：请在右上角输入 EXAMRAG_API_TOKEN");
  }
  return resp;
}

async function apiJson(path) {
  const resp = await api(path);
  const data = await resp.json();
  if (!resp.ok) throw new Error(describeError(resp, data));
  return data;
}

function describeError(resp, data) {
  let msg = (data && data.detail) || resp.statusText;
  if (resp.status === 503 && resp.headers.get("Retry-After")) msg += `（请 ${resp.headers.get("Retry-After")} 秒后重试）`;
  return msg;
}

$("token-form").addEventListener("submit", (e) => {
  e.preventDefault();
  state.token = $("token-input").value.trim();
  sessionStorage.setItem("examrag-token", state.token);
  $("token-form").hidden = true;
  boot();
});

// ------------------------------------------------------------------ views
const VIEWS = { "/": "ask", "/practice": "practice", "/mistakes": "mistakes", "/review": "review", "/status": "status", "/map": "map" };

function show(path) {
  const view = VIEWS[path] || "ask";
  for (const name of Object.values(VIEWS)) $("view-" + name).hidden = name !== view;
  document.querySelectorAll("nav a[data-view]").forEach((a) => a.classList.toggle("active", a.dataset.view === view));
  if (view === "status") loadStatus();
  if (view === "map") loadMap(); // map.js
  if (window.studyView) window.studyView(view);  // study.js: /mistakes, /review
}

document.querySelectorAll("nav a[data-view]").forEach((a) => a.addEventListener("click", (e) => {
  e.preventDefault();
  history.pushState(null, "", a.getAttribute("href"));
  show(location.pathname);
}));
window.addEventListener("popstate", () => show(location.pathname));

// ------------------------------------------------------------------ chapters
function fillChapters(select, nodes, depth = 0) {
  for (const n of nodes) {
    select.append(el("option", { value: n.title, text: "\u3000".repeat(depth) + `${n.title}（${n.chunks}）` }));
    fillChapters(select, n.children, depth + 1);
  }
}

async function loadChapters() {
  try {
    if (await syllabusPickers(["chapter", "practice-chapter"])) return; // map.js: the 考纲 tree when there is one
    const tree = await apiJson("/api/chapters");
    for (const id of ["chapter", "practice-chapter"]) {
      const select = $(id);
      select.length = 1;
      fillChapters(select, tree);
    }
  } catch (err) {
    setStatus(err.message, "error");
  }
}

// ------------------------------------------------------------------ ask (SSE over fetch: POST bodies)
function setStatus(text, kind) {
  const s = $("ask-status");
  s.textContent = text || "";
  s.className = kind ? "note " + kind : "note";
}

const CITATION = /\[来源:\s*([^\]]+)\]/g;

function renderAnswer(text, citations) {
  const box = $("answer");
  box.textContent = "";
  box.append(withChips(text, citations));
}

function norm(s) { return s.replace(/\s+/g, ""); }

// citation text (whitespace-free) → where it opens: the answer's `citations` (a record's booklet citation
// included), else a hit with that citation
function citationTargets(a) {
  const map = {};
  for (const h of a.hits || []) map[norm(h.citation)] = h;
  for (const [text, t] of Object.entries(a.citations || {})) map[norm(text)] = t;
  return map;
}

function chip(citation, citations) {
  const label = citation.slice(4, -1).trim();
  const t = citations[norm(citation)];
  if (!t) return el("span", { class: "chip unmatched", title: "资料中没有这个来源", text: label, "data-citation": citation });
  const hit = state.hits.find((h) => h.chunk_id === t.chunk_id);
  return el("button", { type: "button", class: "chip", title: `${t.source} · 点击查看原文`, "data-rank": hit ? String(hit.rank) : "",
                        "data-citation": citation, text: hit ? `${hit.rank}·${label}` : label,
                        onclick: () => openHit(Object.assign({}, t, { citation })) });
}

async function ask(question, chapter) {
  if (state.abort) state.abort.abort();
  const controller = new AbortController();
  state.abort = controller;
  const box = $("answer");
  box.className = "";
  box.dataset.state = "waiting";
  box.dataset.tokens = "0";
  box.textContent = "";
  $("answer-note").hidden = true;
  $("extras").textContent = "";
  $("claims").textContent = "";
  $("claims-box").hidden = true;
  $("hits").textContent = "";
  $("hits-title").hidden = true;
  $("ask-button").disabled = true;
  $("stop-button").hidden = false;
  setStatus("检索中…");
  let text = "";
  try {
    const resp = await api("/api/ask", { method: "POST", signal: controller.signal,
      headers: { "Content-Type": "application/json" }, body: JSON.stringify({ question, chapter: chapter || null, extras: $("want-extras").checked,
                              session: $("follow-up").checked ? sessionStorage.getItem("examrag-session") : null }) });
    if (!resp.ok) {
      const data = await resp.json().catch(() => ({}));
      box.dataset.state = "error";
      setStatus(resp.status === 503 && data.error === "busy" ? `排队人数已满，请 ${resp.headers.get("Retry-After") || "稍"} 秒后重试` : describeError(resp, data), "error");
      return;
    }
    const reader = resp.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const frame = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        let event = "message", data = "";
        for (const line of frame.split("\n")) {
          if (line.startsWith("event:")) event = line.slice(6).trim();
          else if (line.startsWith("data:")) data += line.slice(5).trim();
        }
        if (!data) continue;
        const payload = JSON.parse(data);
        if (event === "queued") {
          box.dataset.state = "queued";
          setStatus(`排队中：前面还有 ${payload.position - 1} 人（${payload.running}/${payload.slots} 个正在生成）`, "warn");
        } else if (event === "token") {
          if (box.dataset.state !== "streaming") { box.dataset.state = "streaming"; setStatus("生成中…"); }
          box.dataset.tokens = String(Number(box.dataset.tokens) + 1);
          text += payload.text;
          renderAnswer(text, {});
        } else if (event === "answer") {
          showAnswer(payload);
        } else if (event === "error") {
          box.dataset.state = "error";
          setStatus(payload.detail, "error");
        }
      }
    }
  } catch (err) {
    if (err.name === "AbortError") { box.dataset.state = "stopped"; setStatus("已停止"); }
    else { box.dataset.state = "error"; setStatus(err.message, "error"); }
  } finally {
    $("ask-button").disabled = false;
    $("stop-button").hidden = true;
    if (state.abort === controller) state.abort = null;
  }
}

function showAnswer(a) {
  state.hits = a.hits || [];
  state.citations = citationTargets(a);
  const box = $("answer");
  if (a.text) renderAnswer(a.text, state.citations);
  else box.textContent = a.note || "（没有生成回答，下面是检索到的片段）";
  box.classList.toggle("refused", !!a.refused);
  box.dataset.state = "done";
  box.dataset.source = a.source || "";
  setStatus("");
  const notes = [];
  if (a.standalone_question) notes.push(`按上下文理解为：${a.standalone_question}`);
  if (a.note && a.text) notes.push(a.note);
  if (notes.length) { $("answer-note").hidden = false; $("answer-note").textContent = notes.join("　"); }
  renderExtras(a.extras);
  renderClaims(a.claims || []);
  renderHits(state.hits);
}

function withChips(text, citations = state.citations) {
  const span = el("span");
  let last = 0;
  for (const m of text.matchAll(CITATION)) {
    span.append(text.slice(last, m.index), chip(m[0], citations));
    last = m.index + m[0].length;
  }
  span.append(text.slice(last));
  return span;
}

function renderExtras(extras) {
  const box = $("extras");
  box.className = "extras";
  if (!extras) return;
  if (extras.review) box.append(el("h4", { text: "复习建议" }), el("p", {}, withChips(extras.review)));
  if (extras.questions && extras.questions.length) {
    box.append(el("h4", { text: "延伸问题" }),
      el("ol", {}, ...extras.questions.map((q) => el("li", {},
        el("button", { type: "button", class: "link", text: q.question, title: "问这个问题",
                       onclick: () => { $("question").value = q.question; $("ask-form").requestSubmit(); } }),
        " ", withChips(q.citation)))));
  }
}

function renderClaims(claims) {
  const list = $("claims");
  if (!claims.length) return;
  $("claims-box").hidden = false;
  for (const c of claims) {
    list.append(el("li", { class: c.supported ? "ok" : "bad" },
      el("span", { text: c.supported ? "✓ " : "✗ " }), c.text,
      c.reason ? el("small", { text: `（${c.reason}）` }) : "", c.citation ? withChips(c.citation) : ""));
  }
}

function renderHits(hits) {
  const list = $("hits");
  list.textContent = "";
  $("hits-title").hidden = !hits.length;
  for (const h of hits) {
    const li = el("li", { "data-chunk": h.chunk_id },
      el("div", { class: "hit-head" },
        el("button", { type: "button", class: "chip", text: h.citation.slice(4, -1).trim(), "data-citation": h.citation,
                       onclick: () => openHit(h) }),
        el("span", { class: "hit-source", text: h.source })),
      el("div", { class: "hit-text", text: h.text.length > 240 ? h.text.slice(0, 240) + "…" : h.text }));
    if (h.chapter_paths && h.chapter_paths.length) li.append(sectionLinks(h.chapter_paths, "考查章节："));
    list.append(li);
  }
}

$("ask-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const q = $("question").value.trim();
  if (q) ask(q, $("chapter").value);
});
$("stop-button").addEventListener("click", () => state.abort && state.abort.abort());

// ------------------------------------------------------------------ source panel
// the page a passage opens on in its document: its first box there, else its first cited page (a citation's
// target names its own: a record's solution, on the booklet's pages)
function firstPage(hit, info) {
  if (!hit.boxes) return info.open_page;  // no boxes sent (a section's first passage): as the server places it
  const boxes = hit.boxes.filter((b) => b.doc_id === hit.doc_id);
  const page = boxes.length ? boxes[0].page : (hit.pages || [])[0];
  return page >= 1 && page <= info.page_count ? page : info.open_page;
}

// a hit, or a citation's target (a record's booklet part: its doc_id is the booklet's)
async function openHit(hit) {
  document.querySelectorAll("#hits li").forEach((li) => li.classList.toggle("active", li.dataset.chunk === hit.chunk_id));
  const panel = $("source-panel");
  panel.hidden = false;
  $("source-title").textContent = hit.citation ? hit.citation.slice(4, -1).trim() : hit.source;
  $("highlight-note").textContent = "加载原文…";
  $("highlight-note").className = "note";
  $("page-image").hidden = true;
  $("source-pager").hidden = true;
  $("section-box").hidden = true;
  try {
    const info = await apiJson(`/api/source/${encodeURIComponent(hit.doc_id)}?chunk=${encodeURIComponent(hit.chunk_id)}`);
    const page = info.paged ? firstPage(hit, info) : null;
    state.source = { hit, info, page };
    if (info.paged) {
      await showPage(page);
      loadSection(hit, false);
    } else {
      $("highlight-note").textContent = "";
      await loadSection(hit, true);
    }
  } catch (err) {
    $("highlight-note").textContent = err.message;
    $("highlight-note").className = "note error";
  }
}

async function showPage(n) {
  const { hit, info } = state.source;
  state.source.page = n;
  $("source-pager").hidden = false;
  $("page-label").textContent = `第 ${n} / ${info.page_count} 页`;
  $("page-prev").disabled = n <= 1;
  $("page-next").disabled = n >= info.page_count;
  const resp = await api(`/api/source/${encodeURIComponent(hit.doc_id)}/page/${n}.png?chunk=${encodeURIComponent(hit.chunk_id)}`);
  if (!resp.ok) throw new Error(describeError(resp, await resp.json().catch(() => ({}))));
  const img = $("page-image");
  const marked = resp.headers.get("X-Highlight") || "none";
  const blob = await resp.blob();
  if (state.pageUrl) URL.revokeObjectURL(state.pageUrl);
  state.pageUrl = URL.createObjectURL(blob);
  // what is shown, set with the image itself: which document and page, how many boxes drawn on it
  Object.assign(img.dataset, { highlight: marked, boxes: resp.headers.get("X-Highlight-Boxes") || "0",
                               doc: hit.doc_id, page: String(n) });
  img.src = state.pageUrl;
  img.hidden = false;
  const note = $("highlight-note");
  if (marked !== "none") { note.textContent = "黄色框为引用的段落"; note.className = "note"; }
  else if (info.highlight.pages.length) { note.textContent = `引用段落在第 ${info.highlight.pages.join("、")} 页`; note.className = "note"; }
  else { note.textContent = "未能可靠定位引用段落，页面未标注（" + (info.highlight.reason || "") + "）"; note.className = "note warn"; }
}

$("page-prev").addEventListener("click", () => state.source && showPage(state.source.page - 1));
$("page-next").addEventListener("click", () => state.source && showPage(state.source.page + 1));
$("source-close").addEventListener("click", () => { $("source-panel").hidden = true; });

async function loadSection(hit, open) {
  try {
    const sec = await apiJson(`/api/source/${encodeURIComponent(hit.doc_id)}/section?chunk=${encodeURIComponent(hit.chunk_id)}`);
    const box = $("section-text");
    box.textContent = "";
    if (sec.mark) {
      box.append(sec.text.slice(0, sec.mark.start), el("mark", { text: sec.text.slice(sec.mark.start, sec.mark.end) }), sec.text.slice(sec.mark.end));
    } else {
      box.append(sec.text);
    }
    $("section-box").hidden = false;
    $("section-box").open = open;
    if (open) { const m = box.querySelector("mark"); if (m) m.scrollIntoView({ block: "center" }); }
  } catch (err) {
    if (open) { $("highlight-note").textContent = err.message; $("highlight-note").className = "note error"; }
  }
}

function sectionLinks(paths, label) {
  const box = el("div", { class: "q-links" }, label);
  for (const p of paths) {
    box.append(el("button", { type: "button", text: p.join(" › "), title: "打开这一节", onclick: () => openSection(p) }));
  }
  return box;
}

async function openSection(path) {
  try {
    const data = await apiJson(`/api/section?path=${encodeURIComponent(path.join(" › "))}`);
    const first = data.chunks[0];
    await openHit(Object.assign({ citation: "" }, first, { citation: `[来源: ${path.join(" › ")}|片段${first.chunk_position}]` }));
  } catch (err) {
    $("source-panel").hidden = false;
    $("highlight-note").textContent = err.message;
    $("highlight-note").className = "note error";
  }
}

// ------------------------------------------------------------------ practice (the list and recording: study.js)
async function openQuestion(q) {
  try {
    const found = await apiJson(`/api/search?k=1&q=${encodeURIComponent(`${q.year}年第${q.number}题`)}`);
    if (found.hits.length) openHit(found.hits[0]);
  } catch (err) {
    $("practice-status").textContent = err.message;
  }
}

function askAbout(q) {
  history.pushState(null, "", "/");
  show("/");
  $("question").value = `${q.year}年第${q.number}题怎么做？`;
  ask($("question").value, "");
}


// ------------------------------------------------------------------ status
async function loadStatus() {
  const summary = $("status-summary");
  summary.textContent = "加载中…";
  try {
    const [st, health] = await Promise.all([apiJson("/api/status"), apiJson("/api/health")]);
    const c = st.counts;
    summary.textContent = "";
    summary.append(el("p", { text: `${c.documents} 个文档；索引 ${health.generation || "（尚未建立）"}：${c.catalog_chunks ?? 0} 个片段（BM25 ${c.bm25_chunks ?? 0}，向量 ${c.vector_chunks ?? 0}，清单 ${c.manifest_chunks ?? 0}）` }),
      el("p", { class: "note", text: `生成队列：${health.queue.running}/${health.queue.slots} 个正在生成，${health.queue.waiting} 个等待（上限 ${health.queue.queue_size}）；模型：${health.llm || health.llm_error || "未加载"}` }));
    const stages = [...new Set(st.documents.flatMap((d) => Object.keys(d.stages)))];
    const thead = $("status-docs").tHead;
    thead.textContent = "";
    thead.append(el("tr", {}, el("th", { text: "文件" }), ...stages.map((s) => el("th", { text: s })), el("th", { text: "问题" })));
    const body = $("status-docs").tBodies[0];
    body.textContent = "";
    for (const d of st.documents) {
      body.append(el("tr", {},
        el("td", { text: d.sources.join("\n"), title: d.doc_id }),
        ...stages.map((s) => el("td", { class: "st-" + (d.stages[s] || ""), text: d.stages[s] || "—" })),
        el("td", { text: (d.errors || []).join("\n") || "—" })));
    }
    const fails = Object.entries(c.failures || {});
    const box = $("status-failures");
    box.textContent = "";
    if (fails.length) {
      box.append(el("h4", { text: "无法读取的文件" }), el("ul", {}, ...fails.map(([f, why]) => el("li", { text: `${f}：${why}` }))));
    }
  } catch (err) {
    summary.textContent = err.message;
  }
}

// ------------------------------------------------------------------ start
function boot() {
  show(location.pathname);
  loadChapters();
}
boot();
