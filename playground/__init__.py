"""The playground's page beside app.py: its sections, what they draw and how it is served.

The sections, top to bottom, each laying itself out and wiring its own events:

    reading       draw a digit: the pad, the reading panel, Decode as; /predict and /perturb
    dimensions    the 16 dimensions: sliders named and ordered as measured, the paper's Figure 4
    routing       where the winner's votes come from, the lengths at every iteration
    turn_it       your digit turned, scaled, sheared, stretched and moved; the CapsNet against a CNN
    two_digits    one digit drawn over another with two pens, each redrawn from its own capsule;
                  /predict_pair

What they stand on:

    networks      every network the page reads with, and what was measured about them, loaded once
    drawing_pad, dimension_sliders, transform_sliders
                  the page's own components, each one gr.HTML (.py, .js, .css): the value it sends
                  and the server's check of it
    page_decoder, decoder.js
                  the decoder in the page: the CapsNet's decoder file served under its hash, and
                  the reading panel's script that redraws the reconstruction with it, no request
    page_network, page_reader.js, turn_reader.js, panel_fill.js, onnxruntime-web/
                  the networks in the page: their graphs served under their hashes beside ONNX
                  Runtime Web, the reading panel's script that reads a drawing as it is drawn, the
                  turn panel's that turns it, and the one way both fill the server's panel layout
    views, turn_views, two_digit_views
                  what the sections show, drawn from plain arrays as one piece of HTML each
    serving       process settings, the request-size cap, turns at the network, what an error
                  answer says, workarounds for the pinned Gradio
    playground.css  the page's own styles

What the page shows, how it talks to the server and why: docs/playground.md.
"""
