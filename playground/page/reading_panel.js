// The reading panel's page side (playground/reading.py lays it out; gr.HTML gives `element`,
// `props`, `watch` and `fire`):
//
// - While a stroke is drawn on the pad whose component's id is props.reader_pad, and once the pen
//   lifts, the newest drawing is read each time the answer to the last has come (page_networks.js
//   readDrawing: the page's networks, in a worker, or the server where they cannot), and the panel
//   is drawn with the reading (reading_view.js, the panel's one renderer): the digit, the ten
//   lengths, what the network sees, the reconstruction and the runner-up's.
// - The reading shown is published (reading_store.js `shown`) for the panels that follow it; each
//   reading made (`reading`), once the pen is up with its routing; and each finished drawing as
//   `settled`. A new finished drawing is decoded as its winner: the panel fires its "submit"
//   event, whose js sets Decode as back to "winner" (reading.py).
// - When a slider moves or Decode as changes (reading_store.js `redraws`, `redrawAs`), the decoder
//   redraws the reconstruction from the shown reading's capsules.
// - The page's reader may read before its decoder has come (page_networks.js `startReader`): a
//   reading made so shows no reconstruction and is read again once the decoder is in.
// - Whenever the panel comes to show a capsule (a reading, or Decode as redrawn), it publishes it
//   (`shownCapsule`): the dimension sliders follow it (dimension_sliders.js).

import { newestOnly } from "./newest_only.js";
import { decodeCapsule, decoderReady, readDrawing, startReader } from "./page_networks.js";
import {
  shownCapsule as capsuleShown,
  decodeAs as decodeAsChosen,
  drawingsOf,
  reading as readings,
  redraws,
  settled,
  shown,
} from "./reading_store.js";
import { readingHtml, redrawReconstruction } from "./reading_view.js";
import { placeStrip } from "./strip.js";

// `found`, the reading of drawing `revision` (page_networks.js readDrawing), as the panel shows it
// (reading_store.js `shown`), decoded as its winner; settled where the pen is up.
function shownOf(found, revision, penUp) {
  const { image, capsules, lengths, reconstructions } = found;
  const [winner, runnerUp] = [...lengths.keys()].sort((a, b) => lengths[b] - lengths[a]);
  return {
    revision,
    settled: penUp,
    image,
    lengths: Array.from(lengths),
    capsules,
    winner,
    runnerUp,
    decoded: winner,
    reconstruction: reconstructions?.winner ?? null,
    runnerUpReconstruction: reconstructions?.runnerUp ?? null,
    withPictures: reconstructions !== undefined, // the page's reader reads without them until its decoder came
  };
}

let redrawShown = () => {}; // the mounted panel's redraw of the reconstruction

// Decode as, or the sliders' range (`range`), changed to `decodeAs` ("winner", or a digit): the
// panel's reconstruction redrawn from that capsule at zero offsets, and the choice published
// (reading_store.js `decodeAs`). The glue of the Decode-as and Slider-range radios.
export function redrawAs(decodeAs, range, winner) {
  decodeAsChosen.publish({ digit: decodeAs, range });
  redrawShown({ offsets: null, digit: decodeAs === winner ? null : Number(decodeAs) });
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

export function mount({ element, props, watch, fire }) {
  placeStrip({ element, props, watch });
  const view = element.querySelector(".reading-view");
  let lastDrawing = null; // the newest drawing of the pad
  let penLifted = () => {}; // ends the rest under way
  let shownCount = 0; // the readings shown so far, to tell two apart

  // The panel's capsule, for the sliders: `atZero`, unmoved; `penDown`, a reading made while the
  // pen is still drawing.
  const capsuleOf = (next, atZero, penDown = false) =>
    capsuleShown.publish(
      next.capsules
        ? { reading: next, capsules: next.capsules, digit: next.decoded, atZero, penDown }
        : { reading: null, penDown },
    );

  // The panel drawn with `next` (reading_view.js), published (reading_store.js `shown`).
  function show(next) {
    shownCount += 1;
    next.id = shownCount;
    view.innerHTML = readingHtml(next);
    shown.publish(next);
  }
  show({ revision: null, settled: false });

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

  // A drawing read, and the panel drawn with it unless the panel shows a newer drawing already,
  // or this one settled with the pictures this reading lacks.
  const read = newestOnly(
    async (drawing) => {
      const started = performance.now();
      const found = await readDrawing(drawing);
      if (found === undefined) return; // the server, crowded, let it go: nothing new
      const current = shown.current();
      const currentRevision = current.revision ?? -1;
      if (currentRevision > drawing.revision) return;
      const penUp = !drawing.drawing;
      const picturesLost = currentRevision === drawing.revision && current.withPictures && !found?.reconstructions;
      if (!picturesLost && (currentRevision < drawing.revision || !current.settled || !current.withPictures)) {
        const next = found === null ? { revision: null, settled: penUp } : shownOf(found, drawing.revision, penUp);
        show(next);
        capsuleOf(next, true, drawing.drawing);
        if (penUp && found) fire.submit(); // Decode as back to the winner
        if (penUp) settled.publish({ revision: found ? String(drawing.revision) : "" });
      }
      readings.publish({ revision: drawing.revision, penUp, image: null, ...found });
      if (drawing.drawing && penWaitedLately()) await rest(RESTING * (performance.now() - started));
    },
    (error) => show({ revision: null, settled: true, message: `Cannot read this drawing: ${error.message}` }),
  );
  drawings.add(read);

  // The reconstruction redrawn by the decoder, the newest move's first.
  const redraw = newestOnly(
    async ({ shownReading, digit, offsets }) => {
      const ink = await decodeCapsule(shownReading.capsules, digit, offsets);
      if (shown.current() !== shownReading) return; // a new reading took its place
      Object.assign(shownReading, { decoded: digit, reconstruction: ink });
      redrawReconstruction(view, ink, digit);
      if (offsets === null) capsuleOf(shownReading, true); // Decode as or the range changed
    },
    (error) => console.warn(`The reconstruction was not redrawn: ${error.message}.`),
  );
  drawings.add(redraw);
  // `digit`: the capsule to draw, null for the winner, absent for the one shown
  redrawShown = ({ offsets = null, digit }) => {
    const current = shown.current();
    if (!current?.capsules) return; // no reading to redraw
    redraw({
      shownReading: current,
      digit: digit === undefined ? current.decoded : (digit ?? current.winner),
      offsets,
    });
  };
  redraws.subscribe(redrawShown);

  const readerStarted = startReader({
    facts: props.facts,
    runtime: props.runtime_url,
    capsules: props.network_url,
    routing: props.routing_url,
    decoder: props.decoder_url,
  });
  // the pad's drawings, from one it published before this panel mounted
  drawingsOf(props.reader_pad, (drawing) => {
    lastDrawing = drawing;
    if (!drawing.drawing) penLifted();
    read(drawing);
  });
  readerStarted
    .then((ready) => ready && decoderReady())
    .then((decoderCame) => {
      // A drawing read before the decoder came is read again, with its pictures.
      if (decoderCame && lastDrawing !== null && !shown.current().withPictures) read(lastDrawing);
    });
}
