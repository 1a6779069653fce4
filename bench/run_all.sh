#!/usr/bin/env bash
# Run every benchmark in order; each prints its tables and writes bench/results/<name>.json.
# A full run takes ~60-80 min on 2 busy cores (ingest ~10 min, query ~30 min the first time,
# quality ~5 min, fusion ~6 min, scaling ~20 min; the LLM enrichment ablation, bench/enrich.py, ~50 min,
# runs on its own: make bench-enrich); the synthetic data dirs under $BENCH_WORK (/tmp/examrag_bench)
# are reused by later runs. Benchmarks are not tests: nothing asserts a time.
#
#   bash bench/run_all.sh            # everything
#   bash bench/run_all.sh --no-ingest  # reuse the last ingest (or a copy of $BENCH_INGESTED)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PY="${PY:-.venv/bin/python}"
"$PY" -m pip install -q -r requirements/bench.txt
if [[ "${1:-}" != "--no-ingest" ]]; then
  "$PY" -m bench ingest
  "$PY" -m bench profile_ingest
fi
"$PY" -m bench quality
"$PY" -m bench fusion --e5
"$PY" -m bench query
"$PY" -m bench scaling
"$PY" -m bench prototypes.cold_cuts
"$PY" -m bench reports.benchmarks_md
