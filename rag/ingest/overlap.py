"""The embedding stage of ingestion, on its own thread, so that pages render on one core while the other embeds.

onnxruntime and torch release the GIL while they compute, and so does the tokenizer: the reading thread
(pymupdf, figure crops, OCR) and this one run at once. The chunk texts, known once the text of every page is read,
are handed over as one list; figure texts follow page by page through a bounded queue, so that rendering never runs
more than `max_pending` batches ahead of the model and memory stays bounded. Vectors come back in the order the
texts went in. Progress is read by the caller on its own thread (Streamlit's widgets live there).
"""

from __future__ import annotations

import queue
import threading
from typing import Callable

import numpy as np

_END = object()


class EmbedStage:
    def __init__(self, embedder, first: list[str], batch: int = 64, max_pending: int = 4):
        self.embedder, self.batch = embedder, batch
        self.done, self.total = 0, len(first)
        self._first = first
        self._queue: queue.Queue = queue.Queue(maxsize=max_pending)
        self._parts: list[np.ndarray] = []
        self._error: BaseException | None = None
        self._stop = threading.Event()
        self._reading = threading.Event()  # set while the caller still renders pages: leave it a core
        self._reading.set()
        self._thread = threading.Thread(target=self._run, name="embed", daemon=True)
        self._thread.start()

    def _encode(self, texts: list[str]) -> None:
        for i in range(0, len(texts), self.batch):
            if self._stop.is_set():
                return
            batch = texts[i:i + self.batch]
            if self._reading.is_set():
                self._parts.append(self.embedder.encode(batch, spare_core=True))
            else:
                self._parts.append(self.embedder.encode(batch))
            self.done += len(batch)

    def _run(self) -> None:
        try:
            self._encode(self._first)
            while not self._stop.is_set():
                item = self._queue.get()
                if item is _END:
                    return
                self._encode(item)
        except BaseException as exc:  # handed to the caller's thread, which raises it
            self._error = exc

    def put(self, texts: list[str]) -> None:
        """More texts, embedded after those before them; blocks while `max_pending` batches wait."""
        if not texts:
            return
        self.total += len(texts)
        self._put(texts)

    def _put(self, item) -> None:
        while True:
            self._raise()
            if not self._thread.is_alive():
                return
            try:
                self._queue.put(item, timeout=0.2)
                return
            except queue.Full:
                continue

    def _raise(self) -> None:
        if self._error is not None:
            raise self._error

    def finish(self, tick: Callable[[int, int], None] | None = None) -> np.ndarray:
        """All vectors, in order; `tick(done, total)` is called on this thread while the model works."""
        self._reading.clear()  # pages are rendered: the model may take every core
        self._put(_END)
        while self._thread.is_alive():
            self._thread.join(0.25)
            if tick:
                tick(self.done, self.total)
        self._raise()
        return np.vstack(self._parts) if self._parts else self.embedder.encode([])

    def cancel(self) -> None:
        """Stop after the batch in hand (reading failed or ran out of time); nothing is returned."""
        self._stop.set()
        try:
            self._queue.put_nowait(_END)
        except queue.Full:
            pass
