// Turn it's sweep, its page side (playground/turn_it.py `SweepView` lays it out; gr.HTML gives
// `element` and `props`). The sweep the turn panel makes of a settled reading (turn_panel.js,
// reading_store.js `turnSweep`) is drawn by its one renderer (sweep_view.js) beside MNIST's curve
// (props.curve, or props.no_curve where there is none).

import { turnSweep } from "./reading_store.js";
import { sweepHtml } from "./sweep_view.js";

export function mount({ element, props }) {
  const view = element.querySelector(".sweep-view");
  const draw = (sweep) => {
    view.innerHTML = sweepHtml(sweep, props.curve, props.no_curve);
  };
  turnSweep.subscribe(draw);
  draw(turnSweep.current());
}
