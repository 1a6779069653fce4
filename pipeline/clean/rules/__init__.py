"""The clean rules, one small module each; ``DEFAULT_RULES`` is the order ``clean_document`` runs.

Each rule is ``rule(work: Work) -> None`` (see ``base.Work``) and states its thresholds in its
docstring; patterns and thresholds come from ``pipeline/clean/rules.yaml``.
"""

from pipeline.clean.rules.formulas_to_text import formulas_to_text
from pipeline.clean.rules.join_lines import join_lines
from pipeline.clean.rules.markup import markup
from pipeline.clean.rules.pattern_lines import pattern_lines
from pipeline.clean.rules.questions import questions
from pipeline.clean.rules.repeated_bands import repeated_bands
from pipeline.clean.rules.sections import sections
from pipeline.clean.rules.tables_to_fields import tables_to_fields
from pipeline.clean.rules.toc_pages import toc_pages
from pipeline.clean.rules.watermark import watermark

DEFAULT_RULES = (
    repeated_bands,
    pattern_lines,
    watermark,
    markup,
    toc_pages,
    join_lines,
    tables_to_fields,
    formulas_to_text,
    questions,
    sections,
)

__all__ = ["DEFAULT_RULES", "repeated_bands", "pattern_lines", "watermark", "markup", "toc_pages", "join_lines",
           "tables_to_fields", "formulas_to_text", "questions", "sections"]
