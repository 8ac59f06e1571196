"""Reading Chromium's trace (harness/chromium_trace.py) on a trace written here: threads named
as Chromium names them, tasks, what the main thread did inside them, and the page's marks."""

import json

import pytest

from harness.chromium_trace import TASK, longest_task, thread_time

MAIN, WORKER, OTHER_WORKER = (1, 10), (1, 11), (1, 12)


def named(thread, name):
    return {"name": "thread_name", "ph": "M", "pid": thread[0], "tid": thread[1], "args": {"name": name}}


def event(thread, name, start_ms, ms):
    return {"name": name, "ph": "X", "pid": thread[0], "tid": thread[1], "ts": start_ms * 1000, "dur": ms * 1000}


def mark(message, at_ms):
    return {
        "name": "TimeStamp",
        "ph": "I",
        "pid": 1,
        "tid": 10,
        "ts": at_ms * 1000,
        "args": {"data": {"message": message}},
    }


@pytest.fixture
def trace() -> bytes:
    return json.dumps(
        {
            "traceEvents": [
                named(MAIN, "CrRendererMain"),
                named(WORKER, "DedicatedWorker thread"),
                named(OTHER_WORKER, "DedicatedWorker thread"),
                mark("since", 100),
                mark("until", 200),
                event(MAIN, TASK, 90, 20),  # 10 ms of it inside the window
                event(MAIN, "RunTask", 90, 20),
                event(MAIN, "EventDispatch", 92, 12),  # 4 inside
                event(MAIN, "FunctionCall", 93, 10),  # inside the dispatch: not counted again
                event(MAIN, TASK, 150, 30),
                event(MAIN, "HandlePostMessage", 150, 25),
                event(MAIN, "UpdateLayoutTree", 160, 5),  # forced inside the message's handling
                event(WORKER, TASK, 120, 50),
                event(OTHER_WORKER, TASK, 190, 40),  # 10 inside
                event(OTHER_WORKER, TASK, 300, 40),  # after the window
            ]
        }
    ).encode()


def test_each_thread_s_task_time_inside_the_window(trace):
    threads, _ = thread_time(trace, "since", "until")
    assert threads == pytest.approx(
        {"CrRendererMain": 40.0, "DedicatedWorker thread 1": 50.0, "DedicatedWorker thread 2": 10.0}
    )


def test_the_main_thread_s_time_by_the_outermost_event_of_each_task(trace):
    _, doing = thread_time(trace, "since", "until")
    assert doing == pytest.approx({"EventDispatch": 4.0, "HandlePostMessage": 25.0, "other": 11.0})


def test_a_missing_mark_is_an_error_and_the_longest_task_is_read_between_marks(trace):
    with pytest.raises(ValueError, match="no console.timeStamp mark 'later'"):
        thread_time(trace, "since", "later")
    assert longest_task(trace, "since", "until") == 30.0
