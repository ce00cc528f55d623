"""The gate before any body is read: who is asking, CSRF and body caps from the headers; and the
JSON API's strict loader (the hostile suite does the same through real `gcv serve` processes)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gcv.console.gate import DEFAULT_CAP, body_cap
from tests.console.conftest import BASE, TOKENS


def test_caps_are_per_route_and_small() -> None:
    assert body_cap("POST", "/login") == 8 * 1024
    assert body_cap("POST", "/api/workflows/wf_1/resume") == body_cap("POST", "/workflows/wf_1/resume") == 4096
    assert body_cap("POST", "/api/workflows") == body_cap("POST", "/workflows/wf_1/decide") == DEFAULT_CAP <= 64 * 1024
    assert body_cap("GET", "/api/workflows") == 4096


def test_the_api_refuses_duplicate_keys_and_non_json_numbers(local) -> None:
    r = local.post("/api/workflows", content=b'{"request": "a", "request": "slow down phase 2 by 20%"}',
                   headers={"content-type": "application/json"})
    assert r.status_code == 422 and 'duplicate key "request"' in r.json()["error"], r.text
    r = local.post("/api/workflows", content=b'{"request": "x", "seed": 1e400}', headers={"content-type": "application/json"})
    assert r.status_code == 422 and "too large" in r.json()["error"], r.text
    r = local.post("/api/workflows", content=b'{"request": "x", "actor": {"a": 1, "a": 2}}',
                   headers={"content-type": "application/json"})
    assert r.status_code == 422 and r.json()["field"] == "actor.a", r.text


def test_a_form_post_with_a_cookie_needs_its_origin_or_the_csrf_header(local_browser) -> None:
    b = local_browser
    del b.headers["origin"]  # a client that is not a browser, or a very old one
    r = b.post("/logout", data={"csrf": b.csrf})
    assert r.status_code == 403 and "Origin" in r.json()["error"]
    r = b.post("/logout", data={"csrf": b.csrf}, headers={"x-csrf-token": b.csrf})
    assert r.status_code == 303


def test_an_api_post_with_a_cookie_needs_the_csrf_header(local_browser) -> None:
    r = local_browser.post("/api/baselines/rollback", json={"note": "n"})
    assert r.status_code == 403 and "X-CSRF-Token" in r.json()["error"]
    r = local_browser.post("/api/baselines/rollback", json={"note": "n"}, headers={"x-csrf-token": local_browser.csrf})
    assert r.status_code == 409  # past the gate; refused on its merits (one version)


def _chunks(total: int, size: int = 4096) -> Iterator[bytes]:
    sent = 0
    while sent < total:
        yield b" " * min(size, total - sent)
        sent += size


def test_a_chunked_body_is_capped_while_it_is_read(bearer) -> None:
    rita = bearer("rita")
    r = rita.post("/api/baselines/rollback", content=_chunks(DEFAULT_CAP + 1),
                  headers={"content-type": "application/json"})
    assert r.status_code == 413
    small = (b'{"note": "x"}' for _ in range(1))
    r = rita.post("/api/baselines/rollback", content=small, headers={"content-type": "application/json"})
    assert r.status_code == 409, r.text  # a chunked body under the cap reaches the route whole


@pytest.mark.parametrize("length", ["-1", "12abc", "9" * 30])
def test_a_malformed_content_length_is_400(users_app, length: str) -> None:
    from starlette.testclient import TestClient

    client = TestClient(users_app, base_url=BASE)
    r = client.post("/login", content=b"x", headers={"content-length": length})
    assert r.status_code in (400, 413), r.status_code


def test_a_wrong_bearer_token_is_401_before_the_body(users_app) -> None:
    from starlette.testclient import TestClient

    client = TestClient(users_app, base_url=BASE, headers={"authorization": "Bearer nope-nope-nope-nope"})
    r = client.post("/api/workflows", json={"request": "x"})
    assert r.status_code == 401 and r.json()["error"] == "unknown token"
    ok = TestClient(users_app, base_url=BASE, headers={"authorization": f"Bearer {TOKENS['dana']}"})
    assert ok.get("/api/me").json()["user"]["name"] == "dana"
