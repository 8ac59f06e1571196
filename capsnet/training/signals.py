"""SIGINT and SIGTERM while a run trains: recorded, so that the run stops where it can go on from."""

import signal
import threading


class Interrupted(Exception):
    """A signal (``signum``) stopped the run where it can go on from."""

    def __init__(self, signum: int, where: str):
        super().__init__(f"stopped by {signal.Signals(signum).name} {where}")
        self.signum = signum


class StopSignals:
    """SIGINT (Ctrl-C) and SIGTERM (torchrun, a scheduler) while a run trains and reads the test
    set (``with``): the first is recorded (``received``), and the run stops where it can go on
    from, after the step it is in, or before the next batch of the test set (until_signal); later
    ones change nothing. Python delivers signals to its main thread only: a run started from
    another thread keeps the handlers as they are."""

    def __init__(self):
        self.received: int | None = None
        self.previous = {}

    def __enter__(self) -> "StopSignals":
        if threading.current_thread() is threading.main_thread():
            self.previous = {signum: signal.signal(signum, self.record) for signum in (signal.SIGINT, signal.SIGTERM)}
        return self

    def __exit__(self, *exception) -> None:
        self.close()

    def record(self, signum: int, frame) -> None:
        if self.received is None:
            self.received = signum

    def close(self) -> None:
        """The signals' handlers back as they were."""
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)
        self.previous = {}


def until_signal(batches, signals: StopSignals):
    """``batches`` one by one, until a signal asks the run to stop.

    Raises:
        Interrupted: before the batch after the signal.
    """
    for batch in batches:
        if signals.received:
            raise Interrupted(signals.received, "before the test set was read")
        yield batch
