"""A misbehaving engine for runner tests: ``fake_engine.py MODE ARGS...``.

It finds its request the way each engine receives it (Unity ``-gcvRequest PATH``, UE
``-GcvRequest=PATH`` with or without quotes, python-sim ``--request PATH``), announces itself
as ``$GCV_FAKE_ENGINE`` (default ``fake``) and, when it writes telemetry, names that engine
and ``$GCV_FAKE_FPS`` (default ``model``) as the frame-figure source. ``$GCV_FAKE_SECONDS``
sets how long the slow modes take (default 2).

Modes that succeed: ``ok``; ``slow_start`` (start-up progress lines every 0.2 s for the
slow time, then ok); ``heartbeat`` (handshake, heartbeats every 0.2 s for the slow time,
then ok); ``done_no_exit`` (ok, then never exits: a shutdown hang); ``done_exit_1`` (ok,
then exits 1, as UE may after GCV-DONE).

Modes that fail: ``hang`` (handshake, then sleeps with a child process); ``no_handshake``
(sleeps silently with a child); ``silent_start`` (a few progress lines, then silence before
any handshake); ``spam_after_handshake`` (handshake, then a warning line every 0.05 s and no
heartbeat); ``crash`` (handshake, exit 139); ``win_abort`` (handshake, exit 3 with no
GCV-ERROR: an MSVC ``abort()``); ``hash_error`` (GCV-ERROR hash_mismatch, exit 3); ``silent_exit``
(handshake, exit 0 without GCV-DONE); ``no_telemetry`` (handshake, GCV-DONE, no file);
``garbage`` / ``wrong_hash`` / ``schema`` (GCV-DONE with bad telemetry); ``zero_frames``
(ok, but no frame written); ``unity_licence`` (Unity's licence failure, exit 0, no
handshake); ``ue_missing_module`` (UE's missing-module failure, exit 1); ``setsid_child``
(handshake, a grandchild that starts its own session, then sleeps); ``print_args`` (writes
its argv as JSON to ``$GCV_FAKE_ARGV_OUT`` and exits).

A child's pid is written to ``<output_dir>/child.pid`` in the sleeping modes so tests can
prove the whole process tree was ended.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path


def _request_path(args: list[str]) -> Path:
    for i, arg in enumerate(args):
        if arg in ("-gcvRequest", "--request") and i + 1 < len(args):
            return Path(args[i + 1])
        if arg.lower().startswith("-gcvrequest="):
            return Path(arg.split("=", 1)[1].strip('"'))
    return Path(args[-1])


def say(line: str) -> None:
    print(line, flush=True)


def _sleeper(out: Path, *, new_session: bool = False) -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=new_session)
    (out / "child.pid").write_text(str(child.pid))


def _write_ok(request: dict, out: Path, *, frames: bool = True) -> str:
    from engine_runners.protocol import RunRequest
    from engine_runners.python_sim import execute

    telemetry, paths = execute(RunRequest.model_validate(request))
    if not frames:
        for p in paths:
            Path(p).unlink()
    telemetry["engine"]["name"] = os.environ.get("GCV_FAKE_ENGINE", "fake")
    telemetry["fps_source"] = os.environ.get("GCV_FAKE_FPS", "model")
    (out / "telemetry.json").write_text(json.dumps(telemetry))
    return telemetry["status"]


def done(status: str = "completed") -> None:
    say('GCV-DONE {"status":"%s","telemetry":"telemetry.json"}' % status)


def main() -> int:
    mode = sys.argv[1]
    if mode == "print_args":
        Path(os.environ["GCV_FAKE_ARGV_OUT"]).write_text(json.dumps(sys.argv[2:]), encoding="utf-8")
        return 0
    slow = float(os.environ.get("GCV_FAKE_SECONDS", "2"))
    if mode == "unity_licence":
        say("[Licensing::Module] Error: License is not active (com.unity.editor.headless). HasEntitlements will fail.")
        say("No valid Unity Editor license found. Please activate your license.")
        return 0
    if mode == "ue_missing_module":
        say("LogPluginManager: Error: Plugin 'GcvBridge' failed to load because module 'GcvBridge' could not be found.")
        return 1
    request_path = _request_path(sys.argv[2:])
    request = json.loads(request_path.read_text(encoding="utf-8"))
    if os.environ.get("GCV_FAKE_LOG"):  # every start of the engine, for tests that count engine runs
        with open(os.environ["GCV_FAKE_LOG"], "a", encoding="utf-8") as fh:
            fh.write(request["run_id"] + "\n")
    out = Path(request["output_dir"])
    engine = os.environ.get("GCV_FAKE_ENGINE", "fake")
    handshake = "GCV-HANDSHAKE " + json.dumps({"protocol": "gcv.run_protocol/1", "engine": engine, "version": "0",
                                               "run_id": request["run_id"]})
    if mode == "no_handshake":
        _sleeper(out)
        time.sleep(600)
        return 0
    if mode == "silent_start":
        for i in range(3):
            say(f"Start importing Assets/thing{i}.png")
        _sleeper(out)
        time.sleep(600)
        return 0
    if mode == "silent_then_ok":  # a Shipping UE game or a quiet Unity import: nothing, then the handshake
        status = _write_ok(request, out)
        time.sleep(slow)
        say(handshake)
        done(status)
        return 0
    if mode == "slow_start":  # "import and compile" (printing progress) while the run is prepared
        import threading

        prepared: dict = {}
        worker = threading.Thread(target=lambda: prepared.setdefault("status", _write_ok(request, out)))
        worker.start()
        end = time.monotonic() + slow
        i = 0
        while time.monotonic() < end or worker.is_alive():
            say(f"[ScriptCompilation] Compiling scripts, step {i}")
            i += 1
            time.sleep(0.2)
        say(handshake)
        done(prepared["status"])
        return 0
    say(handshake)
    if mode == "hang":
        _sleeper(out)
        time.sleep(600)
        return 0
    if mode == "setsid_child":
        _sleeper(out, new_session=True)
        time.sleep(600)
        return 0
    if mode == "spam_after_handshake":
        say('GCV-HEARTBEAT {"tick":120}')
        _sleeper(out)
        while True:
            say("LogRenderer: Warning: something is wrong, again")
            time.sleep(0.05)
    if mode == "heartbeat":  # simulate on a thread, as an engine would, and beat meanwhile
        import threading

        result: dict = {}
        worker = threading.Thread(target=lambda: result.setdefault("status", _write_ok(request, out)))
        worker.start()
        end = time.monotonic() + slow
        tick = 0
        while time.monotonic() < end or worker.is_alive():
            tick += 60
            say('GCV-HEARTBEAT {"tick":%d}' % tick)
            time.sleep(0.2)
        done(result["status"])
        return 0
    if mode == "crash":
        print("Segmentation fault (simulated)", file=sys.stderr, flush=True)
        return 139
    if mode == "win_abort":
        print("abort() has been called", file=sys.stderr, flush=True)
        return 3
    if mode == "hash_error":
        say('GCV-ERROR {"exit_code":3,"kind":"hash_mismatch","message":"program_hash does not match the program"}')
        return 3
    if mode == "silent_exit":
        return 0
    if mode == "no_telemetry":
        done()
        return 0
    if mode == "garbage":
        (out / "telemetry.json").write_text("{not json")
        done()
        return 0
    if mode == "desync":  # an engine port out of step: one graze more, the state differs from the 8th second
        status = _write_ok(request, out)
        telemetry = json.loads((out / "telemetry.json").read_text())
        telemetry["grazes"] += 1
        telemetry["state_hashes"][7:-1] = [f"{int(h, 16) ^ 1:064x}" for h in telemetry["state_hashes"][7:-1]]
        (out / "telemetry.json").write_text(json.dumps(telemetry))
        done(status)
        return 0
    if mode in ("wrong_hash", "schema"):
        _write_ok(request, out)
        telemetry = json.loads((out / "telemetry.json").read_text())
        if mode == "wrong_hash":
            telemetry["program_hash"] = "0" * 64
        else:
            del telemetry["peak_alive_bullets"]
        (out / "telemetry.json").write_text(json.dumps(telemetry))
        done()
        return 0
    status = _write_ok(request, out, frames=mode != "zero_frames")
    done(status)
    if mode == "done_no_exit":
        time.sleep(600)
    if mode == "done_exit_1":
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
