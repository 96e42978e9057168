// Dashboard: the copy buttons beside a value shown once (an API key, a secret, a checkout link), and
// the invoice list's updates. Loaded as a file, and only by the pages that use it: the CSP allows no
// inline code.
'use strict';
document.querySelectorAll('[data-copy]').forEach(function (button) {
  var source = document.getElementById(button.dataset.copy);
  button.hidden = false;
  button.addEventListener('click', function () {
    var say = function (text) {
      button.textContent = text;
      setTimeout(function () { button.textContent = 'Copy'; }, 2000);
    };
    // Without clipboard access the value is selected instead, ready for Ctrl+C.
    var select = function () {
      window.getSelection().selectAllChildren(source);
      say('Selected');
    };
    if (!navigator.clipboard) return select();
    navigator.clipboard.writeText(source.textContent.trim()).then(function () { say('Copied'); }, select);
  });
});

// The newest invoices refresh themselves (a reload of the page) every few seconds, so each status is
// current; never while the filters are being used, and not at all once paused (WCAG 2.2.1, 2.2.2).
(function () {
  var list = document.querySelector('[data-refresh-s]');
  var pause = document.getElementById('pause-updates');
  if (!list || !pause) return;
  var everyMs = Number(list.dataset.refreshS) * 1000;
  var filters = document.querySelector('form.filters');
  var touched = false;
  if (filters) filters.addEventListener('input', function () { touched = true; });
  pause.hidden = false;
  pause.addEventListener('click', function () {
    var paused = pause.getAttribute('aria-pressed') !== 'true';
    pause.setAttribute('aria-pressed', String(paused));
    pause.textContent = paused ? 'Resume updates' : 'Pause updates';
  });
  setInterval(function () {
    var busy = touched || (filters && filters.contains(document.activeElement));
    if (pause.getAttribute('aria-pressed') !== 'true' && !busy) location.reload();
  }, everyMs);
})();
