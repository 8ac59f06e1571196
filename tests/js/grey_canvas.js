// A stand-in for the browser's canvas, which node has not: a canvas whose PNG is its pixels' grey
// levels in base64, so that a test can read back what a picture of views.js shows.

globalThis.document = {
  createElement: () => {
    let drawn = null;
    return {
      getContext: () => ({
        createImageData: (width, height) => ({ data: new Uint8ClampedArray(4 * width * height) }),
        putImageData: (image) => {
          drawn = image.data;
        },
      }),
      toDataURL: () => `data:grey;base64,${Buffer.from(drawn.filter((_, k) => k % 4 === 0)).toString("base64")}`,
    };
  },
};

// The grey levels of the picture described by `alt` in `html`.
export function greyLevels(html, alt) {
  const source = html.match(new RegExp(`src="data:grey;base64,([^"]+)" alt="${alt}"`))[1];
  return Array.from(Buffer.from(source, "base64"));
}
