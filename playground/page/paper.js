// Ports playground/views.py `paper`: ink in [0, 1] (MNIST's polarity) as the grey levels of black
// ink on white paper, one level of 255 a step, computed in float32 as numpy computes it.

import { roundHalfEven } from "./round_half_even.js";

// Uint8ClampedArray of `ink`'s grey levels.
export function paper(ink) {
  return Uint8ClampedArray.from(
    ink,
    (value) => 255 - roundHalfEven(Math.fround(Math.fround(Math.min(Math.max(value, 0), 1)) * 255)),
  );
}
