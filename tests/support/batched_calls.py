"""Calls made at the same moment from threads of their own, and the batches a `Batched` computed
for them (playground/batches.py)."""

import threading
from collections.abc import Callable
from typing import TypeVar

from playground.batches import Batched

Result = TypeVar("Result")
WAIT = 10.0  # seconds a call may take before it counts as hung


def called_at_once(batched: Batched, call: Callable[[int], Result], count: int) -> tuple[list[Result], list[int]]:
    """call(0) .. call(count - 1), each from a thread of its own, all started together: their
    results in that order, and the size of each batch ``batched`` computed meanwhile."""
    sizes, compute = [], batched.compute
    batched.compute = lambda items: sizes.append(len(items)) or compute(items)
    results: list = [None] * count
    started = threading.Barrier(count)

    def make(index):
        started.wait()
        results[index] = call(index)

    threads = [threading.Thread(target=make, args=(index,)) for index in range(count)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(WAIT)
            assert not thread.is_alive(), "a call made at the same moment as others hung"
    finally:
        batched.compute = compute
    return results, sizes
