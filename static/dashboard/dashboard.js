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
