// The Two-digits panel's page side (playground/two_digits.py `PairView` lays it out; gr.HTML gives
// `element`, `props`, `watch` and `fire`), mounted once the section nears the screen
// (page_modules.NEAR_THE_SCREEN). It starts the pairs networks then (page_networks.js
// `startPairReader`: their graphs are fetched from then on), and once they are ready it takes the
// drawings its pad offers (reading_store.js `drawings`), reads them in the page and draws the
// reading, and Decode as redraws there (`decodeAs`): the server hears of neither. Until then, and
// where the page cannot run them (no WebAssembly or workers, a graph not loadable, an error: the
// console says why), the pad sends its drawings to the server, whose numbers (props.value,
// two_digits_views.py) the panel draws, and Decode as asks the server to read the pad again
// (fire.submit). Each is drawn by the panel's one renderer (two_digits_view.js); before any drawing
// the panel says props.prompt. On a narrow screen its reading shows in a strip while its pad is
// drawn on (strip.js).

import { newestOnly } from "./newest_only.js";
import { decodePairAs, pairReaderState, readPair, startPairReader } from "./page_networks.js";
import { drawings } from "./reading_store.js";
import { placeStrip } from "./strip.js";
import { fromServer, pairHtml } from "./two_digits_view.js";

let mounted = null; // resolves `panelDecode` with the mounted panel's Decode as
const panelDecode = new Promise((done) => {
  mounted = done;
});

// Decode as changed (its event's js: the radio's value, "the two read" or a digit): the pair shown
// redrawn with that capsule too, in the page where it read the pair, else by the server.
export async function decodeAs(choice) {
  (await panelDecode)(/^\d$/.test(choice) ? Number(choice) : null);
}

export function mount({ element, props, watch, fire }) {
  placeStrip({ element, props, watch });
  const view = element.querySelector(".pair-view");
  let shown = null; // the pair drawn (two_digits_view.js's numbers, `inPage` where read here), null for none
  let digit = null; // the capsule Decode as chose, null for the two read
  let readHereLast = 0; // the newest revision read in the page
  const draw = (pair) => {
    shown = pair;
    view.innerHTML = pairHtml(pair, props.prompt);
  };
  draw(fromServer(props.value));

  let toldWhy = false;
  const giveUp = (why) => {
    if (!toldWhy) console.info(`The server reads the two digits: ${why}.`);
    toldWhy = true;
  };
  let failed = false;
  const reading = () => !failed && pairReaderState() === "ready";

  // The newest drawing read and drawn; one read before it that comes late is not drawn.
  const read = newestOnly(
    async (drawing) => {
      const pair = await readPair(drawing, digit);
      if (drawing.revision < readHereLast) return;
      readHereLast = drawing.revision;
      draw(pair === null ? null : { ...pair, inPage: true });
    },
    (error) => {
      failed = true;
      giveUp(`the page's reading failed (${error.message})`);
    },
  );
  drawings.take((drawing) => {
    if (!drawing.pad.closest(props.reader_pad) || !reading()) return false;
    const { strokes, pens, background, revision } = drawing;
    read({ strokes, pens, background, revision });
    return true;
  });

  // The server's numbers, drawn unless they are of an older drawing than the one read here.
  watch("value", () => {
    const answer = fromServer(props.value);
    if (readHereLast > 0 && (answer?.revision ?? 0) < readHereLast) return;
    draw(answer);
  });

  mounted((chosen) => {
    digit = chosen;
    if (shown === null || shown.message !== undefined) return; // nothing read to redraw
    if (!shown.inPage || !reading()) {
      fire.submit();
      return;
    }
    const pair = shown;
    decodePairAs(pair, digit).then(
      (decoded) => {
        if (shown === pair) draw({ ...decoded, inPage: true });
      },
      (error) => {
        failed = true;
        giveUp(`the page's decoder failed (${error.message})`);
        fire.submit();
      },
    );
  });

  startPairReader({
    facts: props.facts,
    runtime: props.runtime_url,
    capsules: props.capsules_url,
    decoder: props.decoder_url,
    sigmoids: props.sigmoids_url,
  }).catch((error) => giveUp(error.message));
}
