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


@pytest.mark.slow
def test_the_console_over_https_sets_a_secure_session_cookie(tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path)
    port = free_port()
    url = f"https://127.0.0.1:{port}"
    trust = ssl.create_default_context(cafile=str(cert))
    proc = subprocess.Popen([str(GCV), "serve", "--port", str(port), "--tls-cert", str(cert), "--tls-key", str(key)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env={**os.environ, "GCV_HOME": str(tmp_path / "ws")})
    try:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            try:
                if httpx.get(f"{url}/api/health", verify=trust, timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "gcv serve --tls-cert did not start"
            time.sleep(0.1)
        with httpx.Client(base_url=url, verify=trust, follow_redirects=False, timeout=10) as client:
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
        proc.terminate()
        proc.wait(30)
    assert b"https://127.0.0.1" in (proc.stderr.read() if proc.stderr else b"")


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
