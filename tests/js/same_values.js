// Assertions on arrays of numbers that say where they differ: which value first, and how many.

import assert from "node:assert/strict";

// The indices at which `actual` and `expected` differ (by more than `tolerance`, where it is not 0).
function differences(actual, expected, tolerance) {
  assert.equal(actual.length, expected.length, "lengths differ");
  const found = [];
  for (let k = 0; k < expected.length; k++) {
    const same = tolerance === 0 ? Object.is(actual[k], expected[k]) : Math.abs(actual[k] - expected[k]) <= tolerance;
    if (!same) found.push(k);
  }
  return found;
}

// `actual` holds `expected`'s values within `tolerance` (0: exactly, the sign of zero too, NaN as NaN); `what`
// names them in the message.
export function assertSameValues(actual, expected, what, tolerance = 0) {
  const found = differences(actual, expected, tolerance);
  const [k] = found;
  assert.ok(
    found.length === 0,
    `${what}: ${found.length} of ${expected.length} values differ${tolerance ? ` by more than ${tolerance}` : ""}, ` +
      `the first at ${k}: ${actual[k]}, not ${expected[k]}`,
  );
}
