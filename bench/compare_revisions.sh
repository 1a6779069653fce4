#!/usr/bin/env bash
# Is a refactor behaviour-preserving? Ingest the eval corpus and the shipped sample with two
# revisions (git worktrees, this checkout's .venv), then compare what a user sees: the dev-set eval
# (bm25 and hybrid, per question), `ask --json --no-llm` on the sample (with and without --chapter),
# `chapters`, `questions`, the status counts, and every parsed artifact after a canonical dump.
#
#   bash bench/compare_revisions.sh REV_BEFORE REV_AFTER [OUT_DIR]      (~6 min per revision)
#   EVAL_DIR=DIR sets the eval set (corpus/ + dev.jsonl; default: shared/eval beside the checkout).
#   EXTRA_FILES="REV:PATH …" adds files from another revision to both worktrees (a commit that forgot a
#   file: 1bcdd6e imports pipeline/text/lines.py, which only 030e40a added).
#
# Prints one line per compared output (identical / DIFFERS); outputs stay in OUT_DIR (/tmp/compare).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="$ROOT/.venv/bin/python"
# the eval set: $EVAL_DIR, else shared/eval next to the checkout (../shared, or ../../shared from a worktree)
for EVAL in "${EVAL_DIR:-}" "$ROOT/../shared/eval" "$ROOT/../../shared/eval"; do [[ -n "$EVAL" && -d "$EVAL/corpus" ]] && break; done
[[ -d "$EVAL/corpus" ]] || { echo "no eval corpus: set EVAL_DIR to the folder holding corpus/ and dev.jsonl" >&2; exit 2; }
CORPUS="$(cd "$EVAL/corpus" && pwd)"
DEV="$(cd "$EVAL" && pwd)/dev.jsonl"
OUT="${3:-/tmp/compare}"
QUESTIONS=("折半查找的时间复杂度是多少？" "B树和B+树的区别是什么" "2024年第41题" "银行家算法" "TCP三次握手" "2022年世界杯冠军是哪个国家")
export EXAMRAG_LLM_BACKEND=none
for side in before:$1 after:$2; do
  name=${side%%:*}; rev=${side#*:}; wt="$OUT/wt-$name"; out="$OUT/$name"
  rm -rf "$out"; git -C "$ROOT" worktree remove --force "$wt" 2>/dev/null; rm -rf "$wt"
  git -C "$ROOT" worktree add -f --detach "$wt" "$rev" >/dev/null || exit 1
  mkdir -p "$out"; cd "$wt" || exit 1
  for extra in ${EXTRA_FILES:-}; do
    [[ -e "${extra#*:}" ]] || { mkdir -p "$(dirname "${extra#*:}")" && git -C "$ROOT" show "$extra" > "${extra#*:}"; }
  done
  EXAMRAG_DATA_DIR="$out/corpus" "$PY" cli.py ingest "$CORPUS" -q > "$out/ingest-corpus.txt" 2>&1
  EXAMRAG_DATA_DIR="$out/corpus" "$PY" cli.py eval "$DEV" > "$out/eval.txt" 2>&1
  EXAMRAG_DATA_DIR="$out/corpus" "$PY" cli.py eval "$DEV" --json > "$out/eval.jsonl" 2>&1
  EXAMRAG_DATA_DIR="$out/corpus" "$PY" cli.py eval "$DEV" --mode hybrid > "$out/eval-hybrid.txt" 2>&1
  EXAMRAG_DATA_DIR="$out/sample" "$PY" cli.py ingest data/raw -q > "$out/ingest-sample.txt" 2>&1
  for i in "${!QUESTIONS[@]}"; do
    EXAMRAG_DATA_DIR="$out/sample" "$PY" cli.py ask --json --no-llm "${QUESTIONS[$i]}" > "$out/ask-$i.json" 2>&1
    EXAMRAG_DATA_DIR="$out/sample" "$PY" cli.py ask --json --no-llm --chapter 查找 "${QUESTIONS[$i]}" > "$out/ask-chapter-$i.json" 2>&1
  done
  EXAMRAG_DATA_DIR="$out/sample" "$PY" cli.py chapters --json > "$out/chapters.json" 2>&1
  EXAMRAG_DATA_DIR="$out/sample" "$PY" cli.py questions --json > "$out/questions.json" 2>&1
  for d in corpus sample; do
    EXAMRAG_DATA_DIR="$out/$d" "$PY" cli.py status --json | "$PY" -c "import json,sys; print(json.dumps(json.load(sys.stdin)['counts'], sort_keys=True))" > "$out/counts-$d.json"
    "$PY" - "$out/$d/parsed" > "$out/parsed-$d.txt" <<'PYEOF'
import hashlib, json, sys
from pathlib import Path
for f in sorted(Path(sys.argv[1]).glob("*.json")):  # canonical dump: sorted keys, no write time
    doc = json.loads(f.read_text("utf-8"))
    doc.pop("created_at", None)
    print(f.name, hashlib.sha256(json.dumps(doc, sort_keys=True, ensure_ascii=False).encode()).hexdigest())
PYEOF
  done
  echo "$name ($rev): $(tail -1 "$out/ingest-corpus.txt")"
done
cd "$OUT"
for f in $(cd before && ls *.txt *.json *.jsonl | grep -v '^ingest'); do
  if [[ "$f" == eval.jsonl ]]; then  # per-question rows carry timings
    cmp -s <(grep -v '"seconds"' "before/$f") <(grep -v '"seconds"' "after/$f") && r=identical || r=DIFFERS
  elif [[ "$f" == ask-*.json ]]; then  # so do answers (since issue 23): compare without them
    drop='import json,sys; d=json.load(open(sys.argv[1])); d.pop("timings",None); print(json.dumps(d,sort_keys=True))'
    cmp -s <("$PY" -c "$drop" "before/$f") <("$PY" -c "$drop" "after/$f") && r=identical || r=DIFFERS
  else
    cmp -s "before/$f" "after/$f" && r=identical || r=DIFFERS
  fi
  echo "$r  $f"
done
