"""What the tests and the benchmarks both stand on; it imports neither tests/ nor bench/.

    paths         where the repository and its shipped weights are
    app_server    `python app.py` served on a free loopback port (this checkout's, or another
                  revision's: `checkout`), and its /perturb called
    gradio_clients
                  gradio_client's Client of a served app, writing only under a folder it is given
    page_protocol how a client speaks to the served page, as the page itself does: its events, one
                  POST each; `Page`, what an app's page needs; `PageClient`, one session of it
    page_crowd, page_answer_checks
                  people at the page at once, as light HTTP clients, and the checks of each answer
    chromium_browser
                  Debian's Chromium, Playwright's launch of it, the screens a page is shown on
    chromium_trace
                  Chromium's performance trace of a page, read: its longest task, its threads' time
    delaying_proxy
                  a proxy on loopback that delays every byte by half a round trip each way
    pointer_moves a finger or the mouse on the page, at a screen's pace
    pad_drivers, slider_drivers
                  the page's pads and sliders used as a person does, the page timing each move
    page_pictures the page's pictures read back as arrays
    digit_strokes hand-drawn-like strokes of the ten digits
    photos        digits laid on paper and photographed as a phone would, by two generators made
                  differently: one to choose the preprocessing's settings on, one to report on
    screenshot    the picture of the playground in README.md, taken from the real page
    naive_capsnet a straightforward CapsNet, the reference the fast one is checked and timed against

What only the tests use is in tests/support/, their fixtures in tests/conftest.py.
"""
