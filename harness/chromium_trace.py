"""Chromium's performance trace of a page, read: the categories to record (TRACE_CATEGORIES, for
Playwright's `browser.start_tracing`); the longest task of the page's main thread between two
marks the page made with console.timeStamp (`longest_task`), how long the page could not answer a
hand meanwhile; and how busy each thread was between two marks, the main thread's time by what it
did (`thread_time`). Read by bench/round_trip.py and bench/drag_threads.py.
"""

import json
from collections import Counter, defaultdict

TRACE_CATEGORIES = ["devtools.timeline", "toplevel"]  # the marks (TimeStamp) and the tasks (RunTask)
TASK = "ThreadControllerImpl::RunTask"  # a task on any of Chromium's threads, the outermost event
WRAPPERS = {TASK, "RunTask"}  # what wraps a task's own work (RunTask inside the task, on some threads)


def longest_task(trace: bytes, since: str, until: str) -> float | None:
    """The longest task (ms) of the page's main thread in a Chromium trace between its
    console.timeStamp marks ``since`` and ``until``; None without them."""
    events = json.loads(trace)["traceEvents"]
    main = {
        (e["pid"], e["tid"]) for e in events if e["name"] == "thread_name" and e["args"]["name"] == "CrRendererMain"
    }
    on_main = [e for e in events if (e["pid"], e["tid"]) in main]
    marks = {e["args"]["data"]["message"]: e["ts"] for e in on_main if e["name"] == "TimeStamp"}  # µs
    if since not in marks or until not in marks:
        return None
    tasks = [
        e["dur"] / 1000
        for e in on_main
        if e["name"] == "ThreadControllerImpl::RunTask"
        and "dur" in e  # a task the trace saw end
        and e["ts"] <= marks[until]
        and e["ts"] + e["dur"] >= marks[since]
    ]
    return max(tasks, default=0.0)


def thread_time(trace: bytes, since: str, until: str) -> tuple[dict[str, float], dict[str, float]]:
    """Between the page's console.timeStamp marks ``since`` and ``until`` of a Chromium trace, the
    ms each thread spent in tasks, by thread name (threads of one name numbered: "DedicatedWorker
    thread 2"), and the main thread's task time by the outermost event inside each task
    ("HandlePostMessage", "EventDispatch", "Paint", ...; "other" where no event says). Each event is
    clipped to the window.

    Raises:
        ValueError: either mark is not in the trace.
    """
    events = json.loads(trace)["traceEvents"]
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["name"] == "thread_name"}
    marks = {e["args"]["data"]["message"]: e["ts"] for e in events if e["name"] == "TimeStamp"}  # µs
    if missing := [mark for mark in (since, until) if mark not in marks]:
        raise ValueError(f"the trace has no console.timeStamp mark {missing[0]!r}")
    low, high = marks[since], marks[until]

    def clipped(event) -> float:  # ms of the event inside the window
        return max(0.0, min(event["ts"] + event["dur"], high) - max(event["ts"], low)) / 1000

    complete = sorted((e for e in events if e.get("ph") == "X" and "dur" in e), key=lambda e: (e["ts"], -e["dur"]))
    labels = {}
    for thread, name in names.items():
        same = sorted(t for t in names if names[t] == name)
        labels[thread] = name + (f" {same.index(thread) + 1}" if len(same) > 1 else "")
    by_thread = defaultdict(float)
    for e in complete:
        if e["name"] == TASK and (thread := (e["pid"], e["tid"])) in labels:
            by_thread[labels[thread]] += clipped(e)
    main = {t for t, name in names.items() if name == "CrRendererMain"}
    doing, open_ends = Counter(), []  # the main thread's events still open: [(end, name)]
    for e in (e for e in complete if (e["pid"], e["tid"]) in main):
        open_ends = [(end, name) for end, name in open_ends if end > e["ts"]]
        if e["name"] == TASK:
            doing["other"] += clipped(e)
        elif e["name"] not in WRAPPERS and open_ends and all(name in WRAPPERS for _, name in open_ends):
            doing[e["name"]] += clipped(e)  # the outermost event of its task
            doing["other"] -= clipped(e)
        open_ends.append((e["ts"] + e["dur"], e["name"]))
    return dict(by_thread), dict(doing)
