// Work done on the newest of what is offered: while `limit` pieces are under way, what is offered
// meanwhile waits, and only the newest of it is done next. A slow device so does less often what a
// fast one does every time, and nothing queues up behind it. A limit above one keeps more workers
// busy (Turn it's two), where the pieces may end out of the order they began in.

// A function that offers `work` (async, one argument) an item; `failed(error)` hears of a failure.
// Its `done()` is a promise of the moment nothing is under way or waiting.
export function newestOnly(work, failed, limit = 1) {
  let waiting = null; // [the newest item offered, not yet worked on]
  let underWay = 0;
  let finished = []; // what done() waits on
  const next = () => {
    if (waiting === null && underWay === 0) {
      for (const resolve of finished) resolve();
      finished = [];
    }
    if (waiting === null || underWay >= limit) return;
    const [item] = waiting;
    waiting = null;
    underWay += 1;
    Promise.resolve()
      .then(() => work(item))
      .catch(failed)
      .finally(() => {
        underWay -= 1;
        next();
      });
  };
  const offer = (item) => {
    waiting = [item];
    next();
  };
  offer.done = () =>
    underWay > 0 || waiting !== null ? new Promise((resolve) => finished.push(resolve)) : Promise.resolve();
  return offer;
}
