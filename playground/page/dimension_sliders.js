// The dimension sliders' page side (playground/dimension_sliders.py; gr.HTML gives `element`,
// `props`, `watch` and `fire`, the events it fires). props.value = {offsets: 16 numbers in dimension
// order, rows: [{dimension, label, limit}] in the order shown, enabled, range: the range the limits
// are of, pictures: a PNG data URL a dimension (dimension order) of where it changes the digit, or
// null}; props.digit_rows = {range: every digit's rows}, props.palette the pictures' colours
// (playground/dimension_changes.py PALETTE).
//
// Dragging a slider sets the offset and asks the page's decoder to redraw the reconstruction
// (reading_store.js `redraws`, which reading_panel.js takes); only where it cannot does the move go
// to the server, as the component's "input" event, and Decode as or the range changed as its
// "submit" event. The server sets the whole value (new labels, offsets back at zero, its pictures).
//
// Where the page's decoder draws the capsule the reading panel shows (`shownCapsule`, once the
// pen has lifted), the sliders follow it in the page, with no request: that digit's rows
// over the range chosen, and beside each slider the ink its dimension adds and takes away between
// the ends of its range, made in the page's worker (32 decoder runs, page_networks.js) for the
// newest capsule whenever it is free (newest_only.js). Elsewhere they show the server's rows and
// pictures. The list's data-pictures says whose pictures are shown ("page" or "server"), and
// data-revision, for the page's, the pad's revision of the reading they are of. The capsule they
// follow in the page is published for Figure 4 (reading_store.js `decoding`).

import { changeColours } from "./change_colours.js";
import { newestOnly } from "./newest_only.js";
import { dimensionChangesOf } from "./page_networks.js";
import { decodeAs, decoding, redraws, shown, shownCapsule } from "./reading_store.js";
import { colourPictureUrl } from "./views.js";

// The page's pictures under way (newest_only.js), for drawn().
const drawings = new Set();

// A promise of the moment the sliders have drawn every picture asked of them so far (the tests'
// and benchmarks' way to wait).
export const drawn = () => Promise.all([...drawings].map((drawing) => drawing.done()));

export function mount({ element, props, watch, fire }) {
  const list = element.querySelector(".dimensions");
  let shownRows = "";
  let range = props.value.range; // the range chosen, as the server or the Slider-range radio said last
  let followed = null; // {reading, capsules, digit}: the reading panel's capsule, where the page draws it
  let failed = false; // the page's pictures failed: the server's from now on
  let drawnHere = { key: null, pictures: null }; // the page's newest pictures, and what they are of

  const following = () => !failed && followed !== null && followed.reading === shown.current();
  const keyOf = () => `${followed.reading.id} ${followed.digit} ${range}`;
  const rowsShown = () => (following() ? props.digit_rows[range][followed.digit] : props.value.rows);

  function format(offset) {
    return (offset > 0 ? "+" : offset < 0 ? "−" : " ") + Math.abs(offset).toFixed(2);
  }

  // The pictures beside the sliders: `pictures` (dimension order) or none, drawn by `whose`.
  function showPictures(pictures, whose, revision) {
    for (const picture of list.querySelectorAll("img.change")) {
      const source = pictures?.[Number(picture.dataset.dimension)];
      if (source) picture.src = source;
      else picture.removeAttribute("src");
    }
    list.dataset.pictures = pictures ? whose : "";
    if (revision === undefined) delete list.dataset.revision;
    else list.dataset.revision = revision;
  }

  // The page's pictures of the capsule followed, the newest asked for first.
  const draw = newestOnly(
    async ({ key, capsules, digit, limits, revision }) => {
      const changes = await dimensionChangesOf(capsules, digit, limits);
      const pictures = changes.map((change) => colourPictureUrl(changeColours(change, props.palette)));
      drawnHere = { key, pictures, revision };
      if (following() && keyOf() === key) showPictures(pictures, "page", revision);
    },
    (error) => {
      failed = true;
      console.info(`The server draws the pictures beside the sliders: the page's failed (${error.message}).`);
      render();
    },
  );
  drawings.add(draw);

  function pictures() {
    if (!following()) {
      showPictures(props.value.pictures, "server");
      return;
    }
    const key = keyOf();
    if (drawnHere.key === key) {
      showPictures(drawnHere.pictures, "page", drawnHere.revision);
      return;
    }
    const limits = [];
    for (const row of rowsShown()) limits[row.dimension] = row.limit;
    const { capsules, digit, reading } = followed;
    delete list.dataset.revision; // the pictures shown meanwhile are of another capsule
    draw({ key, capsules, digit, limits, revision: reading.revision });
  }

  // The capsule followed, its digit, range and rows, for Figure 4 (reading_store.js `decoding`):
  // published once each; null where the sliders show the server's.
  function publish(rows) {
    const key = following() ? keyOf() : null;
    if (key === (decoding.current()?.key ?? null)) return;
    if (key === null) decoding.publish(null);
    else {
      const { capsules, digit, reading } = followed;
      decoding.publish({ key, revision: reading.revision, capsules, digit, range, rows });
    }
  }

  function render() {
    const value = props.value || { offsets: [], rows: [] };
    const rows = rowsShown();
    publish(rows);
    if (JSON.stringify(rows) !== shownRows) {
      shownRows = JSON.stringify(rows);
      list.replaceChildren(
        ...rows.map((row, slot) => {
          const item = document.createElement("div");
          item.className = "dimension";
          item.innerHTML =
            `<img class="change" data-dimension="${row.dimension}" alt="">` +
            `<label for="${element.id}-d${row.dimension}"></label>` +
            `<input type="range" id="${element.id}-d${row.dimension}" data-dimension="${row.dimension}"` +
            ` min="${-row.limit}" max="${row.limit}" step="${row.limit / 50}">` +
            `<output></output>`;
          item.querySelector("label").textContent = row.label;
          item.querySelector("img").alt = `${row.label}: dark where it adds ink, light where it takes ink away`;
          item.dataset.slot = slot;
          return item;
        }),
      );
    }
    for (const input of list.querySelectorAll("input")) {
      input.disabled = !value.enabled;
      const offset = value.offsets[Number(input.dataset.dimension)] || 0;
      input.value = offset;
      input.nextElementSibling.textContent = format(offset);
    }
    pictures();
  }

  function moved(offsets) {
    props.value = { ...props.value, offsets };
    if (!redraws.offer({ offsets })) fire.input(); // the page's decoder did not draw it
  }

  list.addEventListener("input", (event) => {
    const input = event.target;
    const offsets = props.value.offsets.slice();
    offsets[Number(input.dataset.dimension)] = Number(input.value);
    input.nextElementSibling.textContent = format(Number(input.value));
    moved(offsets);
  });

  element.querySelector(".reset").addEventListener("click", () => {
    if (!props.value.enabled || props.value.offsets.every((offset) => offset === 0)) return;
    moved(props.value.offsets.map(() => 0));
    render();
  });

  // Decode as or the Slider-range radio changed (reading_panel.js `redrawAs`): the page's rows and
  // pictures follow once the reconstruction is redrawn (`shownCapsule`); where the page does not
  // redraw, the server brings the reconstruction, the sliders and Figure 4 (the "submit" event).
  decodeAs.subscribe((chosen) => {
    if (chosen.redrawnHere && following()) range = chosen.range;
    if (!chosen.redrawnHere) fire.submit();
  });

  // The reading panel shows a new capsule: a reading's, or Decode as's, at zero offsets (`atZero`),
  // or the server's panel of one; none where the page read too little ink. While the pen is down
  // (`penDown`) the sliders stay as they are: nobody can drag them then, and their rows and 16
  // pictures, redrawn for every reading, would take the page's thread from the pen. They follow the
  // reading made once the pen lifts.
  shownCapsule.subscribe(({ reading, capsules, digit, atZero, penDown }) => {
    if (penDown) return;
    followed = reading && { reading, capsules, digit };
    const zeros = props.value.offsets.map(() => 0);
    if (reading === null) props.value = { ...props.value, offsets: zeros, enabled: false, pictures: null };
    else if (atZero && following())
      props.value = { offsets: zeros, rows: rowsShown(), enabled: true, range, pictures: null };
    render();
  });

  watch("value", () => {
    range = props.value.range;
    render();
  });
  render();
}
