import assert from "node:assert/strict";
import { test } from "node:test";
import { degrees, firstMisreads, misreadText, sweepHtml, unturned } from "../../playground/page/sweep_view.js";

const ANGLES = [-20, -10, 0, 10, 20];
const SWEEP_ANGLES = Array.from({ length: 19 }, (_, k) => 10 * k - 90); // turn_it.SWEEP_ANGLES
const MNIST = { angles: SWEEP_ANGLES, capsnet: SWEEP_ANGLES.map(() => 0.9), cnn: SWEEP_ANGLES.map(() => 0.8) };

// A sweep of a drawn 7 over ANGLES, as the turn panel makes it (turn_panel.js).
const swept = (readings, cnnReadings) => ({
  reading: "12",
  digit: 7,
  angles: ANGLES,
  lengths: [0.2, 0.6, 0.9, 0.7, 0.4],
  readings,
  probabilities: [0.1, 0.9, 1.0, 0.3, 0.2],
  cnnReadings,
});

// What `html` holds of each: the elements of `tag` and `kind` (a class), and the text in them.
const all = (html, tag, kind) => [...html.matchAll(new RegExp(`<${tag} class="${kind}"[^>]*>`, "g"))];
const texts = (html, tag, kind) =>
  [...html.matchAll(new RegExp(`<${tag} class="${kind}"[^>]*>(.*?)</${tag}>`, "g"))].map(([, text]) => text);

test("degrees writes whole angles with a sign, a minus sign for those below 0, and none for 0", () => {
  assert.deepEqual([40, 5, 0, -0, -5, -40, -180].map(degrees), ["+40°", "+5°", "0°", "0°", "−5°", "−40°", "−180°"]);
});

test("the unturned angle is the first of those nearest 0", () => {
  assert.equal(unturned(ANGLES), 2);
  assert.equal(unturned([-25, -15, -5, 5, 15]), 2);
  assert.equal(unturned([3, 10, 20, 30]), 0);
});

test("the first misreads are found going out from no turn, either way", () => {
  const cases = [
    [[7, 7, 7, 7, 7], [], "reads 7 at every angle"],
    [[1, 7, 7, 7, 7], [0], "first reads 1 at −20°"],
    [[7, 7, 7, 7, 2], [4], "first reads 2 at +20°"],
    [[1, 2, 7, 7, 4], [1, 4], "first reads 2 at −10° and 4 at +20°"],
    [[7, 7, 3, 7, 7], [2], "first reads 3 at 0°"],
    [[3, 7, 7, 7, 3], [0, 4], "first reads 3 at −20° and 3 at +20°"],
  ];
  for (const [readings, found, text] of cases) {
    assert.deepEqual(firstMisreads(ANGLES, readings, 7), found, `${readings}`);
    assert.equal(misreadText(ANGLES, readings, 7), text);
  }
  assert.deepEqual(firstMisreads([3, 10, 20, 30], [0, 0, 2, 2], 0), [2]); // no angle below the unturned one
  assert.deepEqual(firstMisreads([], [], 0), []);
});

test("the sweep marks where each network first reads another digit, and says so", () => {
  const html = sweepHtml(swept([1, 7, 7, 7, 7], [1, 7, 7, 2, 2]), null, "not measured");
  assert.match(html, /^<div class="sweep" data-reading="12"><div class="legend">/);
  assert.match(html, /<figcaption>Your 7, turned −20° … \+20°<\/figcaption>/);
  assert.deepEqual(texts(html, "p", "misreads"), [
    '<span class="capsnet">CapsNet first reads 1 at −20°</span>; ' +
      '<span class="cnn">CNN first reads 1 at −20° and 2 at +10°</span>',
  ]);
  assert.equal(all(html, "rect", "misread capsnet").length, 1);
  assert.equal(all(html, "rect", "misread cnn").length, 3);
  assert.deepEqual(texts(html, "text", "misread-digit"), ["1", "1", "2", "2"]);
  assert.deepEqual(texts(html, "line", "first-misread cnn"), [
    "<title>CNN first reads 1 at −20°</title>",
    "<title>CNN first reads 2 at +10°</title>",
  ]);
  const [capsnet, cnn] = [...html.matchAll(/<polyline class="curve \w+" points="([^"]*)">/g)].map(([, p]) => p);
  assert.equal(capsnet, "56.0,110.0 129.5,62.0 203.0,26.0 276.5,50.0 350.0,86.0"); // x over the angles, y over [0, 1]
  assert.equal(cnn.split(" ")[2], "203.0,14.0");
  assert.match(html, /<div class="sweep-empty">not measured<\/div>/);
  assert.doesNotMatch(html, /aria-busy/);
  const steady = sweepHtml(swept([7, 7, 7, 7, 7], [7, 7, 7, 7, 7]), null, "");
  assert.match(steady, /CapsNet reads 7 at every angle/);
  assert.equal(all(steady, "line", "first-misread \\w+").length + all(steady, "rect", "misread \\w+").length, 0);
});

test("a sweep read around 0° so far is busy, its curves, marks and lines at the angles read alone", () => {
  const sweep = swept([1, 7, 7, 7, 2], [1, 7, 3, 2, 2]);
  const far = (k) => Math.abs(ANGLES[k]) > 10; // not read yet
  for (const key of ["lengths", "readings", "probabilities", "cnnReadings"]) {
    sweep[key] = sweep[key].map((value, k) => (far(k) ? undefined : value));
  }
  const html = sweepHtml(sweep, null, "");
  assert.match(html, /^<div class="sweep" data-reading="12" aria-busy="true">/);
  for (const [, points] of html.matchAll(/<polyline class="curve \w+" points="([^"]*)">/g)) {
    assert.equal(points.split(" ").length, 3);
  }
  assert.equal(all(html, "rect", "misread capsnet").length, 0);
  assert.equal(all(html, "rect", "misread cnn").length, 2); // 3 at 0°, 2 at +10°; not 1 at −20°, 2 at +20°
  assert.deepEqual(texts(html, "line", "first-misread cnn"), ["<title>CNN first reads 3 at 0°</title>"]);
  assert.deepEqual(texts(html, "line", "first-misread capsnet"), []);
});

test("no sweep asks for a digit beside MNIST's curve, drawn from its numbers", () => {
  const html = sweepHtml(null, { ...MNIST, images: 10000 }, "");
  assert.match(html, /^<div class="sweep" data-reading=""><div class="legend">/);
  assert.match(html, /<div class="sweep-empty">Draw a digit to see how far either network reads it turned.<\/div>/);
  assert.match(html, /<figcaption>MNIST test digits \(10,000\), turned: accuracy<\/figcaption>/);
  assert.equal(all(html, "polyline", "curve \\w+").length, 2);
  assert.deepEqual(texts(html, "text", "tick"), ["−90°", "−45°", "0°", "+45°", "+90°"]);
  const missing = sweepHtml(null, null, 'MNIST\'s <digits>: not "measured"');
  assert.match(missing, /<div class="sweep-empty">MNIST&#39;s &#60;digits&#62;: not &#34;measured&#34;<\/div>/);
});
