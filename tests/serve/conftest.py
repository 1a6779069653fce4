"""The serve tests' fixtures: the repo root as working directory (the sample was ingested from there:
its sources are data/raw/…), an in-process client over the sample, and a time limit on every test
(a test that sets none gets DEFAULT_TIMEOUT; a hung test must fail, not block CI)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from pipeline.llm.fake import FakeLlm
from serve_helpers import copied_reply, make_app

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_TIMEOUT = 300  # seconds; the first test of a run also ingests the sample (~30 s)


def pytest_collection_modifyitems(config, items):
    for item in items:
        if Path(str(item.fspath)).parent == Path(__file__).parent and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(DEFAULT_TIMEOUT))


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


@pytest.fixture
def client(sample_data):
    app, _ = make_app(sample_data, llm=FakeLlm(lambda system, user: copied_reply(user)))
    with TestClient(app, base_url="http://127.0.0.1:8408") as c:
        yield c
