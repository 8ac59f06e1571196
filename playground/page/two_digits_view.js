// The Two-digits panel's one renderer: a reading of one digit or two drawn from its numbers,
// whoever computed them (two_digits_reading.js `pairReading` in the page, or the server's answer:
// page_networks.js decides). A pair: {revision: the two-pen pad's revision read, read: the
// CapsNet's digits [1 or 2], the longer capsule first, second: its second-longest capsule, secondInk: the share of the ink only that capsule's redrawing covers, rule: {second, secondInk}
// (capsnet.digit_count.CountRule; secondInk null where the rule has no ink line), lengths [10],
// probabilities: the CNN's [10], cnnRead, cnnRule, image: the networks' input, layers: each pen's
// ink in it [2], redrawn: each digit read redrawn from its own capsule alone [1 or 2] (ink [28 * 28]
// in [0, 1] each), colours: each digit read's colour, penColours [2] ("#rrggbb"), decoded: a capsule
// Decode as chose that is not one read, or null, decodedRedrawn: its picture, or null}. The panel
// says which drawing it shows (data-revision, data-read: labels for the page's styles and its tests).

import { figure5, tinted } from "./two_digits_tinted.js";
import { colourPictureUrl, escaped, lengthsSvg, messageHtml } from "./views.js";

const CNN_COLOUR = "#7f7f7f"; // the CNN's digits read, among its ten bars

// A picture of `rgb` (3 numbers 0..255 a pixel) shown large and crisp, described by `alt`.
const colourPicture = (rgb, alt, css = "picture") =>
  `<img class="${css}" src="${colourPictureUrl(rgb)}" alt="${escaped(alt)}">`;

// A score, an ink share or a line as a count rule compares it: in float32
// (capsnet/digit_count.py `as_compared`).
const asCompared = Math.fround;

// `value` and `line` times `scale`, written with `decimals` places and `unit`, or with as many more
// places as it takes for the written value to stand on the written line's side that the value
// stands on: a share of 0.0296 beside a line of 0.03 is "2.96%" and "3.00%", never "3.0%" below
// "3.0%". (A value at or above its line is never written below it: rounding keeps the order.)
export function besideItsLine(value, line, decimals, scale = 1, unit = "") {
  const [scaled, scaledLine] = [scale * value, scale * line];
  let places = decimals;
  while (scaled < scaledLine && Number(scaled.toFixed(places)) >= Number(scaledLine.toFixed(places))) places += 1;
  return [`${scaled.toFixed(places)}${unit}`, `${scaledLine.toFixed(places)}${unit}`];
}

const side = (value, line) => (value >= line ? "at or above" : "below");

// Why the CapsNet read one digit or two: its second-longest capsule's length, and the ink only that
// capsule's redrawing covers, each against its line as the rule compares them, each figure written
// on its line's true side (besideItsLine).
function countNote(pair) {
  const { rule } = pair;
  const [second, secondLine] = [asCompared(pair.lengths[pair.second]), asCompared(rule.second)];
  const [length, lengthLine] = besideItsLine(second, secondLine, 2);
  let why =
    `the second-longest capsule, <b>${pair.second}</b>, is ${length} long ` +
    `(${side(second, secondLine)} ${lengthLine})`;
  if (rule.secondInk !== null) {
    const [ink, inkLine] = [asCompared(pair.secondInk), asCompared(rule.secondInk)];
    const [share, shareLine] = besideItsLine(ink, inkLine, 1, 100, "%");
    why += ` and its redrawing covers ${share} of the ink that the ${pair.read[0]}'s leaves (${side(ink, inkLine)} ${shareLine})`;
  }
  const lines = rule.secondInk === null ? "the line between one digit and two" : "the lines between one digit and two";
  const [count, said] = pair.read.length === 2 ? [2, "Two digits read"] : [1, "One digit read"];
  return `<p class="count" data-count="${count}">${said}: ${why}; ${lines} chosen on validation examples.</p>`;
}

// The capsule Decode as chose, not one read, redrawn; nothing where there is none.
function decodedHtml(pair) {
  if (pair.decoded === null) return "";
  return (
    `<figure class="decoded"><figcaption>Capsule ${pair.decoded} redrawn (not read: ` +
    `${pair.lengths[pair.decoded].toFixed(2)} long)</figcaption>` +
    `${colourPicture(tinted([pair.decodedRedrawn], ["#000000"]), `capsule ${pair.decoded} redrawn`)}</figure>`
  );
}

// The panel: the digits read, each in its pen's colour and redrawn alone from its own capsule; what
// the networks see, each pen's ink in its colour; the digits redrawn over the input (the paper's
// Figure 5); the lengths, the digits read marked and the rule's line; the capsule Decode as chose;
// the CNN's probabilities and reading; why one digit or two. For no pair (null), `prompt`; for
// {message}, why there is none.
export function pairHtml(pair, prompt) {
  if (pair === null) return `<div class="pair empty">${escaped(prompt)}</div>`;
  if (pair.message !== undefined) return messageHtml(pair.message);
  const { read, colours, lengths } = pair;
  const digits = read
    .map((digit, k) => `<span class="digit" style="color: ${escaped(colours[k])}">${digit}</span>`)
    .join('<span class="and">&amp;</span>');
  const redrawn = read
    .map((digit, k) =>
      colourPicture(
        tinted([pair.redrawn[k]], [colours[k]]),
        `${digit} redrawn from its own capsule`,
        "picture redrawn",
      ),
    )
    .join("");
  const readLengths = read.map((digit) => lengths[digit].toFixed(2)).join(" and ");
  const marked = Object.fromEntries(read.map((digit, k) => [digit, colours[k]]));
  const cnnMarked = Object.fromEntries(pair.cnnRead.map((digit) => [digit, CNN_COLOUR]));
  return (
    `<div class="pair" data-revision="${escaped(pair.revision)}" data-read="${read.join("")}">` +
    `<div class="pair-reading"><div class="digits">${digits}</div>` +
    `<div class="redrawn-pair">${redrawn}</div>` +
    `<div class="caption">capsule length${read.length > 1 ? "s" : ""} ${readLengths}</div></div>` +
    '<figure class="pair-input"><figcaption>What the networks see (28x28; the colours are only for you)</figcaption>' +
    `${colourPicture(tinted(pair.layers, pair.penColours), "the 28x28 image both networks read")}</figure>` +
    '<figure class="figure5"><figcaption>Each capsule redraws its own digit (the paper\'s Figure 5)</figcaption>' +
    `${colourPicture(figure5(pair.image, pair.redrawn, colours), "the digits read redrawn over the input")}</figure>` +
    '<figure class="pair-bars"><figcaption>Capsule lengths: the longest, and the second where it reaches the ' +
    "line and its redrawing covers ink of its own (below), are the digits read</figcaption>" +
    `${lengthsSvg(lengths, null, "lengths of the digit capsules", { marked, line: pair.rule.second })}</figure>` +
    decodedHtml(pair) +
    `<figure class="pair-cnn"><figcaption>The CNN trained on the same examples reads <b>${pair.cnnRead.join(" &amp; ")}</b> ` +
    `(ten independent probabilities, the second counted from ${pair.cnnRule.second.toFixed(2)})</figcaption>` +
    `${lengthsSvg(pair.probabilities, null, "the CNN probabilities", { marked: cnnMarked, line: pair.cnnRule.second })}` +
    `</figure>${countNote(pair)}</div>`
  );
}
