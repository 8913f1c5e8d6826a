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
