// The routing view, drawn in the page (playground/routing_section.py lays it out; gr.HTML gives
// `element`, `props` and `watch`): a heatmap of where the winner's votes come from laid over the
// digit, the capsule lengths after each number of routing iterations r, and how well the winner's
// and the runner-up's voters agree (Sabour et al. 2017, section 2, routing by agreement).
//
// One renderer (`drawRouting`), from the numbers of the reading panel's reading once the pen is up
// (reading_store.js `reading`; page_networks.js readDrawing: the page's worker or the server):
// {revision, image: the network's input [28 * 28], lengths: |v_j| after each r [R][10], agreements
// [R][10], winnerShares: after each r, each primary capsule's share c_ij |u_hat_j|i| of the votes
// for that r's winner [R * 1152]}. Every r comes with them, so the two controls (r, and one
// primary capsule type or all) redraw here and send nothing.
// props.facts: the network's image size, primary capsule types and grid, and their receptive
// fields (routing_section.facts).

import { reading as readings } from "./reading_store.js";
import { argmax } from "./views.js";

const ALL_TYPES = -1;
const SCALE = 10; // display pixels per input pixel: 280 x 280
// White paper through ColorBrewer's YlOrRd to dark red: no vote leaves the paper white.
const COLOURS = [
  [255, 255, 255],
  [254, 217, 118],
  [253, 141, 60],
  [227, 26, 28],
  [128, 0, 38],
];
const INK = [20, 20, 60]; // the digit's strokes, drawn over the cells
const INK_OPACITY = 0.75; // the cells stay visible through the strokes
const FIELD_OUTLINE = [33, 102, 172]; // blue: the strongest position's receptive field

// The display-pixel edges of the grid's cells along one axis [grid + 1]: cell k is as wide as the
// stride and centred on its receptive field's centre, so the cells tile the middle of the image.
export function cellEdges({ receptive_field, stride, grid }, scale) {
  const twiceFirst = receptive_field - stride;
  return Array.from({ length: grid + 1 }, (_, k) => Math.floor((scale * (twiceFirst + 2 * stride * k)) / 2));
}

// A value in [0, 1] as the colour scale's RGB, linear between its stops.
function colourOf(value) {
  const position = Math.min(Math.max(value, 0), 1) * (COLOURS.length - 1);
  const low = Math.min(Math.floor(position), COLOURS.length - 2);
  const fraction = position - low;
  return [0, 1, 2].map((c) => (1 - fraction) * COLOURS[low][c] + fraction * COLOURS[low + 1][c]);
}

// How much of the winner's votes each grid position sends, after iteration index `k`, over all
// the capsule types or one: [grid * grid] (capsnet.routing.vote_heatmap).
export function voteHeat({ types, grid }, winnerShares, k, capsuleType) {
  const positions = grid * grid;
  const shares = winnerShares.subarray(k * types * positions, (k + 1) * types * positions);
  const heat = new Float64Array(positions);
  for (let t = 0; t < types; t++) {
    if (capsuleType !== ALL_TYPES && t !== capsuleType) continue;
    for (let p = 0; p < positions; p++) heat[p] += shares[t * positions + p];
  }
  return heat;
}

// The heatmap laid over the digit, RGBA [(28 * scale)² * 4]: each grid position a square at the
// centre of the patch it sees, white for no vote, orange for an average position's share, dark red
// for twice that or more; the digit's strokes over the cells, and the strongest position's receptive
// field outlined in blue.
export function heatmapPixels(facts, image, heat, scale = SCALE) {
  const side = facts.image_size * scale;
  const grid = facts.grid;
  const mean = heat.reduce((a, b) => a + b, 0) / heat.length;
  const cellOf = new Int32Array(side).fill(-1); // display pixel -> grid index, or -1 outside
  const edges = cellEdges(facts, scale);
  for (let k = 0; k < grid; k++) cellOf.fill(k, edges[k], edges[k + 1]);
  const colours = mean > 0 ? Array.from(heat, (value) => colourOf(value / (2 * mean))) : []; // each cell's, once
  const paper = [255, 255, 255];
  const pixels = new Uint8ClampedArray(side * side * 4);
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      const cell = mean > 0 && cellOf[y] >= 0 && cellOf[x] >= 0;
      const under = cell ? colours[cellOf[y] * grid + cellOf[x]] : paper;
      const ink =
        INK_OPACITY * Math.min(Math.max(image[Math.floor(y / scale) * facts.image_size + Math.floor(x / scale)], 0), 1);
      const at = 4 * (y * side + x);
      for (let c = 0; c < 3; c++) pixels[at + c] = Math.round((1 - ink) * under[c] + ink * INK[c]);
      pixels[at + 3] = 255;
    }
  }
  if (mean > 0) outline(pixels, side, facts, heat, scale);
  return pixels;
}

// The receptive field of the strongest grid position outlined, two display pixels wide.
function outline(pixels, side, { grid, stride, receptive_field }, heat, scale) {
  const strongest = heat.indexOf(Math.max(...heat));
  const top = scale * stride * Math.floor(strongest / grid);
  const left = scale * stride * (strongest % grid);
  const [bottom, right] = [top + scale * receptive_field, left + scale * receptive_field];
  const paint = (y, x) => pixels.set(FIELD_OUTLINE, 4 * (y * side + x));
  for (let y = top; y < bottom; y++) for (const x of [left, left + 1, right - 2, right - 1]) paint(y, x);
  for (const y of [top, top + 1, bottom - 2, bottom - 1]) for (let x = left; x < right; x++) paint(y, x);
}

const runnerUpOf = (values) => argmax(values.map((value, k) => (k === argmax(values) ? -1 : value)));

// The lengths after each r as a table of bars, the winner of each row in bold, row `iterations` outlined.
function lengthsTable(lengths, iterations) {
  const header = lengths[0].map((_, digit) => `<th>${digit}</th>`).join("");
  const rows = lengths.map((row, k) => {
    const winner = argmax(row);
    const cells = row
      .map((length, digit) => {
        const percent = (100 * length).toFixed(0);
        const bold = digit === winner ? "font-weight:700" : "";
        return `<td style="background:linear-gradient(to top,rgba(227,26,28,.45) ${percent}%,transparent ${percent}%);${bold}">${length.toFixed(2)}</td>`;
      })
      .join("");
    const chosen = k + 1 === iterations ? ' class="chosen"' : "";
    return `<tr${chosen}><th>r = ${k + 1}</th>${cells}<td><b>${winner}</b></td></tr>`;
  });
  return (
    `<table class="routing"><tr><th>iterations</th>${header}<th>reads</th></tr>${rows.join("")}</table>` +
    "<small>Capsule lengths |v<sub>j</sub>| for each number of routing iterations r.</small>"
  );
}

// The winner's and the runner-up's agreement after r iterations, and what the map shows.
function agreementText(numbers, iterations, capsuleType, types) {
  const k = iterations - 1;
  const winner = argmax(numbers.lengths[k]);
  const runnerUp = runnerUpOf(numbers.lengths[k]);
  const agreements = numbers.agreements[k];
  const shown = capsuleType === ALL_TYPES ? `all ${types} capsule types` : `capsule type ${capsuleType} only`;
  return (
    `<p class="agreement"><b>Agreement</b> at r = ${iterations} (the mean cosine between each vote ` +
    "û<sub>j|i</sub> and the output v<sub>j</sub>, each vote weighted by its share c<sub>ij</sub>|û<sub>j|i</sub>|; " +
    `1 = all voters agree): winner <b>${winner}</b>: <b>${agreements[winner].toFixed(2)}</b> · ` +
    `runner-up ${runnerUp}: ${agreements[runnerUp].toFixed(2)}</p>` +
    `<p>The map shows where the votes for <b>${winner}</b> come from (${shown}): each square is one of the ` +
    "6x6 primary-capsule positions, drawn at the centre of the 17x17 patch of your digit that it sees (the " +
    "strongest one's patch is outlined in blue), coloured by its share c<sub>ij</sub>|û<sub>j|i</sub>| of " +
    "the votes: orange = an average share, dark red = twice that or more, white = none.</p>"
  );
}

// The routing view `view` drawn from `numbers` (null: the prompt to draw), at `iterations` r and
// `capsuleType` (ALL_TYPES or one).
export function drawRouting(view, numbers, { iterations, capsuleType }, facts) {
  if (numbers === null) {
    view.className = "routing-view empty";
    view.textContent = "Draw a digit to see how its votes are routed.";
    return;
  }
  view.className = "routing-view";
  view.dataset.revision = numbers.revision;
  view.innerHTML =
    '<figure><figcaption>Votes for the winner, over your digit</figcaption><canvas class="heatmap" role="img"' +
    ' aria-label="where the votes for the winner come from"></canvas></figure>' +
    `<div class="routing-numbers">${lengthsTable(numbers.lengths, iterations)}` +
    `${agreementText(numbers, iterations, capsuleType, facts.types)}</div>`;
  const canvas = view.querySelector("canvas");
  const side = facts.image_size * SCALE;
  canvas.width = side;
  canvas.height = side;
  const heat = voteHeat(facts, numbers.winnerShares, iterations - 1, capsuleType);
  const pixels = heatmapPixels(facts, numbers.image, heat);
  canvas.getContext("2d").putImageData(new ImageData(pixels, side, side), 0, 0);
}

export function mount({ element, props }) {
  const facts = props.facts;
  const view = element.querySelector(".routing-view");
  const [iterationsInput, typeInput] = element.querySelectorAll("input[type=range]");
  let shown = null; // the numbers drawn

  const choice = () => ({ iterations: Number(iterationsInput.value), capsuleType: Number(typeInput.value) });
  function render() {
    iterationsInput.previousElementSibling.textContent = iterationsInput.value;
    typeInput.previousElementSibling.textContent = typeInput.value === String(ALL_TYPES) ? "all" : typeInput.value;
    drawRouting(view, shown, choice(), facts);
  }
  const show = (numbers) => {
    shown = numbers;
    render();
  };

  // The reading panel's reading, once routed (the pen up); none for too little ink.
  function follow(reading) {
    if (reading === null || reading.image === null) show(null);
    else if (reading.routing) show({ revision: reading.revision, image: reading.image, ...reading.routing });
  }
  readings.subscribe(follow);
  for (const input of [iterationsInput, typeInput]) input.addEventListener("input", render);
  follow(readings.current());
}
