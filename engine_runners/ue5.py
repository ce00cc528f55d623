"""The Unreal Engine 5 runner: the commandlet, the game for capture runs, or the C++ harness (CI).

Configuration (operator only):
- ``GCV_UE_EDITOR_CMD`` + ``GCV_UE_PROJECT``: ``UnrealEditor-Cmd <Project>.uproject -run=GcvRun``
  (headless, ``-nullrhi``; engine ``ue5-commandlet``, modeled frame figures); used for runs
  without frames, and for capture runs when no game is configured (frames then come from the
  reference renderer, labelled ``reference``);
- ``GCV_UE_GAME``: a game that renders (engine ``ue5``, measured frame figures, captures):
  either a packaged game (``<Project>.exe``; ``GCV_UE_PROJECT`` is never passed to it) or the
  editor binary (``UnrealEditor``), which is then given ``GCV_UE_PROJECT`` and ``-game``;
- ``GCV_UE_HARNESS``: ``gcv-ue5-harness``, the GcvSimCore headers compiled with g++.
``GCV_UE_MODE`` (commandlet | game | harness) forces one.

Budgets: ``GCV_UE_STARTUP_BUDGET`` (default 3600 s: a first run compiles the global shader
cache) and ``GCV_UE_LIVENESS`` (default 300 s). The request path reaches UE through its own
command-line parser (``FParse::Value``); :mod:`engine_runners.engine_args` builds the argument
per platform so paths with spaces, commas, parentheses and non-ASCII characters arrive intact.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

from engine_runners.base import Capabilities, EnvironmentStatus, Plan, SubprocessRunner, env_seconds
from engine_runners.bridges import env_path, executable_problem
from engine_runners.engine_args import ue_command
from engine_runners.process_tree import current_platform
from engine_runners.protocol import RunRequest
from engine_runners.supervision import Limits, LogRules, Problem

MODES = ("commandlet", "game", "harness")
LABELS = {"commandlet": "ue5-commandlet", "game": "ue5", "harness": "ue5-harness"}
STARTUP_DEFAULTS = {"commandlet": 3600.0, "game": 3600.0, "harness": 60.0}
# The editor binary in every build configuration: Development (``UnrealEditor``), and Debug or
# DebugGame, which UBT names ``UnrealEditor-<Platform>-<Configuration>`` (issue 28.5).
EDITOR_BINARY = re.compile(r"^(UnrealEditor|UE4Editor|UE5Editor)(-(Win64|Linux|LinuxArm64|Mac)-(Debug|DebugGame))?"
                           r"(-Cmd)?(\.exe)?$", re.I)

IMPORT_COMPILE = tuple(re.compile(p) for p in (
    r"Compiling (\d+ )?shaders|Shaders left to compile|ShaderCompileWorker|LogShaderCompilers",
    r"DerivedDataCache|LogDerivedDataCache|Building \d+ actions|AssetRegistryGather|Discovering assets",
    r"LogCook|Precaching|Loading asset registry|LogAssetRegistry",
))
SETUP_HINT = ("Unreal could not load what GCV needs: build the project's editor target with the GcvBridge "
              "plugin enabled (see ue5_plugin/README.md, build-machine checklist)")
RHI_HINT = "this machine cannot start Unreal's renderer for a game run (no suitable GPU/driver or display)"
PROBLEMS = (
    Problem("engine_setup", re.compile(r"failed to load because module '[^']+' could not be found"
                                       r"|modules are missing or built with a different engine version"
                                       r"|(Could not|Unable to|Failed to) find (a )?commandlet"
                                       r"|Plugin '[^']*GcvBridge[^']*' failed to load"
                                       r"|Incompatible or missing module", re.I), SETUP_HINT),
    Problem("no_graphics", re.compile(r"A D3D1[12]-compatible GPU|Failed to initialize (the )?RHI|Vulkan Driver is required"
                                      r"|Cannot find a compatible Vulkan|Unable to initialize SDL|FAILED TO CREATE WINDOW",
                                      re.I), RHI_HINT),
)


def is_editor_binary(path: Path) -> bool:
    """The editor (given the project and ``-game``), not a packaged game."""
    return bool(EDITOR_BINARY.match(path.name))


def linux_without_display() -> bool:
    """A Linux agent with no X or Wayland display: UE's game then renders only with
    ``-RenderOffScreen`` (Vulkan without a window)."""
    return sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def plugin_status(project: Path) -> tuple[bool | None, str]:
    """(enabled?, detail) for GcvBridge in a .uproject: True, False (explicitly disabled) or
    None (not found where UE would find it: Plugins/, the Plugins list, AdditionalPluginDirectories)."""
    try:
        data = json.loads(project.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError) as exc:
        return None, f"cannot read {project.name}: {exc}"
    entries = [p for p in data.get("Plugins", []) if isinstance(p, dict) and p.get("Name") == "GcvBridge"]
    if entries and entries[0].get("Enabled") is False:
        return False, f"{project.name} disables the GcvBridge plugin"
    if (project.parent / "Plugins" / "GcvBridge" / "GcvBridge.uplugin").is_file():
        return True, "GcvBridge found in the project's Plugins/ folder"
    for extra in data.get("AdditionalPluginDirectories", []) or []:
        base = (project.parent / str(extra)).resolve()
        if (base / "GcvBridge" / "GcvBridge.uplugin").is_file() or (base / "GcvBridge.uplugin").is_file():
            return True, f"GcvBridge found through AdditionalPluginDirectories ({extra})"
    if entries:
        return True, "GcvBridge is enabled in the .uproject (its folder is an engine or marketplace plugin)"
    return None, (f"GcvBridge not found: add ue5_plugin/GcvBridge to {project.parent / 'Plugins'} or to the "
                  f".uproject's AdditionalPluginDirectories")


class UE5Runner(SubprocessRunner):
    name = "ue5"
    liveness_timeout = 300.0
    default_timeout = 1800.0
    env_prefix = "GCV_UE"

    def _mode(self, capture: bool = False) -> str | None:
        forced = os.environ.get("GCV_UE_MODE", "").strip()
        if forced:
            return forced
        if capture and env_path("GCV_UE_GAME"):
            return "game"
        if env_path("GCV_UE_EDITOR_CMD"):
            return "commandlet"
        if env_path("GCV_UE_GAME"):
            return "game"
        if env_path("GCV_UE_HARNESS"):
            return "harness"
        return None

    def engine_label(self) -> str:
        return LABELS.get(self._mode() or "", self.name)

    def check(self) -> EnvironmentStatus:
        mode = self._mode()
        if mode is None:
            return EnvironmentStatus(self.name, "not_installed",
                                     "no Unreal configured: set GCV_UE_EDITOR_CMD and GCV_UE_PROJECT (commandlet), "
                                     "GCV_UE_GAME (capture runs), or GCV_UE_HARNESS for the C++ harness")
        if mode not in MODES:
            return EnvironmentStatus(self.name, "misconfigured", f"GCV_UE_MODE={mode!r}; allowed: {', '.join(MODES)}")
        try:
            limits = self.limits(None, None)
        except ValueError as exc:
            return EnvironmentStatus(self.name, "misconfigured", str(exc))
        checks: list[dict[str, Any]] = []
        details: dict[str, Any] = {"mode": mode, "engine_label": LABELS[mode], "startup_budget_s": limits.startup,
                                   "liveness_s": limits.liveness, "checks": checks}
        if mode in ("commandlet", "game"):
            var = "GCV_UE_EDITOR_CMD" if mode == "commandlet" else "GCV_UE_GAME"
            exe = env_path(var)
            problem = executable_problem(exe, var) if exe else f"{var} is not set"
            if problem:
                return EnvironmentStatus(self.name, "misconfigured", problem, details)
            project = env_path("GCV_UE_PROJECT")
            packaged = mode == "game" and exe is not None and not is_editor_binary(exe)
            details["packaged_game"] = packaged
            if mode == "commandlet" and project is None:
                return EnvironmentStatus(self.name, "misconfigured", "commandlet mode needs GCV_UE_PROJECT (.uproject)",
                                         details)
            if mode == "game" and not packaged and project is None:
                return EnvironmentStatus(self.name, "misconfigured",
                                         f"{exe.name if exe else var} is the editor binary: -game needs GCV_UE_PROJECT",
                                         details)
            if project is not None and not packaged:
                if not (project.is_file() and project.suffix == ".uproject"):
                    return EnvironmentStatus(self.name, "misconfigured",
                                             f"project missing: {project} is not a .uproject file", details)
                enabled, detail = plugin_status(project)
                if enabled is False:
                    return EnvironmentStatus(self.name, "misconfigured", detail, details)
                checks.append({"check": "GcvBridge plugin", "ok": bool(enabled), "detail": detail})
            if packaged:
                checks.append({"check": "packaged game", "ok": True,
                               "detail": "GCV_UE_PROJECT is not passed to a packaged game; Shipping/Test builds "
                                         "compile UE_LOG out, so GcvBridge prints protocol lines to stdout itself"})
            if mode == "game":
                checks.append({"check": "display", "ok": True,
                               "detail": "no DISPLAY or WAYLAND_DISPLAY: the game is given -RenderOffScreen (it "
                                         "needs a Vulkan driver)" if linux_without_display() else
                                         "the game renders in a window (a desktop session or a virtual display)"})
            checks.append({"check": "first run", "ok": True,
                           "detail": f"start-up budget {limits.startup:g} s (a cold shader cache takes tens of "
                                     "minutes; GCV_UE_STARTUP_BUDGET raises it)"})
            return EnvironmentStatus(self.name, "available", f"Unreal {mode} {exe}", details)
        exe = env_path("GCV_UE_HARNESS")
        problem = executable_problem(exe, "C++ harness") if exe else "GCV_UE_HARNESS is not set"
        if problem:
            return EnvironmentStatus(self.name, "misconfigured",
                                     problem + " (build it with ue5_plugin/harness/build.sh)", details)
        return EnvironmentStatus(self.name, "available",
                                 f"C++ harness {exe} (not Unreal: the GcvSimCore headers built with g++)", details)

    def capabilities(self) -> Capabilities:
        mode = self._mode()
        real = mode in ("commandlet", "game")
        return Capabilities(renders_frames=mode == "game", measures_frame_times=mode == "game",
                            out_of_process=True, implementation="cpp",
                            description=f"Unreal Engine 5 {mode}" if real else "C++ core harness (no rendering)")

    def limits(self, timeout: float | None, deadline: float | None) -> Limits:
        mode = self._mode() or "commandlet"
        startup = env_seconds("GCV_UE_STARTUP_BUDGET", STARTUP_DEFAULTS.get(mode, 3600.0))
        liveness = env_seconds("GCV_UE_LIVENESS", self.liveness_timeout)
        return Limits(startup=startup, liveness=liveness,
                      timeout=timeout if timeout is not None else self.default_timeout, deadline=deadline,
                      shutdown_grace=self.shutdown_grace)

    def plan(self, request: RunRequest) -> Plan:
        if self._mode(capture=bool(request.capture_ticks)) == "game":
            return Plan("ue5", "measured", True, request, [])
        plan = super().plan(request)
        plan.label = self.engine_label()
        return plan

    def log_rules(self) -> LogRules:
        return LogRules(import_compile=IMPORT_COMPILE, problems=PROBLEMS)

    def no_handshake_hint(self) -> str:
        return (" (a Shipping or Test build compiles UE_LOG out: use a GcvBridge that prints protocol lines to "
                "stdout, as this one does, or a Development build; see ue5_plugin/README.md)")

    def command(self, request_path: Path, request: RunRequest) -> list[str]:
        mode = self._mode(capture=bool(request.capture_ticks))
        platform = self.platform or current_platform()
        if mode == "harness":
            return [str(env_path("GCV_UE_HARNESS")), f"-GcvRequest={request_path}"]
        project = env_path("GCV_UE_PROJECT")
        values = [("GcvRequest", str(request_path))]
        if mode == "commandlet":
            return ue_command([str(env_path("GCV_UE_EDITOR_CMD")), str(project), "-run=GcvRun"], values,
                              ["-unattended", "-nullrhi", "-nosplash", "-stdout", "-FullStdOutLogOutput"], platform)
        exe = env_path("GCV_UE_GAME")
        assert exe is not None
        game = [str(exe)] + ([str(project), "-game"] if is_editor_binary(exe) and project else [])
        offscreen = ["-RenderOffScreen"] if platform == "posix" and linux_without_display() else []
        return ue_command(game, values, ["-windowed", "-ResX=1280", "-ResY=720", *offscreen, "-unattended",
                                         "-stdout", "-FullStdOutLogOutput"], platform)
