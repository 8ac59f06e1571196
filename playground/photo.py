"""A photo of a digit on paper, put on the drawing pad: taken with a phone's camera, chosen or pasted
(Gradio's image input, its uploads capped as the API's: serving.MAX_UPLOAD_BYTES), made 28x28 by
the library's one image path (`capsnet.data.preprocess.sketch_to_mnist`, which tells the ink from
paper lit unevenly), and laid on the pad as its background, as a tapped example is: the page reads
it, the sections below follow, and the person may draw over it or clear it. Where the photo holds
no digit, or is not an image, a message says why and the pad keeps what is on it.
"""

import base64

import gradio as gr
import numpy as np

from capsnet.data.preprocess import SketchError, sketch_to_mnist
from playground import drawing_pad

LABEL = "Or a photo of a digit on paper"
NO_DIGIT = "No digit found in this photo: nothing on it stands out from the paper."


def photo_on_pad(image) -> dict:
    """The pad's value for a photo (a PIL image as Gradio opens the file): no strokes, the photo's
    28x28 ink as the background (drawing_pad's value, 255 = ink); gr.skip() with a message where it
    holds no digit or cannot be read, and with none where the photo was removed (None)."""
    if image is None:
        return gr.skip()
    try:
        digit = sketch_to_mnist(image)  # float32 [28, 28], ink = 1
    except (SketchError, OSError) as error:  # OSError: PIL cannot decode the file's pixels
        gr.Warning(f"Cannot read this photo: {error}")
        return gr.skip()
    if digit is None:
        gr.Warning(NO_DIGIT)
        return gr.skip()
    ink = np.rint(digit * 255).astype(np.uint8)
    return {**drawing_pad.EMPTY, "background": base64.b64encode(ink.tobytes()).decode()}


def layout(pad: drawing_pad.DrawingPad) -> gr.Image:
    """The photo's input, laid out where it is called (under the pad), a photo chosen put on ``pad``.
    Its event goes through Gradio's queue, unlike the pen's (serving.PAGE_EVENT): a phone's photo is
    megabytes to decode, and a message (gr.Warning) reaches the page only through the queue. The
    file is opened as Gradio's preprocessing does (EXIF turns applied)."""
    photo = gr.Image(
        type="pil",
        image_mode=None,  # the file's own mode: sketch_to_mnist converts each by what its pixels mean
        sources=["upload", "clipboard", "webcam"],  # on a phone, upload offers its camera
        label=LABEL,
        height=180,
        elem_id="photo",
    )
    photo.input(photo_on_pad, inputs=photo, outputs=pad, api_visibility="private", show_progress="minimal")
    return photo
