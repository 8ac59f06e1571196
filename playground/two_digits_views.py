"""The Two-digits section's pictures drawn on the server: ink tinted in each pen's colour
(`tinted`), for the examples under the pad, and the paper's Figure 5 (`figure5`), for
/predict_pair. The page draws its panel's own (playground/page/two_digits_tinted.js).
"""

import numpy as np

PAPER_WHITE = np.array([255, 255, 255], dtype=np.float32)
INPUT_SHADE = 0.3  # Figure 5: the input in light grey under the two redrawn digits


def rgb(colour: str) -> np.ndarray:
    """ "#rrggbb" as float32 [3]."""
    return np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)], dtype=np.float32)


def tinted(inks: np.ndarray, colours: list[str], under: np.ndarray | None = None) -> np.ndarray:
    """uint8 [28, 28, 3]: each ink of ``inks`` [K, 28, 28] in its colour on white paper (or on
    ``under``, an RGB picture), the stronger ink on top where they meet; computed in float32."""
    paper = (
        PAPER_WHITE * np.ones(inks.shape[1:] + (3,), dtype=np.float32) if under is None else under.astype(np.float32)
    )
    inks = np.clip(np.asarray(inks, dtype=np.float32), 0, 1)
    strongest = inks.argmax(axis=0)  # [28, 28]
    alpha = np.take_along_axis(inks, strongest[None], axis=0)[0][..., None]  # [28, 28, 1]
    colour = np.stack([rgb(c) for c in colours])[strongest]  # [28, 28, 3]
    return np.rint(paper * (1 - alpha) + colour * alpha).astype(np.uint8)


def figure5(image: np.ndarray, redrawn: np.ndarray, colours: tuple[str, ...]) -> np.ndarray:
    """uint8 [28, 28, 3]: the input in light grey, the redrawn digits [k, 28, 28] over it in their colours."""
    grey = tinted(image[None] * INPUT_SHADE, ["#000000"])
    return tinted(redrawn, list(colours), under=grey)
