// Turn it's sweep, its page side (playground/turn_it.py `SweepView` lays it out; gr.HTML gives
// `element`, `props`, `watch` and `fire`, the events it fires). The sweep is drawn by its one
// renderer (sweep_view.js) beside MNIST's curve (props.curve, or props.no_curve where there is
// none), from the page's numbers or the server's (props.value).
//
// The section follows the reading only while it is on the screen, or about to be: when the last
// settled reading the reading panel showed (reading_store.js `settled`) is not the one the sweep
// shows, it refreshes the turn panel and the sweep for it. It offers the refresh to the turn panel
// (turn_panel.js, reading_store.js `refreshes`), which takes it where it turns the digit itself and
// draws the sweep here with `draw`. Otherwise it fires "refresh", and the server brings both (the
// sweep runs both networks on every angle); while a refresh asked of the server is unanswered the
// next one goes there too, so that its answer, which replaces both panels, is never older than what
// the page drew. A person drawing while the section is off the screen costs nothing more. Nothing
// here reads the layout: an IntersectionObserver says when the section is on the screen.

import { refreshes, settled } from "./reading_store.js";
import { fromServer, sweepHtml } from "./sweep_view.js";

export function mount({ element, props, watch, fire }) {
  const view = element.querySelector(".sweep-view");
  let showing = ""; // the revision of the reading whose sweep is drawn, "" for none
  let asked = null; // the revision last asked for
  let serverAsked = false; // a refresh asked of the server, not answered yet
  const onScreen = new Set();

  // The sweep drawn from `sweep` (sweep_view.js; null: none).
  function draw(sweep) {
    showing = sweep?.reading ?? "";
    view.innerHTML = sweepHtml(sweep, props.curve, props.no_curve);
  }

  function server() {
    serverAsked = true;
    fire.refresh();
  }

  function follow() {
    const revision = settled.current()?.revision ?? "";
    if (onScreen.size === 0 || revision === showing || revision === asked) return;
    asked = revision;
    if (serverAsked || !refreshes.offer({ reading: revision, draw, server })) server();
  }

  const watcher = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        if (entry.isIntersecting) onScreen.add(entry.target);
        else onScreen.delete(entry.target);
      }
      follow();
    },
    { rootMargin: "300px 0px" },
  ); // a section about to scroll into view is refreshed already
  for (const part of [document.querySelector("#turn-sliders"), document.querySelector("#turn-panel"), element]) {
    if (part) watcher.observe(part);
  }
  settled.subscribe(follow);
  watch("value", () => {
    serverAsked = false;
    draw(fromServer(props.value));
    follow();
  });
  draw(fromServer(props.value));
  follow();
}
