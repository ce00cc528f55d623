"""``gcv serve``: the browser console on this workspace (docs/console.md).

Binds to loopback by default, for one local user with every role. Binding to any other
address needs ``--users FILE`` (named users with tokens and roles); without it the command
refuses with exit code 2 before anything listens. ``--tls-cert`` and ``--tls-key`` serve over
HTTPS (tokens and session cookies encrypted on the network; the cookie is then ``Secure``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from gcv.cli.output import console, fail_usage

app = typer.Typer()


@app.command("serve")
def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="address to listen on (loopback unless --users is given)"),
    port: int = typer.Option(8765, "--port", min=1, max=65535),
    users: Optional[Path] = typer.Option(None, "--users", help="TOML file of users: name, roles, token_sha256"),
    allow_host: list[str] = typer.Option([], "--allow-host",
                                         help="another host name browsers use to reach this server (repeatable)"),
    log_level: str = typer.Option("warning", "--log-level", help="uvicorn's log level"),
    tls_cert: Optional[Path] = typer.Option(None, "--tls-cert", help="PEM certificate (chain): serve over HTTPS"),
    tls_key: Optional[Path] = typer.Option(None, "--tls-key", help="PEM private key of --tls-cert"),
    session_seconds: int = typer.Option(12 * 3600, "--session-seconds", min=1, max=30 * 86400,
                                        help="how long a browser session lasts after sign-in"),
) -> None:
    """Serve the GCV console (designers, operators and reviewers in a browser)."""
    # lazy: the web stack only for this command
    import uvicorn

    from engine_runners.termination import install_termination_handling  # engine processes end with gcv
    from gcv.cli import startup
    from gcv.console.app import create_app
    from gcv.console.context import ConsoleConfig
    from gcv.console.security import is_loopback
    from gcv.console.users import UsersFileError, load_users
    from gcv.store.errors import StoreError
    from gcv.store.paths import workspace_root

    user_table = None
    if users is not None:
        try:
            user_table = load_users(users)
        except UsersFileError as exc:
            fail_usage(str(exc), file=str(users), role="users file")
    if user_table is None and not is_loopback(host):
        fail_usage(f"refusing to serve on {host} without --users: a console reachable from other machines "
                   "needs named users with tokens and roles",
                   hint="serve on 127.0.0.1 (the default), or pass --users FILE (docs/console.md)")
    tls = _check_tls(tls_cert, tls_key)
    try:
        application = create_app(ConsoleConfig(workspace=workspace_root(), host=host, port=port, users=user_table,
                                               allow_hosts=tuple(allow_host), tls=tls,
                                               session_seconds=session_seconds))
    except StoreError as exc:
        fail_usage(str(exc))
    install_termination_handling()
    startup.imports_done()  # a long-running server from here on
    shown = f"[{host}]" if ":" in host else host
    mode = f"{len(user_table.by_digest)} user(s) from {users}" if user_table else "local user, every role"
    err = console(stderr=True)
    for warning in application.state.console.warnings:  # e.g. a weak key file, replaced
        err.print(warning, markup=False, soft_wrap=True)
    err.print(f"GCV console on {'https' if tls else 'http'}://{shown}:{port}/ (workspace {workspace_root()}; "
              f"{mode}); Ctrl-C stops it", markup=False, soft_wrap=True)
    if not tls and not is_loopback(host):
        err.print("warning: plain HTTP on the network: tokens and session cookies can be read by anyone on the "
                  "path; serve with --tls-cert and --tls-key", markup=False, soft_wrap=True)
    uvicorn.run(application, host=host, port=port, log_level=log_level, timeout_graceful_shutdown=3,
                proxy_headers=False, server_header=False,
                ssl_certfile=str(tls_cert) if tls else None, ssl_keyfile=str(tls_key) if tls else None)


def _check_tls(cert: Optional[Path], key: Optional[Path]) -> bool:
    """Both or neither; a pair the TLS library loads (checked now, not at the first request)."""
    if cert is None and key is None:
        return False
    if cert is None or key is None:
        fail_usage("--tls-cert and --tls-key go together", hint="pass the PEM certificate and its private key")
    import ssl  # lazy: only when serving over HTTPS

    for path, role in ((cert, "TLS certificate"), (key, "TLS key")):
        if not path.is_file():
            fail_usage(f"{path} is not a file", file=str(path), role=role)
    try:
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(str(cert), str(key))
    except (ssl.SSLError, OSError) as exc:
        fail_usage(f"cannot use {cert} with {key} for TLS: {exc}", file=str(cert), role="TLS certificate",
                   hint="a PEM certificate and the PEM private key that belongs to it, unencrypted")
    return True
