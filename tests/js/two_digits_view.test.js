import assert from "node:assert/strict";
import { test } from "node:test";
import { figure5, tinted } from "../../playground/page/two_digits_tinted.js";
import { besideItsLine, pairHtml } from "../../playground/page/two_digits_view.js";
import { rgbLevels } from "./grey_canvas.js";

const [BLUE, ORANGE] = ["#1f6fd1", "#e66100"];
const levels = (first) => Uint8Array.from({ length: 784 }, (_, k) => (first + k) % 256);
const inkOf = (bytes) => Float32Array.from(bytes, (level) => level / 255);

// A reading of a 7 with pen 1 and a 1 with pen 2, both read, as the panel draws it
// (two_digits_reading.js `pairReading`), with `changes`.
function pairRead(changes = {}) {
  return {
    revision: 12,
    read: [7, 1],
    second: 1,
    secondInk: 0.21,
    rule: { second: 0.34, secondInk: 0.05 },
    lengths: [0.05, 0.88, 0.1, 0.15, 0.0493, 0.2, 0.25, 0.93, 0.3, 0.35],
    probabilities: [0.01, 0.97, 0, 0, 0, 0, 0, 0.99, 0, 0.1],
    cnnRead: [7, 1],
    cnnRule: { second: 0.22, secondInk: null },
    image: inkOf(levels(0)),
    layers: [inkOf(levels(30)), inkOf(levels(60))],
    redrawn: [inkOf(levels(100)), inkOf(levels(200))],
    colours: [BLUE, ORANGE],
    penColours: [BLUE, ORANGE],
    decoded: null,
    decodedRedrawn: null,
    ...changes,
  };
}

test("a pair is drawn with its digits in their pens' colours, its lengths, the rule's lines and the CNN", () => {
  const html = pairHtml(pairRead(), "Draw");
  assert.match(html, /^<div class="pair" data-revision="12" data-read="71">/);
  assert.ok(
    html.includes(
      `<div class="digits"><span class="digit" style="color: ${BLUE}">7</span><span class="and">&amp;</span>` +
        `<span class="digit" style="color: ${ORANGE}">1</span></div>`,
    ),
  );
  assert.match(html, /<div class="caption">capsule lengths 0.93 and 0.88<\/div>/);
  assert.equal(html.match(/<img class="picture redrawn"/g).length, 2);
  assert.match(html, /<figure class="pair-input">.*<figure class="figure5">.*<figure class="pair-bars">/);
  assert.match(html, /<figure class="pair-bars">.*<figure class="pair-cnn">.*<p class="count" data-count="2">/);
  const [capsnet, cnn] = html.match(/<svg.*?<\/svg>/g);
  assert.match(capsnet, new RegExp(`<rect class="bar" style="fill: ${BLUE}" x="218.0" y="19.0"`)); // the 7, 0.93
  assert.match(capsnet, new RegExp(`<rect class="bar" style="fill: ${ORANGE}" x="38.0" y="24.0"`)); // the 1, 0.88
  assert.equal(capsnet.match(/style="fill/g).length, 2);
  assert.match(capsnet, /<line x1="4" x2="306" y1="78.0" y2="78.0" class="threshold"\/>/); // 0.34
  assert.match(html, /reads <b>7 &amp; 1<\/b> \(ten independent probabilities, the second counted from 0.22\)/);
  assert.match(cnn, /aria-label="the CNN probabilities"/);
  assert.match(cnn, /y1="90.0" y2="90.0" class="threshold"/); // 0.22
  assert.equal(cnn.match(/style="fill: #7f7f7f"/g).length, 2);
});

test("two digits read: the sentence gives the second capsule and its ink, each against its line", () => {
  const html = pairHtml(pairRead(), "Draw");
  assert.ok(
    html.endsWith(
      '<p class="count" data-count="2">Two digits read: the second-longest capsule, <b>1</b>, is 0.88 long ' +
        "(at or above 0.34) and its redrawing covers 21.0% of the ink that the 7's leaves (at or above 5.0%); " +
        "the lines between one digit and two chosen on validation examples.</p></div>",
    ),
  );
});

// The sentence of a reading of one 3 whose second capsule, a 5, is `second` long and whose
// redrawing covers `secondInk` of the ink, counted by `rule` ({second, secondInk}).
function note(second, secondInk, rule) {
  const lengths = [0, 0, 0, 0.95, 0, second, 0, 0, 0, 0];
  const one = { read: [3], second: 5, secondInk, rule, lengths, colours: [BLUE] };
  const pair = pairRead({ ...one, redrawn: [inkOf(levels(0))] });
  return pairHtml(pair, "").match(/<p class="count".*<\/p>/)[0];
}

test("each figure is written on its line's true side, with more places where it takes them", () => {
  const rule = { second: 0.5, secondInk: 0.03 };
  let said = note(0.62, 0.0296, rule); // once said 3.0% (below 3.0%)
  assert.match(said, /^<p class="count" data-count="1">One digit read: the second-longest capsule, <b>5<\/b>, is/);
  assert.ok(said.includes("covers 2.96% of the ink that the 3's leaves (below 3.00%)") && !said.includes("3.0%"));
  said = note(0.4999, 0.05, rule);
  assert.ok(said.includes("is 0.4999 long (below 0.5000)"), said);
  assert.ok(said.includes("covers 5.0% of the ink that the 3's leaves (at or above 3.0%)"), said);
  said = note(0.5, 0.03, rule); // on the line: at or above, as written
  assert.ok(said.includes("is 0.50 long (at or above 0.50)"), said);
  assert.ok(said.includes("covers 3.0% of the ink that the 3's leaves (at or above 3.0%)"), said);
  assert.deepEqual(besideItsLine(0.12345, 0.1235, 2), ["0.12345", "0.12350"]);
  assert.deepEqual(besideItsLine(0.996, 0.99, 2), ["1.00", "0.99"]); // above its line: rounding keeps the order
});

test("a reading on its line in float32 is described as the rule counts it, not as float64 compares", () => {
  const [second, ink] = [Math.fround(0.02), Math.fround(0.03)]; // each below its line in float64
  assert.ok(second < 0.02 && ink < 0.03);
  const said = note(second, ink, { second: 0.02, secondInk: 0.03 });
  assert.ok(said.includes("is 0.02 long (at or above 0.02)"), said);
  assert.ok(said.includes("covers 3.0% of the ink that the 3's leaves (at or above 3.0%)"), said);
});

test("a rule with no ink line says the second capsule's length alone", () => {
  const said = note(0.4, 0.5, { second: 0.5, secondInk: null });
  assert.equal(
    said,
    '<p class="count" data-count="1">One digit read: the second-longest capsule, <b>5</b>, is 0.40 long ' +
      "(below 0.50); the line between one digit and two chosen on validation examples.</p>",
  );
});

test("the capsule Decode as chose is redrawn only where it is given, in the server's grey levels", () => {
  assert.doesNotMatch(pairHtml(pairRead(), ""), /class="decoded"/);
  const html = pairHtml(pairRead({ decoded: 4, decodedRedrawn: inkOf(levels(50)) }), "");
  assert.match(html, /<figure class="decoded"><figcaption>Capsule 4 redrawn \(not read: 0.05 long\)<\/figcaption>/);
  const paper = Array.from(levels(50), (level) => [255 - level, 255 - level, 255 - level]).flat();
  assert.deepEqual(rgbLevels(html, "capsule 4 redrawn"), paper);
});

test("the pictures are the inks tinted: each digit in its colour, the input in the pens', Figure 5", () => {
  const html = pairHtml(pairRead(), "");
  const ink = (first) => inkOf(levels(first));
  const seven = rgbLevels(html, "7 redrawn from its own capsule");
  assert.deepEqual(seven, Array.from(tinted([ink(100)], [BLUE])));
  assert.deepEqual(seven.slice(3 * 155, 3 * 157), [0x1f, 0x6f, 0xd1, 255, 255, 255]); // levels 255 and 0
  assert.deepEqual(rgbLevels(html, "1 redrawn from its own capsule"), Array.from(tinted([ink(200)], [ORANGE])));
  const input = rgbLevels(html, "the 28x28 image both networks read");
  assert.deepEqual(input, Array.from(tinted([ink(30), ink(60)], [BLUE, ORANGE])));
  const figure = rgbLevels(html, "the digits read redrawn over the input");
  assert.deepEqual(figure, Array.from(figure5(ink(0), [ink(100), ink(200)], [BLUE, ORANGE])));
});

test("no pair asks for two digits; a message says why; their text escaped", () => {
  assert.equal(pairHtml(null, "Draw <two>"), '<div class="pair empty">Draw &#60;two&#62;</div>');
  const message = pairHtml({ message: "Cannot read <these>" }, "");
  assert.equal(message, '<div class="panel message" role="alert">Cannot read &#60;these&#62;</div>');
});
