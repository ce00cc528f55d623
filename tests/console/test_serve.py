"""`gcv serve` refuses to expose the console without users, and reads the users file strictly."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from gcv.cli.app import app


def test_binding_beyond_loopback_needs_users(workspace: Path) -> None:
    result = CliRunner().invoke(app, ["serve", "--host", "0.0.0.0", "--port", "1"])
    assert result.exit_code == 2 and "without --users" in result.output


def test_a_bad_users_file_is_a_usage_error(workspace: Path, tmp_path: Path) -> None:
    bad = tmp_path / "users.toml"
    bad.write_text('[[user]]\nname = "a"\nroles = ["boss"]\ntoken = "0123456789abcdef"\n', encoding="utf-8")
    result = CliRunner().invoke(app, ["serve", "--users", str(bad)])
    assert result.exit_code == 2 and "unknown role(s) boss" in result.output
