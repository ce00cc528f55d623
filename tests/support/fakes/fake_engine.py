"""A misbehaving engine for runner tests: ``fake_engine.py MODE REQUEST``.

Modes: ok (delegates to the real python-sim), hang (handshake, then sleeps forever with a
child process), no_handshake (sleeps without a handshake), crash (handshake, exit 139),
no_telemetry (handshake, exit 0), garbage (writes non-JSON telemetry), wrong_hash (valid
telemetry with a different program hash), schema (telemetry missing fields). A child's
pid is written to ``<output_dir>/child.pid`` in the sleeping modes so tests can prove the
whole process tree was killed.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path


def _request_path(args: list[str]) -> Path:
    """Find the request the way each engine receives it (Unity, UE5, python-sim, plain)."""
    for i, arg in enumerate(args):
        if arg in ("-gcvRequest", "--request") and i + 1 < len(args):
            return Path(args[i + 1])
        if arg.startswith("-GcvRequest="):
            return Path(arg.split("=", 1)[1].strip('"'))
    return Path(args[-1])


def main() -> int:
    mode = sys.argv[1]
    request_path = _request_path(sys.argv[2:])
    request = json.loads(request_path.read_text())
    out = Path(request["output_dir"])
    handshake = {"protocol": "gcv.run_protocol/1", "engine": "fake", "version": "0", "run_id": request["run_id"]}
    if mode in ("hang", "no_handshake"):
        if mode == "hang":
            print("GCV-HANDSHAKE " + json.dumps(handshake), flush=True)
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        (out / "child.pid").write_text(str(child.pid))
        time.sleep(600)
        return 0
    print("GCV-HANDSHAKE " + json.dumps(handshake), flush=True)
    if mode == "crash":
        print("Segmentation fault (simulated)", file=sys.stderr, flush=True)
        return 139
    if mode == "no_telemetry":
        return 0
    if mode == "garbage":
        (out / "telemetry.json").write_text("{not json")
        return 0
    from engine_runners.protocol import RunRequest
    from engine_runners.python_sim import execute

    telemetry, _ = execute(RunRequest.model_validate(request))
    if mode == "wrong_hash":
        telemetry["program_hash"] = "0" * 64
    elif mode == "schema":
        del telemetry["peak_alive_bullets"]
    (out / "telemetry.json").write_text(json.dumps(telemetry))
    return 0


if __name__ == "__main__":
    sys.exit(main())
