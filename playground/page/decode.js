// Ports capsnet/model.py `CapsNet.decode`: the decoder's picture of one digit capsule, the other
// capsules masked to zero, from the file capsnet/decoder_file.py `decoder_file` writes.
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

// y = W x + b, then ReLU, or the sigmoid for the last layer (PyTorch's Linear: W is [outputs, inputs])
function linear({ weight, bias, inputs, outputs }, x, last) {
  const y = new Float64Array(outputs);
  for (let o = 0; o < outputs; o++) {
    let sum = bias[o];
    for (let i = 0, row = o * inputs; i < inputs; i++) sum += weight[row + i] * x[i];
    y[o] = last ? 1 / (1 + Math.exp(-sum)) : Math.max(sum, 0);
  }
  return y;
}

// The picture of capsule `digit` of `capsules` (v, [num_classes * digit_capsule_dim]) moved by
// `offsets` (one number a dimension, or null): Float32Array [image_size²] of ink in [0, 1].
export function decode({ config, layers }, capsules, digit, offsets) {
  const dimensions = config.digit_capsule_dim;
  let x = new Float64Array(config.num_classes * dimensions);
  for (let d = 0; d < dimensions; d++) {
    x[digit * dimensions + d] = capsules[digit * dimensions + d] + (offsets ? offsets[d] : 0);
  }
  layers.forEach((layer, k) => {
    x = linear(layer, x, k === layers.length - 1);
  });
  return Float32Array.from(x);
}
