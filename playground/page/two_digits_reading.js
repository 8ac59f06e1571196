// The reading of one drawing of the two-pen pad, as playground/two_digits_reading.py `PairReader`
// reads (and two_digits_pad.py `pens_of`): the pens' ink made 28x28 (`pairFields`, by
// `overlaid_inks_to_mnist`'s recipe; an example tapped and not drawn over as it is), which the
// server reads too where the page cannot (page_networks.js); and from the pairs networks' outputs
// the digits each network reads with its count rule (digit_count.js), the CapsNet's digits each
// redrawn from its own capsule (the paper's Figure 5) in the colour of the pen whose ink it covers.
//
// The networks are run by the caller: `run(graph, inputs)` is a promise of a graph's outputs, each
// input {data: Float32Array, dims}, each output its values; the graphs being the pairs CapsNet's
// "capsules" ({images: [1, 1, field, field]} -> {capsules: v [10 * 16], lengths: |v_j| [10]}),
// its "decoder" ({capsules: masked capsules [N, 160]} -> {pictures: ink [N * field²]}) and the
// pairs CNN's "sigmoids" ({images} -> {probabilities: [10]}). `facts` are
// Python's numbers (two_digits.py `TwoDigitsSection.page_settings`): the preprocessing's, classes,
// pen_colours, and each network's count rule, rule and cnn_rule ({second, second_ink}).

import { asCompared, counted, secondInk, topTwo } from "./digit_count.js";
import { overlaidInksToMnist } from "./ink_to_mnist.js";
import { penInks } from "./inks.js";

// An example's ink, one layer a pen (background_side² values 0..255 each, one after the other), as
// the networks' input [overlay, ...each pen's]: Float32Array [field²] each, or null for too little
// ink.
export function exampleFields(background, facts) {
  const layer = facts.background_side ** 2; // an example's ink is the networks' input as it is: 28x28
  const layers = facts.pen_colours.map((_, pen) =>
    Float32Array.from(background.slice(pen * layer, (pen + 1) * layer), (level) => level / 255),
  );
  const overlay = layers[0].map((_, k) => Math.max(...layers.map((ink) => ink[k])));
  return overlay.reduce((a, b) => Math.max(a, b)) < asCompared(facts.min_contrast) ? null : [overlay, ...layers];
}

// The networks' input of a drawing of the two-pen pad, {strokes: flat [x0, y0, x1, y1, ...] arrays
// in pad units, pens: each stroke's pen (a string of digits or numbers), background: an example's
// ink, a layer a pen, or null}: [the input, ...each pen's ink moved and scaled as the input],
// Float32Array [field²] each in [0, 1]; null for too little ink.
export function pairFields({ strokes, pens, background }, facts) {
  if (background && strokes.length === 0) return exampleFields(background, facts);
  const inks = penInks(strokes, pens, background, facts.pen_colours.length, facts);
  return overlaidInksToMnist(inks, facts.side, facts);
}

// two_digits.py `pens_of`: the pen of each redrawn digit ([field²] each), the assignment of the
// pens' `layers` that the redrawings cover more of: [0, 1] or [1, 0] for two, [0] or [1] for one.
export function pensOf(redrawn, layers) {
  const overlap = redrawn.map((r) => layers.map((ink) => ink.reduce((sum, v, k) => sum + r[k] * v, 0)));
  if (redrawn.length === 1) return [overlap[0][1] > overlap[0][0] ? 1 : 0];
  return overlap[0][0] + overlap[1][1] >= overlap[0][1] + overlap[1][0] ? [0, 1] : [1, 0];
}

// The decoder's pictures of each of `digits` redrawn from its own capsule of `capsules` (v [10 *
// 16]) alone, the others masked to zero (CapsNet.decode): Float32Array [field²] each, one run.
async function redrawnAlone(run, capsules, digits, { classes, field }) {
  const width = capsules.length;
  const dimensions = width / classes;
  const masked = new Float32Array(digits.length * width);
  digits.forEach((digit, k) => {
    masked.set(capsules.subarray(digit * dimensions, (digit + 1) * dimensions), k * width + digit * dimensions);
  });
  const { pictures } = await run("decoder", { capsules: { data: masked, dims: [digits.length, width] } });
  return digits.map((_, k) => pictures.slice(k * field ** 2, (k + 1) * field ** 2));
}

// A count rule as the panel's renderer takes it (two_digits_view.js): {second, secondInk}.
const ruleOf = ({ second, second_ink }) => ({ second, secondInk: second_ink });

// The reading of a drawing of the two-pen pad (`pairFields`'s drawing, and its `revision`), with
// the capsule *Decode as* chose (a digit, or null for the two read) redrawn where it is not one
// read: a promise of null for too little ink, or the numbers the panel draws (two_digits_view.js's
// shape, as two_digits_views.py `pair_numbers` gives the server's): {revision, read: the CapsNet's
// digits [1 or 2], the longer capsule first, second: its second-longest capsule, secondInk, rule,
// lengths [10], probabilities: the CNN's [10], cnnRead, cnnRule, image: the input, layers: each
// pen's ink [2], redrawn: each digit read redrawn [1 or 2], colours: each digit read's pen's,
// penColours, decoded and decodedRedrawn (null where not asked or read), capsules: v [10 * 16], for
// `decodedAs`}.
export async function pairReading({ strokes, pens, background, revision }, facts, run, decodeAs = null) {
  const fields = pairFields({ strokes, pens, background }, facts);
  if (fields === null) return null;
  const [image, ...layers] = fields;
  const images = { data: image, dims: [1, 1, facts.field, facts.field] };
  const { capsules, lengths } = await run("capsules", { images });
  const { probabilities } = await run("sigmoids", { images });
  const strongest = topTwo(lengths);
  const asked = decodeAs !== null && !strongest.includes(decodeAs) ? [decodeAs] : [];
  const pictures = await redrawnAlone(run, capsules, [...strongest, ...asked], facts);
  const ink = secondInk(image, pictures[0], pictures[1]);
  const count = counted(lengths, facts.rule, ink);
  const read = count.read.slice(0, count.two ? 2 : 1);
  const cnn = counted(probabilities, facts.cnn_rule);
  const redrawn = pictures.slice(0, read.length);
  const shown = decodeAs !== null && !read.includes(decodeAs);
  return {
    revision,
    read,
    second: strongest[1],
    secondInk: ink,
    rule: ruleOf(facts.rule),
    lengths: Array.from(lengths),
    probabilities: Array.from(probabilities),
    cnnRead: cnn.read.slice(0, cnn.two ? 2 : 1),
    cnnRule: ruleOf(facts.cnn_rule),
    image,
    layers,
    redrawn,
    colours: pensOf(redrawn, layers).map((pen) => facts.pen_colours[pen]),
    penColours: facts.pen_colours,
    decoded: shown ? decodeAs : null,
    decodedRedrawn: shown ? pictures[strongest.indexOf(decodeAs) === 1 ? 1 : 2] : null,
    capsules,
  };
}

// `pair` (pairReading's) with the capsule *Decode as* chose (`digit`, or null for the two read)
// redrawn where it is not one read, as pairReading would have it: a promise of a new pair.
export async function decodedAs(pair, digit, facts, run) {
  if (digit === null || pair.read.includes(digit)) return { ...pair, decoded: null, decodedRedrawn: null };
  const [picture] = await redrawnAlone(run, pair.capsules, [digit], facts);
  return { ...pair, decoded: digit, decodedRedrawn: picture };
}
