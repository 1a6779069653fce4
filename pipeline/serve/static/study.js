// The study loop's pages (/practice, /mistakes, /review): a client of /api/practice, /api/attempts,
// /api/mistakes, /api/review and /api/progress. Loaded after app.js and uses its helpers ($, el, api,
// describeError, sectionLinks, askAbout, openQuestion). Whose data it shows is the token's (or, on a
// loopback server without tokens, the default profile's): the page never names a profile.
"use strict";

const RATINGS = [[1, "重来 Again"], [2, "困难 Hard"], [3, "良好 Good"], [4, "简单 Easy"]];
const TYPE_NAME = { choice: "单项选择题", comprehensive: "综合应用题", other: "题" };

async function postJson(path, body) {
  const resp = await api(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const data = await resp.json();
  if (!resp.ok) throw new Error(describeError(resp, data));
  return data;
}

function newKey() {  // a fresh key per attempt: a retried POST is stored once
  return (crypto.randomUUID ? crypto.randomUUID() : Date.now().toString(36) + Math.random().toString(36).slice(2)).replace(/[^\w-]/g, "");
}

function cardPrompt(front) { return front.replace(/\{\{c\d+::(.*?)\}\}/g, "［____］"); }

function when(iso) { return iso ? new Date(iso).toLocaleString("zh-CN", { hour12: false }) : ""; }

function questionTitle(q) { return `${q.year || ""}年 第${q.number}题 · ${TYPE_NAME[q.qtype] || "题"}`; }

// ------------------------------------------------------------------ one item to answer (practice and review)
// A choice question: pick an option, graded against the booklet. A comprehensive question or a card:
// write / recall, see the booklet's answer (and 评分说明), then grade yourself (FSRS Again/Hard/Good/Easy).
function answerCard(item, endpoint, onDone) {
  const started = Date.now();
  const isCard = item.kind === "card";
  const box = el("div", { class: "question study-item", "data-item": item.item_id, "data-kind": item.kind,
                          "data-year": String(item.year || ""), "data-number": String(item.number || "") });
  const result = el("div", { class: "q-result", hidden: true });
  const seconds = () => Math.round((Date.now() - started) / 100) / 10;
  const send = async (body, buttons) => {
    buttons.forEach((b) => { b.disabled = true; });
    try {
      const r = await postJson(endpoint, Object.assign({ item_id: item.item_id, seconds: seconds(), client_key: newKey() }, body));
      showResult(result, item, r);
      box.dataset.verdict = r.verdict;
      if (onDone) onDone(r);
    } catch (err) {
      result.hidden = false;
      result.className = "q-result note error";
      result.textContent = err.message;
      buttons.forEach((b) => { b.disabled = false; });
    }
  };

  if (isCard) {
    box.append(el("h4", { text: `卡片 · ${item.card_type === "cloze" ? "填空" : "定义"}` }),
      el("div", { class: "q-text", text: item.card_type === "cloze" ? cardPrompt(item.front) : item.front }));
  } else {
    box.append(el("h4", { text: questionTitle(item) }), el("div", { class: "q-text", text: item.stem }));
  }
  const graded = !isCard && item.qtype === "choice" && item.answer && /^[A-D]+$/.test(item.answer.trim());
  if (graded) {
    const opts = el("div", { class: "q-options" });
    for (const [letter, text] of Object.entries(item.options || {})) {
      opts.append(el("label", { class: "q-option" },
        el("input", { type: "radio", name: "opt-" + item.item_id + "-" + endpoint, value: letter }), ` ${letter}. ${text}`));
    }
    const submit = el("button", { type: "button", class: "submit", text: "提交" });
    submit.addEventListener("click", () => {
      const picked = opts.querySelector("input:checked");
      if (!picked) { result.hidden = false; result.className = "q-result note warn"; result.textContent = "先选一个选项"; return; }
      send({ answer: picked.value }, [submit]);
    });
    box.append(opts, el("div", { class: "row" }, submit, ...extraButtons(item)));
  } else {
    const mine = el("textarea", { rows: isCard ? 1 : 3, class: "q-mine", placeholder: isCard ? "先回想，再看答案…" : "写下你的答案…" });
    const reveal = el("button", { type: "button", class: "reveal", text: "看答案并自评" });
    const key = el("div", { class: "q-answer", hidden: true });
    const grades = el("div", { class: "row q-grades", hidden: true }, "自评：");
    const buttons = RATINGS.map(([n, label]) => el("button", { type: "button", "data-rating": String(n), text: label }));
    buttons.forEach((b) => b.addEventListener("click", () => send({ answer: mine.value, rating: Number(b.dataset.rating) }, buttons)));
    grades.append(...buttons);
    reveal.addEventListener("click", () => {
      key.textContent = isCard ? `${item.back}\n\n${item.sentence}\n${item.citation}`
        : [item.answer && `答案：${item.answer}`, item.scoring && `评分说明：${item.scoring}`, item.analysis && `解析：${item.analysis}`]
            .filter(Boolean).join("\n\n") || "资料中没有这道题的答案；请按教材自评。";
      key.hidden = false;
      grades.hidden = false;
      reveal.disabled = true;
    });
    box.append(mine, el("div", { class: "row" }, reveal, ...extraButtons(item)), key, grades);
  }
  if (!isCard && item.sections && item.sections.length) box.append(sectionLinks(item.sections.map((s) => s.path), "考查的教材章节："));
  if (isCard) box.append(el("div", { class: "note", text: item.citation }));
  box.append(result);
  return box;
}

function extraButtons(item) {
  if (item.kind === "card") return [];
  return [el("button", { type: "button", text: "问助手", onclick: () => askAbout(item) }),
          el("button", { type: "button", text: "看原卷", onclick: () => openQuestion(item) })];
}

function showResult(box, item, r) {
  box.hidden = false;
  box.className = "q-result " + r.verdict;
  box.textContent = "";
  const head = r.verdict === "right" ? "✓ 答对了" : r.verdict === "wrong" ? `✗ 答错了（你选 ${r.answer}）` : `已记录自评：${r.rating_name}`;
  box.append(el("strong", { text: head }));
  if (r.correct_answer) box.append(el("div", { text: `正确答案：${r.correct_answer}` }));
  if (r.analysis && r.verdict !== "self") box.append(el("div", { class: "q-analysis", text: `解析：${r.analysis}` }));
  box.append(el("div", { class: "note", text: `下次复习：${when(r.due)}${r.in_mistakes ? " · 已加入错题本" : ""}${r.duplicate ? " · 重复提交，未重复记录" : ""}` }));
}

// ------------------------------------------------------------------ /practice
async function loadStudyPractice() {
  const list = $("practice-list");
  const status = $("practice-status");
  list.textContent = "";
  status.textContent = "加载中…";
  const params = new URLSearchParams();
  if ($("practice-chapter").value) params.set("chapter", $("practice-chapter").value);
  if ($("practice-type").value) params.set("type", $("practice-type").value);
  params.set("limit", $("practice-limit").value || "10");
  try {
    const rows = await apiJson("/api/practice?" + params);
    let done = 0, wrong = 0;
    const tally = () => { status.textContent = `${rows.length} 道题（没做过的在前）· 已做 ${done} · 错 ${wrong}`; };
    tally();
    for (const q of rows) list.append(answerCard(q, "/api/attempts", (r) => { done += 1; wrong += r.verdict === "wrong" || r.rating <= 2; tally(); }));
  } catch (err) {
    status.textContent = err.message;
  }
}

// ------------------------------------------------------------------ /mistakes
async function loadMistakes() {
  const list = $("mistakes-list");
  const status = $("mistakes-status");
  list.textContent = "";
  status.textContent = "加载中…";
  const params = new URLSearchParams();
  if ($("mistakes-node").value) params.set("node", $("mistakes-node").value);
  if ($("mistakes-open").checked) params.set("open", "true");
  try {
    const rows = await apiJson("/api/mistakes?" + params);
    const open = rows.filter((m) => !m.fixed).length;
    status.textContent = rows.length ? `${rows.length} 条（${open} 条未改正）` : "错题本是空的";
    for (const m of rows) list.append(mistakeCard(m));
  } catch (err) {
    status.textContent = err.message;
  }
  fillNodes();
}

function mistakeCard(m) {
  const it = m.item;
  const isCard = it.kind === "card";
  const box = el("div", { class: "question mistake" + (m.fixed ? " fixed" : ""), "data-item": it.item_id },
    el("h4", { text: isCard ? `卡片 ${it.item_id}` : questionTitle(it) },
      el("span", { class: "badge " + (m.fixed ? "ok" : "bad"), text: m.fixed ? `已改正 ${when(m.fixed_at)}` : `错 ${m.wrong_count} 次` })),
    el("div", { class: "q-text", text: isCard ? cardPrompt(it.front) : it.stem }),
    el("div", { class: "note", text: `最近一次：${when(m.last_at)} · 你的答案：${m.last_answer || "（自评）"}` }));
  const key = isCard ? it.back : [it.answer && `答案：${it.answer}`, it.scoring && `评分说明：${it.scoring}`, it.analysis && `解析：${it.analysis}`].filter(Boolean).join("\n");
  if (key) box.append(el("div", { class: "q-answer", text: key }));
  if (m.changed) box.append(el("div", { class: "note warn", text: "资料中的这道题在上次做错后有改动" }));
  if (!isCard && it.sections && it.sections.length) box.append(sectionLinks(it.sections.map((s) => s.path), "考查的教材章节："));
  if (!isCard) box.append(el("div", { class: "row" }, ...extraButtons(it)));
  return box;
}

let nodesFilled = false;
async function fillNodes() {  // the filter's choices: the map's nodes (from progress), finest first by priority
  if (nodesFilled) return;
  try {
    const p = await apiJson("/api/progress?top=20");
    const list = $("mistakes-nodes");
    list.textContent = "";
    for (const n of p.nodes) list.append(el("option", { value: n.node }));
    nodesFilled = true;
  } catch (err) { /* the filter still takes free text */ }
}

// ------------------------------------------------------------------ /review
async function loadReview() {
  const list = $("review-list");
  const status = $("review-status");
  list.textContent = "";
  status.textContent = "加载中…";
  try {
    const [rows, progress] = await Promise.all([apiJson("/api/review"), apiJson("/api/progress?top=5")]);
    let left = rows.length;
    const tally = () => { status.textContent = left ? `今天待复习 ${left} 项` : "今天没有待复习的了"; };
    tally();
    for (const d of rows) {
      const card = answerCard(d.item, "/api/review", () => { left -= 1; tally(); });
      card.prepend(el("div", { class: "note due-when", text: d.new ? "新卡片" : `到期 ${when(d.due)} · ${d.state}` }));
      card.classList.add("due");
      list.append(card);
    }
    showNext(progress);
  } catch (err) {
    status.textContent = err.message;
  }
}

function showNext(p) {
  const box = $("review-next");
  box.textContent = "";
  if (!p.next.length) return;
  box.append(el("h4", { text: `下一步复习（考频 × (1 − 掌握度)）· 已做 ${p.attempts} 次，对 ${p.right}，错 ${p.wrong}` }));
  const ol = el("ol", {});
  for (const n of p.next) {
    ol.append(el("li", { "data-node": n.node },
      el("button", { type: "button", class: "link", text: `${n.node}`, title: "练这一节的真题",
        onclick: () => { history.pushState(null, "", "/practice"); show("/practice"); $("practice-chapter").value = ""; practiceOn(n); } }),
      ` 掌握度 ${Math.round(n.mastery * 100)}% · ${n.questions} 道真题`,
      n.material.length ? sectionLinks(n.material.map((m) => m.path), " 资料：") : null));
  }
  box.append(ol);
}

async function practiceOn(node) {  // a 下一步复习 node: its own questions
  const list = $("practice-list");
  list.textContent = "";
  $("practice-status").textContent = `${node.node}：${node.question_ids.length} 道题`;
  try {
    const want = new Set(node.question_ids);
    for (const q of await apiJson("/api/practice?limit=500")) if (want.has(q.item_id)) list.append(answerCard(q, "/api/attempts"));
  } catch (err) {
    $("practice-status").textContent = err.message;
  }
}

// ------------------------------------------------------------------ /map: mastery per node (map.js calls its hooks)
// Each row's heading gets a mastery mark from GET /api/progress by_node_id: the share of its placed questions
// answered well (FSRS state and attempts, pipeline/study/on_map.py); unattempted nodes stay plain. The admin
// token has no progress of its own (403): the map stays as it is.
async function markMastery(data, table) {
  let progress;
  try { progress = await apiJson("/api/progress"); } catch (err) { return; }
  const byId = progress.by_node_id || {};
  for (const row of table.querySelectorAll("tr[data-node]")) {
    const m = byId[row.dataset.node];
    const head = row.querySelector("th.node");
    if (!m || !head || m.mastery === null || m.mastery === undefined || !m.attempted) continue;
    const pct = Math.round(m.mastery * 100);
    const level = pct >= 80 ? "high" : pct >= 50 ? "mid" : "low";
    row.dataset.mastery = String(m.mastery);
    head.classList.add("mastery-" + level);
    head.append(el("span", { class: "mastery badge " + level, title: `做过 ${m.attempted} 题，错 ${m.wrong} 题`,
                              text: `掌握 ${pct}%${m.wrong ? " · 错" + m.wrong : ""}` }));
  }
}
if (typeof mapHooks !== "undefined") mapHooks.push(markMastery);

// ------------------------------------------------------------------ wiring (app.js's show() calls studyView)
window.studyView = (view) => {
  if (view === "mistakes") loadMistakes();
  else if (view === "review") loadReview();
};
$("practice-form").addEventListener("submit", (e) => { e.preventDefault(); loadStudyPractice(); });
$("mistakes-form").addEventListener("submit", (e) => { e.preventDefault(); loadMistakes(); });
$("review-reload").addEventListener("click", () => loadReview());
window.studyView(VIEWS[location.pathname]);  // app.js showed the view before this file loaded
