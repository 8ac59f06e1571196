// Ports capsnet/model.py `CapsNet.decode`: the decoder's picture of one digit capsule, the other
// capsules masked to zero, from the file capsnet/shipping/decoder_file.py `decoder_file` writes.
//
// The file is safetensors: the three Linear layers in float16 ("0.weight", "0.bias", "2.weight",
// ...) and the network's config in the metadata.

// float16 bits -> the number they stand for, for every 16-bit pattern
const HALVES = Float32Array.from({ length: 65536 }, (_, bits) => {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
  if (exponent === 31) return fraction ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
});

// The decoder from the file's bytes (an ArrayBuffer): {config, layers: [{weight, bias, inputs,
// outputs}]}, each layer checked against the sizes the config gives: the ten masked capsules in,
// decoder_hidden between, image_size² pixels out.
export function parseDecoderFile(buffer) {
  const headerLength = Number(new DataView(buffer).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 8, headerLength)));
  const config = JSON.parse(header.__metadata__.config);
  const sizes = [config.num_classes * config.digit_capsule_dim, ...config.decoder_hidden, config.image_size ** 2];
  const tensor = (name, shape) => {
    const entry = header[name];
    if (entry?.dtype !== "F16" || JSON.stringify(entry.shape) !== JSON.stringify(shape)) {
      throw new Error(`${name} is not float16 of shape [${shape}]`);
    }
    const [begin, end] = entry.data_offsets;
    const halves = new Uint16Array(buffer.slice(8 + headerLength + begin, 8 + headerLength + end));
    return Float32Array.from(halves, (bits) => HALVES[bits]);
  };
  const places = Object.keys(header)
    .filter((name) => name.endsWith(".weight"))
    .map((name) => Number(name.split(".")[0]))
    .sort((a, b) => a - b);
  if (places.length !== sizes.length - 1) throw new Error(`${places.length} layers, not ${sizes.length - 1}`);
  const layers = places.map((place, k) => ({
    weight: tensor(`${place}.weight`, [sizes[k + 1], sizes[k]]),
    bias: tensor(`${place}.bias`, [sizes[k + 1]]),
    inputs: sizes[k],
    outputs: sizes[k + 1],
  }));
  return { config, layers };
}

// The inputs not zero in any of `xs` (after a ReLU most are zero), and each x's values there.
function nonZero(xs, inputs) {
  const used = Int32Array.from({ length: inputs }, (_, i) => i).filter((i) => xs.some((x) => x[i] !== 0));
  return [used, xs.map((x) => Float64Array.from(used, (i) => x[i]))];
}

// y = activation(W x + b) for four x at once, each weight read once for the four.
function fourAtOnce({ weight, bias, inputs, outputs }, xs, ys, activation) {
  const [used, [x0, x1, x2, x3]] = nonZero(xs, inputs);
  const [y0, y1, y2, y3] = ys;
  for (let o = 0; o < outputs; o++) {
    const row = o * inputs;
    let s0 = bias[o];
    let s1 = s0;
    let s2 = s0;
    let s3 = s0;
    for (let k = 0; k < used.length; k++) {
      const w = weight[row + used[k]];
      s0 += w * x0[k];
      s1 += w * x1[k];
      s2 += w * x2[k];
      s3 += w * x3[k];
    }
    y0[o] = activation(s0);
    y1[o] = activation(s1);
    y2[o] = activation(s2);
    y3[o] = activation(s3);
  }
}

// y = activation(W x + b) for one x.
function oneAtOnce({ weight, bias, inputs, outputs }, x, y, activation) {
  const [used, [values]] = nonZero([x], inputs);
  for (let o = 0; o < outputs; o++) {
    const row = o * inputs;
    let sum = bias[o];
    for (let k = 0; k < used.length; k++) sum += weight[row + used[k]] * values[k];
    y[o] = activation(sum);
  }
}

// y = W x + b for each x of `xs`, then ReLU, or the sigmoid for the last layer (PyTorch's Linear: W
// is [outputs, inputs]), four at a time while there are four, over only the inputs that are not
// zero: each sum adds the same products in the same order as over every input, since a zero input
// times a finite weight adds exactly nothing.
function linear(layer, xs, last) {
  const activation = last ? (sum) => 1 / (1 + Math.exp(-sum)) : (sum) => Math.max(sum, 0);
  const ys = xs.map(() => new Float64Array(layer.outputs));
  let b = 0;
  for (; b + 4 <= xs.length; b += 4) fourAtOnce(layer, xs.slice(b, b + 4), ys.slice(b, b + 4), activation);
  for (; b < xs.length; b++) oneAtOnce(layer, xs[b], ys[b], activation);
  return ys;
}

// The pictures of capsule `digit` of `capsules` (v, [num_classes * digit_capsule_dim]) moved by each
// of `offsetSets` (one number a dimension, or null: not moved): Float32Array [image_size²] each, of
// ink in [0, 1].
export function decodeAll({ config, layers }, capsules, digit, offsetSets) {
  const dimensions = config.digit_capsule_dim;
  let xs = offsetSets.map((offsets) => {
    const x = new Float64Array(config.num_classes * dimensions);
    for (let d = 0; d < dimensions; d++) {
      x[digit * dimensions + d] = capsules[digit * dimensions + d] + (offsets ? offsets[d] : 0);
    }
    return x;
  });
  layers.forEach((layer, k) => {
    xs = linear(layer, xs, k === layers.length - 1);
  });
  return xs.map((x) => Float32Array.from(x));
}

// The picture of capsule `digit` of `capsules` moved by `offsets` (decodeAll's, for one).
export const decode = (decoder, capsules, digit, offsets) => decodeAll(decoder, capsules, digit, [offsets])[0];
