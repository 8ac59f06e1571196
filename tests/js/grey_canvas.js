// A stand-in for the browser's canvas, which node has not: a canvas whose PNG is its pixels' RGBA
// bytes in base64, so that a test can read back what a picture of views.js shows.

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
      toDataURL: () => `data:rgba;base64,${Buffer.from(drawn).toString("base64")}`,
    };
  },
};

// The RGBA bytes of the picture described by `alt` in `html`.
function rgbaOf(html, alt) {
  const source = html.match(new RegExp(`src="data:rgba;base64,([^"]+)" alt="${alt}"`))[1];
  return Array.from(Buffer.from(source, "base64"));
}

// The grey levels of the picture described by `alt` in `html`.
export const greyLevels = (html, alt) => rgbaOf(html, alt).filter((_, k) => k % 4 === 0);

// The RGB levels of the picture described by `alt` in `html`, 3 a pixel.
export const rgbLevels = (html, alt) => rgbaOf(html, alt).filter((_, k) => k % 4 !== 3);
