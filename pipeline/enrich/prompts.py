"""Every enrichment prompt, versioned: a new version invalidates cached answers for it only."""

PROMPT_VERSION = "enrich-v1"

SYSTEM = (
    "你是408考研资料整理助手。只根据给出的材料写摘要和关键词，不要编造材料中没有的内容。"
    "严格按要求的格式输出，不要输出其他内容。"
)

SECTIONS_TEMPLATE = """下面是教材或笔记中同一章的若干小节，每节以【节N】开头。
请为每一节输出一行，格式为：
节N｜一两句话的摘要｜关键词1，关键词2，关键词3
关键词3到8个，取自材料中的专业术语。

{sections}"""

QUESTION_TEMPLATE = """下面是一道考研真题。请输出3到8个它考查的知识点关键词，用中文逗号分隔，只输出关键词。

{question}"""
