// The paper's Figure 4, drawn in the page (playground/dimensions_section.py lays it out; gr.HTML
// gives `element` and `props`): one row per dimension of the capsule the sliders move, its
// name, then the digit redrawn at each offset of the sweep over the slider's range (Sabour et al.
// 2017, section 5.1).
//
// Its pictures are the decoder's, for the capsule the dimension sliders follow (reading_store.js
// `decoding`): 176 decoder runs (page_networks.js sweepOf: the page's worker or the server).
// props.ends: each range's sweep, for the heading; props.gap_ink: the ink of the faint gap between
// two pictures of a strip.

import { newestOnly } from "./newest_only.js";
import { sweepOf } from "./page_networks.js";
import { decoding } from "./reading_store.js";
import { escaped, messageHtml, pictureUrl } from "./views.js";

const STEPS = 11; // the sweep's offsets a dimension (capsnet.dimensions.SWEEP)
const EMPTY = "<b>Figure 4</b>: draw a digit to see what each of its dimensions does.";

// Figure 4's drawings under way (newest_only.js), for drawn().
const drawings = new Set();

// A promise of the moment Figure 4 has drawn every sweep asked of it so far (the tests' and
// benchmarks' way to wait).
export const drawn = () => Promise.all([...drawings].map((drawing) => drawing.done()));

// One dimension's pictures (`pictures`, [steps * side²]) side by side, a pixel of `gapInk` between
// two, as one picture of ink [side * (steps * (side + 1) - 1)] (figure4_views.strips).
export function strip(pictures, steps, side, gapInk) {
  const width = steps * (side + 1) - 1;
  const ink = new Float32Array(side * width).fill(gapInk);
  for (let s = 0; s < steps; s++) {
    for (let y = 0; y < side; y++) {
      const row = pictures.subarray((s * side + y) * side, (s * side + y + 1) * side);
      ink.set(row, y * width + s * (side + 1));
    }
  }
  return { ink, width };
}

// Figure 4 in `element` from `value` ({revision, rows: [{label}], strips: a PNG data URL a row, in
// the order shown, width: a strip's pixels across}), its heading's ends `ends` ("-0.25 … +0.25");
// the prompt to draw for none, and why not for {message}.
export function drawFigure4(element, value, ends) {
  if (!value?.rows) {
    const why = value?.message; // else nothing drawn yet (Gradio's empty value: null or "")
    element.innerHTML = why ? messageHtml(why) : `<div class="figure4 empty">${EMPTY}</div>`;
    return;
  }
  const [low, high] = ends.split(" … ");
  const rows = value.rows.map(
    ({ label }, k) =>
      `<tr><th scope="row">${escaped(label)}</th><td><img src="${value.strips[k]}" alt="${escaped(label)}, swept"></td></tr>`,
  );
  element.innerHTML =
    `<table class="figure4" style="--figure4-strip-width: ${value.width}">` +
    "<caption>Figure 4: each row one dimension, swept over its slider's range</caption>" +
    `<tr><th></th><th class="offsets"><span>${escaped(low)}</span><span>0</span><span>${escaped(high)}</span></th></tr>` +
    `${rows.join("")}</table>`;
  element.firstElementChild.dataset.revision = value.revision;
}

export function mount({ element, props }) {
  // The pictures of the capsule the sliders follow, the newest asked for first.
  const draw = newestOnly(
    async (followed) => {
      const { capsules, digit, rows, range, revision } = followed;
      const limits = [];
      for (const row of rows) limits[row.dimension] = row.limit;
      const pictures = await sweepOf(capsules, digit, limits, STEPS);
      if (decoding.current() !== followed) return; // the sliders follow another capsule by now
      const side = Math.sqrt(pictures.length / (limits.length * STEPS));
      const each = STEPS * side * side;
      const strips = rows.map(({ dimension }) => {
        const { ink, width } = strip(
          pictures.subarray(dimension * each, (dimension + 1) * each),
          STEPS,
          side,
          props.gap_ink,
        );
        return pictureUrl(ink, width);
      });
      drawFigure4(element, { revision, rows, strips, width: STEPS * (side + 1) - 1 }, props.ends[range]);
    },
    (error) => drawFigure4(element, { message: `Cannot show Figure 4: ${error.message}` }, ""),
  );
  drawings.add(draw);

  const follow = (followed) => {
    if (followed === null) drawFigure4(element, null, "");
    else draw(followed);
  };
  decoding.subscribe(follow);
  follow(decoding.current());
}
