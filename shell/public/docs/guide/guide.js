// Fills each <code data-snippet> with the file it names: the same files Paygate's tests run.
for (const el of document.querySelectorAll('code[data-snippet]')) {
  fetch(el.dataset.snippet)
    .then((r) => (r.ok ? r.text() : Promise.reject(new Error(String(r.status)))))
    .then((text) => {
      el.textContent = text;
    })
    .catch(() => {
      el.textContent = 'The snippet could not be loaded: use the download link above.';
    });
}
