"""Claim-check micro-benchmark (issue 20): the checker on long digit and operator answers, the old
arithmetic pattern it replaced, the loop detector per token, and loading the rules files.

    .venv/bin/python -m bench claims            # ~1 min; writes bench/results/claims.json

Target: a 2,000-character answer of digits and operators is checked in under 50 ms. The old pattern
is timed on growing digit runs in a subprocess that is killed after ``--old-limit`` seconds. Every
timed call gets a text of its own (one character differs), so the sentence caches do not answer.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from bench.lib import common as C
from pipeline.ask.claims import Checker, check, load_rules
from pipeline.ask.repetition import RepetitionGuard
from pipeline.models import Hit

ROOT = C.ROOT

OLD = r"((?:\d+(?:\.\d+)?|[()（）+\-*/×÷^\s])+?)\s*[=≈约]+\s*(\d+(?:\.\d+)?)"
PASSAGES = ["平均CPI=0.4×1+0.4×3+0.2×4=2.4，主频为1GHz，MIPS=1000/2.4≈416.7。",
            "IEEE 754单精度浮点数1.5的机器数为00111111110000000000000000000000，符号位0，阶码01111111。"]
ANSWERS = {
    "formula + 2,000 digits": "平均CPI=0.4×1+0.4×3+0.2×4 " + "1" * 2000 + "条",
    "2,000 chars of a formula repeated": ("0.4×1+0.4×3+0.2×4 " * 120)[:2000],
    "2,000 chars of 32-digit words and +": (("1" * 31 + "+") * 63)[:2000],
    "2,000 chars of digits = digits": (("12×34=408 ") * 200)[:2000],
}


def _hit(i: int, text: str) -> Hit:
    return Hit(rank=i, chunk_id=f"c{i}", doc_id="d", source="x.md", chapter_path=["章"], chunk_position=i, pages=[1],
               score=1.0, text=text)


def timed(fn, repeat: int) -> list[float]:
    """ms per call of ``fn(i)``; each call gets its own ``i`` so no cache answers for it."""
    out = []
    for i in range(repeat):
        t = time.perf_counter()
        fn(i)
        out.append((time.perf_counter() - t) * 1000)
    return out


def old_pattern(limit: float) -> list[dict]:
    rows = []
    for n in (12, 14, 16, 18, 20, 22, 24):
        code = (f"import re,time;s='平均CPI=0.4×1+0.4×3+0.2×4 '+'1'*{n}+'条';t=time.perf_counter();"
                f"list(re.finditer({OLD!r},s));print(time.perf_counter()-t)")
        try:
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=limit)
            rows.append({"digits": n, "seconds": round(float(out.stdout), 3)})
        except subprocess.TimeoutExpired:
            rows.append({"digits": n, "seconds": None, "note": f"killed after {limit} s"})
            break
    return rows


def main() -> None:
    C.setup()
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--old-limit", type=float, default=30.0)
    args = ap.parse_args()
    load = os.getloadavg()[0]
    t = time.perf_counter()
    load_rules.cache_clear()
    load_rules()
    rules_ms = (time.perf_counter() - t) * 1000
    hits = [_hit(i, p) for i, p in enumerate(PASSAGES, start=1)]
    rows = []
    for name, text in ANSWERS.items():
        ms = timed(lambda i: check(text + chr(0x4E00 + i), hits, "平均CPI是多少？MIPS是多少？"), args.repeat)
        rows.append({"answer": name, "chars": len(text), "p50_ms": round(statistics.median(ms), 2),
                     "max_ms": round(max(ms), 2)})
    guard = RepetitionGuard()
    stream = "".join(f"第{i}步，把第{i}个元素和第{i + 1}个元素比较，较小的放在前面。" for i in range(40))[:1500]
    ms = timed(lambda i: [guard.partial(stream[:k] + str(i)) for k in range(1, len(stream), 7)], 3)
    per_call_us = statistics.median(ms) * 1000 / len(range(1, len(stream), 7))
    checker_ms = timed(lambda i: Checker(hits, "平均CPI是多少").add(f"平均CPI=0.4×1+0.4×3+0.2×4=2.4{chr(0x4E00 + i)}。", []),
                       args.repeat)
    result = {"load_avg_at_start": load, "rules_load_ms": round(rules_ms, 1), "check_2000_chars": rows,
              "checker_one_sentence_p50_ms": round(statistics.median(checker_ms), 2),
              "loop_detector_per_call_us": round(per_call_us, 1), "old_pattern": old_pattern(args.old_limit)}
    out = ROOT / "bench" / "results" / "claims.json"
    out.write_text(json.dumps(result, ensure_ascii=False, indent=1), "utf-8")
    print(json.dumps(result, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
