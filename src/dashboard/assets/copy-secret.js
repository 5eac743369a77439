// The copy button of a page showing a new secret (progressive enhancement: the button is hidden
// until this runs; without script the secret is selected by hand in its read-only field). The
// secret is read from the field and goes only to the clipboard: nothing is sent anywhere.
for (const button of document.querySelectorAll('button[data-copy]')) {
  const field = document.getElementById(button.dataset.copy ?? '');
  const status = document.getElementById(button.dataset.status ?? '');
  // A secret's field, or a read-only configuration (mcp-setup-pages.ts) in a textarea.
  if (!(field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement)) continue;
  const say = (text) => {
    if (status) status.textContent = text;
  };
  button.hidden = false;
  // Focus selects the whole secret, so a keyboard user's Ctrl+C takes all of it.
  field.addEventListener('focus', () => field.select());
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(field.value);
      say('Copied to the clipboard.');
    } catch {
      // No clipboard access (an insecure context, a denied permission): select it for the person.
      field.focus();
      field.select();
      say('Select the key and copy it (Ctrl+C or ⌘C).');
    }
  });
}
