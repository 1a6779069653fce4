"""Study fixtures: a study database of its own per test, over the shipped sample's index (ingested
once per session by tests/conftest.py)."""

from __future__ import annotations

import pytest
from study_helpers import T0

from pipeline.settings import StudySettings, load_settings
from pipeline.study.service import StudyService
from pipeline.study.store import StudyStore


@pytest.fixture
def store(tmp_path) -> StudyStore:
    s = StudyStore(tmp_path / "study.sqlite", StudySettings(fuzz=False))
    yield s
    s.close()


@pytest.fixture
def study(sample_data, tmp_path) -> StudyService:
    """The study service over the sample, its clock fixed at T0 (tests move it)."""
    settings = load_settings(data_dir=sample_data, study_db=str(tmp_path / "study.sqlite"), study_now=T0,
                             llm_backend="none")
    svc = StudyService(settings)
    yield svc
    svc.store.close()
