"""A record of every retrieval stage: candidates in → out, milliseconds, and notes."""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass
class Trace:
    stages: list[dict] = field(default_factory=list)

    @contextmanager
    def stage(self, name: str, n_in: int | None = None):
        rec = {"stage": name, "in": n_in, "out": None, "ms": 0.0, "notes": {}}
        t = time.perf_counter()
        try:
            yield rec
        finally:
            rec["ms"] = round((time.perf_counter() - t) * 1000, 2)
            self.stages.append(rec)

    def to_list(self) -> list[dict]:
        return self.stages
