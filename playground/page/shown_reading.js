// The reading the reading panel shows, where the page made it: what Turn it turns in the page.
// {revision: the pad's revision read, as the panel's data-revision says it; image: the network's
// input; capsules; lengths}, or null where the panel shows none of the page's.

let shown = null;

export const shownReading = () => shown;

export function showReading(reading) {
  shown = reading;
}
