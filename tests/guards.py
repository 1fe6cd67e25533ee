"""Keeps the `mariadb` marker honest: a test that reaches MariaDB must carry it.

conftest.py installs one audit hook per test process. It records every in-process
``socket.connect`` to 127.0.0.1:3306 made while the running test is not marked `mariadb`,
and the test then fails at teardown, so `pytest -m "not mariadb"` really runs without the
server. Connections made by subprocesses are not seen (no test has one reach MariaDB).
"""

from __future__ import annotations

import sys
from typing import Any

MARIADB_PORT = 3306
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


class MariadbGuard:
    def __init__(self) -> None:
        self.allowed = True
        self.unmarked_connections: list[tuple[str, int]] = []
        self._installed = False

    def install(self) -> None:
        if not self._installed:
            sys.addaudithook(self._audit)  # cannot be removed: it checks `allowed` instead
            self._installed = True

    def start_test(self, marked: bool) -> None:
        self.allowed = marked
        self.unmarked_connections = []

    def _audit(self, event: str, args: tuple[Any, ...]) -> None:
        if event != "socket.connect" or self.allowed:
            return
        addr = args[1]
        if isinstance(addr, tuple) and len(addr) >= 2:
            host, port = addr[0], addr[1]
            if host in LOCAL_HOSTS and port == MARIADB_PORT:
                self.unmarked_connections.append((host, port))


MARIADB = MariadbGuard()
