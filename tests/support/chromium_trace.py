"""Chromium's performance trace of a page, read: the categories to record (TRACE_CATEGORIES, for
Playwright's `browser.start_tracing`) and the longest task of the page's main thread between two
marks the page made with console.timeStamp (`longest_task`), how long the page could not answer a
hand meanwhile. Read by bench/round_trip.py.
"""

import json

TRACE_CATEGORIES = ["devtools.timeline", "toplevel"]  # the marks (TimeStamp) and the tasks (RunTask)


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
