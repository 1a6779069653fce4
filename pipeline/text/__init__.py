"""Text helpers shared by the stages above it (enrich, index, ask): the BM25 tokenizer, the domain
term list, and small string helpers. A floor below every stage: it imports nothing from them."""
