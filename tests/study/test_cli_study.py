"""The study commands' contract: help for each, `users add` prints a token once, errors are one line."""

from __future__ import annotations

import json

COMMANDS = (("practice",), ("review",), ("mistakes",), ("progress",), ("cards",), ("export", "anki"), ("users", "add"),
            ("users", "list"))


def test_every_study_command_has_help(cli):
    top = cli("--help")
    for name in ("practice", "review", "mistakes", "progress", "cards", "export", "users"):
        assert name in top.stdout
    for cmd in COMMANDS:
        r = cli(*cmd, "--help")
        assert r.returncode == 0 and "Usage" in r.stdout, cmd
    assert "--profile" in cli("ask", "--help").stdout


def test_users_tokens_are_shown_once(cli, tmp_path):
    env = {"EXAMRAG_STUDY_DB": str(tmp_path / "study.sqlite")}
    data = tmp_path / "data"
    r = cli("users", "add", "alice", "--json", data_dir=data, env=env)
    assert r.returncode == 0, r.stderr
    token = json.loads(r.stdout)["token"]
    assert token.startswith("exr_")
    again = cli("users", "add", "alice", data_dir=data, env=env)
    assert again.returncode == 1 and again.stderr.startswith("Error: 'alice' has a token already") and again.stdout == ""
    admin = cli("users", "add", "teacher", "--admin", data_dir=data, env=env)
    assert admin.returncode == 0 and "admin teacher" in admin.stdout
    listed = cli("users", "list", data_dir=data, env=env)
    assert listed.stdout.splitlines() == ["alice  student  token", "teacher  admin  token"]
    assert token not in listed.stdout and token not in (tmp_path / "study.sqlite").read_bytes().decode("latin-1")
    bad = cli("users", "add", "../x", data_dir=data, env=env)
    assert bad.returncode == 1 and "not allowed" in bad.stderr


def test_an_admin_profile_has_no_practice_and_no_index_is_one_line(cli, sample_data, tmp_path):
    env = {"EXAMRAG_STUDY_DB": str(tmp_path / "study.sqlite")}
    assert cli("users", "add", "teacher", "--admin", data_dir=sample_data, env=env).returncode == 0
    r = cli("practice", "--json", "--profile", "teacher", data_dir=sample_data, env=env)
    assert r.returncode == 1 and "admin" in r.stderr and len(r.stderr.splitlines()) == 1
    empty = cli("practice", "--json", data_dir=tmp_path / "empty", env=env)
    assert empty.returncode == 1 and "no index" in empty.stderr and len(empty.stderr.splitlines()) == 1
    unknown = cli("cards", "--chapter", "查早", data_dir=sample_data, env=env)
    assert unknown.returncode == 1 and "查早" in unknown.stderr
