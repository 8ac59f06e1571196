"""Which of the server's network work runs in a ZeroGPU call on a Space with ZeroGPU hardware: the
API's readings (/predict, /perturb, /predict_pair), none of the page's events.

A ZeroGPU call (`spaces.GPU`) asks the Hub's scheduler for a GPU (a round trip, and a wait in its
queue where the GPUs are busy), runs the function in a process forked for it, and charges the
caller's daily quota with the duration asked for. A reading of one 28x28 digit takes milliseconds
on one CPU core, so no event of the page gains from a GPU: the pen's readings while a stroke is
drawn (one every 100 ms), the first tap's reading, Figure 4 and the routing view within the second
after it, the sliders, Turn it and Two digits stay on the CPU, as on CPU Basic. An API call comes from a
program that waits for its answer through Gradio's queue: in a ZeroGPU call, each caller's readings
are queued and rationed by its own quota, out of the process that serves the visitors. The network
still reads on the CPU there: for one image the GPU would be no faster.

Elsewhere `spaces.GPU` gives the function back as it is (`spaces` is effect-free where
SPACES_ZERO_GPU is not set): nothing changes on CPU Basic or on a machine of one's own. The
`spaces` package reports a ZeroGPU Space's start only where some function is decorated as the app
is built. app.py imports `spaces` before gradio and torch, as its docs ask.
"""

from collections.abc import Callable

import spaces

API_CALL_SECONDS = 10  # the duration each API call asks for: the quota it is checked against


def api_call(function: Callable) -> Callable:
    """``function``, an endpoint of the API, run in a ZeroGPU call on ZeroGPU hardware."""
    return spaces.GPU(duration=API_CALL_SECONDS)(function)
