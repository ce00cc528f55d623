"""Engine output is read in bounded lines: a line without a newline costs at most 64 KiB
however long it is, nothing prints a thread traceback, and a long ``GCV-ERROR`` line is the
engine's error, never "a crash" (supervision ``MAX_LINE_BYTES``; docs/reliability.md)."""

from __future__ import annotations

import io
import json
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

from engine_runners import supervision
from engine_runners.base import Capabilities, EnvironmentStatus, SubprocessRunner
from engine_runners.protocol import RunRequest, parse_cut_error
from engine_runners.requests import build_request
from engine_runners.supervision import MAX_LINE_BYTES, bounded_lines
from tests.support.simutil import baseline_program

REPO = Path(__file__).resolve().parents[2]

# A tiny engine: the handshake, then whatever ``GCV_TEST_BODY`` (Python) writes, then exit.
ENGINE = r'''
import json, os, sys
request = json.load(open(sys.argv[1], encoding="utf-8"))
out = sys.stdout.buffer
out.write(("GCV-HANDSHAKE " + json.dumps({"protocol": "gcv.run_protocol/1", "engine": "fake", "version": "0",
                                         "run_id": request["run_id"]}) + "\n").encode())
out.flush()
exec(os.environ["GCV_TEST_BODY"])
out.flush()
sys.exit(int(os.environ.get("GCV_TEST_EXIT", "0")))
'''


class TinyRunner(SubprocessRunner):
    name = "fake"
    startup_budget = 10.0
    liveness_timeout = 20.0

    def __init__(self, script: Path, body: str, exit_code: int = 0) -> None:
        self.script, self.body, self.exit_code = script, body, exit_code

    def command(self, request_path: Path, request: RunRequest) -> list[str]:
        return [sys.executable, str(self.script), str(request_path)]

    def environment(self) -> dict[str, str]:
        return {"PATH": "/usr/bin:/bin", "GCV_TEST_BODY": self.body, "GCV_TEST_EXIT": str(self.exit_code)}

    def check(self) -> EnvironmentStatus:
        return EnvironmentStatus("fake", "available", "test double")

    def capabilities(self) -> Capabilities:
        return Capabilities(False, False, True, "python", "fake")


@pytest.fixture(autouse=True)
def _launches_allowed() -> None:
    supervision.allow_launches()


def _run(tmp_path: Path, body: str, exit_code: int = 0) -> object:
    script = tmp_path / "tiny_engine.py"
    script.write_text(ENGINE, encoding="utf-8")
    request = build_request(baseline_program(), seed=5, player={"kind": "scripted"}, output_dir=tmp_path / "out",
                            run_id="long-lines")
    return TinyRunner(script, body, exit_code).run(request, timeout=60)


class _Peak:
    """The peak resident set of this process while the block runs (sampled every 10 ms)."""

    def __enter__(self) -> "_Peak":
        self.proc = psutil.Process()
        self.before = self.proc.memory_info().rss
        self.peak = self.before
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()
        return self

    def _sample(self) -> None:
        while not self.stop.is_set():
            self.peak = max(self.peak, self.proc.memory_info().rss)
            time.sleep(0.01)

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()

    @property
    def grew_mib(self) -> float:
        return (self.peak - self.before) / (1 << 20)


@pytest.mark.slow
def test_a_200_mb_line_without_a_newline_costs_kilobytes_not_the_line(tmp_path: Path,
                                                                       capfd: pytest.CaptureFixture[str]) -> None:
    body = "chunk = b'x' * (1 << 20)\nfor _ in range(200):\n    out.write(chunk)\n"
    with _Peak() as peak:
        result = _run(tmp_path, body)
    assert peak.grew_mib < 40, f"reading the line grew the process by {peak.grew_mib:.0f} MiB"  # before: 930 MiB
    assert not result.ok and result.error_kind == "no_done", result.error
    assert len(result.error) < 4000  # the message quotes a bounded tail line
    log = Path(result.log_path).read_bytes()
    assert len(log) < 2 * MAX_LINE_BYTES and b"more bytes of this line left out" in log, len(log)
    assert f"{200 * (1 << 20) - MAX_LINE_BYTES} more bytes".encode() in log
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Exception in thread" not in err, err[-2000:]


@pytest.mark.slow
@pytest.mark.parametrize("order", ["message last", "message first"])
def test_a_200_kb_gcv_error_line_is_the_engines_error_not_a_crash(tmp_path: Path, order: str) -> None:
    fields = "{'exit_code': 3, 'kind': 'hash_mismatch', 'message': 'program_hash differs ' + 'y' * 200_000}"
    if order == "message first":
        fields = "{'message': 'program_hash differs ' + 'y' * 200_000, 'kind': 'hash_mismatch', 'exit_code': 3}"
    body = f"out.write(b'GCV-ERROR ' + json.dumps({fields}).encode() + b'\\n')\n"
    result = _run(tmp_path, body, exit_code=3)
    assert result.error_kind == "hash_mismatch", result.error  # before: "crashed"
    assert "the engine reported hash_mismatch (exit code 3)" in result.error
    assert "this GCV-ERROR line was cut" in result.error and len(result.error) < 5000


@pytest.mark.slow
def test_a_gcv_error_message_over_4000_characters_in_a_short_line_is_the_engines_error(tmp_path: Path) -> None:
    body = ("out.write(b'GCV-ERROR ' + json.dumps({'exit_code': 2, 'kind': 'bad_request', "
            "'message': 'z' * 9000}).encode() + b'\\n')\n")
    result = _run(tmp_path, body, exit_code=2)
    assert result.error_kind == "bad_request", result.error  # before: "crashed" (the model refused it)


def test_bounded_lines_keep_the_head_count_the_rest_and_the_end() -> None:
    data = b"short\n" + b"a" * 100 + b"b" * 50 + b"END\n" + b"no newline at the end"
    lines = list(bounded_lines(io.BufferedReader(io.BytesIO(data)), limit=64, tail=8))
    assert [line.head for line in lines] == [b"short\n", b"a" * 64, b"no newline at the end"]
    assert lines[1].left_out == 100 + 50 + 4 - 64 and lines[1].end == b"bbbbEND\n"[-8:]
    assert lines[0].left_out == lines[2].left_out == 0


def test_a_cut_error_line_needs_its_code_or_kind() -> None:
    assert parse_cut_error('GCV-ERROR {"message":"' + "m" * 100, "", 10) is None
    assert parse_cut_error("plain log line", '"exit_code":3', 10) is None
    found = parse_cut_error('noise GCV-ERROR {"kind":"output_error","message":"disk', "", 5)
    assert found is not None and (found["exit_code"], found["kind"]) == (4, "output_error")
    assert found["message"].startswith("disk") and "5 bytes left out" in found["message"]
    assert json.dumps(found)
