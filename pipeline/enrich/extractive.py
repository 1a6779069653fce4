"""The no-LLM backend: keywords by jieba TF-IDF, summary from the section's lead sentences."""

from __future__ import annotations

import logging
import re

from pipeline.models import Enrichment
from pipeline.text.tokenize import load_terms

SUMMARY_MAX_CHARS = 80  # lead sentences kept up to this many characters
KEYWORDS = 6
MODEL_ID = "jieba-tfidf-0.42.1"

_SENT_END = re.compile(r"(?<=[。！？；])")


def _jieba_analyse():
    import jieba
    import jieba.analyse

    jieba.setLogLevel(logging.WARNING)
    return jieba.analyse


# nouns, names, English terms, idioms: verbs and function words make poor topic keywords
ALLOW_POS = ("n", "nz", "nr", "ns", "nt", "vn", "eng", "l", "i", "x")


def keywords(text: str, k: int = KEYWORDS) -> list[str]:
    load_terms()
    tags = _jieba_analyse().extract_tags(text, topK=k * 2, allowPOS=ALLOW_POS)
    return [t for t in tags if not re.fullmatch(r"[\d.]+", t) and len(t) > 1][:k]


def summary(text: str, limit: int = SUMMARY_MAX_CHARS) -> str:
    out = ""
    for sent in _SENT_END.split(re.sub(r"\s+", " ", text).strip()):
        if not sent:
            continue
        if out and len(out) + len(sent) > limit:
            break
        out += sent
    return out[: limit * 2]


def enrich_text(text: str) -> Enrichment:
    return Enrichment(summary=summary(text), keywords=keywords(text), backend="extractive", model=MODEL_ID)
