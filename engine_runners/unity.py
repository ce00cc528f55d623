"""The Unity runner: a built player, the editor in batch mode, or the C# harness (CI).

Configuration (operator only, in this order of preference):
- ``GCV_UNITY_PLAYER``: a headless player built with ``Gcv.Editor.GcvBuild``;
- ``GCV_UNITY_EDITOR`` + ``GCV_UNITY_PROJECT``: the editor with ``-executeMethod Gcv.Editor.GcvBatch.Run``;
- ``GCV_UNITY_HARNESS``: ``gcv-unity-harness.exe``, the Gcv.Core sources compiled with mcs and
  run with mono (``GCV_MONO`` overrides the mono executable).
``GCV_UNITY_MODE`` (player | editor | harness) forces one. Capture runs drop ``-nographics``.
Unity writes its log to stdout (``-logFile -``) so the handshake line reaches the supervisor.
"""

from __future__ import annotations

import os
from pathlib import Path

from engine_runners.base import Capabilities, EnvironmentStatus, SubprocessRunner
from engine_runners.bridges import env_path, executable_problem, which
from engine_runners.protocol import RunRequest

EXECUTE_METHOD = "Gcv.Editor.GcvBatch.Run"
MODES = ("player", "editor", "harness")


class UnityRunner(SubprocessRunner):
    name = "unity"
    startup_timeout = 120.0  # the editor imports the project before our code runs
    default_timeout = 1800.0

    def _mode(self) -> str | None:
        forced = os.environ.get("GCV_UNITY_MODE", "").strip()
        if forced:
            return forced
        if env_path("GCV_UNITY_PLAYER"):
            return "player"
        if env_path("GCV_UNITY_EDITOR") or env_path("GCV_UNITY_PROJECT"):
            return "editor"
        if env_path("GCV_UNITY_HARNESS"):
            return "harness"
        return None

    def check(self) -> EnvironmentStatus:
        mode = self._mode()
        if mode is None:
            return EnvironmentStatus(self.name, "not_installed",
                                     "no Unity configured: set GCV_UNITY_PLAYER, or GCV_UNITY_EDITOR and "
                                     "GCV_UNITY_PROJECT, or GCV_UNITY_HARNESS for the C# harness")
        if mode not in MODES:
            return EnvironmentStatus(self.name, "misconfigured",
                                     f"GCV_UNITY_MODE={mode!r}; allowed: {', '.join(MODES)}")
        if mode == "player":
            player = env_path("GCV_UNITY_PLAYER")
            problem = executable_problem(player, "Unity player") if player else "GCV_UNITY_PLAYER is not set"
            if problem:
                return EnvironmentStatus(self.name, "misconfigured", problem + " (player missing)")
            return EnvironmentStatus(self.name, "available", f"Unity player {player}", {"mode": mode})
        if mode == "editor":
            editor, project = env_path("GCV_UNITY_EDITOR"), env_path("GCV_UNITY_PROJECT")
            if editor is None or project is None:
                return EnvironmentStatus(self.name, "misconfigured",
                                         "editor mode needs both GCV_UNITY_EDITOR and GCV_UNITY_PROJECT")
            problem = executable_problem(editor, "Unity editor")
            if problem:
                return EnvironmentStatus(self.name, "misconfigured", problem)
            if not (project / "ProjectSettings" / "ProjectVersion.txt").is_file():
                return EnvironmentStatus(self.name, "misconfigured",
                                         f"project missing: {project} has no ProjectSettings/ProjectVersion.txt")
            return EnvironmentStatus(self.name, "available", f"Unity editor {editor} with {project}",
                                     {"mode": mode})
        exe = env_path("GCV_UNITY_HARNESS")
        if exe is None or not exe.is_file():
            return EnvironmentStatus(self.name, "misconfigured", f"C# harness {exe} does not exist "
                                     "(build it with unity_project/harness/build.sh)")
        mono = os.environ.get("GCV_MONO") or which("mono")
        if not mono:
            return EnvironmentStatus(self.name, "misconfigured", "the C# harness needs mono (Debian: mono-runtime)")
        return EnvironmentStatus(self.name, "available",
                                 f"C# harness {exe} (not Unity: the Gcv.Core sources run on mono)",
                                 {"mode": mode, "mono": mono})

    def capabilities(self) -> Capabilities:
        mode = self._mode()
        real = mode in ("player", "editor")
        return Capabilities(renders_frames=real, measures_frame_times=real, out_of_process=True,
                            implementation="csharp",
                            description="Unity 6 player/editor" if real else "C# core harness (no rendering)")

    def command(self, request_path: Path, request: RunRequest) -> list[str]:
        mode = self._mode()
        graphics = [] if request.capture_ticks else ["-nographics"]
        if mode == "player":
            return [str(env_path("GCV_UNITY_PLAYER")), "-batchmode", *graphics,
                    "-gcvRequest", str(request_path), "-logFile", "-"]
        if mode == "editor":
            return [str(env_path("GCV_UNITY_EDITOR")), "-batchmode", *graphics, "-quit",
                    "-projectPath", str(env_path("GCV_UNITY_PROJECT")), "-executeMethod", EXECUTE_METHOD,
                    "-gcvRequest", str(request_path), "-logFile", "-"]
        mono = os.environ.get("GCV_MONO") or which("mono") or "mono"
        return [mono, str(env_path("GCV_UNITY_HARNESS")), "-gcvRequest", str(request_path)]
