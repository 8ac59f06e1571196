// The transform sliders' page side (playground/transform_sliders.py; gr.HTML gives `element`,
// `props` and `watch`). props.value = {rotation, scale, shear, stretch_x, stretch_y, shift_x,
// shift_y, revision}: moving a slider sets its field, counts the revision and publishes the move
// for the turn panel (reading_store.js `turns`, turn_panel.js); "Straighten" puts every slider back.

import { turns } from "./reading_store.js";

export function mount({ element, props, watch }) {
  const inputs = [...element.querySelectorAll("input[type=range]")];

  function show(input) {
    const value = Number(input.value),
      unit = input.dataset.unit;
    const sign = value > 0 ? "+" : value < 0 ? "−" : " ";
    const text =
      unit === "×"
        ? `×${value.toFixed(2)}`
        : unit === "°"
          ? `${sign}${Math.abs(value).toFixed(0)}°`
          : unit === "px"
            ? `${sign}${Math.abs(value).toFixed(1)} px`
            : `${sign}${Math.abs(value).toFixed(2)}`;
    input.closest(".transform").querySelector("output").textContent = text;
  }

  function render() {
    const value = props.value || {};
    for (const input of inputs) {
      input.value = value[input.name] ?? input.dataset.identity;
      show(input);
    }
  }

  function moved() {
    const value = { revision: (props.value?.revision || 0) + 1 };
    for (const input of inputs) value[input.name] = Number(input.value);
    element.dataset.revision = value.revision;
    props.value = value;
    turns.publish({ value });
  }

  element.addEventListener("input", (event) => {
    if (!event.target.matches("input[type=range]")) return;
    show(event.target);
    moved();
  });

  element.querySelector(".straighten").addEventListener("click", () => {
    if (inputs.every((input) => Number(input.value) === Number(input.dataset.identity))) return;
    for (const input of inputs) {
      input.value = input.dataset.identity;
      show(input);
    }
    moved();
  });

  watch("value", render);
  render();
}
