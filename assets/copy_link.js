// "Copy link": puts the address bar's URL, with every setting of the page in it, on the
// clipboard. Where the clipboard is not allowed (an http:// address other than localhost),
// the link is shown selected in a text box instead, ready for Ctrl+C.
// Run by ui/links.py through ui.scripts: this script's element sits right after the markup.
(function (script) {
  const root = script.parentElement.querySelector('.copy-link');
  const button = root.querySelector('button');
  const status = root.querySelector('[role="status"]');
  const field = root.querySelector('input');
  if (button.dataset.ready) return;
  button.dataset.ready = '1';
  button.addEventListener('click', async () => {
    const url = window.location.href;
    try {
      await navigator.clipboard.writeText(url);
      field.hidden = true;
      status.textContent = 'Link copied: paste it anywhere to share this view.';
    } catch (err) {
      field.hidden = false;
      field.value = url;
      field.focus();
      field.select();
      status.textContent = 'Copy the selected link (Ctrl+C or ⌘C).';
    }
  });
})(document.currentScript);
