// Who computes the page's numbers, decided here and nowhere else: a panel asks this module (read a
// 28x28 drawing, decode a capsule, the pictures beside the sliders, Figure 4's sweep, turn and read,
// read a pair; the routing for r = 1 .. 5 comes with a finished drawing's reading) and draws what
// comes back, never knowing who answered. The page's networks answer, each run in a module worker
// (network_worker.js), so that reading a drawing never holds up the thread that takes the pen and
// paints the ink; where they cannot yet or at all (no Worker or WebAssembly, the visitor saves
// data, their files not loaded yet or refused, an error), the server answers the same question
// (`askServer`: POST ask/KIND, playground/answers.py), the drawing made 28x28 here first, as the
// worker would make it (ink_to_mnist.js). The console says once, as information, why the server
// answers where a network failed to load or run: nothing has gone wrong for the person.
//
// One worker holds the CapsNet (its capsules graph and its decoder) and reads the drawings. Turn it
// turns the digit and reads it with both the CapsNet and the CNN: on a machine of two or more cores
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
import { inkToMnist } from "./ink_to_mnist.js";
import { inks } from "./inks.js";
import { pageIdle } from "./page_loaded.js";
import { sharedWork } from "./shared_work.js";
import { floatsOf, inkOf } from "./views.js";

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
let readerAsked; // resolves with the reader's start, once asked: the turner follows it
const askedForReader = new Promise((done) => {
  readerAsked = done;
});
let turner = null; // the turner's start, once asked
let pairNetworks = null; // the pairs networks' worker
let pairFacts = null; // Python's numbers the pairs networks' reading was started with
let pairReader = null; // its start, once asked
const states = { reader: "waiting", turner: "waiting", decoder: "waiting", pairReader: "waiting" };

const toldWhy = new Set(); // what the console has been told
const failures = {}; // why each network that failed to load did

// Network `name` failed to load or run (`error`): the server answers for it from now on, and the
// console says why, each reason once, as information.
function unavailable(name, error) {
  states[name] = "unavailable";
  failures[name] ??= error;
  if (!toldWhy.has(error.message)) console.info(`The server answers in the page's place: ${error.message}.`);
  toldWhy.add(error.message);
}

// The start `promise` of network `name`: its state "ready" once it resolves, "unavailable" where it
// fails. A promise of whether it started, which never fails.
function started(name, promise) {
  return promise.then(
    () => {
      states[name] = "ready";
      return true;
    },
    (error) => {
      unavailable(name, error);
      return false;
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
const decoderStarted = started(
  "decoder",
  new Promise((done, failed) => {
    decoderLoaded = { done, failed };
  }),
);

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
  return decoderStarted;
};

// The reader, loaded once the page is idle: `settings` = {facts (reading.PREPROCESSING and the
// network's classes), runtime: ONNX Runtime Web's folder, capsules: the CapsNet's graph, routing:
// its routing graph, decoder: its decoder's graph}, each address relative to the page (the page's
// head has asked for the first three's files already: fetched_early.js). The reader is ready once
// it reads (the capsules and routing graphs); the decoder's graph is fetched once they are in and
// it is asked for (`withDecoder`), so that on a slow link the first reading waits neither for its
// bytes nor for theirs: the readings made meanwhile come without their pictures (`readDrawing`), and
// the server draws from a capsule until it comes (`decodeCapsule`, `dimensionChangesOf`, `sweepOf`).
// A promise of whether the reader started; it never fails.
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
        // its code compiled before a person's first drawing
        warmUp = await capsnet.ask("read", { drawing: warmUpDrawing(facts), routed: true });
      } catch (error) {
        const why = new Error(`the network did not load in the page (${error.message})`);
        decoderLoaded.failed(why); // told once: the same why
        throw why;
      }
      decoderBytes
        .then((bytes) => capsnet.ask("load", { facts, graphs: { decoder: bytes } }))
        .then(() => capsnet.ask("decode", { capsules: warmUp.capsules, digit: 0, offsets: null }))
        .then(decoderLoaded.done, (error) =>
          decoderLoaded.failed(new Error(`the decoder did not load (${error.message})`)),
        );
    }),
  );
  readerAsked(reader);
  return reader;
}

// A promise of whether the reader's decoder loaded; it never fails.
export const decoderReady = () => decoderStarted;

// One network's part of a turn, done by the first turner free.
const turnPart = sharedWork("turn");

// The turner, once the reader is ready: `settings` = {runtime, turn: the turn's graph,
// probabilities: the CNN's, unchanged: the change that leaves a digit as it is}. Every turner
// loads both networks: the turn's and the CNN's graphs downloaded here once and sent to each, the
// reader's files (fetched by the reader already) from the browser's cache.
export function startTurner({ runtime, turn, probabilities, unchanged }) {
  turner ??= started(
    "turner",
    askedForReader.then(async (readerStarted) => {
      if (!(await readerStarted)) throw failures.reader; // told already
      if (!(await withDecoder())) throw failures.decoder; // a turn redraws the digit
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
  pairFacts ??= numbers;
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

// The server's answer to question `kind` (network_worker.js's kinds, but that a drawing goes made
// 28x28): `question` sent as JSON, typed arrays as lists of numbers, to POST ask/KIND; a promise of
// the answer, its pictures ({ink}: grey levels) and long arrays ({float32}) made Float32Array again;
// undefined where it answers nothing new (204: a reading while the pen is down, the server
// crowded); or an error saying why the server did not answer.
export async function askServer(kind, question) {
  const response = await fetch(absolute(`ask/${kind}`), {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(question, (_, value) => (ArrayBuffer.isView(value) ? Array.from(value) : value)),
  });
  if (response.status === 204) return undefined;
  const answer = await response.json().catch(() => ({ error: `the server answered ${response.status}` }));
  if (!response.ok) throw new Error(answer.error ?? `the server answered ${response.status}`);
  return revived(answer);
}

// An answer of the server's with each {ink: base64} and {float32: base64} a Float32Array.
function revived(value) {
  if (Array.isArray(value)) return value.map(revived);
  if (value === null || typeof value !== "object") return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && keys[0] === "ink") return inkOf(value.ink);
  if (keys.length === 1 && keys[0] === "float32") return floatsOf(value.float32);
  return Object.fromEntries(keys.map((key) => [key, revived(value[key])]));
}

// The answer of the page's network `name` (inPage()) where it is ready, else, or where it fails
// (the server answers for it from then on), the server's (ofServer()).
async function answered(name, inPage, ofServer) {
  if (states[name] === "ready") {
    try {
      return await inPage();
    } catch (error) {
      unavailable(name, new Error(`the page's ${name} failed (${error.message})`));
    }
  }
  return ofServer();
}

// What the server's newest reading of a finished drawing brought (answers.py `read`): the answers
// to Figure 4's sweep and the sliders' pictures of the winner over the sliders' first range, which
// the page asks next (`followedUp`: that answer, where asked that very question); null for none.
let followUps = null;
function followedUp(kind, { capsules, digit, limits, steps }) {
  const same =
    (kind === "sweep" || kind === "changes") &&
    digit === followUps?.digit &&
    (kind === "changes" || steps === followUps.steps) &&
    limits.every((limit) => Math.abs(limit - followUps.limit) < 1e-9) &&
    capsules.every((value, i) => value === followUps.capsules[i]);
  return same ? followUps[kind] : undefined;
}

const LIVE_MS = 100; // the server reads a stroke still being drawn at most this often
let serverReadAt = Number.NEGATIVE_INFINITY; // when the server was last asked to read

// A drawing read: `drawing` = {strokes: flat [x0, y0, x1, y1, ...] arrays in pad units,
// background: the example's ink values 0..255 or null, drawing: whether the pen is still down}. A
// promise of null for too little ink, or {image: the network's input, capsules: v [10 * 16],
// lengths: |v_j| [10], reconstructions: {winner, runnerUp}: the decoder's pictures (undefined where
// the page's reader read before its decoder came: `decoderReady`)}, and once the pen is up,
// routing: the routing view's numbers (network_worker.js); undefined where the server, crowded,
// lets a reading asked while the pen is down go (nothing new to show).
export const readDrawing = ({ strokes, background, drawing }) =>
  answered(
    "reader",
    () => capsnet.ask("read", { drawing: { strokes, background }, routed: !drawing }),
    async () => {
      const image = inkToMnist(inks(strokes, background, facts), facts.side, facts);
      if (image === null) return null;
      if (drawing) await new Promise((done) => setTimeout(done, serverReadAt + LIVE_MS - performance.now()));
      serverReadAt = performance.now();
      const answer = await askServer("read", { image, routed: !drawing });
      if (answer?.followUps) {
        followUps = { capsules: answer.capsules, ...answer.followUps };
        delete answer.followUps;
      }
      return answer;
    },
  );

// The decoder's answer of `kind` to `question`: the page's where its decoder is in (it is asked
// for now, if it was not yet), else the server's.
const decoded = (kind, question) => {
  askForDecoder();
  return answered(
    "decoder",
    () => capsnet.ask(kind, question),
    async () => followedUp(kind, question) ?? askServer(kind, question),
  );
};

// The decoder's picture of capsule `digit` of `capsules` moved by `offsets` (null: not moved).
export const decodeCapsule = (capsules, digit, offsets) => decoded("decode", { capsules, digit, offsets });

// The ink each dimension of capsule `digit` adds and takes away between the ends of its slider's
// range (`limits`, one number a dimension): a Float32Array of signed changes for each.
export const dimensionChangesOf = (capsules, digit, limits) => decoded("changes", { capsules, digit, limits });

// Figure 4's pictures of capsule `digit` of `capsules`: each dimension at `steps` offsets evenly
// from -limit to +limit of its `limits`, the others at zero: Float32Array [16 * steps * 28²].
export const sweepOf = (capsules, digit, limits, steps) => decoded("sweep", { capsules, digit, limits, steps });

// `image` (the network's input) changed by `change` (the turn graph's numbers) and read by both
// networks: {turned, capsules, lengths, reconstruction: the CapsNet's winner, probabilities}. The
// two networks' parts go to the turners as they come free: with two, one turn's parts run side by
// side, and while one part of a turn runs the next turn's can start. `soon`: answered as soon as
// can be (a slider's move: the server answers while the page's turners load); else the turners
// are waited for where they are loading (a sweep's angles: one load, not a question an angle).
export const turnAndRead = async (image, change, { soon = true } = {}) => {
  if (!soon && turner !== null) await turner;
  return answered(
    "turner",
    async () => {
      const [capsules, cnn] = await Promise.all([
        turnPart({ image, change, networks: ["capsules"] }),
        turnPart({ image, change, networks: ["probabilities"] }),
      ]);
      return { ...capsules, probabilities: cnn.probabilities };
    },
    () => askServer("turn", { image, change, networks: ["capsules", "probabilities"] }),
  );
};

// A drawing of the two-pen pad read by the pairs networks: `drawing` = {strokes: flat [x0, y0, x1,
// y1, ...] arrays in pad units, pens: each stroke's pen (the pad's string of digits, or numbers),
// background: both examples' layers of ink, 2 x 784 values 0..255, or null, revision}, `decodeAs`
// the capsule Decode as chose (a digit; null for the two read). A promise of null for too little
// ink, or the Two-digits panel's numbers (two_digits_reading.js `pairReading`).
export const readPair = (drawing, decodeAs = null) =>
  answered(
    "pairReader",
    () => pairNetworks.ask("pair", { drawing, decodeAs }),
    async () => {
      const { pairFields } = await import("./two_digits_reading.js"); // only a visitor of Two digits needs it
      const fields = pairFields(drawing, pairFacts);
      if (fields === null) return null;
      return { revision: drawing.revision, ...(await askServer("pair", { fields, decodeAs })) };
    },
  );

// `pair` (readPair's) with capsule `digit` (null: the two read) redrawn as Decode as asks: a promise
// of the new numbers.
export const decodePairAs = (pair, digit) =>
  answered(
    "pairReader",
    () => pairNetworks.ask("pairDecoded", { pair, digit }),
    async () => ({
      ...pair,
      ...(await askServer("pairDecoded", { pair: { capsules: pair.capsules, read: pair.read }, digit })),
    }),
  );
