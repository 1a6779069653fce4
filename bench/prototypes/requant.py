"""Would another quantisation of the packaged 1.5B model read prompts faster on a 2-core AVX2 CPU? The
first model token waits for the prompt to be read, so prefill tok/s is what the ≤ 6 s target needs.

The packaged Q4_K_M file is requantised, through float32, to Q8_0 and to Q4_0 (llama.cpp repacks Q4_0
for its AVX2 matrix kernels) with the ``gguf`` package's own quantisers, then each model reads the same
prompts, interleaved round by round so all three see the same machine load: 2 threads, batch 64, one
slot, no prompt cache, 8 tokens generated. Nothing in pipeline/ changes; the files go to
$BENCH_WORK/requant (1.1 + 1.9 + 1.0 GB).

    python3 -m venv /tmp/gg && /tmp/gg/bin/pip install gguf     # the quantisers (not a project dependency)
    .venv/bin/python -m bench prototypes.requant --gguf-python /tmp/gg/bin/python [--rounds 2]

Writes bench/results/requant.json: per model, each prompt's tokens, prefill and generation tok/s.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from bench.lib import common as C

TARGETS = ("Q8_0", "Q4_0")
PROMPTS = 3  # per model per round, ~130–240 tokens each

REQUANT = r"""
import sys, numpy as np, gguf
from gguf import quants, GGMLQuantizationType as T
src, dst, target = sys.argv[1], sys.argv[2], T[sys.argv[3]]
r = gguf.GGUFReader(src)
w = gguf.GGUFWriter(dst, r.fields["general.architecture"].contents())
for f in r.fields.values():
    if f.name != "general.architecture" and not f.name.startswith("GGUF."):
        w.add_key_value(f.name, f.contents(), f.types[0],
                        sub_type=f.types[-1] if f.types[0] == gguf.GGUFValueType.ARRAY else None)
out = []
for t in r.tensors:  # every quantised tensor (Q4_K, Q6_K) through float32 to the target; norms stay F32
    data, qt = t.data, t.tensor_type
    if qt not in (T.F32, T.F16, target):
        data, qt = quants.quantize(quants.dequantize(data, qt).astype(np.float32), target), target
    out.append((t.name, data, qt))
for name, data, qt in out:
    w.add_tensor_info(name, data.shape, data.dtype, data.nbytes, qt)
w.write_header_to_file(); w.write_kv_data_to_file(); w.write_ti_data_to_file()
for _, data, _ in out:
    w.write_tensor_data(data)
w.close()
"""


def requantised(source: Path, gguf_python: str, work: Path) -> dict[str, Path]:
    work.mkdir(parents=True, exist_ok=True)
    models = {"Q4_K_M (packaged)": source}
    for target in TARGETS:
        dst = work / f"{source.stem}.{target.lower()}.gguf"
        if not dst.exists():
            subprocess.run([gguf_python, "-c", REQUANT, str(source), str(dst) + ".part", target], check=True, timeout=1800)
            (work / (dst.name + ".part")).rename(dst)
        models[target] = dst
    return models


def prompts() -> list[str]:
    notes = (C.ROOT / "data" / "raw" / "操作系统笔记.md").read_text(encoding="utf-8")
    return [f"第{i}题。资料：{notes[200 + 500 * i: 530 + 500 * i]}\n问题：进程有哪些状态？" for i in range(PROMPTS)]


def measure(models: dict[str, Path], rounds: int) -> dict[str, list[dict]]:
    from pipeline.llm.local_gguf import LocalGguf

    figures: dict[str, list[dict]] = {name: [] for name in models}
    for _ in range(rounds):
        for name, path in models.items():
            llm = LocalGguf(path, n_threads=2, slots=1, prompt_cache=False)
            try:
                llm.complete("你是助手。", "预热", max_tokens=1, temperature=0)
                for user in prompts():
                    llm.complete("你是助手。", user, max_tokens=8, temperature=0)
                    figures[name].append({k: llm.last_stats.get(k) for k in ("prompt_tokens", "prefill_tok_s", "gen_tok_s")})
            finally:
                llm.close()
    return figures


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gguf-python", default=sys.executable, help="a Python with the gguf package installed")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args(argv)
    from pipeline.llm.packaged import DEFAULT_PACKAGED, default_models_dir, model_file

    source = model_file(DEFAULT_PACKAGED, default_models_dir())
    if not source.exists():
        print(f"no packaged model at {source}: run scripts/install_llm.sh first", file=sys.stderr)
        return 1
    figures = measure(requantised(source, args.gguf_python, C.WORK / "requant"), args.rounds)
    rows = []
    for name, runs in figures.items():
        rows.append([name, len(runs), C.median([r["prompt_tokens"] for r in runs]),
                     C.median([r["prefill_tok_s"] for r in runs]), C.median([r["gen_tok_s"] for r in runs])])
    print(C.table(["model", "prompts", "tokens p50", "prefill tok/s p50", "gen tok/s p50"], rows))
    C.save("requant", {"machine": C.machine(), "figures": figures})
    return 0


if __name__ == "__main__":
    sys.exit(main())
