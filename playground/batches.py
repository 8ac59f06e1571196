"""Readings asked for at the same moment, computed as one batch.

A batch costs less than its images one by one: its operations run once for all of them. With the
convolutions' weights packed once (capsnet/shipping/packed.py, as the app loads its networks), on the 2 cores
of an AMD EPYC family 26, one thread, the CapsNet reads one image in 4.1 ms and four in 13.8 ms
(3.4 an image); unpacked it took 9.4 and 16.9 ms
(`python -m bench.inference_latency --threads 1 --batches 1 2 4 8`). A crowd drawing on the
Two-digits pad asks for many readings at once; `Batched` lets them share that work, the way serving
frameworks batch requests dynamically, with no wait added: whoever asks while a batch is computed
waits for it to end, and the next batch is everyone who asked meanwhile. A reading asked alone is
computed at once, alone."""

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Generic, TypeVar

from playground import serving

# The most readings one batch computes. Gradio runs at most serving.MAX_THREADS events at once, so
# no more wait at a time.
LARGEST = serving.MAX_THREADS
Item = TypeVar("Item")
Result = TypeVar("Result")


class Batched(Generic[Item, Result]):
    """``compute`` (items -> their results, in order) called with one item a call, items asked for
    together computed together, at most ``largest`` at a time, each holding one network slot
    (`serving.network_slot`). The caller whose item waits computes the next batch itself: no thread
    of its own. An exception of ``compute`` is raised to every caller of that batch."""

    def __init__(self, compute: Callable[[Sequence[Item]], Sequence[Result]], largest: int = LARGEST):
        self.compute, self.largest = compute, largest
        self._waiting: list[tuple[Item, Future]] = []
        self._computing = False
        self._turn = threading.Condition()

    def __call__(self, item: Item) -> Result:
        future: Future = Future()
        with self._turn:
            self._waiting.append((item, future))
        while not future.done():
            with self._turn:
                while self._computing and not future.done():
                    self._turn.wait()
                if future.done():
                    break
                self._computing = True
                batch, self._waiting = self._waiting[: self.largest], self._waiting[self.largest :]
            try:
                with serving.network_slot():
                    results = list(self.compute([asked for asked, _ in batch]))
                if len(results) != len(batch):
                    raise ValueError(f"computed {len(results)} results for {len(batch)} items")
            except BaseException as error:  # every caller of the batch gets it
                for _, waiting in batch:
                    waiting.set_exception(error)
            else:
                for (_, waiting), result in zip(batch, results, strict=True):
                    waiting.set_result(result)
            finally:
                with self._turn:
                    self._computing = False
                    self._turn.notify_all()
        return future.result()
