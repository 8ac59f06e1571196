"""The fixtures of the panels' words (tests/js/fixtures.py writes them): the numbered texts of the
turn panel as the server writes them and as the page fills its templates (panel_fill.js), and
Turn it's sweep's words (sweep_fill.js)."""

import html

import numpy as np

from capsnet import CapsNet, CapsNetConfig
from playground import turn_views
from playground.turn_it import POSE_LIMIT, SWEEP_ANGLES


def text_of(panel: str, *openings: str) -> str:
    """The text the page reads (textContent) in ``panel`` after each of ``openings`` in turn, up
    to the next tag."""
    at = 0
    for opening in openings:
        at = panel.index(opening, at) + len(opening)
    return html.unescape(panel[at : panel.index("<", at)])


def turn_texts(rng: np.random.Generator, config: CapsNetConfig, lengths: np.ndarray, drawn: int) -> list[dict]:
    """The turn panel's numbered texts, as turn_views.turn_panel writes them for a turn whose
    lengths are ``lengths`` of a drawing read as ``drawn``, and as its template has them (every
    length and probability 1, every dimension moved by POSE_LIMIT, TurnItSection.panel_template),
    with the numbers turn_panel.js puts in."""
    dimensions = config.digit_capsule_dim
    names = [f"d{d + 1}" for d in range(dimensions)]  # TurnItSection.labels without measured names
    blank, ones = np.zeros((config.image_size, config.image_size)), np.ones(len(lengths))
    winner = int(np.argmax(lengths))
    full = turn_views.Turned(blank, ones, 0, blank, np.full(dimensions, POSE_LIMIT), ones, 0)
    template = turn_views.turn_panel(full, 0 if winner == drawn else 1, 1.0, names, POSE_LIMIT, 0)
    probabilities = rng.dirichlet(np.ones(len(lengths))).astype(np.float32)
    moved = rng.normal(0, 0.1, dimensions).astype(np.float32)
    drawn_length = float(rng.uniform(0.5, 1))
    turned = turn_views.Turned(blank, lengths, winner, blank, moved, probabilities, int(np.argmax(probabilities)))
    panel = turn_views.turn_panel(turned, drawn, drawn_length, names, POSE_LIMIT, 1)
    pose = [drawn, dimensions, POSE_LIMIT, float(np.linalg.norm(moved)), drawn_length, float(lengths[drawn])]
    texts = {
        "the redrawn capsule's caption": (('<figure class="redrawn"><figcaption>',), [winner]),
        "the CapsNet's verdict": (('class="verdict capsnet"', "<small>"), [float(lengths[winner])]),
        "the CNN's verdict": (('class="verdict cnn"', "<small>"), [float(probabilities[turned.cnn_winner])]),
        "the pose's caption": (('<figure class="pose"><figcaption>',), pose),
    }
    return [
        {"name": name, "template": text_of(template, *at), "values": values, "text": text_of(panel, *at)}
        for name, (at, values) in texts.items()
    ]


def panel_numbers(rng: np.random.Generator, network: CapsNet) -> dict:
    """The turn panel's numbered texts for random lengths (`turn_texts`, the turned drawing still
    read and not); numpy's argmax of lengths, ties among them."""
    config, classes = network.config, network.config.num_classes
    texts, maxima = [], []
    for _ in range(4):
        lengths = rng.uniform(0, 1, classes).astype(np.float32)
        texts += turn_texts(rng, config, lengths, int(np.argmax(lengths)))
        texts += turn_texts(rng, config, lengths, int(np.argmin(lengths)))
        maxima.append(lengths.tolist())
    maxima += [[0.25, 0.5, 0.5, 0.1], [0.0] * 10, [1.0, 0.0, 1.0]]
    argmax = [{"values": values, "argmax": int(np.argmax(values))} for values in maxima]
    return {"texts": texts, "argmax": argmax}


def sweep_words(rng: np.random.Generator) -> dict:
    """turn_views.degrees of every whole angle of a turn, and first_misreads and misread_text of
    readings over the sweep's angles and others: read as drawn throughout, misread unturned, only
    one way, at random."""
    angle_lists = [SWEEP_ANGLES.astype(float), np.array([-25.0, -15, -5, 5, 15]), np.array([3.0, 10, 20, 30])]
    sweeps = []
    for angles in angle_lists:
        middle = int(np.argmin(np.abs(angles)))
        for digit in (0, 7):
            patterns = [
                np.full(len(angles), digit),
                np.where(np.arange(len(angles)) == middle, 9 - digit, digit),
                np.where(np.arange(len(angles)) < middle, 1 + digit, digit),
                np.where(np.arange(len(angles)) > middle + 1, 2, digit),
                np.where(rng.random(len(angles)) < 0.3, rng.integers(0, 10, len(angles)), digit),
            ]
            for readings in patterns:
                sweep = turn_views.Sweep(
                    digit, angles, np.zeros(len(angles)), readings, np.zeros(len(angles)), readings
                )
                sweeps.append(
                    {
                        "angles": angles.tolist(),
                        "readings": readings.tolist(),
                        "digit": digit,
                        "unturned": middle,
                        "first_misreads": turn_views.first_misreads(angles, readings, digit),
                        "text": turn_views.misread_text(sweep, readings, turn_views.CAPSNET),
                    }
                )
    degrees = [{"angle": angle, "text": turn_views.degrees(angle)} for angle in np.arange(-180.0, 181).tolist()]
    return {"degrees": degrees, "sweeps": sweeps}
