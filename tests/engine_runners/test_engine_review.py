"""Issue 28, the engine bridges' second review: each test models the engine's real behaviour
(its source or manual is cited) and failed on the code before the fix."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from engine_runners.requests import build_request
from engine_runners.supervision import Limits, Supervised
from engine_runners.ue5 import UE5Runner
from engine_runners.unity import UnityRunner
from tests.support.simutil import baseline_program

# Normal output of a Unity player started with -batchmode -nographics on a display-less agent
# (Unity's player log prints the desktop mode it found at start-up; with no display it is 0 x 0).
HEADLESS_UNITY_LINES = [
    "Desktop is 0 x 0 @ 0 Hz",
    "Initialize engine version: 6000.0.40f1 (1234abcd5678)",
    "[Subsystems] Discovering subsystems at path /srv/ci/Game_Data/UnitySubsystems",
    "Forcing GfxDevice: Null",
    "GfxDevice: creating device client; threaded=0; jobified=0",
    "NullGfxDevice:",
    "    Version:  NULL 1.0 [1.0]",
    "    Renderer: Null Device",
]


def _request(tmp_path: Path):
    return build_request(baseline_program(), seed=2, player={"kind": "scripted"}, output_dir=tmp_path / "out",
                         run_id="eng-28", capture_ticks=None)


def test_unity_patterns_do_not_match_normal_headless_output() -> None:
    """Issue 28.2. A display-less player run with ``-nographics`` prints ``Desktop is 0 x 0 @ 0 Hz``
    and the Null graphics device's lines as normal start-up output (Unity manual, "Command-line
    arguments": ``-nographics`` creates no graphics device); none of it is a failure."""
    rules = UnityRunner().log_rules()
    matched = [(p.kind, line) for line in HEADLESS_UNITY_LINES for p in rules.problems if p.pattern.search(line)]
    assert matched == []


@pytest.mark.parametrize("runner_cls,label", [(UnityRunner, "unity"), (UE5Runner, "ue5-commandlet")])
def test_the_engines_own_error_line_outranks_a_log_pattern(runner_cls: type, label: str, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28.2. When the engine printed its own ``GCV-ERROR`` line (here ``hash_mismatch``), that
    is the verdict, even if a known-problem pattern also matched a line of the log: the engine
    knows why it failed, the pattern guesses. Before the fix the pattern was judged first."""
    runner = runner_cls()
    problem = runner.log_rules().problems[-1]  # no_graphics for both engines
    sup = Supervised(exit_code=3, handshake={"engine": label}, ended_by=None, duration_ms=10,
                     log_path=tmp_path / "engine.log", error={"kind": "hash_mismatch", "exit_code": 3,
                                                              "message": "state hash differs at tick 40"},
                     phase="simulation", problems=[(problem, "a line the pattern matched")])
    request = _request(tmp_path)
    plan = runner.plan(request)
    plan.label = label
    result = runner.judge(request, plan, sup, Limits(startup=60, liveness=30, timeout=120), [])
    assert result.error_kind == "hash_mismatch", result.error
    assert "state hash differs" in (result.error or "")


@pytest.mark.slow
def test_silence_before_the_handshake_is_not_a_hang(tmp_path: Path) -> None:
    """Issue 28.4. A Shipping UE game compiles UE_LOG out and prints nothing before GcvBridge's
    handshake (UE's ``Build.h``: ``NO_LOGGING`` in Shipping), and a Unity import can be silent
    for minutes; before the handshake only the start-up budget applies, so an engine silent
    for longer than the liveness limit that then handshakes and completes is a good run."""
    from tests.engine_runners.test_supervision import FakeRunner

    runner = FakeRunner("silent_then_ok", GCV_FAKE_SECONDS="2.0")
    runner.startup_budget, runner.liveness_timeout = 20.0, 0.7
    result = runner.run(_request(tmp_path), timeout=30)
    assert result.ok, result.error


UNITY = Path(__file__).resolve().parents[2] / "unity_project"


def test_unity_graphics_settings_keep_all_instancing_variants() -> None:
    """Issue 28.3. Unity manual, Graphics settings, "Shader stripping": Instancing Variants is
    Strip Unused (``m_InstancingStripping: 0``, the default), Strip All (1) or Keep All (2).
    The view draws instanced with materials made at run time, which the build's stripper
    cannot see, so the committed ProjectSettings/GraphicsSettings.asset says Keep All, and the
    EditMode test reads the setting through the editor (no Unity runs here)."""
    import re

    asset = (UNITY / "ProjectSettings" / "GraphicsSettings.asset").read_text(encoding="utf-8")
    assert asset.startswith("%YAML 1.1\n%TAG !u! tag:unity3d.com,2011:\n--- !u!30 &1\nGraphicsSettings:\n")
    assert re.findall(r"^  m_InstancingStripping: (\d+)$", asset, re.M) == ["2"]
    tests = (UNITY / "Assets" / "Gcv" / "Tests" / "BuildMachineTests.cs").read_text(encoding="utf-8")
    assert "GraphicsSettingsKeepAllInstancingVariants" in tests
    assert 'FindProperty("m_InstancingStripping")' in tests and "stripping.intValue" in tests


class _Fn:
    """A kernel32 export: records its declared signature and its calls."""

    def __init__(self, name: str, calls: list[tuple[str, tuple[object, ...]]], result: object) -> None:
        self.name, self.calls, self.result = name, calls, result
        self.argtypes: list[object] | None = None
        self.restype: object = None

    def __call__(self, *args: object) -> object:
        self.calls.append((self.name, args))
        return self.result


class _Kernel32:
    def __init__(self, set_information: int = 1) -> None:
        self.calls: list[tuple[str, tuple[object, ...]]] = []
        results = {"CreateJobObjectW": 0x7FFF_0000_1234, "SetInformationJobObject": set_information,
                   "OpenProcess": 0x7FFF_0000_5678, "AssignProcessToJobObject": 1, "TerminateJobObject": 1,
                   "CloseHandle": 1}
        for name, result in results.items():
            setattr(self, name, _Fn(name, self.calls, result))


def _jobs(monkeypatch: pytest.MonkeyPatch, k32: _Kernel32) -> object:
    """``Kernel32Jobs()`` as on Windows, with ``ctypes.WinDLL("kernel32")`` answering the stand-in."""
    import ctypes

    from engine_runners.process_tree import Kernel32Jobs

    monkeypatch.setattr(ctypes, "WinDLL", lambda name, **kw: k32, raising=False)
    monkeypatch.setattr(ctypes, "get_last_error", lambda: 1450, raising=False)
    return Kernel32Jobs()


def test_windows_job_object_calls_declare_their_signatures(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28.5. ctypes passes an undeclared argument as a C ``int`` (the ctypes documentation,
    "Specifying the required argument types"), which cuts a 64-bit ``HANDLE``; every kernel32
    call the job object makes must declare ``argtypes`` and ``restype`` (the Win32 signatures:
    ``CreateJobObjectW(LPSECURITY_ATTRIBUTES, LPCWSTR) -> HANDLE``, ``SetInformationJobObject(
    HANDLE, JOBOBJECTINFOCLASS, LPVOID, DWORD) -> BOOL`` ...)."""
    from ctypes import wintypes

    k32 = _Kernel32()
    jobs: Any = _jobs(monkeypatch, k32)
    for name in ("CreateJobObjectW", "SetInformationJobObject", "OpenProcess", "AssignProcessToJobObject",
                 "TerminateJobObject", "CloseHandle"):
        fn = getattr(k32, name)
        assert fn.argtypes, f"{name} declares no argtypes"
        assert fn.restype is not None, f"{name} declares no restype"
    assert k32.CreateJobObjectW.restype is wintypes.HANDLE and k32.OpenProcess.restype is wintypes.HANDLE
    assert k32.AssignProcessToJobObject.argtypes == [wintypes.HANDLE, wintypes.HANDLE]
    job = jobs.create_job()
    assert job == 0x7FFF_0000_1234 and jobs.assign(job, 4242)


def test_windows_job_without_kill_on_close_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28.5. ``SetInformationJobObject`` returns FALSE on failure (Win32 documentation);
    a job without JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE would not end the engine with gcv, so its
    handle is closed and the tree falls back to ending the processes it knows one by one."""
    from engine_runners.process_tree import WindowsTree

    k32 = _Kernel32(set_information=0)
    jobs: Any = _jobs(monkeypatch, k32)
    with pytest.raises(OSError, match="SetInformationJobObject"):
        jobs.create_job()
    assert ("CloseHandle", (0x7FFF_0000_1234,)) in k32.calls
    tree = WindowsTree(jobs)

    class _Proc:
        pid = 4242

    tree.attach(_Proc())  # type: ignore[arg-type]
    assert tree.job is None and tree.in_job is False


@pytest.mark.parametrize("name", ["UnrealEditor-Win64-Debug.exe", "UnrealEditor-Win64-DebugGame.exe",
                                  "UnrealEditor-Win64-DebugGame-Cmd.exe", "UnrealEditor-Linux-Debug",
                                  "UnrealEditor-Linux-DebugGame", "UnrealEditor-Mac-DebugGame"])
def test_debug_editor_binaries_are_editors(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28.5. UnrealBuildTool names a non-Development editor binary
    ``UnrealEditor-<Platform>-<Configuration>`` (UE docs, "Build Configurations Reference":
    Debug and DebugGame binaries carry the platform and configuration in their name). Such an
    editor needs the project and ``-game``; it was taken for a packaged game and given neither."""
    from engine_runners.ue5 import is_editor_binary

    assert is_editor_binary(Path(name))
    project = tmp_path / "Game.uproject"
    project.write_text("{}")
    monkeypatch.setenv("GCV_UE_GAME", str(tmp_path / name))
    monkeypatch.setenv("GCV_UE_PROJECT", str(project))
    for var in ("GCV_UE_EDITOR_CMD", "GCV_UE_MODE", "GCV_UE_HARNESS"):
        monkeypatch.delenv(var, raising=False)
    runner = UE5Runner()
    runner.platform = "posix"
    cmd = runner.command(tmp_path / "r.json", build_request(baseline_program(), seed=2, player={"kind": "scripted"},
                                                            output_dir=tmp_path / "out", run_id="eng-28",
                                                            capture_ticks=[60]))
    assert cmd[1:3] == [str(project), "-game"]


@pytest.mark.parametrize("name", ["GcvGame.exe", "GcvGame-Win64-Shipping.exe", "GcvGame-Linux-Test",
                                  "UnrealEditorHelper.exe"])
def test_packaged_games_are_not_editors(name: str) -> None:
    from engine_runners.ue5 import is_editor_binary

    assert not is_editor_binary(Path(name))


def test_unity_licence_pattern_knows_the_machine_identification_error() -> None:
    """Issue 28.5. An activated licence moved to another machine (or a changed machine, e.g. a
    new network card on a build agent) makes the editor log "Machine identification is invalid
    for current license" (Unity's licensing troubleshooting pages) and exit without running."""
    rules = UnityRunner().log_rules()
    line = "[Licensing::Module] Error: Machine identification is invalid for current license."
    assert [p.kind for p in rules.problems if p.pattern.search(line)] == ["licence"]


def _ue_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, display: str | None) -> UE5Runner:
    game = tmp_path / "GcvGame.sh"
    game.write_text("#!/bin/sh\n")
    game.chmod(0o755)
    for var in ("GCV_UE_EDITOR_CMD", "GCV_UE_MODE", "GCV_UE_HARNESS", "GCV_UE_PROJECT", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(var, raising=False)
    if display is not None:
        monkeypatch.setenv("DISPLAY", display)
    monkeypatch.setenv("GCV_UE_GAME", str(game))
    monkeypatch.setattr(sys, "platform", "linux")
    runner = UE5Runner()
    runner.platform = "posix"
    return runner


def test_ue_game_on_a_display_less_linux_agent_renders_off_screen(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28.5. UE's Linux game needs a window unless started with ``-RenderOffScreen``
    (UE docs, "Command-Line Arguments" / Linux pixel streaming and headless rendering: Vulkan
    renders without a display then). With no DISPLAY/WAYLAND_DISPLAY the runner passes it, and
    ``gcv engines`` says so in a display check; with a display it does neither."""
    request = build_request(baseline_program(), seed=2, player={"kind": "scripted"}, output_dir=tmp_path / "out",
                            run_id="eng-28", capture_ticks=[60])
    runner = _ue_game(tmp_path, monkeypatch, None)
    assert "-RenderOffScreen" in runner.command(tmp_path / "r.json", request)
    checks = {c["check"]: c for c in runner.check().details["checks"]}
    assert "RenderOffScreen" in checks["display"]["detail"]
    runner = _ue_game(tmp_path, monkeypatch, ":0")
    assert "-RenderOffScreen" not in runner.command(tmp_path / "r.json", request)
    checks = {c["check"]: c for c in runner.check().details["checks"]}
    assert "window" in checks["display"]["detail"]


def test_headless_unity_player_prints_heartbeats() -> None:
    """Issue 28.5. The headless player (no graphics device: ``-nographics`` or a Dedicated
    Server build) simulates the whole fight in ``Start()``; without heartbeats in that loop a
    fight longer than the liveness limit is ended as hung. No Unity runs here, so the bridge's
    source is read: the headless branch must tick a ``Heartbeat`` per step."""
    import re

    source = (UNITY / "Assets" / "Gcv" / "Runtime" / "GcvRunner.cs").read_text(encoding="utf-8")
    headless = source[source.index("if (!render)"):source.index("foreach (long t in session.Request.CaptureTicks)")]
    assert "new Heartbeat(options, RunProtocol.HeartbeatMs)" in headless
    assert re.search(r"while \(session\.Sim\.Step\(\)\)\s*\w+\.Tick\(session\.Sim\.Tick - 1\);", headless)


def test_ue_readme_names_the_linux_editor_binary_and_a_warm_up_that_compiles_shaders() -> None:
    """Issue 28.5. An installed UE on Linux ships ``Engine/Binaries/Linux/UnrealEditor`` and no
    ``UnrealEditor-Cmd`` (that console variant exists on Windows only), and a ``-nullrhi``
    commandlet starts no renderer, so it compiles none of the shaders game mode needs (UE docs,
    "Derived Data Cache": ``-run=DerivedDataCache -fill`` fills it for a target platform)."""
    readme = (Path(__file__).resolve().parents[2] / "ue5_plugin" / "README.md").read_text(encoding="utf-8")
    assert "Binaries/Linux/UnrealEditor`" in readme
    assert not any("Binaries/Linux" in line and "UnrealEditor-Cmd" in line for line in readme.splitlines())
    first_run = readme[readme.index("**First-run times.**"):readme.index("**Build configuration.**")]
    assert "-run=DerivedDataCache -fill" in first_run
    assert "-run=GcvRun" not in first_run


def _editor_at(root: Path, version: str) -> Path:
    editor = root / "Hub" / "Editor" / version / "Editor" / "Unity"
    editor.parent.mkdir(parents=True)
    editor.write_text("#!/bin/sh\n")
    editor.chmod(0o755)
    return editor


def test_gcv_engines_refuses_a_mismatched_unity_editor_unless_allowed(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28 (runbook: version pinning). ``ProjectSettings/ProjectVersion.txt`` pins the
    editor (``m_EditorVersion``); opening the project with another editor re-imports all of
    ``Library/`` and may upgrade assets (Unity manual, "Upgrading Unity"). Unity Hub installs
    each editor under a folder named for its version, so a mismatch is refused, not only
    warned about, unless ``GCV_UNITY_ALLOW_VERSION_MISMATCH=1``."""
    project = tmp_path / "proj"
    (project / "ProjectSettings").mkdir(parents=True)
    (project / "ProjectSettings" / "ProjectVersion.txt").write_text("m_EditorVersion: 6000.0.23f1\n")
    for var in ("GCV_UNITY_PLAYER", "GCV_UNITY_HARNESS", "GCV_UNITY_MODE", "GCV_UNITY_ALLOW_VERSION_MISMATCH"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("GCV_UNITY_PROJECT", str(project))
    monkeypatch.setenv("GCV_UNITY_EDITOR", str(_editor_at(tmp_path / "a", "6000.0.23f1")))
    assert UnityRunner().check().status == "available"
    monkeypatch.setenv("GCV_UNITY_EDITOR", str(_editor_at(tmp_path / "b", "6000.1.2f1")))
    status = UnityRunner().check()
    assert status.status == "misconfigured" and "6000.0.23f1" in status.reason
    assert "GCV_UNITY_ALLOW_VERSION_MISMATCH=1" in status.reason
    monkeypatch.setenv("GCV_UNITY_ALLOW_VERSION_MISMATCH", "1")
    status = UnityRunner().check()
    checks = {c["check"]: c for c in status.details["checks"]}
    assert status.status == "available" and checks["editor version"]["ok"] is False


def test_runbook_and_windows_workflow_are_in_the_repository() -> None:
    """Issue 28 (docs): the build-agent runbook is in docs/engines.md and linked from the README;
    the Windows workflow says it cannot run on GCV's own machines, and .ci/run does not use it."""
    repo = Path(__file__).resolve().parents[2]
    runbook = (repo / "docs" / "engines.md").read_text(encoding="utf-8")
    for heading in ("## Build-agent runbook", "### Unity", "### Unreal Engine", "### The Windows CI workflow"):
        assert heading in runbook
    for needed in ("GCV_UNITY_ALLOW_VERSION_MISMATCH", "-returnlicense", "Library/", "IL2CPP", "xvfb-run",
                   "-run=DerivedDataCache -fill", "BuildCookRun"):
        assert needed in runbook, needed
    assert "docs/engines.md#build-agent-runbook" in (repo / "README.md").read_text(encoding="utf-8")
    workflow = (repo / ".github" / "workflows" / "windows.yml").read_text(encoding="utf-8")
    assert "runs-on: windows-latest" in workflow and "CANNOT run on GCV's own CI machines" in workflow
    assert "test_supervision.py" in workflow and "dotnet build" in workflow
    ci = repo / ".ci" / "run"
    if ci.is_file():
        assert "windows.yml" not in ci.read_text(encoding="utf-8", errors="replace")
