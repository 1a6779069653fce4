"""The OpenAPI document, true to the server it describes.

The routes declare their own error statuses (pipeline/serve/errors.py: ``errors(…)``). What depends
on how the server runs is added here: with a token, a bearer security scheme on every /api/*
operation (so "Try it out" in /docs sends it) and the 401 each of them then gives.
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from pipeline.serve.errors import WHY, ErrorBody

SCHEME = "bearer"


def install(app: FastAPI, *, token: bool) -> None:
    def openapi() -> dict:
        if app.openapi_schema is None:
            app.openapi_schema = document(app, token=token)
        return app.openapi_schema

    app.openapi = openapi


def document(app: FastAPI, *, token: bool) -> dict:
    doc = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
    if not token:
        return doc
    components = doc.setdefault("components", {})
    components.setdefault("securitySchemes", {})[SCHEME] = {
        "type": "http", "scheme": "bearer", "description": "The server's EXAMRAG_API_TOKEN."}
    components.setdefault("schemas", {}).setdefault("ErrorBody", ErrorBody.model_json_schema())
    unauthorized = {"description": WHY[401], "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}}
    for path, operations in doc.get("paths", {}).items():
        if not path.startswith("/api/"):
            continue
        for op in operations.values():
            op["security"] = [{SCHEME: []}]
            op.setdefault("responses", {})["401"] = unauthorized
    return doc
