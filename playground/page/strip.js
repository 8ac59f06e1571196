// On a narrow screen (a phone), while the drawing pad whose component's id is props.strip_pad is on
// the screen (reading_store.js `padsOnScreen`) but the panel's reading (props.strip_height CSS
// pixels of it) is not, the panel `element` gets the class "strip", and playground.css shows the
// reading in a strip along the bottom of the screen, so a person drawing sees what is read. The
// reading panel's and the Two-digits panel's.

import { padsOnScreen } from "./reading_store.js";

export function placeStrip({ element, props, watch }) {
  const narrow = window.matchMedia("(max-width: 480px)");
  let placing = false;
  const placeReading = () => {
    placing = false;
    const below = element.getBoundingClientRect().top + props.strip_height > window.innerHeight;
    const padOnScreen = padsOnScreen.current()?.[props.strip_pad] === true;
    element.classList.toggle("strip", narrow.matches && padOnScreen && below);
  };
  const place = () => {
    // once a frame at most, where the page lays itself out anyway
    if (!placing) requestAnimationFrame(placeReading);
    placing = true;
  };
  padsOnScreen.subscribe(place);
  window.addEventListener("scroll", place, { passive: true });
  window.addEventListener("resize", place);
  watch("value", place);
  place();
}
