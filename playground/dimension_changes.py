"""Where each dimension changes the digit: the picture beside each slider (dimension_sliders.py).

A slider's picture is the decoder's picture of the decoded capsule with that dimension at the
right end of the slider's range, minus its picture at the left end, the other dimensions at zero:
dark blue where dragging right adds ink, pale yellow where it takes ink away, on a mid grey where
nothing changes. The two colours differ in lightness as well as hue (one darker than the grey,
one lighter), so the pictures read the same without colour vision.

The page makes the pictures (playground/page/dimension_changes.js, change_colours.js) from the
decoder's answers (page_networks.js: its worker's, or the server's); the colours are set here, for
the page (`PALETTE`) and the key above the sliders (dimension_sliders.py).
"""

UNCHANGED = (180, 180, 180)  # no change: a mid-light grey
ADDED = (8, 48, 107)  # ink added towards the right end: dark blue
REMOVED = (255, 237, 160)  # ink taken away: pale yellow, lighter than the grey
FULL_CHANGE = 0.5  # a pixel's ink changed by this much (of 1) or more: the full colour
# the same, for the page's change_colours.js
PALETTE = {"unchanged": UNCHANGED, "added": ADDED, "removed": REMOVED, "full_change": FULL_CHANGE}
