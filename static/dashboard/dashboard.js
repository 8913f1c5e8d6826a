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

// Bulk review: a card's checkbox belongs to its list's bulk form by id (`form=`). Shift-click
// ticks the range since the last box clicked in that form; "Select all on this page" ticks
// every box of the form (cards loaded with "Load more" included), or clears them all when
// all are ticked. Without JavaScript the bar's "Apply to this page" acts on the same cards.
let lastPicked = null;
document.addEventListener("click", (event) => {
  const box = event.target.closest("input[type=checkbox][name=ids][form]");
  if (!box) return;
  const boxes = Array.from(document.querySelectorAll(`input[name=ids][form="${box.getAttribute("form")}"]`));
  if (event.shiftKey && lastPicked && lastPicked !== box && boxes.includes(lastPicked)) {
    const [from, to] = [boxes.indexOf(lastPicked), boxes.indexOf(box)].sort((a, b) => a - b);
    for (const other of boxes.slice(from, to + 1)) other.checked = box.checked;
  }
  lastPicked = box;
});
document.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-select-all]");
  if (!button || !button.form) return;
  const boxes = document.querySelectorAll(`input[name=ids][form="${button.form.id}"]`);
  const all = Array.from(boxes).every((box) => box.checked);
  for (const box of boxes) box.checked = !all;
});
const showSelectAll = (root) => {
  for (const button of root.querySelectorAll("button[data-select-all]")) button.hidden = false;
};
document.addEventListener("DOMContentLoaded", () => showSelectAll(document));
document.addEventListener("htmx:load", (event) => showSelectAll(event.detail.elt));
// A list re-rendered after a bulk action hands focus to the action's outcome
// (data-focus-after): the button that held it is gone with the old list.
document.addEventListener("htmx:afterSettle", (event) => {
  const target = event.detail.target;
  const list = target && target.id && document.getElementById(target.id);
  const outcome = list && list.dataset.focusAfter && document.querySelector(list.dataset.focusAfter);
  if (outcome) outcome.focus();
});
// A bulk delete asks first: its confirmation takes the focus, so Enter or Space answers it.
document.addEventListener("htmx:afterSettle", (event) => {
  const target = event.detail.target;
  if (!target || !target.classList || !target.classList.contains("bulk-status")) return;
  const confirm = target.querySelector(".confirm-delete button");
  if (confirm) confirm.focus();
});
// A bulk form sends either the ticked ids or the page's ids, not both: half the fields, so
// a long page stays under the server's limit on fields and reaches its own clear cap.
document.addEventListener("htmx:configRequest", (event) => {
  const form = event.detail.elt;
  if (!form || !form.matches || !form.matches("form.bulk")) return;
  const params = event.detail.parameters;
  const scope = typeof params.get === "function" ? params.get("scope") : params.scope;
  const unused = scope === "page" ? "ids" : "page_ids";
  if (typeof params.delete === "function") params.delete(unused);
  else delete params[unused];
});

// --- Memory card: the "More" popover (a plain <details>, so it works without JavaScript).
// Escape closes it and gives the focus back to its summary; a click elsewhere, or opening
// another card's menu, closes it, so at most one popover covers the list at a time.
document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape") return;
  const open = event.target.closest && event.target.closest("details.more-actions[open]");
  if (!open) return;
  open.open = false;
  open.querySelector("summary").focus();
});
document.addEventListener("click", (event) => {
  for (const menu of document.querySelectorAll("details.more-actions[open]")) {
    if (!menu.contains(event.target)) menu.open = false;
  }
});
// --- end memory card
