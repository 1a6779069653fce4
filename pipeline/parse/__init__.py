"""Parse stage: raw files → ParsedDoc (blocks with chapter_path and page)."""
