"""The python-sim engine (engine_runners.python_sim): a request read strictly, hashes checked
before anything runs, outputs written, and the protocol lines of a subprocess run."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from engine_runners.protocol import TELEMETRY_FILE, ExitCode
from engine_runners.python_sim import PythonSimRunner, RequestError, execute, load_request, main
from engine_runners.requests import build_request
from gcv.sim.engine import Simulation
from tests.support.evalutil import base


def _request(out: Path, **kw):  # type: ignore[no-untyped-def]
    return build_request(base(), seed=4, player={"kind": "scripted"}, output_dir=out, run_id="ps-1", **kw)


def _written(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "request.json"
    path.write_text(text, encoding="utf-8")
    return path


def test_load_request_round_trips_and_refuses_what_the_cores_refuse(tmp_path: Path) -> None:
    request = _request(tmp_path)
    assert load_request(_written(tmp_path, request.model_dump_json())) == request
    with pytest.raises(RequestError, match="is not JSON") as caught:
        load_request(_written(tmp_path, "{"))
    assert caught.value.code == ExitCode.BAD_REQUEST
    with pytest.raises(RequestError, match='duplicate key "seed"'):
        load_request(_written(tmp_path, request.model_dump_json()[:-1] + ', "seed": 5}'))
    with pytest.raises(RequestError, match="field seed: "):
        load_request(_written(tmp_path, request.model_dump_json().replace('"seed":4', '"seed":-4')))
    with pytest.raises(RequestError, match="cannot read request"):
        load_request(tmp_path / "missing.json")


def test_execute_checks_the_hashes_first(tmp_path: Path) -> None:
    request = _request(tmp_path)
    forged = request.model_copy(update={"program_hash": "0" * 64})
    with pytest.raises(RequestError, match="program_hash does not match") as caught:
        execute(forged)
    assert caught.value.code == ExitCode.HASH_MISMATCH
    with pytest.raises(RequestError, match="config_hash does not match"):
        execute(request.model_copy(update={"config_hash": "0" * 64}))
    with pytest.raises(RequestError, match="does not exist") as missing:
        execute(_request(tmp_path / "nowhere"))
    assert missing.value.code == ExitCode.OUTPUT_ERROR
    assert not list(tmp_path.iterdir())  # nothing written by any of them


def test_execute_writes_the_telemetry_and_frames(tmp_path: Path) -> None:
    telemetry, frames = execute(_request(tmp_path, capture_ticks=[0, 60]))
    assert json.loads((tmp_path / TELEMETRY_FILE).read_text()) == telemetry
    assert len(frames) == 2 and all(Path(f).is_file() for f in frames)
    reference = Simulation(_request(tmp_path).program, {"kind": "scripted"}).run(seed=4).telemetry
    assert telemetry["state_hash"] == reference["state_hash"] and telemetry["run_id"] == "ps-1"
    quiet, none = execute(_request(tmp_path / "unwritten"), write_outputs=False)
    assert none == [] and quiet["state_hash"] == telemetry["state_hash"]


def test_the_in_process_runner(tmp_path: Path) -> None:
    runner = PythonSimRunner()
    result = runner.run(_request(tmp_path / "run"))
    assert result.ok and result.engine == "python-sim" and result.exit_code == 0
    assert Path(result.telemetry_path).name == TELEMETRY_FILE  # type: ignore[arg-type]
    late = runner.run(_request(tmp_path / "late"), deadline=time.time() - 1)
    assert not late.ok and late.error_kind == "deadline"
    bad = runner.run(_request(tmp_path / "bad").model_copy(update={"program_hash": "0" * 64}))
    assert not bad.ok and bad.exit_code == ExitCode.HASH_MISMATCH and bad.error_kind == "hash_mismatch"
    assert runner.check().status == "available" and not runner.capabilities().measures_frame_times
    with pytest.raises(ValueError, match="mode must be"):
        PythonSimRunner("remote")


def test_main_prints_the_protocol_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "out").mkdir()
    path = _written(tmp_path, _request(tmp_path / "out").model_dump_json())
    assert main(["--request", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("GCV-HANDSHAKE ") and "\"run_id\":\"ps-1\"" in lines[0] and lines[-1].startswith("GCV-DONE")
    assert main(["--request", str(_written(tmp_path, "[]"))]) == ExitCode.BAD_REQUEST
    assert capsys.readouterr().out.splitlines()[-1].startswith("GCV-ERROR")
