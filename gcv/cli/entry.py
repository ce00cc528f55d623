"""The ``gcv`` console script.

Importing the command tree (``gcv.cli.app``) takes about a tenth of a second; a Ctrl-C in that
window, or an install broken enough that the import fails, must end like any other failure:
one line (one JSON object with ``--json``) and the documented exit code (130 interrupted, 70
environment or internal error; see ``gcv/cli/failures.py``), never a traceback.
"""

from __future__ import annotations

import sys


def main() -> None:
    try:
        from gcv.cli.app import main as run  # lazy: the import itself is inside the handling
    except BaseException as exc:  # noqa: BLE001 - the same last line of defence as gcv.cli.app.main
        if isinstance(exc, SystemExit):
            raise
        from gcv.cli.failures import report

        sys.exit(report(exc, json_mode="--json" in sys.argv[1:]))
    run()


if __name__ == "__main__":
    main()
