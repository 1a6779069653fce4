"""Prefill and generation speed of the packaged model against re-quantized copies and other batch sizes, on
the answer prompts of a stored ``answers_dump`` (issue 23: can the first model token come sooner?).

Why: on a 2-core AVX2 CPU the first model token waits for the prompt to be read (~30 tokens/s). llama.cpp's
tinyBLAS path speeds up prefill for Q8_0/Q4_0 weights, not for K-quants; and a larger batch reads a prompt
in fewer, bigger matrix products. Both were measured here before anything was changed (BENCHMARKS.md,
seventeenth run): the packaged Q4_K_M was the fastest of the three, and batch 128/512 read 3–7 % faster
than 64 (kept: a stretch without a cancel check grows with it).

    # copies, in a throwaway venv (gguf-py is not a project dependency; numpy only, ~35 s each):
    python3 -m venv /tmp/gg && /tmp/gg/bin/pip install gguf
    /tmp/gg/bin/python bench/prototypes/llm_variants.py requant MODEL.gguf /tmp/q8.gguf q8_0
    # speed, with the project's venv; N prompts of the dump's model answers, the first one not counted:
    .venv/bin/python -m bench prototypes.llm_variants speed DUMP.jsonl MODEL.gguf [--batch 64] [--n 12]

``requant`` dequantizes every quantized weight (Q4_K, Q6_K…) to float32 and quantizes it again as ``q8_0``
or ``q4_0``; norms and other float tensors are copied. ``speed`` loads the file as ``ask`` does
(``LocalGguf``, 2 threads, one slot, the system prompt's state saved under /tmp), rebuilds each answer's
prompt with ``build_prompt`` and prints per prompt the tokens read beyond the cache, prefill and
generation tok/s and the start of the text, then the medians.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path


def requant(src: Path, dst: Path, target: str) -> None:
    import gguf  # noqa: PLC0415  (only in the throwaway venv)
    import numpy as np
    from gguf import GGMLQuantizationType as T

    qtype = {"q8_0": T.Q8_0, "q4_0": T.Q4_0}[target]
    reader = gguf.GGUFReader(str(src))
    writer = gguf.GGUFWriter(str(dst), reader.fields["general.architecture"].contents())
    for field in reader.fields.values():
        if field.name.startswith("GGUF.") or field.name == "general.architecture":
            continue
        value = {"q8_0": 7, "q4_0": 2}[target] if field.name == "general.file_type" else field.contents()
        vtype = field.types[0]
        writer.add_key_value(field.name, value, vtype,
                             sub_type=field.types[-1] if vtype == gguf.GGUFValueType.ARRAY else None)
    for t in reader.tensors:
        shape = tuple(int(x) for x in reversed(t.shape.tolist()))
        if t.tensor_type in (T.F32, T.F16) or len(shape) < 2:
            writer.add_tensor(t.name, np.array(t.data))
            continue
        weights = gguf.quants.dequantize(t.data, t.tensor_type).reshape(shape)
        writer.add_tensor(t.name, gguf.quants.quantize(weights, qtype), raw_dtype=qtype)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def speed(dump: Path, model: Path, batch: int, n: int) -> None:
    from pipeline.ask.prompts import build_prompt
    from pipeline.llm.local_gguf import LocalGguf
    from pipeline.models import Answer

    rows = [json.loads(line) for line in dump.read_text("utf-8").splitlines() if line.strip()]
    answers = [Answer.model_validate(r["a"]) for r in rows if r["a"].get("source") == "llm"][:n]
    read, prefill, gen = [], [], []
    with tempfile.TemporaryDirectory() as states:  # the system prompt's saved state: this run's only
        llm = LocalGguf(model, n_threads=2, slots=1, batch=batch, state_dir=Path(states))
        try:
            for a in answers:
                p = build_prompt(a.question, a.hits, a.key_sentences, a.record, a.kind or "other")
                text = llm.complete(p.system, p.user, max_tokens=160)
                s = llm.last_stats
                read.append(s.get("prompt_evaluated"))
                prefill.append(s.get("prefill_tok_s"))
                gen.append(s.get("gen_tok_s"))
                print(s.get("prompt_evaluated"), s.get("prefill_tok_s"), s.get("gen_tok_s"),
                      text[:50].replace("\n", " "), flush=True)
        finally:
            llm.close()
    print(f"{model.name} batch {batch}: read p50 {statistics.median(read)} tokens, prefill p50 "
          f"{statistics.median(prefill[1:])} tok/s, generation p50 {statistics.median(gen[1:])} tok/s")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("requant")
    r.add_argument("src", type=Path)
    r.add_argument("dst", type=Path)
    r.add_argument("target", choices=("q8_0", "q4_0"))
    s = sub.add_parser("speed")
    s.add_argument("dump", type=Path)
    s.add_argument("model", type=Path)
    s.add_argument("--batch", type=int, default=64)
    s.add_argument("--n", type=int, default=12)
    args = ap.parse_args(argv)
    if args.cmd == "requant":
        requant(args.src, args.dst, args.target)
    else:
        speed(args.dump, args.model, args.batch, args.n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
