// The files the page's reader fetches before it reads (ONNX Runtime Web's, the CapsNet's capsules
// and routing graphs), asked for from the page's head, at a low priority: after what lays out the
// page and takes a first tap, before the page is idle. The reader's worker starts only once the
// page is idle (page_networks.js `startReader`), seconds later on a phone far away, and finds them in
// the browser's cache or on their way (they are kept for good: playground/page_network.py CACHED).
// The page's head runs this file as a plain script (page_modules.head), the files' addresses in its
// element's data-files. Where the page cannot run the networks (page_networks.js `cannotRun`),
// nothing is fetched.
{
  const files = JSON.parse(document.currentScript.dataset.files);
  const canRun = typeof WebAssembly === "object" && typeof Worker === "function" && !navigator.connection?.saveData;
  // each read to its end, for the browser to keep it whole; a failure is for the worker to tell
  if (canRun)
    for (const file of files)
      fetch(file, { priority: "low" })
        .then((answer) => answer.arrayBuffer())
        .catch(() => {});
}
