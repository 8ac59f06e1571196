// A panel's layout as the server writes it, filled with numbers the page computed: the one way
// page_reader.js and turn_reader.js draw (each js_on_load has its own copy of these functions).
// A template is the panel views.py or turn_views.py writes for full values: every bar of a
// lengths_svg chart at 1, so a bar of value v is drawn at v of its height.
function fromTemplate(template) {
  const holder = document.createElement("div");
  holder.innerHTML = template;
  return holder.firstElementChild;
}

// Each number in `node`'s text replaced in turn by one of `values`, written with as many decimals
// as the template's number has ("capsule length 1.000" -> "capsule length 0.957").
function numbered(node, ...values) {
  let k = 0;
  node.textContent = node.textContent.replace(/\d+(\.\d+)?/g, (number) => {
    const value = values[k++];
    return number.includes(".") ? value.toFixed(number.split(".")[1].length) : String(value);
  });
}

// A lengths_svg chart's bars and their labels at `values`, the bar of `winner` highlighted.
function barsFilled(svg, values, winner) {
  const labels = svg.querySelectorAll("text.value");
  svg.querySelectorAll("rect").forEach((bar, k) => {
    const full = Number(bar.getAttribute("height")), bottom = Number(bar.getAttribute("y")) + full;
    bar.setAttribute("height", (full * values[k]).toFixed(1));
    bar.setAttribute("y", (bottom - full * values[k]).toFixed(1));
    bar.classList.toggle("winner", k === winner);
    labels[k].setAttribute("y", (Number(labels[k].getAttribute("y")) + full * (1 - values[k])).toFixed(1));
    labels[k].textContent = values[k].toFixed(2);
  });
}

// A picture's data URL set, and the number in its description where it names one.
function pictureSet(img, url, number) {
  img.src = url;
  if (number !== undefined) img.alt = img.alt.replace(/\d+/, number);
}

const argmax = (values) => values.indexOf(Math.max(...values));
