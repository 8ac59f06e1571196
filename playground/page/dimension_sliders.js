// The dimension sliders' page side (playground/dimension_sliders.py; gr.HTML gives `element`,
// `props` and `watch`). props.value = {offsets: 16 numbers in dimension order, rows: [{dimension,
// label, limit}] in the order shown, enabled, range: the range the limits are of}; props.digit_rows
// = {range: every digit's rows}, props.palette the pictures' colours (playground/dimension_changes.py
// PALETTE).
//
// The sliders follow the capsule the reading panel shows (reading_store.js `shownCapsule`, once the
// pen has lifted): that digit's rows over the range chosen, and beside each slider the ink its
// dimension adds and takes away between the ends of its range (32 decoder runs: page_networks.js
// dimensionChangesOf, the page's worker or the server), for the newest capsule whenever the answer
// to the last has come (newest_only.js). Dragging a slider sets the offset and asks the reading
// panel to redraw the reconstruction (reading_store.js `redraws`). The list's data-revision says
// the pad's revision of the reading the pictures are of. The capsule they follow is published for
// Figure 4 (reading_store.js `decoding`).

import { changeColours } from "./change_colours.js";
import { newestOnly } from "./newest_only.js";
import { dimensionChangesOf } from "./page_networks.js";
import { decodeAs, decoding, redraws, shown, shownCapsule } from "./reading_store.js";
import { colourPictureUrl } from "./views.js";

// The sliders' pictures under way (newest_only.js), for drawn().
const drawings = new Set();

// A promise of the moment the sliders have drawn every picture asked of them so far (the tests'
// and benchmarks' way to wait).
export const drawn = () => Promise.all([...drawings].map((drawing) => drawing.done()));

export function mount({ element, props, watch }) {
  const list = element.querySelector(".dimensions");
  let shownRows = "";
  let range = props.value.range; // the range chosen, as the Slider-range radio said last
  let followed = null; // {reading, capsules, digit}: the reading panel's capsule
  let drawnLast = { key: null, pictures: null }; // the newest pictures, and what they are of

  const following = () => followed !== null && followed.reading === shown.current();
  const keyOf = () => `${followed.reading.id} ${followed.digit} ${range}`;
  const rowsShown = () => (following() ? props.digit_rows[range][followed.digit] : props.value.rows);

  function format(offset) {
    return (offset > 0 ? "+" : offset < 0 ? "−" : " ") + Math.abs(offset).toFixed(2);
  }

  // The pictures beside the sliders: `pictures` (dimension order) or none, of the reading of `revision`.
  function showPictures(pictures, revision) {
    for (const picture of list.querySelectorAll("img.change")) {
      const source = pictures?.[Number(picture.dataset.dimension)];
      if (source) picture.src = source;
      else picture.removeAttribute("src");
    }
    if (revision === undefined) delete list.dataset.revision;
    else list.dataset.revision = revision;
  }

  // The pictures of the capsule followed, the newest asked for first.
  const draw = newestOnly(
    async ({ key, capsules, digit, limits, revision }) => {
      const changes = await dimensionChangesOf(capsules, digit, limits);
      const pictures = changes.map((change) => colourPictureUrl(changeColours(change, props.palette)));
      drawnLast = { key, pictures, revision };
      if (following() && keyOf() === key) showPictures(pictures, revision);
    },
    (error) => console.warn(`The pictures beside the sliders were not drawn: ${error.message}.`),
  );
  drawings.add(draw);

  function pictures() {
    if (!following()) {
      showPictures(null);
      return;
    }
    const key = keyOf();
    if (drawnLast.key === key) {
      showPictures(drawnLast.pictures, drawnLast.revision);
      return;
    }
    const limits = [];
    for (const row of rowsShown()) limits[row.dimension] = row.limit;
    const { capsules, digit, reading } = followed;
    delete list.dataset.revision; // the pictures shown meanwhile are of another capsule
    draw({ key, capsules, digit, limits, revision: reading.revision });
  }

  // The capsule followed, its digit, range and rows, for Figure 4 (reading_store.js `decoding`):
  // published once each; null where the sliders follow none.
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
    redraws.publish({ offsets });
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

  // Decode as or the Slider-range radio changed (reading_panel.js `redrawAs`): the rows and
  // pictures follow once the reconstruction is redrawn (`shownCapsule`).
  decodeAs.subscribe((chosen) => {
    range = chosen.range;
    if (!following()) render(); // no capsule to redraw: the rows of the range chosen
  });

  // The reading panel shows a new capsule: a reading's, or Decode as's, at zero offsets (`atZero`);
  // none where it read too little ink. While the pen is down (`penDown`) the sliders stay as they
  // are: nobody can drag them then, and their rows and 16 pictures, redrawn for every reading,
  // would take the page's thread from the pen. They follow the reading made once the pen lifts.
  shownCapsule.subscribe(({ reading, capsules, digit, atZero, penDown }) => {
    if (penDown) return;
    followed = reading && { reading, capsules, digit };
    const zeros = props.value.offsets.map(() => 0);
    if (reading === null) props.value = { ...props.value, offsets: zeros, enabled: false };
    else if (atZero) props.value = { offsets: zeros, rows: rowsShown(), enabled: true, range };
    render();
  });

  watch("value", render);
  render();
}
