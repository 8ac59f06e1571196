import assert from "node:assert/strict";
import { test } from "node:test";
import { fromServer, readingHtml } from "../../playground/page/reading_view.js";
import { greyLevels } from "./grey_canvas.js";

const base64 = (bytes) => Buffer.from(bytes.buffer ?? bytes).toString("base64");

// The server's value of a reading of a 4 (reading_views.reading_numbers), decoded as 7.
function served(decoder = "network/decoder.onnx") {
  const lengths = [0.05, 0.1, 0.15, 0.2, 0.9316, 0.25, 0.3, 0.35, 0.4, 0.45];
  const levels = (first) => Uint8Array.from({ length: 784 }, (_, k) => (first + k) % 256);
  return {
    revision: 12,
    settled: true,
    winner: 4,
    runner_up: 9,
    decoded: 7,
    lengths,
    image: base64(levels(0)),
    reconstruction: base64(levels(100)),
    runner_up_reconstruction: base64(levels(200)),
    capsules: base64(Float32Array.from({ length: 160 }, (_, k) => k / 7)),
    decoder,
  };
}

test("the server's reading is drawn as the page draws its own: digit, lengths, runner-up, capsule decoded", () => {
  const reading = fromServer(served(), "network/decoder.onnx");
  assert.equal(reading.drawable, true);
  assert.deepEqual(Array.from(reading.capsules.slice(0, 3)), [0, Math.fround(1 / 7), Math.fround(2 / 7)]);
  const html = readingHtml(reading);
  assert.match(html, /^<div class="panel" data-revision="12" data-settled="">/);
  assert.match(html, /<div class="digit">4<\/div><div class="caption">capsule length 0.932<\/div>/);
  assert.match(html, /<figcaption>Reconstruction from capsule 7<\/figcaption>/);
  assert.match(html, /What else it could be: 9, capsule length 0.450/);
  assert.equal(html.match(/class="bar winner"/g).length, 1);
  assert.match(html, /class="bar winner" x="128.0" y="18.8" width="22.0" height="93.2"/); // bar 4 at 0.9316
  assert.equal(html.match(/class="bar"/g).length, 9);
});

test("each picture shows the server's grey levels as black ink on white paper", () => {
  const html = readingHtml(fromServer(served(), "network/decoder.onnx"));
  const paper = (first) => Array.from({ length: 784 }, (_, k) => 255 - ((first + k) % 256));
  assert.deepEqual(greyLevels(html, "the 28x28 image the network reads"), paper(0));
  assert.deepEqual(greyLevels(html, "reconstruction from capsule 7"), paper(100));
  assert.deepEqual(greyLevels(html, "reconstruction from capsule 9, the runner-up"), paper(200));
});

test("a reading of another network, or whose capsules cannot be read, is not the page decoder's to redraw", () => {
  assert.equal(fromServer(served("network/other.onnx"), "network/decoder.onnx").drawable, false);
  assert.equal(fromServer({ ...served(), capsules: "!" }, "network/decoder.onnx").drawable, false);
  assert.equal(fromServer(served(null), "network/decoder.onnx").drawable, false);
});

test("no reading asks for a digit; a message says why, its text escaped", () => {
  const empty = readingHtml(fromServer({ revision: null, settled: true }, "d"));
  assert.match(empty, /^<div class="panel" data-settled="">/);
  assert.match(empty, /Draw a digit/);
  assert.doesNotMatch(empty, /<img|bar winner|data-revision/);
  assert.deepEqual(fromServer(null, "d"), { revision: null, settled: false });
  const message = readingHtml(fromServer({ message: "Cannot read <this>" }, "d"));
  assert.equal(message, '<div class="panel message" role="alert">Cannot read &#60;this&#62;</div>');
});
