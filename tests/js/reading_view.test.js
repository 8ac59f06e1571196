import assert from "node:assert/strict";
import { test } from "node:test";
import { readingHtml } from "../../playground/page/reading_view.js";
import { greyLevels } from "./grey_canvas.js";

const ink = (first) => Float32Array.from({ length: 784 }, (_, k) => ((first + k) % 256) / 255);

// A reading of a 4 as the reading panel shows it (reading_store.js `shown`), decoded as 7.
function shownReading() {
  return {
    revision: 12,
    settled: true,
    winner: 4,
    runnerUp: 9,
    decoded: 7,
    lengths: [0.05, 0.1, 0.15, 0.2, 0.9316, 0.25, 0.3, 0.35, 0.4, 0.45],
    image: ink(0),
    reconstruction: ink(100),
    runnerUpReconstruction: ink(200),
    capsules: Float32Array.from({ length: 160 }, (_, k) => k / 7),
  };
}

test("a reading is drawn: digit, lengths, runner-up, capsule decoded", () => {
  const html = readingHtml(shownReading());
  assert.match(html, /^<div class="panel" data-revision="12" data-settled="">/);
  assert.match(html, /<div class="digit">4<\/div><div class="caption">capsule length 0.932<\/div>/);
  assert.match(html, /<figcaption>Reconstruction from capsule 7<\/figcaption>/);
  assert.match(html, /What else it could be: 9, capsule length 0.450/);
  assert.equal(html.match(/class="bar winner"/g).length, 1);
  assert.match(html, /class="bar winner" x="128.0" y="18.8" width="22.0" height="93.2"/); // bar 4 at 0.9316
  assert.equal(html.match(/class="bar"/g).length, 9);
});

test("each picture shows its ink as black on white paper", () => {
  const html = readingHtml(shownReading());
  const paper = (first) => Array.from({ length: 784 }, (_, k) => 255 - ((first + k) % 256));
  assert.deepEqual(greyLevels(html, "the 28x28 image the network reads"), paper(0));
  assert.deepEqual(greyLevels(html, "reconstruction from capsule 7"), paper(100));
  assert.deepEqual(greyLevels(html, "reconstruction from capsule 9, the runner-up"), paper(200));
});

test("no reading asks for a digit; a message says why, its text escaped", () => {
  const empty = readingHtml({ revision: null, settled: true });
  assert.match(empty, /^<div class="panel" data-settled="">/);
  assert.match(empty, /Draw a digit/);
  assert.doesNotMatch(empty, /<img|bar winner|data-revision/);
  const message = readingHtml({ revision: null, settled: true, message: "Cannot read <this>" });
  assert.equal(message, '<div class="panel message" role="alert">Cannot read &#60;this&#62;</div>');
});
