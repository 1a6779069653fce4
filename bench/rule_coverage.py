"""How many calculation questions of a set the calculation rules answer, and how many of those right (issue 23).

    python -m bench.rule_coverage bench/data/calc_heldout.jsonl
    python -m bench.rule_coverage bench/data/answers_set.jsonl
    python -m bench.rule_coverage bench/data/calc_rules_dev.jsonl    # rules adapted to its wordings
    python -m bench.rule_coverage bench/data/calc_rules_check.jsonl  # run once after: never adapt to it
    python -m bench.rule_coverage bench/data/calc_rules_dev2.jsonl   # second round, adapted to (issue 23)
    python -m bench.rule_coverage bench/data/calc_rules_check2.jsonl # second round, held out: never adapt to it

No index and no model: each question goes through ``calculate.solve`` with a stand-in method passage, so
the figure is the rules' own (retrieval, the refusal gate and records are what ``bench answer_set`` adds).
Scored on the set's objective keys (``bench.lib.answer_keys.score``)."""
import json
import sys

from pipeline.ask import calculate
from pipeline.models import KeySentence
from bench.lib import answer_keys as keys
path = sys.argv[1]
n = right = got = rev = 0
for l in open(path):
    d = json.loads(l)
    if d["kind"] != "calculation": continue
    n += 1
    k = [KeySentence(text="方法", chunk_id="c", citation="[来源: x|y]", score=1.0)]
    text, res, why = calculate.solve(d["question"], k, [], None)
    if text is None:
        print(d["id"], "none:", why[:80]); continue
    got += 1
    verdict = keys.score(text, d["key"]).verdict
    print(d["id"], verdict, "|", text.split("\n")[-2][:90])
    right += verdict == "right"; rev += verdict == "reversed"
print(f"{path}: {n} calc, program for {got}, right {right}, reversed {rev}")
