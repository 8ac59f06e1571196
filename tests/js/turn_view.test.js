import assert from "node:assert/strict";
import { test } from "node:test";
import { turnHtml } from "../../playground/page/turn_view.js";
import { greyLevels } from "./grey_canvas.js";

const LABELS = Array.from({ length: 10 }, (_, digit) =>
  Array.from({ length: 16 }, (_, d) => (d === 0 ? `d1: <wider> of ${digit}` : `d${d + 1}`)),
);
const FACTS = { labels: LABELS, poseLimit: 0.25 };
const ink = (first) => Float32Array.from({ length: 784 }, (_, k) => ((first + k) % 256) / 255);

// A drawn 4 turned as the turn panel draws it (turn_panel.js): read as `winner`, its capsule moved
// by `moved` (the rest of the 16 dimensions unmoved).
function turned(winner = 4, moved = [0.125, -0.25, 0.5]) {
  const lengths = [0.05, 0.1, 0.15, 0.2, 0.9316, 0.25, 0.3, 0.35, 0.4, 0.45];
  if (winner !== 4) lengths[winner] = 0.95; // longer than the drawn capsule
  return {
    revision: 3,
    image: ink(0),
    reconstruction: ink(100),
    lengths,
    winner,
    probabilities: [0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.75, 0.02, 0.01, 0.01],
    cnnWinner: 6,
    moved: [...moved, ...Array(16 - moved.length).fill(0)],
    drawn: 4,
    drawnLength: 0.9,
  };
}

test("a turn shows both networks' readings, the capsule redrawn and how far the drawn one moved", () => {
  const html = turnHtml(turned(), FACTS);
  assert.match(html, /^<div class="turn" data-revision="3">/);
  assert.match(html, /<figcaption>CapsNet redraws capsule 4<\/figcaption>/);
  assert.match(html, /CapsNet reads<\/span> <b>4<\/b><small>capsule length 0.932<\/small>/);
  assert.match(html, /CNN reads<\/span> <b>6<\/b><small>probability 0.750<\/small>/);
  assert.equal(html.match(/class="bar winner"/g).length, 2); // a winner of each network's bars
  assert.match(html, /aria-label="the CNN probabilities"/);
  const caption = html.match(/<figure class="pose"><figcaption>([^<]*)</)[1];
  assert.equal(
    caption,
    "Capsule 4, turned minus as drawn: how each of its 16 dimensions moved (a half bar is ±0.25; " +
      "|Δv| = 0.573; its length 0.900 → 0.932)",
  );
  assert.equal(html.match(/class="dimension-move"/g).length, 16);
});

test("each picture shows the server's grey levels as black ink on white paper", () => {
  const html = turnHtml(turned(), FACTS);
  const paper = (first) => Array.from({ length: 784 }, (_, k) => 255 - ((first + k) % 256));
  assert.deepEqual(greyLevels(html, "your digit, turned"), paper(0));
  assert.deepEqual(greyLevels(html, "the reconstruction from capsule 4"), paper(100));
});

test("a pose bar fills its half at the limit and is marked beyond; its name is the drawn digit's", () => {
  const html = turnHtml(turned(), FACTS);
  const bars = [...html.matchAll(/class="bar( beyond)?" style="left: ([\d.]+)%; width: ([\d.]+)%"/g)];
  assert.deepEqual(
    bars.slice(0, 3).map(([, beyond = "", left, width]) => [beyond, left, width]),
    [
      ["", "50", "25.0"],
      ["", "0.0", "50.0"],
      [" beyond", "50", "50.0"],
    ],
  );
  const values = [...html.matchAll(/<span class="value">([^<]*)<\/span>/g)].map(([, value]) => value);
  assert.deepEqual(values.slice(0, 4), ["+0.125", "-0.250", "+0.500", "+0.000"]);
  assert.match(html, /<span class="name" title="d1: &#60;wider&#62; of 4">d1: &#60;wider&#62; of 4<\/span>/);
});

test("a turn read as another digit than the drawn one says its capsule is no longer the longest", () => {
  const html = turnHtml(turned(7), FACTS);
  assert.match(html, /CapsNet reads<\/span> <b>7<\/b>/);
  assert.match(html, /Capsule 4, turned minus as drawn: .* 0\.900 → 0\.932, no longer the longest\)/);
  assert.doesNotMatch(turnHtml(turned(), FACTS), /no longer/);
});

test("no turn asks for a digit; a message says why, its text escaped", () => {
  assert.equal(turnHtml(null, FACTS), '<div class="turn empty">Draw a digit above, then turn it here.</div>');
  const message = turnHtml({ message: "Cannot turn <it>" }, FACTS);
  assert.equal(message, '<div class="turn message" role="alert">Cannot turn &#60;it&#62;</div>');
});
