""":class:`MemoryLedger`: the ledger of one process's lifetime."""

from __future__ import annotations

import threading
import uuid
from dataclasses import replace

from unspool.actions.ledgers._base import Ledger, Record, RowState

__all__ = ["MemoryLedger"]


class MemoryLedger(Ledger):
    """A ledger in memory, for one process's lifetime: enough against re-renders
    and retries; a finished action replays the very object its handler returned.
    Its claims hold no lease (they end with the process); ``wait`` as for any ledger."""

    stores_objects = True

    def __init__(self, *, wait: float = 30.0) -> None:
        super().__init__(f"memory:{uuid.uuid4().hex}", lease=None, wait=wait)
        self._rows: dict[str, Record] = {}
        self._lock = threading.Lock()

    def insert_started(self, row: Record) -> Record | None:
        with self._lock:
            found = self._rows.get(row.key)
            if found is None:
                self._rows[row.key] = row
            return found

    def take_over(self, token: str, row: Record, state: RowState = "started") -> bool:
        with self._lock:
            found = self._rows.get(row.key)
            if found is None or found.token != token or found.state != state:
                return False
            self._rows[row.key] = row
            return True

    def mark_started(self, key: str, token: str, lease_until: float | None) -> bool:
        with self._lock:
            found = self._rows.get(key)
            if found is None or found.token != token or found.state != "claimed":
                return False
            self._rows[key] = replace(found, state="started", lease_until=lease_until)
            return True

    def renew_lease(self, key: str, token: str, lease_until: float) -> bool:
        with self._lock:
            found = self._held(key, token)
            if found is None:
                return False
            self._rows[key] = replace(found, lease_until=lease_until)
            return True

    def write_outcome(self, row: Record) -> bool:
        with self._lock:
            if self._held(row.key, row.token) is None:
                return False
            self._rows[row.key] = row
            return True

    def delete_claim(self, key: str, token: str) -> bool:
        with self._lock:
            if self._held(key, token) is None:
                return False
            del self._rows[key]
            return True

    def _held(self, key: str, token: str) -> Record | None:
        """The unfinished row of ``key`` held by ``token`` (the lock held)."""
        found = self._rows.get(key)
        if found is None or found.token != token or found.state == "finished":
            return None
        return found

    def get(self, key: str) -> Record | None:
        with self._lock:
            return self._rows.get(key)

    def forget(self, key: str) -> None:
        with self._lock:
            self._rows.pop(key, None)

    def records(self) -> list[Record]:
        with self._lock:
            return list(self._rows.values())

    def purge_before(self, finished_before: float) -> int:
        with self._lock:
            old = [
                k
                for k, r in self._rows.items()
                if r.finished_at is not None and r.finished_at < finished_before
            ]
            for k in old:
                del self._rows[k]
            return len(old)

    # no I/O: the async twins run inline rather than in a worker thread

    async def ainsert_started(self, row: Record) -> Record | None:
        return self.insert_started(row)

    async def atake_over(self, token: str, row: Record, state: RowState = "started") -> bool:
        return self.take_over(token, row, state)

    async def amark_started(self, key: str, token: str, lease_until: float | None) -> bool:
        return self.mark_started(key, token, lease_until)

    async def arenew_lease(self, key: str, token: str, lease_until: float) -> bool:
        return self.renew_lease(key, token, lease_until)

    async def awrite_outcome(self, row: Record) -> bool:
        return self.write_outcome(row)

    async def adelete_claim(self, key: str, token: str) -> bool:
        return self.delete_claim(key, token)
