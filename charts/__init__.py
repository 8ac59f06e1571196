"""The docs' charts, each a command that draws a measurement already made into a PNG in assets/,
measuring nothing:

    robustness    the CapsNet against the CNN under affine change (docs/robustness.md), from
                  weights/robustness.json, whose sha256 the PNG records
    changed_ink   the pairs networks under changed ink (docs/pairs.md), from changed_ink.json
    pairs_learning_curve
                  the pairs networks' validation pairs against what they trained on, from the
                  runs' metrics.json (docs/pairs.md)
    canvas        what they share: the page's palette, Pillow's font, a titled canvas

The playground's screenshot is a benchmark's neighbour (bench/screenshot.py): it needs the served
page in a browser.
"""
