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
// === Shell: busy controls and keyboard shortcuts =============================================
// While htmx waits for an answer the control that asked (a button, or a form's submit
// buttons) is marked aria-disabled and ignores clicks; `disabled` itself would drop the
// focus to <body>, and the focus code above needs it where it was.
const busyControls = (elt) => {
  if (!elt || !elt.matches) return [];
  if (elt.matches("button, .button")) return [elt];
  if (elt.matches("form")) return Array.from(elt.querySelectorAll("button:not([type=button])"));
  return [];
};
let pending = 0; // requests under way: the busy line shows until the last one is answered
document.addEventListener("htmx:beforeRequest", (event) => {
  for (const control of busyControls(event.detail.elt)) {
    if (control.getAttribute("aria-disabled") === "true") continue;
    control.setAttribute("aria-disabled", "true");
    control.dataset.busy = "";
  }
  const target = event.detail.target;
  if (target && target.setAttribute) target.setAttribute("aria-busy", "true");
  pending += 1;
  const line = document.getElementById("busy");
  if (line) line.classList.add("htmx-request");
});
document.addEventListener("htmx:afterRequest", (event) => {
  for (const control of busyControls(event.detail.elt)) {
    if (!("busy" in control.dataset)) continue;
    control.removeAttribute("aria-disabled");
    delete control.dataset.busy;
  }
  pending = Math.max(0, pending - 1);
  if (pending) return;
  for (const busy of document.querySelectorAll("[aria-busy=true]")) busy.removeAttribute("aria-busy");
  const line = document.getElementById("busy");
  if (line) line.classList.remove("htmx-request");
});
const refuseBusy = (event) => {
  const control = event.target.closest && event.target.closest("[data-busy]");
  const form = event.type === "submit" && event.target.querySelector("[data-busy]");
  if (control || form) {
    event.preventDefault();
    event.stopImmediatePropagation();
  }
};
document.addEventListener("click", refuseBusy, true);
document.addEventListener("submit", refuseBusy, true);

// Keyboard review: "/" search, j/k next/previous item, c/l/a confirm/lock/archive it, x its
// checkbox, "?" the list of keys. Items are the cards of a list (`article.card[id]`); the
// current one is the one holding the focus. Keys typed into a field, or with Ctrl, Alt or
// Meta held, are left alone.
const ITEMS = "#main article.card[id]";
const ITEM_KEYS = { c: "button.confirm", l: "button.lock", a: "button.archive" };
const typing = (element) =>
  element && element.matches && (element.isContentEditable || element.matches("input, textarea, select"));
const currentItem = () => {
  const active = document.activeElement;
  return (active && active.closest && active.closest(ITEMS)) || document.querySelector(`${ITEMS}.kbd-current`);
};
const goTo = (item) => {
  for (const other of document.querySelectorAll(`${ITEMS}.kbd-current`)) other.classList.remove("kbd-current");
  item.classList.add("kbd-current");
  if (!item.hasAttribute("tabindex")) item.setAttribute("tabindex", "-1");
  item.focus();
  item.scrollIntoView({ block: "nearest" });
};
document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.altKey || event.metaKey || event.defaultPrevented) return;
  if (typing(event.target) || document.querySelector("dialog[open]:not(#keys)")) return;
  const keys = document.getElementById("keys");
  if (event.key === "?") {
    if (keys && !keys.open) keys.showModal();
    event.preventDefault();
    return;
  }
  if (keys && keys.open) return;
  if (event.key === "/") {
    const search = document.getElementById("q");
    if (search) search.focus();
    else {
      const link = document.querySelector('.tabs a[href$="/search/"]');
      if (!link) return;
      window.location.assign(link.href);
    }
    event.preventDefault();
    return;
  }
  const items = Array.from(document.querySelectorAll(ITEMS));
  if (!items.length) return;
  const item = currentItem();
  if (event.key === "j" || event.key === "k") {
    const index = items.indexOf(item);
    const next = index < 0 ? 0 : Math.max(0, Math.min(items.length - 1, index + (event.key === "j" ? 1 : -1)));
    goTo(items[next]);
    event.preventDefault();
    return;
  }
  if (!item) return;
  if (event.key === "x") {
    const box = item.querySelector("input[type=checkbox][name=ids]");
    if (box) box.click();
    event.preventDefault();
    return;
  }
  const selector = ITEM_KEYS[event.key];
  const button = selector && item.querySelector(selector);
  if (!button) return;
  // The action's button takes the focus first, so the focus code above hands it to the
  // card that replaces this one once the answer is swapped in.
  button.focus();
  button.click();
  event.preventDefault();
});
// The card an action replaced keeps its place as the current item.
document.addEventListener("htmx:afterSettle", (event) => {
  const target = event.detail.target;
  const item = target && target.id && document.getElementById(target.id);
  if (item && item.matches(ITEMS) && item.contains(document.activeElement)) item.classList.add("kbd-current");
});
// === end Shell ===
