"""Refusal calibration: how many dev questions (answerable) and out-of-scope questions are refused."""
import json, sys
from pipeline.settings import load_settings
from pipeline.ask.retrieve import Retriever
from pipeline.ask.answer import should_refuse
s=load_settings(data_dir=sys.argv[1])
r=Retriever(s.data_dir,s)
def rate(path):
    qs=[json.loads(l)['question'] for l in open(path)]
    return sum(should_refuse(r.search(q), s.refuse_min_coverage, s.refuse_min_bm25) for q in qs), len(qs)
print("dev refused", rate('../shared/eval/dev.jsonl'), "out-of-scope refused", rate('bench/data/out_of_scope.jsonl'))
