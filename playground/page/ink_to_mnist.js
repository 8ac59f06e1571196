// Ports capsnet/data/preprocess.py `ink_to_mnist`: a digit's ink made into the network's 28x28
// input, the ink scaled to its strongest, cut to where it is strong, fitted into BOX x BOX keeping
// its aspect ratio, its centre of mass put on (CENTRE, CENTRE) by whole pixels; and
// `overlaid_inks_to_mnist`, several inks drawn over each other made so together (the two-pen pad's).
// `facts` are Python's numbers (playground/reading.py `PREPROCESSING`).

import { FILTERS, resizeFloat } from "./resample.js";
import { roundHalfEven } from "./round_half_even.js";

const f32 = Math.fround;

// numpy's sum of float32 `values` (an array), in float32 and in its order (pairwise_sum in
// numpy/_core/src/umath/loops_utils.h.src): where a digit's centre of mass lies on a half pixel,
// the last bit decides which way it rounds.
function float32Sum(values) {
  const n = values.length;
  if (n < 8) return values.reduce((sum, v) => f32(sum + v), -0);
  if (n <= 128) {
    const partial = values.slice(0, 8);
    let i = 8;
    for (; i < n - (n % 8); i += 8) for (let j = 0; j < 8; j++) partial[j] = f32(partial[j] + values[i + j]);
    const [a, b, c, d, e, g, h, k] = partial;
    let sum = f32(f32(f32(a + b) + f32(c + d)) + f32(f32(e + g) + f32(h + k)));
    for (; i < n; i++) sum = f32(sum + values[i]);
    return sum;
  }
  let half = Math.floor(n / 2);
  half -= half % 8;
  return f32(float32Sum(values.slice(0, half)) + float32Sum(values.slice(half)));
}

// The smallest box holding every pixel of `values` (a square picture [side * side]) that `isInk`
// takes, as numpy's flatnonzero of its rows and columns finds it: {top, left, height, width}.
function inkBox(values, side, isInk) {
  let [top, bottom, left, right] = [side, -1, side, -1];
  for (let row = 0; row < side; row++) {
    for (let column = 0; column < side; column++) {
      if (!isInk(values[row * side + column])) continue;
      top = Math.min(top, row);
      bottom = Math.max(bottom, row);
      left = Math.min(left, column);
      right = Math.max(right, column);
    }
  }
  return { top, left, height: bottom - top + 1, width: right - left + 1 };
}

// The faintest strongest ink read, as numpy compares float32 ink with min_contrast: in float32.
const faintest = ({ min_contrast }) => Math.fround(min_contrast);

// The largest of `values`, -Infinity for none.
function largest(values) {
  let found = Number.NEGATIVE_INFINITY;
  for (let k = 0; k < values.length; k++) found = Math.max(found, values[k]);
  return found;
}

// crop_to_ink and _mnist_fields of layers of a square picture [side * side] each, scaled so that the
// first's strongest ink is 1: cut to where the first is strong, fitted into BOX x BOX keeping their
// aspect ratio, placed in the field by the first's centre of mass, every layer as the first.
// Float32Array [field * field] a layer.
function mnistFields(layers, side, { field, box, centre, ink_threshold }) {
  const inkThreshold = Math.fround(ink_threshold); // as numpy compares float32 ink with it
  const { top, left, height, width } = inkBox(layers[0], side, (v) => v >= inkThreshold); // crop_to_ink
  const square = Math.max(height, width);
  const down = Math.floor((square - height) / 2);
  const across = Math.floor((square - width) / 2);
  const boxed = layers.map((scaled) => {
    const inSquare = new Float32Array(square * square);
    for (let row = 0; row < height; row++) {
      for (let column = 0; column < width; column++) {
        inSquare[(down + row) * square + across + column] = scaled[(top + row) * side + left + column];
      }
    }
    return resizeFloat(inSquare, square, box, square >= box ? FILTERS.box : FILTERS.bilinear);
  });
  const boxStrongest = largest(boxed[0]);
  const fitted = boxed.map((each) => each.map((v) => Math.min(Math.max(v / boxStrongest, 0), 1)));
  const first = fitted[0];
  const { top: firstRow, left: firstColumn, height: rows, width: columns } = inkBox(first, box, (v) => v !== 0);
  // The centre of mass as preprocess.py computes it: the mass summed over the crop in float32, each
  // row's ink summed in float32 and each column's row by row, their moments in float64.
  const crop = Array.from({ length: rows }, (_, row) =>
    Array.from({ length: columns }, (_, column) => first[(firstRow + row) * box + firstColumn + column]),
  );
  const mass = float32Sum(crop.flat());
  let rowMoment = 0;
  crop.forEach((values, row) => {
    rowMoment += float32Sum(values) * row;
  });
  let columnMoment = 0;
  for (let column = 0; column < columns; column++) {
    columnMoment += crop.reduce((sum, values) => f32(sum + values[column]), 0) * column;
  }
  const clamp = (x, high) => Math.min(Math.max(x, 0), high);
  const fieldTop = clamp(roundHalfEven(centre - rowMoment / mass), field - rows);
  const fieldLeft = clamp(roundHalfEven(centre - columnMoment / mass), field - columns);
  return fitted.map((each) => {
    const result = new Float32Array(field * field);
    for (let row = 0; row < rows; row++) {
      for (let column = 0; column < columns; column++) {
        result[(fieldTop + row) * field + fieldLeft + column] = each[(firstRow + row) * box + firstColumn + column];
      }
    }
    return result;
  });
}

// The square picture [side * side] of ink, float, any scale: Float32Array [field * field] in
// [0, 1], or null where the strongest ink is below min_contrast.
export function inkToMnist(ink, side, facts) {
  const strongest = largest(ink);
  if (!(strongest >= faintest(facts))) return null;
  const scaled = new Float32Array(ink.length); // a loop: Float32Array.from(ink, f) took V8 6 ms here
  for (let k = 0; k < ink.length; k++) scaled[k] = Math.max(ink[k], 0) / strongest;
  return mnistFields([scaled], side, facts)[0];
}

// preprocess.py `overlaid_inks_to_mnist`: layers of ink of one square picture (each [side * side],
// any scale; two pens' digits, say) drawn over each other, their overlay (the stronger ink wins)
// made 28x28 as inkToMnist makes it and each layer moved and scaled the same way: [overlay, ...each
// layer's], Float32Array [field * field] each in [0, 1]; null where the overlay's strongest ink is
// below min_contrast.
export function overlaidInksToMnist(inks, side, facts) {
  const overlay = new Float32Array(side * side);
  overlay.fill(Number.NEGATIVE_INFINITY);
  for (const ink of inks) for (let k = 0; k < overlay.length; k++) overlay[k] = Math.max(overlay[k], ink[k]);
  const strongest = largest(overlay);
  if (!(strongest >= faintest(facts))) return null;
  const scaled = [overlay, ...inks].map((ink) => {
    const layer = new Float32Array(ink.length);
    for (let k = 0; k < ink.length; k++) layer[k] = Math.max(ink[k], 0) / strongest;
    return layer;
  });
  return mnistFields(scaled, side, facts);
}
