"""Clean stage: ParsedDoc → CleanDoc by an ordered list of small named rules (see core.py)."""
