"""The users file: named users with tokens and roles, refused with the entry and field named."""

from __future__ import annotations

from pathlib import Path

import pytest

from gcv.console.users import ROLES, User, UsersFileError, clean_name, load_users, token_digest


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "users.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_tokens_find_their_users_and_roles(tmp_path: Path) -> None:
    digest = token_digest("a-long-enough-token-1")
    users = load_users(write(tmp_path, f'[[user]]\nname = "dana"\nroles = ["designer"]\ntoken_sha256 = "{digest}"\n'
                                       '[[user]]\nname = "rita"\nroles = ["reviewer", "operator"]\n'
                                       'token = "another-long-token-2"\n'))
    dana = users.find("a-long-enough-token-1")
    assert dana is not None and dana.name == "dana" and dana.may("submit") and not dana.may("authorize")
    rita = users.find("another-long-token-2")
    assert rita is not None and rita.may("decide") and rita.may("resume") and not rita.may("answer")
    assert users.find("a-long-enough-token-") is None and users.named("rita") == rita


@pytest.mark.parametrize("text, says", [
    ("", "no users"),
    ("x = 1", "unknown key"),
    ('[[user]]\nname = "a"\nroles = ["designer"]\n', "exactly one of token_sha256"),
    ('[[user]]\nname = "a"\nroles = ["admin"]\ntoken = "0123456789abcdef"\n', "unknown role(s) admin"),
    ('[[user]]\nname = "a"\nroles = []\ntoken = "0123456789abcdef"\n', "roles must be a non-empty list"),
    ('[[user]]\nname = "a"\nroles = ["designer"]\ntoken = "short"\n', "at least 16 characters"),
    ('[[user]]\nname = "a"\nroles = ["designer"]\ntoken_sha256 = "abc"\n', "64 hex digits"),
    ('[[user]]\nname = ""\nroles = ["designer"]\ntoken = "0123456789abcdef"\n', "field name"),
    ('[[user]]\nname = "a"\nroles = ["designer"]\ntoken = "0123456789abcdef"\npassword = "x"\n', "unknown field"),
    ('[[user]]\nname = "a"\nroles = ["designer"]\ntoken = "0123456789abcdef"\n'
     '[[user]]\nname = "a"\nroles = ["designer"]\ntoken = "0123456789abcdeg"\n', "used twice"),
    ('[[user]]\nname = "a"\nroles = ["designer"]\ntoken = "0123456789abcdef"\n'
     '[[user]]\nname = "b"\nroles = ["designer"]\ntoken = "0123456789abcdef"\n', "the same token"),
    ("[[user]\n", "not TOML"),
])
def test_a_bad_users_file_is_refused_saying_where(tmp_path: Path, text: str, says: str) -> None:
    with pytest.raises(UsersFileError, match="users.toml") as info:
        load_users(write(tmp_path, text))
    assert says in str(info.value)


def test_a_missing_file_and_names(tmp_path: Path) -> None:
    with pytest.raises(UsersFileError, match="cannot read"):
        load_users(tmp_path / "nope.toml")
    assert clean_name("  Ana   Lee ") == "Ana Lee"
    for bad in ("", "   ", "x" * 65, "a\x00b"):
        with pytest.raises(ValueError):
            clean_name(bad)
    assert User("local").roles == frozenset(ROLES)
