"""playground.batches: what is asked for together is computed together, each caller given its own
result, and nothing waits that is asked for alone; the digit pad's readings so batched."""

import threading
import time

import numpy as np
import pytest

from playground import reading
from playground.batches import Batched
from tests.support.batched_calls import WAIT, called_at_once


class Doubling:
    """Doubles each item, recording each batch; the first batch waits until ``release`` is set."""

    def __init__(self):
        self.batches: list[list[int]] = []
        self.computing, self.release = threading.Event(), threading.Event()

    def __call__(self, items):
        self.batches.append(list(items))
        self.computing.set()
        assert self.release.wait(WAIT)
        if -1 in items:
            raise ValueError("cannot double -1")
        return [2 * item for item in items]


def asked_together(batched: Batched, compute: Doubling, first: int, then: list[int]) -> dict[int, object]:
    """``first`` asked alone, then each of ``then`` from a thread of its own while its batch
    computes; once all wait, the computing goes on. Each item's result or exception."""
    answers: dict[int, object] = {}
    compute.computing.clear()
    compute.release.clear()

    def ask(item):
        try:
            answers[item] = batched(item)
        except ValueError as error:
            answers[item] = error

    threads = [threading.Thread(target=ask, args=(first,))]
    threads[0].start()
    assert compute.computing.wait(WAIT)
    for item in then:
        threads.append(threading.Thread(target=ask, args=(item,)))
        threads[-1].start()
    deadline = time.monotonic() + WAIT
    while len(batched._waiting) < len(then) and time.monotonic() < deadline:
        time.sleep(0.001)
    compute.release.set()
    for thread in threads:
        thread.join(WAIT)
        assert not thread.is_alive()
    return answers


def test_an_item_asked_alone_is_computed_at_once_alone():
    compute = Doubling()
    compute.release.set()
    batched = Batched(compute, largest=8)
    assert [batched(3), batched(4)] == [6, 8]
    assert compute.batches == [[3], [4]]


def test_items_asked_while_a_batch_computes_are_the_next_batch_each_given_its_own_result():
    compute = Doubling()
    batched = Batched(compute, largest=8)
    answers = asked_together(batched, compute, 1, [10, 20, 30, 40])
    assert answers == {1: 2, 10: 20, 20: 40, 30: 60, 40: 80}
    assert compute.batches[0] == [1] and sorted(compute.batches[1]) == [10, 20, 30, 40]


def test_a_batch_holds_at_most_largest_items():
    compute = Doubling()
    batched = Batched(compute, largest=3)
    answers = asked_together(batched, compute, 0, list(range(1, 8)))
    assert answers == {item: 2 * item for item in range(8)}
    assert [len(batch) for batch in compute.batches] == [1, 3, 3, 1]


def test_an_error_reaches_every_caller_of_its_batch_and_no_other():
    compute = Doubling()
    batched = Batched(compute, largest=8)
    answers = asked_together(batched, compute, -1, [5, 6])
    assert isinstance(answers[-1], ValueError) and (answers[5], answers[6]) == (10, 12)
    answers = asked_together(batched, compute, 7, [-1, 8])
    assert [sorted(batch) for batch in compute.batches[2:]] == [[7], [-1, 8]]
    assert answers[7] == 14 and all(isinstance(answers[item], ValueError) for item in (-1, 8))


def test_a_compute_that_loses_results_is_an_error_not_a_hang():
    batched = Batched(lambda items: items[:-1], largest=8)
    with pytest.raises(ValueError, match="0 results for 1 items"):
        batched(1)


def test_digits_read_at_the_same_moment_are_read_in_one_batch_each_as_alone(trained_model, mnist_test):
    images = [mnist_test.data[n].float().numpy() / 255 for n in range(8)]  # 7 2 1 0 4 1 4 9
    alone = [reading.read(trained_model, image) for image in images]
    together, sizes = called_at_once(
        reading.traced_together(trained_model), lambda k: reading.read(trained_model, images[k]), len(images)
    )
    assert max(sizes) > 1 and sum(sizes) == len(images)
    assert [each.winner for each in together] == [each.winner for each in alone] == [7, 2, 1, 0, 4, 1, 4, 9]
    for one, other in zip(alone, together, strict=True):
        np.testing.assert_allclose(other.trace.lengths, one.trace.lengths, atol=1e-5)
