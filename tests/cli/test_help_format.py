"""Plain --help (gcv.cli.help_format): the command list shows each command's whole first sentence."""

from __future__ import annotations

import click
from click.testing import CliRunner

from gcv.cli.help_format import PlainHelpGroup

LONG = "Verify an evidence bundle offline: hashes, the event chain, signatures and every recorded figure again."


def test_the_whole_summary_is_shown_and_hidden_commands_are_not() -> None:
    group = PlainHelpGroup(name="gcv", rich_markup_mode=None)  # as gcv.cli.root builds it
    group.add_command(click.Command("verify", help=LONG))
    group.add_command(click.Command("secret", help="internal", hidden=True))
    out = CliRunner().invoke(group, ["--help"]).output
    commands = " ".join(out.split("Commands:")[1].split())
    assert commands == "verify " + LONG and "secret" not in out  # click's own group cuts it: "the event chain,..."
