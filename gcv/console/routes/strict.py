"""The API's route class: a JSON body is first read by the CLI's strict loader."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request
from fastapi.responses import Response
from fastapi.routing import APIRoute

from gcv.console.context import ConsoleError
from gcv.console.security import SAFE_METHODS
from gcv.contract.loading import GcvInputError, parse_json_text


class StrictJSONRoute(APIRoute):
    """A route whose JSON body is first read by the CLI's strict loader: a duplicate key, NaN,
    Infinity or a number too large for a float is a 422 naming it, as ``gcv`` refuses it in a
    file (the framework's parser would keep the last of two keys). The body is small by then:
    the gate has capped it."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict(request: Request) -> Response:
            if request.method not in SAFE_METHODS:
                ctype = request.headers.get("content-type", "application/json").split(";")[0].strip().lower()
                raw = await request.body()
                if raw.strip() and (ctype == "application/json" or ctype.endswith("+json")):
                    strict_json(raw)
            return await handler(request)

        return strict


def strict_json(raw: bytes) -> None:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConsoleError(422, "body: not UTF-8 text", field="body") from None
    try:
        parse_json_text(text, "body")
    except GcvInputError as exc:
        where = (exc.path_in_doc or "").removeprefix("$.").removeprefix("$") or "body"  # as the 422s name fields
        raise ConsoleError(422, f"{where}: {exc.message}", field=where) from None


__all__ = ["StrictJSONRoute", "strict_json"]
