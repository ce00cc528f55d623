"""One module per command group; each is a module-level Typer ``app`` that gcv.cli.app joins."""
