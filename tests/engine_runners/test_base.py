"""What every runner shares (engine_runners.base): the telemetry an engine wrote checked against
its request, durations from the environment, and atomic JSON outputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine_runners.base import check_telemetry, env_seconds, write_json_atomic
from engine_runners.python_sim import execute
from engine_runners.requests import build_request
from tests.support.evalutil import base


@pytest.fixture
def written(tmp_path: Path):  # type: ignore[no-untyped-def]
    request = build_request(base(), seed=2, player={"kind": "scripted"}, output_dir=tmp_path, run_id="b-1")
    telemetry, _ = execute(request)
    return request, tmp_path / "telemetry.json", telemetry


def test_good_telemetry_is_returned(written) -> None:  # type: ignore[no-untyped-def]
    request, path, telemetry = written
    assert check_telemetry(request, path) == (json.loads(path.read_text()), None, None)


def _rewrite(path: Path, **fields: object) -> None:
    data = json.loads(path.read_text())
    data.update(fields)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize("fields,kind,words", [
    ({"program_hash": "f" * 64}, "hash_mismatch", "telemetry program_hash ffffffffffff... does not match"),
    ({"seed": 3}, "hash_mismatch", "seed/player do not match"),
    ({"run_id": "other"}, "hash_mismatch", "run_id 'other' is not 'b-1'"),
    ({"status": "won"}, "bad_telemetry", "does not match the telemetry schema at status"),
])
def test_telemetry_that_is_not_this_requests_is_refused(written, fields, kind: str, words: str) -> None:  # type: ignore[no-untyped-def]
    request, path, _ = written
    _rewrite(path, **fields)
    data, got_kind, message = check_telemetry(request, path)
    assert data is None and got_kind == kind and words in (message or "")


def test_missing_or_unreadable_telemetry(written) -> None:  # type: ignore[no-untyped-def]
    request, path, _ = written
    path.write_text("[1]")
    assert check_telemetry(request, path)[1:] == ("bad_telemetry", "telemetry.json is not a JSON object")
    path.write_text("{")
    assert check_telemetry(request, path)[1] == "bad_telemetry"
    path.unlink()
    assert check_telemetry(request, path)[1:] == ("no_telemetry", "the engine exited without writing telemetry.json")


def test_env_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GCV_TEST_SECONDS", raising=False)
    assert env_seconds("GCV_TEST_SECONDS", 30.0) == 30.0
    monkeypatch.setenv("GCV_TEST_SECONDS", " 12.5 ")
    assert env_seconds("GCV_TEST_SECONDS", 30.0) == 12.5
    monkeypatch.setenv("GCV_TEST_SECONDS", "soon")
    with pytest.raises(ValueError, match="GCV_TEST_SECONDS='soon' is not a number of seconds"):
        env_seconds("GCV_TEST_SECONDS", 30.0)
    monkeypatch.setenv("GCV_TEST_SECONDS", "0.5")
    with pytest.raises(ValueError, match="outside 1..604800 seconds"):
        env_seconds("GCV_TEST_SECONDS", 30.0)


def test_write_json_atomic(tmp_path: Path) -> None:
    write_json_atomic(tmp_path / "a.json", {"b": 1, "a": [2]})
    assert (tmp_path / "a.json").read_text() == '{\n "a": [\n  2\n ],\n "b": 1\n}\n'
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"]
