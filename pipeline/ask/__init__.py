"""Retrieval (hybrid BM25 + vectors, RRF, chapter and year/number filters) and cited answers."""
