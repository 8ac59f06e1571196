// Work done on the newest of what is offered, one piece at a time: while a piece is under way, what
// is offered meanwhile waits, and only the newest of it is done next. A slow device so does less
// often what a fast one does every time, and nothing queues up behind it.

// A function that offers `work` (async, one argument) an item; `failed(error)` hears of a failure.
// Its `done()` is a promise of the moment nothing is under way or waiting.
export function newestOnly(work, failed) {
  let waiting = null; // [the newest item offered, not yet worked on]
  let busy = false;
  let finished = []; // what done() waits on
  const next = () => {
    if (busy) return;
    if (waiting === null) {
      for (const resolve of finished) resolve();
      finished = [];
      return;
    }
    const [item] = waiting;
    waiting = null;
    busy = true;
    Promise.resolve()
      .then(() => work(item))
      .catch(failed)
      .finally(() => {
        busy = false;
        next();
      });
  };
  const offer = (item) => {
    waiting = [item];
    next();
  };
  offer.done = () => (busy || waiting !== null ? new Promise((resolve) => finished.push(resolve)) : Promise.resolve());
  return offer;
}
