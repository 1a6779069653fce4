"""Prototypes: ideas measured against what the pipeline does today, not used by it."""
