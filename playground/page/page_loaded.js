// When the page has nothing more pressing to do: loaded, its first paint done, and the browser
// idle. What the page fetches for itself waits for this, so a person's first drawing never does.

const loaded = new Promise((done) => {
  if (document.readyState === "complete") done();
  else window.addEventListener("load", done, { once: true });
});

// A promise of the page loaded and the browser idle.
export function pageIdle() {
  return loaded.then(
    () => new Promise((done) => ("requestIdleCallback" in window ? requestIdleCallback(done) : setTimeout(done))),
  );
}
