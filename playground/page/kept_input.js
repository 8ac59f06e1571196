// Taps and strokes on a drawing pad made before its module (drawing_pad.js) has mounted, kept for
// it. The page's head runs this file as a plain script (page_modules.HEAD), before Gradio lays out
// any component, so that a pad's examples and canvas take input from their first paint: a visitor
// far from the server sees the examples a round trip or more before the pad's module arrives.
//
// Input is kept per pad, under the id of the component holding it, in the order it came: a click
// on one of the pad's buttons (an example, Undo, Clear, a pen) as the button's index among them; a
// press, move or lift on its canvas as a fraction of the canvas's box, with its pointer. Once its
// listeners are in place, the pad's module says so (the document's "pad-mounted" event, {id,
// replay}) and is given its input to replay, one at a time; nothing more is kept for that pad.
{
  const kept = new Map(); // pad id -> the input kept for it, oldest first
  const mounted = new Set(); // the pads whose module has taken their input
  const pressed = new Set(); // the pointers pressed on a canvas and not yet lifted

  // The pad (`.pad`) an event happened in and the id it is kept under, where its module has not mounted.
  const padOf = (event) => {
    const pad = event.target.closest?.(".pad");
    const id = pad?.parentElement?.closest("[id]")?.id;
    return pad && id && !mounted.has(id) ? { pad, id } : null;
  };
  const keep = (id, input) => {
    if (!kept.has(id)) kept.set(id, []);
    kept.get(id).push(input);
  };

  document.addEventListener(
    "click",
    (event) => {
      const found = padOf(event);
      const button = event.target.closest?.("button");
      if (!found || !button) return;
      keep(found.id, { kind: "click", button: [...found.pad.querySelectorAll("button")].indexOf(button) });
    },
    true,
  );

  for (const kind of ["pointerdown", "pointermove", "pointerup", "pointercancel"]) {
    document.addEventListener(
      kind,
      (event) => {
        const found = padOf(event);
        if (!found || event.target.tagName !== "CANVAS") return;
        if (kind === "pointerdown") pressed.add(event.pointerId);
        else if (!pressed.has(event.pointerId)) return; // a mouse passing over, unpressed
        if (kind === "pointerup" || kind === "pointercancel") pressed.delete(event.pointerId);
        const box = event.target.getBoundingClientRect();
        keep(found.id, {
          kind,
          x: (event.clientX - box.left) / box.width,
          y: (event.clientY - box.top) / box.height,
          pointerId: event.pointerId,
          pointerType: event.pointerType,
          button: event.button,
        });
      },
      true,
    );
  }

  document.addEventListener("pad-mounted", ({ detail: { id, replay } }) => {
    mounted.add(id);
    const input = kept.get(id) ?? [];
    kept.delete(id);
    for (const each of input) replay(each);
  });
}
