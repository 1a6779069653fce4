"""Enrich stage: section summaries and topic keywords, prefixed to what is indexed (never shown)."""
