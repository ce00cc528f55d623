"""Host and Origin rules (DNS rebinding, cross-site requests), and signed sessions."""

from __future__ import annotations

from pathlib import Path

import pytest

from gcv.console.security import Origins, default_allowed_hosts, split_host
from gcv.console.sessions import (LOCAL_BINDING, Sessions, SessionStore, session_key, weak_reason,
                                  workspace_secret)


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


def test_sessions_are_signed_and_csrf_tokens_belong_to_one_session(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions.sqlite")
    s = Sessions(b"k" * 32, store)
    cookie = s.new("ana")
    session = s.read(cookie)
    assert session is not None and session.name == "ana"
    assert s.read(cookie[:-2] + "xx") is None and s.read("") is None
    assert Sessions(b"j" * 32, store).read(cookie) is None
    other = s.read(s.new("ana"))
    assert other is not None
    assert s.csrf_ok(session, s.csrf_token(session))
    assert not s.csrf_ok(session, s.csrf_token(other)) and not s.csrf_ok(session, None)


def test_a_session_is_valid_only_for_the_binding_that_issued_it(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions.sqlite")
    local = Sessions(b"k" * 32, store, binding=LOCAL_BINDING)
    guarded = Sessions(b"k" * 32, store, binding="users:" + "0" * 64)
    other = Sessions(b"k" * 32, store, binding="users:" + "1" * 64)
    cookie = local.new("rita")
    assert local.read(cookie) is not None
    assert guarded.read(cookie) is None and other.read(guarded.new("rita")) is None
    # the CSRF token of one kind of console is nothing on another
    assert guarded.csrf_token(local.read(cookie)) != local.csrf_token(local.read(cookie))


def test_a_session_expires_and_ends_at_sign_out(tmp_path: Path) -> None:
    now = [1_000_000.0]
    store = SessionStore(tmp_path / "sessions.sqlite")
    s = Sessions(b"k" * 32, store, max_age=60, clock=lambda: now[0])
    a, b = s.new("ana"), s.new("ana")
    session = s.read(a)
    assert session is not None and session.expires_at - session.issued_at == 60
    s.end(session)
    assert s.read(a) is None and s.read(b) is not None
    assert Sessions(b"k" * 32, SessionStore(tmp_path / "sessions.sqlite"), max_age=60,
                    clock=lambda: now[0]).read(a) is None  # recorded, not remembered by one process
    now[0] += 61
    assert s.read(b) is None
    now[0] -= 3600  # a cookie issued "in the future" (a clock set back) is no session either
    assert s.read(s.new("ana")) is not None and s.read(b) is None


def test_a_cookie_without_its_row_is_no_session(tmp_path: Path) -> None:
    """Signed with the right key but never issued (a stolen key): the table does not know it."""
    s = Sessions(b"k" * 32, SessionStore(tmp_path / "a.sqlite"))
    elsewhere = Sessions(b"k" * 32, SessionStore(tmp_path / "b.sqlite"))
    assert s.read(elsewhere.new("ana")) is None


@pytest.mark.parametrize("weak", [b"", b"x" * 31, b"a" * 32, b"ab" * 40, b"\x00" * 64, b"z" * 5000])
def test_weak_keys_are_named(weak: bytes) -> None:
    assert weak_reason(weak) is not None
    with pytest.raises(ValueError):
        session_key(weak[:31], LOCAL_BINDING)


def test_a_random_or_hex_key_is_kept(tmp_path: Path) -> None:
    import secrets

    assert weak_reason(secrets.token_bytes(32)) is None
    assert weak_reason(secrets.token_hex(32).encode()) is None
    key = tmp_path / "console" / "secret.key"
    key.parent.mkdir()
    key.write_bytes(b"short")
    first = workspace_secret(tmp_path)
    assert first.warning and str(key) in first.warning and len(first.key) == 32
    again = workspace_secret(tmp_path)
    assert again.key == first.key and again.warning is None


def test_the_users_digest_follows_the_database_not_the_file(tmp_path: Path) -> None:
    from gcv.console.users import load_users

    a, b, c = tmp_path / "a.toml", tmp_path / "b.toml", tmp_path / "c.toml"
    a.write_text('[[user]]\nname = "rita"\nroles = ["reviewer"]\ntoken = "reviewer-token-0123456789"\n')
    b.write_text('# the same users\n[[user]]\nroles = ["reviewer"]\nname = "rita"\ntoken = "reviewer-token-0123456789"\n')
    c.write_text('[[user]]\nname = "rita"\nroles = ["reviewer", "operator"]\ntoken = "reviewer-token-0123456789"\n')
    assert load_users(a).digest == load_users(b).digest != load_users(c).digest
