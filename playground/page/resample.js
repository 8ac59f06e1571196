// Pillow's resampling (libImaging/Resample.c), as capsnet/data/preprocess.py `ink_to_mnist` calls
// it through Image.resize, so that the page makes a drawing 28x28 by MNIST's recipe as the library
// does: the box and bilinear filters, on float ("F") pictures and on 8-bit ("L") ones.

const PRECISION_BITS = 22; // Resample.c: an 8-bit picture's weights are fixed point with this many bits

// The filters with their supports.
export const FILTERS = {
  box: { support: 0.5, weight: (x) => (x > -0.5 && x <= 0.5 ? 1 : 0) },
  bilinear: { support: 1, weight: (x) => (Math.abs(x) < 1 ? 1 - Math.abs(x) : 0) },
};

// precompute_coeffs: for each output pixel, its first input pixel and the weights of the inputs.
export function coefficients(inputs, outputs, { support, weight }) {
  const scale = inputs / outputs;
  const filterScale = Math.max(scale, 1);
  const reach = support * filterScale;
  return Array.from({ length: outputs }, (_, out) => {
    const centre = (out + 0.5) * scale;
    const first = Math.max(Math.trunc(centre - reach + 0.5), 0);
    const count = Math.min(Math.trunc(centre + reach + 0.5), inputs) - first;
    const inverse = 1 / filterScale; // Pillow multiplies by the inverse: dividing differs in the last bit
    const weights = Array.from({ length: count }, (_, k) => weight((k + first - centre + 0.5) * inverse));
    const total = weights.reduce((sum, w) => sum + w, 0);
    return { first, weights: weights.map((w) => (total !== 0 ? w / total : w)) };
  });
}

// One pass along rows (`across`) or columns: each output pixel the sum of its inputs times their
// weights, from `start`, then `stored` (kept as it is for "F" pictures, rounded to 8 bits for "L").
function resampled(pixels, width, height, taps, across, start, stored, out) {
  const outWidth = across ? taps.length : width;
  const outHeight = across ? height : taps.length;
  for (let y = 0; y < outHeight; y++) {
    for (let x = 0; x < outWidth; x++) {
      const { first, weights } = taps[across ? x : y];
      let sum = start;
      for (let k = 0; k < weights.length; k++) {
        sum += weights[k] * (across ? pixels[y * width + first + k] : pixels[(first + k) * width + x]);
      }
      out[y * outWidth + x] = stored(sum);
    }
  }
  return out;
}

// Image.resize of a square float picture [side * side]: rows first, then columns, each sum in
// float64 stored in float32. Float32Array [outSide * outSide].
export function resizeFloat(pixels, side, outSide, filter) {
  const taps = coefficients(side, outSide, filter);
  const keep = (sum) => sum;
  const across = resampled(pixels, side, side, taps, true, 0, keep, new Float32Array(side * outSide));
  return resampled(across, outSide, side, taps, false, 0, keep, new Float32Array(outSide * outSide));
}

// Image.resize(BILINEAR) enlarging a square 8-bit picture [side * side]: weights in fixed point,
// the sums rounded and clipped to 0..255 after each pass. Uint8Array [outSide * outSide].
export function enlargeBytes(pixels, side, outSide) {
  const scale = 2 ** PRECISION_BITS;
  const taps = coefficients(side, outSide, FILTERS.bilinear).map(({ first, weights }) => ({
    first,
    weights: weights.map((w) => Math.trunc(w < 0 ? -0.5 + w * scale : 0.5 + w * scale)),
  }));
  const clip = (sum) => {
    if (sum >= scale * 256) return 255;
    return sum <= 0 ? 0 : Math.floor(sum / scale);
  };
  const across = resampled(pixels, side, side, taps, true, scale / 2, clip, new Uint8Array(side * outSide));
  return resampled(across, outSide, side, taps, false, scale / 2, clip, new Uint8Array(outSide * outSide));
}
