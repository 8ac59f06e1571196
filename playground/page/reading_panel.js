// The reading panel's page side (playground/reading.py lays it out; gr.HTML gives `element`,
// `props` and `watch`):
//
// - While a stroke is drawn on the pad props.reader_pad, and once the pen lifts, the page's
//   networks (page_networks.js, in a worker) read the newest drawing each time they are free, and
//   the panel is filled here with the reading: the digit, the ten lengths, what the network sees,
//   the reconstruction and the runner-up's. The panel is the server's layout (props.panel_template,
//   reading_views.reading_panel), its numbers filled in: one renderer, whichever side computed
//   them. The server hears nothing of the drawing. Each reading made here is published
//   (reading_store.js) for the panels that follow it; once the pen is up, with its routing, and as
//   `settled`, as a finished drawing the server reads is when its panel comes. A new finished
//   drawing is decoded as its winner: Decode as goes back to "winner", as the server's reading sets it.
// - When a slider moves or Decode as changes (reading_store.js `redraws`), the decoder in the worker
//   redraws the reconstruction from the panel's capsules (data-capsules), with no request.
// - Whenever the panel comes to show a capsule the page's decoder can draw (a reading made here,
//   Decode as redrawn here, or the server's panel), it publishes it (`shownCapsule`): the dimension
//   sliders follow it (dimension_sliders.js).
//
// The panel takes the drawings its pad offers (`drawings`) where it reads them itself, and the pad
// then sends nothing; and the redraws offered where the page's decoder draws them. Where the page
// cannot (no WebAssembly or workers, the visitor saves data, the files not loaded yet or not
// loadable, an error), it takes neither and the server is asked as before; the console says why,
// once, as information: nothing has gone wrong for the person.

import { newestOnly } from "./newest_only.js";
import { decodeCapsule, readDrawing, readerState, startReader } from "./page_networks.js";
import { barsFilled, fromTemplate, numbered, pictureSet } from "./panel_fill.js";
import {
  shownCapsule as capsuleShown,
  decodeAs as decodeAsChosen,
  drawings as offeredDrawings,
  redraws,
  settled,
  reading as shownReading,
} from "./reading_store.js";
import { placeStrip } from "./strip.js";

// The capsules of a panel's data-capsules (float32 little-endian in base64, reading_views.capsules_base64).
function capsulesOf(panel) {
  const bytes = Uint8Array.from(atob(panel.dataset.capsules), (c) => c.charCodeAt(0));
  return new Float32Array(bytes.buffer);
}

const base64 = (floats) => btoa(String.fromCharCode(...new Uint8Array(floats.buffer)));

// The reading panel's layout (`template`) filled with `found`, a reading of drawing `revision`,
// settled where the pen is up.
function filledPanel(template, decoderUrl, found, revision, penUp) {
  const { image, capsules, lengths, reconstructions } = found;
  const [winner, runnerUp] = [...lengths.keys()].sort((a, b) => lengths[b] - lengths[a]);
  const panel = fromTemplate(template);
  Object.assign(panel.dataset, { revision, decoded: winner, winner, decoder: decoderUrl, capsules: base64(capsules) });
  if (penUp) panel.dataset.settled = "";
  panel.querySelector(".reading .digit").textContent = winner;
  numbered(panel.querySelector(".reading .caption"), lengths[winner]);
  numbered(panel.querySelector(".reconstruction figcaption"), winner);
  numbered(panel.querySelector(".runner-up figcaption"), runnerUp, lengths[runnerUp]);
  pictureSet(panel.querySelector(".input img.picture"), image);
  pictureSet(panel.querySelector(".reconstruction img.picture"), reconstructions.winner, winner);
  pictureSet(panel.querySelector(".runner-up img.picture"), reconstructions.runnerUp, runnerUp);
  barsFilled(panel.querySelector("svg.lengths"), lengths, winner);
  return panel;
}

// Decode as, or the sliders' range (`range`), changed to `decodeAs` ("winner", or a digit): the
// panel's reconstruction redrawn from that capsule at zero offsets where the page's decoder draws
// it, and the choice published (reading_store.js `decodeAs`). The glue of the Decode-as and
// Slider-range radios.
export function redrawAs(decodeAs, range, winner) {
  const digit = decodeAs === winner ? null : Number(decodeAs);
  const redrawnHere = redraws.offer({ offsets: null, digit, range });
  decodeAsChosen.publish({ digit: decodeAs, range, redrawnHere });
}

// The panel's capsule shown, for the sliders: `atZero`, unmoved and drawn here; `penDown`, a
// reading made while the pen is still drawing.
function shownCapsule(panel, capsules, atZero, penDown = false) {
  const shown = panel && { panel, capsules, digit: Number(panel.dataset.decoded), atZero, penDown };
  capsuleShown.publish(shown ?? { panel: null, penDown });
}

// The end of the page thread's latest long task (over 50 ms, when no event can be taken), where
// the browser reports them (PerformanceObserver "longtask").
let longTaskEnded = Number.NEGATIVE_INFINITY;
if (globalThis.PerformanceObserver?.supportedEntryTypes?.includes("longtask")) {
  new PerformanceObserver((list) => {
    for (const task of list.getEntries()) longTaskEnded = Math.max(longTaskEnded, task.startTime + task.duration);
  }).observe({ type: "longtask" });
}
const LATELY_MS = 1000;
const RESTING = 2; // a reading's rest where the pen waited lately, in readings' times
const penWaitedLately = () => performance.now() - longTaskEnded < LATELY_MS;

// The reading panel's readings and redraws under way (newest_only.js), for drawn().
const drawings = new Set();

// A promise of the moment the panel has drawn everything asked of it so far: the readings of the
// drawings offered and the redraws of the slider moves (the tests' and benchmarks' way to wait).
export const drawn = () => Promise.all([...drawings].map((drawing) => drawing.done()));

export function mount({ element, props, watch }) {
  placeStrip({ element, props, watch });

  let toldWhy = false;
  const giveUp = (why) => {
    if (!toldWhy) console.info(`The server reads each drawing, and the sliders redraw on the server: ${why}.`);
    toldWhy = true;
  };
  // A new drawing is decoded as its winner, as the server's reading of it sets Decode as.
  const decodeWinner = () => {
    const choice = document.querySelector(props.decode_as_winner);
    if (choice && !choice.checked) choice.click();
  };
  let failed = false; // a reading failed here: the server reads from now on
  let shown = 0; // the pad revision of the reading the panel shows, read here
  let lastDrawing = null; // the newest drawing the pad offered
  let penLifted = () => {}; // ends the rest under way

  // While the pen is down and the page's thread has lately run a long task (the pen's events
  // waited), each reading is followed by a rest twice as long as it took (RESTING), which the pen's
  // lifting ends: where the page's thread and the networks share a slow core, the readings so take
  // at most about a third of it, and the pen the rest. Where the pen never waits, the readings
  // never rest.
  const rest = (ms) =>
    new Promise((done) => {
      const timer = setTimeout(done, ms);
      penLifted = () => {
        clearTimeout(timer);
        done();
      };
    });

  // A drawing read, and the panel filled with it unless the panel shows a newer drawing already,
  // or the server's reading of the same one (settled: its details came with it).
  const read = newestOnly(
    async (drawing) => {
      const started = performance.now();
      const found = await readDrawing(drawing);
      const holder = element.querySelector(".panel")?.parentElement;
      if (!holder) return;
      const current = holder.firstElementChild;
      const currentRevision = Number(current?.dataset.revision ?? -1);
      if (currentRevision > drawing.revision) return;
      if (currentRevision < drawing.revision || current.dataset.settled === undefined) {
        const penUp = !drawing.drawing;
        if (found === null) holder.innerHTML = props.empty_panel;
        else
          holder.replaceChildren(filledPanel(props.panel_template, props.decoder_url, found, drawing.revision, penUp));
        shown = drawing.revision;
        if (penUp && found) decodeWinner();
        shownCapsule(found && holder.firstElementChild, found?.capsules, true, drawing.drawing);
        if (penUp) settled.publish({ revision: found ? String(drawing.revision) : "" });
      }
      shownReading.publish({ revision: drawing.revision, penUp: !drawing.drawing, image: null, ...found });
      if (drawing.drawing && penWaitedLately()) await rest(RESTING * (performance.now() - started));
    },
    (error) => {
      failed = true;
      shownReading.publish(null);
      giveUp(`the page's reading failed (${error.message})`);
    },
  );
  drawings.add(read);
  const reading = () => readerState() === "ready" && !failed && element.isConnected;

  offeredDrawings.take((drawing) => {
    if (!drawing.pad.closest(props.reader_pad)) return false;
    lastDrawing = drawing;
    if (!reading()) return false;
    if (!drawing.drawing) penLifted();
    read(drawing);
    return true;
  });

  // The capsules of the panel shown where the page's decoder draws it, or null: `why(message)`
  // hears why not where its capsules cannot be read.
  const drawable = (why = () => {}) => {
    const panel = element.querySelector(".panel[data-capsules]");
    if (!reading() || !panel || panel.dataset.decoder !== props.decoder_url) return null;
    try {
      return { panel, capsules: capsulesOf(panel) };
    } catch (error) {
      why(`the panel's capsules cannot be read (${error.message})`);
      return null;
    }
  };

  // The server's settled panel of an older drawing than the one shown here stays unseen: the
  // newer reading is drawn again over it. A panel the page's decoder draws is followed by the sliders.
  watch("value", () => {
    const panel = element.querySelector(".panel");
    const revision = Number(panel?.dataset.revision ?? 0);
    if (reading() && lastDrawing !== null && revision < shown) read(lastDrawing);
    else if (panel?.dataset.settled !== undefined) settled.publish({ revision: panel.dataset.revision ?? "" });
    const found = drawable();
    if (found) shownCapsule(found.panel, found.capsules, false);
  });

  // The reconstruction redrawn by the decoder, the newest move's first.
  const redraw = newestOnly(
    async ({ panel, capsules, digit, offsets }) => {
      const picture = panel.querySelector(".reconstruction img.picture");
      const ink = await decodeCapsule(capsules, digit, offsets);
      if (!panel.isConnected) return; // a new reading took its place
      pictureSet(picture, ink);
      if (digit !== Number(panel.dataset.decoded)) {
        // "Reconstruction from capsule 3": the number changes
        panel.dataset.decoded = digit;
        const caption = panel.querySelector(".reconstruction figcaption");
        caption.textContent = caption.textContent.replace(/\d+$/, digit);
        picture.alt = picture.alt.replace(/\d+$/, digit);
      }
      if (offsets === null) shownCapsule(panel, capsules, true); // Decode as or the range changed
    },
    (error) => console.info(`The server redraws this: the page's decoder failed (${error.message}).`),
  );
  drawings.add(redraw);
  redraws.take(({ offsets = null, digit }) => {
    const found = drawable((why) => console.info(`The server redraws this: ${why}.`));
    if (!found) return false;
    const { panel, capsules } = found;
    const shownDigit = digit === undefined ? Number(panel.dataset.decoded) : (digit ?? Number(panel.dataset.winner));
    redraw({ panel, capsules, digit: shownDigit, offsets });
    return true;
  });

  startReader({
    facts: props.facts,
    runtime: props.runtime_url,
    capsules: props.network_url,
    routing: props.routing_url,
    decoder: props.decoder_url,
  })
    .then(() => {
      // A drawing shown before the networks came (read by the server) is read here too, so that
      // Turn it turns it in the page, and the sliders follow its panel.
      if (lastDrawing !== null) read(lastDrawing);
      const found = drawable();
      if (found) shownCapsule(found.panel, found.capsules, false);
    })
    .catch((error) => giveUp(error.message));
}
