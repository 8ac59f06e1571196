// What the page shows, in one place: the panels publish here what they made in the page, and the
// panels that follow it subscribe here, instead of looking into one another's elements; and what
// one panel asks of another, which that one takes where it can do it in the page. Its topics, each
// null where there is nothing (yet) to say:
//
// - `shown`, published by the reading panel (reading_panel.js) whenever it comes to show another
//   reading, or the same one decoded otherwise: {revision: the pad's revision read, settled: the
//   pen is up, inPage: read by the page's networks (else the server's numbers), image: the
//   network's input [28 * 28], lengths: |v_j| [10], capsules: v [10 * 16], winner, runnerUp,
//   decoded: the capsule the reconstruction is drawn from, drawable: the page's decoder can redraw
//   it, id: a number no other reading shown has}, or {revision: null, settled, id} where it shows
//   no reading (and {message} why, where it cannot show one). Turn it follows it.
// - `reading`, published by the reading panel (reading_panel.js) for every reading it makes:
//   {revision: the pad's revision read, penUp: the stroke ended, image: the network's input
//   [28 * 28], capsules: v [10 * 16], lengths: |v_j| [10], and once the pen is up, routing: the
//   routing view's numbers (page_networks.js readDrawing)}, or {revision, penUp, image: null} where
//   the drawing had too little ink. The routing view and Turn it follow it.
// - `decoding`, published by the dimension sliders (dimension_sliders.js) for the capsule they
//   follow in the page: {key: what tells two apart, revision, capsules, digit: the capsule decoded,
//   range: the sliders' range, rows: [{dimension, label, limit}] in the order shown}, or null where
//   they show the server's. Figure 4 follows it.
// - `settled`, published by the reading panel for each finished drawing it shows, read in the page
//   or by the server: {revision: the pad's revision as a string, "" where nothing was read}. Turn
//   it follows it.
// - `decodeAs`, published when Decode as or the sliders' range changes (reading_panel.js
//   redrawAs): {digit: "winner" or a digit, range, redrawnHere: the page's decoder redraws it}.
//   The sliders follow it, and ask the server where the page does not redraw.
// - `shownCapsule`, published by the reading panel whenever it comes to show a capsule the page's
//   decoder can draw (a reading made here, Decode as redrawn here, or the server's): {reading: the
//   reading shown (`shown`), capsules, digit: the capsule decoded, atZero: the reconstruction shown
//   unmoved, drawn here, penDown: a reading made while the pen is down}, or {reading: null, penDown}
//   where it shows none.
//   The sliders follow it.
//
// The requests, each offered by one panel and taken by another where the page can do it; `offer`
// says whether one was taken, and where none is, the panel that offered asks the server:
// - `drawings`, offered by the pads (drawing_pad.js) for each drawing: {pad: its element, strokes:
//   flat arrays, pens: each stroke's pen (numbers; all 0 on a pad of one pen), background: 784 ink
//   values 0..255 a pen or null, revision, drawing: the pen still down}. The reading panel takes
//   those of its pad where it reads them.
// - `redraws`, the reconstruction asked of the reading panel by the sliders and Decode as: {offsets:
//   one number a dimension or null; digit: the capsule to draw, null for the winner, absent for
//   the one shown; range: the sliders' range, where it changed}. Taken where the page's decoder draws it.
// - `turns`, a transform slider's move (transform_sliders.js): {value: the sliders' value}; and
//   `refreshes`, Turn it's refresh for a settled reading (turn_sweep.js): {reading: its revision,
//   "" for none, draw(sweep): draw the sweep (sweep_view.js's numbers, null for none), server():
//   ask the server after all}. The turn panel takes both where it turns the digit itself.

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

// An offer's takers: `offer(value)` gives `value` to every taker, and says whether one took it (a
// taker returns true where it does); `take(taker)` adds one, and the returned function removes it.
function offers() {
  const takers = new Set();
  return {
    offer(value) {
      let taken = false;
      for (const taker of takers) taken = taker(value) === true || taken;
      return taken;
    },
    take(taker) {
      takers.add(taker);
      return () => takers.delete(taker);
    },
  };
}

export const shown = topic();
export const reading = topic();
export const decoding = topic();
export const settled = topic();
export const decodeAs = topic();
export const shownCapsule = topic();
export const drawings = offers();
export const redraws = offers();
export const turns = offers();
export const refreshes = offers();
