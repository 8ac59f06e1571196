// The page's networks, each run in a module worker (network_worker.js), so that reading a drawing
// never holds up the thread that takes the pen and paints the ink. One worker holds the CapsNet
// (its capsules graph and its decoder) and reads the drawings. Turn it turns the digit and reads it
// with both the CapsNet and the CNN: on a machine of two or more cores
// (navigator.hardwareConcurrency) a second worker loads both networks too, and each network's part
// of a turn goes to whichever worker is free (`turnAndRead`), so that both cores work while a
// slider is dragged; on one core, the first worker does all.
//
// The Two-digits section's networks, the pairs CapsNet and the pairs CNN, are a worker of their own
// (`startPairReader`), loaded once that section comes near the screen.
//
// The reading panel starts the reader (reading_panel.js), Turn it the turner once its section
// comes near the screen (turn_panel.js). Each start is a promise that fails with the reason the
// page cannot run them; its state says where it stands: "waiting", "ready" or "unavailable".

import { downloaded, hubCopies } from "./downloaded.js";
import { pageIdle } from "./page_loaded.js";
import { sharedWork } from "./shared_work.js";

const absolute = (url) => new URL(url, document.baseURI).href;

// A worker of network_worker.js, asked things one message each: ask(kind, message) -> a promise
// of its answer.
function networkWorker() {
  const worker = new Worker(new URL("./network_worker.js", import.meta.url), { type: "module" });
  const asked = new Map(); // id -> [done, failed]
  let count = 0;
  const failAll = (why) => {
    for (const [, failed] of asked.values()) failed(new Error(why));
    asked.clear();
  };
  worker.addEventListener("message", ({ data }) => {
    const [done, failed] = asked.get(data.id);
    asked.delete(data.id);
    if ("error" in data) failed(new Error(data.error));
    else done(data.result);
  });
  worker.addEventListener("error", (event) => failAll(event.message || "the worker did not start"));
  const ask = (kind, message = {}) => {
    count += 1;
    const id = count;
    return new Promise((done, failed) => {
      asked.set(id, [done, failed]);
      worker.postMessage({ id, kind, ...message });
    });
  };
  ask("copies", { copies: hubCopies() }).catch(() => {}); // the files it fetches from the Hub, first
  return { ask };
}

let capsnet = null; // the CapsNet's worker, the reader
// How many workers Turn it's turns are shared among: the reader's, and a second on two cores or more.
export const TURNERS = navigator.hardwareConcurrency >= 2 ? 2 : 1;
let facts = null; // Python's numbers the reader was started with (reading.PREPROCESSING)
let readerFiles = null; // the reader's graph and decoder, which a second worker loads for Turn it
let reader = null; // the reader's start, once asked
let readerAsked; // resolves with [the reader's start], once asked: the turner follows it (in an
// array, so that a start that failed is not adopted: a rejection no one awaits yet is uncaught)
const askedForReader = new Promise((done) => {
  readerAsked = done;
});
let turner = null; // the turner's start, once asked
let pairNetworks = null; // the pairs networks' worker
let pairReader = null; // its start, once asked
const states = { reader: "waiting", turner: "waiting", decoder: "waiting", pairReader: "waiting" };

function started(name, promise) {
  return promise.then(
    () => {
      states[name] = "ready";
    },
    (error) => {
      states[name] = "unavailable";
      throw error;
    },
  );
}

// Why this browser cannot run the networks, or null where it can.
function cannotRun() {
  if (typeof WebAssembly !== "object") return "this browser has no WebAssembly";
  if (typeof Worker !== "function") return "this browser has no workers";
  if (navigator.connection?.saveData) return "the browser asks to save data, and the network's files are 11 MB";
  return null;
}

// A stroke over an example's single dot, read once unseen as the reader gets ready.
function warmUpDrawing({ side, background_side }) {
  const background = new Uint8Array(background_side * background_side);
  background[(background_side / 2) * background_side + background_side / 2] = 255;
  return { strokes: [[side / 2 - 20, side / 2, side / 2 + 20, side / 2]], background };
}

let decoderLoaded; // resolves once the reader's worker has the decoder, or fails with why not
const decoderCame = new Promise((done, failed) => {
  decoderLoaded = { done, failed };
});
started("decoder", decoderCame).catch(() => {}); // its failure is told where a picture is asked for

// The decoder's graph is fetched on the person's first touch of the page (a pointer pressed, a
// key), or once something draws from a capsule: a visit that only looks does not fetch it.
let askForDecoder;
const decoderAsked = new Promise((done) => {
  askForDecoder = done;
});
for (const touch of ["pointerdown", "keydown"])
  window.addEventListener(touch, () => askForDecoder(), { capture: true, once: true, passive: true });
const withDecoder = () => {
  askForDecoder();
  return decoderCame;
};

// The reader, loaded once the page is idle: `settings` = {facts (reading.PREPROCESSING and the
// network's classes), runtime: ONNX Runtime Web's folder, capsules: the CapsNet's graph, routing:
// its routing graph, decoder: its decoder's graph}, each address relative to the page (the page's
// head has asked for the first three's files already: fetched_early.js). The reader is ready once
// it reads (the capsules and routing graphs); the decoder's graph is fetched once they are in and
// it is asked for (`withDecoder`), so that on a slow link the first reading waits neither for its
// bytes nor for theirs: the readings made meanwhile come without their pictures (`readDrawing`), and
// what draws from a capsule waits for it (`decodeCapsule`, `dimensionChangesOf`, `sweepOf`).
export function startReader({ facts: numbers, runtime, capsules, routing, decoder }) {
  facts ??= numbers;
  readerFiles ??= { capsules: absolute(capsules), decoder: absolute(decoder) };
  reader ??= started(
    "reader",
    Promise.resolve(cannotRun()).then(async (why) => {
      if (why !== null) throw new Error(why);
      await pageIdle();
      capsnet = networkWorker();
      let warmUp;
      let decoderBytes;
      try {
        await capsnet.ask("load", {
          facts,
          runtime: absolute(runtime),
          // the routing graph (10 KB) first: its session fetches and compiles the WebAssembly
          // while the capsules graph comes
          graphs: { routing: absolute(routing), capsules: readerFiles.capsules },
        });
        // the decoder's bytes once asked for, after the capsules graph's, which they would share the link with
        decoderBytes = decoderAsked.then(() => downloaded(readerFiles.decoder));
        decoderBytes.catch(() => {}); // told below, once the reader is ready
        warmUp = await readDrawing(warmUpDrawing(facts)); // its code compiled before a person's first drawing
      } catch (error) {
        decoderLoaded.failed(error);
        throw new Error(`the network did not load in the page (${error.message})`);
      }
      decoderBytes
        .then((bytes) => capsnet.ask("load", { facts, graphs: { decoder: bytes } }))
        .then(() => capsnet.ask("decode", { capsules: warmUp.capsules, digit: 0, offsets: null }))
        .then(decoderLoaded.done, (error) =>
          decoderLoaded.failed(new Error(`the decoder did not load (${error.message})`)),
        );
    }),
  );
  readerAsked([reader]);
  return reader;
}

// A promise of the reader's decoder loaded (it fails with why not).
export const decoderReady = () => decoderCame;

// One network's part of a turn, done by the first turner free.
const turnPart = sharedWork("turn");

// The turner, once the reader is ready: `settings` = {runtime, turn: the turn's graph,
// probabilities: the CNN's, unchanged: the change that leaves a digit as it is}. Every turner
// loads both networks: the turn's and the CNN's graphs downloaded here once and sent to each, the
// reader's files (fetched by the reader already) from the browser's cache.
export function startTurner({ runtime, turn, probabilities, unchanged }) {
  turner ??= started(
    "turner",
    askedForReader.then(async ([started]) => {
      await started;
      await withDecoder(); // a turn redraws the digit
      const common = { facts, runtime: absolute(runtime), unchanged };
      const [turnGraph, cnnGraph] = await Promise.all([turn, probabilities].map((url) => downloaded(absolute(url))));
      const graphs = { turn: turnGraph, probabilities: cnnGraph, ...readerFiles };
      const workers = TURNERS === 2 ? [capsnet, networkWorker()] : [capsnet];
      await Promise.all(workers.map((worker) => worker.ask("load", { ...common, graphs })));
      for (const worker of workers) turnPart.add(worker);
    }),
  );
  return turner;
}

// The pairs networks, loaded once asked (the Two-digits section near the screen) and the page idle:
// `settings` = {facts: two_digits.py `page_settings`'s, runtime: ONNX Runtime Web's folder,
// capsules, decoder: the pairs CapsNet's graphs, sigmoids: the pairs CNN's}, each address relative
// to the page.
export function startPairReader({ facts: numbers, runtime, capsules, decoder, sigmoids }) {
  pairReader ??= started(
    "pairReader",
    Promise.resolve(cannotRun()).then(async (why) => {
      if (why !== null) throw new Error(why);
      await pageIdle();
      pairNetworks = networkWorker();
      const graphs = { capsules: absolute(capsules), decoder: absolute(decoder), sigmoids: absolute(sigmoids) };
      try {
        await pairNetworks.ask("load", { facts: numbers, runtime: absolute(runtime), graphs });
      } catch (error) {
        throw new Error(`the pairs networks did not load in the page (${error.message})`);
      }
    }),
  );
  return pairReader;
}

// "waiting", "ready" or "unavailable", for the reader, its decoder, the turner and the pairs networks.
export const readerState = () => states.reader;
export const decoderState = () => states.decoder;
export const turnerState = () => states.turner;
export const pairReaderState = () => states.pairReader;

// A drawing read: `drawing` = {strokes: flat [x0, y0, x1, y1, ...] arrays in pad units,
// background: the example's ink values 0..255 or null, drawing: whether the pen is still down}. A
// promise of null for too little ink, or {image: the network's input, capsules: v [10 * 16],
// lengths: |v_j| [10], reconstructions: {winner, runnerUp}: the decoder's pictures, null until the
// decoder is loaded (`decoderReady`)}, and once the
// pen is up, routing: the routing view's numbers (network_worker.js).
export const readDrawing = ({ strokes, background, drawing }) =>
  capsnet.ask("read", { drawing: { strokes, background }, routed: !drawing });

// The decoder's picture of capsule `digit` of `capsules` moved by `offsets` (null: not moved).
export const decodeCapsule = (capsules, digit, offsets) =>
  withDecoder().then(() => capsnet.ask("decode", { capsules, digit, offsets }));

// The ink each dimension of capsule `digit` adds and takes away between the ends of its slider's
// range (`limits`, one number a dimension): a Float32Array of signed changes for each.
export const dimensionChangesOf = (capsules, digit, limits) =>
  withDecoder().then(() => capsnet.ask("changes", { capsules, digit, limits }));

// Figure 4's pictures of capsule `digit` of `capsules`: each dimension at `steps` offsets evenly
// from -limit to +limit of its `limits`, the others at zero: Float32Array [16 * steps * 28²].
export const sweepOf = (capsules, digit, limits, steps) =>
  withDecoder().then(() => capsnet.ask("sweep", { capsules, digit, limits, steps }));

// `image` (the network's input) changed by `change` (the turn graph's numbers) and read by both
// networks: {turned, capsules, lengths, reconstruction: the CapsNet's winner, probabilities}. The
// two networks' parts go to the turners as they come free: with two, one turn's parts run side by
// side, and while one part of a turn runs the next turn's can start.
export async function turnAndRead(image, change) {
  const [capsules, cnn] = await Promise.all([
    turnPart({ image, change, networks: ["capsules"] }),
    turnPart({ image, change, networks: ["probabilities"] }),
  ]);
  return { ...capsules, probabilities: cnn.probabilities };
}

// A drawing of the two-pen pad read by the pairs networks, once ready: `drawing` = {strokes: flat
// [x0, y0, x1, y1, ...] arrays in pad units, pens: each stroke's pen (the pad's string of digits, or
// numbers), background: both examples' layers of ink, 2 x 784 values 0..255, or null, revision},
// `decodeAs` the capsule Decode as chose (a digit; null for the two read). A promise of null for too
// little ink, or the Two-digits panel's numbers (two_digits_reading.js `pairReading`).
export const readPair = (drawing, decodeAs = null) => pairNetworks.ask("pair", { drawing, decodeAs });

// `pair` (readPair's) with capsule `digit` (null: the two read) redrawn as Decode as asks: a promise
// of the new numbers.
export const decodePairAs = (pair, digit) => pairNetworks.ask("pairDecoded", { pair, digit });
