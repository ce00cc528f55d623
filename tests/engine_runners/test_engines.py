"""The Unity and UE5 runners: configuration, command lines, real harness runs, misbehaving engines."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine_runners.requests import build_request
from engine_runners.ue5 import UE5Runner
from engine_runners.unity import UnityRunner
from tests.support.fakes.engine_cmdline import (command_line_to_argv_w, fparse_value, ue_unix_command_line,
                                               ue_windows_command_line, windows_argv, windows_raw_tail)
from tests.support.procutil import wait_gone
from tests.support.simutil import baseline_program
from tests.support.toolchains import require_cpp_harness, require_csharp_harness

FAKE_PLAYER = Path(__file__).resolve().parents[1] / "support" / "fakes" / "fake_player.sh"
ENV_VARS = ("GCV_UNITY_PLAYER", "GCV_UNITY_EDITOR", "GCV_UNITY_PROJECT", "GCV_UNITY_HARNESS", "GCV_UNITY_MODE",
            "GCV_UNITY_RENDERING", "GCV_UNITY_STARTUP_BUDGET", "GCV_UNITY_LIVENESS",
            "GCV_UE_EDITOR_CMD", "GCV_UE_PROJECT", "GCV_UE_GAME", "GCV_UE_HARNESS", "GCV_UE_MODE",
            "GCV_UE_STARTUP_BUDGET", "GCV_UE_LIVENESS", "GCV_FAKE_ENGINE", "GCV_FAKE_FPS", "GCV_FAKE_MODE",
            "GCV_UNITY_ALLOW_VERSION_MISMATCH")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ENV_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("GCV_FAKE_PYTHON", sys.executable)
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).resolve().parents[2]))


def _request(tmp_path: Path, capture: list[int] | None = None, name: str = "out"):
    return build_request(baseline_program(), seed=2, player={"kind": "scripted"}, output_dir=tmp_path / name,
                         run_id="eng-1", capture_ticks=capture)


def test_nothing_configured_is_not_installed() -> None:
    assert UnityRunner().check().status == "not_installed"
    assert UE5Runner().check().status == "not_installed"


def test_misconfigurations_say_what_is_wrong(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GCV_UNITY_PLAYER", str(tmp_path / "nope"))
    status = UnityRunner().check()
    assert status.status == "misconfigured" and "player missing" in status.reason
    monkeypatch.delenv("GCV_UNITY_PLAYER")
    monkeypatch.setenv("GCV_UNITY_EDITOR", str(FAKE_PLAYER))
    monkeypatch.setenv("GCV_UNITY_PROJECT", str(tmp_path))
    assert "project missing" in UnityRunner().check().reason
    monkeypatch.setenv("GCV_UNITY_MODE", "cloud")
    assert UnityRunner().check().status == "misconfigured"
    monkeypatch.setenv("GCV_UE_EDITOR_CMD", str(FAKE_PLAYER))
    status = UE5Runner().check()
    assert status.status == "misconfigured" and "GCV_UE_PROJECT" in status.reason
    (tmp_path / "Game.uproject").write_text("{}")
    monkeypatch.setenv("GCV_UE_PROJECT", str(tmp_path / "Game.uproject"))
    assert UE5Runner().check().status == "available"


def test_unity_command_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "My Project"
    (project / "ProjectSettings").mkdir(parents=True)
    (project / "ProjectSettings" / "ProjectVersion.txt").write_text("m_EditorVersion: 6000.0.40f1\n")
    monkeypatch.setenv("GCV_UNITY_ALLOW_VERSION_MISMATCH", "1")  # the fake editor's path names no version
    monkeypatch.setenv("GCV_UNITY_EDITOR", str(FAKE_PLAYER))
    monkeypatch.setenv("GCV_UNITY_PROJECT", str(project))
    runner = UnityRunner()
    assert runner.check().status == "available"
    req = tmp_path / "dir with space" / "request.json"
    editor = [str(FAKE_PLAYER), "-batchmode", "-nographics", "-quit", "-projectPath", str(project),
              "-executeMethod", "Gcv.Editor.GcvBatch.Run", "-gcvRequest", str(req), "-logFile", "-"]
    assert runner.command(req, _request(tmp_path)) == editor
    assert runner.command(req, _request(tmp_path, capture=[600])) == editor  # the editor never renders
    monkeypatch.setenv("GCV_UNITY_PLAYER", str(FAKE_PLAYER))
    headless = [str(FAKE_PLAYER), "-batchmode", "-nographics", "-gcvRequest", str(req), "-logFile", "-"]
    assert runner.command(req, _request(tmp_path, capture=[600])) == headless  # captures do not drop it
    monkeypatch.setenv("GCV_UNITY_RENDERING", "1")
    assert runner.command(req, _request(tmp_path, capture=[600])) == [
        str(FAKE_PLAYER), "-batchmode", "-gcvRequest", str(req), "-logFile", "-"]
    monkeypatch.setenv("GCV_UNITY_RENDERING", "maybe")
    assert "GCV_UNITY_RENDERING" in runner.check().reason


PATHS = ["/srv/ci/a b/request.json", "/srv/ci/a,b/request.json", "/srv/ci/run (2)/request.json",
         "/srv/ci/Ünïcödé 日本/request.json", "/srv/ci/a, b) c/request.json", "/srv/ci/plain/request.json"]


@pytest.mark.parametrize("path", PATHS)
def test_ue_request_path_survives_unreal_parsing_on_linux(path: str, monkeypatch: pytest.MonkeyPatch,
                                                        tmp_path: Path) -> None:
    project = tmp_path / "Game.uproject"
    project.write_text("{}")
    monkeypatch.setenv("GCV_UE_EDITOR_CMD", str(FAKE_PLAYER))
    monkeypatch.setenv("GCV_UE_PROJECT", str(project))
    runner = UE5Runner()
    runner.platform = "posix"
    argv = runner.command(Path(path), _request(tmp_path))
    assert isinstance(argv, list) and argv[1] == str(project) and argv[2] == "-run=GcvRun"
    line = ue_unix_command_line(argv)  # what UE rebuilds from argv on Linux/macOS
    assert fparse_value(line, "GcvRequest=") == path
    assert fparse_value(line, "run=") == "GcvRun"


WINDOWS_PATHS = [p.replace("/srv/ci", "C:\\CI Builds").replace("/", "\\") for p in PATHS] + [
    "C:\\ci\\run(2)\\request.json",          # parentheses, no space
    "C:\\ci\\a,b\\request.json",             # a comma, no space
    "C:\\ci\\x)y\\request.json",
    "\\\\build-01\\gcv$\\runs\\r(1).json",   # UNC, no space
    "\\\\build-01\\CI Share\\a,b\\r.json",   # UNC with a space and a comma
    "C:\\ci\\Ünïcødé\\請求,1\\request.json",  # non-ASCII, no space
    "C:\\ci\\trail\\",                      # a trailing backslash before UE's closing quote
]


@pytest.mark.parametrize("path", WINDOWS_PATHS)
def test_ue_request_path_survives_unreal_parsing_on_windows(path: str, monkeypatch: pytest.MonkeyPatch,
                                                          tmp_path: Path) -> None:
    """Issue 28.1. UE on Windows does not read the raw command line: ``ProcessCommandLine()``
    in ``LaunchWindows.cpp`` splits ``GetCommandLineW()`` with ``CommandLineToArgvW`` and
    rebuilds it, re-quoting only arguments that hold a space; ``FParse::Value`` then reads the
    value (modelled in tests/support/fakes/engine_cmdline.py). The command line CreateProcess
    gets is ``list2cmdline`` of an argument list (what ``subprocess.Popen`` writes on Windows),
    or the string itself when the runner wrote one (the old code: its quotes were consumed by
    the split, so ``run(2)`` came back as ``run(2``)."""
    import subprocess as sp

    monkeypatch.setenv("GCV_UE_GAME", "C:\\Games\\My Game\\Game.exe")
    monkeypatch.setenv("GCV_UE_PROJECT", str(tmp_path / "ignored.uproject"))
    runner = UE5Runner()
    runner.platform = "nt"
    cmd = runner.command(Path(path), _request(tmp_path, capture=[600]))
    line = cmd if isinstance(cmd, str) else sp.list2cmdline(cmd)
    assert command_line_to_argv_w(line)[0] == "C:\\Games\\My Game\\Game.exe"
    assert fparse_value(ue_windows_command_line(line), "GcvRequest=") == path
    assert "ignored.uproject" not in line and "-game" not in line  # a packaged game gets no project


def test_the_old_pre_quoted_argument_broke_on_both_parsers() -> None:
    """The argument the runner used to build, read the way UE reads it: wrong on both."""
    import subprocess as sp

    path = "C:\\a b\\r.json"
    old = f'-GcvRequest="{path}"'
    assert fparse_value(windows_raw_tail(sp.list2cmdline(["Game.exe", old])), "GcvRequest=") != path
    assert fparse_value(ue_unix_command_line(["ue", '-GcvRequest="/a b/r.json"']), "GcvRequest=") == ""
    assert fparse_value(ue_unix_command_line(["ue", "-GcvRequest=/a,b/r.json"]), "GcvRequest=") == "/a"


def test_ue_refuses_a_path_no_parser_can_carry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "Game.uproject"
    project.write_text("{}")
    monkeypatch.setenv("GCV_UE_EDITOR_CMD", str(FAKE_PLAYER))
    monkeypatch.setenv("GCV_UE_PROJECT", str(project))
    with pytest.raises(ValueError, match="cannot carry"):
        UE5Runner().command(Path('/a"b/request.json'), _request(tmp_path))


def test_windows_argv_model_inverts_list2cmdline() -> None:
    import subprocess as sp

    args = ["C:\\Program Files\\Unity\\Unity.exe", "-gcvRequest", "C:\\a b\\ü,(x)\\r.json", 'q"uote', "trail\\"]
    assert windows_argv(sp.list2cmdline(args)) == args


def test_ue5_command_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "Game.uproject"
    project.write_text("{}")
    monkeypatch.setenv("GCV_UE_EDITOR_CMD", str(FAKE_PLAYER))
    monkeypatch.setenv("GCV_UE_PROJECT", str(project))
    runner = UE5Runner()
    runner.platform = "posix"
    req = tmp_path / "dir with space" / "request.json"
    assert runner.command(req, _request(tmp_path)) == [
        str(FAKE_PLAYER), str(project), "-run=GcvRun", f"-GcvRequest={req}", "-unattended", "-nullrhi",
        "-nosplash", "-stdout", "-FullStdOutLogOutput"]
    editor_game = tmp_path / "UnrealEditor"
    editor_game.write_text("#!/bin/sh\n")
    monkeypatch.setenv("GCV_UE_GAME", str(editor_game))
    game = runner.command(tmp_path / "r.json", _request(tmp_path, capture=[600]))
    assert game[:3] == [str(editor_game), str(project), "-game"] and f'-GcvRequest="{tmp_path / "r.json"}"' in game
    monkeypatch.setenv("GCV_UE_GAME", str(FAKE_PLAYER))  # a packaged game: never given the project
    packaged = runner.command(tmp_path / "r.json", _request(tmp_path, capture=[600]))
    assert packaged[0] == str(FAKE_PLAYER) and str(project) not in packaged and "-game" not in packaged


def test_the_api_takes_no_executable_or_arguments() -> None:
    import inspect

    for runner in (UnityRunner, UE5Runner):
        params = list(inspect.signature(runner.run).parameters)
        assert params == ["self", "request", "timeout", "deadline"]


RUNNERS = [(UnityRunner, "GCV_UNITY_PLAYER", "unity", "model"), (UE5Runner, "GCV_UE_GAME", "ue5", "measured")]


@pytest.mark.slow
@pytest.mark.parametrize("runner_cls,var,label,fps", RUNNERS, ids=["unity", "ue5"])
def test_fake_engine_ok_through_each_runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, runner_cls, var, label,
                                            fps) -> None:
    monkeypatch.setenv(var, str(FAKE_PLAYER))
    monkeypatch.setenv("GCV_FAKE_MODE", "ok")
    monkeypatch.setenv("GCV_FAKE_ENGINE", label)
    monkeypatch.setenv("GCV_FAKE_FPS", fps)
    result = runner_cls().run(_request(tmp_path))
    assert result.ok, result.error
    assert result.engine == label


@pytest.mark.slow
@pytest.mark.parametrize("runner_cls,var,label,fps", RUNNERS, ids=["unity", "ue5"])
@pytest.mark.parametrize("claim", ["handshake", "fps"])
def test_the_runner_names_the_engine_not_the_child(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, runner_cls, var,
                                                   label, fps, claim: str) -> None:
    monkeypatch.setenv(var, str(FAKE_PLAYER))
    monkeypatch.setenv("GCV_FAKE_MODE", "ok")
    monkeypatch.setenv("GCV_FAKE_ENGINE", label if claim == "fps" else "something-else")
    monkeypatch.setenv("GCV_FAKE_FPS", {"model": "measured", "measured": "model"}[fps] if claim == "fps" else fps)
    result = runner_cls().run(_request(tmp_path))
    assert result.error_kind == "protocol_error" and result.engine == label, result.error


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["ok", "hang"])
def test_a_harness_claiming_to_be_the_engine_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        mode: str) -> None:
    harness = tmp_path / "gcv-ue5-harness"
    harness.write_text(f"#!/bin/sh\nexec {sys.executable} {FAKE_PLAYER.parent / 'fake_engine.py'} {mode} \"$@\"\n")
    harness.chmod(0o755)
    monkeypatch.setenv("GCV_UE_HARNESS", str(harness))
    monkeypatch.setenv("GCV_FAKE_ENGINE", "ue5")  # the harness lies
    monkeypatch.setenv("GCV_FAKE_FPS", "measured")
    result = UE5Runner().run(_request(tmp_path), timeout=5)
    assert not result.ok and result.engine == "ue5-harness"
    if mode == "ok":
        assert result.error_kind == "protocol_error", result.error


@pytest.mark.slow
@pytest.mark.parametrize("runner_cls,var,label,fps", RUNNERS, ids=["unity", "ue5"])
@pytest.mark.parametrize("mode,kind", [("hang", "timeout"), ("crash", "crashed"), ("no_telemetry", "no_telemetry"),
                                       ("garbage", "bad_telemetry"), ("wrong_hash", "hash_mismatch"),
                                       ("schema", "bad_telemetry"), ("no_handshake", "no_handshake"),
                                       ("win_abort", "crashed"), ("silent_exit", "no_done")])
def test_misbehaving_engines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, runner_cls, var: str, label: str,
                             fps: str, mode: str, kind: str) -> None:
    monkeypatch.setenv(var, str(FAKE_PLAYER))
    monkeypatch.setenv("GCV_FAKE_MODE", mode)
    monkeypatch.setenv("GCV_FAKE_ENGINE", label)
    monkeypatch.setenv("GCV_FAKE_FPS", fps)
    monkeypatch.setenv(f"{runner_cls.env_prefix}_STARTUP_BUDGET", "2")
    runner = runner_cls()
    started = time.monotonic()
    result = runner.run(_request(tmp_path), timeout=3.0)
    assert time.monotonic() - started < 20
    assert not result.ok and result.error_kind == kind, result.error
    pid_file = tmp_path / "out" / "child.pid"
    if mode in ("hang", "no_handshake"):
        assert wait_gone(int(pid_file.read_text())), "a child of the engine survived"


@pytest.mark.slow
def test_unity_licence_failure_is_reported_as_such(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GCV_UNITY_PLAYER", str(FAKE_PLAYER))
    monkeypatch.setenv("GCV_FAKE_MODE", "unity_licence")
    result = UnityRunner().run(_request(tmp_path))
    assert result.error_kind == "licence", result.error
    assert "No valid Unity Editor license found" in result.error or "License is not active" in result.error


@pytest.mark.slow
def test_ue_missing_module_is_a_setup_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "Game.uproject"
    project.write_text("{}")
    monkeypatch.setenv("GCV_UE_EDITOR_CMD", str(FAKE_PLAYER))
    monkeypatch.setenv("GCV_UE_PROJECT", str(project))
    monkeypatch.setenv("GCV_FAKE_MODE", "ue_missing_module")
    result = UE5Runner().run(_request(tmp_path))
    assert result.error_kind == "engine_setup", result.error


@pytest.mark.slow
def test_zero_frames_from_a_capture_run_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GCV_UNITY_PLAYER", str(FAKE_PLAYER))
    monkeypatch.setenv("GCV_UNITY_RENDERING", "1")
    monkeypatch.setenv("GCV_FAKE_MODE", "zero_frames")
    monkeypatch.setenv("GCV_FAKE_ENGINE", "unity")
    monkeypatch.setenv("GCV_FAKE_FPS", "measured")
    result = UnityRunner().run(_request(tmp_path, capture=[600, 1200]))
    assert result.error_kind == "no_frames", result.error
    monkeypatch.setenv("GCV_FAKE_MODE", "ok")
    good = UnityRunner().run(_request(tmp_path, capture=[600, 1200]))
    assert good.ok and good.frames_source == "engine" and len(good.frames) == 2


@pytest.mark.slow
def test_headless_capture_runs_get_labelled_reference_frames(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GCV_UNITY_PLAYER", str(FAKE_PLAYER))
    monkeypatch.setenv("GCV_FAKE_MODE", "ok")
    monkeypatch.setenv("GCV_FAKE_ENGINE", "unity")
    result = UnityRunner().run(_request(tmp_path, capture=[600, 1200]))
    assert result.ok, result.error
    sent = json.loads((tmp_path / "out" / "request.json").read_text())
    assert sent["capture_ticks"] == []  # a headless player is not asked to render
    assert result.frames_source == "reference" and [Path(f).name for f in result.frames] == [
        "tick_000600.png", "tick_001200.png"]
    assert any("reference renderer" in n for n in result.notes)


@pytest.mark.slow
def test_editor_runs_on_one_project_are_serialised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    project = tmp_path / "proj"
    (project / "ProjectSettings").mkdir(parents=True)
    (project / "ProjectSettings" / "ProjectVersion.txt").write_text("m_EditorVersion: 6000.0.40f1\n")
    monkeypatch.setenv("GCV_UNITY_ALLOW_VERSION_MISMATCH", "1")  # the fake editor's path names no version
    monkeypatch.setenv("GCV_HOME", str(tmp_path / "ws"))
    monkeypatch.setenv("GCV_UNITY_EDITOR", str(FAKE_PLAYER))
    monkeypatch.setenv("GCV_UNITY_PROJECT", str(project))
    monkeypatch.setenv("GCV_FAKE_MODE", "heartbeat")
    monkeypatch.setenv("GCV_FAKE_SECONDS", "1.5")
    monkeypatch.setenv("GCV_FAKE_ENGINE", "unity-editor")
    results = {}

    def one(name: str) -> None:
        results[name] = UnityRunner().run(_request(tmp_path, name=name), timeout=60)

    threads = [threading.Thread(target=one, args=(n,)) for n in ("a", "b")]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert all(r.ok for r in results.values()), [r.error for r in results.values()]
    spans = []
    for name in ("a", "b"):
        log = (tmp_path / name / "run.log").stat()
        spans.append((log.st_mtime - results[name].duration_ms / 1000, log.st_mtime))
    spans.sort()
    assert spans[0][1] <= spans[1][0] + 0.2, f"editor runs overlapped: {spans}"
    assert sum(any("waited" in n for n in r.notes) for r in results.values()) == 1


def test_gcv_engines_says_what_it_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gcv.cli.app import app

    project = tmp_path / "proj"
    (project / "ProjectSettings").mkdir(parents=True)
    (project / "ProjectSettings" / "ProjectVersion.txt").write_text("m_EditorVersion: 6000.0.40f1\n")
    monkeypatch.setenv("GCV_UNITY_ALLOW_VERSION_MISMATCH", "1")  # the fake editor's path names no version
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GCV_UNITY_EDITOR", str(FAKE_PLAYER))
    monkeypatch.setenv("GCV_UNITY_PROJECT", str(project))
    out = CliRunner().invoke(app, ["engines", "--json"])
    unity = next(e for e in json.loads(out.stdout)["engines"] if e["engine"] == "unity")
    checks = {c["check"]: c for c in unity["details"]["checks"]}
    assert checks["licence"]["ok"] is False and "licence error" in checks["licence"]["detail"]
    assert "one at a time" in checks["one editor per project"]["detail"]
    text = CliRunner().invoke(app, ["engines"]).stdout
    assert "licence" in text and "one at a time" in text


@pytest.mark.toolchain
def test_ue5_harness_real_subprocess(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    exe = require_cpp_harness()
    monkeypatch.setenv("GCV_UE_HARNESS", str(exe))
    runner = UE5Runner()
    assert runner.check().status == "available" and "not Unreal" in runner.check().reason
    out = tmp_path / "a dir with spaces"
    result = runner.run(_request(tmp_path, name="a dir with spaces"))
    assert result.ok, result.error
    assert result.engine == "ue5-harness"
    assert result.telemetry["engine"]["implementation"] == "cpp"
    assert (out / "telemetry.json").is_file()


@pytest.mark.toolchain
def test_unity_harness_real_subprocess(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    exe = require_csharp_harness()
    monkeypatch.setenv("GCV_UNITY_HARNESS", str(exe))
    result = UnityRunner().run(_request(tmp_path))
    assert result.ok, result.error
    assert result.engine == "unity-harness"
    assert result.telemetry["engine"]["implementation"] == "csharp"
    assert result.telemetry["engine"]["name"] == "unity-harness"


REQUEST = "make phase 2 a denser bidirectional spiral, but never more than 350 bullets alive and keep the low FPS at 55 or above"


@pytest.mark.toolchain
@pytest.mark.parametrize("engine,var,expected", [("ue5", "GCV_UE_HARNESS", "ue5-harness"),
                                                 ("unity", "GCV_UNITY_HARNESS", "unity-harness")])
def test_gcv_run_end_to_end_on_a_harness(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, engine: str, var: str,
                                         expected: str) -> None:
    from gcv.cli.app import app

    exe = require_cpp_harness() if engine == "ue5" else require_csharp_harness()
    monkeypatch.setenv(var, str(exe))
    monkeypatch.setenv("GCV_HOME", str(tmp_path / "ws"))
    result = CliRunner().invoke(app, ["run", REQUEST, "--yes", "--repair-scope", "fight", "--json", "--engine", engine])
    summary = json.loads(result.stdout)
    assert result.exit_code == 0, result.stdout
    assert summary["status"] == "evidence_ready"
    assert summary["engine"] == engine
    assert summary["engines_used"] == [expected]  # the evidence names the harness, not the engine
    # and so does everything a person reads: the list, the status, the report
    wf = summary["workflow_id"]
    listed = CliRunner().invoke(app, ["list"], env={"COLUMNS": "200"})
    status = CliRunner().invoke(app, ["status", wf], env={"COLUMNS": "200"})
    report = Path(summary["evidence"]["report"]).read_text(encoding="utf-8")
    for text in (listed.stdout, status.stdout, report):
        assert f"{expected} (asked {engine})" in text or f"{expected} (requested {engine})" in text, text[-2000:]
    py = CliRunner().invoke(app, ["run", REQUEST, "--yes", "--repair-scope", "fight", "--json"])
    assert json.loads(py.stdout)["final_candidate_hash"] == summary["final_candidate_hash"]


def test_command_line_to_argv_w_model_inverts_list2cmdline() -> None:
    """The CommandLineToArgvW model reads back what ``subprocess.list2cmdline`` writes (the
    runner's arguments hold no ``"``: the runner refuses those), so a list survives to UE."""
    import subprocess as sp

    args = ["C:\\Games\\My Game\\Game.exe", '-GcvRequest="C:\\ci\\run(2)\\r.json"', "-GcvRequest=C:\\a b\\r.json",
            '-GcvRequest="C:\\ci\\trail\\"', "\\\\srv\\share\\x", "-unattended"]
    assert command_line_to_argv_w(sp.list2cmdline(args)) == args
