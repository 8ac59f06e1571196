// Turn it's rotation sweep, its one renderer: your digit turned, beside MNIST's test digits turned,
// drawn from numbers, whoever computed them (turn_panel.js, angle by angle: the page's networks or
// the server, page_networks.js decides). A sweep: {reading: the pad's revision of the reading swept, as a string; digit: the
// CapsNet's reading of the unturned drawing; angles: degrees [A]; lengths: the CapsNet's length of
// capsule `digit`, readings: its reading, probabilities: the CNN's probability of `digit`,
// cnnReadings: its reading, each [A], undefined at the angles not read yet, which lie around 0°,
// one after another}. MNIST's curve (turn_views.curve_numbers, measured once for the app's
// weights): {angles [A], capsnet, cnn: each network's accuracy at each angle [A], images: how many
// test digits}. The sweep says which reading it shows (data-reading: a label for the page's tests).

import { escaped } from "./views.js";

// The charts' frame, in SVG units: the plot spans x in [LEFT, RIGHT], y in [TOP, BOTTOM].
const [WIDTH, LEFT, RIGHT, TOP, BOTTOM] = [360, 56, 350, 14, 134];
const READING_ROWS = 30; // under the chart of your digit: a row of each network's readings
// Each network: its CSS class (its colour in every chart), its name, its row's name.
const NETWORKS = [
  ["capsnet", "CapsNet", "caps"],
  ["cnn", "CNN", "cnn"],
];

// Whole degrees: "+40°", "0°", "−40°" (a minus sign, not a hyphen).
export function degrees(angle) {
  return `${angle >= 0 ? "+" : "-"}${Math.abs(angle).toFixed(0)}°`.replace("+0°", "0°").replace("-", "−");
}

// The index of the angle nearest 0, the first of them.
export const unturned = (angles) =>
  angles.reduce((nearest, angle, k) => (Math.abs(angle) < Math.abs(angles[nearest]) ? k : nearest), 0);

// The indices of the first angles, going out from the one nearest 0 either way, at which
// `readings` is not `digit`: none, one or two (the unturned one, if it is misread itself); none
// where no angle is given.
export function firstMisreads(angles, readings, digit) {
  if (angles.length === 0) return [];
  const middle = unturned(angles);
  if (readings[middle] !== digit) return [middle];
  const found = [];
  for (const step of [-1, 1]) {
    let k = middle + step;
    while (k >= 0 && k < angles.length && readings[k] === digit) k += step;
    if (k >= 0 && k < angles.length) found.push(k);
  }
  return found;
}

// "first reads 1 at +40° and 4 at −35°", or that it reads the digit at every angle.
export function misreadText(angles, readings, digit) {
  const found = firstMisreads(angles, readings, digit);
  if (found.length === 0) return `reads ${digit} at every angle`;
  return `first reads ${found.map((k) => `${readings[k]} at ${degrees(angles[k])}`).join(" and ")}`;
}

// firstMisreads among the angles read (`read`, indices into `angles`), as indices into `angles`.
const firstMisreadsAmong = (read, angles, readings, digit) =>
  firstMisreads(
    read.map((k) => angles[k]),
    read.map((k) => readings[k]),
    digit,
  ).map((i) => read[i]);

const xOf = (angle, angles) => LEFT + ((RIGHT - LEFT) * (angle - angles[0])) / (angles.at(-1) - angles[0]);
const yOf = (value) => BOTTOM - (BOTTOM - TOP) * Math.min(Math.max(value, 0), 1);

// The opening of a chart over `angles` (degrees) and [0, 1], `height` high, described by `label`:
// its axes, ticks every 45 degrees.
function frame(angles, height, label) {
  const ticks = [];
  const [low, high] = [angles[0], angles.at(-1)];
  for (let angle = Math.floor(Math.trunc(low) / 45) * 45; angle <= Math.trunc(high); angle += 45) {
    if (angle < low) continue;
    const x = xOf(angle, angles).toFixed(1);
    ticks.push(
      `<line class="grid" x1="${x}" x2="${x}" y1="${TOP}" y2="${BOTTOM}"/>` +
        `<text class="tick" x="${x}" y="${BOTTOM + 12}">${degrees(angle)}</text>`,
    );
  }
  for (const value of [0, 0.5, 1]) {
    const y = yOf(value);
    ticks.push(
      `<line class="grid" x1="${LEFT}" x2="${RIGHT}" y1="${y.toFixed(1)}" y2="${y.toFixed(1)}"/>` +
        `<text class="tick value" x="${LEFT - 4}" y="${(y + 3).toFixed(1)}">${value}</text>`,
    );
  }
  return `<svg class="sweep-chart" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${escaped(label)}">${ticks.join("")}`;
}

// A network's curve through `values` at the angles `shown` (indices into `angles`), titled `title`.
function curve(angles, shown, values, network, title) {
  const points = shown.map((k) => `${xOf(angles[k], angles).toFixed(1)},${yOf(values[k]).toFixed(1)}`).join(" ");
  return `<polyline class="curve ${network}" points="${points}"><title>${escaped(title)}</title></polyline>`;
}

// Your digit turned: the CapsNet's length of the drawn digit's capsule and the CNN's probability of
// that digit at each angle read (`read`, indices), a dashed line where each first reads another
// digit, and under the chart a row of each network's readings, the other digits marked.
function yourChart(sweep, read) {
  const { angles, digit } = sweep;
  const parts = [
    frame(angles, BOTTOM + 20 + READING_ROWS, `your ${digit}, turned`),
    curve(angles, read, sweep.lengths, "capsnet", `CapsNet: length of capsule ${digit}`),
    curve(angles, read, sweep.probabilities, "cnn", `CNN: probability of ${digit}`),
  ];
  const cell = (RIGHT - LEFT) / Math.max(angles.length - 1, 1);
  NETWORKS.forEach(([network, name, rowName], row) => {
    const readings = network === "capsnet" ? sweep.readings : sweep.cnnReadings;
    const y = BOTTOM + 20 + 14 * row;
    parts.push(`<text class="row-name ${network}" x="${LEFT - 4}" y="${y + 9}">${rowName}</text>`);
    for (const k of read) {
      if (readings[k] === digit) continue;
      const x = xOf(angles[k], angles);
      parts.push(
        `<rect class="misread ${network}" x="${(x - cell / 2).toFixed(1)}" y="${y}" width="${cell.toFixed(1)}" height="12"/>` +
          `<text class="misread-digit" x="${x.toFixed(1)}" y="${y + 9}">${readings[k]}</text>`,
      );
    }
    for (const j of firstMisreadsAmong(read, angles, readings, digit)) {
      const x = xOf(angles[j], angles).toFixed(1);
      parts.push(
        `<line class="first-misread ${network}" x1="${x}" x2="${x}" y1="${TOP}" y2="${y + 12}">` +
          `<title>${name} first reads ${readings[j]} at ${degrees(angles[j])}</title></line>`,
      );
    }
  });
  return `${parts.join("")}</svg>`;
}

// MNIST's test digits turned: each network's accuracy at each angle; or `missing`, why there is none.
function theirsHtml(mnist, missing) {
  if (mnist === null) return `<div class="sweep-empty">${escaped(missing)}</div>`;
  const all = mnist.angles.map((_, k) => k);
  return (
    `<figcaption>MNIST test digits (${mnist.images.toLocaleString("en-US")}), turned: accuracy</figcaption>` +
    frame(mnist.angles, BOTTOM + 20, "accuracy on MNIST's test digits, turned") +
    curve(mnist.angles, all, mnist.capsnet, "capsnet", "CapsNet: accuracy") +
    curve(mnist.angles, all, mnist.cnn, "cnn", "CNN: accuracy") +
    "</svg>"
  );
}

// Your digit's chart, and what each network first misreads it as, at the angles read so far.
function mineHtml(sweep, read) {
  const { angles, digit } = sweep;
  const [capsnet, cnn] = [sweep.readings, sweep.cnnReadings].map((readings) =>
    misreadText(
      read.map((k) => angles[k]),
      read.map((k) => readings[k]),
      digit,
    ),
  );
  return (
    `<figcaption>Your ${digit}, turned ${degrees(angles[0])} … ${degrees(angles.at(-1))}</figcaption>` +
    `${yourChart(sweep, read)}<p class="misreads"><span class="capsnet">CapsNet ${capsnet}</span>; ` +
    `<span class="cnn">CNN ${cnn}</span></p>`
  );
}

// The rotation sweep: the legend, your digit's chart (`sweep`; null: the prompt to draw) beside
// MNIST's (`mnist`; null: `missing`, why there is none). A sweep not read at every angle is marked
// busy, and its sentence waits (playground.css).
export function sweepHtml(sweep, mnist, missing) {
  const legend =
    '<span class="key capsnet">CapsNet: length of the drawn digit\'s capsule</span>' +
    '<span class="key cnn">CNN: probability of the drawn digit</span>';
  const read = sweep === null ? [] : sweep.angles.flatMap((_, k) => (sweep.readings[k] === undefined ? [] : [k]));
  const busy = sweep !== null && read.length < sweep.angles.length ? ' aria-busy="true"' : "";
  const mine =
    sweep === null
      ? '<div class="sweep-empty">Draw a digit to see how far either network reads it turned.</div>'
      : mineHtml(sweep, read);
  return (
    `<div class="sweep" data-reading="${escaped(sweep?.reading ?? "")}"${busy}><div class="legend">${legend}</div>` +
    `<figure class="mine">${mine}</figure><figure class="theirs">${theirsHtml(mnist, missing)}</figure></div>`
  );
}
