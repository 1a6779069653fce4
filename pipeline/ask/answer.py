"""Answer from retrieved material only, with citations, or refuse with the exact sentence.

:func:`answer` is the one composition the query service calls:

1. **refusal**: before anything else, when retrieval is weak (less than ``min_coverage`` of the
   question's content is matched in the top passages, the best BM25 score is below ``min_bm25``,
   and no past-paper question matched); except a calculation question a rule of ``calc_rules``
   computes from its own data (``calc_programs``): its program is the answer, its method cited only
   from a passage about the question, else named the standard one (:func:`_ruled_past_gate`);
2. **record**: a question that resolves to a past-paper record (``records.resolve``) is answered
   with the booklet's 答案 and 解析 verbatim, with no LLM;
3. **grounded core**: the 1–3 passage sentences that best cover the question (``keysentences``),
   streamed first when they are about the question (``core_answers``), so something true is on
   screen at once;
4. **program**: a calculation question with its own data (its wording decides, not a weakly matched
   choice record's type) is answered by a program a sandbox runs, shown with its steps (``calculate``):
   written by rule for a standard 408 calculation type (``calc_rules``: page faults, paging addresses,
   TLB, cache fields, delays…), or by the model when ``calc_model_programs``; only when every number it
   uses is one the question gives; otherwise on to 5;
5. **LLM** with the prompt for the question's kind (``prompts``), streamed sentence by sentence
   through the claim check (``claims``): a supported sentence is shown with the citation of the
   passage that backs it, an unsupported one is dropped (or marked); when the *main* claim fails,
   generation stops and the answer is the grounded core, if the core is about the question
   (``core_answers``), else the refusal. A model refusal is treated the same way. A loop (the same
   sentence again, the same step over and over: ``Checker.runaway``) stops generation at once; the
   loop is a failed claim and what was shown before it stands. When the checked
   answer leaves out part of the question that a key sentence covers, that sentence is quoted
   after it (``completion``). A contrast question (A和B的区别) gets its table (``contrast``: what the
   passages say of each side, aspect by aspect): after the checked answer, or, when the model's
   answer fails, as the answer in place of the core. A question for one thing's 特点 that a table of
   the material answers gets that thing's column, without the model (``attributes``).

From step 3 on, every step reads what the passages *assert* (``exercises.asserted_hits``): an exercise's
options its answer does not choose are no facts to quote, give the model, or rest a claim on. The
answer's ``hits`` (the passages shown and cited) stay whole.

Material is passed only inside a delimited block, so instructions inside a document stay data.
When the LLM call raises, the exception propagates (the caller prints its one-line message) with
the answer built so far attached as ``exc.partial_answer``.
"""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path
from typing import Callable, Literal, Optional

from pydantic import BaseModel

from pipeline.ask import calculate
from pipeline.ask import claims as claimcheck
from pipeline.ask import attributes, contrast, exercises, keysentences, records
from pipeline.ask.conflicts import disclosure, find_conflicts
from pipeline.ask.prompts import PROMPT_VERSION, REFUSAL, SYSTEM, build_prompt
from pipeline.ask.question import Asked, asked_of
from pipeline.ask.retrieve import Retrieval
from pipeline.ask.sentences import CITATION, containment, grams, strip_citations
from pipeline.models import Answer, Claim, ContrastTable, Hit, KeySentence

__all__ = ["REFUSAL", "SYSTEM", "PROMPT_VERSION", "AnswerConfig", "answer", "render", "should_refuse",
           "build_prompt", "order_for_context"]

# When the model's answer fails (or it refuses), the grounded core is the answer only if it is about
# the question: its best sentence covers CORE_MIN_SCORE of the question's indexed words and the
# passages cover CORE_MIN_COVERAGE of the question's characters (retrieval's coverage, which also
# counts words the index does not know: 牛顿, 泰勒). Otherwise the answer is the refusal. Measured on
# the real 408 index: the 4 out-of-scope questions that pass the retrieval check score ≤ 0.63 / ≤ 0.27
# or ≤ 0.5 / any; 30 of 34 answerable non-record dev questions pass.
CORE_MIN_SCORE = 0.6
CORE_MIN_COVERAGE = 0.5
CORE_HEAD = "原文要点："
ANSWER_HEAD = "解答："
FALLBACK_NOTE = "（生成的回答与资料不一致，已改为给出资料原文。）"
COMPLETION_HEAD = "原文补充："
NO_SOLUTION = "资料中有这道题（见参考片段），但没有它的答案与解析。"
COMPLETION_GAIN = 0.15  # of the question's (weighted) words a quoted sentence must add to the answer
COMPLETION_SAID = 0.8  # a key sentence with this share of its bigrams in the answer already is said, not added
TABLE_FIRST_ROWS = 2  # full rows a contrast table needs to be the answer without the model (contrast_table_first)


class AnswerConfig(BaseModel):
    """Knobs of one answer (the service maps settings onto these)."""

    min_coverage: float = 0.5  # refusal: see should_refuse
    min_bm25: float = 9.0
    min_passage: float = 0.35
    min_passage_weak: float = 0.55
    max_tokens: int = 300  # ~12 s of generation at 25 tok/s on 2 cores
    max_context_chars: int = 320  # material in the prompt; ~2 s of prompt reading per 100 chars (2 cores)
    key_sentences: int = keysentences.MAX_SENTENCES
    record_answers: bool = True  # resolved past-paper questions are answered from the record alone
    calc_programs: bool = True  # calculation questions with their own data: the model writes a program (calculate.py)
    calc_model_programs: bool = False  # and for one no rule recognises, the model writes the program
    calc_formulas: bool = False  # and a model program that is a formula, not a simulation's call, is shown too
    contrast_sides: bool = True  # a contrast question's table: after the checked answer, or as the answer (contrast.py)
    contrast_table_first: bool = True  # and with TABLE_FIRST_ROWS full rows, the answer without the model
    unsupported: Optional[Literal["drop", "mark"]] = None  # None: as the rules file says
    rules_file: Optional[Path] = None  # claim rules; None: pipeline/ask/claims.yaml


def order_for_context(hits: list[Hit]) -> list[Hit]:
    """Best passages at the start and the end of the context, weaker ones in the middle."""
    front, back = [], []
    for i, h in enumerate(hits):
        (front if i % 2 == 0 else back).append(h)
    return front + back[::-1]


def should_refuse(r: Retrieval, min_coverage: float, min_bm25: float, min_passage: float = 0.0,
                  min_passage_weak: float = 0.0) -> bool:
    """Refuse before any LLM call, unless the question named a past-paper question that was found:
    no passage; or too little of the question matched in the top passages (``coverage``) with a weak
    best BM25 score; or no single passage speaks about the question's rare words together
    (``passage_coverage`` below ``min_passage``, or below ``min_passage_weak`` with a weak BM25 score:
    "Redis的持久化" finds Redis in one passage and 持久化 in another). Thresholds: AskSettings."""
    if r.exact_question:
        return False
    if not r.hits:
        return True
    if r.coverage < min_coverage and r.best_bm25 < min_bm25:
        return True
    return r.passage_coverage < min_passage or (r.passage_coverage < min_passage_weak and r.best_bm25 < min_bm25)


def core_answers(keys: list[KeySentence], retrieval: Retrieval) -> bool:
    """May the grounded core stand as the answer? (see CORE_MIN_SCORE)"""
    return bool(keys) and keys[0].score >= CORE_MIN_SCORE and (
        retrieval.coverage >= CORE_MIN_COVERAGE or retrieval.exact_question)


def core_text(keys: list[KeySentence]) -> str:
    return "\n".join(f"{i}. {k.text} {k.citation}" for i, k in enumerate(keys, start=1))


def render(a: Answer) -> str:
    """The answer as shown to a student; the same text :func:`answer` streams: the body
    (:func:`_body`), then each conflict in the material, disclosed."""
    return _body(a) + "".join(f"\n{c}" for c in a.conflicts)


def _body(a: Answer) -> str:
    if a.source == "none":
        return f"{CORE_HEAD}\n{core_text(a.key_sentences)}" if a.key_sentences and a.core_shown else ""
    core = f"{CORE_HEAD}\n{core_text(a.key_sentences)}\n\n" if a.core_shown and a.key_sentences else ""
    if a.source == "grounded" and a.contrast is not None and a.contrast.answers:  # the table is the answer
        return f"{core}{table_lead(a.contrast)}{a.answer}"
    if not core:
        return a.answer or ""
    if a.source == "grounded":
        return f"{core}{ANSWER_HEAD}{FALLBACK_NOTE}"
    return f"{CORE_HEAD}\n{core_text(a.key_sentences)}\n\n{ANSWER_HEAD}{a.answer or ''}"


def table_lead(table) -> str:
    """What stands before a contrast table that is the answer: the heading, and why the model's
    answer is not shown when it failed the check."""
    return ANSWER_HEAD + (FALLBACK_NOTE if table.answers == "fallback" else "") + "\n"


class _MainClaimFailed(Exception):
    pass


class _Runaway(Exception):
    """The model repeats itself (``Checker.runaway``): generation stops at once; what was shown stands."""


class _SentenceStream:
    """Cuts streamed tokens into sentences (a citation right after the end mark stays with its
    sentence), checks each, and shows the supported ones."""

    _END = re.compile(r"[。！？；!?;]|\n")

    def __init__(self, checker: claimcheck.Checker, emit: Callable[[str], None], mode: str, mark: str,
                 labels: dict[str, str]):
        self.checker, self.emit, self.mode, self.mark, self.labels = checker, emit, mode, mark, labels
        self.buf = ""
        self.shown: list[str] = []
        self.refused = False

    def feed(self, piece: str) -> None:
        self.buf += piece
        while True:
            m = self._END.search(self.buf)
            if not m:
                return
            end = m.end()
            while True:  # citations right after the end mark belong to this sentence
                rest = self.buf[end:]
                stripped = rest.lstrip(" ")
                if not stripped or (stripped[0] == "[" and "]" not in stripped and len(stripped) < 60):
                    return  # wait: a citation may follow
                c = CITATION.match(stripped)
                if not c:
                    break
                end += len(rest) - len(stripped) + c.end()
            sentence, self.buf = self.buf[:end], self.buf[end:]
            self._done(sentence)

    def close(self) -> None:
        if self.buf.strip():
            sentence, self.buf = self.buf, ""
            self._done(sentence)

    def _done(self, sentence: str) -> None:
        if not sentence.strip():
            return
        if REFUSAL in sentence and not self.shown:
            self.refused = True
            raise _MainClaimFailed
        cites = [self.labels.get(c, c) for c in CITATION.findall(sentence)]
        claim = self.checker.add(sentence, cites)
        if claim.supported and claim.shown:  # the passage's own sentence stands in (its formula's letters said)
            text = f"{sentence[: len(sentence) - len(sentence.lstrip())]}{claim.shown}{claim.citation}"
        elif claim.supported:
            text = self._cited(sentence, claim)
        elif claim.main:
            raise _MainClaimFailed
        elif self.mode == "mark":
            text = self._cited(sentence, claim, self.mark)
        else:
            return
        if not self.shown:
            text = text.lstrip()  # as the final answer text is stripped: what streams is what is kept
        self.shown.append(text)
        self.emit(text)

    @staticmethod
    def _cited(sentence: str, claim: Claim, mark: str = "") -> str:
        """The sentence with the citation of the passage that backs it (a garbled or wrong citation
        from the model is replaced)."""
        body = strip_citations(sentence)
        lead = sentence[: len(sentence) - len(sentence.lstrip())]
        tail = "\n" if sentence.endswith("\n") else ""
        body = body.rstrip("\n")
        if claim.reason == "no claim" or not claim.citation:
            return f"{lead}{body}{mark}{tail}"
        return f"{lead}{body}{mark}{claim.citation}{tail}"


def answer(question: str, retrieval: Retrieval, llm, *, cfg: Optional[AnswerConfig] = None, vocab=None,
           on_token: Optional[Callable[[str], None]] = None, cancel: Optional[threading.Event] = None,
           min_coverage: Optional[float] = None, min_bm25: Optional[float] = None,
           max_tokens: Optional[int] = None) -> Answer:
    """Answer ``question`` from ``retrieval`` (see the module docstring). ``vocab`` is the BM25
    vocabulary (better key sentences without jieba); setting ``cancel`` stops the LLM (a client went
    away); ``min_coverage``/``min_bm25``/``max_tokens`` override ``cfg``."""
    cfg = (cfg or AnswerConfig()).model_copy(update={k: v for k, v in
                                                      {"min_coverage": min_coverage, "min_bm25": min_bm25,
                                                       "max_tokens": max_tokens}.items() if v is not None})
    t0 = time.perf_counter()
    timings: dict[str, float] = {}

    def emit(text: str) -> None:
        timings.setdefault("first_token", round(time.perf_counter() - t0, 3))
        if on_token:
            on_token(text)

    def done(a: Answer) -> Answer:
        a.timings = {**timings, "total": round(time.perf_counter() - t0, 3)}
        a.prompt_version = PROMPT_VERSION
        return a

    hits = retrieval.hits
    base = dict(question=str(question), hits=hits)
    # the one analysis of the question every step below reads (retrieval made it, with the index vocabulary)
    question = asked_of(retrieval.asked if retrieval.asked == question else question, vocab)

    def disclose() -> list[str]:
        """Conflicting numbers in the passages for what the question asks: disclosed after the
        answer (streamed as the answer's last lines), whatever the answer itself says."""
        lines = [disclosure(c) for c in find_conflicts(question, material, claimcheck.load_rules(cfg.rules_file))]
        for line in lines:
            emit(f"\n{line}")
        return lines
    if should_refuse(retrieval, cfg.min_coverage, cfg.min_bm25, cfg.min_passage, cfg.min_passage_weak):
        ruled = _ruled_past_gate(question, retrieval, cfg, vocab) if cfg.calc_programs else None
        if ruled is not None:
            emit(ruled.answer)
            return done(ruled)
        emit(REFUSAL)  # with no LLM the answer field stays empty, as the CLI's --no-llm JSON has it
        return done(Answer(**base, answer=REFUSAL if llm is not None else None, refused=True, source="refusal",
                           note="retrieval found nothing relevant enough"))
    record, strong = records.resolve(question, hits, retrieval.exact_question)
    # a weak record only leads the prompt: its type (choice) is not the question's, and a student who asked
    # without options must not be told "选C" about options never shown
    question = question.with_record(record if strong else None)
    kind = question.kind
    if record is not None and strong and cfg.record_answers and records.answerable(record):
        text = records.format_record(record)
        emit(text)
        return done(Answer(**base, answer=text, refused=False, kind=kind, record=record, source="record"))
    # what the passages assert: an exercise's unchosen options are no facts to quote, copy or rest on
    material = exercises.asserted_hits(hits)
    keys = keysentences.select(question, material, vocab, cfg.key_sentences)
    if record is not None and strong and not records.answerable(record):
        # the material has the question but not its solution (no answer booklet): other passages'
        # sentences would only look like an answer
        keys = []
        if llm is None:
            return done(Answer(**base, answer=None, refused=False, kind=kind, record=record, source="none",
                               note=NO_SOLUTION))
    if llm is None:
        # the same test as before the model speaks: sentences that are not about the question are no core
        shown = core_answers(keys, retrieval)
        if shown:
            emit(f"{CORE_HEAD}\n{core_text(keys)}")
        return done(Answer(**base, answer=None, refused=False, kind=kind, key_sentences=keys, record=record,
                           source="none", core_shown=shown, conflicts=disclose() if shown else [],
                           note=None if shown else "no passage sentence covers the question: see the passages"))
    said = _stated_difference(question, keys, material, kind, cfg)
    if said is not None:  # the material's own words on the difference: the answer, no model, no core before it
        text = contrast.render(said)
        emit(table_lead(said) + text)
        return done(Answer(**base, answer=text, refused=False, kind=kind, key_sentences=keys, record=record,
                           source="grounded", contrast=said, conflicts=disclose(),
                           note="the material states the difference: answered with its passage, without the model"))
    listed = attributes.find(question, material) if kind != "calculation" else None
    if listed is not None:  # "X的特点": X's column of the material's own table, no model
        text = attributes.render(listed)
        emit(text)
        return done(Answer(**base, answer=text, refused=False, kind=kind, key_sentences=keys, record=record,
                           source="grounded", conflicts=disclose(), note=attributes.NOTE))
    shown_core = core_answers(keys, retrieval)  # an off-topic core is not shown before the model speaks
    if shown_core:
        emit(f"{CORE_HEAD}\n{core_text(keys)}\n\n{ANSWER_HEAD}")
    program_note = None
    if cfg.calc_programs and calculate.applies(question, kind, record, strong):
        t_program, stats_before = time.perf_counter(), getattr(llm, "last_stats", None)
        try:
            text, program, program_note = calculate.solve(question, keys, hits, llm, model_programs=cfg.calc_model_programs,
                                                          formulas=cfg.calc_formulas,
                                                          cancel=cancel)
        except Exception as exc:
            exc.partial_answer = done(Answer(**base, answer=None, refused=False, kind=kind, key_sentences=keys,
                                             record=record, source="none"))
            raise
        finally:
            timings["program"] = round(time.perf_counter() - t_program, 3)
        if getattr(llm, "last_stats", None) is not stats_before:  # the model wrote it (a new call): its figures
            timings.update({f"program_{k}": v for k, v in llm_figures(llm).items()})
        if text is not None:
            emit(text)
            return done(Answer(**base, answer=text, refused=False, kind=kind, key_sentences=keys, record=record,
                               core_shown=shown_core, source="program", program=program, conflicts=disclose()))
    rules = claimcheck.load_rules(cfg.rules_file)
    table = contrast.table(question, material, rules, vocab, exercises.asserted_hits(retrieval.side_hits)) \
        if cfg.contrast_sides and kind != "calculation" else None
    if cfg.contrast_table_first and table is not None and table.full_rows >= TABLE_FIRST_ROWS \
            and contrast.asks_difference(question):
        table.answers = "alone"
        text = contrast.render(table)
        emit(table_lead(table)[len(ANSWER_HEAD) if shown_core else 0:] + text)
        return done(Answer(**base, answer=text, refused=False, kind=kind, key_sentences=keys, record=record,
                           core_shown=shown_core, source="grounded", contrast=table, conflicts=disclose(),
                           note="contrast table: answered from the material without the model"))
    # a weak record's letter is no answer to a question that shows no options: only a strong one's counts
    checker = claimcheck.Checker(material, question, record=record if strong else None, rules=rules, kind=kind)
    prompt = build_prompt(question, material, keys, record, kind, cfg.max_context_chars)
    stream = _SentenceStream(checker, emit, cfg.unsupported or rules.unsupported, rules.mark, prompt.labels)
    t_llm = time.perf_counter()

    generated: list[str] = []

    def on_llm_token(piece: str) -> None:
        timings.setdefault("llm_first_token", round(time.perf_counter() - t0, 3))
        generated.append(piece)
        stream.feed(piece)
        if checker.runaway or checker.partial(stream.buf):
            raise _Runaway  # a loop never ends well: every further token only costs time

    failed = False
    try:
        llm.complete(prompt.system, prompt.user, max_tokens=cfg.max_tokens, on_token=on_llm_token, cancel=cancel)
        stream.close()
    except _MainClaimFailed:
        failed = True
    except _Runaway:
        checker.stopped(stream.buf)  # the loop is a failed claim; its unfinished rest is not shown
        stream.buf = ""
    except Exception as exc:
        exc.partial_answer = done(Answer(**base, answer=None, refused=False, kind=kind, key_sentences=keys,
                                         record=record, claims=checker.claims, source="none"))
        raise
    finally:
        timings["llm"] = round(time.perf_counter() - t_llm, 3)
        timings.update(llm_figures(llm))
    claims = checker.claims
    checker.finish()
    common = dict(**base, kind=kind, key_sentences=keys, record=record, claims=claims, generated="".join(generated),
                  core_shown=shown_core)
    main = next((c for c in claims if c.main), None)
    if not failed and (main is None or not main.supported):
        failed = True  # nothing was said, or the main claim (known only now) failed
    if failed:
        if table is not None:  # a contrast: what the material says of each side, not one generic sentence
            table.answers = "fallback"
            text = contrast.render(table)
            emit(table_lead(table)[len(ANSWER_HEAD) if shown_core else 0:] + text)  # 解答： is out after the core
            return done(Answer(**common, answer=text, refused=False, source="grounded", contrast=table,
                               conflicts=disclose(), note="main claim not supported: answer is the contrast table"
                               if not stream.refused else "model refused: answer is the contrast table"))
        if shown_core:
            emit(FALLBACK_NOTE)
            return done(Answer(**common, answer=core_text(keys), refused=False, source="grounded", conflicts=disclose(),
                               note="main claim not supported: answer is the grounded core"
                               if not stream.refused else "model refused: answer is the grounded core"))
        emit(REFUSAL)
        return done(Answer(**common, answer=REFUSAL, refused=True, source="refusal",
                           note="model refused" if stream.refused else "main claim not supported"))
    if program_note:
        common["note"] = program_note  # why the calculation is prose
    text = "".join(stream.shown).strip()
    extra = completion(question, text, keys, vocab) if shown_core else []
    if extra:
        addition = f"\n{COMPLETION_HEAD}" + "".join(f"\n{k.text} {k.citation}" for k in extra)
        emit(addition)
        text += addition
    sides = contrast.block(table, text)
    if sides:
        emit(sides)
        text += sides
    if "[来源:" not in text and hits:
        text += "\n参考来源：" + " ".join(h.citation for h in hits[:2])
    return done(Answer(**common, answer=text, refused=False, source="llm", conflicts=disclose(),
                       contrast=table if sides else None))


def _stated_difference(question: str, keys: list[KeySentence], hits, kind: str, cfg: AnswerConfig
                       ) -> Optional[ContrastTable]:
    """The passage that states the difference a 区别 question asks about (``contrast.stated``), when
    contrasts are answered without the model (``contrast_table_first``), else None."""
    if not (cfg.contrast_sides and cfg.contrast_table_first) or kind == "calculation":
        return None
    return contrast.stated(question, keys, hits, claimcheck.load_rules(cfg.rules_file))


def _ruled_past_gate(question: Asked, retrieval: Retrieval, cfg: AnswerConfig, vocab=None) -> Optional[Answer]:
    """A calculation question a rule computes from its own data although retrieval is weak
    (``calculate.passes_gate``): its program, no model, no core; the method cited from the top key
    sentence if it is about the question (:func:`core_answers`), else ``calculate.STANDARD_METHOD``
    (no citation rather than an unrelated passage's). None: the refusal stands."""
    record, strong = records.resolve(question, retrieval.hits, retrieval.exact_question)
    if not calculate.passes_gate(question, question.with_record(record if strong else None).kind, record, strong):
        return None
    keys = keysentences.select(question, retrieval.hits, vocab, cfg.key_sentences) if retrieval.hits else []
    keys = keys[:1] if core_answers(keys, retrieval) else []
    text, program, note = calculate.solve(question, [], [], None,
                                          citation=keys[0].citation if keys else calculate.STANDARD_METHOD)
    return None if text is None else Answer(
        question=str(question), hits=retrieval.hits, answer=text, refused=False, kind="calculation", record=record,
        key_sentences=keys, source="program", program=program, note=f"{note}, past the weak-retrieval gate")


# what a backend's ``last_stats`` says of its last call, as ``Answer.timings`` keys: token counts and the
# engine's own rates, so a timing from one machine carries over to another (issue 23)
LLM_FIGURES = {"prompt_tokens": "prompt_tokens", "cached_tokens": "prompt_cached_tokens",
               "prompt_evaluated": "prompt_evaluated_tokens", "completion_tokens": "completion_tokens",
               "prefill_tok_s": "prefill_tok_s", "gen_tok_s": "gen_tok_s"}


def llm_figures(llm) -> dict[str, float]:
    """The LLM's figures of the call just made (none for a backend that keeps no stats)."""
    stats = getattr(llm, "last_stats", None) or {}
    return {key: stats[name] for name, key in LLM_FIGURES.items() if isinstance(stats.get(name), (int, float))}


def completion(question: "str | Asked", text: str, keys: list[KeySentence], vocab=None) -> list[KeySentence]:
    """Key sentences covering parts of the question the checked answer left out ("UDP首部几个字节？
    跟TCP比呢？" answered for UDP only): quoted after it, so the answer is complete from the
    material, not from the model. A key sentence is added when it raises the answer's coverage of
    the question's words by at least ``COMPLETION_GAIN``, unless the answer already says it in other
    words (``COMPLETION_SAID`` of its bigrams: "快表是慢表的副本…" then "TLB是…快表是慢表的副本…" again)."""
    terms = {t: w for t, w in keysentences.question_terms(question, vocab).items() if not keysentences.asks_for(t)}
    have, _ = keysentences.coverage(terms, text)
    said = grams(text)
    out = []
    for k in keys:
        if containment(grams(k.text), said) >= COMPLETION_SAID:
            continue
        now, _ = keysentences.coverage(terms, text + "".join(x.text for x in out) + k.text)
        if now - have >= COMPLETION_GAIN:
            out.append(k)
            have = now
    return out
