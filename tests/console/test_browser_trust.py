"""The review page's trust words in a real headless Chromium: an unsigned bundle, one signed with
a key carried inside it (integrity only) and one signed with a key the server holds (trusted)
read exactly as `gcv verify` prints them, and the verify checks table shows each check's message.

The same signed bundle is "integrity only" to a console without the signer's public key and
"trusted" to one that pins it (GCV_VERIFY_KEY_ED25519): the cached verification of the first
is not reused by the second.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.console.conftest import REQUEST, free_port
from tests.console.test_browser import _chromium, _playwright
from tests.console.test_restart import Served

pytestmark = [pytest.mark.slow, pytest.mark.toolchain]
REPO = Path(__file__).resolve().parents[2]


def gcv(workspace: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GCV_SIGNING_KEY", "GCV_VERIFY_KEY"))}
    return subprocess.run([sys.executable, "-m", "gcv.cli.app", *args], capture_output=True, text=True, timeout=180,
                          env={**clean, "GCV_HOME": str(workspace), "NO_COLOR": "1", "COLUMNS": "400",
                               "PYTHONPATH": str(REPO), **env})


def keypair(folder: Path) -> tuple[Path, Path]:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.generate()
    private, public = folder / "signer.pem", folder / "signer.pub.pem"
    private.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
    public.write_bytes(key.public_key().public_bytes(serialization.Encoding.PEM,
                                                     serialization.PublicFormat.SubjectPublicKeyInfo))
    return private, public


def run_workflow(workspace: Path, **env: str) -> tuple[str, Path]:
    done = gcv(workspace, "run", REQUEST, "--yes", "--json", **env)
    assert done.returncode == 0, done.stderr[-2000:]
    import json

    wf = json.loads(done.stdout)["workflow_id"]
    return wf, workspace / "workflows" / wf / "evidence" / f"{wf}.evidence.zip"


def cli_trust(workspace: Path, bundle: Path, **env: str) -> str:
    """The trust line `gcv verify` prints, without its "trust: " prefix."""
    out = gcv(workspace, "verify", str(bundle), **env).stdout
    line = next(line for line in out.splitlines() if line.startswith("trust: "))
    return line.removeprefix("trust: ")


def test_the_review_page_says_what_gcv_verify_says(tmp_path: Path, workspace: Path) -> None:
    chromium = _chromium()
    sync_playwright = _playwright()
    private, public = keypair(tmp_path)
    unsigned_wf, unsigned = run_workflow(workspace)
    signed_wf, signed = run_workflow(workspace, GCV_SIGNING_KEY_ED25519=str(private))
    expected = {  # what the CLI says, for each verifier
        "unsigned": cli_trust(workspace, unsigned),
        "integrity": cli_trust(workspace, signed),
        "trusted": cli_trust(workspace, signed, GCV_VERIFY_KEY_ED25519=str(public)),
    }
    assert expected["unsigned"].startswith("unsigned: ")
    assert expected["integrity"].startswith("integrity only: ")
    assert expected["trusted"].startswith("trusted: ")

    def review(url: str, page, wf: str) -> tuple[str, str, str, list[tuple[str, str]]]:
        page.goto(f"{url}/workflows/{wf}/review")
        page.wait_for_selector("#trust")
        page.click("#evidence details summary")
        rows = [(r.query_selector("td.mono").inner_text(), r.query_selector("td.small").inner_text())
                for r in page.query_selector_all("#evidence details tbody tr")]
        return (page.get_attribute("#trust", "data-level"), page.inner_text("#trust-words"),
                page.inner_text("#trust-explanation"), rows)

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True,
                                     args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        try:
            for env, cases in (({}, [(unsigned_wf, "unsigned"), (signed_wf, "integrity")]),
                               ({"GCV_VERIFY_KEY_ED25519": str(public)}, [(signed_wf, "trusted")])):
                server = Served(workspace, free_port(), **env)
                try:
                    page = browser.new_context().new_page()
                    page.goto(f"{server.url}/login")
                    page.fill("#name", "rita")
                    page.click("button[type=submit]")
                    page.wait_for_url(f"{server.url}/workflows")
                    for wf, level in cases:
                        got_level, words, explanation, rows = review(server.url, page, wf)
                        assert got_level == level
                        cli_words, cli_explanation = expected[level].split(": ", 1)
                        assert words == f"trust: {cli_words}" and explanation == cli_explanation, (words, explanation)
                        assert len(rows) > 10 and all(message.strip() for _, message in rows), rows
                        assert dict(rows)["integrity.signature"].startswith(
                            "unsigned" if level == "unsigned" else "Ed25519 signature verified")
                finally:
                    server.kill()
        finally:
            browser.close()
