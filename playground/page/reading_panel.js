// The reading panel's page side (playground/reading.py lays it out; gr.HTML gives `element`,
// `props` and `watch`):
//
// - While a stroke is drawn on the pad props.reader_pad, and once the pen lifts, the page's
//   networks (page_networks.js, in a worker) read the newest drawing each time they are free, and
//   the panel is drawn with the reading (reading_view.js, the panel's one renderer): the digit, the
//   ten lengths, what the network sees, the reconstruction and the runner-up's. The server hears
//   nothing of the drawing. Where the server reads instead, its numbers (props.value,
//   playground/reading_views.py) are drawn by the same renderer.
// - The reading shown is published (reading_store.js `shown`) for the panels that follow it; each
//   reading made here too (`reading`), once the pen is up with its routing; and each finished
//   drawing, read here or by the server, as `settled`. A new finished drawing is decoded as its
//   winner: Decode as goes back to "winner", as the server's reading sets it.
// - When a slider moves or Decode as changes (reading_store.js `redraws`), the decoder in the worker
//   redraws the reconstruction from the shown reading's capsules, with no request.
// - The page reads before its decoder has come (page_networks.js `startReader`): a reading made
//   meanwhile shows no reconstruction and is read again once the decoder is in, and the server
//   redraws for the sliders until then. A panel the server drew of the same drawing keeps its
//   pictures rather than give way to such a reading.
// - Whenever the panel comes to show a capsule the page's decoder can draw (a reading made here,
//   Decode as redrawn here, or the server's reading), it publishes it (`shownCapsule`): the
//   dimension sliders follow it (dimension_sliders.js).
//
// The panel takes the drawings its pad offers (`drawings`) where it reads them itself, and the pad
// then sends nothing; and the redraws offered where the page's decoder draws them. Where the page
// cannot (no WebAssembly or workers, the visitor saves data, the files not loaded yet or not
// loadable, an error), it takes neither and the server is asked as before; the console says why,
// once, as information: nothing has gone wrong for the person.

import { newestOnly } from "./newest_only.js";
import { decodeCapsule, decoderReady, decoderState, readDrawing, readerState, startReader } from "./page_networks.js";
import {
  shownCapsule as capsuleShown,
  decodeAs as decodeAsChosen,
  drawings as offeredDrawings,
  reading as pageReadings,
  redraws,
  settled,
  shown,
} from "./reading_store.js";
import { fromServer, readingHtml, redrawReconstruction } from "./reading_view.js";
import { placeStrip } from "./strip.js";

// `found`, the page's reading of drawing `revision` (page_networks.js readDrawing), as the panel
// shows it (reading_store.js `shown`), decoded as its winner; settled where the pen is up.
function readHere(found, revision, penUp) {
  const { image, capsules, lengths, reconstructions } = found;
  const [winner, runnerUp] = [...lengths.keys()].sort((a, b) => lengths[b] - lengths[a]);
  return {
    revision,
    settled: penUp,
    inPage: true,
    image,
    lengths: Array.from(lengths),
    capsules,
    winner,
    runnerUp,
    decoded: winner,
    reconstruction: reconstructions?.winner ?? null,
    runnerUpReconstruction: reconstructions?.runnerUp ?? null,
    drawable: reconstructions !== undefined, // the decoder loaded: its pictures came with it
  };
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
  const view = element.querySelector(".reading-view");

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
  let readHereLast = 0; // the pad revision of the newest reading made here and shown
  let lastDrawing = null; // the newest drawing the pad offered
  let penLifted = () => {}; // ends the rest under way
  let shownCount = 0; // the readings shown so far, to tell two apart
  const reading = () => readerState() === "ready" && !failed && element.isConnected;

  // The panel's capsule, for the sliders, where the page's decoder draws it (else none): `atZero`,
  // unmoved and drawn here; `penDown`, a reading made while the pen is still drawing.
  const capsuleOf = (next, atZero, penDown = false) =>
    capsuleShown.publish(
      reading() && next.drawable
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
  show(fromServer(props.value, props.decoder_url));

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
  // or the server's reading of the same one (settled: its details came with it).
  const read = newestOnly(
    async (drawing) => {
      const started = performance.now();
      const found = await readDrawing(drawing);
      if (!element.isConnected) return;
      const current = shown.current();
      const currentRevision = current.revision ?? -1;
      if (currentRevision > drawing.revision) return;
      const withoutPictures = current.inPage && !current.drawable; // read before the decoder came
      // the server's panel of this drawing (a slider it redrew, say) stays while this reading
      // comes without the pictures the server drew
      const picturesLost = !current.inPage && currentRevision === drawing.revision && !found?.reconstructions;
      if (!picturesLost && (currentRevision < drawing.revision || !current.settled || withoutPictures)) {
        const penUp = !drawing.drawing;
        const next = found === null ? { revision: null, settled: penUp } : readHere(found, drawing.revision, penUp);
        show(next);
        capsuleOf(next, true, drawing.drawing);
        readHereLast = drawing.revision;
        if (penUp && found) decodeWinner();
        if (penUp) settled.publish({ revision: found ? String(drawing.revision) : "" });
      }
      pageReadings.publish({ revision: drawing.revision, penUp: !drawing.drawing, image: null, ...found });
      if (drawing.drawing && penWaitedLately()) await rest(RESTING * (performance.now() - started));
    },
    (error) => {
      failed = true;
      pageReadings.publish(null);
      giveUp(`the page's reading failed (${error.message})`);
    },
  );
  drawings.add(read);

  offeredDrawings.take((drawing) => {
    if (!drawing.pad.closest(props.reader_pad)) return false;
    lastDrawing = drawing;
    if (!reading()) return false;
    if (!drawing.drawing) penLifted();
    read(drawing);
    return true;
  });

  // The server's panel (its numbers, reading_views.py), drawn unless it is of an older drawing than
  // the one read here: the newer reading stays. The sliders follow it where the page's decoder
  // draws it; elsewhere the server's sliders came with it.
  watch("value", () => {
    const answer = fromServer(props.value, props.decoder_url);
    if (reading() && lastDrawing !== null && (answer.revision ?? 0) < readHereLast) return;
    show(answer);
    if (reading() && answer.drawable) capsuleOf(answer, false);
    if (answer.settled && answer.message === undefined) settled.publish({ revision: String(answer.revision ?? "") });
  });

  // The reconstruction redrawn by the decoder, the newest move's first.
  const redraw = newestOnly(
    async ({ shownReading, digit, offsets }) => {
      const ink = await decodeCapsule(shownReading.capsules, digit, offsets);
      if (shown.current() !== shownReading) return; // a new reading took its place
      Object.assign(shownReading, { decoded: digit, reconstruction: ink });
      redrawReconstruction(view, ink, digit);
      if (offsets === null) capsuleOf(shownReading, true); // Decode as or the range changed
    },
    (error) => console.info(`The server redraws this: the page's decoder failed (${error.message}).`),
  );
  drawings.add(redraw);
  redraws.take(({ offsets = null, digit }) => {
    const current = shown.current();
    if (!reading() || !current.drawable || decoderState() !== "ready") return false; // the server redraws
    const shownDigit = digit === undefined ? current.decoded : (digit ?? current.winner);
    redraw({ shownReading: current, digit: shownDigit, offsets });
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
      if (shown.current().drawable) capsuleOf(shown.current(), false);
      return decoderReady().then(
        () => {
          // A drawing read before the decoder came is read again, with its pictures.
          if (lastDrawing !== null && shown.current().inPage && !shown.current().drawable) read(lastDrawing);
        },
        (error) => {
          failed = true; // the next drawings go to the server, which draws their pictures
          throw error;
        },
      );
    })
    .catch((error) => giveUp(error.message));
}
