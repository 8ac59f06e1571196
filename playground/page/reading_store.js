// What the page shows, in one place: the panels publish here what they made in the page, and the
// panels that follow it subscribe here, instead of looking into one another's elements. Its
// topics, each null where there is nothing (yet) to say:
//
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

export const reading = topic();
export const decoding = topic();
export const settled = topic();
export const decodeAs = topic();
