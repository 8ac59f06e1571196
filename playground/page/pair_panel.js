// The Two-digits panel's page side (playground/two_digits.py `PairView` lays it out; gr.HTML gives
// `element`, `props` and `watch`): each value the server sends (props.value, two_digit_views.py) is
// drawn by the panel's one renderer (pair_view.js), and before any drawing the panel says
// props.prompt. On a narrow screen its reading shows in a strip while its pad is drawn on (strip.js).

import { fromServer, pairHtml } from "./pair_view.js";
import { placeStrip } from "./strip.js";

export function mount({ element, props, watch }) {
  placeStrip({ element, props, watch });
  const view = element.querySelector(".pair-view");
  const draw = () => {
    view.innerHTML = pairHtml(fromServer(props.value), props.prompt);
  };
  draw();
  watch("value", draw);
}
