// Pieces of work shared among workers: each piece goes to the first worker free, oldest piece
// first, so that while one worker is busy the next piece starts on another (Turn it's turns, each
// two pieces: one network's reading each, page_networks.js).

// A function that gives `message` to the first of the workers free (each {ask(kind, message)}, as
// page_networks.js makes them) as `kind`, and returns a promise of its answer. Its `add(worker)`
// adds a worker, free from then on.
export function sharedWork(kind) {
  const waiting = []; // pieces not yet given to a worker, oldest first: [message, done, failed]
  const free = []; // the workers free
  const next = () => {
    while (free.length > 0 && waiting.length > 0) {
      const worker = free.shift();
      const [message, done, failed] = waiting.shift();
      worker
        .ask(kind, message)
        .then(done, failed)
        .finally(() => {
          free.push(worker);
          next();
        });
    }
  };
  const give = (message) =>
    new Promise((done, failed) => {
      waiting.push([message, done, failed]);
      next();
    });
  give.add = (worker) => {
    free.push(worker);
    next();
  };
  return give;
}
