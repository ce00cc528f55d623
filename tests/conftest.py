"""Shared fixtures. Keep this small: fixtures that only one test file needs live there."""

from __future__ import annotations

import ipaddress
import signal
import socket
from pathlib import Path

import pytest

from gcv.contract.loading import load_config
from gcv.contract.models import BulletHellConfig


def pytest_configure(config: pytest.Config) -> None:
    """A shell starts a background job (`make test &`, a detached CI step) with SIGINT ignored,
    and exec keeps it ignored in every child: then neither Python's KeyboardInterrupt nor the
    interrupt tests' real SIGINTs to `gcv` subprocesses can work. Restore Python's handler, so
    that children start with the default disposition as they do from a terminal."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)

REPO_ROOT = Path(__file__).resolve().parents[1]
BASELINE_PATH = REPO_ROOT / "artifacts" / "baselines" / "shrine_trial.json"


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture
def baseline() -> BulletHellConfig:
    """The committed baseline, freshly loaded (tests may mutate it)."""
    return load_config(BASELINE_PATH)


# --- no network in tests ---------------------------------------------------------------------
# Every test runs with socket connections limited to this machine: loopback addresses (and
# the unspecified address, which the kernel routes to this host), "localhost", and Unix
# sockets. Anything else fails at once, before any byte leaves, and a host name other than
# localhost is refused without a DNS lookup. Local servers (the fake Messages API, a dask
# LocalCluster on 127.0.0.1) and subprocess harnesses are unaffected; child processes are
# not patched, so engine harnesses keep their own behaviour.


class NetworkDisabledError(ConnectionRefusedError):
    """A test tried to reach a host other than this machine."""


def _is_local_address(address: object) -> bool:
    if not isinstance(address, tuple) or not address:
        return True  # AF_UNIX paths and exotic families stay on this machine
    host = address[0]
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str):
        return False
    host = host.split("%", 1)[0].strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False  # a name: refused without resolving it
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback or ip.is_unspecified


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    inet = (socket.AF_INET, socket.AF_INET6)

    def refuse(address: object) -> NetworkDisabledError:
        return NetworkDisabledError(f"tests may not use the network: connection to {address!r} refused "
                                    "(tests/conftest.py allows loopback only)")

    def connect(self: socket.socket, address: object) -> None:
        if self.family in inet and not _is_local_address(address):
            raise refuse(address)
        return real_connect(self, address)  # type: ignore[arg-type]

    def connect_ex(self: socket.socket, address: object) -> int:
        if self.family in inet and not _is_local_address(address):
            raise refuse(address)
        return real_connect_ex(self, address)  # type: ignore[arg-type]

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)


# --- every state.json a test writes matches the committed workflow-state schema -------------

@pytest.fixture(scope="session")
def _state_validator():
    import json

    from jsonschema import Draft202012Validator

    schema = json.loads((REPO_ROOT / "schemas" / "workflow_state.schema.json").read_text(encoding="utf-8"))
    return Draft202012Validator(schema)


@pytest.fixture(autouse=True)
def _states_match_their_schema(request: pytest.FixtureRequest, _state_validator) -> object:
    """After each test that used ``tmp_path``, every ``workflows/*/state.json`` under it must
    validate against ``schemas/workflow_state.schema.json`` (the schema bundles ship with)."""
    if "tmp_path" not in request.fixturenames:
        yield
        return
    root = request.getfixturevalue("tmp_path")  # set up now, so it is torn down after this check
    yield
    import json

    for path in root.rglob("workflows/*/state.json"):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # tests that damage a state on purpose
        if not isinstance(data, dict) or data.get("workflow") != "gcv.workflow/1":
            continue
        errors = list(_state_validator.iter_errors(data))
        if errors:
            where = ".".join(str(p) for p in errors[0].absolute_path)
            pytest.fail(f"{path} does not match workflow_state.schema.json at $.{where}: {errors[0].message}")
