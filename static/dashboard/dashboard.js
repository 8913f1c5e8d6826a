// Copy buttons: <button data-copy="#input-id">. Works without htmx; the page works without it.
document.addEventListener("click", async (event) => {
  const button = event.target.closest("[data-copy]");
  if (!button) return;
  const field = document.querySelector(button.dataset.copy);
  if (!field) return;
  field.select();
  try {
    await navigator.clipboard.writeText(field.value);
  } catch {
    document.execCommand("copy"); // non-secure origins have no async clipboard
  }
  const note = button.parentElement.querySelector(".copied");
  if (note) note.hidden = false;
});

// A token preset ticks its scopes, so the form shows what the server will apply anyway.
document.addEventListener("change", (event) => {
  const preset = event.target.closest("input[name=preset][data-scopes]");
  if (!preset) return;
  const scopes = preset.dataset.scopes.split(" ");
  for (const box of preset.form.querySelectorAll("input[name=scopes]")) {
    box.checked = scopes.includes(box.value);
  }
});

// An in-place action replaces the markup that held the focus: focus moves to what took its
// place (the field or the confirmation it asks for, else the card itself), never to <body>,
// so a keyboard or screen-reader user keeps their place on the page.
let lostFocus = null;
document.addEventListener("htmx:beforeSwap", (event) => {
  const target = event.detail.target;
  if (!target || !target.parentElement || !target.contains(document.activeElement)) {
    lostFocus = null;
    return;
  }
  const parent = target.parentElement;
  lostFocus = { parent, index: Array.from(parent.children).indexOf(target), id: target.id };
});
document.addEventListener("htmx:afterSettle", () => {
  if (!lostFocus) return;
  const { parent, index, id } = lostFocus;
  lostFocus = null;
  const active = document.activeElement;
  if (active && active !== document.body && document.contains(active)) return;
  const place =
    (id && document.getElementById(id)) ||
    (parent.isConnected && parent.children[Math.min(index, parent.children.length - 1)]) ||
    document.getElementById("main");
  if (!place) return;
  const field = place.querySelector("[autofocus], textarea, .confirm-delete button");
  const goal = field || place;
  if (!goal.matches("a[href], button, input, select, textarea, [tabindex]")) {
    goal.setAttribute("tabindex", "-1");
  }
  goal.focus();
});
