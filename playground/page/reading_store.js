// What the page shows, in one place: the panels publish here what they made, and the panels that
// follow it subscribe here, instead of looking into one another's elements; and here a control
// says what it asks of a panel. Whoever computed the numbers (the page's networks or the server:
// page_networks.js decides), a panel publishes and draws them alike. Each topic's value is null
// where there is nothing (yet) to say:
//
// - `shown`, published by the reading panel (reading_panel.js) whenever it comes to show another
//   reading, or the same one decoded otherwise: {revision: the pad's revision read, settled: the
//   pen is up, image: the network's input [28 * 28], lengths: |v_j| [10], capsules: v [10 * 16],
//   winner, runnerUp, decoded: the capsule the reconstruction is drawn from, id: a number no other
//   reading shown has}, or {revision: null, settled, id} where it shows no reading. Turn it follows
//   it.
// - `reading`, published by the reading panel for every reading it makes: {revision: the pad's
//   revision read, penUp: the stroke ended, image: the network's input [28 * 28], capsules: v
//   [10 * 16], lengths: |v_j| [10], and once the pen is up, routing: the routing view's numbers
//   (page_networks.js readDrawing)}, or {revision, penUp, image: null} where the drawing had too
//   little ink. The routing view follows it.
// - `decoding`, published by the dimension sliders (dimension_sliders.js) for the capsule they
//   follow: {key: what tells two apart, revision, capsules, digit: the capsule decoded, range: the
//   sliders' range, rows: [{dimension, label, limit}] in the order shown}, or null where they
//   follow none. Figure 4 follows it.
// - `settled`, published by the reading panel for each finished drawing it shows: {revision: the
//   pad's revision as a string, "" where nothing was read}. Turn it follows it.
// - `decodeAs`, published when Decode as or the sliders' range changes (reading_panel.js
//   redrawAs): {digit: "winner" or a digit, range}. The sliders follow it.
// - `shownCapsule`, published by the reading panel whenever it comes to show a capsule: {reading:
//   the reading shown (`shown`), capsules, digit: the capsule decoded, atZero: the reconstruction
//   shown unmoved, penDown: a reading made while the pen is down}, or {reading: null, penDown}
//   where it shows none. The sliders follow it.
// - `padsOnScreen`, published by each drawing pad (drawing_pad.js) as it comes onto the screen and
//   leaves it: {id: whether on the screen} of every pad, by its component's id. The strips follow
//   it (strip.js).
// - `turnSweep`, published by the turn panel (turn_panel.js) as it sweeps a settled reading: the
//   sweep's numbers so far (sweep_view.js's), or null for none. The sweep view draws it
//   (turn_sweep.js).
//
// What a control asks of a panel:
// - `drawings`, by the pads (drawing_pad.js), each drawing: {pad: its component's id, strokes: flat
//   arrays, pens: each stroke's pen (numbers; all 0 on a pad of one pen), background: 784 ink
//   values 0..255 a pen or null, revision, drawing: the pen still down}. The reading panel reads
//   those of its pad, the Two-digits panel those of its own (`drawingsOf`), each from the newest
//   its pad published before the panel mounted: a tap kept before the page's modules came
//   (kept_input.js) is replayed as its pad mounts, which may be before its panel does.
// - `redraws`, by the dimension sliders, a slider's move: {offsets: one number a dimension}. The
//   reading panel redraws its reconstruction so.
// - `turns`, by the transform sliders (transform_sliders.js), a move: {value: the sliders' value}.
//   The turn panel turns the digit so.

function topic() {
  let current = null;
  const listeners = new Set();
  return {
    // the newest value, or null
    current: () => current,
    // `value` is the newest (or null): every listener is told
    publish(value) {
      current = value;
      for (const listener of listeners) listener(value);
    },
    // `listener(value)` called with each value published from now on; the returned function stops it
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export const shown = topic();
export const reading = topic();
export const decoding = topic();
export const settled = topic();
export const decodeAs = topic();
export const shownCapsule = topic();
export const padsOnScreen = topic();
export const turnSweep = topic();
export const drawings = topic();
const newestDrawings = new Map(); // pad id -> its newest drawing
drawings.subscribe((drawing) => newestDrawings.set(drawing.pad, drawing));

// `listener(drawing)` called with pad `pad`'s newest drawing, where it has published one already,
// and with each it publishes from now on; the returned function stops it.
export function drawingsOf(pad, listener) {
  const stop = drawings.subscribe((drawing) => {
    if (drawing.pad === pad) listener(drawing);
  });
  if (newestDrawings.has(pad)) listener(newestDrawings.get(pad));
  return stop;
}
export const redraws = topic();
export const turns = topic();
