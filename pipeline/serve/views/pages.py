"""The page: one static index.html for every view of the app (the script picks the view from the
path), and the files it loads. A new view adds its path to PAGES."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

STATIC = Path(__file__).resolve().parents[1] / "static"
PAGES = ("/", "/practice", "/mistakes", "/review", "/status", "/map")
PAGE_CSP = ("default-src 'self'; img-src 'self' blob: data:; style-src 'self'; script-src 'self'; "
            "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")

router = APIRouter(include_in_schema=False)


def page() -> FileResponse:
    return FileResponse(STATIC / "index.html", headers={"Content-Security-Policy": PAGE_CSP, "Cache-Control": "no-cache"})


for _path in PAGES:
    router.add_api_route(_path, page, methods=["GET"])


def mount_static(app) -> None:
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
