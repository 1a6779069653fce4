"""Place every chunk of the index on the syllabus tree: ``syllabus_path`` (subject › chapter › section)
and a confidence. A pure function of the tree, the chunks and the rules.

Two passes; every weight is in ``rules.yaml`` (``placement``):

1. **Material** (textbook and notes chunks). Notes are organised like the syllabus, so the heading path
   is the main evidence: each heading against every item's title (chapter, section and point: the
   heading ``4.2拓扑排序`` names the point ``3.拓扑排序`` of ``四、图``), the outer headings weighing
   more for the chapter (a file titled ``图`` is about 图 even where a subsection says 排序) and the
   inner ones for the section. Then the chunk's text against the items' own words, and the subject its
   file names (``Data-Structrue/``, ``操作系统笔记.md``).
2. **Past-paper questions.** Each chapter's and section's *profile* is its items' own words plus the
   centroid of the material placed there in pass 1 (so ``判定树`` and ``ASL`` speak for 折半查找 though the
   syllabus never says them). Evidence: the question's text against the profiles (the booklet's 考查 line
   weighs most, then the stem, options and analysis), where its nearest material chunks sit, the places
   of the notes sections it is linked to (``Chunk.chapter_paths``, pipeline/index/links.py), and, as a
   prior, the subject its number has in the other years' papers.

The subject is decided first, then the chapter within it, then a section only when one clearly leads.
A confidence is the margin of the chosen place over the runner-up (0 for a tie, 1 when nothing else has
evidence). A comprehensive question whose second chapter has nearly as much evidence carries both.
"""

from __future__ import annotations

import re
from typing import Optional

import numpy as np

from pipeline.models import PATH_SEP, Chunk
from pipeline.syllabus.features import Vectorizer, normalise_rows, terms
from pipeline.syllabus.models import ChunkPlacement, Placement, Syllabus, SyllabusNode
from pipeline.syllabus.parts import QuestionParts, question_parts, question_points
from pipeline.syllabus.rules import SyllabusRules, name_variants

PLACEMENT_VERSION = "place-6"
MATERIAL_KINDS = ("textbook", "note")
LINK_RANK_WEIGHTS = (1.0, 0.6, 0.4)  # the question's best linked section counts most
OUTER_DECAY = 0.7  # chapter evidence of a heading: × 0.7 per level below the outermost
POINT_WEIGHT = 0.8  # a point's title (1.顺序存储) against a chapter's or section's own
EXACT_BONUS = 0.25  # an exact inner heading against the outermost one, per level deeper
AMBIGUOUS_MATCH = 0.5
PRIOR_MIN_MARGIN = 0.3  # questions whose subject is this clear teach the number prior
PRIOR_MIN_YEARS = 3
NEIGHBOURS = 10  # material chunks nearest to a question that vote for their chapters  # other years needed before the prior is learnt from the papers  # a heading this close to items of two chapters names neither exactly

_HEADING_NOISE = re.compile(r"^[\d.\s、]+|【[^】]*】|[❗!]|习题$")


# ---------------------------------------------------------------- the tree as arrays
class TreeIndex:
    """Every node below the subjects (chapters, sections, points) in the syllabus's order, with the
    chapter and section each belongs to, as index arrays over one node axis."""

    def __init__(self, syllabus: Syllabus):
        self.nodes: list[SyllabusNode] = []
        self.paths: list[list[SyllabusNode]] = []
        chapter, section, level = [], [], []
        self.chapters: list[int] = []  # node index of each chapter
        self.subject_of_chapter: list[str] = []
        for node, path in syllabus.walk():
            if node.level == 0:
                continue
            i = len(self.nodes)
            self.nodes.append(node)
            self.paths.append(path)
            level.append(min(node.level, 3))
            if node.level == 1:
                self.chapters.append(i)
                self.subject_of_chapter.append(path[0].title)
            chapter.append(len(self.chapters) - 1)
            section.append(i if node.level == 2 else (section[-1] if node.level > 2 and section else -1))
        self.level = np.array(level)
        self.chapter = np.array(chapter)
        self.section = np.array(section)
        self.subjects = list(dict.fromkeys(self.subject_of_chapter))
        self.sections = [i for i, lv in enumerate(level) if lv == 2]

    def words(self, i: int) -> str:
        """A node's title and notes, then its descendants' (its own words count twice)."""
        node = self.nodes[i]
        out = [node.title, node.notes, node.title, node.notes]

        def down(n: SyllabusNode) -> None:
            for c in n.children:
                out.extend([c.title, c.notes])
                down(c)

        down(node)
        return "\n".join(p for p in out if p)

    def placement(self, i: int, confidence: float) -> Placement:
        node, path = self.nodes[i], self.paths[i]
        return Placement(node_id=node.node_id, path=[n.heading for n in path], confidence=round(float(confidence), 3))

    def by_section_max(self, scores: np.ndarray) -> np.ndarray:
        """rows × nodes → rows × sections: the best score of each section or one of its points."""
        out = np.zeros((scores.shape[0], len(self.sections)))
        for k, s in enumerate(self.sections):
            out[:, k] = scores[:, self.section == s].max(axis=1)
        return out

    def by_chapter_max(self, scores: np.ndarray, mask: Optional[np.ndarray] = None) -> np.ndarray:
        """rows × nodes → rows × chapters: the best node score inside each chapter."""
        out = np.zeros((scores.shape[0], len(self.chapters)))
        for k in range(len(self.chapters)):
            cols = self.chapter == k if mask is None else (self.chapter == k) & mask
            if cols.any():
                out[:, k] = scores[:, cols].max(axis=1)
        return out


def _margin(sorted_scores: np.ndarray) -> float:
    best = float(sorted_scores[0]) if len(sorted_scores) else 0.0
    second = float(sorted_scores[1]) if len(sorted_scores) > 1 else 0.0
    return 0.0 if best <= 0 else max(0.0, min(1.0, (best - max(second, 0.0)) / best))


def _clean_heading(h: str) -> str:
    return _HEADING_NOISE.sub("", h).strip() or h


# ---------------------------------------------------------------- the two passes
class Placer:
    def __init__(self, syllabus: Syllabus, chunks: list[Chunk], rules: SyllabusRules):
        self.rules, self.p = rules, rules.placement
        self.tree = TreeIndex(syllabus)
        self.skip_doc = syllabus.doc_id
        self.material = [c for c in chunks if c.kind in MATERIAL_KINDS and c.doc_id != self.skip_doc]
        self.questions = [c for c in chunks if c.kind == "question"]
        self.other = [c for c in chunks if c.kind not in MATERIAL_KINDS and c.kind != "question"
                      and c.doc_id != self.skip_doc]
        bags = [terms(c.text) for c in self.material + self.questions + self.other]
        node_words = [terms(self.tree.words(i)) for i in range(len(self.tree.nodes))]
        headings = [terms(h) for h in dict.fromkeys(h for c in self.material for h in c.chapter_path)]
        self.vec = Vectorizer(bags + node_words + headings)  # a heading's words count even if its text lacks them
        self.bags = dict(zip([c.chunk_id for c in self.material + self.questions + self.other], bags))
        t = self.tree
        variants, owner = [], []
        for i, n in enumerate(t.nodes):
            # a part that only repeats an ancestor's name (网络层的功能 → 网络层) names nothing more specific
            above = {v for a in t.paths[i][:-1] for v in name_variants(a.title, rules)}
            names = [v for v in name_variants(n.title, rules) if v == n.title or v not in above]
            for v in names:
                variants.append(terms(v))
                owner.append(i)
        self.variants = self.vec.matrix(variants)
        self.variant_starts = np.flatnonzero(np.r_[True, np.diff(owner) != 0])  # owners are in node order
        self.variant_mass = self._mass(variants)
        self.words = self.vec.matrix(node_words)
        self.level_weight = np.where(t.level >= 3, POINT_WEIGHT, 1.0)
        self.placed_nodes = None
        self.material_matrix = self.vec.matrix([self.bags[c.chunk_id] for c in self.material])
        self.section_place: dict[str, tuple[int, float]] = {}  # joined chapter path -> (node, confidence)

    def _mass(self, bags):
        """Unnormalised idf weights of each bag's terms (a name's weight: how specific it is)."""
        from scipy.sparse import csr_matrix

        rows, cols, vals = [], [], []
        for r, bag in enumerate(bags):
            for term in bag:
                j = self.vec.vocab.get(term)
                if j is not None:
                    rows.append(r)
                    cols.append(j)
                    vals.append(self.vec.idf[j])
        return csr_matrix((vals, (rows, cols)), shape=(len(bags), len(self.vec.vocab)))

    def name_cosines(self, m) -> np.ndarray:
        """rows × nodes: each row's best cosine with any of a node's names (title or one of its parts)."""
        per_variant = (m @ self.variants.T).toarray()
        return np.maximum.reduceat(per_variant, self.variant_starts, axis=1)

    def mentions(self, bags) -> np.ndarray:
        """rows × nodes in 0..1: how specific the most specific name of the node is that the row's text
        contains (nearly) whole, against the most specific name it contains at all."""
        present = self._mass(bags)
        present.data[:] = 1.0
        covered = (present @ self.variant_mass.T).toarray()
        total = np.asarray(self.variant_mass.sum(axis=1)).ravel()
        named = np.where(covered >= self.p.mention_coverage * total, total, 0.0)
        per_node = np.maximum.reduceat(named, self.variant_starts, axis=1)
        top = per_node.max(axis=1, keepdims=True)
        top[top == 0] = 1.0
        return per_node / top

    # -- pass 1
    def _heading_scores(self, chunks: list[Chunk]) -> tuple[list[list[int]], np.ndarray]:
        """Per chunk the row numbers of its (cleaned, distinct) headings; and heading × node title cosines."""
        index: dict[str, int] = {}
        per_chunk = []
        for c in chunks:
            per_chunk.append([index.setdefault(_clean_heading(h), len(index)) for h in c.chapter_path if h.strip()])
        return per_chunk, self.name_cosines(self.vec.matrix([terms(h) for h in index]))

    def _file_subjects(self, c: Chunk) -> Optional[str]:
        found = self.rules.compiled.subjects_in(c.source)
        if not found and c.chapter_path:
            found = self.rules.compiled.subjects_in(c.chapter_path[0])
        return found[0] if len(found) == 1 else None

    def place_material(self) -> list[tuple[int, float]]:
        """(node, confidence) per material chunk; node -1 when there is no evidence. Vectorised over the
        chunks: one row per chunk, one column per chapter (or section)."""
        p, t = self.p, self.tree
        n = len(self.material)
        if not n:
            return []
        per_chunk, hs = self._heading_scores(self.material)
        head_ch_all = t.by_chapter_max(hs * self.level_weight)  # heading × chapter
        # an inner heading that names one section or point closely (a chapter's name is too broad: 线性表 ›
        # 单链表 › 5.查找 is no 查找 material), and no item of another chapter even loosely
        exact_ch_all = t.by_chapter_max(np.where((hs >= p.heading_exact) & (t.level >= 2), hs, 0.0))
        exact_ch_all[(t.by_chapter_max(hs) >= AMBIGUOUS_MATCH).sum(axis=1) > 1] = 0.0
        head_sec_all = t.by_section_max(hs)
        text = (self.material_matrix @ self.words.T).toarray()
        depth_max = max((len(h) for h in per_chunk), default=0)
        lengths = np.array([len(h) for h in per_chunk])
        head_ch = np.zeros((n, len(t.chapters)))
        head_sec = np.zeros((n, len(t.sections)))
        for d in range(depth_max):
            rows = np.flatnonzero(lengths > d)
            ids = np.array([per_chunk[j][d] for j in rows])
            # outer headings name the chapter; an exact inner one wins
            head_ch[rows] = np.maximum(head_ch[rows], OUTER_DECAY ** d * head_ch_all[ids])
            if d:
                head_ch[rows] = np.maximum(head_ch[rows], (1.0 + EXACT_BONUS * d) * exact_ch_all[ids])
            # inner headings say more about the section; the outermost (a file's title) only when alone
            inner = np.where((d == 0) & (lengths[rows] > 1), 0.0, 0.6 + 0.4 * d / np.maximum(lengths[rows] - 1, 1))
            head_sec[rows] = np.maximum(head_sec[rows], inner[:, None] * head_sec_all[ids])
        score = p.weight_heading * head_ch + t.by_chapter_max(text)
        subj_col = np.array(t.subject_of_chapter)
        for j, c in enumerate(self.material):
            subject = self._file_subjects(c)
            if subject is not None:
                score[j] += p.weight_file_subject * (subj_col == subject)
        top2 = -np.sort(-score, axis=1)[:, :2]
        best = score.argmax(axis=1)
        margin = np.where(top2[:, 0] > 0, (top2[:, 0] - top2[:, 1].clip(min=0)) / np.where(top2[:, 0] > 0, top2[:, 0], 1),
                          0.0).clip(0, 1)
        conf = margin * np.minimum(1.0, top2[:, 0] / p.min_evidence)  # a lone weak match is no evidence
        sec_score = p.weight_heading * head_sec + t.by_section_max(text)
        in_chapter = t.chapter[t.sections][None, :] == best[:, None]
        sec_score = np.where(in_chapter, sec_score, -np.inf)
        sec_best = sec_score.argmax(axis=1)
        top_sec = -np.sort(-np.where(in_chapter, sec_score, -np.inf), axis=1)[:, :2]
        second = np.where(np.isfinite(top_sec[:, 1]), top_sec[:, 1], 0.0) if top_sec.shape[1] > 1 else np.zeros(n)
        total = np.where(in_chapter, sec_score.clip(min=0), 0.0).sum(axis=1)
        share = np.where(total > 0, top_sec[:, 0].clip(min=0) / np.where(total > 0, total, 1), 0.0)
        # a section that has most of its chapter's evidence, or clearly more than the runner-up
        leads = (top_sec[:, 0] > 0) & ((share >= p.min_section_share)
                                       | (top_sec[:, 0] >= p.section_lead * second.clip(min=0)))
        out = []
        for j in range(n):
            if top2[j, 0] <= 0:
                out.append((-1, 0.0))
            elif in_chapter[j].any() and leads[j]:
                out.append((t.sections[sec_best[j]], float(conf[j])))
            else:
                out.append((t.chapters[best[j]], float(conf[j])))
        return out

    def build_profiles(self, placed: list[tuple[int, float]]) -> None:
        """Profiles of chapters and sections: own words (× weight_syllabus_words) + the centroid of the
        material placed there with at least profile_min_confidence; points keep their words."""
        from scipy.sparse import csr_matrix

        t = self.tree
        rows, cols = [], []
        for j, (node, conf) in enumerate(placed):
            if node < 0 or conf < self.p.profile_min_confidence:
                continue
            for target in {node, t.chapters[t.chapter[node]]}:
                if t.level[target] <= 2:
                    rows.append(target)
                    cols.append(j)
        assign = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(t.nodes), len(self.material)))
        centroids = normalise_rows(assign @ self.material_matrix) if self.material else assign[:, :0]
        profiles = self.words * self.p.weight_syllabus_words
        if self.material:
            profiles = profiles + centroids
        self.profiles = normalise_rows(profiles.tocsr())

    # -- pass 2
    def question_matrix(self, parts: list[QuestionParts]):
        p = self.p
        m = None
        for getter, w in ((lambda q: " ".join(q.focus), p.weight_focus), (lambda q: q.stem, p.weight_stem),
                          (lambda q: q.options, p.weight_options), (lambda q: q.analysis, p.weight_analysis)):
            part = self.vec.matrix([terms(getter(q)) for q in parts], [w] * len(parts))
            m = part if m is None else m + part
        return normalise_rows(m)

    def link_votes(self, c: Chunk) -> tuple[np.ndarray, np.ndarray]:
        """Per chapter and per node, the confidence-weighted share of the question's linked sections placed
        there (a link that is unplaced, or placed with little confidence, lends little)."""
        t = self.tree
        chapters, nodes = np.zeros(len(t.chapters)), np.zeros(len(t.nodes))
        links = c.chapter_paths[: len(LINK_RANK_WEIGHTS)]
        for rank, path in enumerate(links):
            place = self.section_place.get(PATH_SEP.join(path))
            if place is not None:
                w = LINK_RANK_WEIGHTS[rank] * place[1]
                chapters[t.chapter[place[0]]] += w
                nodes[place[0]] += w
        norm = sum(LINK_RANK_WEIGHTS[: max(len(links), 1)])
        return chapters / norm, nodes / norm

    def neighbour_votes(self, qm) -> np.ndarray:
        """questions × chapters: where each question's nearest material chunks sit (each vote its cosine ×
        its placement confidence, over the neighbours' total cosine): a nearest-neighbour view of the same
        evidence the profiles average, which a big generic chapter cannot drown."""
        t = self.tree
        out = np.zeros((qm.shape[0], len(t.chapters)))
        if not self.material or self.placed_nodes is None:
            return out
        sims = (qm @ self.material_matrix.T).toarray()
        k = min(NEIGHBOURS, sims.shape[1])
        top = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        for j in range(qm.shape[0]):
            w = 0.0
            for m in top[j]:
                node, conf = self.placed_nodes[m]
                if node >= 0 and sims[j, m] > 0:
                    out[j, t.chapter[node]] += sims[j, m] * conf
                w += sims[j, m]
            if w > 0:
                out[j] /= w
        return out

    def number_priors(self, scores: list[np.ndarray]) -> list[dict[str, float]]:
        """Per question, the share of each subject among the *other years'* questions with the same number,
        as their own evidence places them (a subject margin of at least PRIOR_MIN_MARGIN). Learnt from the
        papers themselves, so a number that moved (47 was 操作系统 in one year) weighs less; with fewer than
        PRIOR_MIN_YEARS other years, the rules' ``subjects[].numbers`` stand in."""
        t = self.tree
        subj_col = np.array(t.subject_of_chapter)
        seen: dict[int, list[tuple[Optional[int], str]]] = {}
        for c, score in zip(self.questions, scores):
            if c.number is None or score.max() <= 0:
                continue
            by_subject = sorted(((score[subj_col == s].max(), s) for s in t.subjects), reverse=True)
            if _margin(np.array([v for v, _ in by_subject])) >= PRIOR_MIN_MARGIN:
                seen.setdefault(c.number, []).append((c.year, by_subject[0][1]))
        out = []
        for c in self.questions:
            others = [s for y, s in seen.get(c.number, []) if y != c.year] if c.number is not None else []
            if len({y for y, _ in seen.get(c.number, []) if y != c.year}) >= PRIOR_MIN_YEARS:
                out.append({s: others.count(s) / len(others) for s in set(others)})
            else:
                fixed = next((s.name for s in self.rules.subjects if c.number in s.number_set()), None) \
                    if c.number is not None else None
                out.append({fixed: 1.0} if fixed else {})
        return out

    def place_questions(self) -> list[list[Placement]]:
        p, t = self.p, self.tree
        if not self.questions:
            return []
        parts = [question_parts(c.text, self.rules) for c in self.questions]
        qm = self.question_matrix(parts)
        text = (qm @ self.profiles.T).toarray() * self.level_weight
        named = self.mentions([terms(" ".join(q.focus) + "\n" + q.stem) for q in parts])
        text_ch = t.by_chapter_max(text)
        subj_col = np.array(t.subject_of_chapter)
        links = [self.link_votes(c) for c in self.questions]
        knn = self.neighbour_votes(qm)
        scores = [text_ch[j] + p.weight_links * links[j][0] + p.weight_neighbours * knn[j] for j in range(len(self.questions))]
        priors = self.number_priors(scores)
        out = []
        for j, c in enumerate(self.questions):
            score, link_nodes = scores[j], links[j][1]
            top = score.max()
            if top <= 0:
                out.append([])
                continue
            subj = {s: score[subj_col == s].max() / top + p.number_prior_weight * priors[j].get(s, 0.0)
                    for s in t.subjects}
            subject = max(subj, key=lambda s: subj[s])
            subj_margin = _margin(np.array(sorted(subj.values(), reverse=True)))
            in_subject = np.flatnonzero(subj_col == subject)
            order = in_subject[np.argsort(-score[in_subject])]
            k = int(order[0])
            conf = _margin(score[order[:2]]) * (0.5 + 0.5 * subj_margin)
            section_evidence = text[j] + p.weight_links * link_nodes + p.weight_mention_section * named[j]
            places = [t.placement(self._question_section(k, section_evidence), max(conf, 0.0))]
            if (c.qtype == "comprehensive" and len(order) > 1
                    and score[order[1]] >= p.second_chapter_share * score[k]):
                k2 = int(order[1])
                places.append(t.placement(t.chapters[k2], conf * score[k2] / score[k]))
            out.append(places)
        return out

    def _question_section(self, k: int, evidence: np.ndarray) -> int:
        """The section of chapter ``k`` with the most evidence (its own or its points'), when it leads the
        runner-up by ``section_lead``; else the chapter."""
        t = self.tree
        secs = [i for i in t.sections if t.chapter[i] == k]
        if not secs:
            return t.chapters[k]
        scores = np.array([evidence[t.section == s].max() for s in secs])
        order = np.argsort(-scores)
        best = scores[order[0]]
        second = scores[order[1]] if len(secs) > 1 else 0.0
        if best <= 0 or best < self.p.section_lead * second:
            return t.chapters[k]
        return secs[int(order[0])]

    def run(self) -> list[ChunkPlacement]:
        out: list[ChunkPlacement] = []
        placed = self.place_material()
        self.placed_nodes = placed
        by_path: dict[str, list[tuple[int, float]]] = {}
        for c, (node, conf) in zip(self.material, placed):
            record = ChunkPlacement(chunk_id=c.chunk_id, kind=c.kind, source=c.source)
            if node >= 0 and conf >= self.p.min_confidence:
                record.places = [self.tree.placement(node, conf)]
                by_path.setdefault(PATH_SEP.join(c.chapter_path), []).append((node, conf))
            out.append(record)
        for path, votes in by_path.items():  # a section's place: what most of its chunks say
            counts: dict[int, float] = {}
            for node, conf in votes:
                counts[node] = counts.get(node, 0.0) + conf
            best = max(counts, key=lambda n: counts[n])
            self.section_place[path] = (best, counts[best] / len(votes))
        self.build_profiles(placed)
        for c, places in zip(self.questions, self.place_questions()):
            out.append(ChunkPlacement(chunk_id=c.chunk_id, kind=c.kind, source=c.source, year=c.year,
                                      number=c.number, qtype=c.qtype, points=question_points(c, self.rules),
                                      places=places))
        out += [ChunkPlacement(chunk_id=c.chunk_id, kind=c.kind, source=c.source) for c in self.other]
        return out


def place(syllabus: Syllabus, chunks: list[Chunk], rules: SyllabusRules) -> list[ChunkPlacement]:
    """Every chunk's places on the tree. The syllabus document's own chunks are not material (left out);
    chunks of other kinds (a paper's instructions) are listed unplaced."""
    return Placer(syllabus, chunks, rules).run()
