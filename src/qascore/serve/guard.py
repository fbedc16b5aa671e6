"""Connections the server holds: a bounded number, and none that sends no request for long.

Why: uvicorn keeps a connection that has sent nothing, or half a request line,
for as long as the client likes, and accepts as many as come: 3,000 slow
sockets were all held (issue 64), each a file descriptor, until the process
could open no more. `GuardedH11` closes a connection that has not sent a whole
request head within `HEADER_TIMEOUT_S` of connecting (or of its last
response), and one opened while `MAX_CONNECTIONS` are already open; requests
beyond that many at once get 503 (uvicorn's `limit_concurrency`).
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_TIMEOUT_S = 10.0  # seconds a connection may take to send a request's line and headers
MAX_CONNECTIONS = 256    # open at once; the next one is closed at once


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request head and a cap on open connections."""

    header_timeout_s = HEADER_TIMEOUT_S
    max_connections = MAX_CONNECTIONS

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._head_timer: asyncio.TimerHandle | None = None
        if len(self.connections) > self.max_connections:
            transport.close()
            return
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.cycle is not None and not self.cycle.response_complete:  # a whole head arrived
            self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()  # the next request's head has the same deadline

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._head_timer = self.loop.call_later(self.header_timeout_s, self._too_slow)

    def _disarm(self) -> None:
        timer = getattr(self, "_head_timer", None)
        if timer is not None:
            timer.cancel()
            self._head_timer = None

    def _too_slow(self) -> None:
        self._head_timer = None
        if self.cycle is None or self.cycle.response_complete:  # still waiting for a request head
            if not self.transport.is_closing():
                self.transport.close()


def server_config(app: Any, **kw: Any) -> Any:
    """The uvicorn Config `qascore serve` runs: quiet logs, guarded connections, bounded concurrency."""
    import uvicorn

    return uvicorn.Config(app, log_level="warning", access_log=False, http=GuardedH11,
                          limit_concurrency=GuardedH11.max_connections, **kw)
