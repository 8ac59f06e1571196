// The files the page's reader fetches before it reads (ONNX Runtime Web's, the CapsNet's capsules
// and routing graphs), asked for from the page's head as soon as it is in, beside Gradio's own
// files: on a phone far away the link carries them while Gradio's files still come a round trip
// at a time (at a low priority they waited until the last of those had gone out: docs/benchmarks.md).
// The reader's worker starts only once the page is idle (page_networks.js `startReader`) and finds
// them in the browser's cache or on their way (they are kept for good: page_network.py CACHED).
// Where the head names a file's copy on the Hub (#hub-copies: downloaded.js), the copy is asked
// for, with the same integrity as the worker's, and the Space's file where the copy fails.
// The page's head runs this file as a plain script (page_modules.head), the files' addresses in its
// element's data-files. Where the page cannot run the networks (page_networks.js `cannotRun`),
// nothing is fetched.
{
  const files = JSON.parse(document.currentScript.dataset.files);
  const named = document.getElementById("hub-copies");
  const copies = named === null ? {} : JSON.parse(named.textContent);
  const canRun = typeof WebAssembly === "object" && typeof Worker === "function" && !navigator.connection?.saveData;
  const read = (answer) => (answer.ok ? answer.arrayBuffer() : Promise.reject(new Error(answer.status)));
  // each read to its end, for the browser to keep it whole; a failure is for the worker to tell
  if (canRun)
    for (const file of files) {
      const copy = copies[file];
      const copied = copy ? fetch(copy.url, { integrity: copy.integrity }).then(read) : Promise.reject();
      copied.catch(() => fetch(file).then(read)).catch(() => {});
    }
}
