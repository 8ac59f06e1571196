// The pad's ink, which the page makes 28x28 once for its networks and, where the server reads, for
// the server (page_networks.js): for a pad of one pen, the background (an example's 28x28 ink)
// enlarged bilinearly, then the strokes over it, every pixel whose centre lies within BRUSH / 2 of
// a stroke full ink (stroke_mask.js); for a pad of several (`penInks`), each pen's ink so, from its
// layer of the background and its own strokes. `facts` are Python's numbers
// (playground/reading.py `PREPROCESSING`).

import { enlargeBytes } from "./resample.js";
import { strokeMask } from "./stroke_mask.js";

// `strokes`: flat [x0, y0, x1, y1, ...] arrays in pad units; `background`: background_side² ink
// values 0..255, or null. Float32Array [side * side] in [0, 1].
export function inks(strokes, background, { side, brush, background_side }) {
  const ink = new Float32Array(side * side);
  if (background) {
    const enlarged = enlargeBytes(Uint8Array.from(background), background_side, side);
    for (let k = 0; k < ink.length; k++) ink[k] = enlarged[k] / 255;
  }
  const mask = new Uint8Array(side * side);
  for (const stroke of strokes) strokeMask(mask, stroke.map(Math.fround), side, brush); // the server reads float32
  for (let k = 0; k < ink.length; k++) if (mask[k]) ink[k] = 1;
  return ink;
}

// Each pen's ink of a pad of `count` pens: `pens` gives each stroke's pen (a string of digits, as
// the pad's value has it, or numbers); `background`: count * background_side² ink values 0..255,
// one layer a pen, or null. [Float32Array [side * side]], one a pen.
export function penInks(strokes, pens, background, count, facts) {
  const layer = facts.background_side ** 2;
  return Array.from({ length: count }, (_, pen) =>
    inks(
      strokes.filter((_, k) => Number(pens[k]) === pen),
      background?.slice(pen * layer, (pen + 1) * layer) ?? null,
      facts,
    ),
  );
}
