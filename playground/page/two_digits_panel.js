// The Two-digits panel's page side (playground/two_digits.py `PairView` lays it out; gr.HTML gives
// `element`, `props` and `watch`), mounted once the section nears the screen
// (page_modules.NEAR_THE_SCREEN). It starts the pairs networks then (page_networks.js
// `startPairReader`: their graphs are fetched from then on), reads the drawings of the pad whose
// component's id is props.reader_pad (reading_store.js `drawingsOf`; page_networks.js readPair: the
// pairs networks in the page, or the server until they are in or where they cannot run) and draws
// the reading; Decode as redraws it (`decodeAs`, page_networks.js decodePairAs). Each is drawn by
// the panel's one renderer (two_digits_view.js); before any drawing the panel says props.prompt.
// On a narrow screen its reading shows in a strip while its pad is drawn on (strip.js).

import { newestOnly } from "./newest_only.js";
import { decodePairAs, readPair, startPairReader } from "./page_networks.js";
import { drawingsOf } from "./reading_store.js";
import { placeStrip } from "./strip.js";
import { pairHtml } from "./two_digits_view.js";

let mounted = null; // resolves `panelDecode` with the mounted panel's Decode as
const panelDecode = new Promise((done) => {
  mounted = done;
});

// Decode as changed (its event's js: the radio's value, "the two read" or a digit): the pair shown
// redrawn with that capsule too.
export async function decodeAs(choice) {
  (await panelDecode)(/^\d$/.test(choice) ? Number(choice) : null);
}

export function mount({ element, props, watch }) {
  placeStrip({ element, props, watch });
  const view = element.querySelector(".pair-view");
  let shown = null; // the pair drawn (two_digits_view.js's numbers), null for none
  let digit = null; // the capsule Decode as chose, null for the two read
  let readLast = 0; // the newest revision drawn
  const draw = (pair) => {
    shown = pair;
    view.innerHTML = pairHtml(pair, props.prompt);
  };
  draw(null);

  // The newest drawing read and drawn; one read before it that comes late is not drawn.
  const read = newestOnly(
    async (drawing) => {
      const pair = await readPair(drawing, digit);
      if (drawing.revision < readLast) return;
      readLast = drawing.revision;
      draw(pair);
    },
    (error) => draw({ message: `Cannot read these two digits: ${error.message}` }),
  );

  mounted((chosen) => {
    digit = chosen;
    if (shown === null || shown.message !== undefined) return; // nothing read to redraw
    const pair = shown;
    decodePairAs(pair, digit).then(
      (decoded) => {
        if (shown === pair) draw(decoded);
      },
      (error) => draw({ message: `Cannot decode: ${error.message}` }),
    );
  });

  startPairReader({
    facts: props.facts,
    runtime: props.runtime_url,
    capsules: props.capsules_url,
    decoder: props.decoder_url,
    sigmoids: props.sigmoids_url,
  });
  // the pad's drawings, from one it published before this panel mounted
  drawingsOf(props.reader_pad, (drawing) => {
    const { strokes, pens, background, revision } = drawing;
    read({ strokes, pens, background, revision });
  });
}
