"""The console attacked through real ``gcv serve`` processes on 127.0.0.1 (issue 25 items 1, 2, 6).

* A session is valid only on the kind of console that issued it (loopback single-user, or
  ``--users`` with that very users database), until it expires, and not after sign-out (the
  sign-out is recorded in the workspace, so a restart does not bring the session back).
* A weak ``console/secret.key`` (empty, short, or not random) is never used to sign sessions;
  a key file that is not a regular file stops the server with a message naming it.
* An anonymous or cross-site request is refused from its headers, before any of its body is
  read; every route caps its body (413 past the cap, without reading the rest); the JSON API
  refuses duplicate keys as the CLI's loader does.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.hostile.conftest import REPO_ROOT

READER = "reviewer-token-0123456789"
DESIGNER = "designer-token-0123456789"
USERS_TOML = f"""
[[user]]
name = "rita"
roles = ["reviewer"]
token = "{READER}"

[[user]]
name = "dana"
roles = ["designer"]
token = "{DESIGNER}"
"""
MB = 1 << 20


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Serve:
    """One real ``gcv serve`` (``python -m gcv.cli.app serve``) on the workspace ``home``."""

    def __init__(self, home: Path, *args: str, log: Path, wait: bool = True) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.origin = self.url
        self.log = log
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GCV_SIGNING_KEY", "GCV_VERIFY_KEY"))}
        env.update(GCV_HOME=str(home), PYTHONPATH=str(REPO_ROOT), NO_COLOR="1", COLUMNS="200")
        with open(log, "wb") as err:
            self.proc = subprocess.Popen([sys.executable, "-m", "gcv.cli.app", "serve", "--port", str(self.port), *args],
                                         cwd=home.parent, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=err)
        if wait:
            self.wait_up()

    def wait_up(self) -> None:
        deadline = time.monotonic() + 30
        while True:
            assert self.proc.poll() is None, self.stderr()
            try:
                if httpx.get(f"{self.url}/api/health", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "gcv serve did not start: " + self.stderr()
            time.sleep(0.05)

    def stderr(self) -> str:
        return self.log.read_text(errors="replace")

    def peak_rss(self) -> int:
        """The server's peak resident set so far (bytes), as the kernel counts it (VmHWM)."""
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        return int(re.search(r"^VmHWM:\s+(\d+) kB", status, re.M).group(1)) * 1024

    def rss(self) -> int:
        import psutil

        return psutil.Process(self.proc.pid).memory_info().rss

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    # ---- a browser's requests
    def sign_in(self, **form: str) -> str:
        """POST /login as a browser would; the session cookie set."""
        r = httpx.post(f"{self.url}/login", data={**form, "next": "/workflows"}, headers={"origin": self.origin},
                       timeout=10)
        assert r.status_code == 303 and r.headers["location"] == "/workflows", (r.status_code, r.text[:300])
        cookie = r.cookies.get("gcv_session")
        assert cookie, r.headers
        return cookie

    def get(self, path: str, cookie: str | None = None, **headers: str) -> httpx.Response:
        cookies = {"gcv_session": cookie} if cookie else None
        return httpx.get(f"{self.url}{path}", cookies=cookies, headers=headers, timeout=10, follow_redirects=False)

    def csrf(self, cookie: str) -> str:
        page = self.get("/workflows", cookie)
        assert page.status_code == 200, page.status_code
        m = re.search(r'name="csrf-token" content="([0-9a-f]+)"', page.text)
        assert m, page.text[:500]
        return m.group(1)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def users_file(tmp_path: Path) -> Path:
    path = tmp_path / "users.toml"
    path.write_text(USERS_TOML, encoding="utf-8")
    return path


@pytest.fixture
def servers(tmp_path: Path):
    started: list[Serve] = []

    def start(home: Path, *args: str, wait: bool = True) -> Serve:
        s = Serve(home, *args, log=tmp_path / f"serve-{len(started)}.log", wait=wait)
        started.append(s)
        return s

    yield start
    for s in started:
        s.stop()


def me(server: Serve, cookie: str) -> httpx.Response:
    return server.get("/api/me", cookie)


# ---------------------------------------------------------------------- item 1: sessions
def test_a_loopback_cookie_is_refused_by_a_users_console_on_the_same_workspace(servers, home: Path,
                                                                                users_file: Path) -> None:
    loopback = servers(home)
    guarded = servers(home, "--users", str(users_file))
    # on the loopback console anyone signs in under any name, a reviewer's included
    forged = loopback.sign_in(name="rita")
    assert me(loopback, forged).json()["user"]["name"] == "rita"
    csrf = loopback.csrf(forged)
    # ... and that cookie is nobody on the --users console: no identity, no rollback in rita's name
    assert me(guarded, forged).status_code == 401
    r = httpx.post(f"{guarded.url}/api/baselines/rollback", json={"note": "not rita"}, timeout=10,
                   cookies={"gcv_session": forged}, headers={"x-csrf-token": csrf, "origin": guarded.origin})
    assert r.status_code == 401, (r.status_code, r.text)
    page = guarded.get("/workflows", forged)
    assert page.status_code == 303 and page.headers["location"].startswith("/login")
    # the --users console's own sign-in works, and its cookie is nobody on the loopback console either
    real = guarded.sign_in(token=READER)
    assert me(guarded, real).json()["user"]["name"] == "rita"
    assert me(loopback, real).json()["via"] == "local"  # a script without a session, not rita's session


def test_a_cookie_is_bound_to_the_users_database_that_issued_it(servers, home: Path, users_file: Path,
                                                                tmp_path: Path) -> None:
    first = servers(home, "--users", str(users_file))
    cookie = first.sign_in(token=READER)
    assert me(first, cookie).status_code == 200
    other = tmp_path / "other-users.toml"  # another database with a user of the same name
    other.write_text(USERS_TOML.replace(READER, "another-reviewer-token-42"), encoding="utf-8")
    second = servers(home, "--users", str(other))
    assert me(second, cookie).status_code == 401


def test_sign_out_ends_the_session_on_the_server_and_a_restart_keeps_it_ended(servers, home: Path,
                                                                             users_file: Path) -> None:
    server = servers(home, "--users", str(users_file))
    kept, ended = server.sign_in(token=READER), server.sign_in(token=READER)
    csrf = server.csrf(ended)
    r = httpx.post(f"{server.url}/logout", data={"csrf": csrf}, cookies={"gcv_session": ended},
                   headers={"origin": server.origin}, timeout=10)
    assert r.status_code == 303
    # the browser forgets the cookie; an attacker who copied it before keeps it: refused
    assert me(server, ended).status_code == 401
    r = httpx.post(f"{server.url}/api/baselines/rollback", json={"note": "after sign-out"}, timeout=10,
                   cookies={"gcv_session": ended}, headers={"x-csrf-token": csrf, "origin": server.origin})
    assert r.status_code == 401
    assert me(server, kept).status_code == 200  # another session of the same user goes on
    server.stop()
    again = servers(home, "--users", str(users_file))
    assert me(again, ended).status_code == 401  # the sign-out is recorded in the workspace
    assert me(again, kept).json()["user"]["name"] == "rita"  # and sessions survive a restart


def test_an_expired_session_is_refused(servers, home: Path, users_file: Path) -> None:
    server = servers(home, "--users", str(users_file), "--session-seconds", "2")
    cookie = server.sign_in(token=READER)
    assert me(server, cookie).status_code == 200
    time.sleep(2.5)
    assert me(server, cookie).status_code == 401
    local = servers(home, "--session-seconds", "2")
    cookie = local.sign_in(name="ana")
    assert me(local, cookie).json()["user"]["name"] == "ana"
    time.sleep(2.5)
    assert me(local, cookie).json()["via"] == "local"  # no longer ana's session


# ---------------------------------------------------------------------- item 2: the signing key
@pytest.mark.parametrize("weak", [b"", b"short", b"\n", b"a" * 32, bytes(range(4)) * 16])
def test_a_weak_secret_key_is_replaced_with_a_warning(servers, home: Path, weak: bytes) -> None:
    key = home / "console" / "secret.key"
    key.parent.mkdir(parents=True)
    key.write_bytes(weak)
    server = servers(home)
    new = key.read_bytes()
    assert len(new) >= 32 and new != weak and len(set(new)) > 8
    assert f"{key}" in server.stderr() and "warning" in server.stderr().lower(), server.stderr()
    assert key.stat().st_mode & 0o077 == 0
    # the key stays: a restart uses it without another warning
    server.stop()
    again = servers(home)
    assert key.read_bytes() == new and "warning" not in again.stderr().lower(), again.stderr()


def test_a_cookie_signed_with_the_weak_key_is_refused(servers, home: Path, users_file: Path) -> None:
    from itsdangerous import URLSafeTimedSerializer

    key = home / "console" / "secret.key"
    key.parent.mkdir(parents=True)
    key.write_bytes(b"")
    server = servers(home, "--users", str(users_file))
    # what anyone could sign with an empty key, in the format of the console before this fix
    forged = URLSafeTimedSerializer(b"", salt="gcv-console-session").dumps({"n": "rita", "sid": "x" * 24})
    assert me(server, forged).status_code == 401


@pytest.mark.parametrize("kind", ["fifo", "symlink", "directory"])
def test_a_secret_key_that_is_not_a_regular_file_stops_the_server_naming_it(servers, home: Path, kind: str,
                                                                            tmp_path: Path) -> None:
    key = home / "console" / "secret.key"
    key.parent.mkdir(parents=True)
    if kind == "fifo":
        os.mkfifo(key)
    elif kind == "symlink":
        key.symlink_to("/dev/zero")
    else:
        key.mkdir()
    server = servers(home, wait=False)
    try:
        code = server.proc.wait(30)
    except subprocess.TimeoutExpired:
        pytest.fail(f"gcv serve hung on a secret.key that is a {kind}")
    assert code == 2, server.stderr()
    assert str(key) in server.stderr() and "Traceback" not in server.stderr(), server.stderr()


# ---------------------------------------------------------------------- item 6: bodies
def raw_post(server: Serve, path: str, headers: dict[str, str], total: int, *, chunked: bool = False,
             chunk: int = MB) -> tuple[int | None, int]:
    """POST ``total`` bytes of body over a raw socket, as fast as the server takes them; the status
    the server answered (None if it answered nothing) and how many body bytes it let us send."""
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=15)
    head = [f"POST {path} HTTP/1.1", f"Host: 127.0.0.1:{server.port}", "Connection: close",
            *(f"{k}: {v}" for k, v in headers.items())]
    head.append("Transfer-Encoding: chunked" if chunked else f"Content-Length: {total}")
    sent = 0
    block = b"x" * chunk
    try:
        sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode())
        while sent < total:
            n = min(chunk, total - sent)
            data = block[:n]
            sock.sendall(b"%x\r\n%s\r\n" % (n, data) if chunked else data)
            sent += n
        if chunked:
            sock.sendall(b"0\r\n\r\n")
    except (BrokenPipeError, ConnectionResetError, socket.timeout):
        pass
    answer = b""
    try:
        while chunk_in := sock.recv(65536):
            answer += chunk_in
    except (ConnectionResetError, socket.timeout):
        pass
    finally:
        sock.close()
    m = re.match(rb"HTTP/1\.1 (\d{3})", answer)
    return (int(m.group(1)) if m else None), sent


BIG = 200 * MB


def test_anonymous_and_oversized_bodies_are_refused_without_reading_them(servers, home: Path,
                                                                         users_file: Path) -> None:
    server = servers(home, "--users", str(users_file))
    cookie = server.sign_in(token=READER)
    csrf = server.csrf(cookie)
    bearer = {"Authorization": f"Bearer {READER}", "Content-Type": "application/json"}
    before = server.peak_rss()
    cases = [  # (path, headers, chunked, status)
        ("/api/baselines/rollback", {"Content-Type": "application/json"}, False, 401),  # anonymous
        ("/api/baselines/rollback", {"Content-Type": "application/json"}, True, 401),
        ("/api/baselines/rollback", {"Authorization": "Bearer not-a-token-at-all"}, False, 401),
        ("/workflows/wf_x/decide", {"Content-Type": "application/x-www-form-urlencoded"}, False, 303),  # to sign-in
        # a session cookie without its CSRF token or Origin: refused from the headers
        ("/workflows/wf_x/decide", {"Cookie": f"gcv_session={cookie}",
                                    "Content-Type": "application/x-www-form-urlencoded"}, False, 403),
        ("/api/baselines/rollback", {"Cookie": f"gcv_session={cookie}", "Content-Type": "application/json"},
         False, 403),
        # signed in, but past the route's cap
        ("/api/baselines/rollback", bearer, False, 413),
        ("/api/baselines/rollback", bearer, True, 413),
        ("/workflows/wf_x/decide", {"Cookie": f"gcv_session={cookie}", "X-CSRF-Token": csrf,
                                    "Origin": server.origin,
                                    "Content-Type": "application/x-www-form-urlencoded"}, False, 413),
        ("/login", {"Content-Type": "application/x-www-form-urlencoded"}, False, 413),
        ("/login", {"Content-Type": "multipart/form-data; boundary=x"}, True, 413),
    ]
    for path, headers, chunked, status in cases:
        started = time.monotonic()
        got, sent = raw_post(server, path, headers, BIG, chunked=chunked)
        assert got == status, (path, headers, chunked, got)
        assert sent < BIG, f"{path}: the server took the whole body before answering"
        assert time.monotonic() - started < 10
    after = server.peak_rss()
    grew = (after - before) / MB
    print(f"\npeak RSS of the server: {before / MB:.1f} MB before, {after / MB:.1f} MB after "
          f"{len(cases)} bodies of {BIG // MB} MB (+{grew:.1f} MB)")
    assert grew < 20, f"the server's peak RSS grew by {grew:.0f} MB"
    assert server.proc.poll() is None
    assert me(server, cookie).status_code == 200  # and it goes on serving


def test_a_body_within_the_cap_still_works_and_a_small_cap_is_per_route(servers, home: Path,
                                                                         users_file: Path) -> None:
    server = servers(home, "--users", str(users_file))
    bearer = {"authorization": f"Bearer {READER}"}
    # a note of 4000 CJK characters, \u-escaped: 24 KB of JSON, under the JSON routes' cap
    r = httpx.post(f"{server.url}/api/baselines/rollback", json={"note": "注" * 4000}, headers=bearer, timeout=10)
    assert r.status_code == 409, r.text  # read and refused on its merits (one baseline version only)
    r = httpx.post(f"{server.url}/login", content=b"token=" + b"x" * 20_000, timeout=10,
                   headers={"content-type": "application/x-www-form-urlencoded"})
    assert r.status_code == 413  # the sign-in form is small


def test_the_json_api_refuses_duplicate_keys_as_the_cli_does(servers, home: Path, users_file: Path) -> None:
    server = servers(home, "--users", str(users_file))
    headers = {"authorization": f"Bearer {READER}", "content-type": "application/json"}
    r = httpx.post(f"{server.url}/api/baselines/rollback", content=b'{"note": "first", "note": "second"}',
                   headers=headers, timeout=10)
    assert r.status_code == 422, (r.status_code, r.text)
    assert 'duplicate key "note"' in r.json()["error"], r.json()
    r = httpx.post(f"{server.url}/api/baselines/rollback", content=b'{"note": "x", "to": NaN}', headers=headers,
                   timeout=10)
    assert r.status_code == 422 and "NaN" in r.json()["error"], r.text
    r = httpx.post(f"{server.url}/api/workflows", content='{"request": "a", "request": "b"}'.encode(),
                   headers={**headers, "authorization": f"Bearer {DESIGNER}"}, timeout=10)
    assert r.status_code == 422 and 'duplicate key "request"' in r.json()["error"], r.text
