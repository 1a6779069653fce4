"""`cli.py serve`: the study web app and HTTP API over the one query service (pipeline.ask.service).

app.py        wires the app: context, views, error handlers, OpenAPI, middleware
views/        the routes, one module per kind of thing served (answers, search, lists, sources, pages)
context.py    what every view gets (``ctx: Ctx``): service, sources, queue, worker threads, path rewrite
streaming.py  an answer as server-sent events (queued, token…, answer | error), cancellation
queue.py      the bounded generation queue (LLM slots + waiting line, 503 beyond it)
sources.py    original files, passage placement (index boxes), page rendering
errors.py     the {error, detail} body and the statuses declared per route; handlers.py maps exceptions
contract.py   the OpenAPI document (bearer scheme and 401s on a token server)
auth.py       loopback test, Host check, bearer token (UTF-8): reusable by any HTTP front end
limits.py     the request body (413, 408) and every string field's limit
paths.py      no absolute server path beyond loopback
protocol.py   uvicorn's HTTP protocol with a header-read deadline and a header size cap
run.py        bind checks (loopback unless a token is set) and uvicorn
static/       index.html, app.js, app.css: plain files, no build step, no CDN
"""
