"""Fixtures of the console tests: an app on a temporary workspace, clients for each kind of caller."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from gcv.console.app import create_app
from gcv.console.context import ConsoleConfig
from gcv.console.users import load_users

BASE = "http://127.0.0.1:8765"
# a change that passes at once (the README's request now ends with trade-offs for the designer: test_pages.py
# ::test_a_trade_off_is_chosen_through_the_forms)
REQUEST = "make phase 3 much denser"
VAGUE = "slow down the bullets by 20%"  # needs clarification: which phase?
TOKENS = {"dana": "designer-token-0123456789", "omar": "operator-token-0123456789",
          "rita": "reviewer-token-0123456789", "all": "everything-token-0123456789"}
USERS_TOML = """
[[user]]
name = "dana"
roles = ["designer"]
token = "designer-token-0123456789"

[[user]]
name = "omar"
roles = ["operator"]
token = "operator-token-0123456789"

[[user]]
name = "rita"
roles = ["reviewer"]
token = "reviewer-token-0123456789"

[[user]]
name = "all"
roles = ["designer", "operator", "reviewer"]
token = "everything-token-0123456789"
"""


def csrf_of(html: str) -> str:
    m = re.search(r'name="csrf-token" content="([0-9a-f]*)"', html)
    assert m, "the page has no CSRF meta tag"
    return m.group(1)


@pytest.fixture()
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "ws"
    monkeypatch.setenv("GCV_HOME", str(root))  # the CLI in the same test uses the same workspace
    return root


@pytest.fixture()
def users_file(tmp_path: Path) -> Path:
    path = tmp_path / "users.toml"
    path.write_text(USERS_TOML, encoding="utf-8")
    return path


@pytest.fixture()
def local_app(workspace: Path):
    return create_app(ConsoleConfig(workspace=workspace, host="127.0.0.1", port=8765, secret=b"s" * 32))


@pytest.fixture()
def users_app(workspace: Path, users_file: Path):
    return create_app(ConsoleConfig(workspace=workspace, host="127.0.0.1", port=8765, users=load_users(users_file),
                                    secret=b"s" * 32))


@pytest.fixture()
def local(local_app) -> TestClient:
    """A script on a loopback console without users (no credentials, JSON)."""
    with TestClient(local_app, base_url=BASE) as client:
        yield client


def _browser(app, form: dict[str, str]) -> TestClient:
    # a browser sends Origin with every POST: the console takes a form post with a session cookie
    # only from its own pages (the form's csrf field is checked too)
    client = TestClient(app, base_url=BASE, follow_redirects=False, headers={"origin": BASE})
    r = client.post("/login", data={**form, "next": "/workflows"})
    assert r.status_code == 303 and r.headers["location"] == "/workflows", r.text
    page = client.get("/workflows")
    assert page.status_code == 200
    client.csrf = csrf_of(page.text)  # type: ignore[attr-defined]
    return client


@pytest.fixture()
def local_browser(local_app) -> TestClient:
    """A browser session on a loopback console (signed in by name)."""
    return _browser(local_app, {"name": "ana"})


@pytest.fixture()
def browser_as(users_app) -> Callable[[str], TestClient]:
    """A browser session of a named user of the users file."""
    return lambda name: _browser(users_app, {"token": TOKENS[name]})


@pytest.fixture()
def bearer(users_app) -> Callable[[str], TestClient]:
    """A script calling the API with ``Authorization: Bearer`` as a named user."""
    def make(name: str) -> TestClient:
        return TestClient(users_app, base_url=BASE, headers={"authorization": f"Bearer {TOKENS[name]}"})
    return make


def wait_job(app, wf_id: str) -> None:
    job = app.state.console.jobs.wait(wf_id, timeout=120)
    assert job is not None and not job.running and job.error is None, job and job.error


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ThreadServer:
    """The console's app under a real uvicorn server, in a thread of the test process."""

    def __init__(self, app, port: int) -> None:
        import threading

        import uvicorn

        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                                    lifespan="off", timeout_graceful_shutdown=1))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> "ThreadServer":
        import time

        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture()
def live_local(workspace: Path):
    """A loopback console without users, served for real (for streams and concurrency)."""
    port = free_port()
    app = create_app(ConsoleConfig(workspace=workspace, host="127.0.0.1", port=port, secret=b"s" * 32))
    with ThreadServer(app, port) as server:
        server.app = app  # type: ignore[attr-defined]
        yield server
