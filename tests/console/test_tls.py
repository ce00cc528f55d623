"""`gcv serve --tls-cert --tls-key`: the console over HTTPS, a real server and a real TLS
handshake on 127.0.0.1 (a self-signed certificate made here; nothing is downloaded)."""

from __future__ import annotations

import datetime
import ipaddress
import os
import ssl
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from tests.console.conftest import free_port

GCV = Path(sys.executable).with_name("gcv")


def self_signed(folder: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


class ServedTLS:
    """A real `gcv serve --tls-cert --tls-key` on 127.0.0.1."""

    def __init__(self, tmp_path: Path) -> None:
        self.cert, key = self_signed(tmp_path)
        self.port = free_port()
        self.url = f"https://127.0.0.1:{self.port}"
        self.trust = ssl.create_default_context(cafile=str(self.cert))
        self.proc = subprocess.Popen([str(GCV), "serve", "--port", str(self.port), "--tls-cert", str(self.cert),
                                      "--tls-key", str(key)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     env={**os.environ, "GCV_HOME": str(tmp_path / "ws")})
        deadline = time.monotonic() + 30
        while True:
            assert self.proc.poll() is None, self.proc.stderr.read().decode() if self.proc.stderr else ""
            try:
                if httpx.get(f"{self.url}/api/health", verify=self.trust, timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "gcv serve --tls-cert did not start"
            time.sleep(0.1)

    def stop(self) -> bytes:
        self.proc.terminate()
        self.proc.wait(30)
        return self.proc.stderr.read() if self.proc.stderr else b""


@pytest.mark.slow
def test_the_console_over_https_sets_a_secure_session_cookie(tmp_path: Path) -> None:
    server = ServedTLS(tmp_path)
    url, port = server.url, server.port
    try:
        with httpx.Client(base_url=url, verify=server.trust, follow_redirects=False, timeout=10) as client:
            r = client.post("/login", data={"name": "ana", "next": "/workflows"},
                            headers={"origin": url})
            assert r.status_code == 303
            cookie = r.headers["set-cookie"].lower()
            assert "secure" in cookie and "httponly" in cookie and "samesite=strict" in cookie
            assert client.get("/workflows").status_code == 200  # the cookie works over https
            # a page of plain http is another origin: a write from it is refused
            r = client.post("/logout", headers={"origin": f"http://127.0.0.1:{port}"})
            assert r.status_code == 403
        with pytest.raises(httpx.TransportError):  # nothing is served in clear text on that port
            httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=5)
    finally:
        stderr = server.stop()
    assert b"https://127.0.0.1" in stderr


@pytest.mark.slow
@pytest.mark.toolchain
def test_a_designer_signs_in_and_proposes_over_https_in_chromium(tmp_path: Path) -> None:
    """The same console in Debian's Chromium over TLS: sign-in, a Secure cookie in the browser's
    jar, and a form post (a write, so the https Origin is checked) that proposes a change."""
    from tests.console.test_browser import _chromium, _playwright, assert_real_content

    chromium, sync_playwright = _chromium(), _playwright()
    server = ServedTLS(tmp_path)
    url = server.url
    errors: list[str] = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, headless=True,
                                         args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
            try:
                # the test's own self-signed certificate: nothing to trust it by in the browser
                context = browser.new_context(ignore_https_errors=True, viewport={"width": 1280, "height": 900})
                page = context.new_page()
                page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
                page.on("pageerror", lambda e: errors.append(str(e)))
                page.goto(f"{url}/workflows")
                assert page.url.startswith(f"{url}/login")
                page.fill("#name", "dana")
                page.click("button[type=submit]")
                page.wait_for_url(f"{url}/workflows")
                (session,) = [c for c in context.cookies() if c["name"] == "gcv_session"]
                assert session["secure"] and session["httpOnly"] and session["sameSite"] == "Strict"
                page.click("text=New change")
                page.fill("#request", "reduce phase 2 bullet speed by 10%")
                page.click("button:has-text('Propose')")
                page.wait_for_url(f"{url}/workflows/wf-*")
                assert "Awaiting authorization" in page.inner_text("#status-badge")
                shot = tmp_path / "https-workflow.png"
                page.screenshot(path=str(shot), full_page=True)
                assert_real_content(shot)
            finally:
                browser.close()
    finally:
        server.stop()
    assert not errors, errors


def test_plain_http_sets_no_secure_cookie(local_app) -> None:
    from starlette.testclient import TestClient

    from tests.console.conftest import BASE

    r = TestClient(local_app, base_url=BASE, follow_redirects=False).post("/login", data={"name": "ana"})
    assert "secure" not in r.headers["set-cookie"].lower()


@pytest.mark.parametrize("case", ["cert-only", "key-only", "missing-file", "not-pem", "mismatched-key"])
def test_a_tls_pair_that_cannot_serve_is_refused_before_listening(case: str, tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path)
    other_dir = tmp_path / "other"
    other_dir.mkdir()
    _, other_key = self_signed(other_dir)
    args = {"cert-only": ["--tls-cert", str(cert)],
            "key-only": ["--tls-key", str(key)],
            "missing-file": ["--tls-cert", str(tmp_path / "nope.pem"), "--tls-key", str(key)],
            "not-pem": ["--tls-cert", str(cert), "--tls-key", str(tmp_path / "garbage.pem")],
            "mismatched-key": ["--tls-cert", str(cert), "--tls-key", str(other_key)]}[case]
    (tmp_path / "garbage.pem").write_text("not a key")
    # a real process with a timeout: a pair wrongly accepted would start serving, not hang the suite
    done = subprocess.run([str(GCV), "serve", "--port", str(free_port()), *args], capture_output=True, text=True,
                          env={**os.environ, "GCV_HOME": str(tmp_path / "ws")}, timeout=60)
    assert done.returncode == 2, done.stderr
    text = " ".join(done.stderr.split())
    needle = {"cert-only": "go together", "key-only": "go together", "missing-file": "nope.pem",
              "not-pem": "cannot use", "mismatched-key": "cannot use"}[case]
    assert needle in text, text
