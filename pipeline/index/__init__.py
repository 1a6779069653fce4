"""Index stage: chunks → BM25 (bm25s) + vectors (Chroma), with a chunk catalog for lookups."""
