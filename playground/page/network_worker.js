// The page's networks in a module worker of their own, off the thread that takes the pen and
// paints the ink: ONNX Runtime Web runs the graphs (capsnet/shipping/onnx_file.py: the capsules,
// their routing, the decoder, the CNN, the turn; or the pairs networks'), and the drawing is made
// into the network's input here too. page_networks.js starts a few of these and talks to them in
// messages:
//
//   {id, kind, ...} -> {id, result} or {id, error: message}, the kinds being
//   copies   {copies} -> where the Hub has copies of the files the Space serves (downloaded.js)
//   load     {facts, runtime, graphs: {name: url or bytes}, unchanged} -> {loaded: [names]}
//   read     {drawing: {strokes, background}, routed} -> null for too little ink, or {image,
//            capsules, lengths, reconstructions: {winner, runnerUp}} (the capsules graph, the
//            decoder's graph; undefined until it is loaded), and where `routed`, routing: {lengths: |v_j| after each r [R][10],
//            agreements [R][10], winnerShares: after each r, each primary capsule's share of the
//            votes for that r's winner, Float32Array [R * 1152]} (the routing graph)
//   decode   {capsules, digit, offsets} -> the picture's ink (the decoder)
//   changes  {capsules, digit, limits} -> for each dimension, the ink it adds and takes away
//            between -limit and +limit: [Float32Array], 32 decoder runs (dimension_changes.js)
//   sweep    {capsules, digit, limits, steps} -> Figure 4: for each dimension, its picture at each of
//            `steps` offsets from -limit to +limit, the others at zero: Float32Array [16 * steps *
//            field²], dimension order (the decoder)
//   turn     {image, change, networks: ["capsules" and/or "probabilities"]} -> {turned, and for
//            "capsules": capsules, lengths, reconstruction; for "probabilities": probabilities}
//   pair     {drawing: {strokes, pens, background, revision}, decodeAs} -> a drawing of the two-pen
//            pad read by the pairs networks (graphs capsules, decoder and sigmoids): null for too
//            little ink, or the Two-digits panel's numbers (two_digits_reading.js `pairReading`)
//   pairDecoded {pair, digit} -> the pair with capsule `digit` redrawn as Decode as asks (`decodedAs`)
//
// Pictures are ink in [0, 1], Float32Array [field * field]; messages are answered in turn, but
// "changes" and "sweep" after every other message waiting.

import { dimensionChanges } from "./dimension_changes.js";
import { downloaded, hasCopy, useCopies } from "./downloaded.js";
import { inkToMnist } from "./ink_to_mnist.js";
import { inks } from "./inks.js";
import { decodedAs, pairReading } from "./two_digits_reading.js";

let ort = null; // ONNX Runtime Web's module, once imported
let facts = null; // Python's numbers (playground/reading.py PREPROCESSING, and the network's classes)
const sessions = {}; // ONNX Runtime's session of each graph loaded, by name

const argmax = (values) => values.indexOf(Math.max(...values));
const imageTensor = (image) => new ort.Tensor("float32", image, [1, 1, facts.field, facts.field]);

// The graph of bytes `source` (an ArrayBuffer), run once unseen where it
// reads an image: a session's first run prepares its kernels, so the first reading is as fast as
// the later ones. Its inputs: an image, and a change for the turn. The routing's votes and the
// decoder's capsules are a reading's: the reader's warm-up runs them first.
async function session(source) {
  const created = await ort.InferenceSession.create(new Uint8Array(source), { executionProviders: ["wasm"] });
  if (!created.inputNames.includes("images")) return created;
  const blank = imageTensor(new Float32Array(facts.field * facts.field));
  const inputs = created.inputNames.includes("change") ? { images: blank, change: unchanged } : { images: blank };
  await created.run(inputs);
  return created;
}
let unchanged = null; // the turn graph's change that leaves the digit as it is (from load)

async function load(message) {
  facts = message.facts;
  // Every graph not loaded yet fetched at once, ONNX Runtime's module meanwhile, then each made a
  // session in the order given: while one is made ready (the first also fetching and compiling
  // ONNX Runtime's WebAssembly), the next is still coming, where one after another each would
  // wait for the last.
  const coming = Object.entries(message.graphs)
    .filter(([name]) => !(name in sessions))
    .map(([name, source]) => [name, typeof source === "string" ? downloaded(source) : Promise.resolve(source)]);
  for (const [, bytes] of coming) bytes.catch(() => {}); // a failure is thrown where it is awaited
  if (ort === null) {
    ort = await import(`${message.runtime}/ort.wasm.min.mjs`);
    ort.env.wasm.numThreads = 1; // this worker is the thread: one a network
    const wasm = `${message.runtime}/ort-wasm-simd-threaded.wasm`;
    ort.env.wasm.wasmPaths = { mjs: `${message.runtime}/ort-wasm-simd-threaded.mjs`, wasm };
    // the Hub's copy, gzipped, un-gzipped here (else the runtime fetches the Space's itself)
    if (hasCopy(wasm)) ort.env.wasm.wasmBinary = await downloaded(wasm);
  }
  if (message.unchanged)
    unchanged = new ort.Tensor("float64", Float64Array.from(message.unchanged), [message.unchanged.length]);
  for (const [name, bytes] of coming) sessions[name] = await session(await bytes);
  return { loaded: Object.keys(sessions) };
}

// The decoder's pictures of capsule `digit` of `capsules` (v [10 * 16]) moved by each of
// `offsetSets` (one number a dimension, or null: not moved), the other capsules masked to zero
// (CapsNet.decode): Float32Array [field²] each, of ink in [0, 1]. One run for all.
async function decodeAll(capsules, digit, offsetSets) {
  const width = capsules.length;
  const dimensions = width / facts.classes;
  const masked = new Float32Array(offsetSets.length * width);
  offsetSets.forEach((offsets, k) => {
    for (let d = 0; d < dimensions; d++) {
      masked[k * width + digit * dimensions + d] = capsules[digit * dimensions + d] + (offsets ? offsets[d] : 0);
    }
  });
  const input = new ort.Tensor("float32", masked, [offsetSets.length, width]);
  const { pictures } = await sessions.decoder.run({ capsules: input });
  const field = pictures.dims[1];
  return offsetSets.map((_, k) => pictures.data.slice(k * field, (k + 1) * field));
}

// The decoder's picture of capsule `digit` of `capsules` moved by `offsets` (decodeAll's, for one).
const decode = async (capsules, digit, offsets) => (await decodeAll(capsules, digit, [offsets]))[0];

// The network's capsules of `image`: {capsules: v [10 * 16], lengths: |v_j| [10], votes: the
// capsules graph's u_hat_j|i, a Tensor}.
async function capsulesOf(image) {
  const outputs = await sessions.capsules.run({ images: imageTensor(image) });
  return { capsules: outputs.capsules.data, lengths: Array.from(outputs.lengths.data), votes: outputs.votes };
}

// Rows of `width` numbers of `values`, as arrays.
const rows = (values, width) =>
  Array.from({ length: values.length / width }, (_, r) => Array.from(values.subarray(r * width, (r + 1) * width)));

// The routing view's numbers of `votes` routed again for r = 1 .. R (read's `routing`).
async function routingOf(votes) {
  const routed = await sessions.routing.run({ votes });
  const [iterations, digits] = routed.routed_lengths.dims;
  const lengths = rows(routed.routed_lengths.data, digits);
  const shares = routed.vote_shares.data; // [R, I, J]
  const primaries = shares.length / (iterations * digits);
  const winnerShares = new Float32Array(iterations * primaries);
  lengths.forEach((row, r) => {
    const winner = argmax(row);
    for (let i = 0; i < primaries; i++) winnerShares[r * primaries + i] = shares[(r * primaries + i) * digits + winner];
  });
  return { lengths, agreements: rows(routed.agreements.data, digits), winnerShares };
}

async function read({ drawing, routed }) {
  const image = inkToMnist(inks(drawing.strokes, drawing.background, facts), facts.side, facts);
  if (image === null) return null;
  const { capsules, lengths, votes } = await capsulesOf(image);
  const [winner, runnerUp] = [...lengths.keys()].sort((a, b) => lengths[b] - lengths[a]);
  const reconstructions = sessions.decoder && {
    winner: await decode(capsules, winner, null),
    runnerUp: await decode(capsules, runnerUp, null),
  };
  const found = { image, capsules, lengths, reconstructions };
  if (routed) found.routing = await routingOf(votes);
  return found;
}

async function turn({ image, change, networks }) {
  const moved = new ort.Tensor("float64", Float64Array.from(change), [change.length]);
  const turned = (await sessions.turn.run({ images: imageTensor(image), change: moved })).turned.data;
  const answer = { turned };
  if (networks.includes("capsules")) {
    const { capsules, lengths } = await capsulesOf(turned);
    Object.assign(answer, { capsules, lengths });
    answer.reconstruction = await decode(answer.capsules, argmax(answer.lengths), null);
  }
  if (networks.includes("probabilities")) {
    const outputs = await sessions.probabilities.run({ images: imageTensor(turned) });
    answer.probabilities = Array.from(outputs.probabilities.data);
  }
  return answer;
}

// two_digits_reading.js's `run`: graph `name` run on `inputs` ({name: {data, dims}}, float32), its outputs' values.
async function runGraph(name, inputs) {
  const feeds = Object.fromEntries(
    Object.entries(inputs).map(([input, { data, dims }]) => [input, new ort.Tensor("float32", data, dims)]),
  );
  const outputs = await sessions[name].run(feeds);
  return Object.fromEntries(Object.entries(outputs).map(([output, tensor]) => [output, tensor.data]));
}

const GIVING_WAY = 2; // dimensions (4 decoder runs, one batch) between two looks at the messages

// The pictures beside the sliders, GIVING_WAY dimensions at a time, the messages that came
// meanwhile answered between them (giveWay): the pen's readings do not wait for 32 decoder runs.
async function changes({ capsules, digit, limits }) {
  const found = [];
  for (let first = 0; first < limits.length; first += GIVING_WAY) {
    if (first > 0) await giveWay();
    found.push(...(await dimensionChanges(decodeAll, capsules, digit, limits, first, first + GIVING_WAY)));
  }
  return found;
}

// Figure 4's pictures, GIVING_WAY dimensions at a time (as `changes`): each dimension at `steps`
// offsets evenly from -limit to +limit (capsnet.dimensions.sweep_reconstructions).
async function sweep({ capsules, digit, limits, steps }) {
  const field = facts.field ** 2;
  const pictures = new Float32Array(limits.length * steps * field);
  for (let first = 0; first < limits.length; first += GIVING_WAY) {
    if (first > 0) await giveWay();
    const offsetSets = [];
    for (let d = first; d < Math.min(first + GIVING_WAY, limits.length); d++) {
      for (let s = 0; s < steps; s++) {
        offsetSets.push(limits.map((limit, other) => (other === d ? limit * (-1 + (2 * s) / (steps - 1)) : 0)));
      }
    }
    (await decodeAll(capsules, digit, offsetSets)).forEach((picture, k) => {
      pictures.set(picture, (first * steps + k) * field);
    });
  }
  return pictures;
}

const KINDS = {
  copies: ({ copies }) => useCopies(copies),
  load,
  read,
  turn,
  decode: ({ capsules, digit, offsets }) => decode(capsules, digit, offsets),
  changes,
  sweep,
  pair: ({ drawing, decodeAs }) => pairReading(drawing, facts, runGraph, decodeAs),
  pairDecoded: ({ pair, digit }) => decodedAs(pair, digit, facts, runGraph),
};

// One message at a time, in the order they came (a reading waits for the one before it), but the
// pictures beside the sliders ("changes") and Figure 4's ("sweep") wait for every other message,
// and give way to those that come while they are made.
const LATER = new Set(["changes", "sweep"]);
const waiting = [];
let answering = false;

async function answer(data) {
  try {
    self.postMessage({ id: data.id, result: await KINDS[data.kind](data) });
  } catch (error) {
    self.postMessage({ id: data.id, error: error.message ?? String(error) });
  }
}

// The first message waiting that waits for no other, taken from the list; undefined where none.
function urgent() {
  const first = waiting.findIndex((data) => !LATER.has(data.kind));
  return first === -1 ? undefined : waiting.splice(first, 1)[0];
}

async function giveWay() {
  await new Promise((resolve) => setTimeout(resolve)); // the messages sent meanwhile arrive
  for (let data = urgent(); data !== undefined; data = urgent()) await answer(data);
}

self.addEventListener("message", async ({ data }) => {
  waiting.push(data);
  if (answering) return;
  answering = true;
  while (waiting.length > 0) await answer(urgent() ?? waiting.shift());
  answering = false;
});
