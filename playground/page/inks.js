// Ports playground/drawing_pad.py `inks` for a pad of one pen: the background (an example's 28x28
// ink) enlarged as Pillow enlarges it, then the strokes over it, every pixel whose centre lies
// within BRUSH / 2 of a stroke full ink (`stroke_mask`). `facts` are Python's numbers
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
