"""What a build agent does with a request (run it with its own registry, pack the outputs with their
sha256) and what the driver checks before it trusts a parcel. In process: no Dask worker here."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine_runners.agent_work import (AGENT_LOG_PREFIX, TransferError, request_payload, run_on_agent, sha256_hex,
                                       unpack)
from engine_runners.requests import build_request
from tests.support.simutil import baseline_program


@pytest.fixture(autouse=True)
def no_engines(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("GCV_UE_HARNESS", "GCV_UE_EDITOR_CMD", "GCV_UE_GAME", "GCV_UE_MODE"):
        monkeypatch.delenv(var, raising=False)


def _request(folder: Path, capture: list[int] | None = None):
    return build_request(baseline_program(), seed=3, player={"kind": "scripted"}, output_dir=folder,
                         run_id="agent-1", capture_ticks=capture)


def test_the_request_s_address_does_not_depend_on_its_folder(tmp_path: Path) -> None:
    one, two = _request(tmp_path / "a"), _request(tmp_path / "b" / "c")
    assert request_payload(one) == request_payload(two)
    data, digest = request_payload(one)
    assert digest == sha256_hex(data) and b'"output_dir":"."' in data
    other = build_request(baseline_program(), seed=4, player={"kind": "scripted"}, output_dir=tmp_path / "a",
                          run_id="agent-1")
    assert request_payload(other)[1] != digest  # a different run, a different address


def test_an_agent_runs_the_request_and_packs_every_output_with_its_hash(tmp_path: Path) -> None:
    request = _request(tmp_path / "driver", capture=[60, 120])
    payload, digest = request_payload(request)
    raw = run_on_agent("python-sim", payload, digest)
    parcel = unpack(raw, request, digest)
    assert parcel.result["ok"] is True, parcel.result
    assert sorted(parcel.files) == ["frames/tick_000060.png", "frames/tick_000120.png", "run.log", "telemetry.json"]
    assert parcel.result["frames"] == ["frames/tick_000060.png", "frames/tick_000120.png"]
    assert all(parcel.sha256[name] == sha256_hex(data) for name, data in parcel.files.items())
    assert parcel.files["frames/tick_000060.png"].startswith(b"\x89PNG")
    # the log says who ran it: not a Dask worker here, but the host and platform are named
    last = parcel.files["run.log"].decode().splitlines()[-1]
    assert last.startswith(AGENT_LOG_PREFIX + "ran on worker ") and "(not a Dask worker)" in last
    assert parcel.worker.platform and parcel.worker.host
    assert not (tmp_path / "driver").exists()  # the agent wrote only into its own temporary folder


def test_damaged_request_bytes_are_refused_before_anything_runs(tmp_path: Path) -> None:
    request = _request(tmp_path / "out")
    payload, digest = request_payload(request)
    raw = run_on_agent("python-sim", payload.replace(b'"seed":3', b'"seed":4'), digest)
    parcel = unpack(raw, request, digest)
    assert parcel.result["ok"] is False and parcel.result["error_kind"] == "transfer_corrupt"
    assert "do not match its sha256" in parcel.result["error"] and parcel.files == {}


def test_an_agent_that_declares_an_engine_it_cannot_run_says_so(tmp_path: Path) -> None:
    request = _request(tmp_path / "out")
    payload, digest = request_payload(request)
    parcel = unpack(run_on_agent("ue5", payload, digest), request, digest)
    assert parcel.result["error_kind"] == "agent_misconfigured"
    assert "declares ue5 but its ue5 is not_installed" in parcel.result["error"]
    assert "GCV_UE_HARNESS" in parcel.result["error"]  # the runner's own words: what to set on the agent


def test_a_file_whose_bytes_changed_on_the_way_is_refused(tmp_path: Path) -> None:
    request = _request(tmp_path / "out", capture=[60])
    payload, digest = request_payload(request)
    raw = run_on_agent("python-sim", payload, digest)
    tampered = dict(raw, files={**raw["files"], "telemetry.json": raw["files"]["telemetry.json"].replace(b"1", b"2", 1)})
    with pytest.raises(TransferError, match=r"telemetry.json arrived damaged"):
        unpack(tampered, request, digest)
    frame = dict(raw, files={**raw["files"], "frames/tick_000060.png": raw["files"]["frames/tick_000060.png"][:-1]})
    with pytest.raises(TransferError, match=r"frames/tick_000060.png arrived damaged"):
        unpack(frame, request, digest)


@pytest.mark.parametrize("change,words", [
    (lambda raw: dict(raw, request_sha256="0" * 64), "answered request 000000000000"),
    (lambda raw: dict(raw, files={**raw["files"], "../evil": b"x"}, sha256={**raw["sha256"], "../evil": sha256_hex(b"x")}),
     "a file GCV does not take"),
    (lambda raw: dict(raw, sha256={}), "do not name the same files"),
    (lambda raw: dict(raw, parcel="something/2"), "not gcv.agent_parcel/1"),
    (lambda raw: dict(raw, result={**raw["result"], "run_id": "another"}), "answered run 'another'"),
    (lambda raw: {"files": raw["files"]}, "not a parcel"),
])
def test_a_parcel_that_is_not_this_request_s_is_refused(tmp_path: Path, change, words: str) -> None:
    request = _request(tmp_path / "out")
    payload, digest = request_payload(request)
    raw = run_on_agent("python-sim", payload, digest)
    with pytest.raises(TransferError, match=words):
        unpack(change(raw), request, digest)
