"""prefix_state offline: what a saved state is named after, and the slot actions against a local
stand-in for llama.cpp's listener (answers, errors, silence)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from pipeline.llm.prefix_state import PrefixStore, SlotActions

pytestmark = pytest.mark.timeout(60)


def test_the_name_changes_with_the_prompt_the_model_file_and_the_runtime(tmp_path):
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF" + b"\0" * 100)
    store = PrefixStore(tmp_path / "kv", model, "1.0", 4096)
    a = store.digest("你是408考研复习助手。")
    assert a == PrefixStore(tmp_path / "kv", model, "1.0", 4096).digest("你是408考研复习助手。")
    assert a != store.digest("你是408考研复习助手！")
    assert a != PrefixStore(tmp_path / "kv", model, "1.1", 4096).digest("你是408考研复习助手。")
    assert a != PrefixStore(tmp_path / "kv", model, "1.0", 2048).digest("你是408考研复习助手。")
    model.write_bytes(b"GGUF" + b"\1" * 101)  # another model file at the same path
    assert a != PrefixStore(tmp_path / "kv", model, "1.0", 4096).digest("你是408考研复习助手。")
    assert store.path(a).parent == tmp_path / "kv" and store.path(a).suffix == ".kv"
    assert all(c.isalnum() or c in ".-_" for c in store.temp_name(a))  # a name llama.cpp accepts


def test_only_the_most_recently_used_states_are_kept(tmp_path):
    import os

    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    store = PrefixStore(tmp_path / "kv", model, "1.0", 4096)
    store.directory.mkdir()
    names = [store.digest(f"提示{i}") for i in range(6)]
    for age, name in enumerate(names):  # names[0] newest … names[5] oldest
        store.path(name).write_bytes(b"x")
        os.utime(store.path(name), (1_000_000 - age * 10, 1_000_000 - age * 10))
    (store.directory / "notes.txt").write_text("not a state")
    store.used(names[5])  # the oldest was just restored: it stays
    gone = store.prune(keep=3)
    assert sorted(p.name for p in gone) == sorted(store.path(n).name for n in names[2:5])
    assert {p.name for p in store.directory.iterdir()} == {store.path(n).name for n in (names[0], names[1], names[5])} | {"notes.txt"}


class _Listener:
    """A loopback stand-in for the engine's HTTP listener: records requests, answers as told."""

    def __init__(self, status: int = 200, reply: object = None, delay: float = 0.0):
        seen = self.seen = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                seen.append((self.path, self.headers.get("Authorization"), json.loads(body)))
                time.sleep(delay)
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.address = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def test_save_and_restore_send_the_key_and_read_the_engine_reply():
    ok = _Listener(reply={"id_slot": 1, "n_saved": 99, "n_restored": 99})
    try:
        actions = SlotActions(ok.address, "secret")
        assert actions.save(1, "abc.123.tmp") is True
        assert actions.restore(0, "abc.kv") == 99
        assert ok.seen == [("/slots/1?action=save", "Bearer secret", {"filename": "abc.123.tmp"}),
                           ("/slots/0?action=restore", "Bearer secret", {"filename": "abc.kv"})]
    finally:
        ok.close()


@pytest.mark.parametrize("status, reply", [(500, {"error": {"message": "Slot is busy"}}),
                                           (400, {"error": "failed to open file"}),
                                           (200, ["not", "a", "dict"]),
                                           (200, {"n_saved": 0, "n_restored": 0})])
def test_an_engine_error_means_nothing_saved_or_restored(status, reply):
    bad = _Listener(status=status, reply=reply)
    try:
        actions = SlotActions(bad.address, "k")
        assert actions.save(0, "x.tmp") is False
        assert actions.restore(0, "x.kv") == 0
    finally:
        bad.close()


def test_a_silent_listener_is_given_up_on_at_the_time_limit():
    silent = _Listener(reply={"n_restored": 5}, delay=5.0)
    try:
        t0 = time.monotonic()
        assert SlotActions(silent.address, "k", timeout=0.5).restore(0, "x.kv") == 0
        assert time.monotonic() - t0 < 3
    finally:
        silent.close()


def test_nothing_listening_is_no_error():
    assert SlotActions("http://127.0.0.1:9", "k", timeout=1).restore(0, "x.kv") == 0
