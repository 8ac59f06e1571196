"""The playground's page beside app.py: its sections, what they draw and how it is served.

The sections, top to bottom, each laying itself out and wiring its own events:

    reading       draw a digit: the pad, the reading panel, Decode as; /predict and /perturb
    photo         a photo of a digit on paper, made 28x28 and laid on the pad
    dimensions_section
                  the 16 dimensions: sliders named and ordered as measured, each with a picture of
                  where it changes the digit; the paper's Figure 4
    routing_section
                  where the winner's votes come from, the lengths at every iteration
    turn_it       your digit turned, scaled, sheared, stretched and moved; the CapsNet against a CNN
    two_digits    one digit drawn over another with two pens, each redrawn from its own capsule;
                  /predict_pair. Its own modules are named after it: two_digits_reading (both
                  pairs networks on a drawing of one digit or two: the digits each counts and
                  reads, each redrawn from its own capsule), two_digits_views (below),
                  two_digits_text (what it says above its pad), two_digits_pad (its pad's pens and
                  examples), and page/two_digits_*.js

What they stand on:

    networks      every network the page reads with, and what was measured about them, loaded once
    page_graphs   the graphs the page reads of each network, by their names in a model repo's onnx/
    publish       `python -m playground.publish`: the networks as Hub model repos, then the Space
    drawing_pad, dimension_sliders, transform_sliders
                  the page's own components, each one gr.HTML (.py, .css, and a module in page/)
    answers       the server's answers to the page's questions where it cannot compute them
                  (POST /ask/KIND): the kinds of the page's network worker, as JSON
    page_network, onnxruntime-web/
                  what the page's networks load: the graphs (the decoder's among them), each
                  served under its hash, and ONNX Runtime Web, pinned
    page_modules, page/
                  the page's JavaScript, ES modules served under the folder's hash: the pen and
                  the panels on the page's thread, each drawn by its one renderer
                  (page/reading_view.js, routing_view.js, turn_view.js, ...); the seam that
                  decides who computes (page/page_networks.js: the networks in workers, else the
                  server's answers); the drawing made 28x28 (page/inks.js, ink_to_mnist.js), a
                  module a step, named after what it does
    turn_views, two_digits_views
                  what the server draws of those sections: MNIST's turned curve, the examples'
                  and /predict_pair's tinted pictures
    views         ink as inline pictures, and ink and numbers as the page takes them in answers
    dimension_changes
                  the picture beside each dimension slider: where it changes the digit
    zero_gpu      on ZeroGPU hardware, the API's readings in ZeroGPU calls (`spaces.GPU`); elsewhere nothing
    serving       process settings, the request-size cap, the network's slots (how many read at once), what an error
                  answer says, workarounds for the pinned Gradio
    compressed_assets
                  Gradio's own files gzipped once and kept, for a browser that takes gzip
    playground.css  the page's own styles

What the page shows, how it talks to the server and why: docs/playground.md.
"""
