// A file's bytes, fetched: the page's networks download their files with it, in the page and in
// the workers. Where the Space names a copy of the file on the Hub (its weights published there:
// playground/hub_copies.py, in the page's head), the copy comes from the Hub's CDN, checked against
// the SHA-256 the Space names (`integrity`: the browser refuses any other bytes), and un-gzipped
// where it is stored so; where that fails, the Space's own file comes instead, and the console
// gets one line of information.

// An absolute address on the Space -> {url, integrity, gzipped}: the Hub's copy of that file.
// The page reads them from its head, once Gradio has put its element there; a worker is given
// them (`useCopies`).
let copies = null;

export function useCopies(table) {
  copies = table;
}

// The copies, as the page's head names them (addresses relative to the page made absolute).
export function hubCopies() {
  if (copies !== null) return copies;
  const element = typeof document === "object" ? document.getElementById("hub-copies") : null;
  if (element === null) return {};
  const named = Object.entries(JSON.parse(element.textContent));
  copies = Object.fromEntries(named.map(([url, copy]) => [new URL(url, document.baseURI).href, copy]));
  return copies;
}

// Whether the Hub has a copy of the file at `url` (absolute).
export const hasCopy = (url) => url in hubCopies();

async function fetched(url, options) {
  const response = await fetch(url, options);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response;
}

// The bytes of the Hub's `copy`, as the Space serves them.
async function copied({ url, integrity, gzipped }) {
  const response = await fetched(url, { integrity });
  if (!gzipped) return response.arrayBuffer();
  return new Response(response.body.pipeThrough(new DecompressionStream("gzip"))).arrayBuffer();
}

// The bytes at `url` (absolute: a worker has no page to be relative to), as an ArrayBuffer: from
// the Hub's copy where there is one and it can be had, else from the Space; an error naming the
// address and the HTTP status where the Space refuses it.
export async function downloaded(url) {
  if (hasCopy(url)) {
    try {
      return await copied(hubCopies()[url]);
    } catch (error) {
      console.info(`The Hub's copy of ${url} was not taken (${error.message}): the Space's instead.`);
    }
  }
  return (await fetched(url)).arrayBuffer();
}
