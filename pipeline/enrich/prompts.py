"""Every enrichment prompt, versioned: a new version invalidates cached answers for it only.

v2 asks for JSON held to a schema (a grammar for the local model, ``response_format`` for an
endpoint): with the v1 free-text line format the packaged 1.5B model kept the format for 10 of 33
sample sections and the 0.5B copied the template; with the schema every reply parses.
"""

PROMPT_VERSION = "enrich-v2"

SYSTEM = "你是408考研资料整理助手。只根据给出的材料写摘要和关键词，不编造，不照抄标题。"

SECTIONS_TEMPLATE = """下面是同一章的{n}个小节，每节以【节N】开头。为每一节写一句中文摘要（不超过40字，概括该节讲了什么）和3到6个关键词（该节中的专业术语），按小节顺序输出JSON。

{sections}"""

SUMMARY_MAX_CHARS = 60
KEYWORD_MAX_CHARS = 12


def sections_schema(n: int) -> dict:
    """Exactly ``n`` items in section order, so item i belongs to 【节i】."""
    item = {"type": "object",
            "properties": {"summary": {"type": "string", "maxLength": SUMMARY_MAX_CHARS},
                           "keywords": {"type": "array", "minItems": 3, "maxItems": 6,
                                        "items": {"type": "string", "maxLength": KEYWORD_MAX_CHARS}}},
            "required": ["summary", "keywords"]}
    return {"type": "object",
            "properties": {"sections": {"type": "array", "minItems": n, "maxItems": n, "items": item}},
            "required": ["sections"]}
