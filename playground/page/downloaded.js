// A file's bytes, fetched: the page's networks download their files with it, in the page and in
// the workers.

// The bytes at `url` (absolute: a worker has no page to be relative to), as an ArrayBuffer; an
// error naming the address and the HTTP status where the server refuses it.
export async function downloaded(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.arrayBuffer();
}
