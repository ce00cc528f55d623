"""The Unreal Engine 5 runner: the commandlet, the game for capture runs, or the C++ harness (CI).

Configuration (operator only):
- ``GCV_UE_EDITOR_CMD`` + ``GCV_UE_PROJECT``: ``UnrealEditor-Cmd <Project>.uproject -run=GcvRun``
  (headless, ``-nullrhi``); used for runs without frames;
- ``GCV_UE_GAME`` (+ ``GCV_UE_PROJECT`` when it is the editor binary): ``-game`` mode with
  rendering, used for capture runs (frames and measured frame times);
- ``GCV_UE_HARNESS``: ``gcv-ue5-harness``, the GcvSimCore headers compiled with g++.
``GCV_UE_MODE`` (commandlet | game | harness) forces one. Paths with spaces are passed as
single arguments (no shell); for Unreal's own command-line parser the request path is
quoted inside ``-GcvRequest="..."``.
"""

from __future__ import annotations

import os
from pathlib import Path

from engine_runners.base import Capabilities, EnvironmentStatus, SubprocessRunner
from engine_runners.bridges import env_path, executable_problem
from engine_runners.protocol import RunRequest

MODES = ("commandlet", "game", "harness")


def _ue_arg(path: Path) -> str:
    text = str(path)
    return f'-GcvRequest="{text}"' if " " in text else f"-GcvRequest={text}"


class UE5Runner(SubprocessRunner):
    name = "ue5"
    startup_timeout = 180.0  # shader and asset loading happen before the commandlet runs
    default_timeout = 1800.0

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

    def check(self) -> EnvironmentStatus:
        mode = self._mode()
        if mode is None:
            return EnvironmentStatus(self.name, "not_installed",
                                     "no Unreal configured: set GCV_UE_EDITOR_CMD and GCV_UE_PROJECT (commandlet), "
                                     "GCV_UE_GAME (capture runs), or GCV_UE_HARNESS for the C++ harness")
        if mode not in MODES:
            return EnvironmentStatus(self.name, "misconfigured", f"GCV_UE_MODE={mode!r}; allowed: {', '.join(MODES)}")
        if mode in ("commandlet", "game"):
            var = "GCV_UE_EDITOR_CMD" if mode == "commandlet" else "GCV_UE_GAME"
            exe = env_path(var)
            problem = executable_problem(exe, var) if exe else f"{var} is not set"
            if problem:
                return EnvironmentStatus(self.name, "misconfigured", problem)
            project = env_path("GCV_UE_PROJECT")
            if mode == "commandlet" and project is None:
                return EnvironmentStatus(self.name, "misconfigured", "commandlet mode needs GCV_UE_PROJECT (.uproject)")
            if project is not None and not (project.is_file() and project.suffix == ".uproject"):
                return EnvironmentStatus(self.name, "misconfigured", f"project missing: {project} is not a .uproject file")
            return EnvironmentStatus(self.name, "available", f"Unreal {mode} {exe}", {"mode": mode})
        exe = env_path("GCV_UE_HARNESS")
        problem = executable_problem(exe, "C++ harness") if exe else "GCV_UE_HARNESS is not set"
        if problem:
            return EnvironmentStatus(self.name, "misconfigured",
                                     problem + " (build it with ue5_plugin/harness/build.sh)")
        return EnvironmentStatus(self.name, "available",
                                 f"C++ harness {exe} (not Unreal: the GcvSimCore headers built with g++)",
                                 {"mode": mode})

    def capabilities(self) -> Capabilities:
        mode = self._mode()
        real = mode in ("commandlet", "game")
        return Capabilities(renders_frames=mode == "game", measures_frame_times=mode == "game",
                            out_of_process=True, implementation="cpp",
                            description=f"Unreal Engine 5 {mode}" if real else "C++ core harness (no rendering)")

    def command(self, request_path: Path, request: RunRequest) -> list[str]:
        mode = self._mode(capture=bool(request.capture_ticks))
        if mode == "harness":
            return [str(env_path("GCV_UE_HARNESS")), f"-GcvRequest={request_path}"]
        project = env_path("GCV_UE_PROJECT")
        if mode == "commandlet":
            return [str(env_path("GCV_UE_EDITOR_CMD")), str(project), "-run=GcvRun", _ue_arg(request_path),
                    "-unattended", "-nullrhi", "-nosplash", "-stdout", "-FullStdOutLogOutput"]
        game = [str(env_path("GCV_UE_GAME"))] + ([str(project)] if project else [])
        return [*game, "-game", _ue_arg(request_path), "-windowed", "-ResX=1280", "-ResY=720",
                "-unattended", "-stdout", "-FullStdOutLogOutput"]
