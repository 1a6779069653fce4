"""The pieces the cluster path rests on, without a cluster: the time bound on a page task, the worker
fingerprint check, the model hash check, the settings and the one-line errors."""

from __future__ import annotations

import concurrent.futures as cf
import time
from pathlib import Path

import pytest

from pipeline.executors import LOST_FUTURE, ClusterError, DaskExecutor, LocalExecutor, make_executor
from pipeline.parse import tasks
from pipeline.parse.ocr import OcrError
from pipeline.parse.ocr_runner import OcrRunner, OcrUnavailable
from pipeline.settings import Settings, load_settings

ROOT = Path(__file__).resolve().parents[2]
SCAN = ROOT / "data" / "raw" / "2024年计算机专业基础综合模拟卷_扫描版.pdf"


class StuckExecutor:
    """Accepts every task and never runs it: a worker that hangs."""

    kind, address, remote = "stuck", "stuck://", False
    lost = LOST_FUTURE

    def __init__(self):
        self.sent = []

    def slots(self) -> int:
        return 1

    def share(self, path, data=None):
        return str(path)

    def submit(self, fn, *args):
        fut = cf.Future()
        self.sent.append(fut)
        return fut

    def wait_first(self, futures, timeout):
        cf.wait(list(futures), timeout=timeout, return_when=cf.FIRST_COMPLETED)

    def close(self):
        pass


def test_a_page_task_that_never_answers_fails_its_document_after_task_timeout(tmp_path):
    ex = StuckExecutor()
    runner = OcrRunner(Settings.from_flat(data_dir=tmp_path, task_timeout=0.5), executor=ex)
    started = time.monotonic()
    with pytest.raises(OcrUnavailable) as err:
        runner.pdf_pages(SCAN, [1, 2, 3])
    assert time.monotonic() - started < 5
    assert str(err.value) == ("OCR of page 1 did not complete (stuck://: no answer from the OCR task within 0.5s "
                              "(task_timeout)); the document is left for the next ingest to retry")
    assert all(f.cancelled() for f in ex.sent)


def test_an_ocr_error_on_the_page_stays_a_page_error(tmp_path):
    ex = StuckExecutor()
    runner = OcrRunner(Settings.from_flat(data_dir=tmp_path), executor=ex)
    ex.submit = lambda fn, *args: _failed(OcrError("rapidocr failed on a 3x3 image"))
    out = runner.pdf_pages(SCAN, [1])
    assert isinstance(out[1], OcrError) and not isinstance(out[1], OcrUnavailable)


def _failed(exc):
    fut = cf.Future()
    fut.set_exception(exc)
    return fut


class WorkerGone(Exception):
    """What a made-up executor raises for a task its worker took down with it."""


def test_a_task_the_executor_declares_lost_fails_the_document(tmp_path):
    ex = StuckExecutor()
    ex.lost = (*LOST_FUTURE, WorkerGone)
    runner = OcrRunner(Settings.from_flat(data_dir=tmp_path), executor=ex)
    ex.submit = lambda fn, *args: _failed(WorkerGone("worker tcp://10.0.0.7:4001 died"))
    with pytest.raises(OcrUnavailable, match=r"^OCR of page 1 did not complete \(stuck://: worker tcp://10\.0\.0\.7:4001 died\)"):
        runner.pdf_pages(SCAN, [1])


def test_lost_is_told_by_type_not_by_class_name(tmp_path):
    """A page error whose class merely shares the name of dask's lost-worker error is still a page error."""
    KilledWorker = type("KilledWorker", (OcrError,), {})
    ex = StuckExecutor()
    runner = OcrRunner(Settings.from_flat(data_dir=tmp_path), executor=ex)
    ex.submit = lambda fn, *args: _failed(KilledWorker("not dask's"))
    out = runner.pdf_pages(SCAN, [1])
    assert type(out[1]) is KilledWorker


def test_the_dask_executor_declares_its_lost_worker_errors():
    pytest.importorskip("distributed")
    from distributed.client import FutureCancelledError
    from distributed.comm.core import CommClosedError
    from distributed.scheduler import KilledWorker

    from pipeline.executors import _dask_lost

    lost = _dask_lost()
    assert all(issubclass(t, lost) for t in (KilledWorker, CommClosedError, FutureCancelledError))
    assert not issubclass(OcrError, lost)


def test_a_worker_with_other_code_or_libraries_refuses_the_task():
    mine = tasks.fingerprint()
    assert set(mine) >= {"parse code", "python", "pymupdf", "rapidocr", "onnxruntime", "rapidocr models"}
    assert mine["rapidocr models"] == "sha256 verified"
    other = {**mine, "pymupdf": "1.0.0"}
    assert tasks.mismatch(other, mine) == "pymupdf: worker has '1.28.2', driver has '1.0.0'"
    with pytest.raises(tasks.WorkerMismatch, match="differs from the ingest"):
        tasks.ocr_pdf_page(str(SCAN), None, 1, 150, tasks.engine_spec("rapidocr", {"threads": 1}), other)


def test_a_model_file_with_another_hash_is_refused(monkeypatch):
    from pipeline.parse.ocr import rapid

    monkeypatch.setattr(rapid, "_VERIFIED", set())
    monkeypatch.setitem(rapid.BUNDLED_SHA256, "Rec", "0" * 64)
    with pytest.raises(OcrError, match=r"PP-OCRv6_rec_small.onnx has sha256 .* expected 0000"):
        rapid.verify_bundled_models(rapid.bundled_model_paths())


def test_executor_settings_and_their_environment_names(monkeypatch):
    monkeypatch.setenv("EXAMRAG_EXECUTOR", "dask")
    monkeypatch.setenv("EXAMRAG_CLUSTER", "tcp://10.0.0.5:8786")
    monkeypatch.setenv("EXAMRAG_TASK_TIMEOUT", "30")
    s = load_settings()
    assert (s.executor.kind, s.executor.cluster, s.executor.task_timeout) == ("dask", "tcp://10.0.0.5:8786", 30.0)
    assert s.group_hash("parse") == Settings().group_hash("parse")  # where OCR runs changes no artifact
    assert isinstance(make_executor(Settings()), LocalExecutor)


@pytest.mark.parametrize("address, message", [
    ("", "EXAMRAG_EXECUTOR=dask needs EXAMRAG_CLUSTER=tcp://HOST:8786"),
    ("http://x:1/", "EXAMRAG_CLUSTER='http://x:1/' is not a scheduler address like tcp://10.0.0.5:8786"),
])
def test_a_missing_or_malformed_cluster_address_is_one_line(address, message):
    pytest.importorskip("distributed")
    with pytest.raises(ClusterError) as err:
        DaskExecutor(address, connect_timeout=1)
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


def test_the_local_executor_runs_inline_with_one_worker():
    ex = LocalExecutor(1)
    fut = ex.submit(divmod, 7, 2)
    assert fut.done() and fut.result(timeout=0) == (3, 1)
    bad = ex.submit(divmod, 1, 0)
    assert isinstance(bad.exception(), ZeroDivisionError)


def test_closing_the_local_pool_does_not_wait_for_an_abandoned_task():
    ex = LocalExecutor(2)
    hung = ex.submit(time.sleep, 600)
    assert ex.submit(divmod, 7, 2).result(timeout=120) == (3, 1)
    started = time.monotonic()
    ex.close()
    assert time.monotonic() - started < 30 and hung.done()
