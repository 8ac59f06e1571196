// On a narrow screen (a phone), while the drawing pad (props.strip_pad) is on the screen but the
// panel's reading (props.strip_height CSS pixels of it) is not, the panel `element` gets the class
// "strip", and playground.css shows the reading in a strip along the bottom of the screen, so a
// person drawing sees what is read. The reading panel's and the Two-digits panel's.

export function placeStrip({ element, props, watch }) {
  const narrow = window.matchMedia("(max-width: 480px)");
  let placing = false;
  const placeReading = () => {
    placing = false;
    const pad = document.querySelector(props.strip_pad)?.getBoundingClientRect();
    const onScreen = pad && pad.bottom > 0 && pad.top < window.innerHeight;
    const below = element.getBoundingClientRect().top + props.strip_height > window.innerHeight;
    element.classList.toggle("strip", narrow.matches && Boolean(onScreen) && below);
  };
  const place = () => {
    // once a frame at most, where the page lays itself out anyway
    if (!placing) requestAnimationFrame(placeReading);
    placing = true;
  };
  window.addEventListener("scroll", place, { passive: true });
  window.addEventListener("resize", place);
  watch("value", place);
  place();
}
