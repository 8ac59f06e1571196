// A change of ink as the colours of the picture beside a dimension's slider, computed in float32.
// `palette` is playground/dimension_changes.py PALETTE: {unchanged, added, removed: [r, g, b],
// full_change}.

import { roundHalfEven } from "./round_half_even.js";

// Uint8ClampedArray [3 * difference.length], RGB for each change of ink in `difference`: unchanged
// at 0, towards added as ink is added and towards removed as it is taken away, in full from
// full_change on.
export function changeColours(difference, { unchanged, added, removed, full_change }) {
  const colours = new Uint8ClampedArray(3 * difference.length);
  difference.forEach((value, k) => {
    const change = Math.fround(value);
    const strength = Math.min(Math.fround(Math.abs(change) / full_change), 1);
    const end = change > 0 ? added : removed;
    for (let c = 0; c < 3; c++) {
      const towards = Math.fround(end[c] - unchanged[c]);
      colours[3 * k + c] = roundHalfEven(Math.fround(unchanged[c] + Math.fround(strength * towards)));
    }
  });
  return colours;
}
