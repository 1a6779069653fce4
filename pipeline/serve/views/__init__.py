"""The routes, one module per kind of thing served (as datasette's views/): each holds a ``router``
that pipeline/serve/app.py includes. A view gets the app's :class:`~pipeline.serve.context.Serving`
as ``ctx: Ctx`` and calls the query service; it keeps no state of its own.

answers.py   POST /api/ask: an answer as server-sent events (queued, token…, answer)
search.py    GET /api/search: cited passages (= ask --json --no-llm)
lists.py     GET /api/chapters, /api/questions, /api/status, /api/health
sources.py   GET /api/section, /api/source/…: a passage in its document (page image, section)
map.py       GET /api/map, /api/map/material: the syllabus map (= map --json) and a node's material
pages.py     the page (/, /practice, /mistakes, /review, /status, /map) and /static
study.py     the study loop: /api/practice, /api/attempts, /api/mistakes, /api/review, /api/progress, /api/class/nodes
"""

from pipeline.serve.views import answers, lists, map, pages, search, sources, study

ROUTERS = (answers.router, search.router, lists.router, sources.router, map.router, study.router, pages.router)
