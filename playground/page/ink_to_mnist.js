// Ports capsnet/data/preprocess.py `ink_to_mnist`: a digit's ink made into the network's 28x28
// input, the ink scaled to its strongest, cut to where it is strong, fitted into BOX x BOX keeping
// its aspect ratio, its centre of mass put on (CENTRE, CENTRE) by whole pixels.
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

// The square picture [side * side] of ink, float, any scale: Float32Array [field * field] in
// [0, 1], or null where the strongest ink is below min_contrast.
export function inkToMnist(ink, side, { field, box, centre, min_contrast, ink_threshold }) {
  // numpy compares the float32 ink with the thresholds in float32
  const minContrast = Math.fround(min_contrast);
  const inkThreshold = Math.fround(ink_threshold);
  let strongest = Number.NEGATIVE_INFINITY;
  for (let k = 0; k < ink.length; k++) strongest = Math.max(strongest, ink[k]);
  if (!(strongest >= minContrast)) return null;
  const scaled = new Float32Array(ink.length); // a loop: Float32Array.from(ink, f) took V8 6 ms here
  for (let k = 0; k < ink.length; k++) scaled[k] = Math.max(ink[k], 0) / strongest;
  const { top, left, height, width } = inkBox(scaled, side, (v) => v >= inkThreshold); // crop_to_ink
  const square = Math.max(height, width);
  const inSquare = new Float32Array(square * square);
  const down = Math.floor((square - height) / 2);
  const across = Math.floor((square - width) / 2);
  for (let row = 0; row < height; row++) {
    for (let column = 0; column < width; column++) {
      inSquare[(down + row) * square + across + column] = scaled[(top + row) * side + left + column];
    }
  }
  const boxed = resizeFloat(inSquare, square, box, square >= box ? FILTERS.box : FILTERS.bilinear);
  const boxStrongest = boxed.reduce((a, b) => Math.max(a, b), Number.NEGATIVE_INFINITY);
  const fitted = boxed.map((v) => Math.min(Math.max(v / boxStrongest, 0), 1));
  const { top: firstRow, left: firstColumn, height: rows, width: columns } = inkBox(fitted, box, (v) => v !== 0);
  // The centre of mass as preprocess.py computes it: the mass summed over the crop in float32, each
  // row's ink summed in float32 and each column's row by row, their moments in float64.
  const crop = Array.from({ length: rows }, (_, row) =>
    Array.from({ length: columns }, (_, column) => fitted[(firstRow + row) * box + firstColumn + column]),
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
  const result = new Float32Array(field * field);
  for (let row = 0; row < rows; row++) {
    for (let column = 0; column < columns; column++) {
      result[(fieldTop + row) * field + fieldLeft + column] = fitted[(firstRow + row) * box + firstColumn + column];
    }
  }
  return result;
}
