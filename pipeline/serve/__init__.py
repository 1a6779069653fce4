"""`cli.py serve`: the study web app and HTTP API over the one query service (pipeline.ask.service).

app.py      routes: JSON API (the CLI's --json shapes), SSE answers, page images, the static page
queue.py    the bounded generation queue (LLM slots + waiting line, 503 beyond it)
sources.py  original files, passage placement (index boxes or the page's text layer), page rendering
run.py      bind checks (loopback unless a token is set) and uvicorn
static/     index.html, app.js, app.css: plain files, no build step, no CDN
"""
