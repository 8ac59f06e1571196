// The dimension sliders' page side (playground/dimension_sliders.py; gr.HTML gives `element`,
// `props`, `watch` and `fire`, the events it fires). props.value = {offsets: 16 numbers in dimension order, rows:
// [{dimension, label, limit}] in the order shown, enabled}. Dragging a slider sets the offset and
// asks the page's decoder to redraw the reconstruction (a "capsule-redraw" event: reading_panel.js);
// only where it cannot does the move go to the server, as the component's "input" event. The
// server sets the whole value (new labels, offsets back at zero).

export function mount({ element, props, watch, fire }) {
  const list = element.querySelector(".dimensions");
  let shownRows = "";

  function format(offset) {
    return (offset > 0 ? "+" : offset < 0 ? "−" : " ") + Math.abs(offset).toFixed(2);
  }

  function render() {
    const value = props.value || { offsets: [], rows: [] };
    const rows = JSON.stringify(value.rows);
    if (rows !== shownRows) {
      shownRows = rows;
      list.replaceChildren(
        ...value.rows.map((row, slot) => {
          const item = document.createElement("div");
          item.className = "dimension";
          item.innerHTML =
            `<label for="${element.id}-d${row.dimension}"></label>` +
            `<input type="range" id="${element.id}-d${row.dimension}" data-dimension="${row.dimension}"` +
            ` min="${-row.limit}" max="${row.limit}" step="${row.limit / 50}">` +
            `<output></output>`;
          item.querySelector("label").textContent = row.label;
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
  }

  function moved(offsets) {
    props.value = { ...props.value, offsets };
    const redraw = new CustomEvent("capsule-redraw", { detail: { offsets }, cancelable: true });
    if (document.dispatchEvent(redraw)) fire.input(); // not cancelled: the page's decoder did not draw
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

  watch("value", render);
  render();
}
