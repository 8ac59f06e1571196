// Ports playground/two_digits_views.py `tinted` and `figure5`: inks in [0, 1] as one RGB picture,
// each ink in its colour, computed in float32 as numpy computes them. The Two-digits panel's
// pictures (two_digits_view.js).

import { roundHalfEven } from "./round_half_even.js";

const INPUT_SHADE = Math.fround(0.3); // Figure 5: the input in light grey under the redrawn digits (two_digits_views.INPUT_SHADE)

// "#rrggbb" as [r, g, b], 0..255.
const rgbOf = (colour) => [1, 3, 5].map((i) => Number.parseInt(colour.slice(i, i + 2), 16));

// Uint8ClampedArray [3 * pixels]: each of `inks` (K arrays of `pixels` values) in its colour of
// `colours` (K "#rrggbb") on white paper, or on `under` (RGB, 3 a pixel), the stronger ink on top
// where they meet (the first of the strongest where they are equal).
export function tinted(inks, colours, under = null) {
  const rgb = colours.map(rgbOf);
  const pixels = inks[0].length;
  const picture = new Uint8ClampedArray(3 * pixels);
  for (let k = 0; k < pixels; k++) {
    let [strongest, alpha] = [0, -1];
    inks.forEach((ink, i) => {
      const a = Math.fround(Math.min(Math.max(ink[k], 0), 1));
      if (a > alpha) [strongest, alpha] = [i, a];
    });
    const left = Math.fround(1 - alpha);
    for (let c = 0; c < 3; c++) {
      const paper = under === null ? 255 : under[3 * k + c];
      picture[3 * k + c] = roundHalfEven(
        Math.fround(Math.fround(paper * left) + Math.fround(rgb[strongest][c] * alpha)),
      );
    }
  }
  return picture;
}

// Uint8ClampedArray [3 * pixels]: the paper's Figure 5, the input `image` in light grey and the
// `redrawn` digits (1 or 2 inks) over it, each in its colour of `colours`.
export function figure5(image, redrawn, colours) {
  const grey = tinted([Float32Array.from(image, (ink) => ink * INPUT_SHADE)], ["#000000"]);
  return tinted(redrawn, colours, grey);
}
