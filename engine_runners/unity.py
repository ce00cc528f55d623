"""The Unity runner: a built player, the editor in batch mode, or the C# harness (CI).

Configuration (operator only, in this order of preference):
- ``GCV_UNITY_PLAYER``: a player built with ``Gcv.Editor.GcvBuild``;
- ``GCV_UNITY_EDITOR`` + ``GCV_UNITY_PROJECT``: the editor with ``-executeMethod Gcv.Editor.GcvBatch.Run``;
- ``GCV_UNITY_HARNESS``: ``gcv-unity-harness.exe``, the Gcv.Core sources compiled with mcs and
  run with mono (``GCV_MONO`` overrides the mono executable).
``GCV_UNITY_MODE`` (player | editor | harness) forces one.

Rendering: every run gets ``-nographics`` unless the operator declares that this machine can
render (``GCV_UNITY_RENDERING=1``: a desktop session or a virtual display, and a normal
player build, not a Dedicated Server one). Then the player renders, captures the requested
frames and measures frame times (``fps_source: measured``); a capture run that yields no
frame is an error. Without rendering, the engine is sent the request without capture ticks
and the frames come from the reference renderer, labelled ``reference``. The editor never
renders (``unity-editor``, modeled figures), and two editors on one project abort, so
editor-mode runs on the same project are serialised (:func:`engine_runners.run_lock.editor_slot`).

Budgets: ``GCV_UNITY_STARTUP_BUDGET`` (seconds from launch to the handshake; default 3600
for the editor, whose first run imports the project, 300 for a player) and
``GCV_UNITY_LIVENESS`` (the longest silence; default 300 s). Unity writes its log to stdout
(``-logFile -``), so its own import/compile progress counts as life and licence failures
are recognised there.
"""

from __future__ import annotations

import os
import re
import sys
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from engine_runners.base import Capabilities, EnvironmentStatus, Plan, SubprocessRunner, env_seconds
from engine_runners.bridges import env_flag, env_path, executable_problem, which
from engine_runners.protocol import RunRequest
from engine_runners.run_lock import editor_slot
from engine_runners.supervision import Limits, LogRules, Problem

EXECUTE_METHOD = "Gcv.Editor.GcvBatch.Run"
MODES = ("player", "editor", "harness")
LABELS = {"player": "unity", "editor": "unity-editor", "harness": "unity-harness"}
STARTUP_DEFAULTS = {"player": 300.0, "editor": 3600.0, "harness": 60.0}

# Unity's own progress while it imports the project and compiles scripts (a cold first run).
IMPORT_COMPILE = tuple(re.compile(p) for p in (
    r"Start importing|Asset Pipeline Refresh|Refreshing native plugins|\[ScriptCompilation\]",
    r"Compiling (scripts|shader|\d+ shader)|Reloading assemblies|Domain Reload|AssetDatabase",
    r"Importing |Package Manager|Resolving packages|\[Package Manager\]|Rebuilding Library",
))
LICENCE_HINT = ("Unity licence or activation failure: activate this machine's editor (Unity Hub, "
                "or -username/-password/-serial, or a floating licence server) before running; "
                "see unity_project/README.md")
GRAPHICS_HINT = ("the player could not start its graphics device: this machine cannot render "
                 "(unset GCV_UNITY_RENDERING to run headless, or give it a display)")
# Patterns name failures only: a -batchmode -nographics player prints "Desktop is 0 x 0 @ 0 Hz"
# as normal output, so that line is no graphics failure (issue 28.2).
PROBLEMS = (
    Problem("licence", re.compile(r"No valid Unity Editor license found|has not been activated with a valid License"
                                  r"|License is not active|Failed to activate (entitlement|ULF) license"
                                  r"|No ULF license found|Failed to activate/update license"
                                  r"|Access token is unavailable; failed to update"
                                  r"|Machine identification is invalid for current license", re.I), LICENCE_HINT),
    Problem("no_graphics", re.compile(r"Unable to open display|Failed to initialize graphics|No supported renderers found"
                                      r"|Failed to create (window|device)", re.I), GRAPHICS_HINT),
)


def licence_locations() -> list[Path]:
    """Where Unity keeps an activated licence (serial ``.ulf``, named-user entitlements, or a
    floating-licence client config), per the Unity manual's licence file locations."""
    home = Path.home()
    if sys.platform.startswith("win"):
        data = Path(os.environ.get("PROGRAMDATA", r"C:\ProgramData"))
        local = Path(os.environ.get("LOCALAPPDATA", str(home / "AppData" / "Local")))
        return [data / "Unity" / "Unity_lic.ulf", local / "Unity" / "licenses", data / "Unity" / "config" /
                "services-config.json"]
    if sys.platform == "darwin":
        return [Path("/Library/Application Support/Unity/Unity_lic.ulf"), home / "Library" / "Unity" / "licenses",
                Path("/Library/Application Support/Unity/config/services-config.json")]
    return [home / ".local" / "share" / "unity3d" / "Unity" / "Unity_lic.ulf", home / ".config" / "unity3d" / "Unity" /
            "licenses", Path("/usr/share/unity3d/config/services-config.json")]


class UnityRunner(SubprocessRunner):
    name = "unity"
    liveness_timeout = 300.0
    default_timeout = 1800.0
    env_prefix = "GCV_UNITY"

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

    def rendering(self) -> bool:
        """The operator declared this machine can render (player mode only)."""
        return env_flag("GCV_UNITY_RENDERING")

    def engine_label(self) -> str:
        return LABELS.get(self._mode() or "", self.name)

    def check(self) -> EnvironmentStatus:
        mode = self._mode()
        if mode is None:
            return EnvironmentStatus(self.name, "not_installed",
                                     "no Unity configured: set GCV_UNITY_PLAYER, or GCV_UNITY_EDITOR and "
                                     "GCV_UNITY_PROJECT, or GCV_UNITY_HARNESS for the C# harness")
        if mode not in MODES:
            return EnvironmentStatus(self.name, "misconfigured",
                                     f"GCV_UNITY_MODE={mode!r}; allowed: {', '.join(MODES)}")
        try:
            self.rendering()
            limits = self.limits(None, None)
        except ValueError as exc:
            return EnvironmentStatus(self.name, "misconfigured", str(exc))
        details: dict[str, Any] = {"mode": mode, "engine_label": LABELS[mode],
                                   "startup_budget_s": limits.startup, "liveness_s": limits.liveness}
        checks: list[dict[str, Any]] = []
        details["checks"] = checks
        if mode == "player":
            player = env_path("GCV_UNITY_PLAYER")
            problem = executable_problem(player, "Unity player") if player else "GCV_UNITY_PLAYER is not set"
            if problem:
                return EnvironmentStatus(self.name, "misconfigured", problem + " (player missing)", details)
            render = self.rendering()
            details["rendering"] = render
            checks.append({"check": "rendering", "ok": True,
                           "detail": "declared (GCV_UNITY_RENDERING=1): no -nographics; captures and measured frame "
                                     "times by the player; needs a normal player build and a display"
                           if render else "not declared: -nographics; frames from the reference renderer, "
                                          "frame figures modeled"})
            if render and sys.platform.startswith("linux") and not (os.environ.get("DISPLAY")
                                                                    or os.environ.get("WAYLAND_DISPLAY")):
                checks.append({"check": "display", "ok": False,
                               "detail": "rendering declared but neither DISPLAY nor WAYLAND_DISPLAY is set "
                                         "(run under a desktop session or xvfb-run)"})
            return EnvironmentStatus(self.name, "available", f"Unity player {player}", details)
        if mode == "editor":
            editor, project = env_path("GCV_UNITY_EDITOR"), env_path("GCV_UNITY_PROJECT")
            if editor is None or project is None:
                return EnvironmentStatus(self.name, "misconfigured",
                                         "editor mode needs both GCV_UNITY_EDITOR and GCV_UNITY_PROJECT", details)
            problem = executable_problem(editor, "Unity editor")
            if problem:
                return EnvironmentStatus(self.name, "misconfigured", problem, details)
            version_file = project / "ProjectSettings" / "ProjectVersion.txt"
            if not version_file.is_file():
                return EnvironmentStatus(self.name, "misconfigured",
                                         f"project missing: {project} has no ProjectSettings/ProjectVersion.txt",
                                         details)
            found = [str(p) for p in licence_locations() if p.exists()]
            checks.append({"check": "licence", "ok": bool(found),
                           "detail": f"found {found[0]}" if found else
                           "no activated licence in the usual places (" + ", ".join(map(str, licence_locations()))
                           + "); an unactivated editor fails every run with a licence error"})
            version = version_file.read_text(encoding="utf-8", errors="replace")
            match = re.search(r"m_EditorVersion:\s*(\S+)", version)
            if match and match.group(1) not in str(editor):
                # A different editor re-imports the whole project (and may upgrade its assets):
                # refused unless the operator says the mismatch is meant (issue 28, runbook).
                mismatch = (f"the project wants Unity {match.group(1)}; {editor} does not name that version "
                            "(a different editor re-imports the whole project and may upgrade its assets)")
                try:
                    allowed = env_flag("GCV_UNITY_ALLOW_VERSION_MISMATCH")
                except ValueError as exc:
                    return EnvironmentStatus(self.name, "misconfigured", str(exc), details)
                if not allowed:
                    return EnvironmentStatus(self.name, "misconfigured",
                                             mismatch + "; install that editor (Unity Hub installs it under a "
                                             "folder named for the version) or set "
                                             "GCV_UNITY_ALLOW_VERSION_MISMATCH=1", details)
                checks.append({"check": "editor version", "ok": False,
                               "detail": mismatch + " (allowed: GCV_UNITY_ALLOW_VERSION_MISMATCH=1)"})
            checks.append({"check": "one editor per project", "ok": True,
                           "detail": "editor-mode runs on this project run one at a time (batches and "
                                     "populations wait for each other); build a player to run in parallel"})
            checks.append({"check": "rendering", "ok": True,
                           "detail": "the editor never renders: frames from the reference renderer, frame figures "
                                     "modeled"})
            return EnvironmentStatus(self.name, "available", f"Unity editor {editor} with {project}", details)
        exe = env_path("GCV_UNITY_HARNESS")
        if exe is None or not exe.is_file():
            return EnvironmentStatus(self.name, "misconfigured", f"C# harness {exe} does not exist "
                                     "(build it with unity_project/harness/build.sh)", details)
        mono = os.environ.get("GCV_MONO") or which("mono")
        if not mono:
            return EnvironmentStatus(self.name, "misconfigured",
                                     "the C# harness needs mono (Debian: mono-runtime)", details)
        details["mono"] = mono
        return EnvironmentStatus(self.name, "available",
                                 f"C# harness {exe} (not Unity: the Gcv.Core sources run on mono)", details)

    def capabilities(self) -> Capabilities:
        mode = self._mode()
        renders = mode == "player" and self._safe_rendering()
        descriptions = {"player": "Unity 6 player" + (" (renders)" if renders else " (headless)"),
                        "editor": "Unity 6 editor in batch mode (never renders)"}
        return Capabilities(renders_frames=renders, measures_frame_times=renders, out_of_process=True,
                            implementation="csharp",
                            description=descriptions.get(mode or "", "C# core harness (no rendering)"))

    def _safe_rendering(self) -> bool:
        try:
            return self.rendering()
        except ValueError:
            return False

    def limits(self, timeout: float | None, deadline: float | None) -> Limits:
        mode = self._mode() or "player"
        startup = env_seconds("GCV_UNITY_STARTUP_BUDGET", STARTUP_DEFAULTS.get(mode, 300.0))
        liveness = env_seconds("GCV_UNITY_LIVENESS", self.liveness_timeout)
        return Limits(startup=startup, liveness=liveness,
                      timeout=timeout if timeout is not None else self.default_timeout, deadline=deadline,
                      shutdown_grace=self.shutdown_grace)

    def plan(self, request: RunRequest) -> Plan:
        if self._mode() == "player" and self.rendering():
            return Plan("unity", "measured", True, request, [])
        return super().plan(request)

    def exclusive(self, wait: float) -> AbstractContextManager[float]:
        project = env_path("GCV_UNITY_PROJECT")
        if self._mode() == "editor" and project is not None:
            return editor_slot(project, wait)
        return super().exclusive(wait)

    def log_rules(self) -> LogRules:
        return LogRules(import_compile=IMPORT_COMPILE, problems=PROBLEMS)

    def no_handshake_hint(self) -> str:
        return " (Unity exits 0 after some start-up failures, a licence error for one; read the log)"

    def fps_hint(self, plan: Plan) -> str:
        if plan.fps_source == "measured":
            return ("; GCV_UNITY_RENDERING=1 was declared but the player ran headless (a Dedicated Server build, "
                    "or no graphics device)")
        return ""

    def command(self, request_path: Path, request: RunRequest) -> list[str]:
        mode = self._mode()
        if mode == "player":
            graphics = [] if self.rendering() else ["-nographics"]
            return [str(env_path("GCV_UNITY_PLAYER")), "-batchmode", *graphics,
                    "-gcvRequest", str(request_path), "-logFile", "-"]
        if mode == "editor":
            return [str(env_path("GCV_UNITY_EDITOR")), "-batchmode", "-nographics", "-quit",
                    "-projectPath", str(env_path("GCV_UNITY_PROJECT")), "-executeMethod", EXECUTE_METHOD,
                    "-gcvRequest", str(request_path), "-logFile", "-"]
        mono = os.environ.get("GCV_MONO") or which("mono") or "mono"
        return [mono, str(env_path("GCV_UNITY_HARNESS")), "-gcvRequest", str(request_path)]
