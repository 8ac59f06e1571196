// Turn it's sweep, its page side (playground/turn_it.py lays it out; gr.HTML gives `element`,
// `props`, `watch` and `fire`, the events it fires). The section follows the reading only while it
// is on the screen, or about to be: when the last settled reading the reading panel showed
// (reading_store.js `settled`) is not the one the section shows, it refreshes the turn panel and
// the sweep for it. It offers the refresh to the turn panel (turn_panel.js, reading_store.js
// `refreshes`), which takes it where it turns the digit itself and fills both here. Otherwise it
// fires "refresh", and the server brings both (the sweep runs both networks on every angle); while a refresh asked of the server is unanswered the next one goes
// there too, so that its answer, which replaces both panels, is never older than what the page
// drew. A person drawing while the section is off the screen costs nothing more. Nothing here
// reads the layout: an IntersectionObserver says when the section is on the screen.

import { refreshes, settled } from "./reading_store.js";

export function mount({ element, watch, fire }) {
  let asked = null; // the revision last asked for
  let serverAsked = false; // a refresh asked of the server, not answered yet
  const onScreen = new Set();

  function server() {
    serverAsked = true;
    fire.refresh();
  }

  function follow() {
    const revision = settled.current()?.revision ?? "";
    const shown = element.querySelector(".sweep")?.dataset.reading ?? "";
    if (onScreen.size === 0 || revision === shown || revision === asked) return;
    asked = revision;
    if (serverAsked || !refreshes.offer({ reading: revision, sweep: element, server })) server();
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
    follow();
  });
  follow();
}
