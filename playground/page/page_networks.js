// The page's networks, each run in a module worker (network_worker.js), so that reading a drawing
// never holds up the thread that takes the pen and paints the ink. One worker holds the CapsNet
// (its capsules graph and its decoder) and reads the drawings; Turn it turns the digit and reads it
// with the CapsNet there and, on a machine of two or more cores (navigator.hardwareConcurrency),
// with the CNN in a second worker at the same time; on one core, the first worker runs both.
//
// The reading panel starts the reader (reading_panel.js), Turn it the turner once its section
// comes near the screen (turn_panel.js). Each start is a promise that fails with the reason the
// page cannot run them; its state says where it stands: "waiting", "ready" or "unavailable".

import { pageIdle } from "./page_loaded.js";

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
  return {
    ask(kind, message = {}) {
      count += 1;
      const id = count;
      return new Promise((done, failed) => {
        asked.set(id, [done, failed]);
        worker.postMessage({ id, kind, ...message });
      });
    },
  };
}

let capsnet = null; // the CapsNet's worker
let cnn = null; // the CNN's worker: a second one, or the CapsNet's on one core
let facts = null; // Python's numbers the reader was started with (reading.PREPROCESSING)
let reader = null; // the reader's start, once asked
let readerAsked; // resolves with the reader's start, once asked: the turner follows it
const askedForReader = new Promise((done) => {
  readerAsked = done;
});
let turner = null; // the turner's start, once asked
const states = { reader: "waiting", turner: "waiting" };

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
  if (navigator.connection?.saveData) return "the browser asks to save data, and the network's files are 17 MB";
  return null;
}

// A stroke over an example's single dot, read once unseen as the reader gets ready.
function warmUpDrawing({ side, background_side }) {
  const background = new Uint8Array(background_side * background_side);
  background[(background_side / 2) * background_side + background_side / 2] = 255;
  return { strokes: [[side / 2 - 20, side / 2, side / 2 + 20, side / 2]], background };
}

// The reader, loaded once the page is idle: `settings` = {facts (reading.PREPROCESSING), runtime:
// ONNX Runtime Web's folder, capsules: the CapsNet's graph, decoder: its decoder file}, each
// address relative to the page.
export function startReader({ facts: numbers, runtime, capsules, decoder }) {
  facts ??= numbers;
  reader ??= started(
    "reader",
    Promise.resolve(cannotRun()).then(async (why) => {
      if (why !== null) throw new Error(why);
      await pageIdle();
      capsnet = networkWorker();
      try {
        await capsnet.ask("load", {
          facts,
          runtime: absolute(runtime),
          graphs: { capsules: absolute(capsules) },
          decoder: absolute(decoder),
        });
        await readDrawing(warmUpDrawing(facts)); // its code compiled before a person's first drawing
      } catch (error) {
        throw new Error(`the network did not load in the page (${error.message})`);
      }
    }),
  );
  readerAsked(reader);
  return reader;
}

// The turner, once the reader is ready: `settings` = {runtime, turn: the turn's graph,
// probabilities: the CNN's, unchanged: the change that leaves a digit as it is}.
export function startTurner({ runtime, turn, probabilities, unchanged }) {
  turner ??= started(
    "turner",
    askedForReader.then(async (started) => {
      await started;
      const common = { facts, runtime: absolute(runtime), unchanged };
      cnn = navigator.hardwareConcurrency >= 2 ? networkWorker() : capsnet;
      await Promise.all([
        capsnet.ask("load", { ...common, graphs: { turn: absolute(turn) } }),
        cnn.ask("load", { ...common, graphs: { turn: absolute(turn), probabilities: absolute(probabilities) } }),
      ]);
    }),
  );
  return turner;
}

// "waiting", "ready" or "unavailable", for the reader and the turner.
export const readerState = () => states.reader;
export const turnerState = () => states.turner;

// A drawing read: `drawing` = {strokes: flat [x0, y0, x1, y1, ...] arrays in pad units,
// background: the example's ink values 0..255 or null}. A promise of null for too little ink, or
// {image: the network's input, capsules: v [10 * 16], lengths: |v_j| [10], reconstructions:
// {winner, runnerUp}: the decoder's pictures}.
export const readDrawing = ({ strokes, background }) => capsnet.ask("read", { drawing: { strokes, background } });

// The decoder's picture of capsule `digit` of `capsules` moved by `offsets` (null: not moved).
export const decodeCapsule = (capsules, digit, offsets) => capsnet.ask("decode", { capsules, digit, offsets });

// The ink each dimension of capsule `digit` adds and takes away between the ends of its slider's
// range (`limits`, one number a dimension): a Float32Array of signed changes for each.
export const dimensionChangesOf = (capsules, digit, limits) => capsnet.ask("changes", { capsules, digit, limits });

// `image` (the network's input) changed by `change` (the turn graph's numbers) and read by both
// networks: {turned, capsules, lengths, reconstruction: the CapsNet's winner, probabilities}.
export async function turnAndRead(image, change) {
  if (cnn === capsnet) return capsnet.ask("turn", { image, change, networks: ["capsules", "probabilities"] });
  const [capsules, probabilities] = await Promise.all([
    capsnet.ask("turn", { image, change, networks: ["capsules"] }),
    cnn.ask("turn", { image, change, networks: ["probabilities"] }),
  ]);
  return { ...capsules, probabilities: probabilities.probabilities };
}
