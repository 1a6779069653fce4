"""Check each sentence of a generated answer against the retrieved passages before it is shown.

A sentence is supported when all of these hold (rules and thresholds in ``claims.yaml``):

1. **numbers**: every number in it (with its unit, if it has one) occurs in the passages or the
   question, or is computed in the same sentence from numbers that do (``128×8/16=64``);
2. **option letters**: a named option (``选C``) is the resolved record's answer, or, with no
   record, one of the question's own option labels;
3. **polarity** (``pipeline/ask/polarity.py``): where it uses one side of an opposite pair (稳定/不稳定,
   串行/并行, 需要/不需要…) and a passage says something about the same subject with that pair, the
   passage agrees;
4. **entities**: when the question contrasts two things (进程和线程), what the answer says of one
   the passage does not say of the other only (clause by clause, and fact by fact as the contrast
   table reads them: "慢开始阶段，…是线性增长" where the passages say 线性增长 of 拥塞避免);
5. **overlap**: enough of its content occurs in one passage (plus the question);
6. **attributes** (``pipeline/ask/entities.py``): what it says of a name (开放定址法, Prim算法) the
   passages do not say only of a sibling (拉链法, Kruskal算法), and a code means what the passages
   map it to (变形补码: 10 is 负溢出, not 无溢出);
7. **invented terms**: a Latin name (PID, TLB) or a letter formula (⌈n/2⌉, m-1) it uses occurs in
   the passages or the question (a unit after a number is the number rule's): the model's own
   knowledge shows as a name the material never uses ("系统靠进程ID（PID）知道进程存在", where the
   material says PCB);
8. **transplanted subject**: when a passage says what the sentence predicates (≥ ``TRANSPLANT_SAID``
   of its words) but no passage saying it names the sentence's subject, the sentence moved a fact onto
   another thing ("虚拟存储器是通过将…存放在…Cache中": the passage says it of 高速缓冲技术);
9. **letters said** (``pipeline/ask/letters.py``): a formula's letter (``m+1次``) is one the question
   or the answer so far says outside a formula (``m级``): an answer whose formula no student can read
   is no answer;
10. **the asked slot** (``pipeline/ask/slots.py``): a sentence restating the question fills the count
    it asks (几位) with a count, not a share (``能查出50%错``);
11. **one predicate, two sides** (``pipeline/ask/sides.py``): asked how two things differ, a sentence
    does not say the same of both (``栈是一种只允许从一端插入和删除的线性表，而队列是一种只允许…``).

Polarity terms inside a name (慢启动, 快速排序: ``pipeline/ask/names.py``) are no claim. A sentence
the stream already said (or the same step again and again: ``pipeline/ask/repetition.py``) is a
failed claim, and :attr:`Checker.runaway` tells the answer path to stop generating. :func:`check`
runs the same :class:`Checker` the answer path streams through, so one rule picks the main claim.

The rules file's shape and loader are ``pipeline/ask/claim_rules.py``.

The small model's typical failures are exactly these: an invented number (满分100分), the opposite
of the passage (快速排序稳定), the two compared things swapped, a wrong letter, a sentence from its
own knowledge.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from pipeline.ask import numbers
from pipeline.ask.calculate import given_numbers, gives_numbers
from pipeline.ask.causes import transplanted_cause
# the rules' models and the polarity rule live in their own modules; named here too, as callers use them
from pipeline.ask.claim_rules import (DEFAULT_RULES_FILE, CauseRules, ClaimRules, OptionRules,  # noqa: F401
                                      OverlapRules, PolarityPair, PolarityRules, load_rules)
from pipeline.ask.polarity import check_polarity, coordinated, polarity_terms  # noqa: F401
from pipeline.ask.question import Asked, asked_of, question_kind
from pipeline.ask.glosses import gloss_only
from pipeline.ask.letters import passage_saying, unsaid_letter
from pipeline.ask.sides import same_of_both
from pipeline.ask.slots import share_for_count
from pipeline.ask.entities import (Facts, check_attributes, check_entities, clauses, question_entities)
from pipeline.ask.names import Namer, namer
from pipeline.ask.repetition import RepetitionGuard
from pipeline.ask.sentences import (CITATION, containment, content, grams, normalise, novelty, subject_grams,
                                    split_sentences, strip_citations)
from pipeline.models import Claim, Hit, RecordAnswer
from pipeline.rulefiles import PatternTimeout, compiled

MIN_NOVELTY = 0.2  # a sentence with less content beyond the question's own words is not the main claim
WINDOW_FACTOR = 1.5  # a stretch of passage 1.5 times the sentence's length…
WINDOW_MIN = 30  # …and at least 30 chars
WINDOW_STEP = 8
QUOTE_CHARS = 8  # a sentence this long found word for word in a passage is supported as a quote


# ---------------------------------------------------------------- evidence


@dataclass
class Evidence:
    """What the answer may rest on, prepared once per answer."""

    hits: list[Hit]
    question: str
    record: Optional[RecordAnswer] = None
    hay: str = ""  # passages + question, normalised, no whitespace
    hay_low: str = ""  # the same, lower-cased (names: PID, pcb)
    material: str = ""  # the same with its whitespace (it separates words: "20B - UDP")
    q_hay: str = ""  # the question alone, the same way
    hit_grams: list[set[str]] = field(default_factory=list)
    question_grams: set[str] = field(default_factory=set)
    units: list[tuple[str, Hit]] = field(default_factory=list)  # passage lines, for polarity
    labels: set[str] = field(default_factory=set)  # option labels in the question
    entities: list[str] = field(default_factory=list)  # the two things the question contrasts
    clauses: list[str] = field(default_factory=list)  # passage clauses, for swaps
    hit_texts: list[str] = field(default_factory=list)  # passages as content, no whitespace (quotes)
    namer: Optional[Namer] = None  # the names of the rules (entities, polarity)
    rules: Optional["ClaimRules"] = None
    _facts: Optional[Facts] = None
    _calculation: Optional[tuple] = None  # calculation_inputs(), () when the question is no calculation
    _gives_numbers: Optional[bool] = None  # gives_numbers()
    side_facts: Optional[list] = None  # what the passages say of each contrasted thing (entities.check_side_facts)

    @classmethod
    def build(cls, hits: list[Hit], question: "str | Asked", rules: ClaimRules, record: Optional[RecordAnswer] = None):
        question = asked_of(question)
        ev = cls(hits=hits, question=question, record=record)
        ev.material = normalise("\n".join([h.text for h in hits] + [question]))
        ev.hay = _squash(ev.material)
        ev.hay_low = ev.hay.lower()
        ev.q_hay = _squash(question.norm)
        ev.hit_grams = [grams(h.text) for h in hits]
        ev.hit_texts = [_squash(content(h.text)) for h in hits]
        ev.question_grams = question.content_grams
        ev.units = [(normalise(line), h) for h in hits for line in re.split(r"[\n。！？]", h.text) if line.strip()]
        ev.labels = set(compiled(rules.options.label_pattern, re.M).findall(question.norm))
        ev.entities = question_entities(question, rules)
        if ev.entities:
            ev.clauses = [c for h in hits for c in clauses(h.text, rules)]
        ev.namer = namer(rules.names)
        ev.rules = rules
        return ev

    def calculation_inputs(self) -> Optional[tuple[list[str], list[str]]]:
        """(the passages squashed, the numbers the question gives) when it is a calculation question,
        else None; worked out once per answer, not per sentence."""
        if self._calculation is None:
            asked = asked_of(self.question)
            if (asked.kind or question_kind(asked.norm)) != "calculation":
                self._calculation = ()
            else:
                self._calculation = ([_squash(normalise(h.text)) for h in self.hits], given_numbers(asked))
        return self._calculation or None

    def gives_numbers(self) -> bool:
        """Does the question give any number (past a year or 408) or spell a count (三个)? Once per answer."""
        if self._gives_numbers is None:
            self._gives_numbers = gives_numbers(asked_of(self.question))
        return self._gives_numbers

    @property
    def question_names(self) -> set[str]:
        """The names the question mentions (their one spelling: ``Namer.key``)."""
        return {self.namer.key(n) for _, _, n in self.namer.find(asked_of(self.question).norm)}

    @property
    def facts(self) -> Facts:
        """What the passages say of each name and map each code to (built on first use)."""
        if self._facts is None:
            self._facts = Facts.build([h.text for h in self.hits], self.namer, self.rules)
        return self._facts

    def record_letters(self) -> set[str]:
        if not self.record or not self.record.answer:
            return set()
        ans = normalise(self.record.answer).strip()
        if re.fullmatch(r"[A-D](?:\s*[、,，和]\s*[A-D])*\s*[。.]?", ans) or self.record.qtype == "choice":
            return set(re.findall(r"[A-D]", ans[:12]))
        return set()


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


# ---------------------------------------------------------------- sentences of an answer


def answer_sentences(text: str) -> list[tuple[str, list[str]]]:
    """(sentence, citations) pairs; a citation that opens a line belongs to the sentence before."""
    out: list[tuple[str, list[str]]] = []
    for s in split_sentences(text):
        cites = CITATION.findall(s)
        body = strip_citations(s)
        if not body.strip(" 。，,.;；") and out:
            out[-1][1].extend(cites)
            continue
        out.append((s, cites))
    return out


# ---------------------------------------------------------------- the rules


def check_numbers(sentence: str, ev: Evidence, rules: ClaimRules) -> Optional[str]:
    """None when every number is backed (``pipeline.ask.numbers``), else the reason."""
    return numbers.check_numbers(sentence, ev.hay, ev.q_hay, rules.numbers, ev.material)


def check_example_numbers(sentence: str, ev: Evidence, rules: ClaimRules) -> Optional[str]:
    """A calculation question with its own data: a result only another worked example gives is not
    this question's (``numbers.check_example_numbers``); a question with no numbers at all: arithmetic
    over concrete numbers is some example's (``numbers.check_general_arithmetic``)."""
    if not ev.gives_numbers():
        return numbers.check_general_arithmetic(sentence, rules.numbers)
    inputs = ev.calculation_inputs()
    return numbers.check_example_numbers(sentence, inputs[0], inputs[1], rules.numbers) if inputs else None


# a Latin name of two or more letters, not a unit right after a number ("64KB", "51.2 μs")
_LATIN_NAME = re.compile(r"(?<![A-Za-z0-9.])[A-Za-z]{2,}(?![A-Za-z])")
# a formula over a one-letter variable: n/2, m-1, 2^n, n+1 (not a word: "TCP-IP")
_LETTER_FORMULA = re.compile(r"(?<![A-Za-z0-9])(?:[A-Za-z]\s*[-+*/^]\s*\d+|\d+\s*[-+*/^]\s*[A-Za-z])(?![A-Za-z0-9])")


def check_invented(sentence: str, ev: Evidence) -> Optional[str]:
    """A Latin name or letter formula the passages and the question never use (rule 7)."""
    text = normalise(strip_citations(sentence))
    for m in _LETTER_FORMULA.finditer(text):
        if _squash(m.group()).lower() not in ev.hay_low:
            return f"invented: formula {m.group()} is in no passage"
    for m in _LATIN_NAME.finditer(text):
        if m.group().lower() not in ev.hay_low:
            return f"invented: {m.group()} is in no passage"
    return None


# "X是/指/通过/用于…": the subject before the first of these (2–14 chars), what is said of it after
_PREDICATE = re.compile(r"是|指|通过|用于|能够|可以")
TRANSPLANT_SAID = 0.9  # share of the predicate's words one passage holds: it says this, word for word
TRANSPLANT_NEAR = 0.7  # …and any passage holding this share may be the one that names the subject
TRANSPLANT_MIN_GRAMS = 8  # a shorter predicate ("是稳定的") is said of many things


def check_transplant(sentence: str, ev: Evidence) -> Optional[str]:
    """A passage's predicate said of a subject no passage saying it names (rule 8)."""
    text = normalise(strip_citations(sentence))
    m = _PREDICATE.search(text)
    if not m or not 2 <= m.start() <= 14:
        return None
    subject, said = subject_grams(text[:m.start()]), grams(text[m.end():])
    if not subject or len(said) < TRANSPLANT_MIN_GRAMS:
        return None
    shares = [containment(said, g) for g in ev.hit_grams]
    if max(shares, default=0.0) < TRANSPLANT_SAID:
        return None
    if any(share >= TRANSPLANT_NEAR and subject & subject_grams(h.text) for share, h in zip(shares, ev.hits)):
        return None
    return f"transplanted: the passage says this, but not of {text[:m.start()]}"


def check_options(sentence: str, ev: Evidence, rules: ClaimRules) -> Optional[str]:
    """An option letter must be the (strong) record's answer or one of the question's own options: a
    weak record's options were never shown to a student who asked without them."""
    text = normalise(strip_citations(sentence))
    letters: set[str] = set()
    for p in rules.options.claim_patterns:
        letters.update(compiled(p, re.M).findall(text))
    if not letters:
        return None
    allowed = ev.record_letters()
    if allowed:
        bad = letters - allowed
        return f"option {''.join(sorted(bad))} but the record's answer is {''.join(sorted(allowed))}" if bad else None
    if ev.labels:
        bad = letters - ev.labels
        return f"option {''.join(sorted(bad))} is not an option of the question" if bad else None
    return f"option {''.join(sorted(letters))} not backed by a record's answer or the question's options"


def check_overlap(sentence: str, citations: list[str], ev: Evidence,
                  rules: ClaimRules) -> tuple[Optional[str], Optional[Hit]]:
    """(reason or None, the passage that backs the sentence best)."""
    g = grams(sentence)
    if not ev.hits:
        return "no passages", None
    scores = [containment(g, hg) for hg in ev.hit_grams]
    cited = [i for i, h in enumerate(ev.hits) if h.citation in citations]
    order = sorted(range(len(ev.hits)), key=lambda i: (i not in cited, -scores[i]))
    best = max(range(len(ev.hits)), key=lambda i: scores[i])
    if len(g) < rules.overlap.min_grams:
        return None, ev.hits[order[0]] if cited else ev.hits[best]
    local = 0.0
    for i in order:
        with_q = containment(g, ev.hit_grams[i] | ev.question_grams)
        if scores[i] >= rules.overlap.min_passage and with_q >= rules.overlap.min_with_question:
            local = max(local, window_overlap(sentence, g, ev.hits[i].text, ev.question_grams))
            if local >= rules.overlap.min_window:
                return None, ev.hits[i]
    with_q = containment(g, ev.hit_grams[best] | ev.question_grams)
    if with_q >= rules.overlap.min_with_question:
        return (f"words scattered over the passage: {local:.2f} in one stretch, below "
                f"{rules.overlap.min_window}"), ev.hits[best]
    return (f"overlap {scores[best]:.2f}/{with_q:.2f} with the best passage, below "
            f"{rules.overlap.min_passage}/{rules.overlap.min_with_question}"), ev.hits[best]


def window_overlap(sentence: str, g: set[str], passage: str, question_grams: set[str]) -> float:
    """Best share of the sentence's words (the question's allowed) found within one stretch of the
    passage 1.5 times the sentence's length: a paraphrase keeps its words together, a sentence
    assembled from domain words strewn over a chunk does not."""
    size = max(WINDOW_MIN, int(len(strip_citations(sentence)) * WINDOW_FACTOR))
    best = 0.0
    for start in range(0, max(1, len(passage) - size + 1), WINDOW_STEP):
        best = max(best, containment(g, grams(passage[start:start + size]) | question_grams))
        if best >= 1.0:
            break
    return best


def check_cause(sentence: str, hit: Optional[Hit], hits: list[Hit], rules: ClaimRules) -> Optional[str]:
    """A cause or purpose the sentence gives ("两次握手不够是因为前两次握手消耗序号") that the passage backing
    it does not give: its facts may be there, the "because" is the model's (``cause`` in the rules); or
    one a passage gives for something else (``causes.transplanted_cause``)."""
    cause = rules.cause
    if hit is None or not cause.claim or not cause.passage:
        return None
    text = normalise(strip_citations(sentence))
    said = next((m for p in cause.claim for m in [compiled(p).search(text)] if m), None)
    if said is None:
        return None
    passage = normalise(hit.text)
    if not any(compiled(p).search(passage) for p in cause.passage):
        return f"gives a cause ({said.group()}) the passage does not give"
    return transplanted_cause(sentence, [(" ".join(h.chapter_path), h.text) for h in hits], cause.claim,
                              cause.said_share, cause.effect_share)


def check_sentence(sentence: str, citations: list[str], ev: Evidence, rules: ClaimRules) -> Claim:
    """The verdict on one sentence. A rules-file pattern that runs over its time bound fails the
    sentence (a sentence no rule could check is not shown as supported)."""
    try:
        return _verdict(sentence, citations, ev, rules)
    except PatternTimeout as exc:
        return Claim(text=strip_citations(sentence), supported=False, reason=f"unchecked: {exc}")


def check_exercise_talk(sentence: str, ev: Evidence, rules: ClaimRules) -> Optional[str]:
    """A sentence about an exercise (`根据题目，发送方已经发送了编号为0到3的帧`) when the student asked about
    none (no past-paper record, no 题 in the question): it answers that exercise, not the question."""
    if ev.record is not None or "题" in asked_of(ev.question).norm:
        return None
    for p in rules.options.exercise_talk:
        m = compiled(p).search(normalise(strip_citations(sentence)))
        if m:
            return f"speaks of an exercise ({m.group()}), the question is none"
    return None


def _verdict(sentence: str, citations: list[str], ev: Evidence, rules: ClaimRules) -> Claim:
    talk = check_exercise_talk(sentence, ev, rules)
    if talk:
        return Claim(text=strip_citations(sentence), supported=False, reason=talk)
    quoted = _squash(content(sentence))
    if len(quoted) >= QUOTE_CHARS:
        for h, text in zip(ev.hits, ev.hit_texts):
            if quoted in text:  # a passage's own words (the grounded core, a copied sentence)
                # but a worked example's sentence copied into another calculation is that example's result
                other = check_example_numbers(sentence, ev, rules)
                return Claim(text=strip_citations(sentence), supported=other is None, reason=other or "quoted",
                             citation=h.citation)
    reason_overlap, hit = check_overlap(sentence, citations, ev, rules)
    reason = (check_options(sentence, ev, rules) or check_numbers(sentence, ev, rules)
              or check_example_numbers(sentence, ev, rules)
              or check_polarity(sentence, ev, rules) or check_entities(sentence, ev, rules) or reason_overlap
              or check_invented(sentence, ev) or check_transplant(sentence, ev)
              or check_attributes(sentence, ev, rules) or check_cause(sentence, hit, ev.hits, rules)
              or gloss_only(sentence, ev.question, ev.hits))
    return Claim(text=strip_citations(sentence), supported=reason is None, reason=reason or "",
                 citation=hit.citation if hit else None)


# a sentence that only announces what follows ("设置缓冲区的原因有以下几点："): shown alone (the points
# after it dropped by the check) it answered nothing, yet it counted as the main claim
_LEAD_IN = re.compile(r"(?:(?:以下|如下|下面)的?(?:几点|几个方面|几种|几条|内容|原因|特点|步骤)?|几点|几个方面|几条|包括|分为|主要有)[：:]\s*$")


def is_filler(sentence: str, rules: ClaimRules) -> bool:
    """Headings and connectives (答案：, 综上：) and lead-ins ("原因有以下几点：") that state nothing, name no
    option and take no side."""
    body = normalise(strip_citations(sentence))
    if names_option(body, rules):
        return False
    if _LEAD_IN.search(body):
        return True
    if any(polarity_terms(body, pair, rules) for pair in rules.polarity.pairs if not pair.only_alone):
        return False
    return len(grams(body)) < 2 and not re.search(r"\d", body)


def names_option(text: str, rules: ClaimRules) -> bool:
    """Does ``text`` name an option letter (选C, 答案是B)?"""
    text = normalise(text)
    return any(compiled(p, re.M).search(text) for p in rules.options.claim_patterns)


def check(answer_text: str, hits: list[Hit], question: "str | Asked", *, record: Optional[RecordAnswer] = None,
          rules: Optional[ClaimRules] = None, kind: Optional[str] = None) -> list[Claim]:
    """One :class:`Claim` per sentence of ``answer_text``, by the :class:`Checker` the answer path
    streams through, so what is tested and evaluated is what a student gets (issue 20)."""
    checker = Checker(hits, question, record=record, rules=rules, kind=kind)
    for sentence, cites in answer_sentences(answer_text):
        checker.add(sentence, cites)
    checker.finish()
    return checker.claims


class Checker:
    """Checks an answer sentence by sentence as it streams, and decides which sentence is the main
    claim: the first that states something beyond the question (for a choice question: the first
    naming an option); a supported sentence that only restates the question is marked so."""

    def __init__(self, hits: list[Hit], question: "str | Asked", *, record: Optional[RecordAnswer] = None,
                 rules: Optional[ClaimRules] = None, kind: Optional[str] = None):
        self.rules = rules or load_rules()
        self.ev = Evidence.build(hits, question, self.rules, record)
        self.kind = kind
        self.claims: list[Claim] = []
        self.guard = RepetitionGuard(self.rules.repetition)

    @property
    def runaway(self) -> Optional[str]:
        """Why the stream is looping (the first loop found), or None: stop generating at once."""
        return self.guard.reason

    def partial(self, pending: str) -> Optional[str]:
        """Why the unfinished rest of the stream (after the last finished sentence) is a loop, or
        None; cheap enough to call on every token."""
        return self.guard.partial(pending)

    def add(self, sentence: str, citations: list[str]) -> Claim:
        looping = self.guard.sentence(sentence)
        if looping:
            claim = Claim(text=strip_citations(sentence), supported=False, reason=f"runaway: {looping}")
        elif is_filler(sentence, self.rules):
            claim = Claim(text=strip_citations(sentence), supported=True, reason="no claim")
        else:
            claim = check_sentence(sentence, citations, self.ev, self.rules)
            claim = self._readable(sentence, claim)
            if not any(c.main for c in self.claims) and self._can_be_main(claim):
                claim.main = True
            if claim.supported and not claim.main and novelty(sentence, self.ev.question) < MIN_NOVELTY:
                claim.reason = claim.reason or "restates the question"
        self.claims.append(claim)
        return claim

    def _readable(self, sentence: str, claim: Claim) -> Claim:
        """A supported sentence a student cannot read as an answer fails (rules 9–11); one whose
        formula letters it never says is replaced by the passage's sentence that says them, if any."""
        if not claim.supported:
            return claim
        said = "".join(c.shown or c.text for c in self.claims if c.supported)
        unsaid = unsaid_letter(sentence, said, self.ev.question)
        if unsaid:
            quote = passage_saying(sentence, self.ev.hits)
            if quote is not None:
                return Claim(text=claim.text, supported=True, reason=f"quoted instead: {unsaid}",
                             citation=quote[1].citation, shown=quote[0])
            return Claim(text=claim.text, supported=False, reason=unsaid, citation=claim.citation)
        why = share_for_count(sentence, self.ev.question) or same_of_both(sentence, self.ev.question)
        if why:
            return Claim(text=claim.text, supported=False, reason=why, citation=claim.citation)
        return claim

    def stopped(self, pending: str) -> None:
        """Generation was stopped on a loop: record it as a failed claim, unless the finished sentence
        that showed it already is one (a loop seen in the unfinished ``pending`` text has none)."""
        if self.claims and self.claims[-1].reason.startswith("runaway"):
            return
        self.claims.append(Claim(text=strip_citations(pending).strip(), supported=False,
                                 reason=f"runaway: {self.runaway}"))

    def finish(self) -> Optional[Claim]:
        """The main claim, once the answer is complete. If no sentence could be it while streaming
        (a choice answer naming no option), the first stating something beyond the question is;
        with none, there is no main claim (the answer only restated the question)."""
        main = next((c for c in self.claims if c.main), None)
        if main is None:
            main = next((c for c in self.claims if c.reason not in ("no claim", "restates the question")), None)
            if main is not None:
                main.main = True
        return main

    def _can_be_main(self, claim: Claim) -> bool:
        if novelty(claim.text, self.ev.question) < MIN_NOVELTY:
            return False  # "B树和B+树查找方式不同。" says nothing the question did not
        return self.kind != "choice" or names_option(claim.text, self.rules)
