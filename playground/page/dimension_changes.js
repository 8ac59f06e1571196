// The picture beside each dimension's slider, before its colours: the ink the dimension of a capsule
// adds and takes away between the ends of its slider's range, with the page's decoder (the
// server's answer to the same question: playground/answers.py `changes`).

// Float32Array [image_size²] for each dimension of capsule `digit` of `capsules`: its picture with
// the dimension at +limit minus its picture at -limit, the other dimensions at zero (`limits`: one
// number a dimension). Two decoder runs a dimension, as one batch of `decodeAll(capsules, digit,
// offsetSets)` (network_worker.js); for the dimensions `from` up to `to` only, where given.
export async function dimensionChanges(decodeAll, capsules, digit, limits, from = 0, to = limits.length) {
  const dimensions = limits.slice(from, to).map((_, k) => from + k);
  const ends = dimensions.flatMap((d) =>
    [-limits[d], limits[d]].map((offset) => limits.map((_, other) => (other === d ? offset : 0))),
  );
  const pictures = await decodeAll(capsules, digit, ends);
  return dimensions.map((_, k) => pictures[2 * k + 1].map((ink, pixel) => ink - pictures[2 * k][pixel]));
}
