"""A record of every retrieval stage: candidates in → out, milliseconds, and notes. Entries are found by the
stage's type (`trace.of(Threshold)`), never by their display names."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypedDict

# One stage as JSON (answers and debug exports): its display name, chunks in and out, milliseconds and notes.
TraceEntry = TypedDict("TraceEntry", {"stage": str, "in": int | None, "out": int | None, "ms": float,
                                      "notes": dict[str, Any]})


@dataclass
class StageTrace:
    stage: str  # the display name ("candidates (hybrid SQL)")
    kind: type | None = None  # the stage's class
    n_in: int | None = None
    n_out: int | None = None
    ms: float = 0.0
    notes: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> TraceEntry:
        return {"stage": self.stage, "in": self.n_in, "out": self.n_out, "ms": self.ms, "notes": self.notes}


@dataclass
class Trace:
    stages: list[StageTrace] = field(default_factory=list)

    @contextmanager
    def stage(self, name: str, kind: type | None = None, n_in: int | None = None) -> Iterator[StageTrace]:
        rec = StageTrace(name, kind, n_in)
        t = time.perf_counter()
        try:
            yield rec
        finally:
            rec.ms = round((time.perf_counter() - t) * 1000, 2)
            self.stages.append(rec)

    def of(self, kind: type) -> StageTrace | None:
        """The last entry of a stage type."""
        return next((s for s in reversed(self.stages) if s.kind is kind), None)

    def timings(self) -> dict[str, float]:
        return {s.stage: s.ms for s in self.stages}

    def to_list(self) -> list[TraceEntry]:
        return [s.to_json() for s in self.stages]
