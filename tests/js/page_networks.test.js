// The seam (page_networks.js): where the page's networks cannot run (here, Node has no Worker),
// every question goes to the server as JSON, POST ask/KIND, the drawing made 28x28 in the page,
// and the answer comes back in the shape the worker gives.
import assert from "node:assert/strict";
import { test } from "node:test";

// What a page gives the module, which Node has not
Object.defineProperty(globalThis, "navigator", { value: { hardwareConcurrency: 2 }, configurable: true });
globalThis.window = { addEventListener() {} };
globalThis.document = { baseURI: "http://app.test/page/", readyState: "complete" };
const asked = []; // [url, method, question] of each request
let answer = () => ({ status: 200, body: {} });
globalThis.fetch = async (url, { method, body }) => {
  asked.push([url, method, JSON.parse(body)]);
  const { status, body: answered } = answer();
  return { ok: status < 400, status, json: async () => answered };
};
const told = [];
console.info = (line) => told.push(line);

const seam = await import("../../playground/page/page_networks.js");
const { inkToMnist } = await import("../../playground/page/ink_to_mnist.js");
const { inks } = await import("../../playground/page/inks.js");
const { pairFields } = await import("../../playground/page/two_digits_reading.js");
const { facts } = await import("./preprocessing.js");

const base64 = (typed) => Buffer.from(typed.buffer).toString("base64");
const SEVEN = [60, 60, 220, 60, 120, 240]; // a stroke like a 7, pad units
const files = { runtime: "ort", capsules: "network/c.onnx", routing: "network/r.onnx", decoder: "network/d.onnx" };
const lastQuestion = () => asked.at(-1);

test("the reader cannot start without workers: it says so once, and the server reads", async () => {
  assert.equal(await seam.startReader({ facts: { ...facts, classes: 10 }, ...files }), false);
  assert.equal(seam.readerState(), "unavailable");
  assert.deepEqual(told, ["The server answers in the page's place: this browser has no workers."]);
});

test("a drawing goes to the server made 28x28 in the page, and its answer comes back as the worker's", async () => {
  const image = inkToMnist(inks([SEVEN], null, facts), facts.side, facts);
  const levels = Uint8Array.from({ length: 784 }, (_, k) => k % 256);
  answer = () => ({
    status: 200,
    body: {
      image: { ink: base64(levels) },
      capsules: { float32: base64(Float32Array.from({ length: 160 }, (_, k) => k / 8)) },
      lengths: [0.1, 0.9],
      reconstructions: { winner: { ink: base64(levels) }, runnerUp: { ink: base64(levels) } },
      routing: { lengths: [[0.1]], agreements: [[0.2]], winnerShares: { float32: base64(Float32Array.of(0.5, 0.25)) } },
    },
  });
  const read = await seam.readDrawing({ strokes: [SEVEN], background: null, drawing: false });
  assert.deepEqual(lastQuestion(), [
    "http://app.test/page/ask/read",
    "POST",
    { image: Array.from(image), routed: true },
  ]);
  assert.ok(read.image instanceof Float32Array && read.capsules instanceof Float32Array);
  assert.equal(read.image[255], 255 / 255);
  assert.equal(read.capsules[3], 3 / 8);
  assert.deepEqual(Array.from(read.routing.winnerShares), [0.5, 0.25]);
  assert.deepEqual(read.lengths, [0.1, 0.9]);
});

test("a drawing of too little ink is read as none, with no request", async () => {
  const before = asked.length;
  assert.equal(await seam.readDrawing({ strokes: [], background: null, drawing: false }), null);
  assert.equal(asked.length, before);
});

test("the decoder's questions go to the server as the worker is asked them", async () => {
  const capsules = Float32Array.from({ length: 160 }, (_, k) => k / 100);
  const limits = Array(16).fill(0.25);
  answer = () => ({ status: 200, body: { ink: base64(new Uint8Array(784)) } });
  assert.ok((await seam.decodeCapsule(capsules, 3, null)) instanceof Float32Array);
  assert.deepEqual(lastQuestion()[2], { capsules: Array.from(capsules), digit: 3, offsets: null });
  assert.match(lastQuestion()[0], /ask\/decode$/);
  await seam.sweepOf(capsules, 3, limits, 11);
  assert.deepEqual(lastQuestion()[2], { capsules: Array.from(capsules), digit: 3, limits, steps: 11 });
  answer = () => ({ status: 200, body: [{ float32: base64(Float32Array.of(-0.5)) }] });
  assert.deepEqual(Array.from((await seam.dimensionChangesOf(capsules, 3, limits))[0]), [-0.5]);
  assert.deepEqual(lastQuestion()[2], { capsules: Array.from(capsules), digit: 3, limits });
});

test("Figure 4 and the sliders' pictures of a finished drawing come with the server's reading", async () => {
  const capsules = Float32Array.from({ length: 160 }, (_, k) => k / 200);
  const sweep = Uint8Array.from({ length: 16 * 11 * 784 }, (_, k) => k % 7);
  answer = () => ({
    status: 200,
    body: {
      capsules: { float32: base64(capsules) },
      lengths: [0.9],
      followUps: {
        digit: 7,
        limit: 0.25,
        steps: 11,
        sweep: { ink: base64(sweep) },
        changes: [{ float32: base64(Float32Array.of(0.5)) }],
      },
    },
  });
  const read = await seam.readDrawing({ strokes: [SEVEN], background: null, drawing: false });
  assert.equal(read.followUps, undefined); // the seam keeps them; the panels see the worker's answer
  const before = asked.length;
  const limits = Array(16).fill(0.25);
  const swept = await seam.sweepOf(read.capsules, 7, limits, 11);
  assert.deepEqual(
    Array.from(swept.subarray(0, 8)),
    Array.from(Float32Array.from([0, 1, 2, 3, 4, 5, 6, 0], (level) => level / 255)),
  );
  assert.deepEqual(Array.from((await seam.dimensionChangesOf(read.capsules, 7, limits))[0]), [0.5]);
  assert.equal(asked.length, before); // asked nothing more
  // another capsule, another range or Figure 4 of another number of steps: asked of the server
  answer = () => ({ status: 200, body: { ink: base64(new Uint8Array(784)) } });
  await seam.sweepOf(read.capsules, 3, limits, 11);
  await seam.sweepOf(read.capsules, 7, Array(16).fill(0.5), 11);
  await seam.sweepOf(read.capsules, 7, limits, 5);
  await seam.sweepOf(
    Float32Array.from(read.capsules, (v) => v + 0.01),
    7,
    limits,
    11,
  );
  assert.equal(asked.length, before + 4);
});

test("a turn goes to the server for both networks at once", async () => {
  const image = new Float32Array(784).fill(0.5);
  answer = () => ({
    status: 200,
    body: { turned: { ink: base64(new Uint8Array(784)) }, lengths: [1], probabilities: [1] },
  });
  const turned = await seam.turnAndRead(image, [30, 1, 0, 1, 1, 0, 0]);
  assert.deepEqual(lastQuestion()[2], {
    image: Array.from(image),
    change: [30, 1, 0, 1, 1, 0, 0],
    networks: ["capsules", "probabilities"],
  });
  assert.ok(turned.turned instanceof Float32Array);
});

test("a drawing of two pens goes to the server as its fields, and its revision comes back with it", async () => {
  const pairFacts = { ...facts, classes: 10, pen_colours: ["#1f6fd1", "#e66100"] };
  assert.equal(
    await seam.startPairReader({ facts: pairFacts, runtime: "ort", capsules: "a", decoder: "b", sigmoids: "c" }),
    false,
  );
  const drawing = { strokes: [SEVEN, [140, 40, 140, 240]], pens: "01", background: null, revision: 7 };
  answer = () => ({ status: 200, body: { read: [7, 1], capsules: { float32: base64(new Float32Array(160)) } } });
  const pair = await seam.readPair(drawing, 4);
  assert.deepEqual(lastQuestion()[2], {
    fields: pairFields(drawing, pairFacts).map((f) => Array.from(f)),
    decodeAs: 4,
  });
  assert.equal(pair.revision, 7);
  answer = () => ({ status: 200, body: { decoded: 4, decodedRedrawn: { ink: base64(new Uint8Array(784)) } } });
  const decoded = await seam.decodePairAs(pair, 4);
  assert.deepEqual(lastQuestion()[2], { pair: { capsules: Array.from(pair.capsules), read: [7, 1] }, digit: 4 });
  assert.equal(decoded.revision, 7);
  assert.equal(decoded.decoded, 4);
});

test("the server's reason comes back as the question's error; nothing new as undefined", async () => {
  answer = () => ({ status: 400, body: { error: "Cannot answer decode: digit must be an integer in 0..9, got 12" } });
  await assert.rejects(seam.decodeCapsule(new Float32Array(160), 12, null), /digit must be an integer in 0..9/);
  answer = () => ({ status: 204, body: null });
  assert.equal(await seam.readDrawing({ strokes: [SEVEN], background: null, drawing: true }), undefined);
});
