"""Host and Origin rules (DNS rebinding, cross-site requests), and signed sessions."""

from __future__ import annotations

import pytest

from gcv.console.security import Origins, Sessions, default_allowed_hosts, split_host


def test_allowed_hosts_follow_the_bind_address() -> None:
    assert default_allowed_hosts("127.0.0.1") >= {"127.0.0.1", "localhost", "::1"}
    assert default_allowed_hosts("10.1.2.3") == frozenset({"10.1.2.3"})
    assert default_allowed_hosts("10.1.2.3", ["Console.Studio.Lan"]) == frozenset({"10.1.2.3", "console.studio.lan"})
    wildcard = default_allowed_hosts("0.0.0.0")
    assert "127.0.0.1" in wildcard and "evil.example" not in wildcard


@pytest.mark.parametrize("value, parsed", [("a.b:80", ("a.b", 80)), ("[::1]:8765", ("::1", 8765)), ("A.B", ("a.b", None)),
                                           ("u@a.b", None), ("a.b/x", None), ("a.b:99999", None), ("", None)])
def test_split_host(value: str, parsed) -> None:
    assert split_host(value) == parsed


def test_origins_must_be_this_server_as_addressed() -> None:
    o = Origins(frozenset({"127.0.0.1", "localhost"}), 8765)
    assert o.host_ok("127.0.0.1:8765") and o.host_ok("localhost:8765")
    assert not o.host_ok("127.0.0.1") and not o.host_ok("attacker.example:8765") and not o.host_ok(None)
    assert o.origin_ok("http://127.0.0.1:8765", "127.0.0.1:8765")
    assert not o.origin_ok("http://localhost:8765", "127.0.0.1:8765")  # another origin, even if it is us
    assert not o.origin_ok("http://127.0.0.1:8765/path", "127.0.0.1:8765")
    assert not o.origin_ok("null", "127.0.0.1:8765")
    assert o.origin_ok("https://127.0.0.1:8765", "127.0.0.1:8765")  # behind a TLS proxy the scheme differs
    assert not o.origin_ok("http://attacker.example:8765", "attacker.example:8765")  # a rebinding name


def test_a_tls_server_takes_https_origins_only_and_443_as_the_default_port() -> None:
    o = Origins(frozenset({"console.lan"}), 443, tls=True)
    assert o.host_ok("console.lan") and o.host_ok("console.lan:443") and not o.host_ok("console.lan:80")
    assert o.origin_ok("https://console.lan", "console.lan")
    assert not o.origin_ok("http://console.lan:443", "console.lan")  # plain http is never this server
    assert not o.origin_ok("http://console.lan", "console.lan")
    plain = Origins(frozenset({"console.lan"}), 80)
    assert plain.host_ok("console.lan") and not plain.host_ok("console.lan:443")


def test_sessions_are_signed_and_csrf_tokens_belong_to_one_session() -> None:
    s = Sessions(b"k" * 32)
    cookie = s.new("ana")
    session = s.read(cookie)
    assert session is not None and session["n"] == "ana"
    assert s.read(cookie[:-2] + "xx") is None and s.read("") is None
    assert Sessions(b"j" * 32).read(cookie) is None
    other = s.read(s.new("ana"))
    assert s.csrf_ok(session, s.csrf_token(session))
    assert not s.csrf_ok(session, s.csrf_token(other)) and not s.csrf_ok(session, None)
