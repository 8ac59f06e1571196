// The reading the page shows, in one place: the reading panel publishes each reading it makes in
// the page (reading_panel.js), and the panels that follow a reading subscribe here (the routing
// view, Turn it) instead of looking into one another's elements.
//
// A reading: {revision: the pad's revision read, image: the network's input [28 * 28], capsules: v
// [10 * 16], lengths: |v_j| [10], and once the pen is up, routing: the routing view's numbers
// (page_networks.js readDrawing)}, or {revision, image: null} where the drawing had too little ink.
// null: the page reads nothing of its own (not yet, or no longer: the server reads).

let current = null;
const listeners = new Set();

// The page's newest reading, or null.
export const currentReading = () => current;

// `reading` is the page's newest (or null, the page reads no more): every listener is told.
export function publish(reading) {
  current = reading;
  for (const listener of listeners) listener(reading);
}

// `listener(reading)` called with each reading published from now on; the returned function stops it.
export function subscribe(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
