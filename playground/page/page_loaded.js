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

// A promise of the page idle and `element` within `margin` of the screen (an IntersectionObserver's
// rootMargin, "100% 0px": a screen's height above or below it): when a panel far down the page may
// fetch its modules, which never then hold up what a first visit shows first.
export function nearTheScreen(element, margin) {
  return pageIdle().then(
    () =>
      new Promise((done) => {
        const near = new IntersectionObserver(
          (entries) => {
            if (!entries.some((entry) => entry.isIntersecting)) return;
            near.disconnect();
            done();
          },
          { rootMargin: margin },
        );
        near.observe(element);
      }),
  );
}
